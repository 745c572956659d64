# Refused by name, in every tier, with the reason.
# expect: reject must not change the memory
# tier: privileged
call 36
exit
