# r1-r5 do not survive a helper call.
# expect: reject R1 is read before it is written
call 14
mov %r0, %r1
exit
