# Comparing a pointer with a number would leak its address.
# expect: reject comparison involving a ctx pointer would leak its address
mov %r0, 0
jgt %r1, 0x1000, +1
mov %r0, 1
exit
