// SPDX-License-Identifier: GPL-2.0
/*
 * A BPF-LSM policy on the seccomp_extended hook (patch 0004): while it is
 * attached, every seccomp-eBPF filter is limited to "almost cBPF" (no
 * helpers, no direct map access), whoever loads it. Loaded by seed_lsm.c.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

int calls;

SEC("lsm/seccomp_extended")
int BPF_PROG(deny_seccomp_extended, int ret)
{
	__sync_fetch_and_add(&calls, 1);
	return -1;	/* -EPERM */
}
