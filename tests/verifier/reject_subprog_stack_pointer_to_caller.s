# The callee stores a pointer to its own stack in the caller's frame.
# expect: reject a pointer to a callee's stack cannot be stored in its caller's stack
mov %r1, %r10
add %r1, -8
call local f
mov %r0, 0
exit
f:
mov %r2, %r10
add %r2, -16
stxdw [%r1+0], %r2
mov %r0, 0
exit
