// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The transport over a lossy link (cfg link_*): RC delivers every message
 * once, whole and in order, through drops, duplicates, reordering and
 * delay, and gives up with RETRY_EXC_ERR when nothing gets through; UC
 * loses whole messages, never delivers a wrong byte.  On a virtual clock
 * (fixture.h): delays and timeouts expire when the device has nothing
 * else to do, in the same order on a loaded host as on an idle one.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dp_fixture.h"
#include "orca_log.h"
#include "orca_msgq.h"

#define MSG	5000		/* 20 packets of 256 bytes */
#define ROUNDS	24

/*
 * Run the device until a CQE comes.  When it has nothing to do, the
 * clock jumps to its next timer (a held packet, a retransmit); with no
 * timer left, or after a million of them (a retry loop), no CQE comes.
 */
static bool wait_cqe(struct fx *f, struct ring_cq *cq, struct orca_cqe *c)
{
	unsigned int timers = 0;
	uint64_t next;

	while (!poll_cqe(f, cq, c)) {
		if (!orca_dev_busy(&f->dev)) {
			next = orca_dev_next_deadline(&f->dev);
			if (!next || ++timers > 1000000)
				return false;
			if (next > fx_clock_read())
				fx_clock_advance(next - fx_clock_read());
		}
		orca_dev_work(&f->dev);
	}
	return true;
}

static void pattern(uint8_t *p, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + 1);
}

struct rc_result {
	unsigned int sends, writes, reads, bad;
};

/*
 * ROUNDS of SEND, RDMA WRITE and RDMA READ of MSG bytes between two RC
 * QPs under the link faults @sets; every completion and every byte is
 * checked.
 */
static struct fx *rc_run(const char *const *sets, struct rc_result *r)
{
	struct fx *f = dp_up_cfg(sets);
	uint64_t src = heap_alloc(4 * PAGE), dst = heap_alloc(4 * PAGE);
	uint8_t *s = gpa(f, src), *d = gpa(f, dst);
	struct ring_qp a, b;
	struct ring_cq cq;
	struct orca_cqe c;
	uint32_t slk, dlk, i;

	memset(r, 0, sizeof(*r));
	CHECK_EQ(reg_mr(f, f->pdn, src, 4 * PAGE, ORCA_ACCESS_LOCAL_WRITE |
			ORCA_ACCESS_REMOTE_READ, &slk), 0);
	CHECK_EQ(reg_mr(f, f->pdn, dst, 4 * PAGE, ORCA_ACCESS_LOCAL_WRITE |
			ORCA_ACCESS_REMOTE_WRITE, &dlk), 0);
	CHECK(make_cq(f, &cq, 5));
	CHECK(make_qp(f, &a, cq.cqn));
	CHECK(make_qp(f, &b, cq.cqn));
	connect_retry_cnt = 7;
	connect_timeout = 8;		/* about 1 ms */
	CHECK(connect_rc(f, &a, b.qpn, ORCA_ACCESS_REMOTE_READ, 1));
	CHECK(connect_rc(f, &b, a.qpn, ORCA_ACCESS_REMOTE_WRITE, 1));
	connect_retry_cnt = 1;
	connect_timeout = 10;
	for (i = 0; i < ROUNDS; i++) {
		struct orca_cqe c2;

		pattern(s, MSG, i);
		memset(d, 0, MSG);
		post_recv(f, &b, dst, 4 * PAGE, dlk);
		post_send(f, &a, ORCA_WR_SEND, src, MSG, slk, 0, 0);
		if (wait_cqe(f, &cq, &c) && wait_cqe(f, &cq, &c2) &&
		    !c.status && !c2.status && !memcmp(s, d, MSG))
			r->sends++;
		else
			r->bad++;

		pattern(s, MSG, i + 1000);
		post_send(f, &a, ORCA_WR_RDMA_WRITE, src, MSG, slk,
			  iova(dst), dlk);
		if (wait_cqe(f, &cq, &c) && !c.status &&
		    c.opcode == ORCA_CQE_OP_RDMA_WRITE && !memcmp(s, d, MSG))
			r->writes++;
		else
			r->bad++;

		pattern(s, MSG, i + 2000);
		post_send(f, &b, ORCA_WR_RDMA_READ, dst, MSG, dlk, iova(src),
			  slk);
		if (wait_cqe(f, &cq, &c) && !c.status &&
		    c.opcode == ORCA_CQE_OP_RDMA_READ && !memcmp(s, d, MSG))
			r->reads++;
		else
			r->bad++;
	}
	CHECK_EQ(qp_state_of(f, a.qpn), ORCA_QPS_RTS);
	CHECK_EQ(qp_state_of(f, b.qpn), ORCA_QPS_RTS);
	/* nothing more: every message completed once */
	orca_dev_work(&f->dev);
	CHECK(!poll_cqe(f, &cq, &c));
	CHECK(canaries_ok(f));
	return f;
}

