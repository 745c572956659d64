# expect: reject mov (immediate form) with non-zero offset field 5
raw 0xb7 0 0 5 0
exit
