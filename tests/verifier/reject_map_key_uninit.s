# expect: reject the map key reads fp-4, which is not initialized
# map: counts hash 4 8 16
ldmap %r1, 0
mov %r2, %r10
add %r2, -4
call 1
mov %r0, 0
exit
