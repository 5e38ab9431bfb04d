// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The shared-memory link's wake-ups (orca_ring.h), model-checked on
 * x86-TSO (tso_model.h) as the doorbell hint is (test_dbhint_model.c).
 *
 * The programs are not written here: orca_ring.c is built into this
 * test with RING_TRACE recording each access it makes to the shared
 * indices, and the real functions run once to give each side's steps:
 *
 *   a message for a sleeping consumer
 *     producer: orca_ring_publish(), orca_ring_kick_due()
 *     consumer: orca_ring_sleep() on an empty ring
 *     lost: the producer saw "not sleeping" (no kick) and the consumer
 *     saw the old tail (it sleeps with a message in the ring)
 *   room for a waiting producer
 *     producer: orca_ring_wait_room() on a full ring
 *     consumer: orca_ring_pop(), orca_ring_room_kick_due()
 *     lost: the consumer saw "not waiting" (no kick) and the producer
 *     saw the old head (it waits with room in the ring)
 *
 * Neither may end lost in any interleaving; without either side's
 * fence, some interleaving must (so the checker does find one).
 */
#include <stdio.h>
#include <stdlib.h>

#include "tap.h"
#include "tso_model.h"

/* ---- the real code, traced ---------------------------------------- */

#define TRACE_MAX	16
static struct { int op; const char *field; } trace[TRACE_MAX];
static int ntrace;

static void trace_add(int op, const char *field)
{
	if (ntrace < TRACE_MAX) {
		trace[ntrace].op = op;
		trace[ntrace].field = field;
	}
	ntrace++;
}

#define RING_TRACE(op, field)	trace_add((op), (field))
#include "../orca_ring.c"

/*
 * The trace so far as model steps: var 0 the ring index (tail or head),
 * var 1 the flag (sleeping or waiting); a store stores 1 (the new index,
 * the flag raised).  @fences false leaves the fences out.
 */
static int to_steps(struct step *st, bool fences)
{
	int i, n = 0;

	for (i = 0; i < ntrace && i < TRACE_MAX; i++) {
		bool idx = !strcmp(trace[i].field, "tail") ||
			   !strcmp(trace[i].field, "head");

		if (trace[i].op == RING_OP_FENCE) {
			if (fences)
				st[n++] = (struct step){ FENCE, 0, 0 };
		} else if (trace[i].op == RING_OP_ST) {
			st[n++] = (struct step){ ST, idx ? 0 : 1, 1 };
		} else {
			st[n++] = (struct step){ LD, idx ? 0 : 1, 0 };
		}
	}
	st[n] = (struct step){ END, 0, 0 };
	ntrace = 0;
	return n;
}

static uint8_t mem[1 << 20];
static struct orca_ring ring;

static void fresh_ring(void)
{
	memset(mem, 0, sizeof(mem));
	if (orca_ring_open(&ring, mem, sizeof(mem), 8, 0, true))
		abort();
	ntrace = 0;
}

/* the two scenarios' programs, from the real functions */
static struct step data_prod[8], data_cons[8], room_prod[8], room_cons[8];
static struct step data_prod_nf[8], data_cons_nf[8];
static struct step room_prod_nf[8], room_cons_nf[8];

static void trace_programs(void)
{
	unsigned int i;

	fresh_ring();
	orca_ring_publish(&ring, 8);
	orca_ring_kick_due(&ring);
	to_steps(data_prod, true);
	orca_ring_publish(&ring, 8);
	orca_ring_kick_due(&ring);
	to_steps(data_prod_nf, false);

	fresh_ring();
	orca_ring_sleep(&ring);
	to_steps(data_cons, true);
	fresh_ring();
	orca_ring_sleep(&ring);
	to_steps(data_cons_nf, false);

	fresh_ring();
	for (i = 0; i < ring.nslots; i++)
		orca_ring_publish(&ring, 8);
	ntrace = 0;
	orca_ring_wait_room(&ring);
	to_steps(room_prod, true);
	orca_ring_wait_room(&ring);
	to_steps(room_prod_nf, false);

	fresh_ring();
	orca_ring_publish(&ring, 8);
	orca_ring_peek(&ring, &(size_t){ 0 });
	ntrace = 0;
	orca_ring_pop(&ring);
	orca_ring_room_kick_due(&ring);
	to_steps(room_cons, true);
	orca_ring_publish(&ring, 8);
	orca_ring_peek(&ring, &(size_t){ 0 });
	ntrace = 0;
	orca_ring_pop(&ring);
	orca_ring_room_kick_due(&ring);
	to_steps(room_cons_nf, false);
}

/* ---- the checks --------------------------------------------------- */

/* side 0 kicks if it loads the flag as 1; side 1 sleeps on index 0 */
static bool lost_data(const struct world *w)
{
	return w->s[0].loaded == 0 && w->s[1].loaded == 0;
}

/* side 1 (consumer) kicks if it loads waiting 1; side 0 waits on head 0 */
static bool lost_room(const struct world *w)
{
	return w->s[1].loaded == 0 && w->s[0].loaded == 0;
}

static unsigned long run(const struct step *s0, const struct step *s1,
			 bool (*is_bad)(const struct world *w))
{
	return tso_check(s0, s1, 0, 0, is_bad);
}

static bool is_prog(const struct step *s, enum op a, int va, enum op b,
		    enum op c, int vc)
{
	return s[0].op == a && s[0].var == va && s[1].op == b &&
	       s[2].op == c && s[2].var == vc && s[3].op == END;
}

static void traced_programs_are_the_protocol(void)
{
	trace_programs();
	/* store what is published; fence; load the other side's word */
	CHECK(is_prog(data_prod, ST, 0, FENCE, LD, 1));
	CHECK(is_prog(data_cons, ST, 1, FENCE, LD, 0));
	CHECK(is_prog(room_prod, ST, 1, FENCE, LD, 0));
	CHECK(is_prog(room_cons, ST, 0, FENCE, LD, 1));
}

static void no_lost_wakeup(void)
{
	CHECK_EQ(run(data_prod, data_cons, lost_data), 0);
	CHECK(explored > 10);
	printf("# a message for a sleeping consumer: %lu interleavings, %lu lost\n",
	       explored, bad_runs);
	CHECK_EQ(run(room_prod, room_cons, lost_room), 0);
	CHECK(explored > 10);
	printf("# room for a waiting producer: %lu interleavings, %lu lost\n",
	       explored, bad_runs);
}

static void each_fence_is_needed(void)
{
	CHECK(run(data_prod_nf, data_cons, lost_data) > 0);
	CHECK(run(data_prod, data_cons_nf, lost_data) > 0);
	CHECK(run(room_prod_nf, room_cons, lost_room) > 0);
	CHECK(run(room_prod, room_cons_nf, lost_room) > 0);
}

int main(void)
{
	RUN(traced_programs_are_the_protocol);
	RUN(no_lost_wakeup);
	RUN(each_fence_is_needed);
	return tap_done();
}
