# expect: reject legacy packet loads
mov %r7, 0
raw 0x40 0 7 0 0
exit
