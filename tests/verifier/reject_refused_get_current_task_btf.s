# Refused by name, in every tier, with the reason.
# expect: reject no kernel task pointers
# tier: privileged
call 158
exit
