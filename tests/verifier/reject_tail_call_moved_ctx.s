# expect: reject expects the context pointer (the filter's argument) unchanged
# map: progs prog_array 4 4 4
add %r1, 8
ldmap %r2, 0
mov %r3, 1
call 12
mov %r0, 0
exit
