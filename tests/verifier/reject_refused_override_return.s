# Refused by name, in every tier, with the reason.
# expect: reject no meaning for a seccomp filter
# tier: privileged
call 58
exit
