# A callback that runs itself through bpf_loop: unbounded nesting.
# expect: reject nested deeper than 8 frames
mov %r1, 3
ldfunc %r2, cb
mov %r3, 0
mov %r4, 0
call 181
mov %r0, 0
exit
cb:
mov %r1, 2
ldfunc %r2, cb
mov %r3, 0
mov %r4, 0
call 181
mov %r0, 0
exit
