# expect: reject is outside the 512-byte stack
stdw [%r10-4], 0
mov %r0, 0
exit
