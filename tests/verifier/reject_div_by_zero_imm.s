# expect: reject division by zero
mov %r0, 1
raw 0x37 0 0 0 0
exit
