# expect: reject pass the pointer returned by bpf_ringbuf_reserve to bpf_ringbuf_submit unchanged
# map: events ringbuf 0 0 4096
ldmap %r1, 0
mov %r2, 16
mov %r3, 0
call 131
jeq %r0, 0, out
mov %r1, %r0
add %r1, 8
mov %r2, 0
call 132
out:
mov %r0, 0
exit
