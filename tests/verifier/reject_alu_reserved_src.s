# expect: reject mov (immediate form) with non-zero src_reg field 3
raw 0xb7 0 3 0 0
exit
