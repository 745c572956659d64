// SPDX-License-Identifier: MIT
/*
 * The helper functions of docs/design.md §2, with the contracts of the kernel's
 * (include/uapi/linux/bpf.h): the same return values and errors, output
 * buffers zeroed on failure. "current" is the task a syscall came from
 * (struct runtime_task), never the supervisor that runs the filter.
 *
 * Fail closed: whatever a helper cannot do exactly (an argument only an
 * unverified program could pass, a task that went away, a /proc read that
 * failed) stops the run with an error, and a failed run is never answered
 * with ALLOW. Anything read about the task is read through a file opened
 * before the notification was last checked with still_valid(), or checked
 * with still_valid() after reading, so a recycled TID is never believed.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "common/proc_status.h"
#include "vm/helpers.h"

/* Handles are small tagged numbers, never host addresses, so that a
 * program cannot learn or forge a pointer through them. */
#define MAP_HANDLE_TAG 0x5ecb000000000000ULL
#define MAP_HANDLE_MASK 0xffffffff00000000ULL

/* Returned by internal functions after interp_call_fail(): the run is over. */
#define RUN_FAILED INT_MIN

/*
 * The highest user address plus one. The kernel's access_ok() refuses
 * anything above TASK_SIZE_MAX with -EFAULT; 1 << 56 lies above every
 * user address (x86_64 with 5-level paging included) and below every
 * kernel one, so that a read of kernel memory or the vsyscall page
 * through /proc/TID/mem is refused as the kernel would.
 */
#define USER_ADDR_END (1ULL << 56)

#define PRINTK_MAX_ARGS 3
#define PRINTK_BUF 1024		/* MAX_BPF_PRINTF_BUF in recent kernels */

uint64_t helper_map_handle(uint32_t idx)
{
	return MAP_HANDLE_TAG | idx;
}

/* ---- common argument checks -------------------------------------------- */

/* The run state; NULL (and the run failed) if the interpreter was started
 * without one, which only a caller outside the runtime could do. */
static struct helper_run *run_of(struct interp_call *call)
{
	struct helper_run *run = interp_call_run_ctx(call);

	if (!run)
		interp_call_fail(call, EINVAL, "helper called outside a runtime run");
	return run;
}

/*
 * The calling task's thread group id: task->tgid, or found on first use
 * through task->get_tgid (the supervisor defers it) and kept for the run.
 * 0 after failing the call.
 */
static pid_t task_tgid(struct interp_call *call, struct helper_run *run)
{
	pid_t tgid = run->task->tgid;
	int rc;

	if (tgid > 0)
		return tgid;
	if (run->tgid > 0)
		return run->tgid;
	if (!run->task->get_tgid) {
		interp_call_fail(call, EINVAL, "the task has no thread group id");
		return 0;
	}
	tgid = 0;
	rc = run->task->get_tgid(run->task->get_tgid_ctx, &tgid);
	if (rc || tgid <= 0) {
		rc = rc ? -rc : EIO;
		interp_call_fail(call, rc, "cannot find the task's thread group: %s", strerror(rc));
		return 0;
	}
	run->tgid = tgid;
	return tgid;
}

static const struct helper_env *env_of(struct interp_call *call)
{
	return interp_call_user(call);
}

/* The map behind a handle in r<argno>; fails the run for anything else. */
static struct helper_map *arg_map(struct interp_call *call, int argno, uint64_t handle)
{
	const struct helper_env *env = env_of(call);
	uint64_t idx = handle & ~MAP_HANDLE_MASK;

	if ((handle & MAP_HANDLE_MASK) != MAP_HANDLE_TAG || idx >= env->nmaps ||
	    !env->maps[idx].map) {
		interp_call_fail(call, EINVAL, "r%d (0x%llx) is not a map", argno,
				 (unsigned long long)handle);
		return NULL;
	}
	return &env->maps[idx];
}

/* A map for the generic helpers: any map but task storage, which the
 * kernel lets a program reach only through bpf_task_storage_*. */
static struct helper_map *arg_kv_map(struct interp_call *call, uint64_t handle)
{
	struct helper_map *hm = arg_map(call, 1, handle);

	if (hm && hm->type == BPF_MAP_TYPE_TASK_STORAGE) {
		interp_call_fail(call, EINVAL,
				 "map %s is a task storage map; use bpf_task_storage_get",
				 map_name(hm->map));
		return NULL;
	}
	return hm;
}

/* Memory the program passed in r<argno>: the host pointer, or NULL with the
 * run failed when the program may not access [addr, addr + size). */
static void *arg_mem(struct interp_call *call, int argno, uint64_t addr, uint64_t size,
		     bool write)
{
	if (interp_call_check(call, addr, size, write)) {
		interp_call_fail(call, EFAULT, "r%d: %s of %llu bytes at 0x%llx is not allowed",
				 argno, write ? "write" : "read", (unsigned long long)size,
				 (unsigned long long)addr);
		return NULL;
	}
	return (void *)(uintptr_t)addr;
}

/* Let the program use a map value (or record) for the rest of the run.
 * Memory it can already reach is not added again, so a loop that looks up
 * the same element keeps one region. */
static int expose(struct interp_call *call, void *p, uint64_t size, bool writable)
{
	if (!interp_call_check(call, (uint64_t)(uintptr_t)p, size, writable))
		return 0;
	if (interp_call_add_region(call, p, size, writable)) {
		interp_call_fail(call, ENOSPC,
				 "more than %d distinct map values or records in one run",
				 INTERP_MAX_REGIONS);
		return RUN_FAILED;
	}
	return 0;
}

/* 0 while the notification the run serves is valid; a run without one
 * (runtime_run) is always valid. */
static int task_valid(const struct helper_run *run)
{
	const struct runtime_task *t = run->task;

	return t->still_valid ? t->still_valid(t->still_valid_ctx) : 0;
}

/* Fails the run unless the notification is still valid. */
static int require_valid(struct interp_call *call, struct helper_run *run)
{
	if (task_valid(run)) {
		interp_call_fail(call, ESRCH, "task %d went away while its filter ran",
				 (int)run->task->tid);
		return RUN_FAILED;
	}
	return 0;
}

static bool is_self_thread(const struct helper_run *run)
{
	return run->task->tid == gettid();
}

/* ---- /proc/TID ----------------------------------------------------------- */

/*
 * /proc/TID as a directory fd, opened once per run and then checked with
 * still_valid(): the fd pins the task's struct pid, so once the check
 * passes every file read through it belongs to the task of the
 * notification (a recycled TID gets a new struct pid, and the entries of a
 * dead one fail with ESRCH).
 */
