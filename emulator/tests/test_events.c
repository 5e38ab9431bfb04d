// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the asynchronous event queue when it is full: an event
 * whose cause leaves no state the driver could read back (a CQ overrun's
 * CQ_ERROR) waits for room instead of being dropped; a QP event, which
 * the driver recovers from the QP's mirror, is dropped and counted.
 */
#include <string.h>

#include "dp_fixture.h"
#include "orca_log.h"

static unsigned int pop_type(struct fx *f, uint8_t type, uint32_t cqn)
{
	struct orca_eqe e;
	unsigned int n = 0;

	while (fx_pop(f, &e))
		n += e.type == type && le32toh(e.cq.cqn) == cqn;
	return n;
}

static void cq_error_waits_for_room(void)
{
	struct fx *f = dp_up();
	uint64_t buf = heap_alloc(PAGE);
	struct ring_qp a, b, c;
	struct ring_cq cq, other;
	uint32_t lk = 0, i, lost0;
	char err[64];

	CHECK_EQ(reg_mr(f, f->pdn, buf, PAGE, ORCA_ACCESS_LOCAL_WRITE |
			ORCA_ACCESS_REMOTE_WRITE, &lk), 0);
	CHECK(make_cq(f, &cq, 1));	/* 2 entries: the third CQE overruns */
	CHECK(make_cq(f, &other, 4));
	CHECK(make_qp(f, &a, cq.cqn));
	CHECK(make_qp(f, &b, cq.cqn));
	CHECK(make_qp(f, &c, other.cqn));
	CHECK(connect_rc(f, &a, b.qpn, 0, 5));
	CHECK(connect_rc(f, &b, a.qpn, ORCA_ACCESS_REMOTE_WRITE, 5));
	CHECK(connect_rc(f, &c, c.qpn, 0, 5));

	/* QP c's events fill the EQ, the driver (this test) reads nothing */
	lost0 = f->dev.stats.events_lost;
	CHECK_EQ(orca_dev_hook_eq_flood(&f->dev, f->eq_depth + 8, c.qpn, err,
					sizeof(err)), 0);
	CHECK(f->dev.stats.events_lost > lost0);
	for (i = 0; i < 3; i++)
		post_send(f, &a, ORCA_WR_RDMA_WRITE, buf, 8, lk,
			  iova(buf) + 64, lk);
	CHECK_EQ(f->dev.stats.cq_overruns, 1);
	CHECK_EQ(f->dev.stats.events_deferred, 1);
	/* the full EQ has no CQ_ERROR; its QP events were dropped */
	CHECK_EQ(pop_type(f, ORCA_EQE_CQ_ERROR, cq.cqn), 0);

	/* room now: the next tick posts the kept event, once */
	orca_dev_tick(&f->dev);
	CHECK_EQ(pop_type(f, ORCA_EQE_CQ_ERROR, cq.cqn), 1);
	orca_dev_tick(&f->dev);
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_EQ);
	CHECK_EQ(pop_type(f, ORCA_EQE_CQ_ERROR, cq.cqn), 0);
	CHECK_EQ(f->dev.n_deferred, 0);
	CHECK(canaries_ok(f));
	fx_free(f);
}

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();
	RUN(cq_error_waits_for_room);
	return tap_done();
}
