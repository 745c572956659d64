# clang tests a copy and indexes with the original: the check covers both.
# expect: accept
# map: table array 4 64 1
ldxw %r6, [%r1+0]
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
jeq %r0, 0, out
mov %r2, %r6
jgt %r2, 63, out
add %r0, %r6
ldxb %r0, [%r0+0]
exit
out:
mov %r0, 0
exit
