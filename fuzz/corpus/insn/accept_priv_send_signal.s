# bpf_send_signal is a tracing helper: privileged loaders only.
# expect: accept
# tier: privileged
mov %r1, 10
call 109
mov %r0, 0
exit
