# Found by fuzz_verifier: a call of an unknown helper (#0, bpf_unspec) in
# code the verifier proves dead must still be refused: every helper call
# is resolved at load.
# expect: reject unknown helper function #0
mov %r0, 0
jeq %r0, 0, +1
call 0
exit
