// The same with a mask that fits the array: clang turns "fp-8 + (i & 7)"
// into "fp-8 | (i & 7)", which the kernel's verifier refuses as well.
// expect: reject pointer arithmetic with |= is not allowed
#include <secbpf/filter.h>

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	volatile char buf[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	return buf[ctx->args[0] & 7];
}

char _license[] SEC("license") = "GPL";
