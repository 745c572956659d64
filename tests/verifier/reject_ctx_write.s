# expect: reject the context (struct seccomp_data) is read-only
stw [%r1+0], 1
mov %r0, 0
exit
