# expect: reject bpf_ringbuf_output cannot be used with map counts of type hash
# map: counts hash 4 8 16
stdw [%r10-8], 0
ldmap %r1, 0
mov %r2, %r10
add %r2, -8
mov %r3, 8
mov %r4, 0
call 130
mov %r0, 0
exit
