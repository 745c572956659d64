# A pointer to the caller's stack spilled in the callee's own frame.
# expect: accept
stdw [%r10-8], 5
mov %r1, %r10
add %r1, -8
call local f
exit
f:
stxdw [%r10-8], %r1
ldxdw %r2, [%r10-8]
ldxdw %r0, [%r2+0]
exit
