# expect: reject misaligned context access
ldxw %r0, [%r1+2]
exit
