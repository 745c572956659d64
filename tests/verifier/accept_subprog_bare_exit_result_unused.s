# A subprogram that sets no R0 (clang leaves a bare exit once it has
# propagated the callee's constant return into the caller): the kernel
# accepts it while the caller never reads R0.
# expect: accept
# (privileged: the kernel of the 6.1 port gives loops and calls to CAP_BPF only)
# tier: privileged
call local f
mov %r0, 0x7fff0000
exit
f:
exit
