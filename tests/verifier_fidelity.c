// SPDX-License-Identifier: MIT
/*
 * verifier_fidelity: the verifier corpus (tests/verifier/) judged twice, by
 * secbpf's verifier with the seed's context rules (`verify --strict`) and by
 * the kernel verifier of the seccomp-eBPF port (BPF_PROG_LOAD as
 * BPF_PROG_TYPE_SECCOMP), and the two verdicts compared per program. It runs
 * inside the patched kernel (kernel/tests/native_fidelity.sh).
 *
 * Each case is loaded into the kernel by the identity its tier stands for:
 * privileged by root; unprivileged by uid/gid 65534 without capabilities;
 * restricted by the same with Yama's ptrace_scope at 2 (the port's "almost
 * cBPF" rule for loaders without CAP_SYS_PTRACE). A disagreement is not a
 * failure only when it is listed, with its class, in the divergence file; it
 * is then counted as a known divergence, apart from the passes. A listed case
 * that agrees fails, so that the list stays true.
 *
 * usage: verifier_fidelity CORPUS_DIR DIVERGENCE_FILE
 * (CORPUS_DIR holds NAME.s, and NAME.bpf.c with its compiled NAME.bpf.o.)
 * Output: TAP-like lines, then "SECBPF-RESULT: suite=verifier_fidelity pass=P
 * fail=F skip=S divergent=D" (scripts/summarize-tests counts it).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "install/native.h"
#include "verifier/verifier.h"
#include "verifier_corpus.h"

#define YAMA_SCOPE "/proc/sys/kernel/yama/ptrace_scope"
#define NOBODY 65534

struct known {
	char name[128];
	char class[64];
	bool seen;
};

static struct known *known;
static size_t nknown;

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

/* "NAME CLASS [# note]" lines; '#' starts a comment. */
static int read_known(const char *path)
{
	char line[512], name[128], class[64];
	FILE *f = fopen(path, "r");
	size_t cap = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %63s", name, class) != 2 || name[0] == '#')
			continue;
		if (nknown == cap) {
			cap = cap ? cap * 2 : 64;
			known = realloc(known, cap * sizeof(*known));
			if (!known)
				return -ENOMEM;
		}
		snprintf(known[nknown].name, sizeof(known[nknown].name), "%s", name);
		snprintf(known[nknown].class, sizeof(known[nknown].class), "%s", class);
		known[nknown].seen = false;
		nknown++;
	}
	fclose(f);
	return 0;
}

static struct known *find_known(const char *name)
{
	size_t i;

	for (i = 0; i < nknown; i++)
		if (!strcmp(known[i].name, name))
			return &known[i];
	return NULL;
}

static int write_scope(const char *v)
{
	int fd = open(YAMA_SCOPE, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, v, strlen(v));
	close(fd);
	return n == (ssize_t)strlen(v) ? 0 : -EIO;
}

/*
 * Minimal BTF for the .s cases' task storage maps (the kernel insists on
 * it): the key an int, the value an array of bytes.
 */
static struct btf *corpus_btf(struct corpus_spec *spec)
{
	struct btf *btf = NULL;
	int u8, u32, key, val;
	uint32_t i;

	for (i = 0; i < spec->nmaps; i++) {
		struct object_map *m = &spec->maps[i];

		if (m->kind != OBJECT_MAP_BTF || m->type != BPF_MAP_TYPE_TASK_STORAGE)
			continue;
		/* the kernel insists on it; secbpf's verifier does not look */
		m->map_flags |= BPF_F_NO_PREALLOC;
		if (!btf) {
			btf = btf__new_empty();
			if (!btf)
				return NULL;
		}
		u8 = btf__add_int(btf, "unsigned char", 1, 0);
		u32 = btf__add_int(btf, "unsigned int", 4, 0);
		key = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
		val = btf__add_array(btf, u32, u8, m->value_size ? m->value_size : 1);
		if (u8 < 0 || u32 < 0 || key < 0 || val < 0) {
			btf__free(btf);
			return NULL;
		}
		m->btf_key_type_id = key;
		m->btf_value_type_id = val;
	}
	return btf;
}

