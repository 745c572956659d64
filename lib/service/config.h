/* SPDX-License-Identifier: MIT */
/*
 * secbpfd's configuration directory (docs/secbpfd.md): DIR/secbpfd.conf,
 * which approves programs for users and groups at a tier, and
 * DIR/programs.d/NAME.o, the approved objects. Parsing only: loading and
 * verifying the objects is catalog.c's.
 */
#ifndef SECBPF_SERVICE_CONFIG_H
#define SECBPF_SERVICE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"
#include "verifier/verifier.h"

#define SVC_CONFIG_FILE "secbpfd.conf"
#define SVC_PROGRAMS_DIR "programs.d"
/* A program's name: [A-Za-z0-9_.-], not starting with '.', this long at most. */
#define SVC_NAME_MAX 64

/* Who an allow line admits: one user or every member of one group. */
struct svc_grant {
	bool is_group;
	uint32_t id; /* uid or gid */
	int line;
};

/* Whose maps an attachment of a program uses (the "maps" line). */
enum svc_maps_scope {
	SVC_MAPS_PER_PROGRAM, /* one set, shared by every user of the program */
	SVC_MAPS_PER_USER,    /* one set per uid that attaches */
};

/* One approved program: every allow and maps line naming it, merged. */
struct svc_program_conf {
	char name[SVC_NAME_MAX + 1];
	enum secbpf_tier tier; /* granted (all its lines agree), before the policy caps it */
	int tier_line;	       /* the line that gave the tier; 0: the default */
	enum svc_maps_scope maps;
	int maps_line; /* the maps line; 0: none, the default (per program) */
	struct svc_grant *grants;
	size_t ngrants;
	char *object_path; /* DIR/programs.d/NAME.o */
};

struct svc_config {
	char *path; /* DIR/secbpfd.conf, for messages */
	struct svc_program_conf *progs;
	size_t nprogs;
};

/*
 * Parse DIR/secbpfd.conf. Lines (blank lines and '#' comments ignored):
 *   allow NAME user=USER|group=GROUP [tier=restricted|unprivileged|privileged]
 *   maps NAME per-user|per-program
 * USER and GROUP are names or numeric ids; the tier defaults to
 * unprivileged and every line of one NAME must give the same tier. A maps
 * line names a program that has an allow line; without one, its maps are
 * per program. Each NAME needs DIR/programs.d/NAME.o (only its existence
 * is checked here).
 * Returns 0, or a negative errno with err naming "FILE:LINE: what: why".
 */
int svc_config_load(struct svc_config *c, const char *dir, struct secbpf_err *err);
void svc_config_free(struct svc_config *c);

/* Whether a peer with uid, primary gid and supplementary groups[0..n-1]
 * is admitted by one of p's grants. */
bool svc_config_admits(const struct svc_program_conf *p, uid_t uid, gid_t gid, const gid_t *groups,
		       size_t ngroups);

/* Whether name is a valid program name (see SVC_NAME_MAX). */
bool svc_config_valid_name(const char *name);

#endif
