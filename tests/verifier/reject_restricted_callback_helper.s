# expect: reject bpf_loop: the restricted tier allows no helper calls
# tier: restricted
mov %r1, 3
ldfunc %r2, cb
mov %r3, 0
mov %r4, 0
call 181
mov %r0, 0
exit
cb:
mov %r0, 0
exit
