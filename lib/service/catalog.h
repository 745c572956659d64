/* SPDX-License-Identifier: MIT */
/*
 * The programs secbpfd serves: each approved object loaded, verified once
 * at its granted tier as the policy caps it (as `secbpf verify` caps it),
 * compiled once, with one runtime (its maps) that every attachment of the
 * program shares, and the filter image (protocol.h) handles give out.
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

struct svc_program {
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
};

struct svc_catalog {
	struct svc_program *progs; /* one per config entry, in its order */
	size_t n;
	unsigned int workers; /* supervisor workers = PERCPU slots of each runtime */
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

/* The program called name (served or not), or NULL. */
struct svc_program *svc_catalog_find(struct svc_catalog *cat, const char *name);

#endif
