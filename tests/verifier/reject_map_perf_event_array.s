# expect: reject cannot be used with map pe of type unsupported type
# map: pe perf_event_array 4 4 4
ldmap %r1, 0
stw [%r10-4], 0
mov %r2, %r10
add %r2, -4
call 1
mov %r0, 0
exit
