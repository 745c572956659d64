# expect: reject may be NULL: check the pointer against NULL first
# map: counts hash 4 8 16
stw [%r10-4], 0
ldmap %r1, 0
mov %r2, %r10
add %r2, -4
call 1
ldxdw %r0, [%r0+0]
exit
