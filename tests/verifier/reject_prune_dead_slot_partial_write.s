# Issue 23, finding 3: a slot never read again still matters when a later
# store only partly overwrites it: on the path explored second it holds a
# spilled pointer, which a 4-byte store may not leave half readable.
# expect: reject partial overwrite of the pointer
# tier: unprivileged
ldxdw %r6, [%r1+16]
stdw [%r10-8], 0
jeq %r6, 0, join
mov %r2, 7
stxdw [%r10-8], %r2
ja next
join:
stxdw [%r10-8], %r1
next:
stw [%r10-8], 0
mov %r0, 0
exit
