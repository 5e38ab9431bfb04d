// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the doorbell hint (orca_hw.h): the device says "awake"
 * after a kick and takes it back, with a last read of the doorbell
 * records, before it sleeps; a post made while it said so needs no kick.
 * And the adaptive polling after a kick (orca_sched.c).  The test plays
 * the driver, the provider and the emulator's poll loop, which calls
 * orca_dev_idle() before every wait, on a virtual clock (fixture.h): a
 * poll window lasts as many passes of that loop as the test says, not as
 * long as the host happens to let it run.
 */
#include <string.h>

#include "dp_fixture.h"
#include "orca_log.h"

#define HINT_BASE	0x2fe000ULL	/* below the heap */
#define PASS_NS		100		/* one pass of the poll loop */

struct pp {
	struct fx *f;
	struct ring_cq cq;
	struct ring_qp a, b;
	uint64_t buf;
	uint32_t lk;
};

static const struct orca_db_hint *hint(struct fx *f)
{
	return gpa(f, HINT_BASE);
}

static uint32_t awake(struct fx *f)
{
	return le32toh(hint(f)->awake);
}

/* A device with the hint (and @sets), two connected RC QPs, one CQ. */
static void pp_up(struct pp *p, const char *const *sets)
{
	p->f = dp_up_hint(sets, HINT_BASE);
	p->buf = heap_alloc(PAGE);
	CHECK_EQ(reg_mr(p->f, p->f->pdn, p->buf, PAGE,
			ORCA_ACCESS_LOCAL_WRITE, &p->lk), 0);
	CHECK(make_cq(p->f, &p->cq, 5));
	CHECK(make_qp(p->f, &p->a, p->cq.cqn));
	CHECK(make_qp(p->f, &p->b, p->cq.cqn));
	CHECK(connect_rc(p->f, &p->a, p->b.qpn, 0, 1));
	CHECK(connect_rc(p->f, &p->b, p->a.qpn, 0, 1));
}

/*
 * The poll loop until it would wait; returns the calls that did not.
 * Each of those passes takes PASS_NS of the virtual clock, so a poll
 * window of W ns that finds nothing is W / PASS_NS of them.
 */
static unsigned int settle(struct fx *f)
{
	unsigned int n = 0;

	while (orca_dev_idle(&f->dev) && n < 10000000) {
		n++;
		fx_clock_advance(PASS_NS);
	}
	return n;
}

/* @n CQEs (a send's and its receive's, say), all successful. */
static bool reap(struct pp *p, unsigned int n)
{
	struct orca_cqe c;

	while (n--)
		if (!poll_cqe(p->f, &p->cq, &c) || c.status)
			return false;
	return !poll_cqe(p->f, &p->cq, &c);
}

/* Post a SEND from @from (receive ready at the other end), no kick. */
static void put_pingpong(struct pp *p, struct ring_qp *from)
{
	post_recv(p->f, from == &p->a ? &p->b : &p->a, p->buf, 64, p->lk);
	put_send(p->f, from, ORCA_WR_SEND, p->buf, 8, p->lk, 0, 0);
}

static void protocol(void)
{
	static const char *const sets[] = { "db_poll_us=0", NULL };
	struct pp p;

	pp_up(&p, sets);
	CHECK_EQ(p.f->dev.db_hint_base, HINT_BASE);
	/* the last command's doorbell woke it; it stops before waiting */
	CHECK_EQ(awake(p.f), 1);
	CHECK_EQ(settle(p.f), 0);
	CHECK_EQ(awake(p.f), 0);
	CHECK_EQ(p.f->dev.stats.db_hint_stops, 1);

	/* asleep: a post without a kick stays where it is */
	put_pingpong(&p, &p.a);
	CHECK(reap(&p, 0));
	CHECK_EQ(settle(p.f), 0);
	CHECK(reap(&p, 0));
	/* the kick: done, and the device says it is awake */
	orca_dev_doorbell(&p.f->dev, ORCA_FW_VEC_DB);
	CHECK(reap(&p, 2));
	CHECK_EQ(awake(p.f), 1);

	/* awake: a post that skipped its kick is found by the last read */
	put_pingpong(&p, &p.b);
	CHECK(reap(&p, 0));
	CHECK_EQ(settle(p.f), 1);
	CHECK(reap(&p, 2));
	CHECK_EQ(p.f->dev.stats.db_hint_catches, 1);
	CHECK_EQ(awake(p.f), 0);
	CHECK_EQ(p.f->dev.stats.db_kicks, 1);
	CHECK_EQ(p.f->dev.stats.wqes, 2);

	/* a dead device never says it is awake */
	orca_dev_doorbell(&p.f->dev, ORCA_FW_VEC_DB);
	CHECK_EQ(awake(p.f), 1);
	orca_dev_hook_fatal(&p.f->dev, 1);
	CHECK_EQ(settle(p.f), 0);
	CHECK_EQ(awake(p.f), 0);
	orca_dev_doorbell(&p.f->dev, ORCA_FW_VEC_DB);
	CHECK_EQ(awake(p.f), 0);
	CHECK(canaries_ok(p.f));
	fx_free(p.f);
}

