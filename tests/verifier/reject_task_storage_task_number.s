# expect: reject pass NULL as the task to bpf_task_storage_delete
# map: st task_storage 4 8 0
ldmap %r1, 0
mov %r2, 1
call 157
mov %r0, 0
exit
