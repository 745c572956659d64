# A context load the rules forbid.
# expect: reject outside struct seccomp_data

ldxdw %r0, [%r1+64]
exit
