# expect: reject is outside the 512-byte stack
stdw [%r10+0], 0
mov %r0, 0
exit
