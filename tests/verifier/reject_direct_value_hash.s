# expect: reject only global data and one-element arrays have a direct value
# map: counts hash 4 8 16
ldmapval %r1, 0, 0
mov %r0, 0
exit
