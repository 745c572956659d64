// SPDX-License-Identifier: MIT
/*
 * Test object for tests/test_object.c: a typo in SEC() leaves the object
 * without any SEC("seccomp") program; the loader must say so.
 */
#include <secbpf/filter.h>

SEC("seccom")
int filter(struct seccomp_data *ctx)
{
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
