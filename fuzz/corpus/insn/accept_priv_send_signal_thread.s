# bpf_send_signal_thread is a tracing helper: privileged loaders only.
# expect: accept
# tier: privileged
mov %r1, 10
call 117
mov %r0, 0
exit
