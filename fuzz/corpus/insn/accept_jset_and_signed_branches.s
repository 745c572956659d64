# expect: accept
# tier: restricted
ldxdw %r2, [%r1+16]
mov %r0, 0
jset %r2, 1, odd
jsgt %r2, 100, big
jsle %r2, -100, small
mov %r0, 1
exit
odd:
mov %r0, 2
exit
big:
mov %r0, 3
exit
small:
mov %r0, 4
exit
