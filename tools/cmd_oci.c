// SPDX-License-Identifier: MIT
/*
 * `secbpf oci annotations|patch` (docs/containers.md): the annotations
 * that make crun (and podman with crun) run a container under a secbpf
 * filter, with secbpfd supervising its stateful paths: printed as
 * KEY=VALUE lines, or written into a bundle's config.json. The receiver
 * is only ever a socket no other user can hold (service/socket_path.h).
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "oci_filter.h"
#include "service/agent_oci.h"
#include "service/socket_path.h"

#define ANN_BPF_DATA "run.oci.seccomp_bpf_data"
#define ANN_RECEIVER "run.oci.seccomp.receiver"

static void oci_usage(FILE *f)
{
	fprintf(f,
		"usage: secbpf oci annotations (-f OBJ[:PROG] | --prog NAME) [--daemon SOCK]\n"
		"       secbpf oci patch CONFIG.json (-f OBJ[:PROG] | --prog NAME) [--daemon "
		"SOCK]\n"
		"\n"
		"The annotations that run a container under the filter with crun (and podman\n"
		"with crun): " ANN_BPF_DATA " (the compiled filter, base64),\n"
		"" ANN_RECEIVER " (secbpfd's agent socket, for a program with\n"
		"stateful paths) and " SVC_OCI_PROGRAM_ANNOTATION " (the program secbpfd runs).\n"
		"annotations prints them as KEY=VALUE lines; patch adds them to a bundle's\n"
		"config.json.\n"
		"\n" OCI_SOURCE_HELP "  -h, --help       show this help\n");
}

/* The base64 (RFC 4648, padded) of data[0..len-1], malloc'ed. */
static char *base64(const void *data, size_t len)
{
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *in = data;
	char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i + 2 < len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];

		*o++ = digits[v >> 18];
		*o++ = digits[(v >> 12) & 63];
		*o++ = digits[(v >> 6) & 63];
		*o++ = digits[v & 63];
	}
	if (i < len) {
		uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < len ? (uint32_t)in[i + 1] << 8 : 0);

		*o++ = digits[v >> 18];
		*o++ = digits[(v >> 12) & 63];
		*o++ = i + 1 < len ? digits[(v >> 6) & 63] : '=';
		*o++ = '=';
	}
	*o = '\0';
	return out;
}

/* One annotation: key and its value (malloc'ed). */
struct annotation {
	const char *key;
	char *value;
};

/* The annotations for f: bpf data, receiver (stateful only), program. */
static int annotations_of(const struct oci_filter *f, struct annotation a[3], size_t *n)
{
	*n = 0;
	a[*n].key = ANN_BPF_DATA;
	a[(*n)++].value = base64(f->insns, f->len * sizeof(*f->insns));
	if (f->stateful) {
		a[*n].key = ANN_RECEIVER;
		a[(*n)++].value = strdup(f->agent);
	}
	a[*n].key = SVC_OCI_PROGRAM_ANNOTATION;
	a[(*n)++].value = strdup(f->name);
	for (size_t i = 0; i < *n; i++)
		if (!a[i].value)
			return -ENOMEM;
	return 0;
}

static void annotations_free(struct annotation *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(a[i].value);
}

/* Write root to path through a temporary file and a rename, so that a
 * runtime never reads half a config.json. */
