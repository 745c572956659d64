# expect: accept
# map: counts lru_hash 4 8 16
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
jne %r0, 0, found
mov %r0, 0
exit
found:
ldxdw %r0, [%r0+0]
exit
