# expect: reject invalid shift 32 for a 32-bit operation
mov %r0, 1
raw 0x64 0 0 0 32
exit
