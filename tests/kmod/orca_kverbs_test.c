// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Kernel verbs on an orca device, as a kernel consumer (ib_mad, IPoIB,
 * NVMe/RDMA) uses them: a PD with ib_core's local_dma_lkey, CQs polled
 * directly and by ib_core's softirq poller, RC and UD QPs on driver
 * rings, SEND / SEND_WITH_IMM / inline sends between them with every byte
 * checked, a shared receive queue, UD address handles made where no one
 * may sleep, completion events with IB_CQ_REPORT_MISSED_EVENTS, a bad
 * lkey's error completion, ib_drain_qp(), and fast registration (an
 * ib_alloc_mr region mapped with ib_map_mr_sg, registered by IB_WR_REG_MR,
 * written and read by the peer through its rkey, invalidated by
 * IB_WR_LOCAL_INV and by the peer's IB_WR_SEND_WITH_INV, the device
 * refusing what the rules refuse).
 *
 * With dead=1 instead: kernel QPs with work outstanding when the device
 * dies (the test script makes its health fatal once this module says it
 * waits for that); ib_drain_qp()'s steps still work, and every WR
 * completes flushed.  With slow=1: a device declared dead while it still
 * places a SEND; nothing completes flushed before it is stopped, and
 * nothing twice.  Beside them: RESET of a kernel QP, a long-lived SRQ
 * under QP churn, a QPN reused at once, and NodeDescription read by the
 * SMA path while another CPU rewrites it.
 *
 * Loaded by tests/vm/kverbs.sh: insmod orca_kverbs_test.ko dev=orca0
 * run=ID [dead=1].  Each check is one TAP line in the kernel log, prefixed with
 * "orca_kverbs[ID]: "; the load fails with -EIO if any check failed.
 */

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>
#include <rdma/ib_verbs.h>

static char *dev_name_param = "orca0";
module_param_named(dev, dev_name_param, charp, 0444);
MODULE_PARM_DESC(dev, "RDMA device to test (default orca0)");
static char *run_id = "0";
module_param_named(run, run_id, charp, 0444);
MODULE_PARM_DESC(run, "Tag of this run's log lines");
static bool dead_param;
module_param_named(dead, dead_param, bool, 0444);
MODULE_PARM_DESC(dead, "Test the device dying under kernel QPs instead");
static bool slow_param;
module_param_named(slow, slow_param, bool, 0444);
MODULE_PARM_DESC(slow, "Test a device declared dead while it is still placing a SEND (orca cmd_timeout_ms=1000, hostctl place-delay) instead");
static bool go_param;
module_param_named(go, go_param, bool, 0644);
MODULE_PARM_DESC(go, "slow=1: set by the script once the driver has logged that the dead device stopped");
static bool cqn_param;
module_param_named(cqn, cqn_param, bool, 0444);
MODULE_PARM_DESC(cqn, "Test that a CQ given a destroyed CQ's number gets none of its events (hostctl comp-irq-hold 1, reuse-handles 1; the script sets go once the held interrupt was taken) instead");
static bool reuse_param;
module_param_named(reuse, reuse_param, bool, 0444);
MODULE_PARM_DESC(reuse, "The device hands out the lowest free number (hostctl reuse-handles 1): a QP created after a destroy must get the destroyed one's QPN");
static unsigned int wait_ms = 10000;
module_param(wait_ms, uint, 0444);
MODULE_PARM_DESC(wait_ms, "Bound of every wait in ms (the script passes ORCA_WAIT); a wait ends as soon as its condition holds");

#define BUF_SIZE	(64 * 1024)

struct kv {
	struct ib_device *dev;
	struct ib_pd *pd;
	u32 port_lid;
	enum ib_mtu mtu;
	u8 *src, *dst;
	u64 src_dma, dst_dma;
	unsigned int n, failed;
	bool found;
};

static struct kv kv;

static __printf(2, 3) void check(bool ok, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	kv.n++;
	if (!ok)
		kv.failed++;
	pr_info("orca_kverbs[%s]: %sok %u - %pV\n", run_id, ok ? "" : "not ",
		kv.n, &vaf);
	va_end(args);
}

/* Poll @cq until @n completions, or wait_ms; returns how many came. */
static int poll_n(struct ib_cq *cq, struct ib_wc *wc, int n)
{
	unsigned long end = jiffies + msecs_to_jiffies(wait_ms);
	int got = 0, r;

	while (got < n && time_before(jiffies, end)) {
		r = ib_poll_cq(cq, n - got, wc + got);
		if (r < 0)
			return r;
		got += r;
		if (got < n)
			usleep_range(50, 200);
	}
	return got;
}

static struct ib_qp *make_qp(struct ib_cq *cq, enum ib_qp_type type)
{
	struct ib_qp_init_attr a = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = type,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 1,
			 .max_inline_data = 64 },
	};

	return ib_create_qp(kv.pd, &a);
}

static int to_rts(struct ib_qp *qp, u32 dest_qpn)
{
	struct ib_qp_attr a = {};
	bool rc = qp->qp_type == IB_QPT_RC, ud = qp->qp_type == IB_QPT_UD;
	int err;

	a.qp_state = IB_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qkey = 0x11111111;
	/* the fast registration test's peer writes and reads */
	a.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	err = ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | (ud ? IB_QP_QKEY : IB_QP_ACCESS_FLAGS));
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	if (!ud) {
		a.path_mtu = kv.mtu;
		a.dest_qp_num = dest_qpn;
		a.rq_psn = 100;
		a.ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
		rdma_ah_set_dlid(&a.ah_attr, kv.port_lid);
		rdma_ah_set_port_num(&a.ah_attr, 1);
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 1;
	}
	err = ib_modify_qp(qp, &a, IB_QP_STATE | (ud ? 0 :
			   IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
			   IB_QP_RQ_PSN | (rc ? IB_QP_MAX_DEST_RD_ATOMIC |
					   IB_QP_MIN_RNR_TIMER : 0)));
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.sq_psn = 100;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ib_modify_qp(qp, &a, IB_QP_STATE | IB_QP_SQ_PSN |
			    (rc ? IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			     IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC : 0));
}

/* Two RC QPs on @cq, connected to each other in RTS; 0 or an error. */
static int rc_pair(struct ib_cq *cq, struct ib_qp **a, struct ib_qp **b)
{
	*a = make_qp(cq, IB_QPT_RC);
	*b = make_qp(cq, IB_QPT_RC);
	if (IS_ERR(*a) || IS_ERR(*b))
		return -ENOMEM;
	if (to_rts(*a, (*b)->qp_num) || to_rts(*b, (*a)->qp_num))
		return -EINVAL;
	return 0;
}

/* The QPs a test made, those it did make (NULL or ERR_PTR: none). */
static void destroy_qps(struct ib_qp *a, struct ib_qp *b)
{
	if (!IS_ERR_OR_NULL(a))
		ib_destroy_qp(a);
	if (!IS_ERR_OR_NULL(b))
		ib_destroy_qp(b);
}

static int post_recv(struct ib_qp *qp, u64 wr_id, u64 addr, u32 len)
{
	struct ib_sge sge = { .addr = addr, .length = len,
			      .lkey = kv.pd->local_dma_lkey };
	struct ib_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				 .num_sge = 1 };

	return ib_post_recv(qp, &wr, NULL);
}

static void fill(u8 *p, size_t len, u8 seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(i * 31 + seed);
}

/* The wc of @qp and @opcode among @n, or NULL. */
static struct ib_wc *find_wc(struct ib_wc *wc, int n, struct ib_qp *qp,
			     enum ib_wc_opcode opcode)
{
	int i;

	for (i = 0; i < n; i++)
		if (wc[i].qp == qp && wc[i].opcode == opcode)
			return &wc[i];
	return NULL;
}

