# expect: reject r10 is the read-only frame pointer
mov %r10, 0
mov %r0, 0
exit
