# expect: reject is outside the 512-byte stack
stdw [%r10-520], 0
mov %r0, 0
exit
