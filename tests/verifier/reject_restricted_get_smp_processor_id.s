# The restricted tier ("almost cBPF", seeds 006-008) calls no helpers.
# expect: reject bpf_get_smp_processor_id: the restricted tier allows no helper calls
# tier: restricted
call 8
exit
