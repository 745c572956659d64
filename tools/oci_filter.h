/* SPDX-License-Identifier: MIT */
/*
 * The filter a container runs under, for `secbpf oci` and `secbpf
 * export-oci` (docs/containers.md): compiled here from -f OBJ, or the one
 * secbpfd serves for --prog NAME, with the program name and the agent
 * socket that secbpfd supervises its listeners on.
 */
#ifndef SECBPF_OCI_FILTER_H
#define SECBPF_OCI_FILTER_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/un.h>

#include "options.h"

/* The options the OCI commands share (oci_filter_option parses them). */
struct oci_source {
	const char *object;   /* -f OBJ[:PROG] */
	const char *prog;     /* --prog NAME */
	const char *name;     /* --name NAME: what secbpfd calls -f's program */
	const char *daemon;   /* --daemon SOCK */
	const char *listener; /* --listener PATH: the agent socket */
	struct cli_sets sets; /* --set, with -f */
};

#define OCI_SOURCE_LONGOPTS                                                                        \
	{ "file", required_argument, NULL, 'f' }, { "prog", required_argument, NULL, 'P' },        \
		{ "name", required_argument, NULL, 'N' },                                          \
		{ "daemon", required_argument, NULL, 'D' },                                        \
	{                                                                                          \
		"listener", required_argument, NULL, 'L'                                           \
	}

#define OCI_SOURCE_HELP                                                                            \
	"  -f OBJ[:PROG]    compile this object (secbpfd must serve the same one)\n"               \
	"  --prog NAME      the program secbpfd serves as NAME (its filter, from a handle)\n"      \
	"  --name NAME      with -f: the name secbpfd serves it under (default: OBJ's\n"           \
	"                   file name without .o and .bpf)\n"                                      \
	"  --daemon SOCK    secbpfd's client socket (default /run/secbpf/secbpfd.sock)\n"          \
	"  --listener PATH  its agent socket (default: agent.sock next to SOCK)\n"                 \
	"  --set VAR=VALUE  with -f: write a const volatile global before compiling\n"

/* Take option c of the OCI source options; false: not one of them. */
bool oci_source_option(struct oci_source *s, int c, const char *arg);

struct oci_filter {
	struct sock_filter *insns;
	size_t len;
	bool stateful; /* it returns USER_NOTIF: secbpfd must get its listener */
	char name[72]; /* the program's name at secbpfd */
	char agent[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

/* The filter of s (exactly one of -f, --prog). Returns 0, or -1 after
 * printing why (what names the command). */
int oci_filter_get(const char *what, const struct oci_source *s, struct oci_filter *f);
void oci_filter_free(struct oci_filter *f);

#endif
