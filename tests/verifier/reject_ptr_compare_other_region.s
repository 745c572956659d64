# expect: reject comparison involving a fp pointer would leak its address
mov %r0, 0
jgt %r10, %r1, +1
mov %r0, 1
exit
