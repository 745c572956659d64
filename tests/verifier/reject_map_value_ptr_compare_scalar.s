# Comparing a non-NULL map value pointer with a number leaks its address.
# expect: reject comparison involving a map_value pointer would leak its address
# map: counts hash 4 8 16
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
jeq %r0, 0, out
jgt %r0, 0x10000, out
mov %r0, 1
exit
out:
mov %r0, 0
exit
