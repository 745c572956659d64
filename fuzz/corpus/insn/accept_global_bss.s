# expect: accept
# map: .bss array 4 8 1 bss
ldmapval %r1, 0, 0
stdw [%r1+0], 5
ldxw %r0, [%r1+4]
exit
