# Found by fuzz_verifier: map_update_elem on .rodata would change bytes the
# verifier folds as constants (here a stack offset), so it must be refused.
# expect: reject read-only for the program (write into map forbidden)
# map: .rodata array 4 16 1 rodata
# init: 0 05 00 00 00
stw [%r10-8], 0
stdw [%r10-24], 1000
stdw [%r10-16], 0
ldmap %r1, 0
mov %r2, %r10
add %r2, -8
mov %r3, %r10
add %r3, -24
mov %r4, 0
call 2
ldmapval %r1, 0, 0
ldxw %r2, [%r1+0]
lsh %r2, 3
mov %r3, %r10
add %r3, -48
add %r3, %r2
stdw [%r3+0], 0
mov %r0, 0
exit
