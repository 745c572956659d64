# A loop that makes no progress.
# expect: reject infinite loop detected
mov %r0, 0
loop:
ja loop
