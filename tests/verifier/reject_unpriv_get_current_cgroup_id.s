# expect: reject bpf_get_current_cgroup_id needs the privileged tier
call 80
mov %r0, 0
exit