static int proc_dir(struct interp_call *call, struct helper_run *run)
{
	char path[32];
	int fd;

	if (run->proc_dirfd >= 0)
		return run->proc_dirfd;
	snprintf(path, sizeof(path), "/proc/%d", (int)run->task->tid);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		interp_call_fail(call, ESRCH, "cannot open %s: %s", path, strerror(errno));
		return RUN_FAILED;
	}
	run->proc_dirfd = fd;
	if (require_valid(call, run))
		return RUN_FAILED;
	return fd;
}

/* Read all of /proc/TID/name (NUL-terminated) into buf. */
static int proc_read(struct interp_call *call, struct helper_run *run, const char *name,
		     char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;
	int dirfd, fd;

	dirfd = proc_dir(call, run);
	if (dirfd < 0)
		return RUN_FAILED;
	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		goto fail;
	while (len + 1 < size) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			close(fd);
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (int)len;
fail:
	interp_call_fail(call, ESRCH, "cannot read /proc/%d/%s: %s", (int)run->task->tid, name,
			 strerror(errno));
	return RUN_FAILED;
}

/* The real and effective uid and gid of the task, from /proc/TID/status. */
static int task_status(struct interp_call *call, struct helper_run *run)
{
	char buf[8192];
	uint64_t ids[4]; /* real and effective uid, then gid */

	if (run->have_status)
		return 0;
	if (proc_read(call, run, "status", buf, sizeof(buf)) < 0)
		return RUN_FAILED;
	if (proc_status_numbers(buf, "Uid", 10, UINT32_MAX, ids, 2) ||
	    proc_status_numbers(buf, "Gid", 10, UINT32_MAX, ids + 2, 2)) {
		interp_call_fail(call, EIO, "/proc/%d/status has no Uid/Gid lines",
				 (int)run->task->tid);
		return RUN_FAILED;
	}
	run->uid = (uint32_t)ids[0];
	run->euid = (uint32_t)ids[1];
	run->gid = (uint32_t)ids[2];
	run->egid = (uint32_t)ids[3];
	run->have_status = true;
	return 0;
}

/* The uid that root of the task's user namespace is, as this process sees
 * it (/proc/TID/uid_map); UINT32_MAX when root is not mapped. A kernel
 * without user namespaces (CONFIG_USER_NS=n) has no uid_map: there is only
 * the initial namespace, whose root is uid 0. */
