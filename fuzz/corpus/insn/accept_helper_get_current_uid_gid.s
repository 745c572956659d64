# bpf_get_current_uid_gid is offered to unprivileged loaders.
# expect: accept
call 15
exit
