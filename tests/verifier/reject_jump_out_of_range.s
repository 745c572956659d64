# expect: reject jump out of range
# tier: restricted
mov %r0, 0
raw 0x05 0 0 10 0
exit