static uint32_t task_ns_root(struct interp_call *call, struct helper_run *run)
{
	char buf[4096], *p = buf;
	unsigned long inside, outside, count;
	struct stat st;

	if (stat("/proc/self/uid_map", &st) && errno == ENOENT)
		return 0;
	if (proc_read(call, run, "uid_map", buf, sizeof(buf)) < 0)
		return UINT32_MAX;
	while (p && *p) {
		if (sscanf(p, "%lu %lu %lu", &inside, &outside, &count) == 3 &&
		    inside == 0 && count > 0)
			return (uint32_t)outside;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return UINT32_MAX;
}

/*
 * Whether the task's mm is dumpable (get_dumpable() == SUID_DUMP_USER),
 * which seed 009 makes the condition for reading its memory. For this
 * process prctl() says. For another, /proc tells it only indirectly: the
 * kernel makes the files of a non-dumpable task belong to root of the
 * mm's user namespace instead of the task's euid/egid (task_dump_owner()).
 * When the euid is that root (or 0) the two cases look the same, and the
 * task is taken as not dumpable: fail closed, so a filter loaded without
 * CAP_SYS_PTRACE cannot read the memory of a root process.
 */
static int task_dumpable(struct interp_call *call, struct helper_run *run)
{
	struct stat st;
	uint32_t root;
	int dirfd;

	if (run->dumpable >= 0)
		return run->dumpable;
	if (run->task->tgid == getpid()) {
		run->dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 1;
		return run->dumpable;
	}
	if (task_status(call, run))
		return RUN_FAILED;
	dirfd = proc_dir(call, run);
	if (dirfd < 0)
		return RUN_FAILED;
	/* A path lookup (not fstat on an old fd) makes the kernel recompute
	 * the owner from the current dumpable state. */
	if (fstatat(dirfd, "status", &st, 0)) {
		interp_call_fail(call, ESRCH, "cannot stat /proc/%d/status: %s",
				 (int)run->task->tid, strerror(errno));
		return RUN_FAILED;
	}
	root = task_ns_root(call, run);
	run->dumpable = st.st_uid == run->euid && st.st_gid == run->egid && run->euid != 0 &&
			run->euid != root;
	return run->dumpable;
}

/* ---- reading the task's memory --------------------------------------------- */

/*
 * Copy size bytes at addr in the task into dst: 0, -EFAULT if any byte is
 * not readable (copy_from_user_nofault() has no partial success), -EPERM if
 * this process may not read the task at all, or RUN_FAILED when the task
 * went away. Through task->mem_fd (opened before the notification was
 * validated) when there is one; otherwise with process_vm_readv() on the
 * TID, which the caller validates after reading.
 */
static int read_user(struct interp_call *call, struct helper_run *run, void *dst,
		     uint64_t addr, size_t size)
{
	const struct runtime_task *t = run->task;
	struct iovec local, remote;
	size_t done = 0;
	ssize_t n;

	if (size == 0)
		return 0;
	if (addr >= USER_ADDR_END || size > USER_ADDR_END - addr)
		return -EFAULT;
	while (done < size) {
		if (t->mem_fd >= 0) {
			n = pread(t->mem_fd, (char *)dst + done, size - done, (off_t)(addr + done));
		} else {
			local.iov_base = (char *)dst + done;
			local.iov_len = size - done;
			remote.iov_base = (void *)(uintptr_t)(addr + done);
			remote.iov_len = size - done;
			n = process_vm_readv(t->tid, &local, 1, &remote, 1, 0);
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ESRCH) {
			interp_call_fail(call, ESRCH, "task %d went away while its filter ran",
					 (int)t->tid);
			return RUN_FAILED;
		}
		if (n < 0 && errno == EPERM)
			return -EPERM;
		/* EIO, EFAULT, or 0 (end of file: the mm is gone, which the
		 * validity check after the read turns into a failed run). */
		if (n <= 0)
			return -EFAULT;
		done += (size_t)n;
	}
	return 0;
}

/* Seed 009: -EPERM unless the task is dumpable or the loader had
 * CAP_SYS_PTRACE. */
static int read_user_allowed(struct interp_call *call, struct helper_run *run)
{
	int d;

	if (run->env->loader_cap_sys_ptrace)
		return 0;
	d = task_dumpable(call, run);
	if (d < 0)
		return RUN_FAILED;
	return d ? 0 : -EPERM;
}

/* long bpf_probe_read_user(void *dst, u32 size, const void *unsafe_ptr) */
static uint64_t h_probe_read_user(struct interp_call *call, const uint64_t a[5])
{
	struct helper_run *run = run_of(call);
	uint32_t size = (uint32_t)a[1];
	void *dst;
	int rc;

	if (!run)
		return 0;
	dst = arg_mem(call, 1, a[0], size, true);
	if (!dst)
		return 0;
	rc = read_user_allowed(call, run);
	if (rc == 0)
		rc = read_user(call, run, dst, a[2], size);
	if (rc == RUN_FAILED || require_valid(call, run))
		return 0;
	if (rc < 0)
		memset(dst, 0, size);
	return (uint64_t)(int64_t)rc;
}

/*
 * strncpy_from_user_nofault(): the string with its NUL, at most size bytes
 * (then the last is made NUL); returns the length with the NUL, or size.
 * Nothing past the NUL is written to dst (the kernel promises this, so that
 * strings can key maps). Reads a page at a time, so that a string ending
 * just before an unmapped page reads as it does in the kernel.
 */
static int read_user_str(struct interp_call *call, struct helper_run *run, char *dst,
			 uint64_t addr, uint32_t size)
{
	char chunk[4096];
	uint32_t done = 0, n;
	char *nul;
	int rc;

	if (size == 0)
		return 0;
	while (done < size) {
		n = sizeof(chunk) - (uint32_t)((addr + done) & (sizeof(chunk) - 1));
		if (n > size - done)
			n = size - done;
		if (addr + done < addr)
			return -EFAULT;
		rc = read_user(call, run, chunk, addr + done, n);
		if (rc)
			return rc;
		nul = memchr(chunk, '\0', n);
		if (nul) {
			memcpy(dst + done, chunk, (size_t)(nul - chunk) + 1);
			return (int)(done + (uint32_t)(nul - chunk) + 1);
		}
		memcpy(dst + done, chunk, n);
		done += n;
	}
	dst[size - 1] = '\0';
	return (int)size;
}

/* long bpf_probe_read_user_str(void *dst, u32 size, const void *unsafe_ptr) */
static uint64_t h_probe_read_user_str(struct interp_call *call, const uint64_t a[5])
{
	struct helper_run *run = run_of(call);
	uint32_t size = (uint32_t)a[1];
	char *dst;
	int rc;

	if (!run)
		return 0;
	dst = arg_mem(call, 1, a[0], size, true);
	if (!dst)
		return 0;
	rc = read_user_allowed(call, run);
	if (rc == 0)
		rc = read_user_str(call, run, dst, a[2], size);
	if (rc == RUN_FAILED || require_valid(call, run))
		return 0;
	if (rc < 0)
		memset(dst, 0, size);
	return (uint64_t)(int64_t)rc;
}

/* ---- maps ------------------------------------------------------------------- */

/* void *bpf_map_lookup_elem(struct bpf_map *map, const void *key) */
static uint64_t h_map_lookup_elem(struct interp_call *call, const uint64_t a[5])
{
	struct helper_run *run = run_of(call);
	struct helper_map *hm;
	const void *key;
	void *value;

	if (!run || !(hm = arg_kv_map(call, a[0])))
		return 0;
	key = arg_mem(call, 2, a[1], map_key_size(hm->map), false);
	if (!key)
		return 0;
	value = map_lookup(hm->map, key, run->task->cpu);
	if (!value)
		return 0;
	if (expose(call, value, map_value_size(hm->map), map_prog_writable(hm->map)))
		return 0;
	return (uint64_t)(uintptr_t)value;
}

/* long bpf_map_update_elem(map, const void *key, const void *value, u64 flags) */
static uint64_t h_map_update_elem(struct interp_call *call, const uint64_t a[5])
{
	struct helper_run *run = run_of(call);
	struct helper_map *hm;
	const void *key, *value;

	if (!run || !(hm = arg_kv_map(call, a[0])))
		return 0;
	key = arg_mem(call, 2, a[1], map_key_size(hm->map), false);
	value = key ? arg_mem(call, 3, a[2], map_value_size(hm->map), false) : NULL;
	if (!value)
		return 0;
	return (uint64_t)(int64_t)map_update(hm->map, key, value, a[3], run->task->cpu);
}

/* long bpf_map_delete_elem(struct bpf_map *map, const void *key) */
static uint64_t h_map_delete_elem(struct interp_call *call, const uint64_t a[5])
{
	struct helper_map *hm = arg_kv_map(call, a[0]);
	const void *key;

	if (!hm)
		return 0;
	key = arg_mem(call, 2, a[1], map_key_size(hm->map), false);
	if (!key)
		return 0;
	return (uint64_t)(int64_t)map_delete(hm->map, key);
}

/* long bpf_map_push_elem(struct bpf_map *map, const void *value, u64 flags) */
static uint64_t h_map_push_elem(struct interp_call *call, const uint64_t a[5])
{
	struct helper_map *hm = arg_kv_map(call, a[0]);
	const void *value;

	if (!hm)
		return 0;
	value = arg_mem(call, 2, a[1], map_value_size(hm->map), false);
	if (!value)
		return 0;
	return (uint64_t)(int64_t)map_push(hm->map, value, a[2]);
}

/* bpf_map_pop_elem / bpf_map_peek_elem(map, void *value): the value is
 * zeroed when there is none, as the kernel's queue and stack maps do. */
static uint64_t pop_or_peek(struct interp_call *call, const uint64_t a[5], bool pop)
{
	struct helper_map *hm = arg_kv_map(call, a[0]);
	void *value;
	int rc;

	if (!hm)
		return 0;
	value = arg_mem(call, 2, a[1], map_value_size(hm->map), true);
	if (!value)
		return 0;
	rc = pop ? map_pop(hm->map, value) : map_peek(hm->map, value);
	if (rc)
		memset(value, 0, map_value_size(hm->map));
	return (uint64_t)(int64_t)rc;
}

static uint64_t h_map_pop_elem(struct interp_call *call, const uint64_t a[5])
{
	return pop_or_peek(call, a, true);
}

static uint64_t h_map_peek_elem(struct interp_call *call, const uint64_t a[5])
{
	return pop_or_peek(call, a, false);
}

/* One for_each_map_elem walk. */
struct for_each_ctx {
	struct interp_call *call;
	uint64_t handle;
	uint64_t func;
	uint64_t cb_ctx;
	uint32_t key_size;
	uint32_t value_size;
	bool writable;
	bool failed;
};

/*
 * Called by map_for_each() under RCU for each element: the callback gets a
 * read-only copy of the key (array keys live in map_for_each()'s frame)
 * and the value itself, both reachable only while it runs.
 */
static long for_each_elem(struct map *map, const void *key, void *value, void *vctx)
{
	struct for_each_ctx *fe = vctx;
	uint8_t keybuf[512] __attribute__((aligned(8)));
	uint64_t args[5], r0 = 0;
	size_t mark;
	int rc;

	mark = interp_call_region_mark(fe->call);
	memcpy(keybuf, key, fe->key_size);
	if (interp_call_add_region(fe->call, keybuf, fe->key_size, false) ||
	    interp_call_add_region(fe->call, value, fe->value_size, fe->writable)) {
		interp_call_fail(fe->call, ENOSPC, "no room for the regions of a map element");
		fe->failed = true;
		return 1;
	}
	args[0] = fe->handle;
	args[1] = (uint64_t)(uintptr_t)keybuf;
	args[2] = (uint64_t)(uintptr_t)value;
	args[3] = fe->cb_ctx;
	args[4] = 0;
	rc = interp_call_subprog(fe->call, fe->func, args, &r0);
	interp_call_region_release(fe->call, mark);
	if (rc) {
		fe->failed = true;
		return 1;
	}
	/* The kernel stops on any non-zero return (the verifier allows 0, 1). */
	return r0 != 0;
}

/* long bpf_for_each_map_elem(map, void *callback_fn, void *callback_ctx,
 * u64 flags): the number of elements visited, or -EINVAL. */
static uint64_t h_for_each_map_elem(struct interp_call *call, const uint64_t a[5])
{
	struct helper_run *run = run_of(call);
	struct for_each_ctx fe = { .call = call };
	struct helper_map *hm;
	long n;

	if (!run || !(hm = arg_kv_map(call, a[0])))
		return 0;
	if (map_key_size(hm->map) > 512) {
		interp_call_fail(call, E2BIG, "map %s: keys of %u bytes cannot be walked",
				 map_name(hm->map), map_key_size(hm->map));
		return 0;
	}
	fe.handle = a[0];
	fe.func = a[1];
	fe.cb_ctx = a[2];
	fe.key_size = map_key_size(hm->map);
	fe.value_size = map_value_size(hm->map);
	fe.writable = map_prog_writable(hm->map);
	n = map_for_each(hm->map, for_each_elem, &fe, a[3], run->task->cpu);
	if (fe.failed)
		return 0;
	return (uint64_t)(int64_t)n;
}

/* ---- ring buffers ------------------------------------------------------------ */

static struct helper_map *arg_ringbuf(struct interp_call *call, uint64_t handle)
{
	struct helper_map *hm = arg_kv_map(call, handle);

	if (hm && hm->type != BPF_MAP_TYPE_RINGBUF) {
		interp_call_fail(call, EINVAL, "map %s is not a ring buffer", map_name(hm->map));
		return NULL;
	}
	return hm;
}

/* long bpf_ringbuf_output(void *ringbuf, void *data, u64 size, u64 flags) */
static uint64_t h_ringbuf_output(struct interp_call *call, const uint64_t a[5])
{
	struct helper_map *hm = arg_ringbuf(call, a[0]);
	const void *data;

	if (!hm)
		return 0;
	data = arg_mem(call, 2, a[1], a[2], false);
	if (!data)
		return 0;
	return (uint64_t)(int64_t)map_ringbuf_output(hm->map, data, a[2], a[3]);
}

/* void *bpf_ringbuf_reserve(void *ringbuf, u64 size, u64 flags): the
 * record becomes writable memory of the run; the run remembers it so that
 * submit/discard find its ring and so that a failed run discards it. */
static uint64_t h_ringbuf_reserve(struct interp_call *call, const uint64_t a[5])
{
	struct helper_run *run = run_of(call);
	struct helper_map *hm;
	void *sample;

	if (!run || !(hm = arg_ringbuf(call, a[0])))
		return 0;
	if (run->nreserved == HELPER_MAX_RESERVED) {
		interp_call_fail(call, ENOSPC, "more than %d ring buffer records reserved at once",
				 HELPER_MAX_RESERVED);
		return 0;
	}
	sample = map_ringbuf_reserve(hm->map, a[1], a[2]);
	if (!sample)
		return 0;
	run->reserved[run->nreserved++] = (struct helper_reservation){ hm->map, sample };
	if (expose(call, sample, a[1], true))
		return 0;
	return (uint64_t)(uintptr_t)sample;
}

/* bpf_ringbuf_submit/discard(void *data, u64 flags): data must be a record
 * this run reserved and has not released. */
static uint64_t ringbuf_commit(struct interp_call *call, const uint64_t a[5], bool discard)
{
	struct helper_run *run = run_of(call);
	struct helper_reservation r;
	unsigned int i;
	int rc;

	if (!run)
		return 0;
	for (i = 0; i < run->nreserved; i++)
		if ((uint64_t)(uintptr_t)run->reserved[i].sample == a[0])
			break;
	if (i == run->nreserved) {
		interp_call_fail(call, EINVAL, "r1 (0x%llx) is not a record this run reserved",
				 (unsigned long long)a[0]);
		return 0;
	}
	r = run->reserved[i];
	run->reserved[i] = run->reserved[--run->nreserved];
	rc = discard ? map_ringbuf_discard(r.map, r.sample, a[1]) :
		       map_ringbuf_submit(r.map, r.sample, a[1]);
	if (rc)
		interp_call_fail(call, -rc, "ring buffer record 0x%llx: %s",
				 (unsigned long long)a[0], strerror(-rc));
	return 0;
}

static uint64_t h_ringbuf_submit(struct interp_call *call, const uint64_t a[5])
{
	return ringbuf_commit(call, a, false);
}

static uint64_t h_ringbuf_discard(struct interp_call *call, const uint64_t a[5])
{
	return ringbuf_commit(call, a, true);
}

/* u64 bpf_ringbuf_query(void *ringbuf, u64 flags) */
static uint64_t h_ringbuf_query(struct interp_call *call, const uint64_t a[5])
{
	struct helper_map *hm = arg_ringbuf(call, a[0]);

	return hm ? map_ringbuf_query(hm->map, a[1]) : 0;
}

/* ---- task storage (seed 011) ------------------------------------------------- */

/*
 * A TASK_STORAGE map is a HASH keyed by the u32 tgid (lib/vm/runtime.c builds
 * it): the only task a filter may name is NULL, the calling process, whose
 * storage the kernel keeps on its thread-group leader.
 */
static struct helper_map *arg_task_storage(struct interp_call *call, const uint64_t a[5])
{
	struct helper_map *hm = arg_map(call, 1, a[0]);

	if (!hm)
		return NULL;
	if (hm->type != BPF_MAP_TYPE_TASK_STORAGE) {
		interp_call_fail(call, EINVAL, "map %s is not a task storage map",
				 map_name(hm->map));
		return NULL;
	}
	if (a[1] != 0) {
		interp_call_fail(call, EINVAL,
				 "r2: only a NULL task (the calling process) is supported");
		return NULL;
	}
	return hm;
}

static bool task_key(struct interp_call *call, struct helper_run *run, uint32_t *key)
{
	pid_t tgid = task_tgid(call, run);

	if (tgid <= 0)
		return false;
	*key = (uint32_t)tgid;
	return true;
}

/*
 * The task storage helpers run between task_storage_enter() and
 * task_storage_leave(). Entering checks that the notification is still
 * valid, so the task's process lives and owns its PID; and while the lock
 * is held shared, no process with that PID can begin or end in this
 * runtime (runtime_task_begin/exit free a PID's state under it,
 * exclusively). So the key names the caller's process for the whole map
 * operation: a run that outlived its process never reads or changes the
 * state of the next process with that PID, and storage it creates is freed
 * by its process's exit, which waits for the lock. Returns 0, or
 * RUN_FAILED (not entered) when the task went away.
 */
static int task_storage_enter(struct interp_call *call, struct helper_run *run)
{
	if (run->env->task_storage_lock)
		pthread_rwlock_rdlock(run->env->task_storage_lock);
	if (require_valid(call, run)) {
		if (run->env->task_storage_lock)
			pthread_rwlock_unlock(run->env->task_storage_lock);
		return RUN_FAILED;
	}
	return 0;
}

static void task_storage_leave(struct helper_run *run)
{
	if (run->env->task_storage_lock)
		pthread_rwlock_unlock(run->env->task_storage_lock);
}

/* void *bpf_task_storage_get(map, task, void *value, u64 flags) */
static uint64_t h_task_storage_get(struct interp_call *call, const uint64_t a[5])
{
	struct helper_run *run = run_of(call);
	struct helper_map *hm;
	uint32_t key, vsize;
	void *value, *init = NULL, *zero = NULL;
	int rc;

	if (!run || !(hm = arg_task_storage(call, a)) || !task_key(call, run, &key))
		return 0;
	if (a[3] & ~(uint64_t)BPF_LOCAL_STORAGE_GET_F_CREATE)
		return 0;
	vsize = map_value_size(hm->map);
	if ((a[3] & BPF_LOCAL_STORAGE_GET_F_CREATE) && a[2]) {
		init = arg_mem(call, 3, a[2], vsize, false);
		if (!init)
			return 0;
	}
	if (task_storage_enter(call, run))
		return 0;
	value = map_lookup(hm->map, &key, run->task->cpu);
	if (!value && (a[3] & BPF_LOCAL_STORAGE_GET_F_CREATE)) {
		if (!init)
			init = zero = calloc(1, vsize);
		/* calloc failing is -ENOMEM in the kernel: NULL */
		rc = init ? map_update(hm->map, &key, init, BPF_NOEXIST, run->task->cpu) : -ENOMEM;
		free(zero);
		if (rc == 0 || rc == -EEXIST)
			value = map_lookup(hm->map, &key, run->task->cpu);
	}
	task_storage_leave(run);
	if (!value || expose(call, value, vsize, true))
		return 0;
	return (uint64_t)(uintptr_t)value;
}

/* long bpf_task_storage_delete(map, task): 0, or -ENOENT. */
static uint64_t h_task_storage_delete(struct interp_call *call, const uint64_t a[5])
{
	struct helper_run *run = run_of(call);
	struct helper_map *hm;
	uint32_t key;
	int rc;

	if (!run || !(hm = arg_task_storage(call, a)) || !task_key(call, run, &key))
		return 0;
	if (task_storage_enter(call, run))
		return 0;
	rc = map_delete(hm->map, &key);
	task_storage_leave(run);
	return (uint64_t)(int64_t)rc;
}

void helper_task_storage_release(const struct helper_env *env, uint32_t tgid)
{
	uint32_t i;

	if (env->task_storage_lock)
		pthread_rwlock_wrlock(env->task_storage_lock);
	for (i = 0; i < env->nmaps; i++)
		if (env->maps[i].type == BPF_MAP_TYPE_TASK_STORAGE && env->maps[i].map)
			map_delete(env->maps[i].map, &tgid);
	if (env->task_storage_lock)
		pthread_rwlock_unlock(env->task_storage_lock);
}

/* ---- the current task ---------------------------------------------------------- */

/*
 * u64 bpf_get_current_pid_tgid(void): tgid << 32 | tid, as numbered in the
 * supervisor's pid namespace (the kernel gives initial-namespace numbers;
 * they agree when the supervisor runs there).
 */
static uint64_t h_get_current_pid_tgid(struct interp_call *call, const uint64_t a[5])
{
	struct helper_run *run = run_of(call);
	pid_t tgid;

	if (!run)
		return 0;
	if (run->task->tid <= 0) {
		interp_call_fail(call, EINVAL, "the task has no pid");
		return 0;
	}
	tgid = task_tgid(call, run);
	if (tgid <= 0)
		return 0;
	return (uint64_t)(uint32_t)tgid << 32 | (uint32_t)run->task->tid;
}

/*
 * u64 bpf_get_current_uid_gid(void): gid << 32 | uid, the real ids of the
 * thread (current_uid()/current_gid()), as mapped into the supervisor's
 * user namespace (the kernel maps them into the initial one).
 */
static uint64_t h_get_current_uid_gid(struct interp_call *call, const uint64_t a[5])
{
	struct helper_run *run = run_of(call);

	if (!run)
		return 0;
	if (is_self_thread(run))
		return (uint64_t)getgid() << 32 | getuid();
	if (task_status(call, run))
		return 0;
	return (uint64_t)run->gid << 32 | run->uid;
}

/* long bpf_get_current_comm(void *buf, u32 size_of_buf): the thread's
 * name, truncated and NUL-padded to the buffer (strscpy_pad()). */
static uint64_t h_get_current_comm(struct interp_call *call, const uint64_t a[5])
{
	struct helper_run *run = run_of(call);
	uint32_t size = (uint32_t)a[1];
	char comm[64];
	size_t len;
	char *buf;

	if (!run)
		return 0;
	buf = arg_mem(call, 1, a[0], size, true);
	if (!buf)
		return 0;
	if (size == 0) {
		interp_call_fail(call, EINVAL, "r2: the buffer size must not be 0");
		return 0;
	}
	if (proc_read(call, run, "comm", comm, sizeof(comm)) < 0)
		return 0;
	len = strcspn(comm, "\n");
	if (len > size - 1)
		len = size - 1;
	memcpy(buf, comm, len);
	memset(buf + len, 0, size - len);
	return 0;
}

/* u64 bpf_get_current_cgroup_id(void): the id of the task's cgroup v2 (its
 * kernfs node id, which name_to_handle_at() returns and which is also the
 * directory's inode number on 64-bit hosts). */
static int cgroup2_mount(char *mnt, size_t mnt_size, char *root, size_t root_size);

static uint64_t h_get_current_cgroup_id(struct interp_call *call, const uint64_t a[5])
{
	struct helper_run *run = run_of(call);
	char buf[4096], mnt[PATH_MAX], root[PATH_MAX], path[2 * PATH_MAX + 2];
	struct {
		struct file_handle fh;
		unsigned char bytes[64];
	} h;
	const char *cg = NULL, *rel;
	char *p = buf, *nl;
	struct stat st;
	size_t rlen;
	uint64_t id;
	int mount_id;

	if (!run || proc_read(call, run, "cgroup", buf, sizeof(buf)) < 0)
		return 0;
	while (p && *p) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (!strncmp(p, "0::", 3)) {
			cg = p + 3;
			break;
		}
		p = nl ? nl + 1 : NULL;
	}
	if (!cg || cgroup2_mount(mnt, sizeof(mnt), root, sizeof(root))) {
		interp_call_fail(call, ENOENT, "task %d: no cgroup v2 hierarchy",
				 (int)run->task->tid);
		return 0;
	}
	/* /proc/TID/cgroup is relative to this process's cgroup namespace,
	 * the mount's root field to the same; a path outside the mount (as
	 * "/.." for a task outside the namespace) has no id here. */
	rlen = strcmp(root, "/") ? strlen(root) : 0;
	if (strncmp(cg, root, rlen) || (cg[rlen] != '/' && cg[rlen] != '\0') ||
	    strstr(cg, "/..")) {
		interp_call_fail(call, ENOENT, "task %d: cgroup %s is not under %s",
				 (int)run->task->tid, cg, mnt);
		return 0;
	}
	rel = cg + rlen;
	snprintf(path, sizeof(path), "%s%s", mnt, rel);
	h.fh.handle_bytes = sizeof(h.bytes);
	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) == 0 &&
	    h.fh.handle_bytes == sizeof(id)) {
		memcpy(&id, h.fh.f_handle, sizeof(id));
	} else if (stat(path, &st) == 0) {
		id = st.st_ino;
	} else {
		interp_call_fail(call, ENOENT, "cannot find cgroup %s: %s", path, strerror(errno));
		return 0;
	}
	if (require_valid(call, run))
		return 0;
	return id;
}

