# bpf_loop with a callback that counts in the caller's stack
# expect: accept
stdw [%r10-8], 0
mov %r1, 10
ldfunc %r2, cb
mov %r3, %r10
add %r3, -8
mov %r4, 0
call 181
ldxdw %r0, [%r10-8]
exit
cb:
ldxdw %r3, [%r2+0]
add %r3, 1
stxdw [%r2+0], %r3
mov %r0, 0
exit
