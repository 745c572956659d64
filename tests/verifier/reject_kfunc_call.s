# expect: reject kernel function calls (kfuncs) do not exist in user space
raw 0x85 0 2 0 1
mov %r0, 0
exit
