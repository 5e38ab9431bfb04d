// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Concurrent create/destroy against a device that reuses a number the
 * moment it is freed (hostctl reuse-handles 1).  A destroy must forget
 * its CQN/QPN before the device can hand it out again, or a concurrent
 * create that gets it fails (and destroys a valid object).  Every create
 * and destroy must succeed.  Needs the orca VM.
 */
#include <pthread.h>

#include "common.h"

#define ROUNDS	300

static struct ibv_context *ctx;
static struct ibv_pd *pd;

struct worker {
	pthread_t thread;
	int cq_fail, qp_fail, destroy_fail;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		struct ibv_cq *cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
		struct ibv_qp *qp;

		if (!cq) {
			w->cq_fail++;
			continue;
		}
		qp = create_qp(pd, cq, i & 1 ? IBV_QPT_UD : IBV_QPT_RC);
		if (!qp)
			w->qp_fail++;
		else if (ibv_destroy_qp(qp))
			w->destroy_fail++;
		if (ibv_destroy_cq(cq))
			w->destroy_fail++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	struct worker w[3] = {};
	char reply[256];
	int i, cq_fail = 0, qp_fail = 0, destroy_fail = 0;

	if (!have_hostctl()) {
		skip("not in the orca VM (no hostctl)", "create/destroy race");
		return tap_done();
	}
	ctx = open_device_by_name(dev);
	if (!ok(ctx != NULL, "open %s", dev))
		return tap_done();
	pd = ibv_alloc_pd(ctx);
	if (!ok(pd != NULL, "alloc PD") ||
	    !ok(!hostctl("reuse-handles 1", reply, sizeof(reply)),
		"the device reuses freed numbers at once (%s)", reply))
		goto out;
	for (i = 0; i < 3; i++)
		pthread_create(&w[i].thread, NULL, work, &w[i]);
	for (i = 0; i < 3; i++) {
		pthread_join(w[i].thread, NULL);
		cq_fail += w[i].cq_fail;
		qp_fail += w[i].qp_fail;
		destroy_fail += w[i].destroy_fail;
	}
	hostctl("reuse-handles 0", NULL, 0);
	ok(!cq_fail, "3 threads x %d: every create_cq succeeds (%d failed)",
	   ROUNDS, cq_fail);
	ok(!qp_fail, "3 threads x %d: every create_qp succeeds (%d failed)",
	   ROUNDS, qp_fail);
	ok(!destroy_fail, "every destroy succeeds (%d failed)", destroy_fail);
out:
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return tap_done();
}
