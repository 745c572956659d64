# bpf_loop with no context.
# expect: accept
mov %r1, 100
ldfunc %r2, cb
mov %r3, 0
mov %r4, 0
call 181
mov %r0, 0
exit
cb:
mov %r0, 0
jgt %r1, 50, +1
exit
mov %r0, 1
exit
