# The smallest filter: allow everything.
# expect: accept
# tier: restricted
mov32 %r0, 0x7fff0000
exit
