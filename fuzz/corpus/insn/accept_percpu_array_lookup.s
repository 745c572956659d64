# expect: accept
# map: pc percpu_array 4 8 1
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
jeq %r0, 0, out
ldxdw %r0, [%r0+0]
exit
out:
mov %r0, 0
exit
