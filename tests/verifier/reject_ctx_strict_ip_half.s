# A context load the rules forbid.
# expect: reject strict mode: instruction_pointer
# strict: yes
ldxh %r0, [%r1+8]
exit
