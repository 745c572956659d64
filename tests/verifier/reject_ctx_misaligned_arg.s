# A context load the rules forbid.
# expect: reject misaligned context access

ldxdw %r0, [%r1+20]
exit
