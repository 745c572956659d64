// SPDX-License-Identifier: MIT
/*
 * Parsing secbpfd.conf (see config.h): one "allow" line per program and
 * principal and at most one "maps" line per program, merged per program,
 * with every mistake reported as FILE:LINE so that an administrator can
 * fix it.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/number.h"
#include "service/config.h"

#define MAX_PROGRAMS 1024
#define MAX_GRANTS 4096

bool svc_config_valid_name(const char *name)
{
	size_t n = strlen(name), i;

	if (n == 0 || n > SVC_NAME_MAX || name[0] == '.')
		return false;
	for (i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.'))
			return false;
	}
	return true;
}

/* A numeric id (decimal), below the (uid_t)-1 that means "no id". */
static bool parse_id(const char *s, uint32_t *id)
{
	struct number n;

	if (s[0] < '0' || s[0] > '9' || number_parse(s, 0, &n) || n.hex || n.mag >= UINT32_MAX)
		return false;
	*id = (uint32_t)n.mag;
	return true;
}

/* USER: a name in the user database, or a uid. */
static int resolve_user(const char *s, uint32_t *id)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (parse_id(s, id))
		return 0;
	if (getpwnam_r(s, &pw, buf, sizeof(buf), &res) || !res)
		return -ENOENT;
	*id = res->pw_uid;
	return 0;
}

/* GROUP: a name in the group database, or a gid. */
static int resolve_group(const char *s, uint32_t *id)
{
	struct group gr, *res = NULL;
	char buf[16384];

	if (parse_id(s, id))
		return 0;
	if (getgrnam_r(s, &gr, buf, sizeof(buf), &res) || !res)
		return -ENOENT;
	*id = res->gr_gid;
	return 0;
}

static struct svc_program_conf *find_program(struct svc_config *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nprogs; i++)
		if (!strcmp(c->progs[i].name, name))
			return &c->progs[i];
	return NULL;
}

