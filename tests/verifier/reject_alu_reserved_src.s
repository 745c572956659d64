# expect: reject reserved field of an ALU insn is not zero
raw 0xb7 0 3 0 0
exit
