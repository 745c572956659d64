# r1-r5 are not preserved across a call.
# expect: reject R1 is read before it is written
# tier: restricted
call local f
ldxw %r0, [%r1+0]
exit
f:
mov %r0, 0
exit
