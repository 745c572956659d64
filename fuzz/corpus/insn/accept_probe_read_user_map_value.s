# expect: accept
# map: buf array 4 32 1
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
ldmap %r1, 0
mov %r6, %r1
call 1
jeq %r0, 0, out
mov %r1, %r0
mov %r2, 32
mov %r3, 0x1000
call 112
out:
mov %r0, 0
exit
