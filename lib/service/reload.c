// SPDX-License-Identifier: MIT
/*
 * secbpfd's reload (SIGHUP, docs/secbpfd.md): a new catalog from the
 * configuration directory replaces the one new requests see, all or
 * nothing, while handles and attachments keep the catalog they were made
 * from. A replaced catalog is counted by its users and freed with the last.
 * Only the event loop runs this.
 */
#include <errno.h>
#include <stdio.h>

#include "service/server.h"

void svc_catalog_hold(struct svc_program *p)
{
	p->cat->refs++;
}

/* Take cat off srv's list of replaced catalogs and free it. */
static void retire_now(struct svc_server *srv, struct svc_catalog *cat)
{
	struct svc_catalog **pp;

	for (pp = &srv->retired; *pp; pp = &(*pp)->next_retired)
		if (*pp == cat) {
			*pp = cat->next_retired;
			break;
		}
	svc_catalog_destroy(cat);
}

void svc_catalog_put(struct svc_server *srv, struct svc_program *p)
{
	struct svc_catalog *cat = p->cat;

	if (--cat->refs == 0 && cat != srv->cat)
		retire_now(srv, cat);
}

int svc_reload(struct svc_server *srv)
{
	struct secbpf_err err = { { 0 } };
	struct svc_catalog *fresh, *old = srv->cat;
	int rejected = 0;

	if (!srv->config_dir)
		return 0;
	fprintf(srv->log, "secbpfd: SIGHUP: rereading %s\n", srv->config_dir);
	fresh = svc_catalog_open(srv->config_dir, srv->policy_path, srv->log, &rejected, &err);
	if (!fresh) {
		fprintf(srv->log,
			"secbpfd: reload refused: %s: still serving the configuration loaded "
			"before\n",
			err.msg);
		return -EINVAL;
	}
	if (rejected) {
		fprintf(srv->log,
			"secbpfd: reload refused: %d program%s rejected (above): still serving the "
			"configuration loaded before\n",
			rejected, rejected == 1 ? "" : "s");
		svc_catalog_destroy(fresh);
		return -EINVAL;
	}
	srv->cat = fresh;
	if (old->refs == 0) {
		svc_catalog_destroy(old);
	} else {
		old->next_retired = srv->retired;
		srv->retired = old;
	}
	fprintf(srv->log,
		"secbpfd: reloaded: serving %zu program%s to new requests; %zu handle%s and %zu "
		"supervised filter%s keep the programs they had\n",
		fresh->n, fresh->n == 1 ? "" : "s", srv->nhandles, srv->nhandles == 1 ? "" : "s",
		srv->nattachments, srv->nattachments == 1 ? "" : "s");
	return 0;
}

void svc_catalogs_free(struct svc_server *srv)
{
	if (srv->attachments)
		return;
	while (srv->retired)
		retire_now(srv, srv->retired);
	if (srv->cat && srv->cat->own_config) {
		svc_catalog_destroy(srv->cat);
		srv->cat = NULL;
	}
}
