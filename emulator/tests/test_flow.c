// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Flow control through orca-fabric: the send window and the egress
 * queue's back-pressure.  Two devices of this process send megabytes at
 * the fabric's 4 KiB MTU through the switch: nothing may be lost in a
 * queue on the way (the device's egress, the switch's port queue), so
 * nothing is retransmitted.  On the virtual clock of fabric_fixture.h,
 * which moves only while nothing is at the switch: a retransmit timer
 * expires only for a packet that was really lost, never because the
 * host was slow to run the fabric.
 *
 * usage: orca-emu-flow-tests [-v] PATH/TO/orca-fabric
 */
#define RAM_SIZE	(16U << 20)	/* 4 MiB each way, and the rings */

#include "fabric_fixture.h"

#define BIG		(4U << 20)	/* 1024 packets of 4 KiB */
#define NSEND		8		/* the send queue's depth */
#define SEND_LEN	(BIG / NSEND)	/* 128 packets each */
#define VWAIT_NS	(10ULL * 1000000000ULL)

/*
 * Pump until @s has a CQE: at most WAIT_MS of real time (the fabric is
 * another process) and VWAIT_NS of the devices' virtual time (a retry
 * loop), a bound far beyond what the transfer needs.
 */
static bool flow_cqe(struct side *s, struct side *o, struct orca_cqe *c)
{
	uint64_t end = now_ms() + WAIT_MS, vend = dp_now_ns() + VWAIT_NS;

	while (!poll_cqe(s->f, &s->cq, c)) {
		if (now_ms() > end || dp_now_ns() > vend) {
			printf("# no CQE within %u ms (virtual %llu ms)\n",
			       WAIT_MS, (unsigned long long)
			       (dp_now_ns() + VWAIT_NS - vend) / 1000000);
			return false;
		}
		pump(s->f, o->f);
	}
	return true;
}

/* A counter of the switch's stats line; -1 if the switch did not say. */
static long long switch_stat(const char *key)
{
	static char reply[16384];

	return fabric_ctl("stats", reply, sizeof(reply)) ?
	       stat_of(reply, key) : -1;
}

/*
 * One RDMA WRITE of 4 MiB, then a burst of eight 512 KiB SENDs, a to b
 * through the switch: every byte arrives, and no queue dropped anything
 * (device egress, switch port queue), so nothing was sent twice.
 */
static void flow_write_send(void)
{
	struct side a = {}, b = {};
	uint64_t src, dst;
	uint32_t slk = 0, dlk = 0, i;
	struct orca_cqe c;
	uint8_t *sa, *sb;
	unsigned int bad = 0;
	char key[48];

	CHECK(pair_up(&a, &b, ORCA_QPT_RC, NULL));
	src = heap_alloc(BIG);		/* a's */
	dst = heap_alloc(BIG);		/* b's */
	CHECK_EQ(reg_mr(a.f, a.f->pdn, src, BIG, all_access, &slk), 0);
	CHECK_EQ(reg_mr(b.f, b.f->pdn, dst, BIG, all_access, &dlk), 0);
	connect_retry_cnt = 7;
	connect_timeout = 10;			/* 4 ms */
	pair_connect_rc(&a, &b, 5);		/* 4 KiB MTU */
	connect_retry_cnt = 1;
	fx_now_ns = dp_now_ns();
	fx_clock_virtual();
	lossy_clock = true;
	sa = gpa(a.f, src);
	sb = gpa(b.f, dst);

	pattern(sa, BIG, 1);
	memset(sb, 0, BIG);
	post_send(a.f, &a.qp, ORCA_WR_RDMA_WRITE, src, BIG, slk, iova(dst),
		  dlk);
	if (!flow_cqe(&a, &b, &c) || c.status || memcmp(sa, sb, BIG))
		bad++;

	pattern(sa, BIG, 2);
	memset(sb, 0, BIG);
	for (i = 0; !bad && i < NSEND; i++) {
		post_recv(b.f, &b.qp, dst + i * SEND_LEN, SEND_LEN, dlk);
		put_send(a.f, &a.qp, ORCA_WR_SEND, src + i * SEND_LEN,
			 SEND_LEN, slk, 0, 0);
	}
	orca_dev_doorbell(&a.f->dev, ORCA_FW_VEC_DB);
	for (i = 0; !bad && i < NSEND; i++) {
		if (!flow_cqe(&a, &b, &c) || c.status)
			bad++;
		else if (!flow_cqe(&b, &a, &c) || c.status ||
			 le32toh(c.byte_len) != SEND_LEN ||
			 le32toh(c.wqe_idx) != i)
			bad++;
	}
	CHECK_EQ(bad, 0);
	CHECK(!memcmp(sa, sb, BIG));
	CHECK_EQ(qp_state_of(a.f, a.qp.qpn), ORCA_QPS_RTS);
	CHECK_EQ(qp_state_of(b.f, b.qp.qpn), ORCA_QPS_RTS);

	snprintf(key, sizeof(key), "lid%u_queue_drops", lid_of(b.f));
	printf("# 4 MiB WRITE + 8 x 512 KiB SEND: a sent %lld, window waits %lld, egress waits %lld; drops: egress %lld + %lld, switch %lld; retries %llu\n",
	       fx_stat(a.f, "fabric_tx_pkts"), fx_stat(a.f, "window_waits"),
	       fx_stat(a.f, "fabric_egress_waits"),
	       fx_stat(a.f, "fabric_queue_drops"),
	       fx_stat(b.f, "fabric_queue_drops"), switch_stat(key),
	       (unsigned long long)(a.f->dev.stats.retries +
				    b.f->dev.stats.retries));
	/* two messages' worth of packets, and each once */
	CHECK(fx_stat(a.f, "fabric_tx_pkts") >= 2 * BIG / 4096);
	CHECK(fx_stat(a.f, "fabric_tx_pkts") < 2 * BIG / 4096 + 32);
	CHECK_EQ(fx_stat(a.f, "fabric_queue_drops"), 0);
	CHECK_EQ(fx_stat(b.f, "fabric_queue_drops"), 0);
	CHECK_EQ(switch_stat(key), 0);
	CHECK_EQ(a.f->dev.stats.retries + b.f->dev.stats.retries, 0);
	CHECK_EQ(a.f->dev.stats.naks + b.f->dev.stats.naks, 0);
	CHECK(fx_stat(a.f, "window_waits") > 0);
	lossy_clock = false;
	orca_dev_set_clock(NULL);
	pair_down(&a, &b);
}

