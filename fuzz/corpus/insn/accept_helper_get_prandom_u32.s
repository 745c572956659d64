# bpf_get_prandom_u32 is offered to unprivileged loaders.
# expect: accept
call 7
exit
