# The key handed to the callback is read-only.
# expect: reject points to read-only memory
# map: vals array 4 8 8
ldmap %r1, 0
ldfunc %r2, cb
mov %r3, 0
mov %r4, 0
call 164
mov %r0, 0
exit
cb:
stw [%r2+0], 1
mov %r0, 0
exit