/*
 * The same WRITE with 2% of the packets lost on each device's link (the
 * link faults act before the switch): it completes, whole, within its
 * retry budget (retry_cnt 7, given back after progress), what was lost
 * is sent again from the first PSN not acknowledged, and still no queue
 * drops anything.
 */
static void flow_lossy(void)
{
	static const char *const lossy[] = { "link_drop_ppm=20000", NULL };
	struct side a = {}, b = {};
	uint32_t slk = 0, dlk = 0;
	struct orca_cqe c;
	uint64_t src, dst;
	char key[48];
	bool done;

	CHECK(pair_up(&a, &b, ORCA_QPT_RC, lossy));
	src = heap_alloc(BIG);
	dst = heap_alloc(BIG);
	CHECK_EQ(reg_mr(a.f, a.f->pdn, src, BIG, all_access, &slk), 0);
	CHECK_EQ(reg_mr(b.f, b.f->pdn, dst, BIG, all_access, &dlk), 0);
	connect_retry_cnt = 7;
	connect_timeout = 10;
	pair_connect_rc(&a, &b, 5);
	connect_retry_cnt = 1;
	fx_now_ns = dp_now_ns();
	fx_clock_virtual();
	lossy_clock = true;
	pattern(gpa(a.f, src), BIG, 3);
	memset(gpa(b.f, dst), 0, BIG);
	post_send(a.f, &a.qp, ORCA_WR_RDMA_WRITE, src, BIG, slk, iova(dst),
		  dlk);
	done = flow_cqe(&a, &b, &c);
	CHECK(done);
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(!memcmp(gpa(a.f, src), gpa(b.f, dst), BIG));
	CHECK_EQ(qp_state_of(a.f, a.qp.qpn), ORCA_QPS_RTS);
	snprintf(key, sizeof(key), "lid%u_queue_drops", lid_of(b.f));
	printf("# 4 MiB WRITE, 2%% loss: a sent %lld, link drops %llu, retries %llu, window waits %lld; queue drops: egress %lld, switch %lld\n",
	       fx_stat(a.f, "fabric_tx_pkts"),
	       (unsigned long long)(a.f->dev.stats.link_drops +
				    b.f->dev.stats.link_drops),
	       (unsigned long long)a.f->dev.stats.retries,
	       fx_stat(a.f, "window_waits"),
	       fx_stat(a.f, "fabric_queue_drops"), switch_stat(key));
	CHECK(a.f->dev.stats.link_drops + b.f->dev.stats.link_drops > 0);
	CHECK(a.f->dev.stats.retries > 0);
	CHECK_EQ(fx_stat(a.f, "fabric_queue_drops"), 0);
	CHECK_EQ(switch_stat(key), 0);
	lossy_clock = false;
	orca_dev_set_clock(NULL);
	pair_down(&a, &b);
}

int main(int argc, char **argv)
{
	bool verbose = fabric_args(argc, argv);

	orca_log_set_quiet(!verbose);
	if (!fab_bin) {
		printf("# no orca-fabric given: the flow cases are skipped\n");
		return tap_done();
	}
	RUN(flow_write_send);
	RUN(flow_lossy);
	return fabric_done();
}
