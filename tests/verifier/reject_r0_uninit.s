# R0 must be set before exit.
# expect: reject R0 is not set at exit
exit
