/* SPDX-License-Identifier: MIT */
/*
 * libsecbpf: load eBPF seccomp filters (SEC("seccomp") programs built with
 * clang -target bpf) and run them. Naming follows libbpf: object__verb on
 * an object; options structs carry their size; errors are negative errno
 * values with errno set, and a readable message kept on the object.
 */
#ifndef SECBPF_H
#define SECBPF_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct secbpf_object;
struct secbpf_program;

struct secbpf_object_open_opts {
	size_t sz;		/* sizeof(struct secbpf_object_open_opts) */
	char *errbuf;		/* if set, why opening failed */
	size_t errbuf_sz;
};

/* Open a BPF ELF object file. Returns NULL with errno set on failure, and
 * the reason in opts->errbuf when given. */
struct secbpf_object *secbpf_object__open_file(const char *path,
					       const struct secbpf_object_open_opts *opts);
/* Same, from memory (the buffer is copied). */
struct secbpf_object *secbpf_object__open_mem(const void *buf, size_t size,
					      const struct secbpf_object_open_opts *opts);
void secbpf_object__close(struct secbpf_object *obj);

/* The message of the last failed call on obj ("" if none). */
const char *secbpf_object__last_error(const struct secbpf_object *obj);

/* The program named name, or the only one if name is NULL. NULL with errno
 * set (ENOENT, or EINVAL when name is NULL and there are several). */
struct secbpf_program *secbpf_object__find_program(struct secbpf_object *obj, const char *name);

/* Number of SEC("seccomp") programs, and the i-th one. */
size_t secbpf_object__program_cnt(const struct secbpf_object *obj);
struct secbpf_program *secbpf_object__program(struct secbpf_object *obj, size_t i);

/* Write a global variable (const volatile knobs included) before loading:
 * value is decimal, 0x hex, negative, true or false. */
int secbpf_object__set_var(struct secbpf_object *obj, const char *name, const char *value);

const char *secbpf_program__name(const struct secbpf_program *prog);
/* The relocated instructions (struct bpf_insn, 8 bytes each). */
const void *secbpf_program__insns(const struct secbpf_program *prog);
size_t secbpf_program__insn_cnt(const struct secbpf_program *prog);

/*
 * Run the program once on sd with fresh maps and store its 32-bit return
 * value in *ret (a SECCOMP_RET_* action and data). Returns 0, or a negative
 * errno when it cannot run or faults (the reason in last_error).
 */
int secbpf_program__test_run(struct secbpf_program *prog, const struct seccomp_data *sd,
			     uint32_t *ret);

/* Flags of secbpf_attach_opts (the seccomp() flags that make sense here). */
#define SECBPF_ATTACH_TSYNC (1u << 0)	   /* every thread of the process */
#define SECBPF_ATTACH_LOG (1u << 1)	   /* SECCOMP_FILTER_FLAG_LOG */
#define SECBPF_ATTACH_SPEC_ALLOW (1u << 2) /* SECCOMP_FILTER_FLAG_SPEC_ALLOW */
/* Load the programs into the kernel with bpf() and attach them as eBPF
 * filters: only on a kernel with the seed patch set (kernel/ in the
 * source tree), which verifies and runs them itself; -ENOSYS elsewhere. */
#define SECBPF_ATTACH_NATIVE (1u << 3)

struct secbpf_attach_opts {
	size_t sz;		/* sizeof(struct secbpf_attach_opts) */
	unsigned int flags;	/* SECBPF_ATTACH_* */
	/* The supervisor executable for stateful programs; NULL: the
	 * SECBPF_SUPERVISOR environment variable, else the installed one. */
	const char *supervisor;
	unsigned int workers;	/* supervisor threads; 0: the default */
	bool strict;		/* verify with the seed's exact context rules */
};

/*
 * Verify progs[0..n-1] (with the tier the system policy grants this
 * process), compile them and install them on the calling thread (on every
 * thread with SECBPF_ATTACH_TSYNC), the first given first: like n seccomp()
 * calls, the last one wins ties. The caller must have set no_new_privs
 * (prctl(PR_SET_NO_NEW_PRIVS)) or hold CAP_SYS_ADMIN; the library never
 * sets it.
 *
 * What a program decides from the syscall alone runs in the kernel. When a
 * program needs state (maps, helpers), a supervisor process is started
 * first (secbpf-supervisor; it gets the listener without this process
 * making any syscall the new filter could see) and the call returns once it
 * serves. Only one stateful stack per process tree: the kernel allows one
 * listener per filter chain (-EBUSY).
 *
 * Returns 0, or a negative errno with errno set and the reason in
 * secbpf_object__last_error() of the programs' objects. When the failure
 * comes after the filters were installed (the message says so), they stay:
 * every syscall that needed the supervisor then fails with ENOSYS.
 */
int secbpf_attach(struct secbpf_program *const *progs, size_t n,
		  const struct secbpf_attach_opts *opts);

/* secbpf_attach() of one program. */
int secbpf_program__attach(struct secbpf_program *prog, const struct secbpf_attach_opts *opts);

#ifdef __cplusplus
}
#endif

#endif
