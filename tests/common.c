// SPDX-License-Identifier: MIT
/*
 * Helpers shared by the Criterion suites: one version of what several
 * suites need (see common.h), so that a fix to one reaches them all.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

int test_capture(char *out, size_t size, const char *cmd)
{
	size_t n;
	FILE *p;
	int st;

	p = popen(cmd, "r");
	cr_assert_not_null(p);
	n = fread(out, 1, size - 1, p);
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int test_shell(char *out, size_t size, const char *fmt, ...)
{
	char cmd[32768];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	cr_assert(n >= 0 && (size_t)n + sizeof(" 2>&1") <= sizeof(cmd), "command too long");
	strcpy(cmd + n, " 2>&1");
	return test_capture(out, size, cmd);
}

void test_scratch_dir(char *dir, size_t size, const char *name)
{
	snprintf(dir, size, "%s/%s-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
	cr_assert_not_null(mkdtemp(dir));
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

int test_remove_tree(const char *dir)
{
	if (!dir[0])
		return 0;
	return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void test_sample_path(char *buf, size_t size, const char *name)
{
	const char *build = getenv("SECBPF_BUILD_DIR");

	snprintf(buf, size, "%s/samples/%s.bpf.o", build, name);
	if (access(buf, R_OK) == 0)
		return;
	snprintf(buf, size, "%s/%s.bpf.o", build, name);
}

const char *test_probe(char *path, size_t size, const char *env, const char *dir, const char *name,
		       const char *cflags)
{
	const char *built = getenv(env);
	const char *cc = getenv("CC");
	char cmd[16384];

	if (built && *built && access(built, X_OK) == 0) {
		snprintf(path, size, "%s", built);
		return path;
	}
	snprintf(path, size, "%s/%s", dir, name);
	snprintf(cmd, sizeof(cmd), "'%s' -O1 %s-o '%s' '%s/tests/progs/%s.c'",
		 cc && *cc ? cc : "cc", cflags, path, getenv("SECBPF_SOURCE_DIR"), name);
	cr_assert_eq(system(cmd), 0, "cannot build the probe: %s", cmd);
	return path;
}

const char *test_write_filter(const char *dir, const char *name, const char *body)
{
	static char path[4][4200];
	static int i;
	FILE *f;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/%s.c", dir, name);
	f = fopen(path[i], "w");
	cr_assert_not_null(f);
	fprintf(f, "#include <secbpf/filter.h>\n%s\nchar _license[] SEC(\"license\") = \"GPL\";\n",
		body);
	fclose(f);
	return path[i];
}

void test_compile_bpf(const char *source, const char *obj)
{
	const char *src = getenv("SECBPF_SOURCE_DIR") ? getenv("SECBPF_SOURCE_DIR") : ".";
	char cmd[16384];

	snprintf(cmd, sizeof(cmd),
		 "clang -O2 -g -target bpf -D__x86_64__ -I/usr/include/x86_64-linux-gnu "
		 "-I'%s/include' -c '%s' -o '%s'",
		 src, source, obj);
	cr_assert_eq(system(cmd), 0, "cannot compile: %s", cmd);
}

void test_compile_helper(const char *dir, const char *name, char *obj, size_t size)
{
	const char *src = getenv("SECBPF_SOURCE_DIR") ? getenv("SECBPF_SOURCE_DIR") : ".";
	char source[4096];

	snprintf(obj, size, "%s/%s.bpf.o", dir, name);
	snprintf(source, sizeof(source), "%s/tests/helpers/%s.bpf.c", src, name);
	test_compile_bpf(source, obj);
}

const char test_count_closes_body[] = "struct {\n"
				      "	__uint(type, BPF_MAP_TYPE_ARRAY);\n"
				      "	__uint(max_entries, 1);\n"
				      "	__type(key, __u32);\n"
				      "	__type(value, __u64);\n"
				      "} counts SEC(\".maps\");\n"
				      "SEC(\"seccomp\")\n"
				      "int count_closes(struct seccomp_data *ctx)\n"
				      "{\n"
				      "	__u32 k = 0;\n"
				      "	__u64 *v;\n"
				      "	if (ctx->nr != __NR_close)\n"
				      "		return SECCOMP_RET_ALLOW;\n"
				      "	v = bpf_map_lookup_elem(&counts, &k);\n"
				      "	if (v)\n"
				      "		__sync_fetch_and_add(v, 1);\n"
				      "	return SECCOMP_RET_ALLOW;\n"
				      "}\n";

bool test_in_ci(void)
{
	const char *v[] = { getenv("CI"), getenv("SECBPF_CI") };
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (v[i] && v[i][0] && strcmp(v[i], "0") && strcmp(v[i], "false"))
			return true;
	return false;
}

/* Copy src (links followed) to dst with mode 0755. */
static void copy_executable(const char *src, const char *dst)
{
	char buf[65536];
	ssize_t n;
	int in, out;

	in = open(src, O_RDONLY | O_CLOEXEC);
	cr_assert(in >= 0, "cannot open %s", src);
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	cr_assert(out >= 0, "cannot create %s", dst);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		cr_assert_eq(write(out, buf, n), n, "cannot write %s", dst);
	cr_assert_eq(n, 0, "cannot read %s", src);
	cr_assert_eq(fchmod(out, 0755), 0);
	close(in);
	cr_assert_eq(close(out), 0);
}

void test_stage_for_other_users(const char *exe, char *dir, size_t dsize, char *staged,
				size_t ssize)
{
	const char *build = getenv("SECBPF_BUILD_DIR");
	char real_build[4096], lib[4096], name[256], path[4096 + 256], line[8192];
	const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	FILE *ldd;

	cr_assert(build && realpath(build, real_build), "SECBPF_BUILD_DIR is not set");
	snprintf(dir, dsize, "/tmp/secbpf-stage-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(chmod(dir, 0755), 0);
	snprintf(staged, ssize, "%s/%s", dir, base);
	copy_executable(exe, staged);
	/* The libraries it loads from the build directory ($ORIGIN/ finds
	 * them beside the copy); system libraries are reachable already. */
	snprintf(line, sizeof(line), "ldd '%s'", exe);
	ldd = popen(line, "r");
	cr_assert_not_null(ldd);
	while (fgets(line, sizeof(line), ldd)) {
		if (sscanf(line, " %255s => %4095s", name, lib) != 2 || lib[0] != '/')
			continue;
		if (!realpath(lib, path) || strncmp(path, real_build, strlen(real_build)))
			continue;
		snprintf(lib, sizeof(lib), "%s/%s", dir, name);
		copy_executable(path, lib);
	}
	cr_assert_eq(pclose(ldd), 0, "ldd %s failed", exe);
}

static long long monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool test_wait_for(bool (*cond)(void *arg), void *arg, int timeout_ms)
{
	long long deadline = monotonic_ms() + timeout_ms;
	struct timespec pause = { 0, 1000000 };

	while (!cond(arg)) {
		if (monotonic_ms() >= deadline)
			return cond(arg);
		nanosleep(&pause, NULL);
		if (pause.tv_nsec < 16000000)
			pause.tv_nsec *= 2;
	}
	return true;
}
