// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_fuzz's object table: every libibverbs object the fuzzer holds,
 * of which kind, in which context, made by which process (a forked child
 * shares the parent's contexts but destroys only its own objects).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "fuzz.h"

const char *const kind_name[K_NKIND] = {
	"free", "ctx", "pd", "mr", "cq", "qp", "ah", "chan", "srq", "mw",
};

/* live objects per kind (bounds memory and what close leaks) */
static const unsigned int kind_max[K_NKIND] = {
	0, 4, 12, 24, 16, 20, 12, 6, 6, 12,
};

struct obj objs[MAX_OBJ];
unsigned int nlive[K_NKIND];
unsigned int verbose;

struct obj *obj_new(enum kind k, struct ibv_context *ctx)
{
	unsigned int i;

	for (i = 0; i < MAX_OBJ; i++)
		if (objs[i].kind == K_FREE) {
			memset(&objs[i], 0, sizeof(objs[i]));
			objs[i].kind = k;
			objs[i].owner = fuzz_pid;
			objs[i].ctx = ctx;
			nlive[k]++;
			return &objs[i];
		}
	return NULL;
}

void obj_free(struct obj *o)
{
	nlive[o->kind]--;
	o->kind = K_FREE;
}

int room(enum kind k)
{
	return nlive[k] < kind_max[k];
}

/* a random live object of kind k; in ctx (if given) with probability pct */
struct obj *pick_in(enum kind k, struct ibv_context *ctx,
			   unsigned int pct)
{
	unsigned int i, n = 0, want_same = ctx && chance(pct);
	struct obj *cand[MAX_OBJ];

	for (i = 0; i < MAX_OBJ; i++) {
		if (objs[i].kind != k)
			continue;
		if (want_same && objs[i].ctx != ctx)
			continue;
		cand[n++] = &objs[i];
	}
	return n ? cand[rn(n)] : NULL;
}

struct obj *pick(enum kind k)
{
	return pick_in(k, NULL, 0);
}

/* objects this process may destroy: its own (a child leaves the parent's) */
struct obj *pick_own(enum kind k)
{
	unsigned int i, n = 0;
	struct obj *cand[MAX_OBJ];

	for (i = 0; i < MAX_OBJ; i++)
		if (objs[i].kind == k && objs[i].owner == fuzz_pid)
			cand[n++] = &objs[i];
	return n ? cand[rn(n)] : NULL;
}

/* a context this process may create objects in */
struct obj *pick_ctx(int for_events)
{
	struct obj *c = pick(K_CTX);

	/*
	 * A child must not create objects that raise events in a context it
	 * shares with the parent: the parent would read events carrying
	 * pointers into the child's memory.
	 */
	if (c && for_events && c->owner != fuzz_pid)
		c = pick_own(K_CTX);
	return c;
}

struct obj *find_ptr(enum kind k, const void *p)
{
	unsigned int i;

	for (i = 0; i < MAX_OBJ; i++)
		if (objs[i].kind == k && objs[i].u.ctx == p)
			return &objs[i];
	return NULL;
}

void note(const char *verb, int err)
{
	stat_call(verb, err);
	if (verbose > 1)
		fprintf(stderr, "[%d] %s -> %d\n", (int)fuzz_pid, verb, err);
}

/* errno of a call that returns NULL on failure */
int err_of(const void *p)
{
	return p ? 0 : (errno ? errno : EIO);
}

struct obj *ctx_obj(struct ibv_context *c)
{
	return find_ptr(K_CTX, c);
}
