// An index masked to 0..15 into an 8-byte array reaches past the frame.
// expect: reject is outside the 512-byte stack
#include <secbpf/filter.h>

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	volatile char buf[8] = { 0 };

	return buf[ctx->args[0] & 15];
}

char _license[] SEC("license") = "GPL";
