# Pointer arithmetic that leaves the stack.
# expect: reject is outside the 512-byte stack
mov %r2, %r10
add %r2, -600
stdw [%r2+0], 0
mov %r0, 0
exit
