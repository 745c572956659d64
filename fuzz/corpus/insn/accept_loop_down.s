# expect: accept
# tier: restricted
mov %r0, 0
mov %r2, 32
loop:
add %r0, %r2
sub %r2, 1
jne %r2, 0, loop
exit
