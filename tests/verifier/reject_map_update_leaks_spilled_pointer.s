# The value on the stack holds a spilled pointer: storing it in a map leaks it.
# expect: reject would read the pointer spilled at fp-16 and leak it
# map: counts hash 4 8 16
stw [%r10-4], 0
stxdw [%r10-16], %r1
ldmap %r1, 0
mov %r2, %r10
add %r2, -4
mov %r3, %r10
add %r3, -16
mov %r4, 0
call 2
mov %r0, 0
exit
