# expect: reject invalid offset field in an ALU insn
raw 0xb7 0 0 5 0
exit
