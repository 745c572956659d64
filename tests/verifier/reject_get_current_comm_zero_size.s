# expect: reject the size passed to bpf_get_current_comm may be zero
# tier: privileged
mov %r1, %r10
add %r1, -16
mov %r2, 0
call 16
mov %r0, 0
exit
