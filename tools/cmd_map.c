// SPDX-License-Identifier: MIT
/*
 * `secbpf map dump PID MAP [-j]`: a live map of the eBPF program attached
 * to PID, read from its supervisor's control socket and printed as
 * bpftool prints a map (docs/introspection.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ctl_client.h"

static void map_usage(FILE *f)
{
	fprintf(f, "usage: secbpf map dump PID [PROG:]MAP [-j]\n"
		   "\n"
		   "Print the entries of map MAP of the eBPF program attached to process PID,\n"
		   "live, as bpftool does: 'key: .. value: ..' lines of hex bytes (one value\n"
		   "per worker slot for a per-CPU map). MAP is the map's variable name (or a\n"
		   "global data section: .data, .bss, .rodata); PROG: picks the program when\n"
		   "several of the stack have a map of that name. Only the processes' owner\n"
		   "and CAP_SYS_ADMIN may read it (docs/introspection.md).\n"
		   "\n"
		   "  -j, --json  a JSON array of {\"key\": [...], \"value\": [...]} (bytes as\n"
		   "              \"0x..\" strings), with \"formatted\" numbers where the\n"
		   "              map's BTF says the key or value is an integer\n"
		   "  -h, --help  show this help\n"
		   "\n"
		   "Exit status: 0 when printed; 1 when the map cannot be read (no such\n"
		   "process, not supervised, no such map, not permitted); 2 on a usage error.\n");
}

/* The bytes of hex string s (2 digits each) into out; returns the count. */
static size_t unhex(const char *s, uint8_t *out, size_t max)
{
	size_t n = 0;
	unsigned int b;

	while (s[0] && s[1] && n < max && sscanf(s, "%2x", &b) == 1) {
		out[n++] = (uint8_t)b;
		s += 2;
	}
	return n;
}

static int get_int(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_int(v) : 0;
}

/* An integer of size bytes from p (host order), as JSON. */
static struct json_object *int_json(const uint8_t *p, struct json_object *type)
{
	struct json_object *v;
	uint64_t u = 0;
	int size = get_int(type, "size");
	bool is_signed =
		json_object_object_get_ex(type, "signed", &v) && json_object_get_boolean(v);

	memcpy(&u, p, (size_t)size);
	if (is_signed && size < 8 && (u >> (size * 8 - 1) & 1))
		u |= ~0ull << (size * 8);
	return is_signed ? json_object_new_int64((int64_t)u) : json_object_new_uint64(u);
}

static struct json_object *bytes_json(const uint8_t *p, size_t n)
{
	struct json_object *a = json_object_new_array();
	char b[8];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(b, sizeof(b), "0x%02x", p[i]);
		json_object_array_add(a, json_object_new_string(b));
	}
	return a;
}

static void print_bytes(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf("%s%02x", i ? " " : "", p[i]);
}

/* One entry, as bpftool prints it (or adds it to the JSON array). */
static void print_entry(struct json_object *doc, struct json_object *entry, struct json_object *out)
{
	struct json_object *k, *v, *ktype = NULL, *vtype = NULL, *formatted = NULL, *vals = NULL;
	size_t ksz = (size_t)get_int(doc, "key_size"), vsz = (size_t)get_int(doc, "value_size");
	size_t stride = (vsz + 7) & ~(size_t)7;
	int ncpus = get_int(doc, "ncpus"), i;
	size_t klen, vlen, need = ncpus ? (size_t)ncpus * stride : vsz;
	uint8_t *key = NULL, *value = NULL;

	if (!json_object_object_get_ex(entry, "key", &k) ||
	    !json_object_object_get_ex(entry, "value", &v))
		return;
	key = calloc(1, ksz + 1);
	value = calloc(1, need + 1);
	if (!key || !value)
		goto out;
	klen = unhex(json_object_get_string(k), key, ksz);
	vlen = unhex(json_object_get_string(v), value, need);
	if (klen != ksz || vlen != need)
		goto out;
	json_object_object_get_ex(doc, "key_type", &ktype);
	json_object_object_get_ex(doc, "value_type", &vtype);
	if (out) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "key", bytes_json(key, ksz));
		if (ktype || vtype)
			formatted = json_object_new_object();
		if (formatted && ktype)
			json_object_object_add(formatted, "key", int_json(key, ktype));
		if (!ncpus) {
			json_object_object_add(o, "value", bytes_json(value, vsz));
			if (formatted && vtype)
				json_object_object_add(formatted, "value", int_json(value, vtype));
		} else {
			struct json_object *fvals = vtype ? json_object_new_array() : NULL;

			vals = json_object_new_array();
			for (i = 0; i < ncpus; i++) {
				struct json_object *c = json_object_new_object();

				json_object_object_add(c, "cpu", json_object_new_int(i));
				json_object_object_add(c, "value",
						       bytes_json(value + (size_t)i * stride, vsz));
				json_object_array_add(vals, c);
				if (fvals) {
					c = json_object_new_object();
					json_object_object_add(c, "cpu", json_object_new_int(i));
					json_object_object_add(
						c, "value",
						int_json(value + (size_t)i * stride, vtype));
					json_object_array_add(fvals, c);
				}
			}
			json_object_object_add(o, "values", vals);
			if (formatted && fvals)
				json_object_object_add(formatted, "values", fvals);
		}
		if (formatted)
			json_object_object_add(o, "formatted", formatted);
		json_object_array_add(out, o);
		goto out;
	}
	if (!ncpus) {
		printf("key: ");
		print_bytes(key, ksz);
		printf("  value: ");
		print_bytes(value, vsz);
		printf("\n");
		goto out;
	}
	printf("key:\n");
	print_bytes(key, ksz);
	printf("\n");
	for (i = 0; i < ncpus; i++) {
		printf("value (CPU %02d): ", i);
		print_bytes(value + (size_t)i * stride, vsz);
		printf("\n");
	}
