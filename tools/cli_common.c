// SPDX-License-Identifier: MIT
/*
 * Helpers shared by the secbpf commands: error output, target loading
 * through the public API (OBJ[:PROG], .c sources compiled on the fly,
 * --set applied), command lookup and the child's exit and wait.
 */
#include <ctype.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Internal header, beside the public API the targets are opened with:
 * api/api.h, for the loader's object behind a public handle (its path is
 * renamed to the user's .c file; the API has no accessor for either). */
#include "api/api.h"
#include "cli.h"

extern char **environ;

void cli_error(const char *what, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "secbpf: %s: ", what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

bool cli_is_c_identifier(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* The multiarch include directory and arch macro of the host, which is the
 * syscall ABI the filter will be enforced on. */
#if defined(__x86_64__)
#define HOST_MULTIARCH "x86_64-linux-gnu"
#define HOST_ARCH_MACRO "-D__x86_64__"
#elif defined(__aarch64__)
#define HOST_MULTIARCH "aarch64-linux-gnu"
#define HOST_ARCH_MACRO "-D__aarch64__"
#else
#error "secbpf cc: unsupported host architecture"
#endif

/* Where <secbpf/filter.h> lives: $SECBPF_INCLUDE_DIR, the installed include
 * directory, or the source tree this binary was built from. */
static const char *filter_include_dir(void)
{
	static const char *const candidates[] = { SECBPF_INCLUDEDIR, SECBPF_SOURCE_INCLUDEDIR };
	const char *env = getenv("SECBPF_INCLUDE_DIR");
	char path[4096];
	size_t i;

	if (env && *env)
		return env;
	for (i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		snprintf(path, sizeof(path), "%s/secbpf/filter.h", candidates[i]);
		if (access(path, R_OK) == 0)
			return candidates[i];
	}
	return SECBPF_INCLUDEDIR;
}

int cli_compile(const char *src, const char *out, const char *const *extra)
{
	const char *clang = getenv("SECBPF_CLANG");
	const char *argv[64];
	char inc[4200];
	int argc = 0, status;
	pid_t pid;
	int rc;

	if (!clang || !*clang)
		clang = "clang";
	if (access(src, R_OK)) {
		cli_error(src, "%s", strerror(errno));
		return -1;
	}
	snprintf(inc, sizeof(inc), "-I%s", filter_include_dir());
	argv[argc++] = clang;
	argv[argc++] = "-O2";
	argv[argc++] = "-g";
	argv[argc++] = "-target";
	argv[argc++] = "bpf";
	argv[argc++] = HOST_ARCH_MACRO;
	argv[argc++] = "-I/usr/include/" HOST_MULTIARCH;
	argv[argc++] = inc;
	for (; extra && *extra && argc < 58; extra++)
		argv[argc++] = *extra;
	argv[argc++] = "-c";
	argv[argc++] = src;
	argv[argc++] = "-o";
	argv[argc++] = out;
	argv[argc] = NULL;

	rc = posix_spawnp(&pid, clang, NULL, NULL, (char *const *)argv, environ);
	if (rc) {
		cli_error(src, "cannot run %s: %s (install clang, or set SECBPF_CLANG)", clang,
			  strerror(rc));
		return -1;
	}
	if (waitpid(pid, &status, 0) < 0) {
		cli_error(src, "waiting for %s: %s", clang, strerror(errno));
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		cli_error(src, "%s failed to compile it (see its messages above)", clang);
		return -1;
	}
	return 0;
}

/* Compile a .c target into a private temporary object. */
static char *compile_to_temp(const char *src)
{
	const char *dir = getenv("TMPDIR");
	char *path;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	if (asprintf(&path, "%s/secbpf-XXXXXX.o", dir) < 0)
		return NULL;
	fd = mkstemps(path, 2);
	if (fd < 0) {
		cli_error(dir, "cannot create a temporary object: %s", strerror(errno));
		free(path);
		return NULL;
	}
	close(fd);
	if (cli_compile(src, path, NULL)) {
		unlink(path);
		free(path);
		return NULL;
	}
	return path;
}

/* Open the object file at path with the public API; prints why not. */
static struct secbpf_object *open_object(const char *path, const char *name)
{
	char errbuf[SECBPF_ERR_MAX] = "";
	struct secbpf_object_open_opts opts = {
		.sz = sizeof(opts),
		.errbuf = errbuf,
		.errbuf_sz = sizeof(errbuf),
	};
	struct secbpf_object *obj = secbpf_object__open_file(path, &opts);

	if (!obj)
		cli_error(name, "%s", errbuf[0] ? errbuf : strerror(errno));
	return obj;
}

int cli_load(const char *spec, struct cli_target *t)
{
	char *file = strdup(spec);
	const char *prog = NULL;
	char *colon;
	struct stat st;

	memset(t, 0, sizeof(*t));
	if (!file) {
		cli_error(spec, "out of memory");
		return -1;
	}
	/* Split at the last ':' only when what follows is a C identifier and
	 * the whole string is not an existing file (docs/design.md §5). */
	colon = strrchr(file, ':');
	if (colon && cli_is_c_identifier(colon + 1) && stat(spec, &st) != 0) {
		*colon = '\0';
		prog = colon + 1;
	}
	if (ends_with(file, ".c")) {
		t->tmp_obj = compile_to_temp(file);
		if (!t->tmp_obj)
			goto fail;
	}
	t->handle = open_object(t->tmp_obj ? t->tmp_obj : file, file);
	if (!t->handle)
		goto fail;
	t->obj = t->handle->obj;
	if (t->tmp_obj) {
		/* Messages should name the user's file, not our temporary. */
		char *name = strdup(file);

		if (name) {
			free(t->obj->path);
			t->obj->path = name;
		}
	}
	t->program = secbpf_object__find_program(t->handle, prog);
	if (!t->program) {
		cli_error(file, "%s", secbpf_object__last_error(t->handle));
		goto fail;
	}
	t->prog = t->program->prog;
	free(file);
	return 0;
fail:
	free(file);
	cli_close(t);
	return -1;
}

void cli_close(struct cli_target *t)
{
	secbpf_object__close(t->handle);
	if (t->tmp_obj) {
		unlink(t->tmp_obj);
		free(t->tmp_obj);
	}
	memset(t, 0, sizeof(*t));
}

int cli_apply_sets(struct cli_target *targets, int ntargets, const struct cli_sets *sets)
{
	int i, j, rc, found;

	for (i = 0; i < sets->n; i++) {
		found = 0;
		for (j = 0; j < ntargets; j++) {
			rc = secbpf_object__set_var(targets[j].handle, sets->v[i].var,
						    sets->v[i].value);
			if (rc == -ENOENT)
				continue;
			if (rc) {
				cli_error("--set", "%s", secbpf_object__last_error(targets[j].handle));
				return -1;
			}
			found++;
		}
		if (!found) {
			cli_error("--set", "no loaded object has a global variable '%s'",
				  sets->v[i].var);
			return -1;
		}
	}
	return 0;
}

int cli_open_target(const char *spec, const struct cli_sets *sets, struct cli_target *t)
{
	if (cli_load(spec, t))
		return -1;
	if (cli_apply_sets(t, 1, sets)) {
		cli_close(t);
		return -1;
	}
	return 0;
}

/* Whether path names something execve could run: a file with execute
 * permission for us. Sets *e to the reason when it is not. */
static bool is_executable(const char *path, int *e)
{
	struct stat st;

	if (stat(path, &st)) {
		*e = errno;
		return false;
	}
	if (S_ISDIR(st.st_mode)) {
		*e = EISDIR;
		return false;
	}
	if (access(path, X_OK)) {
		*e = errno;
		return false;
	}
	return true;
}

/*
 * Resolve CMD as execvp would (PATH, or "/bin:/usr/bin" when unset; a name
 * with a '/' is taken as is), before any filter is installed: the search
 * makes syscalls that a filter may deny. Returns the malloc'ed path, or
 * NULL with *status set to 126 or 127 after printing why.
 */
char *cli_resolve_command(const char *what, const char *cmd, int *status)
{
	const char *path_env, *p, *end;
	bool denied = false;
	int e = ENOENT;
	char *cand;
	size_t dlen;

	if (!*cmd) {
		cli_error(what, "empty command name");
		*status = EXIT_NOT_FOUND;
		return NULL;
	}
	if (strchr(cmd, '/')) {
		if (!is_executable(cmd, &e)) {
			cli_error(cmd, "%s", strerror(e));
			*status = (e == ENOENT || e == ENOTDIR) ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
			return NULL;
		}
		cand = strdup(cmd);
		if (!cand) {
			cli_error(what, "out of memory");
			*status = EXIT_RUN_FAILED;
		}
		return cand;
	}
	path_env = getenv("PATH");
	if (!path_env)
		path_env = "/bin:/usr/bin";
	for (p = path_env;; p = end + 1) {
		end = strchrnul(p, ':');
		dlen = end - p;
		/* An empty PATH element means the current directory. */
		if (asprintf(&cand, "%.*s/%s", (int)(dlen ? dlen : 1), dlen ? p : ".", cmd) < 0) {
			cli_error(what, "out of memory");
			*status = EXIT_RUN_FAILED;
			return NULL;
		}
		if (is_executable(cand, &e))
			return cand;
		free(cand);
		/* Like execvp: a match we may not execute is remembered, and
		 * reported if nothing later in PATH works. */
		if (e != ENOENT && e != ENOTDIR)
			denied = true;
		if (!*end)
			break;
	}
	if (denied) {
		cli_error(cmd, "found in PATH but not executable: %s", strerror(EACCES));
		*status = EXIT_CANNOT_EXEC;
		return NULL;
	}
	cli_error(cmd, "command not found in PATH");
	*status = EXIT_NOT_FOUND;
	return NULL;
}

void cli_child_exit(int status)
{
	syscall(SYS_exit_group, status);
	__builtin_trap();
}

int cli_wait_forwarding(pid_t pid, const sigset_t *set, int *status, bool *forwarded)
{
	siginfo_t info;
	pid_t w;
	int sig;

	for (;;) {
		w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -errno;
		sig = sigwaitinfo(set, &info);
		if (sig < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (sig == SIGCHLD || info.si_code == SI_KERNEL)
			continue;
		if (kill(pid, sig) == 0 && forwarded)
			*forwarded = true;
	}
}
