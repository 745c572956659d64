# The value is 16 bytes; only 8 are initialized.
# expect: reject the map value reads fp-16, which is not initialized
# map: counts hash 4 16 16
stw [%r10-4], 0
stdw [%r10-8], 0
ldmap %r1, 0
mov %r2, %r10
add %r2, -4
mov %r3, %r10
add %r3, -16
mov %r4, 0
call 2
mov %r0, 0
exit
