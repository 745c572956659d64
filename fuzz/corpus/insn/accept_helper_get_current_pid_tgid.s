# bpf_get_current_pid_tgid is offered to unprivileged loaders.
# expect: accept
call 14
exit
