# expect: reject R3 is read before it is written
add %r3, 1
mov %r0, 0
exit
