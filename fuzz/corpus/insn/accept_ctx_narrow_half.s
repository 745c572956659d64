# Context loads the seed (and, without --strict, secbpf) accepts.
# expect: accept
# tier: restricted

ldxh %r0, [%r1+6]
exit
