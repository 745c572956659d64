# A context load the rules forbid.
# expect: reject misaligned context access

ldxh %r0, [%r1+3]
exit