static int write_config(const char *path, struct json_object *root)
{
	const char *text = json_object_to_json_string_ext(
		root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t plen = strlen(path);
	char *tmp = malloc(plen + 16);
	FILE *f;

	if (!tmp || !text) {
		free(tmp);
		cli_error(path, "out of memory");
		return -1;
	}
	snprintf(tmp, plen + 16, "%s.secbpf-tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		cli_error(tmp, "%m");
		free(tmp);
		return -1;
	}
	fputs(text, f);
	fputc('\n', f);
	if (ferror(f) | fclose(f) || rename(tmp, path)) {
		cli_error(path, "cannot write it: %m");
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

/* Add the annotations to config.json at path. A stateless filter drops a
 * receiver left by an earlier patch: crun would send it a listener that
 * nothing asks. */
static int patch_config(const char *path, const struct annotation *a, size_t n)
{
	struct json_object *root = json_object_from_file(path), *ann;
	int rc = -1;

	if (!root) {
		cli_error(path, "cannot read it as JSON: %s (is it a bundle's config.json?)",
			  json_util_get_last_err() ? json_util_get_last_err() : "unknown error");
		return -1;
	}
	if (!json_object_is_type(root, json_type_object)) {
		cli_error(path, "not an OCI runtime config: the top level is not an object");
		goto out;
	}
	if (!json_object_object_get_ex(root, "annotations", &ann)) {
		ann = json_object_new_object();
		if (!ann || json_object_object_add(root, "annotations", ann)) {
			cli_error(path, "out of memory");
			goto out;
		}
	} else if (!json_object_is_type(ann, json_type_object)) {
		cli_error(path, "annotations: not an object of strings");
		goto out;
	}
	json_object_object_del(ann, ANN_RECEIVER);
	for (size_t i = 0; i < n; i++)
		if (json_object_object_add(ann, a[i].key, json_object_new_string(a[i].value))) {
			cli_error(path, "out of memory");
			goto out;
		}
	rc = write_config(path, root);
out:
	json_object_put(root);
	return rc;
}

int cmd_oci(int argc, char **argv)
{
	static const struct option longopts[] = { OCI_SOURCE_LONGOPTS, { 0 } };
	struct oci_source src = { .sets = { .max = 64 } };
	struct annotation a[3] = { { 0 } };
	const char *sub, *config = NULL;
	struct secbpf_err err = { { 0 } };
	struct oci_filter f = { 0 };
	struct cli_options o;
	size_t n = 0;
	int c, status = EXIT_USAGE;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		oci_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	sub = argv[1];
	if (strcmp(sub, "annotations") && strcmp(sub, "patch")) {
		cli_error("oci", "'%s' is not a subcommand (annotations, patch)", sub);
		return EXIT_USAGE;
	}
	cli_options_init(&o, argc - 1, argv + 1, "f:", longopts, oci_usage, &src.sets);
	while ((c = cli_options_next(&o)) > 0)
		oci_source_option(&src, c, optarg);
	if (c < 0) {
		status = c == CLI_OPTIONS_HELP ? 0 : EXIT_USAGE;
		goto out;
	}
	if (!strcmp(sub, "patch")) {
		if (optind >= argc - 1) {
			cli_error("oci patch",
				  "which config.json? (secbpf oci patch CONFIG.json ...)");
			goto out;
		}
		config = argv[1 + optind++];
	}
	if (optind < argc - 1) {
		cli_error("oci", "unexpected argument '%s' (see --help)", argv[1 + optind]);
		goto out;
	}
	if (oci_filter_get(!strcmp(sub, "patch") ? "oci patch" : "oci annotations", &src, &f))
		goto out;
	/* crun, as root, sends the container's listener to the receiver:
	 * never name a socket another user could hold. */
	if (f.stateful && svc_socket_path_trusted(f.agent, getuid(), &err)) {
		cli_error("oci", "%s: not printed as %s (set --listener PATH)", err.msg,
			  ANN_RECEIVER);
		goto out;
	}
	if (annotations_of(&f, a, &n)) {
		cli_error("oci", "out of memory");
		goto out;
	}
	if (config) {
		status = patch_config(config, a, n) ? EXIT_USAGE : 0;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		printf("%s=%s\n", a[i].key, a[i].value);
	status = fflush(stdout) ? EXIT_USAGE : 0;
out:
	annotations_free(a, n);
	oci_filter_free(&f);
	cli_sets_free(&src.sets);
	return status;
}
