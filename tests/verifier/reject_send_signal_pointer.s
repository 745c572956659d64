# expect: reject passing a pointer as a number to bpf_send_signal would leak its address
# tier: privileged
mov %r1, %r10
call 109
mov %r0, 0
exit
