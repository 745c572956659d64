# Context loads the seed (and, without --strict, secbpf) accepts.
# expect: accept
# tier: restricted

ldxb %r0, [%r1+15]
exit
