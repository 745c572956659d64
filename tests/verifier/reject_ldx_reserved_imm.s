# expect: reject ldxw with non-zero imm field 1
raw 0x61 0 1 0 1
exit