/* Undo the octal escapes (\040 for a space) of a mountinfo field. */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

/* The first cgroup2 mount of this process: its mount point and root. */
static int cgroup2_mount(char *mnt, size_t mnt_size, char *root, size_t root_size)
{
	char line[4096], f_root[PATH_MAX], f_mnt[PATH_MAX];
	const char *sep;
	FILE *f;
	int rc = -ENOENT;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		sep = strstr(line, " - ");
		if (!sep || strncmp(sep + 3, "cgroup2 ", 8))
			continue;
		/* id parent major:minor root mount-point ... */
		if (sscanf(line, "%*s %*s %*s %4095s %4095s", f_root, f_mnt) != 2)
			continue;
		unescape(f_root);
		unescape(f_mnt);
		if (strlen(f_mnt) >= mnt_size || strlen(f_root) >= root_size)
			continue;
		strcpy(mnt, f_mnt);
		strcpy(root, f_root);
		rc = 0;
		break;
	}
	fclose(f);
	return rc;
}

/*
 * long bpf_send_signal(u32 sig): the signal goes to the task's thread
 * group, through a pidfd of its TGID checked with still_valid() after
 * opening, so it cannot reach a process that reused the number. The
 * receiver sees si_code SI_USER from the supervisor, where the kernel's
 * says SI_KERNEL. A simulated run (runtime_run) signals no one and says so
 * on the trace log.
 */
