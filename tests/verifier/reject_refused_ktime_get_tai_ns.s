# Refused by name, in every tier, with the reason.
# expect: reject not offered
# tier: privileged
call 208
exit
