// SPDX-License-Identifier: MIT
/*
 * `secbpf export-oci (-f OBJ | --prog NAME)`: the OCI seccomp object for
 * a bundle's linux.seccomp (runc, and through it Docker and Kubernetes),
 * whose notified syscalls secbpfd answers (docs/containers.md), at an
 * agent socket no other user can hold (service/socket_path.h).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "oci_export.h"
#include "oci_filter.h"
#include "service/socket_path.h"

static void export_usage(FILE *f)
{
	fprintf(f, "usage: secbpf export-oci (-f OBJ[:PROG] | --prog NAME) [--daemon SOCK]\n"
		   "                         [--listener PATH] [-o FILE]\n"
		   "\n"
		   "Print an OCI seccomp profile (config.json's linux.seccomp) for runc: what the\n"
		   "filter decides from the syscall alone, or from comparisons and masked\n"
		   "equalities of the arguments, becomes rules by name, the rest SCMP_ACT_NOTIFY\n"
		   "with listenerPath at secbpfd's agent socket, where the whole program decides.\n"
		   "Arches the filter denies entirely are left out. runc answers ENOSYS above the\n"
		   "last syscall a profile names: the profile names the one where the filter's\n"
		   "own ENOSYS starts (docs/containers.md).\n"
		   "\n" OCI_SOURCE_HELP "  -o FILE          write the profile to FILE\n"
		   "  -h, --help       show this help\n");
}

int cmd_export_oci(int argc, char **argv)
{
	static const struct option longopts[] = { OCI_SOURCE_LONGOPTS,
						  { "output", required_argument, NULL, 'o' },
						  { 0 } };
	struct oci_source src = { .sets = { .max = 64 } };
	struct secbpf_err err = { { 0 } };
	struct json_object *profile = NULL;
	struct oci_filter f = { 0 };
	const char *output = NULL;
	struct cli_options o;
	int c, status = EXIT_USAGE;
	FILE *out = stdout;

	cli_options_init(&o, argc, argv, "f:o:", longopts, export_usage, &src.sets);
	while ((c = cli_options_next(&o)) > 0)
		if (c == 'o')
			output = optarg;
		else
			oci_source_option(&src, c, optarg);
	if (c < 0) {
		status = c == CLI_OPTIONS_HELP ? 0 : EXIT_USAGE;
		goto out;
	}
	if (optind < argc) {
		cli_error("export-oci", "unexpected argument '%s' (see --help)", argv[optind]);
		goto out;
	}
	if (oci_filter_get("export-oci", &src, &f))
		goto out;
	profile = oci_export(f.insns, f.len, f.agent, f.name, stderr, &err);
	if (!profile) {
		cli_error("export-oci",
			  "%s: no exact OCI profile: %s (use crun's annotations: "
			  "secbpf oci annotations)",
			  f.name, err.msg);
		status = EXIT_REJECTED;
		goto out;
	}
	/* runc, as root, sends the container's listener to listenerPath:
	 * never name a socket another user could hold. */
	if (json_object_object_get_ex(profile, "listenerPath", NULL) &&
	    svc_socket_path_trusted(f.agent, getuid(), &err)) {
		cli_error("export-oci", "%s: not printed as listenerPath (set --listener PATH)",
			  err.msg);
		goto out;
	}
	if (output && !(out = fopen(output, "w"))) {
		cli_error(output, "%m");
		goto out;
	}
	fprintf(out, "%s\n",
		json_object_to_json_string_ext(profile, JSON_C_TO_STRING_PRETTY |
								JSON_C_TO_STRING_NOSLASHESCAPE));
	if (ferror(out) | (output ? fclose(out) : fflush(out))) {
		cli_error(output ? output : "stdout", "write failed: %m");
		goto out;
	}
	status = 0;
out:
	json_object_put(profile);
	oci_filter_free(&f);
	cli_sets_free(&src.sets);
	return status;
}
