# Context loads the seed (and, without --strict, secbpf) accepts.
# expect: accept
# tier: restricted
# strict: yes
ldxdw %r0, [%r1+40]
exit
