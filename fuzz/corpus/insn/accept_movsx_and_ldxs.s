# Sign-extending moves and loads (ISA v4).
# expect: accept
# tier: restricted
ldxsb %r2, [%r1+0]
ldxsh %r3, [%r1+16]
ldxsw %r4, [%r1+24]
movsx864 %r0, %r2
movsx1664 %r5, %r3
movsx3264 %r6, %r4
movsx832 %r7, %r2
add %r0, %r5
add %r0, %r6
add %r0, %r7
exit
