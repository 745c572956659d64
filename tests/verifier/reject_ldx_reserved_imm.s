# expect: reject reserved field of a load is not zero
raw 0x61 0 1 0 1
exit