/*
 * The kernel's verdict, from a child with the tier's identity: 'A'
 * accepted, 'R' rejected by the verifier, 'E' another error (map creation,
 * BTF); why[] gets a one-line reason.
 */
static char kernel_verdict(const struct native_abi *abi, struct object *obj,
			   struct object_prog *prog, enum secbpf_tier tier, char *why, size_t size)
{
	struct secbpf_err err = { { 0 } };
	struct native_prog np;
	int fds[2], st;
	char *log = NULL, v;
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		return snprintf(why, size, "pipe: %s", strerror(errno)), 'E';
	pid = fork();
	if (pid < 0)
		return snprintf(why, size, "fork: %s", strerror(errno)), 'E';
	if (pid == 0) {
		close(fds[0]);
		if (tier != SECBPF_TIER_PRIVILEGED &&
		    (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		     setresuid(NOBODY, NOBODY, NOBODY))) {
			dprintf(fds[1], "Ecannot drop to uid %d: %s", NOBODY, strerror(errno));
			_exit(0);
		}
		if (native_load(abi, obj, prog, &np, &log, &err) == 0) {
			dprintf(fds[1], "A");
			native_prog_close(&np);
		} else {
			dprintf(fds[1], "%c%s", log ? 'R' : 'E', err.msg);
		}
		free(log);
		_exit(0);
	}
	close(fds[1]);
	n = read(fds[0], why, size - 1);
	close(fds[0]);
	waitpid(pid, &st, 0);
	if (n <= 0) {
		snprintf(why, size, "the loader died (status 0x%x)", st);
		return 'E';
	}
	why[n] = '\0';
	v = why[0];
	memmove(why, why + 1, n);
	return v;
}

