# expect: reject storing a pointer into map counts would leak its address
# map: counts hash 4 8 16
mov %r6, %r1
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
jeq %r0, 0, out
stxdw [%r0+0], %r6
out:
mov %r0, 0
exit
