# A bounded loop: for (i = 0; i < 16; i++) sum += i
# expect: accept
mov %r0, 0
mov %r2, 0
loop:
add %r0, %r2
add %r2, 1
jlt %r2, 16, loop
exit
