# Comparing two stack pointers compares offsets only.
# expect: accept
mov %r2, %r10
add %r2, -8
mov %r0, 0
jgt %r10, %r2, +1
mov %r0, 1
exit
