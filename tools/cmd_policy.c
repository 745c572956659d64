// SPDX-License-Identifier: MIT
/*
 * `secbpf policy [--config FILE] [--daemon SOCK] [-j]`: the tier the calling
 * user would get, and why (docs/policy.md): decided here from what the
 * kernel says of this process, or asked of secbpfd, which decides from
 * what the kernel says of its peer. Both answers are policy_describe's lines.
 */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Internal headers: install/policy.h (the decision and its explanation)
 * and service/protocol.h (SVC_REQ_POLICY to secbpfd); the public API
 * decides the tier only inside secbpf_attach(). */
#include "cli.h"
#include "install/policy.h"
#include "service/protocol.h"

/* policy_describe's lines are short; a few KiB is ample for both. */
#define POLICY_TEXT_MAX 4096

static void policy_usage(FILE *f)
{
	fprintf(f, "usage: secbpf policy [--config FILE | --daemon SOCK] [-j]\n"
		   "\n"
		   "Print the tier this user would get for a filter it loads, and why: the\n"
		   "first line is \"tier: restricted|unprivileged|privileged\", the next ones\n"
		   "name the capability, policy line (FILE:LINE) or Yama setting that decided it.\n"
		   "\n"
		   "  --config FILE  the policy file to read (default " POLICY_DEFAULT_PATH ");\n"
		   "                 one that is not root's only, or read from a user namespace,\n"
		   "                 can only lower the tier\n"
		   "  --daemon SOCK  ask secbpfd on SOCK (it decides from what the kernel says\n"
		   "                 of this process, with its own policy file)\n"
		   "  -j, --json     one JSON document (an object of the same fields)\n"
		   "  -h, --help     show this help\n"
		   "\n"
		   "Exit status: 0, or 2 when the policy cannot be read (a malformed file is\n"
		   "named with its line) or the service cannot be asked.\n");
}

/* The decision for this process, described. Returns 0 or EXIT_USAGE. */
static int policy_local(const char *config, char *text, size_t size)
{
	struct secbpf_err err = { { 0 } };
	struct policy_decision d;
	struct policy_inputs in;

	if (policy_read_system(&in, config, &err) ||
	    policy_decide(&in, SECBPF_TIER_PRIVILEGED, &d, &err)) {
		cli_error("policy", "%s", err.msg);
		return EXIT_USAGE;
	}
	if (policy_describe(&in, &d, text, size) < 0) {
		cli_error("policy", "the explanation does not fit in %zu bytes", size);
		return EXIT_USAGE;
	}
	return 0;
}

/* The service's decision for this process (SVC_REQ_POLICY). Returns 0 or
 * EXIT_USAGE. */
static int policy_daemon(const char *sock_path, char *text, size_t size)
{
	struct secbpf_err err = { { 0 } };
	struct svc_msg *reply;
	int sock, status = EXIT_USAGE;

	reply = calloc(1, sizeof(*reply));
	if (!reply) {
		cli_error("policy", "out of memory");
		return EXIT_USAGE;
	}
	sock = svc_connect(sock_path, &err);
	if (sock < 0) {
		cli_error("policy", "%s (is secbpfd running?)", err.msg);
		goto out;
	}
	if (svc_call(sock, SVC_REQ_POLICY, NULL, 0, -1, reply, &err)) {
		cli_error("policy", "%s: %s", sock_path, err.msg);
		goto out_sock;
	}
	if (reply->fd >= 0)
		close(reply->fd);
	if (reply->hdr.type != SVC_REP_TEXT || reply->hdr.len >= size ||
	    strncmp(reply->payload, "tier: ", 6) != 0) {
		cli_error("policy", "%s: the answer is not a policy description (reply type %u)",
			  sock_path, reply->hdr.type);
		goto out_sock;
	}
	memcpy(text, reply->payload, reply->hdr.len);
	text[reply->hdr.len] = '\0';
	status = 0;
out_sock:
	close(sock);
out:
	free(reply);
	return status;
}

/* The "key: value" lines as one JSON object (keys with '_' for '-'). */
static int policy_print_json(char *text)
{
	struct json_object *doc = json_object_new_object();
	char *line, *save = NULL, *colon, *p;

	if (!doc) {
		cli_error("policy", "out of memory");
		return EXIT_USAGE;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		colon = strstr(line, ": ");
		if (!colon)
			continue;
		*colon = '\0';
		for (p = line; *p; p++)
			if (*p == '-')
				*p = '_';
		json_object_object_add(doc, line, json_object_new_string(colon + 2));
	}
	puts(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY));
	json_object_put(doc);
	return 0;
}

int cmd_policy(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "daemon", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ 0 },
	};
	const char *config = NULL, *daemon = NULL;
	char text[POLICY_TEXT_MAX];
	struct cli_options o;
	bool json = false;
	int c, status;

	cli_options_init(&o, argc, argv, "j", longopts, policy_usage, NULL);
	while ((c = cli_options_next(&o)) > 0) {
		switch (c) {
		case 'c':
			config = optarg;
			break;
		case 'd':
			daemon = optarg;
			break;
		case 'j':
			json = true;
			break;
		}
	}
	if (c < 0)
		return c == CLI_OPTIONS_HELP ? 0 : EXIT_USAGE;
	if (optind < argc) {
		cli_error("policy", "unexpected argument '%s' (see secbpf policy --help)",
			  argv[optind]);
		return EXIT_USAGE;
	}
	if (config && daemon) {
		cli_error("policy", "--config and --daemon: the service reads its own policy file");
		return EXIT_USAGE;
	}
	/* The library reads an absent file as the defaults (no policy
	 * written yet); a file named on purpose must exist, so that a typo
	 * never reads as "the defaults". */
	if (config && access(config, F_OK)) {
		cli_error("policy", "--config %s: %s", config, strerror(errno));
		return EXIT_USAGE;
	}
	status = daemon ? policy_daemon(daemon, text, sizeof(text))
			: policy_local(config, text, sizeof(text));
	if (status)
		return status;
	if (json)
		return policy_print_json(text);
	fputs(text, stdout);
	return 0;
}
