# A constant offset added to the context pointer is fine (not with --strict:
# reject_strict_ctx_moved_pointer.s).
# expect: accept
# tier: restricted
mov %r2, %r1
add %r2, 16
ldxdw %r0, [%r2+8]
exit
