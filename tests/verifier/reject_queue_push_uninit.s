# expect: reject the map value reads fp-8, which is not initialized
# map: q queue 0 8 16
ldmap %r1, 0
mov %r2, %r10
add %r2, -8
mov %r3, 0
call 87
mov %r0, 0
exit