/*
 * Held awake (ctl db-awake-hold 1, orca_dev_hook_db_awake_hold()): the
 * word says 1 from the hook on, posts without a kick are found pass
 * after pass, and the device never sleeps; released, it sleeps at the
 * next chance.
 */
static void held_awake(void)
{
	static const char *const sets[] = { "db_poll_us=0", NULL };
	unsigned int i;
	struct pp p;

	pp_up(&p, sets);
	CHECK_EQ(settle(p.f), 0);
	CHECK_EQ(awake(p.f), 0);
	orca_dev_hook_db_awake_hold(&p.f->dev, true);
	CHECK_EQ(awake(p.f), 1);
	for (i = 0; i < 20; i++) {
		put_pingpong(&p, i & 1 ? &p.b : &p.a);
		CHECK(orca_dev_idle(&p.f->dev));
		CHECK(reap(&p, 2));
		CHECK(orca_dev_idle(&p.f->dev));
		CHECK_EQ(awake(p.f), 1);
	}
	CHECK_EQ(p.f->dev.stats.db_kicks, 0);
	CHECK_EQ(p.f->dev.stats.wqes, 20);
	orca_dev_hook_db_awake_hold(&p.f->dev, false);
	CHECK_EQ(settle(p.f), 0);
	CHECK_EQ(awake(p.f), 0);
	CHECK(canaries_ok(p.f));
	fx_free(p.f);
}

