# w6 -= 1 on w6 in [0, 7] wraps to 0xffffffff for 0.
# expect: reject past the end of the map value
# map: table array 4 64 1
ldxdw %r6, [%r1+16]
and %r6, 7
sub32 %r6, 1
and %r6, 0xffff
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
jeq %r0, 0, out
add %r0, %r6
ldxb %r0, [%r0+0]
exit
out:
mov %r0, 0
exit
