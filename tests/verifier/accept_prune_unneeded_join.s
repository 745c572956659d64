# Issue 23, finding 3: at the join the paths differ in r7, which only flows
# to the return value, and in r2, which is never read again: the second path
# is pruned against the first (see verifier::facts_hold_on_a_pruned_path).
# expect: accept
# (privileged: the kernel of the 6.1 port gives loops and calls to CAP_BPF only)
# tier: privileged
ldxdw %r6, [%r1+16]
mov %r7, 0
mov %r8, 0
loop:
mov %r2, %r6
rsh %r2, %r8
and %r2, 1
jeq %r2, 0, even
add %r7, 3
ja next
even:
xor %r7, %r8
next:
add %r8, 1
jlt %r8, 40, loop
mov %r0, %r7
and %r0, 0xfff
or %r0, 0x50000
exit