/* RESET clears the word before it forgets the address. */
static void reset_clears(void)
{
	struct pp p;

	pp_up(&p, NULL);
	CHECK_EQ(awake(p.f), 1);
	CHECK_EQ(fx_cmd(p.f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	CHECK_EQ(awake(p.f), 0);
	CHECK_EQ(p.f->dev.db_hint_base, 0);
	orca_dev_doorbell(&p.f->dev, ORCA_FW_VEC_DB);
	CHECK_EQ(awake(p.f), 0);
	CHECK_EQ(settle(p.f), 0);
	CHECK(canaries_ok(p.f));
	fx_free(p.f);
}

/* db_hint=0: the device latches nothing and never writes the word. */
static void disabled(void)
{
	static const char *const sets[] = { "db_hint=0", NULL };
	struct pp p;

	pp_up(&p, sets);
	CHECK_EQ(p.f->dev.db_hint_base, 0);
	put_pingpong(&p, &p.a);
	orca_dev_doorbell(&p.f->dev, ORCA_FW_VEC_DB);
	CHECK(reap(&p, 2));
	CHECK_EQ(awake(p.f), 0);
	put_pingpong(&p, &p.b);
	CHECK_EQ(settle(p.f), 0);
	CHECK(reap(&p, 0));
	CHECK_EQ(p.f->dev.stats.db_hint_stops, 0);
	CHECK(canaries_ok(p.f));
	fx_free(p.f);
}

/* A hint outside host memory or misaligned: INIT refuses it. */
static void bad_address(void)
{
	static const uint64_t bad[] = { HINT_BASE + 32, RAM_SIZE - 32,
					RAM_SIZE + 4096 };

	fx_init_refuses(offsetof(struct orca_regs, db_hint_base), bad,
			ARRAY_SIZE(bad));
}

/*
 * Polling after a kick: none while one QP kicks for itself; a window once
 * two QPs take turns (within db_poll_us of the engine's stop); a poll
 * ends at the answer; a window that finds nothing halves, down to none.
 */
static void poll_adapts(void)
{
	static const char *const sets[] = { "db_poll_us=1000", NULL };
	struct orca_dev *d;
	uint64_t max;
	struct pp p;
	int i;

	pp_up(&p, sets);
	d = &p.f->dev;
	max = d->cfg.db_poll_us * 1000ULL;
	settle(p.f);
	for (i = 0; i < 3; i++) {	/* a kicks for itself */
		put_pingpong(&p, &p.a);
		orca_dev_doorbell(d, ORCA_FW_VEC_DB);
		CHECK(reap(&p, 2));
		CHECK_EQ(d->db_poll_until, 0);
		CHECK_EQ(settle(p.f), 0);
	}
	CHECK_EQ(d->db_poll_ns, 0);

	/* b kicks right after the device stopped: a ping-pong */
	put_pingpong(&p, &p.b);
	orca_dev_doorbell(d, ORCA_FW_VEC_DB);
	CHECK(reap(&p, 2));
	CHECK_EQ(d->db_poll_ns, 4000);
	CHECK(d->db_poll_until);
	/* a answers while the device polls: no kick, and the poll ends */
	put_pingpong(&p, &p.a);
	CHECK(orca_dev_idle(d));
	CHECK(reap(&p, 2));
	CHECK_EQ(d->stats.db_poll_catches, 1);
	CHECK_EQ(d->db_poll_until, 0);
	CHECK_EQ(settle(p.f), 0);
	CHECK_EQ(awake(p.f), 0);

	/* b's next kick, a's reply caught, again: the window stays */
	put_pingpong(&p, &p.b);
	orca_dev_doorbell(d, ORCA_FW_VEC_DB);
	CHECK_EQ(d->db_poll_ns, 4000);
	put_pingpong(&p, &p.a);
	CHECK_EQ(settle(p.f), 1);
	CHECK(reap(&p, 4));
	CHECK_EQ(d->stats.db_poll_catches, 2);

	/* a kicks next, soon after a stop: another turn, the window grows */
	put_pingpong(&p, &p.a);
	orca_dev_doorbell(d, ORCA_FW_VEC_DB);
	CHECK_EQ(d->db_poll_ns, 8000);
	put_pingpong(&p, &p.b);
	CHECK_EQ(settle(p.f), 1);
	CHECK(reap(&p, 4));

	/* nobody answers: the whole window is polled, then halved */
	post_recv(p.f, &p.b, p.buf, 64, p.lk);
	post_send(p.f, &p.a, ORCA_WR_SEND, p.buf, 8, p.lk, 0, 0);
	CHECK(reap(&p, 2));
	CHECK_EQ(d->db_poll_ns, 8000);
	CHECK_EQ(settle(p.f), 8000 / PASS_NS);
	CHECK_EQ(d->stats.db_poll_misses, 1);
	CHECK_EQ(d->db_poll_ns, 4000);
	CHECK_EQ(awake(p.f), 0);
	/* 4000, 2000, 1000 ns missed; 500 is no window */
	for (i = 0; i < 4; i++) {
		put_pingpong(&p, &p.a);
		orca_dev_doorbell(d, ORCA_FW_VEC_DB);
		CHECK(reap(&p, 2));
		CHECK(!d->db_poll_until == (i == 3));
		CHECK_EQ(settle(p.f), i < 3 ? (4000 >> i) / PASS_NS : 0);
	}
	CHECK_EQ(d->stats.db_poll_misses, 4);
	CHECK_EQ(d->db_poll_ns, 0);
	CHECK_EQ(d->stats.db_poll_catches, 3);

	/* b's turn, but db_poll_us after the stop: no ping-pong, no window */
	fx_clock_advance(max);
	put_pingpong(&p, &p.b);
	orca_dev_doorbell(d, ORCA_FW_VEC_DB);
	CHECK(reap(&p, 2));
	CHECK_EQ(d->db_poll_ns, 0);
	CHECK_EQ(d->db_poll_until, 0);
	CHECK_EQ(settle(p.f), 0);
	/* a's turn 1 ns sooner than that: a ping-pong again */
	fx_clock_advance(max - 1);
	put_pingpong(&p, &p.a);
	orca_dev_doorbell(d, ORCA_FW_VEC_DB);
	CHECK(reap(&p, 2));
	CHECK_EQ(d->db_poll_ns, 4000);
	CHECK_EQ(settle(p.f), 4000 / PASS_NS);
	CHECK_EQ(d->stats.db_poll_misses, 5);
	CHECK(canaries_ok(p.f));
	fx_free(p.f);
}

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();
	RUN(protocol);
	RUN(held_awake);
	RUN(reset_clears);
	RUN(disabled);
	RUN(bad_address);
	RUN(poll_adapts);
	return tap_done();
}
