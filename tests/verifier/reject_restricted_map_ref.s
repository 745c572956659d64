# Restricted tier: no maps at all (seed 007).
# expect: reject the restricted tier allows no maps
# tier: restricted
# map: counts hash 4 8 16
ldmap %r1, 0
mov %r0, 0
exit