/* RC: a 2-SGE SEND of 10000 bytes, SEND_WITH_IMM, an inline SEND. */
static void test_rc(struct ib_cq *cq, struct ib_qp *a, struct ib_qp *b)
{
	const u32 len = 10000, half = 4000;
	struct ib_sge sge[2] = {
		{ .addr = kv.src_dma, .length = half,
		  .lkey = kv.pd->local_dma_lkey },
		{ .addr = kv.src_dma + half, .length = len - half,
		  .lkey = kv.pd->local_dma_lkey },
	};
	struct ib_send_wr wr = { .wr_id = 0xa1, .sg_list = sge, .num_sge = 2,
				 .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };
	char inl[48] = "inline data, copied into the WQE by post_send";
	struct ib_wc wc[4], *r, *s;
	int got;

	fill(kv.src, len, 7);
	memset(kv.dst, 0, BUF_SIZE);
	check(!post_recv(b, 0xb1, kv.dst_dma, BUF_SIZE), "RC post_recv");
	check(!ib_post_send(a, &wr, NULL), "RC post_send of 2 SGEs");
	got = poll_n(cq, wc, 2);
	r = find_wc(wc, got, b, IB_WC_RECV);
	s = find_wc(wc, got, a, IB_WC_SEND);
	check(got == 2 && r && s, "RC SEND: 2 completions (%d)", got);
	if (r && s) {
		check(r->status == IB_WC_SUCCESS && s->status == IB_WC_SUCCESS,
		      "RC SEND: success (%d, %d)", r->status, s->status);
		check(r->wr_id == 0xb1 && s->wr_id == 0xa1,
		      "RC SEND: wr_ids 0x%llx, 0x%llx", r->wr_id, s->wr_id);
		check(r->byte_len == len && r->src_qp == a->qp_num,
		      "RC SEND: byte_len %u from QP %u", r->byte_len,
		      r->src_qp);
	}
	ib_dma_sync_single_for_cpu(kv.dev, kv.dst_dma, BUF_SIZE,
				   DMA_FROM_DEVICE);
	check(!memcmp(kv.src, kv.dst, len), "RC SEND: every byte arrived");

	wr.opcode = IB_WR_SEND_WITH_IMM;
	wr.ex.imm_data = cpu_to_be32(0x1234abcd);
	wr.num_sge = 1;
	sge[0].length = 100;
	check(!post_recv(b, 0xb2, kv.dst_dma, BUF_SIZE), "RC post_recv 2");
	check(!ib_post_send(a, &wr, NULL), "RC post SEND_WITH_IMM");
	got = poll_n(cq, wc, 2);
	r = find_wc(wc, got, b, IB_WC_RECV);
	check(r && r->status == IB_WC_SUCCESS &&
	      (r->wc_flags & IB_WC_WITH_IMM) &&
	      r->ex.imm_data == cpu_to_be32(0x1234abcd) && r->byte_len == 100,
	      "RC SEND_WITH_IMM: immediate data and length");

	sge[0].addr = (uintptr_t)inl;
	sge[0].length = sizeof(inl);
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED | IB_SEND_INLINE;
	memset(kv.dst, 0, BUF_SIZE);
	check(!post_recv(b, 0xb3, kv.dst_dma, BUF_SIZE), "RC post_recv 3");
	check(!ib_post_send(a, &wr, NULL), "RC post inline SEND");
	got = poll_n(cq, wc, 2);
	r = find_wc(wc, got, b, IB_WC_RECV);
	ib_dma_sync_single_for_cpu(kv.dev, kv.dst_dma, BUF_SIZE,
				   DMA_FROM_DEVICE);
	check(r && r->status == IB_WC_SUCCESS && r->byte_len == sizeof(inl) &&
	      !memcmp(kv.dst, inl, sizeof(inl)),
	      "RC inline SEND: the bytes of the kernel buffer");
}

static DEFINE_SPINLOCK(atomic_ctx);

/*
 * UD: a SEND through an AH created and destroyed where no one may sleep
 * (as ib_cm and ib_sa do, under a spinlock); the payload after the 40
 * bytes of GRH room.
 */
static void test_ud(struct ib_cq *cq)
{
	struct rdma_ah_attr ah_attr = { .type = RDMA_AH_ATTR_TYPE_IB };
	struct ib_qp *a = make_qp(cq, IB_QPT_UD), *b;
	struct ib_sge sge = { .addr = kv.src_dma, .length = 512,
			      .lkey = kv.pd->local_dma_lkey };
	struct ib_ud_wr wr = {
		.wr = { .wr_id = 0xc1, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_SEND, .send_flags = IB_SEND_SIGNALED },
		.remote_qkey = 0x11111111,
	};
	struct ib_wc wc[2], *r;
	struct ib_ah *ah;
	int got;

	b = make_qp(cq, IB_QPT_UD);
	check(!IS_ERR(a) && !IS_ERR(b), "UD QPs created");
	if (IS_ERR(a) || IS_ERR(b))
		goto out;
	check(!to_rts(a, 0) && !to_rts(b, 0), "UD QPs to RTS");
	rdma_ah_set_dlid(&ah_attr, kv.port_lid);
	rdma_ah_set_port_num(&ah_attr, 1);
	spin_lock(&atomic_ctx);
	ah = rdma_create_ah(kv.pd, &ah_attr, 0);
	spin_unlock(&atomic_ctx);
	check(!IS_ERR(ah), "UD address handle created under a spinlock");
	if (IS_ERR(ah))
		goto out;
	fill(kv.src, 512, 99);
	memset(kv.dst, 0, BUF_SIZE);
	check(!post_recv(b, 0xd1, kv.dst_dma, 40 + 512), "UD post_recv");
	wr.ah = ah;
	wr.remote_qpn = b->qp_num;
	check(!ib_post_send(a, &wr.wr, NULL), "UD post_send");
	got = poll_n(cq, wc, 2);
	r = find_wc(wc, got, b, IB_WC_RECV);
	ib_dma_sync_single_for_cpu(kv.dev, kv.dst_dma, BUF_SIZE,
				   DMA_FROM_DEVICE);
	check(r && r->status == IB_WC_SUCCESS && r->byte_len == 40 + 512 &&
	      r->src_qp == a->qp_num && !memcmp(kv.dst + 40, kv.src, 512),
	      "UD SEND: 40 + 512 bytes from QP %u, every byte",
	      r ? r->src_qp : 0);
	spin_lock(&atomic_ctx);
	check(!rdma_destroy_ah_user(ah, 0, NULL),
	      "UD address handle destroyed under a spinlock");
	spin_unlock(&atomic_ctx);
out:
	destroy_qps(a, b);
}

/*
 * A shared receive queue: 3 WQEs, 3 SENDs to a QP on it; each receive
 * completes with its own WQE's wr_id and bytes, and the ids come back.
 */
static void test_srq(struct ib_cq *cq)
{
	struct ib_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct ib_qp_init_attr qa = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 8, .max_send_sge = 1 },
	};
	struct ib_sge sge = { .length = 256, .lkey = kv.pd->local_dma_lkey };
	struct ib_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				 .opcode = IB_WR_SEND };
	static struct ib_wc wc[6];	/* off the stack: the test runs once */
	struct ib_qp *a = NULL, *b = NULL;
	struct ib_srq *srq;
	struct ib_wc *r;
	int i, ok = 0, got, round;

	srq = ib_create_srq(kv.pd, &sa);
	check(!IS_ERR(srq), "kernel SRQ created");
	if (IS_ERR(srq))
		return;
	a = ib_create_qp(kv.pd, &qa);
	qa.srq = srq;
	b = ib_create_qp(kv.pd, &qa);
	if (IS_ERR(a) || IS_ERR(b) || to_rts(a, b->qp_num) ||
	    to_rts(b, a->qp_num)) {
		check(false, "RC pair on the SRQ");
		goto out;
	}
	fill(kv.src, 3 * 256, 55);
	/* twice round: the ids of the first 3 are free for the next 3 */
	for (round = 0; round < 2; round++) {
		for (i = 0; i < 3; i++) {
			struct ib_sge rs = { .addr = kv.dst_dma + i * 256,
					     .length = 256,
					     .lkey = kv.pd->local_dma_lkey };
			struct ib_recv_wr rw = { .wr_id = 0x500 + i,
						 .sg_list = &rs,
						 .num_sge = 1 };

			ok += !ib_post_srq_recv(srq, &rw, NULL);
		}
		for (i = 0; i < 3; i++) {
			sge.addr = kv.src_dma + i * 256;
			ok += !ib_post_send(a, &wr, NULL);
		}
		got = poll_n(cq, wc, 6);
		for (i = 0; i < 3; i++) {
			r = find_wc(wc, got, b, IB_WC_RECV);
			if (r && r->status == IB_WC_SUCCESS &&
			    r->wr_id == 0x500 + i && r->byte_len == 256)
				ok++;
			if (r)	/* next time find the next one */
				r->qp = NULL;
		}
	}
	ib_dma_sync_single_for_cpu(kv.dev, kv.dst_dma, BUF_SIZE,
				   DMA_FROM_DEVICE);
	check(ok == 2 * 9 && !memcmp(kv.dst, kv.src, 3 * 256),
	      "SRQ: 2 x 3 receives, each with its WQE's wr_id and bytes (%d)",
	      ok);
out:
	destroy_qps(a, b);
	ib_destroy_srq(srq);
}

/* A key no region has: the send completes with a protection error. */
static void test_bad_lkey(struct ib_cq *cq, struct ib_qp *a)
{
	struct ib_sge sge = { .addr = kv.src_dma, .length = 64,
			      .lkey = kv.pd->local_dma_lkey ^ 0x5a5a00 };
	struct ib_send_wr wr = { .wr_id = 0xe1, .sg_list = &sge, .num_sge = 1,
				 .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };
	struct ib_wc wc;

	check(!ib_post_send(a, &wr, NULL), "post_send with a bad lkey");
	check(poll_n(cq, &wc, 1) == 1 && wc.wr_id == 0xe1 &&
	      wc.status == IB_WC_LOC_PROT_ERR,
	      "bad lkey: IB_WC_LOC_PROT_ERR (%d)", wc.status);
}

static DECLARE_COMPLETION(comp_event);

static void comp_handler(struct ib_cq *cq, void *ctx)
{
	complete(&comp_event);
}

