# struct seccomp_data is read-only.
# expect: reject the context (struct seccomp_data) is read-only
mov %r2, 1
stxw [%r1+0], %r2
mov %r0, 0
exit
