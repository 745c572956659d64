# bpf_ktime_get_boot_ns is offered to unprivileged loaders.
# expect: accept
call 125
exit
