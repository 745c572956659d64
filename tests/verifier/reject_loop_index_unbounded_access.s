# The callback's index is unknown: it must be checked.
# expect: reject outside the 512-byte stack
stdw [%r10-64], 0
mov %r1, 8
ldfunc %r2, cb
mov %r3, %r10
add %r3, -64
mov %r4, 0
call 181
mov %r0, 0
exit
cb:
and %r1, 0xff
lsh %r1, 3
add %r2, %r1
stdw [%r2+0], 1
mov %r0, 0
exit
