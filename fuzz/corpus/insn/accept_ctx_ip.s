# Context loads the seed (and, without --strict, secbpf) accepts.
# expect: accept
# tier: restricted

ldxdw %r0, [%r1+8]
exit
