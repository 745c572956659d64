# The fall-through of the last branch leaves the program.
# expect: reject control falls off the end
# tier: restricted
mov %r0, 0
jeq %r0, 0, -2