/* Arm, post, the event comes; a CQE already there is reported as missed. */
static void test_events(void)
{
	struct ib_cq_init_attr ca = { .cqe = 64 };
	struct ib_wc wc[2];
	struct ib_qp *a, *b;
	struct ib_cq *cq;
	struct ib_sge sge = { .addr = kv.src_dma, .length = 32,
			      .lkey = kv.pd->local_dma_lkey };
	struct ib_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				 .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };

	cq = ib_create_cq(kv.dev, comp_handler, NULL, NULL, &ca);
	check(!IS_ERR(cq), "CQ with a completion handler");
	if (IS_ERR(cq))
		return;
	if (rc_pair(cq, &a, &b)) {
		check(false, "RC pair for the event test");
		goto out;
	}
	reinit_completion(&comp_event);
	check(ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
			       IB_CQ_REPORT_MISSED_EVENTS) == 0,
	      "arm on an empty CQ: nothing missed");
	post_recv(b, 2, kv.dst_dma, BUF_SIZE);
	ib_post_send(a, &wr, NULL);
	check(wait_for_completion_timeout(&comp_event,
					  msecs_to_jiffies(wait_ms)),
	      "completion event after the arm");
	/* the event follows a CQE: an arm now must say it may have missed it */
	check(ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
			       IB_CQ_REPORT_MISSED_EVENTS) == 1,
	      "arm with CQEs waiting: reports missed events");
	check(poll_n(cq, wc, 2) == 2, "both CQEs polled");
out:
	destroy_qps(a, b);
	ib_destroy_cq(cq);
}

struct drain_wr {
	struct ib_cqe cqe;
	int status;
	atomic_t *flushed;
};

static void drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct drain_wr *d = container_of(wc->wr_cqe, struct drain_wr, cqe);

	d->status = wc->status;
	atomic_inc(d->flushed);
}

/* @d waits for its completion, counted in @flushed. */
static void drain_wr_init(struct drain_wr *d, atomic_t *flushed)
{
	d->cqe.done = drain_done;
	d->status = -1;
	d->flushed = flushed;
}

/* A receive of 64 bytes into kv.dst whose completion @d takes. */
static int drain_post_recv(struct ib_qp *qp, struct drain_wr *d,
			   atomic_t *flushed)
{
	struct ib_sge sge = { .addr = kv.dst_dma, .length = 64,
			      .lkey = kv.pd->local_dma_lkey };
	struct ib_recv_wr wr = { .sg_list = &sge, .num_sge = 1,
				 .wr_cqe = &d->cqe };

	drain_wr_init(d, flushed);
	return ib_post_recv(qp, &wr, NULL);
}

/* ib_drain_qp() on a softirq-polled CQ: posted receives flush, it returns. */
static void test_drain(void)
{
	struct drain_wr d[4];
	atomic_t flushed = ATOMIC_INIT(0);
	struct ib_qp *a, *b;
	struct ib_cq *cq;
	int i, posted = 0;

	cq = ib_alloc_cq(kv.dev, NULL, 64, 0, IB_POLL_SOFTIRQ);
	check(!IS_ERR(cq), "CQ polled by ib_core (softirq)");
	if (IS_ERR(cq))
		return;
	if (rc_pair(cq, &a, &b)) {
		check(false, "RC pair for the drain test");
		goto out;
	}
	for (i = 0; i < 4; i++)
		posted += !drain_post_recv(a, &d[i], &flushed);
	check(posted == 4, "4 receives posted");
	ib_drain_qp(a);		/* hangs if the device never flushes */
	check(atomic_read(&flushed) == 4 && d[0].status == IB_WC_WR_FLUSH_ERR &&
	      d[3].status == IB_WC_WR_FLUSH_ERR,
	      "ib_drain_qp returned; 4 receives flushed (%d)",
	      atomic_read(&flushed));
out:
	destroy_qps(a, b);
	ib_free_cq(cq);
}

static DECLARE_COMPLETION(fatal_event);
static DECLARE_COMPLETION(last_wqe_event);

static void srq_qp_event(struct ib_event *e, void *ctx)
{
	if (e->event == IB_EVENT_QP_LAST_WQE_REACHED)
		complete(&last_wqe_event);
}

static void on_event(struct ib_event_handler *h, struct ib_event *e)
{
	if (e->event == IB_EVENT_DEVICE_FATAL)
		complete(&fatal_event);
}

/* Until @v reaches @n, or wait_ms; whether it did. */
static bool wait_count(atomic_t *v, int n)
{
	unsigned long end = jiffies + msecs_to_jiffies(wait_ms);

	while (atomic_read(v) < n && time_before(jiffies, end))
		msleep(20);
	return atomic_read(v) >= n;
}

/* test_dead()'s WRs and more: too big for a debug kernel's stack */
static struct {
	struct drain_wr d[5], dd[2], s;
	struct ib_rdma_wr swr;
	struct ib_event_handler eh;
	struct ib_wc wc[3];
} dt;

/*
 * The device dies under kernel QPs with receives outstanding, one pair on
 * a CQ that ib_core polls from a workqueue, one on a CQ with a handler of
 * its own (as IPoIB's).  A dead device raises no interrupt, so this checks
 * ib_drain_qp()'s steps one by one rather than calling it, which would
 * hang if one failed: the QP goes to ERR, a receive and a send are posted
 * to it, and all that was outstanding completes flushed, polled on events
 * that the driver raises; an arm with IB_CQ_REPORT_MISSED_EVENTS reports
 * what is left to flush.
 */
static void test_dead(void)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	atomic_t rflushed = ATOMIC_INIT(0), sflushed = ATOMIC_INIT(0);
	struct ib_qp *a = NULL, *b = NULL, *c = NULL, *e = NULL;
	struct ib_cq_init_attr ca = { .cqe = 64 };
	atomic_t dflushed = ATOMIC_INIT(0);
	struct ib_cq *cq, *ecq = NULL;
	struct ib_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ib_qp_init_attr qa = {
		.qp_type = IB_QPT_RC, .sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
		.event_handler = srq_qp_event,
	};
	struct ib_srq *srq = NULL;
	struct ib_qp *sq = NULL;
	int i, posted = 0, bad = 0;
	bool reaped;

	memset(&dt, 0, sizeof(dt));
	dt.swr.wr.opcode = IB_WR_RDMA_WRITE;
	dt.swr.wr.send_flags = IB_SEND_SIGNALED;
	INIT_IB_EVENT_HANDLER(&dt.eh, kv.dev, on_event);
	ib_register_event_handler(&dt.eh);
	cq = ib_alloc_cq(kv.dev, NULL, 64, 0, IB_POLL_WORKQUEUE);
	if (!IS_ERR(cq))
		ecq = ib_create_cq(kv.dev, comp_handler, NULL, NULL, &ca);
	check(!IS_ERR(cq) && !IS_ERR(ecq),
	      "a workqueue-polled CQ and one with its own handler");
	if (IS_ERR(cq) || IS_ERR(ecq))
		goto out_cq;
	if (rc_pair(cq, &a, &b) || rc_pair(ecq, &c, &e)) {
		check(false, "two RC pairs for the dead device test");
		goto out;
	}
	for (i = 0; i < 4; i++)
		posted += !drain_post_recv(a, &dt.d[i], &rflushed);
	for (i = 0; i < 2; i++)
		posted += !drain_post_recv(c, &dt.dd[i], &dflushed);
	check(posted == 6, "4 and 2 receives posted");
	/* a QP on an SRQ, which must hear that its last WQE is done */
	srq = ib_create_srq(kv.pd, &sa);
	if (!IS_ERR(srq)) {
		qa.send_cq = cq;
		qa.recv_cq = cq;
		qa.srq = srq;
		sq = ib_create_qp(kv.pd, &qa);
	}
	check(!IS_ERR(srq) && !IS_ERR_OR_NULL(sq) && !to_rts(sq, a->qp_num),
	      "a QP on a kernel SRQ in RTS");

	pr_info("orca_kverbs[%s]: waiting for the device to die\n", run_id);
	check(wait_for_completion_timeout(&fatal_event,
					  msecs_to_jiffies(6 * wait_ms)),
	      "IB_EVENT_DEVICE_FATAL");
	check(!ib_modify_qp(a, &attr, IB_QP_STATE),
	      "dead device: a kernel QP's modify to ERR succeeds");
	check(!drain_post_recv(a, &dt.d[4], &rflushed),
	      "dead device: a receive posted to the QP in ERR");
	drain_wr_init(&dt.s, &sflushed);
	dt.swr.wr.wr_cqe = &dt.s.cqe;
	check(!ib_post_send(a, &dt.swr.wr, NULL),
	      "dead device: an RDMA WRITE posted to the QP in ERR");
	reaped = wait_count(&rflushed, 5) && wait_count(&sflushed, 1);
	check(reaped,
	      "the workqueue poller reaped them all on the driver's events: %d of 5 receives, %d of 1 send",
	      atomic_read(&rflushed), atomic_read(&sflushed));
	for (i = 0; i < 5; i++)
		bad += dt.d[i].status != IB_WC_WR_FLUSH_ERR;
	bad += dt.s.status != IB_WC_WR_FLUSH_ERR;
	check(!bad, "each one IB_WC_WR_FLUSH_ERR (%d not)", bad);
	attr.qp_state = IB_QPS_RESET;
	check(!ib_modify_qp(a, &attr, IB_QP_STATE),
	      "dead device: then to RESET (as IPoIB's stop does)");
	reinit_completion(&last_wqe_event);
	attr.qp_state = IB_QPS_ERR;
	check(!IS_ERR_OR_NULL(sq) && !ib_modify_qp(sq, &attr, IB_QP_STATE) &&
	      wait_for_completion_timeout(&last_wqe_event,
					  msecs_to_jiffies(wait_ms)),
	      "dead device: the SRQ QP's move to ERR raises IB_EVENT_QP_LAST_WQE_REACHED");

	/* the other pair stayed in RTS: its receives flush all the same */
	reinit_completion(&comp_event);
	check(ib_req_notify_cq(ecq, IB_CQ_NEXT_COMP) == 0 &&
	      wait_for_completion_timeout(&comp_event,
					  msecs_to_jiffies(wait_ms)),
	      "dead device: an arm with receives to flush gets its event");
	check(ib_req_notify_cq(ecq, IB_CQ_NEXT_COMP |
			       IB_CQ_REPORT_MISSED_EVENTS) == 1,
	      "dead device: an arm reporting missed events reports them");
	i = poll_n(ecq, dt.wc, 2);
	check(i == 2 && dt.wc[0].status == IB_WC_WR_FLUSH_ERR &&
	      dt.wc[1].status == IB_WC_WR_FLUSH_ERR &&
	      dt.wc[0].wr_cqe == &dt.dd[0].cqe && dt.wc[1].wr_cqe == &dt.dd[1].cqe,
	      "both polled in order, flushed (%d)", i);
	check(ib_req_notify_cq(ecq, IB_CQ_NEXT_COMP |
			       IB_CQ_REPORT_MISSED_EVENTS) == 0 &&
	      ib_poll_cq(ecq, 3, dt.wc) == 0,
	      "then nothing more to report or poll");
