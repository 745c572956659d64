# R0 is set on one path only.
# expect: reject R0 is not set at exit
ldxw %r2, [%r1+0]
jeq %r2, 1, skip
mov %r0, 0
skip:
exit
