/* SPDX-License-Identifier: MIT */
/*
 * The native backend: load a relocated program into a kernel that carries
 * the seccomp-eBPF patch set (kernel/, BPF_PROG_TYPE_SECCOMP) and attach it
 * with seccomp(2). The numbers are never guessed: they come from the
 * kernel's own advertisement in /proc/sys/kernel/seccomp/extended.
 */
#ifndef SECBPF_NATIVE_H
#define SECBPF_NATIVE_H

#include <stdint.h>

#include "common/err.h"
#include "object/object.h"

/* Where a patched kernel advertises its ABI (kernel/README.md). */
#define NATIVE_ABI_PATH "/proc/sys/kernel/seccomp/extended"

/* The extended-filter ABI as the running kernel advertises it. */
struct native_abi {
	uint32_t version;	    /* "version=": 1 for the RFC port */
	uint32_t prog_type;	    /* BPF_PROG_TYPE_SECCOMP */
	uint32_t filter_flag;	    /* SECCOMP_FILTER_FLAG_EXTENDED */
	uint32_t ptrace_get_filter; /* 0 if not advertised */
};

/*
 * Read the advertisement. Returns 0, -ENOSYS (err says that this kernel
 * lacks eBPF seccomp support) when the sysctl does not exist, or -EINVAL
 * when it exists but cannot be parsed (unknown version, missing key).
 */
int native_detect(struct native_abi *abi, struct secbpf_err *err);

/* A program loaded in the kernel, with the maps it references. */
struct native_prog {
	int prog_fd;  /* -1 when not loaded */
	int *map_fds; /* one per object map, -1 if not created */
	uint32_t map_cnt;
};

/*
 * Create obj's maps (global data maps as one-element arrays holding their
 * initial bytes, .rodata frozen), patch prog's map references with their
 * fds and load it with BPF_PROG_LOAD as abi->prog_type. On success returns
 * 0 and np holds the fds (close with native_prog_close). On failure returns
 * -errno with err set; when the kernel verifier rejected the program, *log
 * (if log is not NULL) receives its malloc'ed log, else NULL.
 */
int native_load(const struct native_abi *abi, const struct object *obj,
		const struct object_prog *prog, struct native_prog *np, char **log,
		struct secbpf_err *err);

/* Close every fd of np; safe on a zeroed or partly loaded np. */
void native_prog_close(struct native_prog *np);

/*
 * Set no_new_privs and attach prog_fd to the calling thread with
 * seccomp(SECCOMP_SET_MODE_FILTER, abi->filter_flag | extra_flags). Returns
 * 0 or -errno with err set. Makes no allocation and calls no stdio, so it
 * may run in a forked child right before execve.
 */
int native_attach(const struct native_abi *abi, int prog_fd, unsigned int extra_flags,
		  struct secbpf_err *err);

/*
 * Thin wrappers of BPF_MAP_GET_NEXT_KEY and BPF_MAP_LOOKUP_ELEM on a map fd
 * (key NULL: the first key). Return 0 or -errno (-ENOENT: no more keys / no
 * such element).
 */
int native_map_next_key(int map_fd, const void *key, void *next);
int native_map_lookup(int map_fd, const void *key, void *value);

/* The number of possible CPUs, the count of values a per-CPU map returns
 * (each rounded up to 8 bytes); 1 if it cannot be read. */
unsigned int native_possible_cpus(void);

/*
 * The instructions of a loaded program as the kernel verifier rewrote them
 * (BPF_OBJ_GET_INFO_BY_FD, xlated_prog_insns: map fds become map ids, and
 * some helper calls are inlined). On success returns 0 and *insns (malloc'ed,
 * *cnt of them), *id and name (BPF_OBJ_NAME_LEN bytes) describe the program;
 * else -errno with err set. The xlated insns need CAP_SYS_ADMIN (or
 * bpf_capable) in 6.1: -EPERM shows as an empty program.
 */
int native_prog_xlated(int prog_fd, struct bpf_insn **insns, uint32_t *cnt, uint32_t *id,
		       char *name, struct secbpf_err *err);

#endif
