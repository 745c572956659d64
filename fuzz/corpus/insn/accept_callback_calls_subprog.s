# A callback may call a function.
# expect: accept
mov %r1, 3
ldfunc %r2, cb
mov %r3, 0
mov %r4, 0
call 181
mov %r0, 0
exit
cb:
call local helper
mov %r0, 0
exit
helper:
mov %r0, %r1
exit
