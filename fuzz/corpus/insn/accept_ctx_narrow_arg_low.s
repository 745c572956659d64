# Context loads the seed (and, without --strict, secbpf) accepts.
# expect: accept
# tier: restricted

ldxw %r0, [%r1+16]
exit
