# expect: reject mov uses register r11 in dst_reg
raw 0xb7 11 0 0 0
exit
