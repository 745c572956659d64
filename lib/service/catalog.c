// SPDX-License-Identifier: MIT
/*
 * Loading secbpfd's approved programs (see catalog.h): verify each at the
 * tier its allow lines grant, capped by the policy exactly as `secbpf
 * verify` caps it, compile it once and lay out the filter image that every
 * handle of the program gives; for maps per user, one more compilation
 * (and runtime) per uid that attaches.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "install/policy.h"
#include "service/catalog.h"
#include "service/protocol.h"
#include "supervisor/supervisor.h"

/* The filter image of protocol.h for plan: the filters in installation
 * order, the last one flagged as the listener's when the plan is stateful. */
static int build_image(struct svc_program *p, struct secbpf_err *err)
{
	const struct stack_plan *plan = &p->plan;
	struct svc_filter_image hdr = {
		.magic = SVC_FILTER_MAGIC,
		.nfilters = (uint32_t)plan->ninstall,
		.digest = stack_plan_digest(plan),
	};
	size_t len = sizeof(hdr), i;
	char *img, *at;

	if (plan->ninstall == 0 || plan->ninstall > SVC_FILTER_MAX)
		return err_set(err, E2BIG, "%s: %zu filters (1 to %d fit an image)", p->label,
			       plan->ninstall, SVC_FILTER_MAX);
	for (i = 0; i < plan->ninstall; i++)
		len += sizeof(struct svc_filter_entry) +
		       plan->install[i].len * sizeof(struct sock_filter);
	img = malloc(len);
	if (!img)
		return err_set(err, ENOMEM, "out of memory");
	memcpy(img, &hdr, sizeof(hdr));
	at = img + sizeof(hdr);
	for (i = 0; i < plan->ninstall; i++) {
		struct svc_filter_entry e = { .len = plan->install[i].len };
		size_t bytes = e.len * sizeof(struct sock_filter);

		if (plan->stateful && i == plan->ninstall - 1)
			e.flags = SVC_FILTER_LISTENER;
		memcpy(at, &e, sizeof(e));
		at += sizeof(e);
		memcpy(at, plan->install[i].filter, bytes);
		at += bytes;
	}
	p->image = img;
	p->image_len = len;
	return 0;
}

/* Why p cannot be served, into p->message; returns -1 for the caller. */
static int refuse(struct svc_program *p, const struct secbpf_err *err)
{
	snprintf(p->message, sizeof(p->message), "%s", err->msg);
	return -1;
}

/* Compile verified p into plan, with runtimes of its own. */
static int plan_program(const struct svc_program *p, struct stack_plan *plan,
			struct secbpf_err *err)
{
	struct stack_plan_opts po = { .sz = sizeof(po), .ncpus = p->cat->workers };
	struct stack_plan_target t = { .obj = p->obj, .prog = p->prog, .name = p->label };

	return stack_plan_build(plan, &t, 1, &po, err);
}

/*
 * Load, verify and compile one program. The service loads it, so the
 * policy decides from the service's own credentials; probe_read_user
 * never reads non-dumpable targets for a client (loader_cap_sys_ptrace
 * off): the clients, not the service, own the targets.
 */
static int load_program(struct svc_program *p, const struct policy_inputs *in)
{
	const struct svc_program_conf *c = p->conf;
	struct verifier_opts vo = { .sz = sizeof(vo) };
	struct secbpf_err err = { { 0 } };
	struct policy_decision d;

	snprintf(p->label, sizeof(p->label), "%s", c->name);
	if (policy_decide(in, c->tier, &d, &err))
		return refuse(p, &err);
	p->tier = d.tier;
	snprintf(p->tier_reason, sizeof(p->tier_reason), "%s", d.reason);
	p->obj = object_open_file(c->object_path, &err);
	if (!p->obj)
		return refuse(p, &err);
	p->prog = object_find_prog(p->obj, NULL, &err);
	if (!p->prog)
		return refuse(p, &err);
	vo.tier = d.tier;
	vo.tier_reason = d.reason[0] ? d.reason : NULL;
	if (verifier_check(p->obj, p->prog, &vo, NULL, &err))
		return refuse(p, &err);
	if (plan_program(p, &p->plan, &err))
		return refuse(p, &err);
	p->stateful = p->plan.stateful;
	if (build_image(p, &err)) {
		stack_plan_free(&p->plan);
		return refuse(p, &err);
	}
	p->served = true;
	return 0;
}

static void report(FILE *log, const struct svc_program *p)
{
	if (!log)
		return;
	if (!p->served) {
		fprintf(log, "secbpfd: %s: rejected: %s\n", p->conf->name, p->message);
		return;
	}
	fprintf(log, "secbpfd: %s: served at tier %s (%s%s)%s%s\n", p->conf->name,
		secbpf_tier_name(p->tier), p->stateful ? "stateful" : "stateless",
		p->stateful && p->conf->maps == SVC_MAPS_PER_USER ? ", maps per user" : "",
		p->tier_reason[0] ? ": " : "", p->tier_reason);
}

