# The context is read-only and not a buffer.
# expect: reject must point to the stack, a map value or a ringbuf record, not ctx
mov %r2, 8
mov %r3, 0x2000
call 112
mov %r0, 0
exit
