# expect: reject unknown ALU64 opcode 0xe7
raw 0xe7 0 0 0 0
exit
