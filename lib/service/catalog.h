/* SPDX-License-Identifier: MIT */
/*
 * The programs secbpfd serves: each approved object loaded, verified once
 * at its granted tier as the policy caps it (as `secbpf verify` caps it),
 * compiled once, with one runtime (its maps) that every attachment of the
 * program shares, or one per uid that attaches (maps per-user), and the
 * filter image (protocol.h) handles give out. A catalog is one reading of
 * the configuration: a reload (SIGHUP) makes a new one, and the old one
 * lives on, unchanged, while handles or attachments still use it.
 */
#ifndef SECBPF_SERVICE_CATALOG_H
#define SECBPF_SERVICE_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "install/stack_plan.h"
#include "object/object.h"
#include "service/config.h"
#include "verifier/verifier.h"

/* The runtime of a program with maps per user, for one uid: its own
 * compilation of the program, which gives the very same filters. */
struct svc_user_maps {
	uid_t uid;
	struct stack_plan plan;
};

/* At most this many uids get maps of their own from one program. */
#define SVC_MAX_USER_MAPS 256

struct svc_program {
	struct svc_catalog *cat;	     /* the catalog it belongs to */
	const struct svc_program_conf *conf; /* name, grants, granted tier */
	bool served;			     /* verified and compiled */
	enum secbpf_tier tier;		     /* verified at: granted, capped by the policy */
	char tier_reason[256];		     /* why lower than granted; "" if not */
	char message[SECBPF_ERR_MAX];	     /* why not served */
	struct object *obj;
	struct object_prog *prog;
	char label[SVC_NAME_MAX + 16];
	struct stack_plan plan; /* valid when served */
	bool stateful;
	void *image; /* struct svc_filter_image and its entries */
	size_t image_len;
	/* Maps per user: the uids that attached so far, each with its own
	 * runtime (plan.runtimes); plan above is then only the image's. */
	struct svc_user_maps *user_maps;
	size_t nuser_maps;
};

struct svc_catalog {
	struct svc_program *progs; /* one per config entry, in its order */
	size_t n;
	unsigned int workers; /* supervisor workers = PERCPU slots of each runtime */
	/* Handles and attachments using one of progs: a catalog that a
	 * reload replaced is freed once none is left (lib/service/reload.c). */
	size_t refs;
	struct svc_catalog *next_retired;
	/* Made by svc_catalog_open: the catalog owns config and itself. */
	struct svc_config *own_config;
};

/*
 * Load, verify and compile every program of config, with the tier policy
 * (policy_path: the policy file; NULL: the system's) gives this process
 * for each granted tier. A program that fails is kept with served false
 * and its message; one line per program goes to log ("NAME: served ..."
 * or "NAME: rejected: why"). Returns the number of programs not served,
 * or a negative errno (the policy cannot be read: nothing is served) with
 * err set. config must outlive the catalog.
 */
int svc_catalog_load(struct svc_catalog *cat, const struct svc_config *config,
		     const char *policy_path, FILE *log, struct secbpf_err *err);
void svc_catalog_free(struct svc_catalog *cat);

/*
 * Read DIR/secbpfd.conf and load its programs as svc_catalog_load does,
 * into a new catalog that owns its configuration (free it with
 * svc_catalog_destroy). *rejected: the programs not served. Returns NULL
 * with err set if the configuration or the policy cannot be read.
 */
struct svc_catalog *svc_catalog_open(const char *dir, const char *policy_path, FILE *log,
				     int *rejected, struct secbpf_err *err);
/* Free cat: all of it if svc_catalog_open made it, else its programs
 * (svc_catalog_free), leaving the struct and its config to their owner. */
void svc_catalog_destroy(struct svc_catalog *cat);

/* The program called name (served or not), or NULL. */
struct svc_program *svc_catalog_find(struct svc_catalog *cat, const char *name);

/*
 * The plan whose runtimes an attachment of served program p by uid runs,
 * into *plan: p's own (maps per program, or a stateless program), or
 * uid's (maps per user), compiled on its first attachment with filters
 * identical to p's. Returns 0, or -errno with err set if uid's cannot be
 * made (-EMFILE past SVC_MAX_USER_MAPS uids).
 */
int svc_program_plan(struct svc_program *p, uid_t uid, const struct stack_plan **plan,
		     struct secbpf_err *err);

#endif
