# BTF ids (kernel objects) do not exist here.
# expect: reject lddw with unsupported pseudo src_reg 3
raw 0x18 0 3 0 0
raw 0x00 0 0 0 0
mov %r0, 0
exit
