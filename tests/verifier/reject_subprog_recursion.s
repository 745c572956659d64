# expect: reject calls nested deeper than 8 frames (recursion is not allowed)
# tier: restricted
call local f
exit
f:
call local f
exit
