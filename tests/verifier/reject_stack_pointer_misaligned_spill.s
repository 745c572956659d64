# expect: reject pointers are spilled with 8-byte aligned stores
stxdw [%r10-12], %r1
mov %r0, 0
exit
