# The third argument must be a constant string.
# expect: reject needs a constant NUL-terminated string in read-only data
stdw [%r10-8], 0
stdw [%r10-16], 0
mov %r1, %r10
add %r1, -8
mov %r2, 4
mov %r3, %r10
add %r3, -16
call 182
exit
