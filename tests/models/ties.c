// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The kick ring's model checker (emulator/tests/test_kick_model.c) proves
 * the protocol of its steps; this test proves that the steps are the real
 * code's.  The provider's post (providers/orca/qp.c, orca_post_send() down
 * to the kick) is built here with every __atomic builtin traced
 * (trace_atomics.h) and run alone on a ring in ordinary memory; the
 * shared-memory operations it made, in order and as x86-TSO sees them (a
 * store, a load, a locked read-modify-write, a full fence; a seq_cst
 * store is a store and a fence; acquire and release fences are no
 * instruction there), must be word for word the operations the model's
 * poster makes alone from the same ring (kick_model_poster_ops()).
 *
 * So a fence or an ordered store dropped from, or added to, the real post
 * fails here, and the model says what that would break.  A store the
 * trace cannot see (a plain one to shared memory) is not a store the
 * model has either: the post makes none but the WQE's own, which the
 * record's release store publishes.
 *
 * Prints TAP.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orca.h"
#include "trace.h"

#define RING_N		2	/* the model's N */


/* ---- the provider's post -------------------------------------------- */

struct poster_world {
	struct orca_context ctx;
	struct orca_qp qp;
	struct orca_qp_dbrec dbrec;
	struct orca_kick_ring ring;
	uint32_t hint, db;
	uint8_t sq_buf[4 << 9];
	uint64_t wrid[4];
	uint8_t payload[64];
};

static struct poster_world *poster_world(uint32_t cons, uint32_t prod,
					 uint32_t awake)
{
	struct poster_world *w = calloc(1, sizeof(*w));
	struct ibv_qp *ibqp;

	if (!w)
		exit(2);
	w->ctx.kick = &w->ring;
	w->ctx.kick_entries = RING_N;
	w->ring.prod = htole32(prod);
	w->ring.cons = htole32(cons);
	w->hint = htole32(awake);
	w->ctx.db_hint = &w->hint;
	w->ctx.db = &w->db;
	w->ctx.db_value = htole32(1);
	ibqp = &w->qp.vqp.qp;
	ibqp->context = &w->ctx.ibv_ctx.context;
	ibqp->qp_type = IBV_QPT_RC;
	ibqp->state = IBV_QPS_RTS;
	ibqp->qp_num = 5;
	w->qp.dbrec = &w->dbrec;
	w->qp.sq.base = w->sq_buf;
	w->qp.sq.depth = 4;
	w->qp.sq.max_wr = 4;
	w->qp.sq.max_sge = 1;
	w->qp.sq.log_stride = 9;
	w->qp.sq.wrid = w->wrid;
	pthread_spin_init(&w->qp.sq.lock, PTHREAD_PROCESS_PRIVATE);

	trace_forget_regions();
	name_region(&w->dbrec.sq_pi, sizeof(w->dbrec.sq_pi), "rec");
	name_region(&w->ring.prod, sizeof(w->ring.prod), "prod");
	name_region(&w->ring.cons, sizeof(w->ring.cons), "cons");
	name_region(&w->ring.overflow, sizeof(w->ring.overflow), "ovf");
	for (int i = 0; i < RING_N; i++) {
		name_region(&w->ring.e[i].seq, sizeof(w->ring.e[i].seq), "seq");
		name_region(&w->ring.e[i].qpn, sizeof(w->ring.e[i].qpn), "qpn");
	}
	name_region(&w->hint, sizeof(w->hint), "awake");
	name_region(&w->db, sizeof(w->db), "kick");
	/* the poll side's index, the post's own business */
	name_region(&w->qp.sq.tail, sizeof(w->qp.sq.tail), NULL);
	return w;
}

/*
 * One SEND posted alone: with the kick ring (@ring) on a ring at @cons and
 * @prod, against the kick ring model's poster; without one, against the
 * doorbell hint model's.  The device's hint says @awake.
 */
static void one_post(const char *what, bool ring, uint32_t cons,
		     uint32_t prod, uint32_t awake)
{
	struct poster_world *w = poster_world(cons, prod, awake);
	struct ibv_sge sge = { .addr = (uintptr_t)w->payload, .length = 8,
			       .lkey = 1 };
	struct ibv_send_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	char real[OPS_LEN], model[OPS_LEN], line[256];
	int ret;

	if (!ring)
		w->ctx.kick = NULL;
	trace_on(true);
	ret = orca_post_send(&w->qp.vqp.qp, &wr, &bad);
	trace_on(false);
	trace_ops(real, sizeof(real), false);
	if (ring) {
		kick_model_poster_ops(cons, prod, awake, model, sizeof(model));
	} else {
		/* the doorbell hint model's poster skips the kick: awake */
		dbhint_model_ops(false, model, sizeof(model));
	}
	snprintf(line, sizeof(line),
		 "the provider's post, %s: the %s model's poster steps (post returned %d)",
		 what, ring ? "kick ring" : "doorbell hint", ret);
	ok(!ret && !strcmp(real, model), line, real, model);
	pthread_spin_destroy(&w->qp.sq.lock);
	free(w);
}

int main(void)
{
	one_post("a ring with room, the device awake", true, 0, 0, 1);
	one_post("a ring with room, the device asleep (a kick)", true, 0, 0, 0);
	one_post("a wrapped ring", true, 3, 3, 1);
	one_post("a full ring (overflow)", true, 1, 3, 1);
	one_post("no kick ring, the device awake", false, 0, 0, 1);
	return done_testing();
}
