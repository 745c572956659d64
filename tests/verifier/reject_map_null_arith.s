# expect: reject arithmetic on a pointer that may be NULL
# map: counts hash 4 8 16
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
add %r0, 4
jeq %r0, 0, out
out:
mov %r0, 0
exit
