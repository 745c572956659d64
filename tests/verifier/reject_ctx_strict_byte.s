# A context load the rules forbid.
# expect: reject strict mode: nr must be read with a 4-byte load
# strict: yes
ldxb %r0, [%r1+0]
exit
