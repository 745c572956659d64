# Refused by name, in every tier, with the reason.
# expect: reject not offered by secbpf yet
# tier: privileged
call 165
exit
