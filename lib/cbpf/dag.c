// SPDX-License-Identifier: MIT
/*
 * Postorder walks of the back end's DAGs (residual trees, word tests):
 * an explicit stack, as the trees can be deeper than the C stack allows.
 * The reverse of a postorder is a topological order, so code laid out in
 * it only jumps forward, as cBPF requires.
 */
#include <errno.h>
#include <stdlib.h>

#include "cbpf/cbpf_internal.h"

static int postorder_append(struct cbpf_postorder *o, void *node)
{
	if (o->n == o->cap) {
		uint32_t cap = o->cap ? o->cap * 2 : 256;
		void **v = realloc(o->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		o->v = v;
		o->cap = cap;
	}
	o->v[o->n++] = node;
	return 0;
}

int cbpf_postorder_add(struct cbpf_postorder *o, void *root, const struct cbpf_dag_ops *ops,
		       void *ctx)
{
	void **stack;
	uint8_t *state;		/* per stack entry: the next child to try */
	uint32_t sp = 0, cap = 256;
	int rc = 0;

	if (!ops->first_visit(root, ctx))
		return 0;
	stack = malloc(cap * sizeof(*stack));
	state = malloc(cap);
	if (!stack || !state) {
		rc = -ENOMEM;
		goto out;
	}
	stack[sp] = root;
	state[sp++] = 0;
	while (sp) {
		void *n = stack[sp - 1], *child = NULL;

		if (state[sp - 1] < 2)
			child = ops->child(n, state[sp - 1]++, ctx);
		if (!child) {
			if (ops->done)
				ops->done(n, ctx);
			rc = postorder_append(o, n);
			if (rc)
				goto out;
			sp--;
			continue;
		}
		if (!ops->first_visit(child, ctx))
			continue;
		if (sp == cap) {
			void **ns = realloc(stack, cap * 2 * sizeof(*ns));
			uint8_t *nst;

			if (ns)
				stack = ns;
			nst = ns ? realloc(state, cap * 2) : NULL;
			if (!nst) {
				rc = -ENOMEM;
				goto out;
			}
			state = nst;
			cap *= 2;
		}
		stack[sp] = child;
		state[sp++] = 0;
	}
out:
	free(stack);
	free(state);
	return rc;
}

void cbpf_postorder_free(struct cbpf_postorder *o)
{
	free(o->v);
	o->v = NULL;
	o->n = 0;
	o->cap = 0;
}
