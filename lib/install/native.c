// SPDX-License-Identifier: MIT
/*
 * Native backend (native.h): detect a kernel with the seccomp-eBPF patch
 * set, create the object's maps, load the relocated program with bpf(2)
 * and attach it with seccomp(2). This is the fidelity oracle for the
 * user-space path; it does not exist on stock kernels.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "install/native.h"

/* Largest verifier log we ask for (the kernel caps it at UINT_MAX >> 2). */
#define NATIVE_LOG_SIZE (4u << 20)

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/*
 * Parse "version=1 prog_type=24268 filter_flag=64 ptrace_get_filter=24268".
 * Unknown keys are ignored (the format may grow); version, prog_type and
 * filter_flag are required, and filter_flag must be a single bit.
 */
int native_detect(struct native_abi *abi, struct secbpf_err *err)
{
	char buf[256], *tok, *save = NULL, *eq, *end;
	bool have_version = false, have_type = false, have_flag = false;
	unsigned long v;
	ssize_t n;
	int fd;

	memset(abi, 0, sizeof(*abi));
	fd = open(NATIVE_ABI_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return err_set(
				err, ENOSYS,
				"this kernel lacks eBPF seccomp support (no "
				"kernel.seccomp.extended "
				"sysctl, so no BPF_PROG_TYPE_SECCOMP); secbpf run without --native "
				"needs no kernel support");
		return err_set(err, errno, "cannot read %s: %s", NATIVE_ABI_PATH, strerror(errno));
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return err_set(err, errno, "cannot read %s: %s", NATIVE_ABI_PATH, strerror(errno));
	buf[n] = '\0';
	for (tok = strtok_r(buf, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		eq = strchr(tok, '=');
		if (!eq)
			continue;
		*eq++ = '\0';
		errno = 0;
		v = strtoul(eq, &end, 10);
		if (errno || end == eq || *end || v > UINT32_MAX)
			return err_set(err, EINVAL, "%s: '%s=%s' is not a 32-bit decimal number",
				       NATIVE_ABI_PATH, tok, eq);
		if (!strcmp(tok, "version")) {
			abi->version = v;
			have_version = true;
		} else if (!strcmp(tok, "prog_type")) {
			abi->prog_type = v;
			have_type = true;
		} else if (!strcmp(tok, "filter_flag")) {
			abi->filter_flag = v;
			have_flag = true;
		} else if (!strcmp(tok, "ptrace_get_filter")) {
			abi->ptrace_get_filter = v;
		}
	}
	if (!have_version || !have_type || !have_flag)
		return err_set(err, EINVAL,
			       "%s does not advertise version, prog_type and filter_flag",
			       NATIVE_ABI_PATH);
	if (abi->version != 1)
		return err_set(err, EINVAL, "%s: version %u is not supported (this secbpf knows 1)",
			       NATIVE_ABI_PATH, abi->version);
	if (!abi->filter_flag || (abi->filter_flag & (abi->filter_flag - 1)))
		return err_set(err, EINVAL, "%s: filter_flag %u is not a single bit",
			       NATIVE_ABI_PATH, abi->filter_flag);
	return 0;
}

/* Kernel object names: at most 15 characters of [A-Za-z0-9_.]. */
static void native_name(char dst[BPF_OBJ_NAME_LEN], const char *src)
{
	size_t i;

	memset(dst, 0, BPF_OBJ_NAME_LEN);
	for (i = 0; src && src[i] && i < BPF_OBJ_NAME_LEN - 1; i++) {
		char c = src[i];

		dst[i] = (c == '_' || c == '.' || (c >= '0' && c <= '9') ||
			  (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
				 ? c
				 : '_';
	}
}

/*
 * Load the object's BTF into the kernel when a map names BTF types (task
 * storage needs them). Returns the BTF fd, owned by obj->btf, or -1 when there is none or
 * the kernel refused it: maps are then created without BTF, which is
 * enough for every map type that does not insist on it.
 */
static int native_load_btf(const struct object *obj)
{
	uint32_t i;

	if (!obj->btf)
		return -1;
	for (i = 0; i < obj->map_cnt; i++)
		if (obj->maps[i].btf_value_type_id)
			break;
	if (i == obj->map_cnt)
		return -1;
	if (btf__load_into_kernel(obj->btf))
		return -1;
	return btf__fd(obj->btf);
}

/*
 * Create map i of obj. Global data maps are one-element arrays: the
 * initial bytes are written as element 0 and .rodata is then frozen, so
 * that the kernel verifier may treat its reads as constants (what secbpf's
 * compiler does with `const volatile` knobs).
 */
static int native_create_map(const struct object *obj, uint32_t i, int btf_fd,
			     struct secbpf_err *err)
{
	const struct object_map *m = &obj->maps[i];
	union bpf_attr a;
	uint32_t key = 0;
	int fd, e;

	memset(&a, 0, sizeof(a));
	a.map_type = m->type;
	a.key_size = m->key_size;
	a.value_size = m->value_size;
	a.max_entries = m->max_entries;
	a.map_flags = m->map_flags;
	native_name(a.map_name, m->name);
	if (btf_fd >= 0 && m->btf_value_type_id) {
		a.btf_fd = btf_fd;
		a.btf_key_type_id = m->btf_key_type_id;
		a.btf_value_type_id = m->btf_value_type_id;
	}
	fd = sys_bpf(BPF_MAP_CREATE, &a);
	if (fd < 0 && errno == EINVAL && a.map_name[0]) {
		/* Names containing '.' are newer than some kernels. */
		memset(a.map_name, 0, sizeof(a.map_name));
		fd = sys_bpf(BPF_MAP_CREATE, &a);
	}
	if (fd < 0)
		return err_set(err, errno,
			       "map '%s': BPF_MAP_CREATE (type %u, key %u, value %u, "
			       "entries %u, flags 0x%x): %s",
			       m->name, m->type, m->key_size, m->value_size, m->max_entries,
			       m->map_flags, strerror(errno));
	if (m->kind == OBJECT_MAP_BTF)
		return fd;
	if (m->init_data) {
		memset(&a, 0, sizeof(a));
		a.map_fd = fd;
		a.key = (uintptr_t)&key;
		a.value = (uintptr_t)m->init_data;
		a.flags = BPF_ANY;
		if (sys_bpf(BPF_MAP_UPDATE_ELEM, &a)) {
			e = errno;
			close(fd);
			return err_set(err, e, "map '%s': writing the initial data: %s", m->name,
				       strerror(e));
		}
	}
	if (m->kind == OBJECT_MAP_RODATA) {
		memset(&a, 0, sizeof(a));
		a.map_fd = fd;
		if (sys_bpf(BPF_MAP_FREEZE, &a)) {
			e = errno;
			close(fd);
			return err_set(err, e, "map '%s': BPF_MAP_FREEZE: %s", m->name,
				       strerror(e));
		}
	}
	return fd;
}

/*
 * Replace the map indices of the relocated ld_imm64s by fds. Map values
 * (BPF_PSEUDO_MAP_VALUE) keep their offset in the second slot; calls and
 * function pointers are relative already and need nothing.
 */
static int native_patch(struct bpf_insn *insns, uint32_t cnt, const struct native_prog *np,
			struct secbpf_err *err)
{
	uint32_t i, idx;

	for (i = 0; i < cnt; i++) {
		if (insns[i].code != (BPF_LD | BPF_IMM | BPF_DW))
			continue;
		if (i + 1 >= cnt)
			return err_set(err, EINVAL, "insn %u: ld_imm64 without its second slot", i);
		if (insns[i].src_reg == BPF_PSEUDO_MAP_FD ||
		    insns[i].src_reg == BPF_PSEUDO_MAP_VALUE) {
			idx = (uint32_t)insns[i].imm;
			if (idx >= np->map_cnt || np->map_fds[idx] < 0)
				return err_set(err, EINVAL, "insn %u: reference to map %u of %u", i,
					       idx, np->map_cnt);
			insns[i].imm = np->map_fds[idx];
		}
		i++;
	}
	return 0;
}

/* The kernel verifier's reason: the last line of its log that is not one
 * of the statistics lines it ends with, for a one-line error. */
static const char *native_log_summary(char *log, char *line, size_t size)
{
	char *end = log + strlen(log), *start;

	for (;;) {
		while (end > log && (end[-1] == '\n' || end[-1] == ' '))
			end--;
		start = end;
		while (start > log && start[-1] != '\n')
			start--;
		if (start == log ||
		    (strncmp(start, "processed ", 10) && strncmp(start, "verification time ", 18) &&
		     strncmp(start, "stack depth ", 12)))
			break;
		end = start;
	}
	snprintf(line, size, "%.*s", (int)(end - start), start);
	return line;
}

int native_load(const struct native_abi *abi, const struct object *obj,
		const struct object_prog *prog, struct native_prog *np, char **log,
		struct secbpf_err *err)
{
	struct bpf_insn *insns = NULL;
	char *buf = NULL, line[256];
	union bpf_attr a;
	uint32_t i;
	int btf_fd = -1, rc, e;

	if (log)
		*log = NULL;
	memset(np, 0, sizeof(*np));
	np->prog_fd = -1;
	np->map_fds = malloc((obj->map_cnt ? obj->map_cnt : 1) * sizeof(*np->map_fds));
	if (!np->map_fds)
		return err_set(err, ENOMEM, "out of memory");
	np->map_cnt = obj->map_cnt;
	for (i = 0; i < obj->map_cnt; i++)
		np->map_fds[i] = -1;

	btf_fd = native_load_btf(obj);
	for (i = 0; i < obj->map_cnt; i++) {
		rc = native_create_map(obj, i, btf_fd, err);
		if (rc < 0)
			goto fail;
		np->map_fds[i] = rc;
	}

	insns = malloc(prog->insn_cnt * sizeof(*insns));
	if (!insns) {
		rc = err_set(err, ENOMEM, "out of memory");
		goto fail;
	}
	memcpy(insns, prog->insns, prog->insn_cnt * sizeof(*insns));
	rc = native_patch(insns, prog->insn_cnt, np, err);
	if (rc)
		goto fail;

	buf = malloc(NATIVE_LOG_SIZE);
	if (!buf) {
		rc = err_set(err, ENOMEM, "out of memory");
		goto fail;
	}
	buf[0] = '\0';
	memset(&a, 0, sizeof(a));
	a.prog_type = abi->prog_type;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = prog->insn_cnt;
	/* The kernel gates GPL-only helpers on this string, as for any prog. */
	a.license = (uintptr_t)(obj->license ? obj->license : "");
	a.log_buf = (uintptr_t)buf;
	a.log_size = NATIVE_LOG_SIZE;
	a.log_level = 1;
	native_name(a.prog_name, prog->name);
	rc = sys_bpf(BPF_PROG_LOAD, &a);
	if (rc < 0) {
		e = errno;
		if (buf[0]) {
			rc = err_set(err, e, "the kernel verifier rejected '%s' (%s): %s",
				     prog->name, strerror(e),
				     native_log_summary(buf, line, sizeof(line)));
			if (log) {
				*log = buf;
				buf = NULL;
			}
		} else {
			rc = err_set(err, e, "BPF_PROG_LOAD of '%s' as prog type %u: %s",
				     prog->name, abi->prog_type, strerror(e));
		}
		goto fail;
	}
	np->prog_fd = rc;
	free(buf);
	free(insns);
	return 0;
fail:
	free(buf);
	free(insns);
	native_prog_close(np);
	return rc;
}

void native_prog_close(struct native_prog *np)
{
	uint32_t i;

	if (np->prog_fd >= 0)
		close(np->prog_fd);
	for (i = 0; np->map_fds && i < np->map_cnt; i++)
		if (np->map_fds[i] >= 0)
			close(np->map_fds[i]);
	free(np->map_fds);
	np->map_fds = NULL;
	np->map_cnt = 0;
	np->prog_fd = -1;
}

int native_attach(const struct native_abi *abi, int prog_fd, unsigned int extra_flags,
		  struct secbpf_err *err)
{
	int fd = prog_fd;

	/* The kernel requires it from a caller without CAP_SYS_ADMIN; secbpf
	 * sets it always, as `run` does, so that no setuid program gains
	 * privileges under a filter it was not written for. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return err_set(err, errno, "cannot set no_new_privs: %s", strerror(errno));
	if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, abi->filter_flag | extra_flags, &fd))
		return err_set(err, errno, "seccomp(SECCOMP_SET_MODE_FILTER, 0x%x, prog fd %d): %s",
			       abi->filter_flag | extra_flags, prog_fd, strerror(errno));
	return 0;
}

int native_map_next_key(int map_fd, const void *key, void *next)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = map_fd;
	a.key = (uintptr_t)key;
	a.next_key = (uintptr_t)next;
	return sys_bpf(BPF_MAP_GET_NEXT_KEY, &a) ? -errno : 0;
}

int native_map_lookup(int map_fd, const void *key, void *value)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = map_fd;
	a.key = (uintptr_t)key;
	a.value = (uintptr_t)value;
	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &a) ? -errno : 0;
}

/* "0-3,5" -> 5 (the highest CPU number + 1, as the kernel counts them). */
unsigned int native_possible_cpus(void)
{
	char buf[256], *p;
	unsigned long hi = 0, v;
	ssize_t n;
	int fd;

	fd = open("/sys/devices/system/cpu/possible", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	for (p = buf; *p;) {
		v = strtoul(p, &p, 10);
		if (v > hi)
			hi = v;
		if (*p == '-' || *p == ',')
			p++;
		else
			break;
	}
	return (unsigned int)hi + 1;
}

int native_prog_xlated(int prog_fd, struct bpf_insn **insns, uint32_t *cnt, uint32_t *id,
		       char *name, struct secbpf_err *err)
{
	struct bpf_prog_info info;
	struct bpf_insn *buf;
	union bpf_attr a;
	uint32_t len;

	*insns = NULL;
	*cnt = 0;
	memset(&info, 0, sizeof(info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = prog_fd;
	a.info.info_len = sizeof(info);
	a.info.info = (uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a))
		return err_set(err, errno, "BPF_OBJ_GET_INFO_BY_FD: %s", strerror(errno));
	*id = info.id;
	memcpy(name, info.name, BPF_OBJ_NAME_LEN);
	len = info.xlated_prog_len;
	if (!len)
		return 0;
	buf = malloc(len);
	if (!buf)
		return err_set(err, ENOMEM, "out of memory");
	/* Second call: only the array we ask for (the length may not grow
	 * for a loaded program). */
	memset(&info, 0, sizeof(info));
	info.xlated_prog_len = len;
	info.xlated_prog_insns = (uintptr_t)buf;
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = prog_fd;
	a.info.info_len = sizeof(info);
	a.info.info = (uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a)) {
		free(buf);
		return err_set(err, errno, "BPF_OBJ_GET_INFO_BY_FD: %s", strerror(errno));
	}
	*insns = buf;
	*cnt = (info.xlated_prog_len < len ? info.xlated_prog_len : len) / sizeof(*buf);
	return 0;
}
