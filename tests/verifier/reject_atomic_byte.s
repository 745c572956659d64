# expect: reject atomic operation of byte size (opcode 0xd3): only 32 and 64-bit atomics exist
stdw [%r10-8], 0
mov %r1, 1
raw 0xd3 10 1 -8 0
mov %r0, 0
exit
