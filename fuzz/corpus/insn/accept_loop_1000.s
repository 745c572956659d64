# A longer loop still fits the complexity limit.
# expect: accept
# tier: restricted
mov %r0, 0
mov %r2, 0
loop:
add %r0, 3
add %r2, 1
jlt %r2, 1000, loop
exit
