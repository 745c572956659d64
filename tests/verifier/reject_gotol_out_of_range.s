# expect: reject jump out of range
# tier: restricted
mov %r0, 1
raw 0x06 0 0 0 100
exit
