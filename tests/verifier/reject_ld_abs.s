# expect: reject legacy packet loads (ld_abs/ld_ind) have no meaning for seccomp
raw 0x20 0 0 0 0
exit
