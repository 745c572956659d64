# The context pointer may be passed to a function.
# expect: accept
# tier: restricted
call local get_nr
exit
get_nr:
ldxw %r0, [%r1+0]
exit