static void rc_check(const char *const *sets, const char *what)
{
	struct rc_result r;
	struct fx *f = rc_run(sets, &r);

	CHECK_EQ(r.sends, ROUNDS);
	CHECK_EQ(r.writes, ROUNDS);
	CHECK_EQ(r.reads, ROUNDS);
	CHECK_EQ(r.bad, 0);
	printf("# %s: drops %llu dups %llu reorders %llu retries %llu naks %llu",
	     what, (unsigned long long)f->dev.stats.link_drops,
	     (unsigned long long)f->dev.stats.link_dups,
	     (unsigned long long)f->dev.stats.link_reorders,
	     (unsigned long long)f->dev.stats.retries,
	     (unsigned long long)f->dev.stats.naks);
	printf("\n");
	fx_free(f);
}

static void rc_clean_link(void)
{
	struct rc_result r;
	struct fx *f = rc_run(NULL, &r);

	CHECK_EQ(r.bad, 0);
	CHECK_EQ(f->dev.stats.link_drops + f->dev.stats.link_dups +
		 f->dev.stats.link_reorders, 0);
	CHECK_EQ(f->dev.stats.retries, 0);
	fx_free(f);
}

static void rc_loss(void)
{
	static const char *const one[] = { "link_drop_ppm=10000", NULL };
	static const char *const five[] = { "link_drop_ppm=50000", NULL };
	static const char *const twenty[] = { "link_drop_ppm=200000", NULL };
	struct rc_result r;
	struct fx *f;

	rc_check(one, "1% loss");
	rc_check(five, "5% loss");
	rc_check(twenty, "20% loss");
	/* what was lost was sent again */
	f = rc_run(five, &r);
	CHECK_EQ(r.bad, 0);
	CHECK(f->dev.stats.link_drops > 0);
	CHECK(f->dev.stats.retries > 0);
	fx_free(f);
}

static void rc_dup_reorder_delay(void)
{
	static const char *const dup[] = { "link_dup_ppm=100000", NULL };
	static const char *const reorder[] = { "link_reorder_ppm=100000",
					       NULL };
	static const char *const delay[] = { "link_delay_us=300", NULL };
	static const char *const all[] = {
		"link_drop_ppm=30000", "link_dup_ppm=30000",
		"link_reorder_ppm=30000", "link_delay_us=50", NULL };
	struct rc_result r;
	struct fx *f;

	rc_check(dup, "10% duplicated");
	rc_check(reorder, "10% reordered");
	rc_check(delay, "300 us delay");
	rc_check(all, "3% of each, 50 us delay");
	f = rc_run(dup, &r);
	CHECK(f->dev.stats.link_dups > 0);
	fx_free(f);
	f = rc_run(reorder, &r);
	CHECK(f->dev.stats.link_reorders > 0);
	fx_free(f);
}

/* The same seed, the same faults. */
static void seeded(void)
{
	static const char *const s1[] = { "link_drop_ppm=50000",
					  "link_seed=42", NULL };
	static const char *const s2[] = { "link_drop_ppm=50000",
					  "link_seed=43", NULL };
	struct rc_result r;
	uint64_t d1, d2, d3;
	struct fx *f;

	f = rc_run(s1, &r);
	d1 = f->dev.stats.link_drops;
	fx_free(f);
	f = rc_run(s1, &r);
	d2 = f->dev.stats.link_drops;
	fx_free(f);
	f = rc_run(s2, &r);
	d3 = f->dev.stats.link_drops;
	fx_free(f);
	printf("# seed 42: %llu and %llu drops; seed 43: %llu\n",
	     (unsigned long long)d1, (unsigned long long)d2,
	     (unsigned long long)d3);
	CHECK(d1 > 0);
	CHECK_EQ(d1, d2);
	CHECK(d1 != d3);
}

