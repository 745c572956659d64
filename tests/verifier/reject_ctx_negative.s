# A context load the rules forbid.
# expect: reject outside struct seccomp_data

ldxw %r0, [%r1-4]
exit
