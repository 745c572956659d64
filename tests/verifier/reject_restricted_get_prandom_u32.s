# The restricted tier ("almost cBPF", seeds 006-008) calls no helpers.
# expect: reject bpf_get_prandom_u32: the restricted tier allows no helper calls
# tier: restricted
call 7
exit
