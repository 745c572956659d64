# expect: reject the size passed to bpf_probe_read_user is unbounded
ldxdw %r3, [%r1+16]
ldxw %r2, [%r1+24]
mov %r1, %r10
add %r1, -32
call 112
mov %r0, 0
exit
