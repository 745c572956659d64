# expect: reject R0 leaks a pointer at exit
mov %r0, %r10
add %r0, -8
exit
