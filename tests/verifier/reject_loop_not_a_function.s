# expect: reject bpf_loop expects a callback function
mov %r1, 4
mov %r2, 0
mov %r3, 0
mov %r4, 0
call 181
mov %r0, 0
exit
