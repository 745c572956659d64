# A sign-extended byte is in [-128, 127]; checked >= 0 it indexes 128 bytes.
# expect: accept
# map: t array 4 128 1
ldxsb %r6, [%r1+16]
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
jeq %r0, 0, out
jslt %r6, 0, out
add %r0, %r6
ldxb %r0, [%r0+0]
exit
out:
mov %r0, 0
exit
