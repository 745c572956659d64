# Read 16 bytes of the target's memory at args[0] into the stack.
# expect: accept
ldxdw %r3, [%r1+16]
mov %r1, %r10
add %r1, -16
mov %r2, 16
call 112
ldxdw %r0, [%r10-16]
ldxdw %r2, [%r10-8]
add %r0, %r2
exit
