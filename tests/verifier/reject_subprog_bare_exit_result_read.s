# The caller reads the R0 of a subprogram that set none.
# expect: reject R0 is read before it is written
# tier: restricted
call local f
mov %r1, %r0
mov %r0, 0x7fff0000
exit
f:
exit
