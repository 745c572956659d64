// SPDX-License-Identifier: MIT
/*
 * Test object for tests/test_object.c: global data in .data, .rodata,
 * .rodata.str1.1, .bss and a custom .data.* section, with const volatile
 * knobs of every integer flavour that --set must handle.
 */
#include <stdbool.h>
#include <secbpf/filter.h>

enum mode { MODE_OFF, MODE_LOG, MODE_DENY = 7, MODE_NEG = -2 };
typedef unsigned short port_t;
struct pair {
	int a, b;
};

const volatile bool enabled = true;
const volatile char letter = 'x';
const volatile __u8 small = 200;
const volatile __s16 delta = -5;
const volatile __u32 denied_nr = __NR_close;
const volatile __s64 big = -1;
const volatile __u64 ubig = 0x1122334455667788ULL;
const volatile enum mode mode = MODE_LOG;
const volatile port_t port = 80;
const volatile struct pair limits = { 1, 2 };

int counter = 3; /* .data */
long hits;	 /* .bss */
__u32 table[4] SEC(".data.custom") = { 1, 2, 3, 4 };

SEC("seccomp")
int filter(struct seccomp_data *ctx)
{
	hits++;
	if (!enabled)
		return SECCOMP_RET_ALLOW;
	if (ctx->nr == denied_nr && ctx->args[0] == small + delta + big + ubig)
		return SECCOMP_RET_ERRNO | EPERM;
	if (mode == MODE_DENY && ctx->args[1] == port + letter + limits.b)
		return SECCOMP_RET_ERRNO | table[ctx->nr & 3];
	if (counter++ > 100)
		bpf_trace_printk("many calls\n", sizeof("many calls\n"));
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
