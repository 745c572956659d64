# bpf_ktime_get_ns is offered to unprivileged loaders.
# expect: accept
call 5
exit