out:
	destroy_qps(a, b);
	destroy_qps(c, e);
	if (!IS_ERR_OR_NULL(sq))
		ib_destroy_qp(sq);
	if (!IS_ERR_OR_NULL(srq))
		ib_destroy_srq(srq);
out_cq:
	if (!IS_ERR_OR_NULL(ecq))
		ib_destroy_cq(ecq);
	if (!IS_ERR(cq))
		ib_free_cq(cq);
	ib_unregister_event_handler(&dt.eh);
}

/* One signaled WR on @qp; the status of its completion, -1 if none. */
static int post_one(struct ib_cq *cq, struct ib_qp *qp, struct ib_send_wr *wr)
{
	struct ib_wc wc;

	wr->send_flags |= IB_SEND_SIGNALED;
	if (ib_post_send(qp, wr, NULL) || poll_n(cq, &wc, 1) != 1)
		return -1;
	return wc.status;
}

static int reg_mr(struct ib_cq *cq, struct ib_qp *qp, struct ib_mr *mr,
		  int access)
{
	struct ib_reg_wr wr = { .wr.opcode = IB_WR_REG_MR, .mr = mr,
				.key = mr->rkey, .access = access };

	return post_one(cq, qp, &wr.wr);
}

/* @a writes @len bytes of src at @va of the region @rkey names. */
static int rdma_op(struct ib_cq *cq, struct ib_qp *a, enum ib_wr_opcode op,
		   u64 local, u64 va, u32 rkey, u32 len)
{
	struct ib_sge sge = { .addr = local, .length = len,
			      .lkey = kv.pd->local_dma_lkey };
	struct ib_rdma_wr wr = { .wr.opcode = op, .wr.sg_list = &sge,
				 .wr.num_sge = 1, .remote_addr = va,
				 .rkey = rkey };

	return post_one(cq, a, &wr.wr);
}

#define FR_PAGES	3

/*
 * Fast registration: b's region over three pages of a buffer, from byte
 * 100 of the first, registered, written and read by a, invalidated
 * locally and remotely; the device refuses a register of a valid region
 * and any access through an invalidated key.
 */
static void test_fastreg(void)
{
	const int rw = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		       IB_ACCESS_REMOTE_READ;
	u32 len = FR_PAGES * PAGE_SIZE - 100, rkey, old;
	struct ib_qp *a = NULL, *b = NULL;
	struct scatterlist sg[2];
	struct ib_mr *mr, *bad;
	struct ib_wc wc[2], *r;
	u64 buf_dma, sink_dma;
	u8 *buf, *sink;
	struct ib_cq *cq;
	int n, got;

	check(kv.dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS,
	      "IB_DEVICE_MEM_MGT_EXTENSIONS, %u pages a region",
	      kv.dev->attrs.max_fast_reg_page_list_len);
	bad = ib_alloc_mr(kv.pd, IB_MR_TYPE_MEM_REG,
			  kv.dev->attrs.max_fast_reg_page_list_len + 1);
	check(PTR_ERR_OR_ZERO(bad) == -EINVAL,
	      "ib_alloc_mr past max_fast_reg_page_list_len: -EINVAL (%d)",
	      PTR_ERR_OR_ZERO(bad));
	if (!IS_ERR(bad))
		ib_dereg_mr(bad);
	bad = ib_alloc_mr(kv.pd, IB_MR_TYPE_SG_GAPS, 4);
	check(PTR_ERR_OR_ZERO(bad) == -EINVAL,
	      "ib_alloc_mr(IB_MR_TYPE_SG_GAPS): -EINVAL (%d)",
	      PTR_ERR_OR_ZERO(bad));
	if (!IS_ERR(bad))
		ib_dereg_mr(bad);

	buf = kzalloc(FR_PAGES * PAGE_SIZE, GFP_KERNEL);
	sink = kzalloc(FR_PAGES * PAGE_SIZE, GFP_KERNEL);
	mr = ib_alloc_mr(kv.pd, IB_MR_TYPE_MEM_REG, FR_PAGES);
	cq = ib_alloc_cq(kv.dev, NULL, 64, 0, IB_POLL_DIRECT);
	check(buf && sink && !IS_ERR(mr) && !IS_ERR(cq),
	      "ib_alloc_mr of %d pages, key 0x%x", FR_PAGES,
	      IS_ERR(mr) ? 0 : mr->rkey);
	if (!buf || !sink || IS_ERR(mr) || IS_ERR(cq))
		goto out_mem;
	buf_dma = ib_dma_map_single(kv.dev, buf, FR_PAGES * PAGE_SIZE,
				    DMA_BIDIRECTIONAL);
	sink_dma = ib_dma_map_single(kv.dev, sink, FR_PAGES * PAGE_SIZE,
				     DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(kv.dev, buf_dma) ||
	    ib_dma_mapping_error(kv.dev, sink_dma)) {
		check(false, "DMA mapping of the region's buffer");
		goto out_mem;
	}
	if (rc_pair(cq, &a, &b)) {
		check(false, "RC pair for fast registration");
		goto out_qp;
	}

	/* two scatterlist entries: 100 bytes into page 0, then pages 1-2 */
	sg_init_table(sg, 2);
	sg_dma_address(&sg[0]) = buf_dma + 100;
	sg_dma_len(&sg[0]) = PAGE_SIZE - 100;
	sg_dma_address(&sg[1]) = buf_dma + PAGE_SIZE;
	sg_dma_len(&sg[1]) = 2 * PAGE_SIZE;
	n = ib_map_mr_sg(mr, sg, 2, NULL, PAGE_SIZE);
	check(n == 2 && mr->iova == buf_dma + 100 && mr->length == len,
	      "ib_map_mr_sg: %d entries, iova +%llu, length %llu", n,
	      mr->iova - buf_dma, mr->length);
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	rkey = mr->rkey;
	check(reg_mr(cq, b, mr, rw) == IB_WC_SUCCESS,
	      "IB_WR_REG_MR of key 0x%x: IB_WC_REG_MR, success", rkey);

	fill(kv.src, len, 3);
	check(rdma_op(cq, a, IB_WR_RDMA_WRITE, kv.src_dma, mr->iova, rkey,
		      len) == IB_WC_SUCCESS,
	      "the peer's RDMA WRITE of %u bytes through the rkey", len);
	ib_dma_sync_single_for_cpu(kv.dev, buf_dma, FR_PAGES * PAGE_SIZE,
				   DMA_BIDIRECTIONAL);
	check(!memcmp(buf + 100, kv.src, len) && !buf[99],
	      "every byte landed at the pages' addresses, none before");
	check(rdma_op(cq, a, IB_WR_RDMA_READ, sink_dma, mr->iova + 3000,
		      rkey, 5000) == IB_WC_SUCCESS,
	      "the peer's RDMA READ of 5000 bytes across a page boundary");
	ib_dma_sync_single_for_cpu(kv.dev, sink_dma, FR_PAGES * PAGE_SIZE,
				   DMA_BIDIRECTIONAL);
	check(!memcmp(sink, kv.src + 3000, 5000), "READ: the bytes written");

	check(reg_mr(cq, b, mr, rw) == IB_WC_MW_BIND_ERR,
	      "IB_WR_REG_MR of a valid region: IB_WC_MW_BIND_ERR");
	/* that error took b to ERR: a new pair for the rest */
	destroy_qps(a, b);
	a = NULL;
	b = NULL;
	if (rc_pair(cq, &a, &b)) {
		check(false, "second RC pair");
		goto out_qp;
	}
	{
		struct ib_send_wr inv = { .opcode = IB_WR_LOCAL_INV,
					  .ex.invalidate_rkey = rkey };

		check(post_one(cq, b, &inv) == IB_WC_SUCCESS,
		      "IB_WR_LOCAL_INV of key 0x%x", rkey);
	}
	/* the same pages again under a new key */
	old = rkey;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	rkey = mr->rkey;
	check(rkey != old && reg_mr(cq, b, mr, rw) == IB_WC_SUCCESS,
	      "registered again after LOCAL_INV, key 0x%x", rkey);
	{
		struct ib_sge sge = { .addr = kv.src_dma, .length = 64,
				      .lkey = kv.pd->local_dma_lkey };
		struct ib_send_wr si = { .opcode = IB_WR_SEND_WITH_INV,
					 .sg_list = &sge, .num_sge = 1,
					 .ex.invalidate_rkey = rkey,
					 .send_flags = IB_SEND_SIGNALED };

		post_recv(b, 0xf1, sink_dma, PAGE_SIZE);
		check(!ib_post_send(a, &si, NULL), "post SEND_WITH_INV");
		got = poll_n(cq, wc, 2);
		r = find_wc(wc, got, b, IB_WC_RECV);
		check(r && r->status == IB_WC_SUCCESS &&
		      (r->wc_flags & IB_WC_WITH_INVALIDATE) &&
		      r->ex.invalidate_rkey == rkey,
		      "SEND_WITH_INV: the receive says it invalidated 0x%x",
		      rkey);
	}
	check(rdma_op(cq, a, IB_WR_RDMA_WRITE, kv.src_dma, mr->iova, rkey,
		      64) == IB_WC_REM_ACCESS_ERR,
	      "an RDMA WRITE through the invalidated key: IB_WC_REM_ACCESS_ERR");
out_qp:
	destroy_qps(a, b);
	if (!ib_dma_mapping_error(kv.dev, buf_dma))
		ib_dma_unmap_single(kv.dev, buf_dma, FR_PAGES * PAGE_SIZE,
				    DMA_BIDIRECTIONAL);
	if (!ib_dma_mapping_error(kv.dev, sink_dma))
		ib_dma_unmap_single(kv.dev, sink_dma, FR_PAGES * PAGE_SIZE,
				    DMA_BIDIRECTIONAL);
out_mem:
	if (!IS_ERR_OR_NULL(mr))
		check(!ib_dereg_mr(mr), "ib_dereg_mr of the region");
	if (!IS_ERR_OR_NULL(cq))
		ib_free_cq(cq);
	kfree(buf);
	kfree(sink);
}