static uint64_t h_send_signal(struct interp_call *call, const uint64_t a[5])
{
	struct helper_run *run = run_of(call);
	uint32_t sig = (uint32_t)a[0];
	int pidfd, rc;
	pid_t tgid;

	if (!run)
		return 0;
	if (sig > 64)		/* !valid_signal(sig) */
		return (uint64_t)(int64_t)-EINVAL;
	if (run->simulated) {
		fprintf(run->env->trace_log, "%d: bpf_send_signal(%u) not sent (simulated run)\n",
			(int)run->task->tid, sig);
		return 0;
	}
	tgid = task_tgid(call, run);
	if (tgid <= 0)
		return 0;
	pidfd = (int)syscall(SYS_pidfd_open, tgid, 0);
	if (pidfd < 0) {
		interp_call_fail(call, ESRCH, "pidfd_open(%d): %s", (int)tgid,
				 strerror(errno));
		return 0;
	}
	if (require_valid(call, run)) {
		close(pidfd);
		return 0;
	}
	rc = (int)syscall(SYS_pidfd_send_signal, pidfd, (int)sig, NULL, 0);
	if (rc)
		rc = -errno;
	close(pidfd);
	return (uint64_t)(int64_t)rc;
}

/*
 * long bpf_send_signal_thread(u32 sig): to the thread alone, with
 * tgkill() after a validity check (a pidfd of a thread needs Linux 6.9).
 * The TID could only be reused between the check and the signal by a new
 * thread of the same process.
 */
