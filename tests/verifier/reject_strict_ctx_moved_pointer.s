# With --strict, a moved context pointer is refused, as the kernel verifier
# does ("dereference of modified ctx ptr"); without it, it is accepted
# (accept_ctx_moved_pointer.s). Found by the fidelity run on the patched
# kernel (kernel/tests/native_fidelity.sh).
# expect: reject strict mode: R2: the context pointer was moved by 16
# tier: restricted
# strict: yes
mov %r2, %r1
add %r2, 16
ldxdw %r0, [%r2+8]
exit
