# expect: reject invalid shift 64
mov %r0, 1
raw 0x67 0 0 0 64
exit
