# expect: reject leaves its function
# tier: restricted
mov %r0, 0
call local f
ja g
f:
mov %r0, 1
g:
exit
