# expect: reject atomic operation with a pointer would leak it
stdw [%r10-8], 0
mov %r2, %r10
lock xchg [%r10-8], %r2
mov %r0, 0
exit
