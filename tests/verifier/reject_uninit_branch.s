# expect: reject R4 is read before it is written
mov %r0, 0
jeq %r4, 0, +0
exit
