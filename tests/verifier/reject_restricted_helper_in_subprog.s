# A helper call hidden in a function is still a helper call.
# expect: reject the restricted tier allows no helper calls
# tier: restricted
call local f
exit
f:
call 5
exit
