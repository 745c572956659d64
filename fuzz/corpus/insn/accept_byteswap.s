# expect: accept
# tier: restricted
ldxdw %r0, [%r1+16]
be16 %r0
ldxdw %r0, [%r1+16]
be32 %r0
be64 %r0
le16 %r0
le32 %r0
le64 %r0
exit
