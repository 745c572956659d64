# The counter moves away from its bound (until it wraps, 2^64 steps later).
# expect: reject the program is too complex
mov %r0, 0
mov %r2, 10
loop:
sub %r2, 1
jne %r2, 20, loop
exit