/* The program named name, added (with its object's path) if new. */
static struct svc_program_conf *program_for(struct svc_config *c, const char *dir, const char *name,
					    int line, struct secbpf_err *err)
{
	struct svc_program_conf *p = find_program(c, name), *grown;
	struct stat st;
	char *path;

	if (p)
		return p;
	if (c->nprogs == MAX_PROGRAMS) {
		err_set(err, E2BIG, "%s:%d: more than %d programs", c->path, line, MAX_PROGRAMS);
		return NULL;
	}
	if (asprintf(&path, "%s/" SVC_PROGRAMS_DIR "/%s.o", dir, name) < 0) {
		err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	if (stat(path, &st)) {
		err_set(err, errno, "%s:%d: %s: %s", c->path, line, path, strerror(errno));
		free(path);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		err_set(err, EINVAL, "%s:%d: %s: not a regular file", c->path, line, path);
		free(path);
		return NULL;
	}
	grown = realloc(c->progs, (c->nprogs + 1) * sizeof(*grown));
	if (!grown) {
		free(path);
		err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	c->progs = grown;
	p = &c->progs[c->nprogs++];
	memset(p, 0, sizeof(*p));
	memcpy(p->name, name, strlen(name) + 1); /* svc_config_valid_name: it fits */
	p->tier = SECBPF_TIER_UNPRIVILEGED;
	p->object_path = path;
	return p;
}

/* The words of one line (at most max), split on blanks, '#' ending it. */
static size_t split_words(char *line, char **words, size_t max, bool *too_many)
{
	size_t n = 0;
	char *s = line;

	*too_many = false;
	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
			s++;
		if (!*s || *s == '#')
			return n;
		if (n == max) {
			*too_many = true;
			return n;
		}
		words[n++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n' && *s != '#')
			s++;
		if (*s == '#') {
			*s = '\0';
			return n;
		}
		if (*s)
			*s++ = '\0';
	}
}

/* "allow NAME user=USER|group=GROUP [tier=T]" at line. */
static int parse_allow(struct svc_config *c, const char *dir, char **w, size_t n, int line,
		       struct secbpf_err *err)
{
	struct svc_program_conf *p;
	struct svc_grant g = { .line = line }, *grown;
	enum secbpf_tier tier = SECBPF_TIER_UNPRIVILEGED;
	bool has_tier = false;
	size_t i;

	if (n < 3)
		return err_set(err, EINVAL,
			       "%s:%d: allow: expected 'allow NAME user=USER|group=GROUP "
			       "[tier=T]'",
			       c->path, line);
	if (!svc_config_valid_name(w[1]))
		return err_set(err, EINVAL,
			       "%s:%d: allow: '%s' is not a program name (letters, digits, "
			       "'_', '-', '.', at most %d, not starting with '.')",
			       c->path, line, w[1], SVC_NAME_MAX);
	if (!strncmp(w[2], "user=", 5)) {
		if (resolve_user(w[2] + 5, &g.id))
			return err_set(err, ENOENT, "%s:%d: allow: no user '%s'", c->path, line,
				       w[2] + 5);
	} else if (!strncmp(w[2], "group=", 6)) {
		g.is_group = true;
		if (resolve_group(w[2] + 6, &g.id))
			return err_set(err, ENOENT, "%s:%d: allow: no group '%s'", c->path, line,
				       w[2] + 6);
	} else {
		return err_set(err, EINVAL, "%s:%d: allow: '%s': expected user=USER or group=GROUP",
			       c->path, line, w[2]);
	}
	for (i = 3; i < n; i++) {
		if (strncmp(w[i], "tier=", 5) || has_tier)
			return err_set(err, EINVAL, "%s:%d: allow: unexpected '%s'", c->path, line,
				       w[i]);
		if (secbpf_tier_parse(w[i] + 5, &tier))
			return err_set(err, EINVAL,
				       "%s:%d: allow: tier '%s' is not restricted, unprivileged "
				       "or privileged",
				       c->path, line, w[i] + 5);
		has_tier = true;
	}
	p = program_for(c, dir, w[1], line, err);
	if (!p)
		return -EINVAL;
	if (p->ngrants && p->tier != tier)
		return err_set(err, EINVAL,
			       "%s:%d: allow: %s: tier %s here, but %s at line %d: one program "
			       "has one tier",
			       c->path, line, w[1], secbpf_tier_name(tier),
			       secbpf_tier_name(p->tier),
			       p->tier_line ? p->tier_line : p->grants[0].line);
	if (p->ngrants == MAX_GRANTS)
		return err_set(err, E2BIG, "%s:%d: allow: more than %d lines for %s", c->path, line,
			       MAX_GRANTS, w[1]);
	grown = realloc(p->grants, (p->ngrants + 1) * sizeof(*grown));
	if (!grown)
		return err_set(err, ENOMEM, "out of memory");
	p->grants = grown;
	p->grants[p->ngrants++] = g;
	p->tier = tier;
	if (has_tier && !p->tier_line)
		p->tier_line = line;
	return 0;
}

/* "maps NAME per-user|per-program" at line: whose maps NAME's attachments
 * use. A second line for NAME must say the same. */
static int parse_maps(struct svc_config *c, const char *dir, char **w, size_t n, int line,
		      struct secbpf_err *err)
{
	enum svc_maps_scope scope;
	struct svc_program_conf *p;

	if (n != 3)
		return err_set(err, EINVAL,
			       "%s:%d: maps: expected 'maps NAME per-user|per-program'", c->path,
			       line);
	if (!svc_config_valid_name(w[1]))
		return err_set(err, EINVAL,
			       "%s:%d: maps: '%s' is not a program name (letters, digits, "
			       "'_', '-', '.', at most %d, not starting with '.')",
			       c->path, line, w[1], SVC_NAME_MAX);
	if (!strcmp(w[2], "per-user"))
		scope = SVC_MAPS_PER_USER;
	else if (!strcmp(w[2], "per-program"))
		scope = SVC_MAPS_PER_PROGRAM;
	else
		return err_set(err, EINVAL, "%s:%d: maps: '%s': expected per-user or per-program",
			       c->path, line, w[2]);
	p = program_for(c, dir, w[1], line, err);
	if (!p)
		return -EINVAL;
	if (p->maps_line && p->maps != scope)
		return err_set(err, EINVAL,
			       "%s:%d: maps: %s: %s here, but %s at line %d: one program has one "
			       "kind of maps",
			       c->path, line, w[1], w[2],
			       p->maps == SVC_MAPS_PER_USER ? "per-user" : "per-program",
			       p->maps_line);
	p->maps = scope;
	p->maps_line = line;
	return 0;
}

/* Every program named has an allow line: a maps line alone approves
 * nothing, and is most likely a misspelt name. */
static int check_programs(const struct svc_config *c, struct secbpf_err *err)
{
	size_t i;

	for (i = 0; i < c->nprogs; i++)
		if (!c->progs[i].ngrants)
			return err_set(err, EINVAL,
				       "%s:%d: maps: %s: no allow line approves this program",
				       c->path, c->progs[i].maps_line, c->progs[i].name);
	return 0;
}

int svc_config_load(struct svc_config *c, const char *dir, struct secbpf_err *err)
{
	char *line = NULL, *words[8];
	size_t cap = 0, n;
	bool too_many;
	int lineno = 0, rc = 0;
	FILE *f;

	memset(c, 0, sizeof(*c));
	if (asprintf(&c->path, "%s/" SVC_CONFIG_FILE, dir) < 0) {
		c->path = NULL;
		return err_set(err, ENOMEM, "out of memory");
	}
	f = fopen(c->path, "re");
	if (!f)
		return err_set(err, errno, "%s: %s", c->path, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		lineno++;
		if (strlen(line) > 1024) {
			rc = err_set(err, EINVAL, "%s:%d: line too long", c->path, lineno);
			break;
		}
		n = split_words(line, words, 8, &too_many);
		if (n == 0)
			continue;
		if (too_many) {
			rc = err_set(err, EINVAL, "%s:%d: too many words", c->path, lineno);
			break;
		}
		if (!strcmp(words[0], "allow"))
			rc = parse_allow(c, dir, words, n, lineno, err);
		else if (!strcmp(words[0], "maps"))
			rc = parse_maps(c, dir, words, n, lineno, err);
		else
			rc = err_set(err, EINVAL,
				     "%s:%d: unknown line '%s' (expected 'allow' or 'maps')",
				     c->path, lineno, words[0]);
		if (rc)
			break;
	}
	if (!rc && ferror(f))
		rc = err_set(err, EIO, "%s: read error", c->path);
	if (!rc)
		rc = check_programs(c, err);
	free(line);
	fclose(f);
	return rc;
}

void svc_config_free(struct svc_config *c)
{
	size_t i;

	for (i = 0; i < c->nprogs; i++) {
		free(c->progs[i].grants);
		free(c->progs[i].object_path);
	}
	free(c->progs);
	free(c->path);
	memset(c, 0, sizeof(*c));
}

bool svc_config_admits(const struct svc_program_conf *p, uid_t uid, gid_t gid, const gid_t *groups,
		       size_t ngroups)
{
	size_t i, k;

	for (i = 0; i < p->ngrants; i++) {
		const struct svc_grant *g = &p->grants[i];

		if (!g->is_group) {
			if (g->id == uid)
				return true;
			continue;
		}
		if (g->id == gid)
			return true;
		for (k = 0; k < ngroups; k++)
			if (g->id == groups[k])
				return true;
	}
	return false;
}
