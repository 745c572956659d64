# Truncating a pointer to 32 bits leaks its address.
# expect: reject 32-bit move of a pointer
mov32 %r0, %r10
exit
