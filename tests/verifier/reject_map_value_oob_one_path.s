# The index is checked on one path only (args[1] decides which).
# expect: reject past the end of the map value (64 bytes) on some path
# map: table array 4 64 1
ldxdw %r6, [%r1+16]
ldxdw %r7, [%r1+24]
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
jeq %r0, 0, out
and %r6, 15
jeq %r7, 1, use
jge %r6, 8, out
use:
lsh %r6, 3
add %r0, %r6
ldxdw %r0, [%r0+0]
exit
out:
mov %r0, 0
exit
