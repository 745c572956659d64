# Found by fuzz_verifier: a direct value reference to a hash map in code
# the verifier proves dead must still be refused, as the kernel resolves
# every map reference at load.
# expect: reject only global data and one-element arrays have a direct value
# map: counts hash 4 8 64
mov %r0, 0
jeq %r0, 0, +2
ldmapval %r1, 0, 0
exit