static uint64_t h_send_signal_thread(struct interp_call *call, const uint64_t a[5])
{
	struct helper_run *run = run_of(call);
	uint32_t sig = (uint32_t)a[0];
	pid_t tgid;

	if (!run)
		return 0;
	if (sig > 64)
		return (uint64_t)(int64_t)-EINVAL;
	if (run->simulated) {
		fprintf(run->env->trace_log,
			"%d: bpf_send_signal_thread(%u) not sent (simulated run)\n",
			(int)run->task->tid, sig);
		return 0;
	}
	tgid = task_tgid(call, run);
	if (tgid <= 0 || require_valid(call, run))
		return 0;
	if (syscall(SYS_tgkill, tgid, run->task->tid, (int)sig))
		return (uint64_t)(int64_t)-errno;
	return 0;
}

/* ---- time, randomness, cpu ------------------------------------------------------ */

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* u64 bpf_ktime_get_ns(void): CLOCK_MONOTONIC, as in the kernel. */
static uint64_t h_ktime_get_ns(struct interp_call *call, const uint64_t a[5])
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* u64 bpf_ktime_get_boot_ns(void): CLOCK_BOOTTIME (counts suspend). */
static uint64_t h_ktime_get_boot_ns(struct interp_call *call, const uint64_t a[5])
{
	return clock_ns(CLOCK_BOOTTIME);
}

/* u64 bpf_ktime_get_coarse_ns(void): CLOCK_MONOTONIC_COARSE. */
static uint64_t h_ktime_get_coarse_ns(struct interp_call *call, const uint64_t a[5])
{
	return clock_ns(CLOCK_MONOTONIC_COARSE);
}

/*
 * u32 bpf_get_prandom_u32(void): not cryptographic, like the kernel's. The
 * generator (xoshiro128**) is per thread, as the kernel's is per CPU, so
 * workers never contend; it is seeded from getrandom() on first use.
 */
static __thread struct {
	uint32_t s[4];
	bool seeded;
} prandom_state;

static uint32_t rotl32(uint32_t x, int k)
{
	return (x << k) | (x >> (32 - k));
}

