# The main function falls through into the next function.
# expect: reject control falls off the end of the function
# tier: restricted
call local f
mov %r0, 0
f:
mov %r0, 1
exit
