# A jump to itself, taken when nr == 1.
# expect: reject infinite loop detected
ldxw %r2, [%r1+0]
mov %r0, 0
jeq %r2, 1, +1
exit
raw 0x05 0 0 -1 0