static uint64_t h_get_prandom_u32(struct interp_call *call, const uint64_t a[5])
{
	uint32_t *s = prandom_state.s, r, t;

	if (!prandom_state.seeded) {
		if (getrandom(s, sizeof(prandom_state.s), 0) != sizeof(prandom_state.s)) {
			/* Only before the entropy pool is ready: good enough
			 * for a non-cryptographic generator. */
			uint64_t x = clock_ns(CLOCK_MONOTONIC) ^ ((uint64_t)gettid() << 32);

			s[0] = (uint32_t)x;
			s[1] = (uint32_t)(x >> 32);
			s[2] = 0x9e3779b9;
			s[3] = 0x7f4a7c15;
		}
		if (!(s[0] | s[1] | s[2] | s[3]))
			s[0] = 1;	/* the all-zero state is a fixed point */
		prandom_state.seeded = true;
	}
	r = rotl32(s[1] * 5, 7) * 9;
	t = s[1] << 9;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl32(s[3], 11);
	return r;
}

/* u32 bpf_get_smp_processor_id(void): the worker slot running the filter
 * (0..ncpus-1), the index PERCPU maps use; not a host CPU number. */
static uint64_t h_get_smp_processor_id(struct interp_call *call, const uint64_t a[5])
{
	struct helper_run *run = run_of(call);

	return run ? run->task->cpu : 0;
}

/* ---- control flow: tail calls and loops -------------------------------------- */

/*
 * long bpf_tail_call(void *ctx, map, u32 index). On success the run
 * continues in the target program, which the runtime starts when this
 * program stops here (the kernel also drops the caller's frame: nothing of
 * it survives but ctx). An empty slot or an index out of range falls
 * through with -ENOENT, and so does a call past the kernel's limit of 33
 * per run (-E2BIG). A tail call from a subprogram or callback (which the
 * kernel's JIT returns from into the caller's caller) fails the run.
 */
static uint64_t h_tail_call(struct interp_call *call, const uint64_t a[5])
{
	struct helper_run *run = run_of(call);
	const struct helper_env *env = env_of(call);
	struct helper_map *hm;
	uint32_t prog;
	int rc;

	if (!run || !(hm = arg_map(call, 2, a[1])))
		return 0;
	if (hm->type != BPF_MAP_TYPE_PROG_ARRAY) {
		interp_call_fail(call, EINVAL, "map %s is not a program array", map_name(hm->map));
		return 0;
	}
	if (a[0] != run->ctx) {
		interp_call_fail(call, EINVAL, "r1 of bpf_tail_call must be the context");
		return 0;
	}
	if (interp_call_depth(call) != 1) {
		interp_call_fail(call, ENOTSUP,
				 "bpf_tail_call from a subprogram or callback is not supported");
		return 0;
	}
	if (run->nreserved) {
		interp_call_fail(call, EINVAL, "bpf_tail_call with ring buffer records reserved");
		return 0;
	}
	rc = map_prog_array_get(hm->map, (uint32_t)a[2], &prog);
	if (rc)
		return (uint64_t)(int64_t)rc;
	if (run->tail_calls >= HELPER_MAX_TAIL_CALLS)
		return (uint64_t)(int64_t)-E2BIG;
	if (prog >= env->nprogs || !env->prog_ready[prog]) {
		interp_call_fail(call, ENOENT, "map %s[%u] holds program %u, which is not loaded",
				 map_name(hm->map), (uint32_t)a[2], prog);
		return 0;
	}
	run->tail_calls++;
	run->tail_target = prog;
	interp_call_exit(call, 0);
	return 0;
}

/* long bpf_loop(u32 nr_loops, void *callback_fn, void *callback_ctx,
 * u64 flags): the number of iterations run, -EINVAL for flags, -E2BIG past
 * BPF_MAX_LOOPS. The callback's instructions count against the run's
 * limit, so a long loop of a long callback fails the run instead. */
static uint64_t h_loop(struct interp_call *call, const uint64_t a[5])
{
	uint32_t nr = (uint32_t)a[0], i;
	uint64_t args[5] = { 0, a[2], 0, 0, 0 }, r0;

	if (a[3])
		return (uint64_t)(int64_t)-EINVAL;
	if (nr > HELPER_MAX_LOOPS)
		return (uint64_t)(int64_t)-E2BIG;
	for (i = 0; i < nr; i++) {
		args[0] = i;
		r0 = 0;
		if (interp_call_subprog(call, a[1], args, &r0))
			return 0;
		if (r0)
			return (uint64_t)i + 1;
	}
	return i;
}

/* long bpf_strncmp(const char *s1, u32 s1_sz, const char *s2): the
 * kernel's strncmp(s1, s2, s1_sz), which returns -1, 0 or 1. s2 is read a
 * byte at a time, each checked, as far as the comparison goes. */
static uint64_t h_strncmp(struct interp_call *call, const uint64_t a[5])
{
	uint32_t n = (uint32_t)a[1], i;
	const unsigned char *s1, *s2;

	s1 = arg_mem(call, 1, a[0], n, false);
	if (!s1)
		return 0;
	for (i = 0; i < n; i++) {
		s2 = arg_mem(call, 3, a[2] + i, 1, false);
		if (!s2)
			return 0;
		if (s1[i] != *s2)
			return (uint64_t)(int64_t)(s1[i] < *s2 ? -1 : 1);
		if (!s1[i])
			break;
	}
	return 0;
}

/* ---- bpf_trace_printk ------------------------------------------------------------ */

/* A %s argument: bytes the program may read, up to a NUL or the room left
 * (the kernel reads it with a nofault copy and prints "" on a fault). */
static void printk_str(struct interp_call *call, uint64_t addr, char *out, size_t room)
{
	size_t i;

	for (i = 0; i + 1 < room; i++) {
		if (interp_call_check(call, addr + i, 1, false))
			break;
		out[i] = *(const char *)(uintptr_t)(addr + i);
		if (!out[i])
			return;
	}
	out[i] = '\0';
}

/*
 * long bpf_trace_printk(const char *fmt, u32 fmt_size, ...): the subset
 * bpf_bprintf_prepare() accepts for it: flags "-+ 0", a width, %d %i %u %x
 * %X %c %s %p and %% with the l and ll modifiers, at most 3 arguments;
 * anything else is -EINVAL. %s prints a string from memory the program may
 * read (stack, context, map values), "" from any other address; %p prints
 * the value in hex (no kernel pointers to hide here). The line goes to the
 * trace log as "TID: message". Returns the length of the message.
 */