static void noop_handler(struct ib_cq *cq, void *ctx)
{
}

/* A CQ of kernel rings that may be armed, whose events go nowhere. */
static struct ib_cq *quiet_cq(void)
{
	struct ib_cq_init_attr ca = { .cqe = 64 };

	return ib_create_cq(kv.dev, noop_handler, NULL, NULL, &ca);
}

/*
 * Until @cq holds a CQE, or wait_ms; whether it does.  The CQE stays:
 * an arm that reports missed events looks without polling.
 */
static bool wait_cqe(struct ib_cq *cq)
{
	unsigned long end = jiffies + msecs_to_jiffies(wait_ms);

	do {
		if (ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
				     IB_CQ_REPORT_MISSED_EVENTS) > 0)
			return true;
		usleep_range(200, 1000);
	} while (time_before(jiffies, end));
	return false;
}

/* @n signaled SENDs of 64 bytes on @a; how many were accepted. */
static int post_sends(struct ib_qp *a, int n, u64 wr_id)
{
	struct ib_sge sge = { .addr = kv.src_dma, .length = 64,
			      .lkey = kv.pd->local_dma_lkey };
	struct ib_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				 .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };
	int i;

	for (i = 0; i < n; i++) {
		wr.wr_id = wr_id + i;
		if (ib_post_send(a, &wr, NULL))
			break;
	}
	return i;
}

/* @n receives of 64 bytes on @b; how many were accepted. */
static int post_recvs(struct ib_qp *b, int n, u64 wr_id)
{
	int i;

	for (i = 0; i < n; i++)
		if (post_recv(b, wr_id + i, kv.dst_dma + i * 64, 64))
			break;
	return i;
}

/* Polls @n completions of @cq; how many came with SUCCESS. */
static int poll_ok(struct ib_cq *cq, int n)
{
	static struct ib_wc wc[32];	/* off the stack: the test runs once */
	int got, i, ok = 0;

	got = poll_n(cq, wc, min(n, 32));
	for (i = 0; i < got; i++)
		ok += wc[i].status == IB_WC_SUCCESS;
	return ok;
}

static int to_state(struct ib_qp *qp, enum ib_qp_state state)
{
	struct ib_qp_attr a = { .qp_state = state };

	return ib_modify_qp(qp, &a, IB_QP_STATE);
}

/*
 * RESET of a kernel QP whose CQ still holds a CQE of it (review-kverbs
 * finding 4): the CQE goes with the QP's work (IBA 10.3.1), and the
 * rings, which start over at index 0, take their full depth again.
 */
static void test_reset(void)
{
	struct ib_qp *a = NULL, *b = NULL;
	struct ib_cq *cqa, *cqb = NULL;
	struct ib_sge sge = { .addr = kv.src_dma, .length = 64,
			      .lkey = kv.pd->local_dma_lkey };
	struct ib_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				 .opcode = IB_WR_SEND };
	struct ib_wc wc;
	int i, sent = 0;

	cqa = quiet_cq();
	if (!IS_ERR(cqa))
		cqb = ib_alloc_cq(kv.dev, NULL, 64, 0, IB_POLL_DIRECT);
	if (IS_ERR(cqa) || IS_ERR(cqb)) {
		check(false, "RESET test: two CQs");
		goto out_cq;
	}
	a = make_qp(cqa, IB_QPT_RC);
	b = make_qp(cqb, IB_QPT_RC);
	if (IS_ERR(a) || IS_ERR(b) || to_rts(a, b->qp_num) ||
	    to_rts(b, a->qp_num)) {
		check(false, "RESET test: an RC pair");
		goto out;
	}
	/* 8 SENDs, the last signaled: one CQE completes all 8 */
	post_recvs(b, 8, 0x700);
	for (i = 0; i < 8; i++) {
		wr.wr_id = 0x800 + i;
		wr.send_flags = i == 7 ? IB_SEND_SIGNALED : 0;
		sent += !ib_post_send(a, &wr, NULL);
	}
	check(sent == 8 && poll_ok(cqb, 8) == 8 && wait_cqe(cqa),
	      "RESET test: 8 SENDs arrived, their CQE waits unpolled (%d posted)",
	      sent);
	check(!to_state(a, IB_QPS_ERR) && !to_state(a, IB_QPS_RESET) &&
	      !to_state(b, IB_QPS_RESET) && !to_rts(a, b->qp_num) &&
	      !to_rts(b, a->qp_num),
	      "RESET test: both QPs through ERR/RESET back to RTS");
	i = ib_poll_cq(cqa, 1, &wc);
	check(i == 0,
	      "RESET took the QP's CQE out of its CQ (%d polled, wr_id 0x%llx)",
	      i, i > 0 ? wc.wr_id : 0);
	/* the SQ takes its full depth (16) again, and each completes */
	i = post_recvs(b, 16, 0x710);
	sent = post_sends(a, 16, 0x900);
	check(i == 16 && sent == 16 && poll_ok(cqa, 16) == 16 &&
	      poll_ok(cqb, 16) == 16,
	      "after RESET the SQ takes its full depth: %d of 16 posted", sent);
out:
	destroy_qps(a, b);
out_cq:
	if (!IS_ERR_OR_NULL(cqb))
		ib_free_cq(cqb);
	if (!IS_ERR(cqa))
		ib_destroy_cq(cqa);
}

/*
 * A long-lived kernel SRQ outlives its QPs (review-kverbs finding 5):
 * max_wr times a message uses one of its WQEs and the QP is destroyed
 * before the receive's CQE is polled; the WQE ids of those CQEs are the
 * SRQ's again, so it takes max_wr receives after, which complete.
 */
