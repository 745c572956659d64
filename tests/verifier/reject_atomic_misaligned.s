# Found by fuzzing against the interpreter: atomics need natural alignment.
# expect: reject misaligned atomic operation: 4-byte atomics need a 4-byte aligned address
stdw [%r10-8], 0
mov %r2, 1
lock add32 [%r10-6], %r2
mov %r0, 0
exit
