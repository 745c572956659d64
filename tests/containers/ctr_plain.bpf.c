// SPDX-License-Identifier: MIT
/*
 * tests/test_containers.c: a stateless policy whose argument test is a
 * range, which a libseccomp profile cannot say exactly: chmod to a mode
 * above 0777 (sticky, setgid, setuid bits) fails with EPERM. Under runc the
 * exported profile notifies chmod, and secbpfd answers with this filter.
 */
#include <secbpf/filter.h>

SEC("seccomp")
int ctr_plain(struct seccomp_data *ctx)
{
	SECBPF_DENY_OTHER_ARCHES(ctx, SECCOMP_RET_ERRNO | EPERM, X86_64);
	/* The mode is an unsigned int (mode_t): its low 32 bits. */
#ifdef __NR_chmod /* not on arches with only the *at calls */
	if (ctx->nr == __NR_chmod && (__u32)ctx->args[1] > 0777)
		return SECCOMP_RET_ERRNO | EPERM;
#endif
	if (ctx->nr == __NR_fchmodat && (__u32)ctx->args[2] > 0777)
		return SECCOMP_RET_ERRNO | EPERM;
	return SECCOMP_RET_ALLOW;
}

char _license[] SEC("license") = "GPL";
