# On the NULL branch the pointer is the number 0.
# expect: reject R0 is a number, not a pointer
# map: counts hash 4 8 16
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
jne %r0, 0, out
ldxdw %r0, [%r0+0]
out:
mov %r0, 0
exit