/* A link that carries nothing: the requester retries, then gives up. */
static void rc_peer_gone(void)
{
	static const char *const dead[] = { "link_drop_ppm=1000000", NULL };
	struct fx *f = dp_up_cfg(dead);
	uint64_t src = heap_alloc(PAGE);
	struct ring_qp a, b;
	struct ring_cq cq;
	struct orca_cqe c;
	uint32_t slk;

	CHECK_EQ(reg_mr(f, f->pdn, src, PAGE, ORCA_ACCESS_LOCAL_WRITE,
			&slk), 0);
	CHECK(make_cq(f, &cq, 4));
	CHECK(make_qp(f, &a, cq.cqn));
	CHECK(make_qp(f, &b, cq.cqn));
	connect_retry_cnt = 3;
	connect_timeout = 8;
	CHECK(connect_rc(f, &a, b.qpn, 0, 1));
	CHECK(connect_rc(f, &b, a.qpn, 0, 1));
	connect_retry_cnt = 1;
	connect_timeout = 10;
	post_send(f, &a, ORCA_WR_SEND, src, 100, slk, 0, 0);
	CHECK(wait_cqe(f, &cq, &c));
	CHECK_EQ(c.status, ORCA_CQE_RETRY_EXC_ERR);
	CHECK_EQ(f->dev.stats.retries, 3);	/* retry_cnt, then the end */
	CHECK_EQ(qp_state_of(f, a.qpn), ORCA_QPS_ERR);
	fx_free(f);
}

/*
 * UC under 20% loss: a message either arrives whole and right, or is
 * lost with no completion; never a wrong byte.
 */
static void uc_loss(void)
{
	static const char *const lossy[] = { "link_drop_ppm=200000", NULL };
	struct fx *f = dp_up_cfg(lossy);
	uint64_t src = heap_alloc(2 * PAGE), dst = heap_alloc(16 * PAGE);
	uint8_t *s = gpa(f, src), *d = gpa(f, dst);
	unsigned int i, got = 0, right = 0, sent = 0;
	struct ring_qp a, b;
	struct ring_cq cq;
	struct orca_cqe c;
	uint32_t slk, dlk;

	CHECK_EQ(reg_mr(f, f->pdn, src, 2 * PAGE, ORCA_ACCESS_LOCAL_WRITE,
			&slk), 0);
	CHECK_EQ(reg_mr(f, f->pdn, dst, 16 * PAGE, ORCA_ACCESS_LOCAL_WRITE,
			&dlk), 0);
	CHECK(make_cq(f, &cq, 6));
	CHECK(make_qp_srq(f, &a, cq.cqn, ORCA_QPT_UC, 0));
	CHECK(make_qp_srq(f, &b, cq.cqn, ORCA_QPT_UC, 0));
	CHECK(connect_uc(f, &a, b.qpn));
	CHECK(connect_uc(f, &b, a.qpn));
	/* 8 receive buffers of 2 pages, one message of 1000 B each round */
	for (i = 0; i < 8; i++)
		post_recv(f, &b, dst + i * 2 * PAGE, 2 * PAGE, dlk);
	for (i = 0; i < 40; i++) {
		pattern(s, 1000, i);
		/*
		 * The send completes whether or not it arrived; with no
		 * delay configured, all is done when the doorbell returns.
		 */
		post_send(f, &a, ORCA_WR_SEND, src, 1000, slk, 0, 0);
		sent++;
		while (poll_cqe(f, &cq, &c)) {
			uint8_t want[1000];
			uint32_t slot = le32toh(c.wqe_idx) & 7;

			if (c.flags & ORCA_CQE_F_SQ)
				continue;
			got++;
			pattern(want, 1000, i);
			if (!c.status && le32toh(c.byte_len) == 1000 &&
			    !memcmp(d + slot * 2 * PAGE, want, 1000))
				right++;
			post_recv(f, &b, dst + slot * 2 * PAGE, 2 * PAGE, dlk);
		}
	}
	printf("# UC, 20%% loss: %u sent, %u received, %u right, %llu drops\n",
	     sent, got, right, (unsigned long long)f->dev.stats.link_drops);
	CHECK(got < sent);
	CHECK(got > 0);
	CHECK_EQ(right, got);
	CHECK_EQ(qp_state_of(f, b.qpn), ORCA_QPS_RTS);
	CHECK(canaries_ok(f));
	fx_free(f);
}

