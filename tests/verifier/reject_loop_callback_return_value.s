# expect: reject a callback must return 0 (continue) or 1 (stop)
mov %r1, 4
ldfunc %r2, cb
mov %r3, 0
mov %r4, 0
call 181
mov %r0, 0
exit
cb:
mov %r0, 2
exit
