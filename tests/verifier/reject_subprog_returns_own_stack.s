# expect: reject returning a pointer to the function's own stack
call local f
mov %r0, 0
exit
f:
mov %r0, %r10
add %r0, -8
exit
