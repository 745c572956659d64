# The callee reads r2, which the caller never set.
# expect: reject R2 is read before it is written
# tier: restricted
mov %r1, 1
call local f
exit
f:
mov %r0, %r2
exit