#define WMSG	(64 * PAGE)	/* 1024 packets of 256 bytes */
#define WINDOW	64		/* ORCA_MAX_UNACKED_PSNS */

/*
 * The send window: with 100 us on the link, a WRITE of 1024 packets puts
 * 64 on it and waits; the ACKs it asked for (every 32nd packet) move the
 * window, so it completes with no retransmission and no timer.  Then on
 * a link that also drops 5%, a WRITE and a SEND of as many packets still
 * complete, whole, with what was lost sent again (retry_cnt 7, each
 * expiry after progress giving the count back).
 */
static void rc_window(void)
{
	static const char *const slow[] = { "link_delay_us=100", NULL };
	static const char *const lossy[] = { "link_delay_us=100",
					     "link_drop_ppm=50000", NULL };
	const char *const *sets[] = { slow, lossy };
	unsigned int run;

	for (run = 0; run < 2; run++) {
		struct fx *f = dp_up_cfg(sets[run]);
		uint64_t src = heap_alloc(WMSG), dst = heap_alloc(WMSG);
		uint8_t *s = gpa(f, src), *d = gpa(f, dst);
		struct orca_cqe c, c2;
		struct ring_qp a, b;
		struct ring_cq cq;
		uint32_t slk = 0, dlk = 0;

		CHECK_EQ(reg_mr(f, f->pdn, src, WMSG, ORCA_ACCESS_LOCAL_WRITE,
				&slk), 0);
		CHECK_EQ(reg_mr(f, f->pdn, dst, WMSG, ORCA_ACCESS_LOCAL_WRITE |
				ORCA_ACCESS_REMOTE_WRITE, &dlk), 0);
		CHECK(make_cq(f, &cq, 5));
		CHECK(make_qp(f, &a, cq.cqn));
		CHECK(make_qp(f, &b, cq.cqn));
		connect_retry_cnt = 7;
		connect_timeout = 10;		/* 4 ms: 20 round trips */
		CHECK(connect_rc(f, &a, b.qpn, 0, 1));
		CHECK(connect_rc(f, &b, a.qpn, ORCA_ACCESS_REMOTE_WRITE, 1));
		connect_retry_cnt = 1;
		pattern(s, WMSG, run);
		memset(d, 0, WMSG);
		post_send(f, &a, ORCA_WR_RDMA_WRITE, src, WMSG, slk,
			  iova(dst), dlk);
		if (run == 0) {
			/* the doorbell's engine run: one window, no more */
			CHECK_EQ(f->dev.stats.pkts, WINDOW);
			CHECK_EQ(fx_stat(f, "window_waits"), 1);
		}
		CHECK(wait_cqe(f, &cq, &c));
		CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
		CHECK(!memcmp(s, d, WMSG));

		pattern(s, WMSG, run + 10);
		post_recv(f, &b, dst, WMSG, dlk);
		post_send(f, &a, ORCA_WR_SEND, src, WMSG, slk, 0, 0);
		CHECK(wait_cqe(f, &cq, &c) && wait_cqe(f, &cq, &c2));
		CHECK(!c.status && !c2.status);
		CHECK(!memcmp(s, d, WMSG));
		CHECK_EQ(qp_state_of(f, a.qpn), ORCA_QPS_RTS);
		CHECK_EQ(qp_state_of(f, b.qpn), ORCA_QPS_RTS);
		printf("# window, %s: %llu packets, window waits %lld, drops %llu, retries %llu\n",
		       run ? "100 us, 5% loss" : "100 us",
		       (unsigned long long)f->dev.stats.pkts,
		       fx_stat(f, "window_waits"),
		       (unsigned long long)f->dev.stats.link_drops,
		       (unsigned long long)f->dev.stats.retries);
		CHECK(fx_stat(f, "window_waits") > 2);
		if (run == 0) {
			/* the ACKs moved it, never the timer */
			CHECK_EQ(f->dev.stats.retries, 0);
			CHECK_EQ(f->dev.stats.naks, 0);
		} else {
			CHECK(f->dev.stats.link_drops > 0);
			CHECK(f->dev.stats.retries > 0);
		}
		CHECK(canaries_ok(f));
		fx_free(f);
	}
}

