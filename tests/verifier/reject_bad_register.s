# expect: reject invalid register number
raw 0xb7 11 0 0 0
exit
