# expect: reject bpf_map_lookup_elem cannot be used with map events of type ringbuf
# map: events ringbuf 0 0 4096
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
mov %r0, 0
exit
