# expect: reject storing part of a pointer (4 bytes at fp-8)
stxw [%r10-8], %r1
mov %r0, 0
exit
