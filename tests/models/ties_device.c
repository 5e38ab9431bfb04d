// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The device's half of tests/models/ties.c: the device model's stop
 * (orca_dev_idle(), emulator/orca_dbhint.c, and the kick rings it takes,
 * orca_kick.c), built here with every __atomic builtin traced, run on a
 * device of the emulator's test fixture (emulator/tests/dp_fixture.h)
 * that is awake after a kick and has nothing to do; the shared-memory
 * operations it made, in order and as x86-TSO sees them, must be those of
 * the model checker's device alone:
 *   no kick ring  the doorbell hint model's (test_dbhint_model.c)
 *   a ring        the kick ring model's (test_kick_model.c), entries
 *                 naming both QPs, and a ring that overflowed
 * A run of one operation counts once: the model reads "the records" as
 * one step, the device reads the two of each QP.  What else the device
 * touches in host memory (the CQ's doorbell record, the hint's
 * neighbours) is none of these protocols' and is left out by name; what
 * it touches without a name is "?" and fails.
 *
 * Prints TAP.
 */
#include <string.h>

#define RAM_SIZE	(8U << 20)
#include "dp_fixture.h"
#include "trace.h"

#define HINT_BASE	0x2fe000ULL	/* below the heap */

struct dw {
	struct fx *f;
	struct ring_cq cq;
	struct ring_qp a, b;
	uint64_t ring;
	uint32_t num;
};

/* A device with the hint, a CQ and an RC pair a <-> b, ringed if @ring. */
static bool dw_up(struct dw *w, bool ring)
{
	static const char *const sets[] = { "db_poll_us=0", NULL };
	bool good = true;

	memset(w, 0, sizeof(*w));
	w->f = dp_up_hint(sets, HINT_BASE);
	if (ring) {
		w->ring = heap_alloc(PAGE);
		memset(gpa(w->f, w->ring), 0, PAGE);
		good = !create_kick_ring(w->f, w->ring, &w->num) && w->num;
		make_qp_kick_ring = w->num;
		make_qp_flags = ORCA_QP_CREATE_KICK_RING;
	}
	good = good && make_cq(w->f, &w->cq, 5) &&
	       make_qp(w->f, &w->a, w->cq.cqn) &&
	       make_qp(w->f, &w->b, w->cq.cqn);
	make_qp_flags = 0;
	make_qp_kick_ring = 0;
	return good && connect_rc(w->f, &w->a, w->b.qpn, 0, 1) &&
	       connect_rc(w->f, &w->b, w->a.qpn, 0, 1);
}

/* the shared words by the models' names */
static void dw_names(struct dw *w)
{
	struct orca_db_hint *h = gpa(w->f, HINT_BASE);
	struct orca_kick_ring *r = w->ring ? gpa(w->f, w->ring) : NULL;
	struct ring_qp *q[] = { &w->a, &w->b };
	unsigned int i;

	trace_forget_regions();
	name_region(&h->awake, sizeof(h->awake), "awake");
	for (i = 0; i < 2; i++)
		name_region(gpa(w->f, q[i]->base + q[i]->db_off), 8, "rec");
	if (r) {
		name_region(&r->prod, sizeof(r->prod), "prod");
		name_region(&r->cons, sizeof(r->cons), "cons");
		name_region(&r->overflow, sizeof(r->overflow), "ovf");
		for (i = 0; i < ORCA_KICK_RING_ENTRIES; i++) {
			name_region(&r->e[i].seq, sizeof(r->e[i].seq), "seq");
			name_region(&r->e[i].qpn, sizeof(r->e[i].qpn), "qpn");
		}
	}
	/* the CQ's own protocol (its consumer index, its arming) */
	name_region(gpa(w->f, w->cq.base), 1U << 20, NULL);
}

/*
 * The device kicked awake, its work done; then the posters' entries of
 * @ovf_or_entries (-1: none; 0: entries 0 and 1 naming a and b, as a
 * poster writes them; 1: the ring overflowed at prod 2), made while it
 * said awake; then its stop, traced, into @real.  Returns what
 * orca_dev_idle() said (false: it found nothing to do).
 */
static bool stop_traced(struct dw *w, int ovf_or_entries, char *real,
			size_t len)
{
	struct orca_kick_ring *r;
	bool found;

	orca_dev_doorbell(&w->f->dev, ORCA_FW_VEC_DB);
	if (ovf_or_entries >= 0) {
		r = gpa(w->f, w->ring);
		r->prod = htole32(2);
		if (ovf_or_entries) {
			r->overflow = htole32(1);
		} else {
			r->e[0].qpn = htole32(w->a.qpn);
			r->e[0].seq = htole32(1);
			r->e[1].qpn = htole32(w->b.qpn);
			r->e[1].seq = htole32(2);
		}
	}
	dw_names(w);
	trace_on(true);
	found = orca_dev_idle(&w->f->dev);
	trace_on(false);
	trace_ops(real, len, true);
	return found;
}

static void no_ring(void)
{
	char real[OPS_LEN], model[OPS_LEN];
	struct dw w;
	bool up = dw_up(&w, false), found = false;

	if (up)
		found = stop_traced(&w, -1, real, sizeof(real));
	else
		snprintf(real, sizeof(real), "(no device)");
	dbhint_model_ops(true, model, sizeof(model));
	collapse_runs(model);
	ok(up && !found && !strcmp(real, model),
	   "the device's stop without a kick ring: the doorbell hint model's device steps",
	   real, model);
	fx_free(w.f);
}

/*
 * A ring whose entries 0 and 1 name a and b (written as a poster writes
 * them), or (@ovf) that overflowed at prod 2; the device's cons at 0.
 */
static void ring(bool ovf)
{
	char real[OPS_LEN], model[OPS_LEN];
	struct dw w;
	bool up = dw_up(&w, true), found = false;

	if (up) {
		found = stop_traced(&w, ovf, real, sizeof(real));
	} else {
		snprintf(real, sizeof(real), "(no device)");
	}
	kick_model_device_ops(0, 2, ovf, model, sizeof(model));
	collapse_runs(model);
	ok(up && !found && !strcmp(real, model),
	   ovf ? "the device's stop, its kick ring overflowed: the kick ring model's device steps" :
		 "the device's stop, two entries in its kick ring: the kick ring model's device steps",
	   real, model);
	fx_free(w.f);
}

int main(void)
{
	no_ring();
	ring(false);
	ring(true);
	return done_testing();
}
