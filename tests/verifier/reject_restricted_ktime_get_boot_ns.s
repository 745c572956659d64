# The restricted tier ("almost cBPF", seeds 006-008) calls no helpers.
# expect: reject bpf_ktime_get_boot_ns: the restricted tier allows no helper calls
# tier: restricted
call 125
exit
