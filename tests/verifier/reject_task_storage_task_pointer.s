# expect: reject pass NULL as the task to bpf_task_storage_get
# map: st task_storage 4 8 0
ldmap %r1, 0
mov %r2, %r10
mov %r3, 0
mov %r4, 1
call 156
mov %r0, 0
exit
