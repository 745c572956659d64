// SPDX-License-Identifier: MIT
/*
 * A program that sandboxes itself with the library, then becomes CMD: the
 * smallest complete use of secbpf_attach(). Stateless filters end up in
 * the kernel; a stateful one gets its supervisor process before the filter
 * is in force. With --native the kernel itself runs the eBPF program (a
 * kernel with the seed patch set only).
 *
 *   self_sandbox [--native] [--set VAR=VALUE]... OBJ[:PROG] -- CMD [ARG]...
 *
 * Build: cc self_sandbox.c $(pkg-config --cflags --libs secbpf)
 */
#include <errno.h>
#include <secbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static int usage(void)
{
	fprintf(stderr, "usage: self_sandbox [--native] [--set VAR=VALUE]... OBJ[:PROG] -- CMD [ARG]...\n");
	return 125;
}

int main(int argc, char **argv)
{
	struct secbpf_attach_opts opts = { .sz = sizeof(opts), .flags = SECBPF_ATTACH_TSYNC };
	struct secbpf_object *obj;
	struct secbpf_program *prog;
	char *spec = NULL, *name = NULL, *colon, *eq;
	int i, first_set = 0, nsets = 0, rc;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "--native")) {
			opts.flags |= SECBPF_ATTACH_NATIVE;
		} else if (!strcmp(argv[i], "--set") && i + 1 < argc) {
			if (!nsets++)
				first_set = i + 1;
			i++;
		} else if (!spec) {
			spec = argv[i];
		} else {
			return usage();
		}
	}
	if (!spec || i + 1 >= argc)
		return usage();

	colon = strrchr(spec, ':');
	if (colon && access(spec, F_OK)) {
		*colon = '\0';
		name = colon + 1;
	}
	obj = secbpf_object__open_file(spec, NULL);
	if (!obj) {
		fprintf(stderr, "self_sandbox: cannot open %s\n", spec);
		return 125;
	}
	prog = secbpf_object__find_program(obj, name);
	if (!prog) {
		fprintf(stderr, "self_sandbox: %s\n", secbpf_object__last_error(obj));
		return 125;
	}
	for (; nsets > 0; nsets--, first_set += 2) {
		eq = strchr(argv[first_set], '=');
		if (!eq) {
			fprintf(stderr, "self_sandbox: --set %s: not VAR=VALUE\n", argv[first_set]);
			return 125;
		}
		*eq = '\0';
		if (secbpf_object__set_var(obj, argv[first_set], eq + 1)) {
			fprintf(stderr, "self_sandbox: %s\n", secbpf_object__last_error(obj));
			return 125;
		}
	}

	/* seccomp needs no_new_privs (or CAP_SYS_ADMIN); the library leaves
	 * that decision to us. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		perror("self_sandbox: no_new_privs");
		return 125;
	}
	rc = secbpf_program__attach(prog, &opts);
	if (rc) {
		fprintf(stderr, "self_sandbox: attach: %s\n", secbpf_object__last_error(obj));
		return 125;
	}
	/* From here on we are filtered: CMD inherits the filter. */
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "self_sandbox: %s: %s\n", argv[i + 1], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
