# expect: accept
stdw [%r10-8], 0
mov %r2, 1
lock add [%r10-8], %r2
lock fetch add [%r10-8], %r2
mov %r0, 0
lock cmpxchg [%r10-8], %r2
lock xchg [%r10-8], %r2
ldxdw %r0, [%r10-8]
exit
