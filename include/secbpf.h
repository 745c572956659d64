/* SPDX-License-Identifier: MIT */
/*
 * libsecbpf: load eBPF seccomp filters (SEC("seccomp") programs built with
 * clang -target bpf) and run them. Naming follows libbpf: object__verb on
 * an object; options structs carry their size; errors are negative errno
 * values with errno set, and a readable message kept on the object.
 *
 * This header is the whole ABI: libsecbpf.so exports exactly the functions
 * declared here with SECBPF_API (version nodes SECBPF_0.1 and SECBPF_0.2,
 * lib/libsecbpf.map), and nothing else; tests/check_abi.py keeps the three
 * lists equal.
 *
 * Options structs. Every *_opts struct starts with size_t sz, which the
 * caller sets to sizeof the struct it was compiled with; a NULL opts means
 * every default. Fields are only ever appended. The library reads a field
 * only if sz covers it (a smaller struct, from an older header, gets the
 * defaults for the rest), and refuses with -EINVAL an sz smaller than
 * sizeof(size_t), or a larger struct (from a newer header) with a non-zero
 * byte past the last field this library knows: an option it cannot honour
 * is never ignored. Initialise options with = { .sz = sizeof(opts), ... }
 * or memset them, so that padding is zero.
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

/* Marks the exported API; the library is built with -fvisibility=hidden. */
#ifndef SECBPF_API
#define SECBPF_API __attribute__((visibility("default")))
#endif

/*
 * What a filter may use (docs/design.md §2); ordered, a higher tier allows
 * more. secbpf_attach() verifies with the highest tier the system policy
 * grants the calling process.
 */
enum secbpf_tier {
	SECBPF_TIER_RESTRICTED,	  /* "almost cBPF": no helpers, no maps */
	SECBPF_TIER_UNPRIVILEGED, /* the default */
	SECBPF_TIER_PRIVILEGED,	  /* CAP_BPF + CAP_PERFMON */
};

/* "restricted", "unprivileged", "privileged"; "unknown" for other values. */
SECBPF_API const char *secbpf_tier_name(enum secbpf_tier tier);
/* Parse a tier name as secbpf_tier_name() spells it into *tier; returns 0,
 * or -EINVAL (*tier untouched) for any other string. */
SECBPF_API int secbpf_tier_parse(const char *name, enum secbpf_tier *tier);

struct secbpf_object;
struct secbpf_program;

struct secbpf_object_open_opts {
	size_t sz; /* sizeof(struct secbpf_object_open_opts) */
	/* If set (and sz covers errbuf_sz too), why opening failed, cut to
	 * errbuf_sz bytes with the terminating NUL. */
	char *errbuf;
	size_t errbuf_sz;
};

/*
 * Open a BPF ELF object file. Returns NULL on failure with errno set to
 * what failed: the open(2) error for the file (ENOENT, EACCES, EISDIR...),
 * EINVAL for a malformed object or bad opts, ENOTSUP for a construct the
 * loader does not support, E2BIG, ENOMEM; the reason in opts->errbuf.
 */
SECBPF_API struct secbpf_object *
secbpf_object__open_file(const char *path, const struct secbpf_object_open_opts *opts);
/* Same, from memory (the buffer is copied); errno as above. */
SECBPF_API struct secbpf_object *
secbpf_object__open_mem(const void *buf, size_t size, const struct secbpf_object_open_opts *opts);
SECBPF_API void secbpf_object__close(struct secbpf_object *obj);

/* The message of the last failed call on obj ("" if none). */
SECBPF_API const char *secbpf_object__last_error(const struct secbpf_object *obj);

/* The program named name, or the only one if name is NULL. NULL with errno
 * set (ENOENT, or EINVAL when name is NULL and there are several). */
SECBPF_API struct secbpf_program *secbpf_object__find_program(struct secbpf_object *obj,
							      const char *name);

/* Number of SEC("seccomp") programs, and the i-th one. */
SECBPF_API size_t secbpf_object__program_cnt(const struct secbpf_object *obj);
SECBPF_API struct secbpf_program *secbpf_object__program(struct secbpf_object *obj, size_t i);

/* Write a global variable (const volatile knobs included) before loading:
 * value is decimal, 0x hex, negative, true or false. */
SECBPF_API int secbpf_object__set_var(struct secbpf_object *obj, const char *name,
				      const char *value);