static void test_srq_churn(void)
{
	struct ib_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ib_qp_init_attr qa = {
		.qp_type = IB_QPT_RC, .sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 8, .max_send_sge = 1 },
	};
	struct ib_cq *scq, *rcq = NULL;
	struct ib_qp *a = NULL, *b = NULL;
	struct ib_srq *srq = NULL;
	u32 n = 0, round, posted = 0, moved = 0;

	scq = ib_alloc_cq(kv.dev, NULL, 64, 0, IB_POLL_DIRECT);
	if (!IS_ERR(scq))
		rcq = ib_alloc_cq(kv.dev, NULL, 64, 0, IB_POLL_DIRECT);
	if (!IS_ERR_OR_NULL(rcq))
		srq = ib_create_srq(kv.pd, &sa);
	if (IS_ERR(scq) || IS_ERR_OR_NULL(rcq) || IS_ERR_OR_NULL(srq)) {
		check(false, "SRQ churn: two CQs and an SRQ");
		goto out;
	}
	n = sa.attr.max_wr;
	qa.send_cq = scq;
	qa.recv_cq = rcq;
	for (round = 0; round <= n; round++) {
		struct ib_recv_wr rw = { .wr_id = 0x600 + round,
					 .num_sge = 1 };
		struct ib_sge rs = { .addr = kv.dst_dma, .length = 64,
				     .lkey = kv.pd->local_dma_lkey };
		u32 i;

		qa.srq = NULL;
		a = ib_create_qp(kv.pd, &qa);
		qa.srq = srq;
		b = ib_create_qp(kv.pd, &qa);
		if (IS_ERR(a) || IS_ERR(b) || to_rts(a, b->qp_num) ||
		    to_rts(b, a->qp_num))
			break;
		rw.sg_list = &rs;
		if (round < n) {
			/* one message uses one WQE; its CQE is not polled */
			posted += !ib_post_srq_recv(srq, &rw, NULL);
			moved += post_sends(a, 1, 0x680 + round) == 1 &&
				 poll_ok(scq, 1) == 1;
		} else {
			/* the last pair: the SRQ's whole depth again */
			for (i = 0; i < n; i++) {
				rw.wr_id = 0x6f0 + i;
				rs.addr = kv.dst_dma + i * 64;
				posted += !ib_post_srq_recv(srq, &rw, NULL);
			}
			moved += post_sends(a, n, 0x6a0) == n &&
				 poll_ok(scq, n) == n && poll_ok(rcq, n) == n;
		}
		destroy_qps(a, b);
		a = NULL;
		b = NULL;
	}
	check(round == n + 1 && posted == 2 * n && moved == n + 1,
	      "SRQ of %u WQEs after %u QPs destroyed with a receive unpolled: %u of %u receives posted, %u of %u rounds moved data",
	      n, n, posted, 2 * n, moved, n + 1);
out:
	destroy_qps(a, b);
	if (!IS_ERR_OR_NULL(srq))
		ib_destroy_srq(srq);
	if (!IS_ERR_OR_NULL(rcq))
		ib_free_cq(rcq);
	if (!IS_ERR(scq))
		ib_free_cq(scq);
}

/*
 * Rings beyond what one allocation can give (review-kverbs 7): a pair of
 * RC QPs with 4096 WRs of 16 SGEs each way, a ring of over 4 MiB (the
 * page allocator's largest block), built a page at a time; 64 SENDs
 * through its first pages arrive, every byte.
 */
static void test_deep_ring(void)
{
	struct ib_qp_init_attr qa = {
		.qp_type = IB_QPT_RC, .sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = { .max_send_wr = 4096, .max_recv_wr = 4096,
			 .max_send_sge = 16, .max_recv_sge = 16 },
	};
	struct ib_qp *a = NULL, *b = NULL;
	struct ib_cq *cq;
	int sent, got, i;

	cq = ib_alloc_cq(kv.dev, NULL, 256, 0, IB_POLL_DIRECT);
	if (IS_ERR(cq)) {
		check(false, "deep rings: a CQ");
		return;
	}
	qa.send_cq = cq;
	qa.recv_cq = cq;
	a = ib_create_qp(kv.pd, &qa);
	b = ib_create_qp(kv.pd, &qa);
	check(!IS_ERR(a) && !IS_ERR(b) && !to_rts(a, b->qp_num) &&
	      !to_rts(b, a->qp_num),
	      "RC QPs of 4096 WRs x 16 SGEs each way in RTS (%d, %d)",
	      PTR_ERR_OR_ZERO(a), PTR_ERR_OR_ZERO(b));
	if (IS_ERR(a) || IS_ERR(b))
		goto out;
	for (i = 0; i < 64 * 64; i++)
		kv.src[i] = (u8)(i * 7 + 3);
	memset(kv.dst, 0, 64 * 64);
	ib_dma_sync_single_for_device(kv.dev, kv.src_dma, BUF_SIZE,
				      DMA_TO_DEVICE);
	ib_dma_sync_single_for_device(kv.dev, kv.dst_dma, BUF_SIZE,
				      DMA_FROM_DEVICE);
	got = post_recvs(b, 64, 0xc00);
	sent = 0;
	for (i = 0; i < 64 && got == 64; i++) {
		struct ib_sge sge = { .addr = kv.src_dma + i * 64, .length = 64,
				      .lkey = kv.pd->local_dma_lkey };
		struct ib_send_wr wr = { .wr_id = 0xd00 + i, .sg_list = &sge,
					 .num_sge = 1, .opcode = IB_WR_SEND };

		sent += !ib_post_send(a, &wr, NULL);
	}
	got = poll_ok(cq, 32) + poll_ok(cq, 32) + poll_ok(cq, 32) +
	      poll_ok(cq, 32);
	ib_dma_sync_single_for_cpu(kv.dev, kv.dst_dma, BUF_SIZE,
				   DMA_FROM_DEVICE);
	check(sent == 64 && got == 128 && !memcmp(kv.dst, kv.src, 64 * 64),
	      "deep rings: 64 SENDs and their receives complete, every byte (%d posted, %d completions)",
	      sent, got);
out:
	destroy_qps(a, b);
	ib_free_cq(cq);
}

/*
 * A QPN the device hands out again at once (hostctl reuse-handles 1,
 * review-kverbs finding 2): QP A leaves a CQE unpolled on CQ1 and is
 * destroyed; B, created on CQ2, gets A's number; CQ1 completes nothing
 * for either, and B's send queue keeps its full depth.
 */
static void test_reuse(void)
{
	struct ib_cq *cq1, *cq2 = NULL;
	struct ib_qp *a = NULL, *b = NULL, *p = NULL;
	struct ib_wc wc;
	u32 qpn_a;
	int n;

	cq1 = quiet_cq();
	if (!IS_ERR(cq1))
		cq2 = ib_alloc_cq(kv.dev, NULL, 64, 0, IB_POLL_DIRECT);
	if (IS_ERR(cq1) || IS_ERR(cq2)) {
		check(false, "reuse test: two CQs");
		goto out_cq;
	}
	a = make_qp(cq1, IB_QPT_RC);
	p = make_qp(cq2, IB_QPT_RC);
	if (IS_ERR(a) || IS_ERR(p) || to_rts(a, p->qp_num) ||
	    to_rts(p, a->qp_num)) {
		check(false, "reuse test: an RC pair");
		goto out;
	}
	post_recvs(p, 4, 0x720);
	check(post_sends(a, 4, 0xa00) == 4 && poll_ok(cq2, 4) == 4 &&
	      wait_cqe(cq1),
	      "reuse test: 4 SENDs arrived, their CQEs wait unpolled");
	qpn_a = a->qp_num;
	ib_destroy_qp(a);
	a = NULL;
	b = make_qp(cq2, IB_QPT_RC);
	if (IS_ERR(b)) {
		check(false, "reuse test: QP B created");
		goto out;
	}
	if (reuse_param)	/* else the device's round robin decides */
		check(b->qp_num == qpn_a, "B has A's QPN %u (%u)", qpn_a,
		      b->qp_num);
	n = ib_poll_cq(cq1, 1, &wc);
	check(n == 0, "CQ1 completes nothing of A or B (%d, wr_id 0x%llx)",
	      n, n > 0 ? wc.wr_id : 0);
	check(!to_state(p, IB_QPS_RESET) && !to_rts(p, b->qp_num) &&
	      !to_rts(b, p->qp_num) && post_recvs(p, 16, 0x730) == 16 &&
	      post_sends(b, 16, 0xb00) == 16 && poll_ok(cq2, 32) == 32 &&
	      ib_poll_cq(cq1, 1, &wc) == 0,
	      "B takes its full send depth on CQ2; CQ1 stays empty");
out:
	destroy_qps(a, b);
	destroy_qps(p, NULL);
out_cq:
	if (!IS_ERR_OR_NULL(cq2))
		ib_free_cq(cq2);
	if (!IS_ERR(cq1))
		ib_destroy_cq(cq1);
}

/* Until the script sets go, or wait_ms; whether it did. */
static bool wait_go(void)
{
	unsigned long end = jiffies + msecs_to_jiffies(wait_ms);

	while (!READ_ONCE(go_param) && time_before(jiffies, end))
		msleep(20);
	return READ_ONCE(go_param);
}

static void count_handler(struct ib_cq *cq, void *ctx)
{
	atomic_inc(ctx);
}

/* Until @v reads @n, or wait_ms; whether it does. */
static bool wait_atomic(atomic_t *v, int n)
{
	unsigned long end = jiffies + msecs_to_jiffies(wait_ms);

	while (atomic_read(v) != n && time_before(jiffies, end))
		usleep_range(200, 1000);
	return atomic_read(v) == n;
}

