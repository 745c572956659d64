# expect: reject the context (struct seccomp_data) is read-only
mov %r2, 1
lock add [%r1+16], %r2
mov %r0, 0
exit
