# expect: reject expects a map (the address of a map variable), not fp
mov %r1, %r10
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
mov %r0, 0
exit
