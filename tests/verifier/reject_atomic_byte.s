# expect: reject atomic operations need 4 or 8 bytes
stdw [%r10-8], 0
mov %r1, 1
raw 0xd3 10 1 -8 0
mov %r0, 0
exit
