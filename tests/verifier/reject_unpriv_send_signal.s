# expect: reject bpf_send_signal needs the privileged tier
mov %r1, 10
call 109
mov %r0, 0
exit
