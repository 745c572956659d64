# A context load the rules forbid.
# expect: reject strict mode: args[i] must be read with a 8-byte load
# strict: yes
ldxw %r0, [%r1+16]
exit
