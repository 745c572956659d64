# Terminates only if nr == 5: on the other paths the loop repeats forever.
# expect: reject infinite loop detected
ldxw %r2, [%r1+0]
loop:
jeq %r2, 5, out
ja loop
out:
mov %r0, 0
exit
