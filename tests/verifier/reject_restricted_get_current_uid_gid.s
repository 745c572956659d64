# The restricted tier ("almost cBPF", seeds 006-008) calls no helpers.
# expect: reject bpf_get_current_uid_gid: the restricted tier allows no helper calls
# tier: restricted
call 15
exit
