# Compare args read from the target with a string from .rodata.
# expect: accept
# map: .rodata array 4 8 1 rodata
# init: 0 2f 65 74 63 00 00 00 00
ldxdw %r3, [%r1+16]
mov %r1, %r10
add %r1, -8
mov %r2, 8
call 114
mov %r1, %r10
add %r1, -8
mov %r2, 4
ldmapval %r3, 0, 0
call 182
exit
