# expect: accept
# tier: restricted
mov %r1, 0
call local f
exit
f:
mov %r0, 0
loop:
add %r0, 1
add %r1, 1
jlt %r1, 8, loop
exit
