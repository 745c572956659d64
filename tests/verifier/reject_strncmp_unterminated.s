# expect: reject needs a constant NUL-terminated string
# map: .rodata array 4 4 1 rodata
# init: 0 41 42 43 44
stdw [%r10-8], 0
mov %r1, %r10
add %r1, -8
mov %r2, 4
ldmapval %r3, 0, 0
call 182
exit
