# expect: reject R4: passing a pointer as a number to bpf_map_update_elem
# map: counts hash 4 8 16
stw [%r10-4], 0
stdw [%r10-16], 0
ldmap %r1, 0
mov %r2, %r10
add %r2, -4
mov %r3, %r10
add %r3, -16
mov %r4, %r10
call 2
mov %r0, 0
exit
