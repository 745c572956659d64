# 64 bytes do not fit in a 32-byte buffer at fp-32.
# expect: reject is outside the 512-byte stack
ldxdw %r3, [%r1+16]
mov %r1, %r10
add %r1, -32
mov %r2, 64
call 112
mov %r0, 0
exit
