# expect: reject R0 is not set at exit: the function must return a value
# tier: restricted
call local f
exit
f:
exit
