// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_timestamp: completion timestamps and the device clock on orca:
 * IBV_WC_EX_WITH_COMPLETION_TIMESTAMP(_WALLCLOCK), ibv_query_rt_values_ex.
 *   usage: verbs_timestamp [-d DEV] [--config FILE] [--set KEY=VALUE]...
 *
 * The clock's frequency and bits come from the emulator's configuration
 * (tests/verbs/expect.h: hca_core_clock kHz, completion_timestamp_mask),
 * not from the device:
 *  - ibv_query_device_ex reports both;
 *  - ibv_query_rt_values_ex reads the free-running clock: within its
 *    bits, and across a guest sleep it advances by what the guest's own
 *    clock says at hca_core_clock (a wrong unit is off by a factor);
 *  - on an RC pair whose send and receive CQs ask for both timestamps,
 *    every completion has them: a receive's before its send's, both
 *    between a clock read before the post and one after the poll (modulo
 *    the mask); the wall-clock ones are the time of day (within an hour
 *    of the guest's), in the same order, and they and the free-running
 *    ones measure the same interval; a batch's stamps never go back; a
 *    resized CQ still stamps;
 *  - without a clock, both CQ flags and ibv_query_rt_values_ex are
 *    EOPNOTSUPP.
 */
#include <time.h>

#include "common.h"
#include "expect.h"

#define BATCH		16

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_port_attr port;
static struct ibv_cq_ex *scq, *rcq;
static struct ibv_qp *qa, *qb;
static struct ibv_mr *mr;
static uint8_t buf[4096];
static uint64_t khz, mask;

static uint64_t guest_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* (b - a) in the counter's bits: the ticks from a to b */
static uint64_t since(uint64_t a, uint64_t b)
{
	return (b - a) & mask;
}

/* ticks of a khz clock in ns, in floating point: a diagnostic scale */
static double ticks_ns(uint64_t ticks)
{
	return (double)ticks * 1e6 / (double)khz;
}

static bool raw_clock(uint64_t *t)
{
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	int ret = ibv_query_rt_values_ex(ctx, &v);

	if (ret || v.comp_mask != IBV_VALUES_MASK_RAW_CLOCK ||
	    v.raw_clock.tv_sec != 0) {
		diag("ibv_query_rt_values_ex: %s, comp_mask %#x, tv_sec %lld",
		     strerror(ret), v.comp_mask, (long long)v.raw_clock.tv_sec);
		return false;
	}
	*t = (uint64_t)v.raw_clock.tv_nsec;
	return true;
}

static struct ibv_cq_ex *stamped_cq(uint64_t wc_flags)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 2 * BATCH,
		.wc_flags = IBV_WC_STANDARD_FLAGS | wc_flags,
	};

	return ibv_create_cq_ex(ctx, &ca);
}

struct stamp {
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint64_t ts, wall;
};

/* The next completion of @cq with both its timestamps. */
static struct stamp next_stamp(struct ibv_cq_ex *cq)
{
	struct ibv_poll_cq_attr pa = {};
	struct stamp s = { .status = IBV_WC_GENERAL_ERR };
	long long until = now_ms() + wait_ms();
	int ret;

	while ((ret = ibv_start_poll(cq, &pa)) == ENOENT && now_ms() < until)
		;
	if (ret)
		return s;
	s.status = cq->status;
	s.opcode = ibv_wc_read_opcode(cq);
	s.ts = ibv_wc_read_completion_ts(cq);
	s.wall = ibv_wc_read_completion_wallclock_ns(cq);
	ibv_end_poll(cq);
	return s;
}

static void device_attrs(const struct expect *ex)
{
	struct ibv_device_attr_ex a;

	if (!ok(!ibv_query_device_ex(ctx, NULL, &a), "ibv_query_device_ex"))
		return;
	ok(a.hca_core_clock == ex->hca_core_clock,
	   "hca_core_clock %llu kHz (expected %llu)",
	   (unsigned long long)a.hca_core_clock,
	   (unsigned long long)ex->hca_core_clock);
	ok(a.completion_timestamp_mask == ex->completion_timestamp_mask,
	   "completion_timestamp_mask %#llx (expected %#llx)",
	   (unsigned long long)a.completion_timestamp_mask,
	   (unsigned long long)ex->completion_timestamp_mask);
}