/*
 * Subnet management is never queued behind data (IBA 7.6.4, VL15): on
 * the port's link an SMP goes before the data packets already waiting,
 * behind the SMPs before it.
 */
static void vl15_passes_data(void)
{
	static const uint8_t vl[6] = { 0, 0, ORCA_VL15, 0, ORCA_VL15, 0 };
	/* what leaves first: the SMPs in their order, then the data */
	static const unsigned int want[6] = { 2, 4, 0, 1, 3, 5 };
	struct fx *f = dp_up();
	struct orca_pkt *p[6], *q;
	unsigned int i, n = 0;
	uint16_t lid = f->dev.cfg.lid;

	for (i = 0; i < 6; i++) {
		p[i] = pkt_alloc(&f->dev);
		CHECK(p[i]);
		if (!p[i])
			goto out;
		p[i]->vl = vl[i];
		p[i]->dlid = lid;
		p[i]->slid = lid;
		p[i]->opcode = IB_UD | IB_SEND_ONLY;
		p[i]->dqpn = vl[i] == ORCA_VL15 ? 0 : 5;
		f->dev.link->xmit(&f->dev, p[i]);
	}
	for (q = f->dev.link_head; q && n < 6; q = q->next, n++)
		CHECK(q == p[want[n]]);
	CHECK_EQ(n, 6);
	CHECK(f->dev.link_tail == p[5]);
	CHECK_EQ(f->dev.link_n, 6);
out:
	wire_drain(&f->dev);
	CHECK_EQ(f->dev.link_n, 0);
	fx_free(f);
}

/*
 * ... and on the way to the fabric: a port's VL15 queue goes first, and
 * data only once no SMP waits, each queue in its own order
 * (msgq_flush_vl15(), the device's egress and each switch port's).
 */
static void vl15_queue_first(void)
{
	struct msgq q15, q;
	int sv[2], i;
	char buf[16];

	CHECK_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	CHECK_EQ(msgq_init(&q15, 2, 16), 0);
	CHECK_EQ(msgq_init(&q, 4, 16), 0);
	for (i = 0; i < 3; i++) {
		snprintf((char *)msgq_tail(&q), 16, "data%d", i);
		msgq_push(&q, 6);
	}
	for (i = 0; i < 2; i++) {
		snprintf((char *)msgq_tail(&q15), 16, "smp%d", i);
		msgq_push(&q15, 5);
	}
	CHECK(!msgq_tail(&q15));	/* full: the caller drops and counts */
	CHECK_EQ(msgq_flush_vl15(&q15, &q, sv[0]), 5);
	CHECK(msgq_empty(&q15) && msgq_empty(&q));
	CHECK(recv(sv[1], buf, sizeof(buf), 0) == 5 && !strcmp(buf, "smp0"));
	CHECK(recv(sv[1], buf, sizeof(buf), 0) == 5 && !strcmp(buf, "smp1"));
	for (i = 0; i < 3; i++) {
		char want[8];

		snprintf(want, sizeof(want), "data%d", i);
		CHECK(recv(sv[1], buf, sizeof(buf), 0) == 6 &&
		      !strcmp(buf, want));
	}
	msgq_free(&q15);
	msgq_free(&q);
	close(sv[0]);
	close(sv[1]);
}

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();
	RUN(rc_clean_link);
	RUN(rc_loss);
	RUN(rc_dup_reorder_delay);
	RUN(seeded);
	RUN(rc_peer_gone);
	RUN(uc_loss);
	RUN(rc_window);
	RUN(vl15_passes_data);
	RUN(vl15_queue_first);
	return tap_done();
}
