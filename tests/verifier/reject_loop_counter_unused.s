# The counter grows but the exit does not depend on it.
# expect: reject the program is too complex
ldxw %r2, [%r1+0]
mov %r3, 0
loop:
add %r3, 1
jeq %r2, 5, out
ja loop
out:
mov %r0, %r3
exit