static uint64_t h_trace_printk(struct interp_call *call, const uint64_t a[5])
{
	struct helper_run *run = run_of(call);
	uint32_t fmt_size = (uint32_t)a[1];
	char msg[PRINTK_BUF], spec[32], str[PRINTK_BUF];
	const char *fmt;
	size_t len = 0, sl;
	unsigned int nargs = 0, lmod;
	uint64_t v;
	int n;
	size_t i;

	if (!run)
		return 0;
	fmt = arg_mem(call, 1, a[0], fmt_size, false);
	if (!fmt)
		return 0;
	if (fmt_size == 0 || !memchr(fmt, '\0', fmt_size))
		return (uint64_t)(int64_t)-EINVAL;
	for (i = 0; fmt[i] && len + 1 < sizeof(msg); i++) {
		if (!isprint((unsigned char)fmt[i]) && !isspace((unsigned char)fmt[i]))
			return (uint64_t)(int64_t)-EINVAL;
		if (fmt[i] != '%') {
			msg[len++] = fmt[i];
			continue;
		}
		if (fmt[i + 1] == '%') {
			msg[len++] = '%';
			i++;
			continue;
		}
		/* Copy "%[flags][width]" into spec, then the conversion. */
		sl = 0;
		spec[sl++] = fmt[i++];
		while (fmt[i] && strchr("-+ 0", fmt[i]) && sl < 8)
			spec[sl++] = fmt[i++];
		while (isdigit((unsigned char)fmt[i]) && sl < 12)
			spec[sl++] = fmt[i++];
		if (nargs == PRINTK_MAX_ARGS)
			return (uint64_t)(int64_t)-EINVAL;
		v = a[2 + nargs++];
		lmod = 0;
		while (fmt[i] == 'l' && lmod < 2) {
			lmod++;
			i++;
		}
		switch (fmt[i]) {
		case 'd':
		case 'i':
			spec[sl++] = 'l';
			spec[sl++] = 'l';
			spec[sl++] = 'd';
			spec[sl] = '\0';
			n = snprintf(msg + len, sizeof(msg) - len, spec,
				     lmod ? (long long)v : (long long)(int32_t)v);
			break;
		case 'u':
		case 'x':
		case 'X':
			spec[sl++] = 'l';
			spec[sl++] = 'l';
			spec[sl++] = fmt[i];
			spec[sl] = '\0';
			n = snprintf(msg + len, sizeof(msg) - len, spec,
				     lmod ? (unsigned long long)v : (unsigned long long)(uint32_t)v);
			break;
		case 'p':
			if (lmod)
				return (uint64_t)(int64_t)-EINVAL;
			n = snprintf(msg + len, sizeof(msg) - len, "0x%llx", (unsigned long long)v);
			break;
		case 'c':
			if (lmod)
				return (uint64_t)(int64_t)-EINVAL;
			spec[sl++] = 'c';
			spec[sl] = '\0';
			n = snprintf(msg + len, sizeof(msg) - len, spec, (int)(unsigned char)v);
			break;
		case 's':
			if (lmod)
				return (uint64_t)(int64_t)-EINVAL;
			printk_str(call, v, str, sizeof(str));
			spec[sl++] = 's';
			spec[sl] = '\0';
			n = snprintf(msg + len, sizeof(msg) - len, spec, str);
			break;
		default:
			return (uint64_t)(int64_t)-EINVAL;
		}
		if (n < 0)
			return (uint64_t)(int64_t)-EINVAL;
		len += (size_t)n;
		if (len >= sizeof(msg))
			len = sizeof(msg) - 1;
	}
	msg[len] = '\0';
	/* One call, so that lines of concurrent workers do not interleave. */
	fprintf(run->env->trace_log, "%d: %s%s", (int)run->task->tid, msg,
		len && msg[len - 1] == '\n' ? "" : "\n");
	return len;
}

/* ---- the table -------------------------------------------------------------------- */

/* The helper with this id, or NULL when secbpf does not implement it. */
static interp_helper_fn helper_lookup(void *env, int32_t id)
{
	switch (id) {
	case BPF_FUNC_map_lookup_elem: return h_map_lookup_elem;
	case BPF_FUNC_map_update_elem: return h_map_update_elem;
	case BPF_FUNC_map_delete_elem: return h_map_delete_elem;
	case BPF_FUNC_map_push_elem: return h_map_push_elem;
	case BPF_FUNC_map_pop_elem: return h_map_pop_elem;
	case BPF_FUNC_map_peek_elem: return h_map_peek_elem;
	case BPF_FUNC_for_each_map_elem: return h_for_each_map_elem;
	case BPF_FUNC_ringbuf_output: return h_ringbuf_output;
	case BPF_FUNC_ringbuf_reserve: return h_ringbuf_reserve;
	case BPF_FUNC_ringbuf_submit: return h_ringbuf_submit;
	case BPF_FUNC_ringbuf_discard: return h_ringbuf_discard;
	case BPF_FUNC_ringbuf_query: return h_ringbuf_query;
	case BPF_FUNC_task_storage_get: return h_task_storage_get;
	case BPF_FUNC_task_storage_delete: return h_task_storage_delete;
	case BPF_FUNC_get_current_pid_tgid: return h_get_current_pid_tgid;
	case BPF_FUNC_get_current_uid_gid: return h_get_current_uid_gid;
	case BPF_FUNC_get_current_comm: return h_get_current_comm;
	case BPF_FUNC_get_current_cgroup_id: return h_get_current_cgroup_id;
	case BPF_FUNC_probe_read_user: return h_probe_read_user;
	case BPF_FUNC_probe_read_user_str: return h_probe_read_user_str;
	case BPF_FUNC_send_signal: return h_send_signal;
	case BPF_FUNC_send_signal_thread: return h_send_signal_thread;
	case BPF_FUNC_ktime_get_ns: return h_ktime_get_ns;
	case BPF_FUNC_ktime_get_boot_ns: return h_ktime_get_boot_ns;
	case BPF_FUNC_ktime_get_coarse_ns: return h_ktime_get_coarse_ns;
	case BPF_FUNC_get_prandom_u32: return h_get_prandom_u32;
	case BPF_FUNC_get_smp_processor_id: return h_get_smp_processor_id;
	case BPF_FUNC_tail_call: return h_tail_call;
	case BPF_FUNC_loop: return h_loop;
	case BPF_FUNC_strncmp: return h_strncmp;
	case BPF_FUNC_trace_printk: return h_trace_printk;
	default: return NULL;
	}
}

const struct interp_call_table helper_call_table = { .resolve = helper_lookup };

void helper_run_init(struct helper_run *run, const struct helper_env *env,
		     const struct runtime_task *task, uint64_t ctx)
{
	memset(run, 0, sizeof(*run));
	run->env = env;
	run->task = task;
	run->ctx = ctx;
	run->tail_target = -1;
	run->proc_dirfd = -1;
	run->dumpable = -1;
}

void helper_run_finish(struct helper_run *run)
{
	unsigned int i;

	for (i = 0; i < run->nreserved; i++)
		map_ringbuf_discard(run->reserved[i].map, run->reserved[i].sample, 0);
	run->nreserved = 0;
	if (run->proc_dirfd >= 0)
		close(run->proc_dirfd);
	run->proc_dirfd = -1;
}
