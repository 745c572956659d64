# expect: reject bpf_tail_call with a ringbuf record still reserved
# map: events ringbuf 0 0 4096
# map: progs prog_array 4 4 4
mov %r6, %r1
ldmap %r1, 0
mov %r2, 16
mov %r3, 0
call 131
jeq %r0, 0, out
mov %r7, %r0
mov %r1, %r6
ldmap %r2, 1
mov %r3, 0
call 12
mov %r1, %r7
mov %r2, 0
call 133
out:
mov %r0, 0
exit
