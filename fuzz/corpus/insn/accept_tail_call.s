# expect: accept
# map: progs prog_array 4 4 4
ldmap %r2, 0
mov %r3, 1
call 12
mov %r0, 0
exit
