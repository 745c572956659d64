# bpf_get_current_comm is a tracing helper: privileged loaders only.
# expect: accept
# tier: privileged
mov %r1, %r10
add %r1, -16
mov %r2, 16
call 16
mov %r0, 0
exit
