# expect: accept
# tier: restricted
stb [%r10-1], 0
ldxb %r0, [%r10-1]
exit
