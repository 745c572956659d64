// Returning the context pointer would leak an address.
// expect: reject R0 leaks a pointer at exit
#include <secbpf/filter.h>

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	return (long)ctx;
}

char _license[] SEC("license") = "GPL";
