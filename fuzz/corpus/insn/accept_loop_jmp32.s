# expect: accept
# tier: restricted
mov32 %r0, 0
mov32 %r2, 0
loop:
add32 %r0, %r2
add32 %r2, 1
jlt32 %r2, 10, loop
exit
