# bpf_get_current_cgroup_id is a tracing helper: privileged loaders only.
# expect: accept
# tier: privileged
call 80
mov %r0, 0
exit
