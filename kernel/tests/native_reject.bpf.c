// SPDX-License-Identifier: MIT
/*
 * A filter the kernel verifier must reject (it writes to the read-only
 * context), for `secbpf native-verify` in tests/native_cli.sh.
 */
#include <linux/bpf.h>
#include <linux/seccomp.h>
#include <bpf/bpf_helpers.h>

SEC("seccomp")
int write_ctx(struct seccomp_data *ctx)
{
	ctx->nr = 0;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
