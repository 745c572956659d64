# bpf_ktime_get_coarse_ns is offered to unprivileged loaders.
# expect: accept
call 160
exit