/*
 * Review-kverbs finding 2 for CQs, as test_reuse() for QPs: an event the
 * device posted for a CQ before its destroy never reaches the CQ that
 * gets its number next.  The script holds the completion interrupt
 * (hostctl comp-irq-hold 1) and makes the device hand out the lowest free
 * number (reuse-handles 1).  CQ1, armed, takes a SEND's completion: its
 * event waits in the completion EQ, no interrupt.  CQ1 goes (its QP
 * first) and CQ2 comes, with CQ1's number, armed.  The script lets the
 * interrupt out and sets go once the driver took it: CQ2's handler has
 * not run, and a completion of its own still runs it, once.
 */
static void test_cqn(void)
{
	struct ib_cq_init_attr ca = { .cqe = 64 };
	struct ib_qp *a = NULL, *p = NULL, *c = NULL;
	struct ib_cq *pcq, *cq1 = NULL, *cq2 = NULL;
	atomic_t ev1 = ATOMIC_INIT(0), ev2 = ATOMIC_INIT(0);
	struct ib_wc wc;

	pcq = ib_alloc_cq(kv.dev, NULL, 64, 0, IB_POLL_DIRECT);
	if (!IS_ERR(pcq))
		cq1 = ib_create_cq(kv.dev, count_handler, NULL, &ev1, &ca);
	if (IS_ERR(pcq) || IS_ERR(cq1)) {
		check(false, "CQN test: two CQs");
		goto out_cq;
	}
	a = make_qp(cq1, IB_QPT_RC);
	p = make_qp(pcq, IB_QPT_RC);
	if (IS_ERR(a) || IS_ERR(p) || to_rts(a, p->qp_num) ||
	    to_rts(p, a->qp_num)) {
		check(false, "CQN test: an RC pair");
		goto out;
	}
	post_recvs(p, 1, 0x810);
	check(ib_req_notify_cq(cq1, IB_CQ_NEXT_COMP) == 0 &&
	      post_sends(a, 1, 0xc1) == 1 && poll_ok(pcq, 1) == 1 &&
	      wait_cqe(cq1) && atomic_read(&ev1) == 0,
	      "CQ1 armed, its SEND completed, its event held back (%d handler runs)",
	      atomic_read(&ev1));
	ib_destroy_qp(a);
	a = NULL;
	ib_destroy_cq(cq1);
	cq1 = NULL;
	cq2 = ib_create_cq(kv.dev, count_handler, NULL, &ev2, &ca);
	if (IS_ERR(cq2)) {
		check(false, "CQN test: CQ2 created");
		goto out;
	}
	c = make_qp(cq2, IB_QPT_RC);
	check(!IS_ERR(c) &&
	      ib_req_notify_cq(cq2, IB_CQ_NEXT_COMP |
			       IB_CQ_REPORT_MISSED_EVENTS) == 0,
	      "CQ2 made in CQ1's place, armed, nothing missed");
	if (IS_ERR(c))
		goto out;
	pr_info("orca_kverbs[%s]: waiting for the completion interrupt\n",
		run_id);
	check(wait_go(), "CQN test: the script let the held interrupt out");
	check(atomic_read(&ev2) == 0 && ib_poll_cq(cq2, 1, &wc) == 0,
	      "CQ2 got no event (%d) and no CQE of CQ1's", atomic_read(&ev2));
	check(!to_state(p, IB_QPS_RESET) && !to_rts(p, c->qp_num) &&
	      !to_rts(c, p->qp_num) && post_recvs(p, 1, 0x820) == 1 &&
	      post_sends(c, 1, 0xc2) == 1 && wait_atomic(&ev2, 1) &&
	      poll_ok(cq2, 1) == 1,
	      "a completion of CQ2's own runs its handler once (%d)",
	      atomic_read(&ev2));
out:
	destroy_qps(a, c);
	destroy_qps(p, NULL);
out_cq:
	if (!IS_ERR_OR_NULL(cq2))
		ib_destroy_cq(cq2);
	if (!IS_ERR_OR_NULL(cq1))
		ib_destroy_cq(cq1);
	if (!IS_ERR(pcq))
		ib_free_cq(pcq);
}

/*
 * A device that is slow, not dead (review-kverbs finding 1): a command
 * times out while the device is still placing a SEND into a kernel QP's
 * receive buffer, so the driver declares it dead.  The receive completes
 * once: with the SEND's bytes, or flushed only once the device is
 * stopped, so that a buffer the flush hands back stays as its consumer
 * leaves it (poisoned here) after the device stopped; nothing completes
 * twice.  The script sets go once the driver logged the stop.
 */
static void test_slow(void)
{
	struct ib_sge sge = { .addr = kv.src_dma, .length = 64,
			      .lkey = kv.pd->local_dma_lkey };
	struct ib_send_wr wr = { .wr_id = 0xd1, .sg_list = &sge, .num_sge = 1,
				 .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };
	struct ib_qp *a = NULL, *b = NULL;
	struct ib_cq *cqa, *cqb = NULL;
	struct ib_wc wc = {}, more[2];
	struct ib_pd *pd = NULL;
	unsigned long end;
	bool intact = false;
	int got, n, i;

	cqa = ib_alloc_cq(kv.dev, NULL, 64, 0, IB_POLL_DIRECT);
	if (!IS_ERR(cqa))
		cqb = ib_alloc_cq(kv.dev, NULL, 64, 0, IB_POLL_DIRECT);
	if (IS_ERR(cqa) || IS_ERR(cqb)) {
		check(false, "slow device: two CQs");
		goto out_cq;
	}
	a = make_qp(cqa, IB_QPT_RC);
	b = make_qp(cqb, IB_QPT_RC);
	if (IS_ERR(a) || IS_ERR(b) || to_rts(a, b->qp_num) ||
	    to_rts(b, a->qp_num)) {
		check(false, "slow device: an RC pair");
		goto out;
	}
	fill(kv.src, 64, 91);
	memset(kv.dst, 0, 64);
	ib_dma_sync_single_for_device(kv.dev, kv.dst_dma, BUF_SIZE,
				      DMA_FROM_DEVICE);
	check(!post_recv(b, 0xd0, kv.dst_dma, 64) &&
	      !ib_post_send(a, &wr, NULL),
	      "slow device: a receive and a SEND to it posted");
	/* commands until one times out: the device sleeps in the placement */
	end = jiffies + msecs_to_jiffies(wait_ms);
	do {
		pd = ib_alloc_pd(kv.dev, 0);
		if (IS_ERR(pd))
			break;
		ib_dealloc_pd(pd);
	} while (time_before(jiffies, end));
	check(IS_ERR(pd),
	      "slow device: a command failed while it placed the SEND (%d)",
	      PTR_ERR_OR_ZERO(pd));
	got = poll_n(cqb, &wc, 1);
	pr_info("orca_kverbs[%s]: # the receive completed: %d, status %d\n",
		run_id, got, got == 1 ? wc.status : -1);
	if (got == 1 && wc.status != IB_WC_SUCCESS) {
		/* its consumer has the buffer back: poison it */
		memset(kv.dst, 0xee, 64);
		ib_dma_sync_single_for_device(kv.dev, kv.dst_dma, BUF_SIZE,
					      DMA_FROM_DEVICE);
	}
	pr_info("orca_kverbs[%s]: waiting for the device to stop\n", run_id);
	check(wait_go(), "slow device: the driver logged it stopped");
	ib_dma_sync_single_for_cpu(kv.dev, kv.dst_dma, BUF_SIZE,
				   DMA_FROM_DEVICE);
	if (got == 1 && wc.status == IB_WC_SUCCESS) {
		intact = wc.byte_len == 64 && !memcmp(kv.dst, kv.src, 64);
	} else if (got == 1 && wc.status == IB_WC_WR_FLUSH_ERR) {
		intact = true;
		for (i = 0; i < 64; i++)
			intact &= kv.dst[i] == 0xee;
	}
	check(got == 1 && wc.wr_id == 0xd0 && intact,
	      "slow device: the receive completed once, with the SEND's bytes or flushed with its buffer left as its consumer left it (%d, status %d, wr_id 0x%llx)",
	      got, got == 1 ? wc.status : -1, wc.wr_id);
	n = ib_poll_cq(cqb, 2, more);
	check(n == 0, "slow device: nothing more on the receive's CQ (%d, wr_id 0x%llx)",
	      n, n > 0 ? more[0].wr_id : 0);
	got = poll_n(cqa, more, 1);
	n = ib_poll_cq(cqa, 1, &more[1]);
	check(got == 1 && more[0].wr_id == 0xd1 && n == 0,
	      "slow device: the SEND completed once (%d, status %d; then %d)",
	      got, got == 1 ? more[0].status : -1, n);
out:
	destroy_qps(a, b);
out_cq:
	if (!IS_ERR_OR_NULL(cqb))
		ib_free_cq(cqb);
	if (!IS_ERR(cqa))
		ib_free_cq(cqa);
}

/*
 * NodeDescription (review-kverbs finding 8): the SMA's answer carries the
 * host's copy, which sysfs node_desc rewrites through modify_device.  One
 * thread writes "aaa..." and "bbb..." in turn as fast as it can, while
 * this one asks for NodeDescription through process_mad as ib_mad does
 * for a local SMP; every answer must be one of the two whole, never a
 * mixture.  The description is put back after.
 */
