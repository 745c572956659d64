# Refused by name, in every tier, with the reason.
# expect: reject no perf events in user space
# tier: privileged
call 25
exit
