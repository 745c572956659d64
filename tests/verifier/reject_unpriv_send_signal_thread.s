# expect: reject bpf_send_signal_thread needs the privileged tier
mov %r1, 10
call 117
mov %r0, 0
exit