#define ND_READS	2000

struct nd_writer {
	struct ib_device *dev;
	unsigned long writes;
	int err;
};

static void nd_fill(struct ib_device_modify *m, char c)
{
	memset(m->node_desc, c, sizeof(m->node_desc));
}

static int nd_write(void *arg)
{
	struct nd_writer *w = arg;
	struct ib_device_modify m[2];

	nd_fill(&m[0], 'a');
	nd_fill(&m[1], 'b');
	while (!kthread_should_stop()) {
		if (!w->err)
			w->err = ib_modify_device(w->dev,
						  IB_DEVICE_MODIFY_NODE_DESC,
						  &m[w->writes++ & 1]);
		cond_resched();
	}
	return 0;
}

/* 'a' or 'b' if @d is all of it, 0 if torn, -1 for anything else */
static int nd_whole(const u8 *d)
{
	int i;

	if (d[0] != 'a' && d[0] != 'b')
		return -1;
	for (i = 1; i < IB_DEVICE_NODE_DESC_MAX; i++)
		if (d[i] != d[0])
			return d[i] == 'a' || d[i] == 'b' ? 0 : -1;
	return d[0];
}

static void test_node_desc(struct ib_device *dev)
{
	struct ib_device_modify saved, first;
	unsigned long end = jiffies + msecs_to_jiffies(wait_ms);
	unsigned int reads = 0, torn = 0, odd = 0, seen_a = 0, seen_b = 0;
	unsigned int noreply = 0;
	int first_r = 0;
	u8 first_odd[8] = {};
	struct nd_writer w = { .dev = dev };
	struct ib_smp *in, *out;
	struct task_struct *t;
	int r;

	if (!dev->ops.process_mad) {
		check(false, "NodeDescription: the device has process_mad");
		return;
	}
	memcpy(saved.node_desc, dev->node_desc, sizeof(saved.node_desc));
	/*
	 * "aaa..." before the writer runs: it may start late, and the
	 * description it has not yet replaced is neither of its two
	 */
	nd_fill(&first, 'a');
	w.err = ib_modify_device(dev, IB_DEVICE_MODIFY_NODE_DESC, &first);
	in = kzalloc(sizeof(struct ib_mad), GFP_KERNEL);
	out = kzalloc(sizeof(struct ib_mad), GFP_KERNEL);
	t = in && out ? kthread_run(nd_write, &w, "orca_kv_nd") : NULL;
	if (IS_ERR_OR_NULL(t)) {
		check(false, "NodeDescription: a writer thread");
		goto out;
	}
	in->base_version = IB_MGMT_BASE_VERSION;
	in->mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED;
	in->class_version = 1;
	in->method = IB_MGMT_METHOD_GET;
	in->attr_id = IB_SMP_ATTR_NODE_DESC;
	while (reads < ND_READS && time_before(jiffies, end)) {
		size_t out_size = sizeof(struct ib_mad);
		u16 pkey_index = 0;

		in->tid = cpu_to_be64(reads + 1);
		memset(out, 0, sizeof(struct ib_mad));
		r = dev->ops.process_mad(dev, 0, 1, NULL, NULL,
					 (const struct ib_mad *)in,
					 (struct ib_mad *)out, &out_size,
					 &pkey_index);
		reads++;
		if (!(r & IB_MAD_RESULT_REPLY)) {
			if (!noreply++)
				first_r = r;
			continue;
		}
		switch (nd_whole(out->data)) {
		case 'a':
			seen_a++;
			break;
		case 'b':
			seen_b++;
			break;
		case 0:
			torn++;
			break;
		default:
			if (!odd++)
				memcpy(first_odd, out->data, sizeof(first_odd));
		}
	}
	kthread_stop(t);
	check(!w.err && reads && !torn && !odd && !noreply && seen_a && seen_b,
	      "NodeDescription while another CPU rewrites it: %u asked, %u all 'a', %u all 'b', %u torn, %u other (%*ph), %u unanswered (0x%x); %lu writes (%d)",
	      reads, seen_a, seen_b, torn, odd, (int)sizeof(first_odd),
	      first_odd, noreply, first_r, w.writes, w.err);
out:
	ib_modify_device(dev, IB_DEVICE_MODIFY_NODE_DESC, &saved);
	kfree(in);
	kfree(out);
}

static void run(struct ib_device *dev)
{
	struct ib_port_attr pa;
	struct ib_qp *a = NULL, *b = NULL;
	struct ib_cq *cq;

	check(dev->attrs.kernel_cap_flags & IBK_LOCAL_DMA_LKEY,
	      "%s: IBK_LOCAL_DMA_LKEY", dev_name(&dev->dev));
	check(!ib_query_port(dev, 1, &pa) && pa.state == IB_PORT_ACTIVE,
	      "port 1 ACTIVE, LID %u", pa.lid);
	kv.port_lid = pa.lid;
	kv.mtu = min(pa.active_mtu, IB_MTU_1024);
	kv.pd = ib_alloc_pd(dev, 0);
	check(!IS_ERR(kv.pd), "ib_alloc_pd");
	if (IS_ERR(kv.pd))
		return;
	check(kv.pd->local_dma_lkey == dev->local_dma_lkey,
	      "the PD's local_dma_lkey is the device's (0x%x)",
	      kv.pd->local_dma_lkey);
	kv.src = kzalloc(BUF_SIZE, GFP_KERNEL);
	kv.dst = kzalloc(BUF_SIZE, GFP_KERNEL);
	check(kv.src && kv.dst, "the test's buffers allocated");
	if (!kv.src || !kv.dst)
		goto out_buf;
	kv.src_dma = ib_dma_map_single(dev, kv.src, BUF_SIZE, DMA_TO_DEVICE);
	kv.dst_dma = ib_dma_map_single(dev, kv.dst, BUF_SIZE, DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(dev, kv.src_dma) ||
	    ib_dma_mapping_error(dev, kv.dst_dma)) {
		check(false, "DMA mapping of the buffers");
		goto out_buf;
	}
	if (dead_param) {
		test_dead();
		goto out_buf;
	}
	if (slow_param) {
		test_slow();
		goto out_buf;
	}
	if (cqn_param) {
		test_cqn();
		goto out_buf;
	}
	cq = ib_alloc_cq(dev, NULL, 256, 0, IB_POLL_DIRECT);
	check(!IS_ERR(cq), "ib_alloc_cq (direct polling)");
	if (IS_ERR(cq))
		goto out_buf;
	a = make_qp(cq, IB_QPT_RC);
	b = make_qp(cq, IB_QPT_RC);
	check(!IS_ERR(a) && !IS_ERR(b), "RC QPs created on kernel rings");
	if (IS_ERR(a) || IS_ERR(b))
		goto out_qp;
	check(!to_rts(a, b->qp_num) && !to_rts(b, a->qp_num),
	      "RC QPs connected: RESET -> INIT -> RTR -> RTS");
	test_rc(cq, a, b);
	test_ud(cq);
	test_srq(cq);
	test_bad_lkey(cq, a);
	test_events();
	test_drain();
	test_fastreg();
	test_reset();
	test_srq_churn();
	test_reuse();
	test_deep_ring();
	test_node_desc(dev);
out_qp:
	destroy_qps(a, b);
	ib_free_cq(cq);
out_buf:
	if (kv.src_dma && !ib_dma_mapping_error(dev, kv.src_dma))
		ib_dma_unmap_single(dev, kv.src_dma, BUF_SIZE, DMA_TO_DEVICE);
	if (kv.dst_dma && !ib_dma_mapping_error(dev, kv.dst_dma))
		ib_dma_unmap_single(dev, kv.dst_dma, BUF_SIZE,
				    DMA_FROM_DEVICE);
	kfree(kv.src);
	kfree(kv.dst);
	ib_dealloc_pd(kv.pd);
}

static int kv_add(struct ib_device *dev)
{
	if (strcmp(dev_name(&dev->dev), dev_name_param))
		return -EOPNOTSUPP;
	kv.found = true;
	kv.dev = dev;
	run(dev);
	return -EOPNOTSUPP;	/* nothing to keep per device */
}

static void kv_remove(struct ib_device *dev, void *data)
{
}

static struct ib_client kv_client = {
	.name = "orca_kverbs_test",
	.add = kv_add,
	.remove = kv_remove,
};

static int __init kv_init(void)
{
	int err = ib_register_client(&kv_client);

	if (err)
		return err;
	ib_unregister_client(&kv_client);
	if (!kv.found)
		check(false, "device %s found (a kernel verbs provider)",
		      dev_name_param);
	pr_info("orca_kverbs[%s]: 1..%u\n", run_id, kv.n);
	return kv.failed ? -EIO : 0;
}

static void __exit kv_exit(void)
{
}

module_init(kv_init);
module_exit(kv_exit);
MODULE_DESCRIPTION("orca: kernel verbs test (tests/vm/kverbs.sh)");
MODULE_LICENSE("Dual BSD/GPL");
