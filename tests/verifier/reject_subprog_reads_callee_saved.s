# r6 of the caller is not visible in the callee.
# expect: reject R6 is read before it is written
# tier: restricted
mov %r6, 1
call local f
exit
f:
mov %r0, %r6
exit
