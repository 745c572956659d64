# for (i = 0; i < args[0]; i++): the bound is not known.
# expect: reject the program is too complex
ldxdw %r2, [%r1+16]
mov %r3, 0
mov %r0, 0
loop:
jge %r3, %r2, out
add %r0, 2
add %r3, 1
ja loop
out:
exit
