# The callback context must be on the stack (or NULL).
# expect: reject the callback context passed to bpf_loop must point to the stack
mov %r3, %r1
mov %r1, 4
ldfunc %r2, cb
mov %r4, 0
call 181
mov %r0, 0
exit
cb:
mov %r0, 0
exit