out:
	free(key);
	free(value);
}

static int map_dump(pid_t pid, const char *spec, bool json)
{
	struct secbpf_err err = { { 0 } };
	struct ctl_supervisor *sup, *s;
	struct json_object *doc, *entries, *out = NULL;
	char payload[512], what[320];
	const char *colon = strrchr(spec, ':');
	size_t n, len, plen, i;
	char *text;
	int rc;

	/* "PROG\0MAP": PROG empty when spec has no "PROG:". */
	if (colon) {
		plen = (size_t)snprintf(payload, sizeof(payload), "%.*s%c%s", (int)(colon - spec),
					spec, 0, colon + 1);
	} else {
		plen = (size_t)snprintf(payload, sizeof(payload), "%c%s", 0, spec);
	}
	if (plen >= sizeof(payload) || (colon && !colon[1])) {
		cli_error("map dump", "%s: not a map name", spec);
		return EXIT_USAGE;
	}
	s = ctl_find_for_pid("map dump", pid, &sup, &n);
	if (!s) {
		ctl_free(sup, n);
		return EXIT_REJECTED;
	}
	snprintf(what, sizeof(what), "map dump: pid %d: %s", (int)pid, spec);
	rc = ctl_request(s, SVC_REQ_CTL_MAP_DUMP, payload, plen, &text, &len, &err);
	ctl_free(sup, n);
	if (rc) {
		cli_error(what, "%s", err.msg);
		return EXIT_REJECTED;
	}
	doc = json_tokener_parse(text);
	free(text);
	if (!doc || !json_object_object_get_ex(doc, "entries", &entries) ||
	    !json_object_is_type(entries, json_type_array)) {
		cli_error(what, "the supervisor's answer is not a map dump");
		json_object_put(doc);
		return EXIT_REJECTED;
	}
	if (json)
		out = json_object_new_array();
	n = json_object_array_length(entries);
	for (i = 0; i < n; i++)
		print_entry(doc, json_object_array_get_idx(entries, i), out);
	if (json)
		printf("%s\n", json_object_to_json_string_ext(out, JSON_C_TO_STRING_SPACED));
	else
		printf("Found %zu element%s\n", n, n == 1 ? "" : "s");
	json_object_put(out);
	json_object_put(doc);
	return 0;
}

int cmd_map(int argc, char **argv)
{
	static const struct option longopts[] = { { "json", no_argument, NULL, 'j' }, { 0 } };
	struct cli_options o;
	bool json = false;
	char *end;
	long pid;
	int c;

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		map_usage(stdout);
		return 0;
	}
	if (argc < 2 || strcmp(argv[1], "dump")) {
		cli_error("map", "expected 'map dump PID MAP' (see secbpf map --help)");
		return EXIT_USAGE;
	}
	/* getopt permutes: -j may follow the operands, as with bpftool. */
	cli_options_init(&o, argc - 1, argv + 1, "j", longopts, map_usage, NULL);
	while ((c = cli_options_next(&o)) > 0)
		if (c == 'j')
			json = true;
	if (c < 0)
		return c == CLI_OPTIONS_HELP ? 0 : EXIT_USAGE;
	if (optind + 2 != argc - 1) {
		cli_error("map dump", "expected PID and MAP (see secbpf map --help)");
		return EXIT_USAGE;
	}
	errno = 0;
	pid = strtol(argv[optind + 1], &end, 10);
	if (errno || end == argv[optind + 1] || *end || pid <= 0 || pid > 0x3fffffff) {
		cli_error(argv[optind + 1], "not a process id");
		return EXIT_USAGE;
	}
	return map_dump((pid_t)pid, argv[optind + 2], json);
}
