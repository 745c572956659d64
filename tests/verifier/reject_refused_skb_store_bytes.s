# Refused by name, in every tier, with the reason.
# expect: reject bpf_skb_store_bytes: no meaning for a seccomp filter in user space
# tier: privileged
call 9
exit
