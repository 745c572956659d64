# expect: reject unknown ALU64 opcode 0xff
raw 0xff 0 0 0 0
exit
