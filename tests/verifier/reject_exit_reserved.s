# expect: reject exit with non-zero dst_reg field 1
mov %r0, 0
raw 0x95 1 0 0 0