SECBPF_API const char *secbpf_program__name(const struct secbpf_program *prog);
/* The relocated instructions (struct bpf_insn, 8 bytes each). */
SECBPF_API const void *secbpf_program__insns(const struct secbpf_program *prog);
SECBPF_API size_t secbpf_program__insn_cnt(const struct secbpf_program *prog);

/*
 * Run the program once on sd with fresh maps and store its 32-bit return
 * value in *ret (a SECCOMP_RET_* action and data). Returns 0, or a negative
 * errno when it cannot run or faults (the reason in last_error).
 */
SECBPF_API int secbpf_program__test_run(struct secbpf_program *prog, const struct seccomp_data *sd,
					uint32_t *ret);

/* Flags of secbpf_attach_opts (the seccomp() flags that make sense here). */
#define SECBPF_ATTACH_TSYNC (1u << 0)	   /* every thread of the process */
#define SECBPF_ATTACH_LOG (1u << 1)	   /* SECCOMP_FILTER_FLAG_LOG */
#define SECBPF_ATTACH_SPEC_ALLOW (1u << 2) /* SECCOMP_FILTER_FLAG_SPEC_ALLOW */
/* Load the programs into the kernel with bpf() and attach them as eBPF
 * filters: only on a kernel with the seed patch set (kernel/ in the
 * source tree), which verifies and runs them itself; -ENOSYS elsewhere. */
#define SECBPF_ATTACH_NATIVE (1u << 3)

/* A field outside sz takes the default given for it. */
struct secbpf_attach_opts {
	size_t sz;	    /* sizeof(struct secbpf_attach_opts) */
	unsigned int flags; /* SECBPF_ATTACH_*; default 0 */
	/* The supervisor executable for stateful programs; NULL (the
	 * default): the SECBPF_SUPERVISOR environment variable, else the
	 * installed one. */
	const char *supervisor;
	unsigned int workers; /* supervisor threads; 0 (default): one per CPU, at most 4 */
	bool strict;	      /* verify with the seed's exact context rules */
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
 * secbpf_object__last_error() of the programs' objects; -EINVAL for bad
 * opts (see "Options structs" above). When the failure comes after the
 * filters were installed (the message says so), they stay: every syscall
 * that needed the supervisor then fails with ENOSYS.
 */
SECBPF_API int secbpf_attach(struct secbpf_program *const *progs, size_t n,
			     const struct secbpf_attach_opts *opts);

/* secbpf_attach() of one program. */
SECBPF_API int secbpf_program__attach(struct secbpf_program *prog,
				      const struct secbpf_attach_opts *opts);

/* Options of secbpf_handle_attach(); a field outside sz takes its default. */
struct secbpf_handle_attach_opts {
	size_t sz;		 /* sizeof(struct secbpf_handle_attach_opts) */
	unsigned int flags;	 /* SECBPF_ATTACH_TSYNC, _LOG, _SPEC_ALLOW; default 0 */
	unsigned int timeout_ms; /* for each answer of the service; 0 (default): 30 s */
	/* If set (and sz covers errbuf_sz too), why attaching failed, cut to
	 * errbuf_sz bytes with the terminating NUL. */
	char *errbuf;
	size_t errbuf_sz;
};

/*
 * Attach the program behind a handle of secbpfd (docs/handles.md) to the
 * calling process: fd is the handle, from the service (secbpfd's
 * SVC_REQ_HANDLE) or passed over a unix socket by whoever got it. The
 * service loaded and verified the program at the tier its configuration
 * grants; attaching needs no privilege. This sets no_new_privs (as
 * seccomp() requires), fetches the compiled filters from the handle,
 * checks them (a handle must be a socket whose peer is root, the image
 * well formed), installs them on the calling thread (every thread with
 * SECBPF_ATTACH_TSYNC) and, when the program has state, hands the
 * listener to the service, which then runs the program for each notified
 * syscall with the maps it keeps. fd stays open and the caller's.
 *
 * Returns 0, or a negative errno with errno set and the reason in
 * opts->errbuf: -EPERM, -ENOTSOCK or -EPROTOTYPE for an fd that is not a
 * handle, -EBADMSG for a filter image that is not well formed, -ETIMEDOUT
 * when the service does not answer, the service's errno when it refuses,
 * -EINVAL for bad opts. When the failure comes after the install (the
 * message says so), the filters stay: every syscall that needs the
 * service then fails with ENOSYS.
 */
SECBPF_API int secbpf_handle_attach(int fd, const struct secbpf_handle_attach_opts *opts);

#ifdef __cplusplus
}
#endif

#endif
