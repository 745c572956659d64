# expect: reject sign-extending move of a pointer is not allowed
movsx3264 %r0, %r10
exit
