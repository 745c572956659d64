# expect: reject legacy packet load BPF_ABS (opcode 0x20): packet loads (ld_abs/ld_ind) have no meaning for seccomp
raw 0x20 0 0 0 0
exit
