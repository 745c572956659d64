# A subprogram that sets no R0 (clang leaves a bare exit once it has
# propagated the callee's constant return into the caller): the kernel
# accepts it while the caller never reads R0.
# expect: accept
# tier: restricted
call local f
mov %r0, 0x7fff0000
exit
f:
exit
