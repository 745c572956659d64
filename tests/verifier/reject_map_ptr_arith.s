# expect: reject arithmetic on a map_ptr pointer is not allowed
# map: counts hash 4 8 16
ldmap %r1, 0
add %r1, 8
mov %r0, 0
exit
