# expect: reject reserved fields of exit must be zero
mov %r0, 0
raw 0x95 1 0 0 0
