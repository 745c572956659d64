# expect: reject outside struct seccomp_data
add %r1, 60
ldxdw %r0, [%r1+0]
exit
