# A supervisor address passed as the user address leaks it.
# expect: reject passing a pointer as a number to bpf_probe_read_user
mov %r3, %r10
mov %r1, %r10
add %r1, -8
mov %r2, 8
call 112
mov %r0, 0
exit
