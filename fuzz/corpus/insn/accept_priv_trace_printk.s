# bpf_trace_printk is a tracing helper: privileged loaders only.
# expect: accept
# tier: privileged
stdw [%r10-8], 0x0a78
mov %r1, %r10
add %r1, -8
mov %r2, 8
mov %r3, 1
mov %r4, 2
mov %r5, 3
call 6
mov %r0, 0
exit
