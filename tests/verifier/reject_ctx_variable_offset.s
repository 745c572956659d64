# The context may only be read at constant offsets.
# expect: reject variable offset on the context pointer
ldxw %r2, [%r1+0]
and %r2, 8
add %r1, %r2
ldxw %r0, [%r1+0]
exit