int main(int argc, char **argv)
{
	struct secbpf_err err = { { 0 } };
	struct native_abi abi;
	char path[1024], objpath[1024], why[sizeof(err.msg) + 64], scope[16] = "";
	char **names = NULL, *text;
	size_t n = 0, cap = 0, i;
	int pass = 0, fail = 0, skip = 0, agree = 0, listed = 0, t = 0, fd;
	struct dirent *de;
	DIR *d;

	/* Its messages about BTF the kernel refused repeat our reasons. */
	libbpf_set_print(NULL);
	if (argc != 3) {
		fprintf(stderr, "usage: verifier_fidelity CORPUS_DIR DIVERGENCE_FILE\n");
		return 2;
	}
	if (native_detect(&abi, &err)) {
		fprintf(stderr, "verifier_fidelity: %s\n", err.msg);
		return 2;
	}
	if (read_known(argv[2])) {
		fprintf(stderr, "verifier_fidelity: cannot read %s\n", argv[2]);
		return 2;
	}
	d = opendir(argv[1]);
	if (!d) {
		fprintf(stderr, "verifier_fidelity: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	while ((de = readdir(d))) {
		if (!has_suffix(de->d_name, ".s") && !has_suffix(de->d_name, ".bpf.c"))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 512;
			names = realloc(names, cap * sizeof(*names));
		}
		if (!names || !(names[n++] = strdup(de->d_name)))
			return 2;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	fd = open(YAMA_SCOPE, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t r = read(fd, scope, sizeof(scope) - 1);

		scope[r > 0 ? r : 0] = '\0';
		close(fd);
	}

	for (i = 0; i < n; i++) {
		struct verifier_opts opts = { .sz = sizeof(opts) };
		struct corpus_spec spec;
		struct object sobj, *obj = NULL;
		struct object_prog sprog, *prog = NULL;
		struct bpf_insn *insns = NULL;
		struct btf *btf = NULL;
		const char *kname, *uname;
		struct known *k;
		size_t cnt = 0;
		char kv;
		int uret;

		snprintf(path, sizeof(path), "%s/%s", argv[1], names[i]);
		text = corpus_read_file(path);
		if (!text || corpus_parse(text, &spec, &err)) {
			printf("not ok %d - %s: cannot read its directives: %s\n", ++t, names[i],
			       text ? err.msg : strerror(errno));
			fail++;
			free(text);
			continue;
		}
		if (has_suffix(names[i], ".s")) {
			if (corpus_assemble(text, &spec, &insns, &cnt, &err)) {
				printf("not ok %d - %s: assembly: %s\n", ++t, names[i], err.msg);
				fail++;
				free(text);
				continue;
			}
			corpus_object(&spec, insns, cnt, &sobj, &sprog);
			btf = corpus_btf(&spec);
			sobj.btf = btf;
			sobj.license = "GPL";
			obj = &sobj;
			prog = &sprog;
		} else {
			snprintf(objpath, sizeof(objpath), "%.*s.bpf.o",
				 (int)(strlen(path) - strlen(".bpf.c")), path);
			obj = object_open_file(objpath, &err);
			if (obj)
				prog = object_find_prog(obj, spec.prog[0] ? spec.prog : NULL, &err);
			if (!prog) {
				printf("not ok %d - %s: %s\n", ++t, names[i], err.msg);
				fail++;
				if (obj)
					object_free(obj);
				free(text);
				continue;
			}
		}
		free(text);

		/* secbpf verify --strict, in the case's tier */
		opts.tier = spec.tier;
		opts.strict = true;
		uret = verifier_check(obj, prog, &opts, NULL, &err);
		uname = uret ? "reject" : "accept";

		if (spec.tier == SECBPF_TIER_RESTRICTED) {
			if (!scope[0] || write_scope("2")) {
				printf("ok %d - %s # SKIP no Yama to restrict the loader\n", ++t,
				       names[i]);
				skip++;
				goto next;
			}
		}
		kv = kernel_verdict(&abi, obj, prog, spec.tier, why, sizeof(why));
		if (spec.tier == SECBPF_TIER_RESTRICTED)
			write_scope(scope);
		/* A program the kernel will not even take the maps of is, for
		 * the user, a rejected one: the reason says which it was. */
		kname = kv == 'A' ? "accept" : "reject";

		k = find_known(names[i]);
		t++;
		if (!strcmp(uname, kname)) {
			if (k) {
				k->seen = true;
				printf("not ok %d - %s: listed as a divergence (%s) but both %s\n",
				       t, names[i], k->class, uname);
				fail++;
			} else {
				printf("ok %d - %s: both %s\n", t, names[i], uname);
				agree++;
				pass++;
			}
		} else {
			printf("%s %d - %s: secbpf %s, kernel %s%s%s\n", k ? "ok" : "not ok", t,
			       names[i], uname, kname, k ? ": known divergence " : "",
			       k ? k->class : "");
			printf("#   secbpf: %s\n#   kernel: %s%s\n", uret ? err.msg : "accepted",
			       kv == 'E' ? "(not a verifier verdict) " : "",
			       kv == 'A' ? "accepted" : why);
			if (k) {
				k->seen = true;
				listed++;
			} else {
				fail++;
			}
		}
	next:
		if (has_suffix(names[i], ".s")) {
			free(insns);
			btf__free(btf);
		} else {
			object_free(obj);
		}
		free(names[i]);
	}
	for (i = 0; i < nknown; i++) {
		if (known[i].seen)
			continue;
		printf("not ok %d - %s: listed as a divergence but not in the corpus\n", ++t,
		       known[i].name);
		fail++;
	}
	printf("# verifier fidelity: %zu programs, %d agree, %d known divergences, %d failures\n",
	       n, agree, listed, fail);
	printf("SECBPF-RESULT: suite=verifier_fidelity pass=%d fail=%d skip=%d divergent=%d\n",
	       pass, fail, skip, listed);
	free(names);
	free(known);
	return fail ? 1 : 0;
}
