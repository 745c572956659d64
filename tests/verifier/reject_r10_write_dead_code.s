# r10 is never written, not even in code no path reaches.
# expect: reject r10 is the read-only frame pointer
mov %r0, 0
jeq %r0, 0, +1
raw 0xc3 10 10 -8 0xe1
exit