int svc_catalog_load(struct svc_catalog *cat, const struct svc_config *config,
		     const char *policy_path, FILE *log, struct secbpf_err *err)
{
	struct policy_inputs in;
	size_t i;
	int rejected = 0, rc;

	memset(cat, 0, sizeof(*cat));
	cat->workers = supervisor_default_workers();
	rc = policy_read_system(&in, policy_path, err);
	if (rc)
		return rc;
	cat->progs = calloc(config->nprogs ? config->nprogs : 1, sizeof(*cat->progs));
	if (!cat->progs)
		return err_set(err, ENOMEM, "out of memory");
	cat->n = config->nprogs;
	for (i = 0; i < cat->n; i++) {
		cat->progs[i].cat = cat;
		cat->progs[i].conf = &config->progs[i];
		if (load_program(&cat->progs[i], &in))
			rejected++;
		report(log, &cat->progs[i]);
	}
	return rejected;
}

void svc_catalog_free(struct svc_catalog *cat)
{
	size_t i;

	for (i = 0; cat->progs && i < cat->n; i++) {
		struct svc_program *p = &cat->progs[i];

		if (p->served)
			stack_plan_free(&p->plan);
		while (p->nuser_maps)
			stack_plan_free(&p->user_maps[--p->nuser_maps].plan);
		free(p->user_maps);
		free(p->image);
		object_free(p->obj);
	}
	free(cat->progs);
	memset(cat, 0, sizeof(*cat));
}

struct svc_program *svc_catalog_find(struct svc_catalog *cat, const char *name)
{
	size_t i;

	for (i = 0; i < cat->n; i++)
		if (!strcmp(cat->progs[i].conf->name, name))
			return &cat->progs[i];
	return NULL;
}

struct svc_catalog *svc_catalog_open(const char *dir, const char *policy_path, FILE *log,
				     int *rejected, struct secbpf_err *err)
{
	struct svc_catalog *cat = calloc(1, sizeof(*cat));
	struct svc_config *config = calloc(1, sizeof(*config));
	int rc;

	if (!cat || !config) {
		free(cat);
		free(config);
		err_set(err, ENOMEM, "out of memory");
		return NULL;
	}
	rc = svc_config_load(config, dir, err);
	if (!rc)
		rc = svc_catalog_load(cat, config, policy_path, log, err);
	if (rc < 0) {
		svc_catalog_free(cat);
		svc_config_free(config);
		free(cat);
		free(config);
		return NULL;
	}
	cat->own_config = config;
	*rejected = rc;
	return cat;
}

void svc_catalog_destroy(struct svc_catalog *cat)
{
	struct svc_config *config = cat->own_config;

	svc_catalog_free(cat);
	if (!config)
		return;
	svc_config_free(config);
	free(config);
	free(cat);
}

/* uid's maps of p, or NULL. */
static struct svc_user_maps *find_user_maps(struct svc_program *p, uid_t uid)
{
	size_t i;

	for (i = 0; i < p->nuser_maps; i++)
		if (p->user_maps[i].uid == uid)
			return &p->user_maps[i];
	return NULL;
}

int svc_program_plan(struct svc_program *p, uid_t uid, const struct stack_plan **plan,
		     struct secbpf_err *err)
{
	struct svc_user_maps *um, *grown;
	struct stack_plan mine;
	int rc;

	*plan = &p->plan;
	if (!p->stateful || p->conf->maps != SVC_MAPS_PER_USER)
		return 0;
	um = find_user_maps(p, uid);
	if (um) {
		*plan = &um->plan;
		return 0;
	}
	if (p->nuser_maps >= SVC_MAX_USER_MAPS)
		return err_set(err, EMFILE,
			       "%d users have maps of their own for this program, its most: "
			       "restart the service to free them, or make its maps per program",
			       SVC_MAX_USER_MAPS);
	rc = plan_program(p, &mine, err);
	if (rc)
		return rc;
	/* The client installed p's image: the supervisor must simulate the
	 * very filters it installed. A compilation is deterministic; this
	 * makes sure of it. */
	if (stack_plan_digest(&mine) != stack_plan_digest(&p->plan)) {
		stack_plan_free(&mine);
		return err_set(err, EPROTO, "%s: a second compilation gave other filters",
			       p->label);
	}
	/* The plans move with the array; what supervisors were given
	 * (sv_progs, runtimes) is on the heap and does not. */
	grown = realloc(p->user_maps, (p->nuser_maps + 1) * sizeof(*grown));
	if (!grown) {
		stack_plan_free(&mine);
		return err_set(err, ENOMEM, "out of memory");
	}
	p->user_maps = grown;
	um = &p->user_maps[p->nuser_maps++];
	um->uid = uid;
	um->plan = mine;
	*plan = &um->plan;
	return 0;
}