/* The clock advances at hca_core_clock, by the guest's own clock. */
static void clock_rate(void)
{
	uint64_t g0, g1, s0, s1, t0, t1;
	double lo, hi, got;

	g0 = guest_ns(CLOCK_MONOTONIC);
	if (!ok(raw_clock(&t0), "ibv_query_rt_values_ex(RAW_CLOCK): raw_clock.tv_sec 0, the ticks in tv_nsec"))
		return;
	s0 = guest_ns(CLOCK_MONOTONIC);
	sleep_ms(300);
	s1 = guest_ns(CLOCK_MONOTONIC);
	if (!raw_clock(&t1))
		return;
	g1 = guest_ns(CLOCK_MONOTONIC);
	ok((t0 & ~mask) == 0 && (t1 & ~mask) == 0,
	   "the clock is within its bits (%#llx, %#llx)",
	   (unsigned long long)t0, (unsigned long long)t1);
	/*
	 * The two reads lie between g0 and g1 and around the sleep: their
	 * ticks are those of at least s1 - s0 and at most g1 - g0 ns.  10 %
	 * is for the guest's and the host's clocks not running alike; a
	 * clock in the wrong unit (ns for kHz ticks) misses by 6x or more.
	 */
	got = ticks_ns(since(t0, t1));
	lo = 0.9 * (double)(s1 - s0);
	hi = 1.1 * (double)(g1 - g0);
	ok(got >= lo && got <= hi,
	   "across a 300 ms sleep it advanced %.0f ns at %llu kHz (the guest: %.0f..%.0f ns)",
	   got, (unsigned long long)khz, (double)(s1 - s0), (double)(g1 - g0));
}

