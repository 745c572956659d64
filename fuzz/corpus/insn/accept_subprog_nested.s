# expect: accept
# tier: restricted
mov %r1, 5
call local f1
exit
f1:
add %r1, 1
call local f2
add %r0, 1
exit
f2:
mov %r0, %r1
exit
