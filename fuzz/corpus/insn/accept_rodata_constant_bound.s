# A const volatile loop bound in frozen .rodata is known: the loop verifies.
# expect: accept
# map: .rodata array 4 4 1 rodata
# init: 0 05 00 00 00
ldmapval %r6, 0, 0
ldxw %r7, [%r6+0]
mov %r0, 0
mov %r2, 0
loop:
jge %r2, %r7, done
add %r0, %r2
add %r2, 1
ja loop
done:
exit