static bool connect_pair(void)
{
	struct ibv_qp_init_attr init = {
		.send_cq = ibv_cq_ex_to_cq(scq),
		.recv_cq = ibv_cq_ex_to_cq(rcq),
		.cap = { .max_send_wr = BATCH, .max_recv_wr = BATCH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	qa = ibv_create_qp(pd, &init);
	qb = ibv_create_qp(pd, &init);
	return qa && qb && !connect_to(qa, qb->qp_num, &port) &&
	       !connect_to(qb, qa->qp_num, &port);
}

static int post_recv(void)
{
	struct ibv_sge sge = { (uintptr_t)buf + 2048, 64, mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(qb, &wr, &bad);
}

static int post_send(uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)buf, 64, mr->lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	return ibv_post_send(qa, &wr, &bad);
}

/* One SEND: its two completions, stamped, between two clock reads. */
static void one_send(void)
{
	uint64_t t0, t1, wall0 = guest_ns(CLOCK_REALTIME);
	struct stamp r, s;
	double dts, dwall;

	if (!raw_clock(&t0) || post_recv() || post_send(1)) {
		ok(false, "post a receive and a SEND");
		return;
	}
	r = next_stamp(rcq);
	s = next_stamp(scq);
	if (!raw_clock(&t1) ||
	    !ok(r.status == IBV_WC_SUCCESS && r.opcode == IBV_WC_RECV &&
		s.status == IBV_WC_SUCCESS && s.opcode == IBV_WC_SEND,
		"a SEND: a receive and a send completion, both IBV_WC_SUCCESS"))
		return;
	diag("clock %#llx, receive %#llx, send %#llx, clock %#llx",
	     (unsigned long long)t0, (unsigned long long)r.ts,
	     (unsigned long long)s.ts, (unsigned long long)t1);
	ok(since(t0, r.ts) <= since(t0, s.ts) && since(t0, s.ts) <= since(t0, t1),
	   "clock before <= the receive's stamp <= the send's (after the ACK) <= clock after");
	ok(r.wall <= s.wall, "the wall-clock stamps in the same order (%llu, %llu)",
	   (unsigned long long)r.wall, (unsigned long long)s.wall);
	ok(r.wall + 3600000000000ULL > wall0 && r.wall < wall0 + 3600000000000ULL,
	   "the wall-clock stamp is the time of day: %.3f s from the guest's",
	   ((double)r.wall - (double)wall0) / 1e9);
	/*
	 * Each CQE's two stamps are read together: from the receive to the
	 * send both clocks measure the same time (a second is a bound far
	 * beyond two clock reads in a row).
	 */
	dts = ticks_ns(since(r.ts, s.ts));
	dwall = (double)(s.wall - r.wall);
	ok(dts - dwall < 1e9 && dwall - dts < 1e9,
	   "receive to send: %.0f ns by the free-running stamps, %.0f ns by the wall-clock ones",
	   dts, dwall);
}

/* A batch: the send CQ's stamps never go back. */
static void batch(void)
{
	struct stamp s[BATCH];
	unsigned int i, good = 0, order = 0;
	uint64_t t0;

	if (!raw_clock(&t0))
		return;
	for (i = 0; i < BATCH; i++)
		if (post_recv() || post_send(100 + i)) {
			ok(false, "post %u SENDs", BATCH);
			return;
		}
	for (i = 0; i < BATCH; i++) {
		struct stamp r = next_stamp(rcq);

		s[i] = next_stamp(scq);
		good += r.status == IBV_WC_SUCCESS &&
			s[i].status == IBV_WC_SUCCESS;
	}
	for (i = 0; i < BATCH; i++)
		order += since(t0, s[i].ts) >= (i ? since(t0, s[i - 1].ts) : 0) &&
			 s[i].wall >= (i ? s[i - 1].wall : 0);
	ok(good == BATCH && order == BATCH,
	   "%u SENDs: every completion stamped, in order (%u succeeded, %u in order)",
	   BATCH, good, order);
}

/* ibv_resize_cq: the CQ keeps its timestamps. */
static void resized(void)
{
	uint64_t t0;
	struct stamp s;

	if (!ok(!ibv_resize_cq(ibv_cq_ex_to_cq(scq), 4 * BATCH),
		"ibv_resize_cq of the send CQ to %u", 4 * BATCH) ||
	    !raw_clock(&t0))
		return;
	if (post_recv() || post_send(7)) {
		ok(false, "post a SEND");
		return;
	}
	next_stamp(rcq);
	s = next_stamp(scq);
	ok(s.status == IBV_WC_SUCCESS && s.ts != 0 && s.wall != 0 &&
	   since(t0, s.ts) < mask / 2,
	   "a completion after the resize is stamped, after the clock read before it");
}

static void refused(void)
{
	static const uint64_t flags[] = {
		IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
		IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
	};
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	unsigned int i;
	int ret;

	for (i = 0; i < 2; i++) {
		struct ibv_cq_ex *cq;

		errno = 0;
		cq = stamped_cq(flags[i]);
		ok(!cq && errno == EOPNOTSUPP,
		   "no clock: ibv_create_cq_ex(%s) is EOPNOTSUPP (%s)",
		   i ? "WALLCLOCK" : "COMPLETION_TIMESTAMP",
		   cq ? "created" : strerror(errno));
		if (cq)
			ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	}
	ret = ibv_query_rt_values_ex(ctx, &v);
	ok(ret == EOPNOTSUPP, "no clock: ibv_query_rt_values_ex is EOPNOTSUPP (%s)",
	   strerror(ret));
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	struct expect ex;

	if (expect_init(&ex, &argc, argv) || argc > 1) {
		fprintf(stderr, "usage: %s [-d DEV] [--config FILE] [--set KEY=VALUE]...\n",
			argv[0]);
		return 2;
	}
	khz = ex.hca_core_clock;
	mask = ex.completion_timestamp_mask;
	diag("expected configuration from %s: hca_core_clock %llu kHz, mask %#llx",
	     ex.source, (unsigned long long)khz, (unsigned long long)mask);
	ctx = open_device_by_name(dev);
	if (!ok(ctx != NULL, "open %s", dev))
		return tap_done();
	pd = ibv_alloc_pd(ctx);
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!ok(pd && mr && !ibv_query_port(ctx, 1, &port), "PD, region, port"))
		return tap_done();
	device_attrs(&ex);
	if (!khz) {
		refused();
		return tap_done();
	}
	clock_rate();
	scq = stamped_cq(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK);
	rcq = stamped_cq(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK);
	if (!ok(scq && rcq, "two CQs with both timestamps (%s)",
		scq && rcq ? "created" : strerror(errno)) ||
	    !ok(connect_pair(), "an RC pair on them"))
		return tap_done();
	one_send();
	batch();
	resized();
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	ibv_destroy_cq(ibv_cq_ex_to_cq(scq));
	ibv_destroy_cq(ibv_cq_ex_to_cq(rcq));
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return tap_done();
}
