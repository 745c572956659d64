# expect: reject unknown helper function #9999
call 9999
exit
