# bpf_get_smp_processor_id is offered to unprivileged loaders.
# expect: accept
call 8
exit
