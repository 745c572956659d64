# r6-r9 survive a helper call.
# expect: accept
mov %r6, %r1
call 14
ldxw %r0, [%r6+0]
exit
