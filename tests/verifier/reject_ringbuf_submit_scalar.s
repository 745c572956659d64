# expect: reject expects a record returned by bpf_ringbuf_reserve
mov %r1, 0
mov %r2, 0
call 132
mov %r0, 0
exit
