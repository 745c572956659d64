# expect: reject bpf_task_storage_get cannot be used with map counts of type hash
# map: counts hash 4 8 16
ldmap %r1, 0
mov %r2, 0
mov %r3, 0
mov %r4, 0
call 156
mov %r0, 0
exit
