# A 4x4 nested loop.
# expect: accept
# tier: restricted
mov %r0, 0
mov %r2, 0
outer:
mov %r3, 0
inner:
add %r0, 1
add %r3, 1
jlt %r3, 4, inner
add %r2, 1
jlt %r2, 4, outer
exit
