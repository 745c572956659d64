# Returning a pointer would leak an address.
# expect: reject R0 leaks a pointer at exit
mov %r0, %r1
exit
