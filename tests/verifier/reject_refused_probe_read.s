# Refused by name, in every tier, with the reason.
# expect: reject ambiguous between user and kernel memory
# tier: privileged
call 4
exit
