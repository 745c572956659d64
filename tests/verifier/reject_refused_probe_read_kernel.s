# Refused by name, in every tier, with the reason.
# expect: reject no meaning for a seccomp filter in user space
# tier: privileged
call 113
exit
