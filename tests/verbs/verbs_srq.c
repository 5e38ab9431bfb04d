// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues (ibv_create_srq(3), ibv_modify_srq(3),
 * ibv_query_srq(3), ibv_post_srq_recv(3)) on one port, QP to QP through
 * the device's loopback:
 *
 *  1. create, query and modify: the caps applied (>= requested), the limit
 *     armed and read back, resizing refused, values over the device's
 *     limits refused, create_srq_ex for basic SRQs only;
 *  2. post_srq_recv: at most max_wr outstanding (ENOMEM), max_sge
 *     (EINVAL), bad_wr names the first WR not posted;
 *  3. two RC QPs share one SRQ: every message arrives intact in the buffer
 *     of the WR whose wr_id its completion carries, each wr_id once, on
 *     the right QP; the QPs have no receive queue of their own;
 *  4. the SRQ cannot be destroyed while QPs use it (EBUSY);
 *  5. IBV_EVENT_SRQ_LIMIT_REACHED exactly once after arming, when fewer
 *     WRs than the limit are left, and the limit reads 0 afterwards;
 *  6. IBV_EVENT_QP_LAST_WQE_REACHED when a QP on the SRQ goes to ERR; the
 *     other QP keeps receiving from the SRQ;
 *  7. objects of another context are refused with EINVAL: a QP on its
 *     SRQ, an SRQ in its PD or with its CQ (the verbs fuzzer's rule);
 *  8. a device reporting max_srq 0 (vm-features-off): ibv_create_srq
 *     fails with EOPNOTSUPP; the rest is skipped.
 *
 *   verbs_srq [-d orca0]
 */
#include "common.h"

#define SLOT		(32 * 1024)
#define NMSG		8

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_port_attr port;
static struct ibv_device_attr_ex dev_attr;
static uint8_t *src, *dst;
static struct ibv_mr *src_mr, *dst_mr;

static int connect_qp(struct ibv_qp *qp, uint32_t dest)
{
	struct ibv_qp_attr a;

	fill_attr(&a, qp, &port, IBV_QPS_INIT);
	if (ibv_modify_qp(qp, &a, required_mask(qp->qp_type, IBV_QPS_RESET,
						IBV_QPS_INIT)))
		return -1;
	fill_attr(&a, qp, &port, IBV_QPS_RTR);
	a.dest_qp_num = dest;
	a.rq_psn = 100;			/* the peer's sq_psn */
	a.min_rnr_timer = 1;
	if (ibv_modify_qp(qp, &a, required_mask(qp->qp_type, IBV_QPS_INIT,
						IBV_QPS_RTR)))
		return -1;
	fill_attr(&a, qp, &port, IBV_QPS_RTS);
	a.sq_psn = 100;
	return ibv_modify_qp(qp, &a, required_mask(qp->qp_type, IBV_QPS_RTR,
						   IBV_QPS_RTS));
}

static struct ibv_srq *make_srq(uint32_t max_wr, uint32_t max_sge)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = max_wr,
						  .max_sge = max_sge } };

	return ibv_create_srq(pd, &sa);
}

/* A requester and a responder on @srq, connected to each other. */
static bool make_pair(struct ibv_srq *srq, struct ibv_qp **a,
		      struct ibv_qp **b)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	*a = ibv_create_qp(pd, &init);
	init.srq = srq;
	init.cap.max_recv_wr = 0;
	init.cap.max_recv_sge = 0;
	*b = ibv_create_qp(pd, &init);
	if (!*a || !*b) {
		diag("create_qp: %s", strerror(errno));
		return false;
	}
	if (connect_qp(*a, (*b)->qp_num) || connect_qp(*b, (*a)->qp_num)) {
		diag("connect: %s", strerror(errno));
		return false;
	}
	return true;
}

static int post_srq(struct ibv_srq *srq, uint64_t id, void *addr,
		    uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, dst_mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_srq_recv(srq, &wr, &bad);
}

static int post_send(struct ibv_qp *qp, uint64_t id, void *addr,
		     uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, src_mr->lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

static void pattern(uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

/* Receive completions (send ones are counted) within @ms. */
static int poll_recvs(struct ibv_wc *out, int max, int ms, int *sends)
{
	long long end = now_ms() + ms;
	struct ibv_wc wc[16];
	int got = 0, n, i;

	while (got < max && now_ms() < end) {
		n = ibv_poll_cq(cq, 16, wc);
		for (i = 0; i < n; i++) {
			if (wc[i].opcode & IBV_WC_RECV)
				out[got++] = wc[i];
			else if (wc[i].status == IBV_WC_SUCCESS)
				(*sends)++;
			else
				diag("send completion status %s",
				     ibv_wc_status_str(wc[i].status));
		}
	}
	return got;
}

static void drain_cq(void)
{
	struct ibv_wc wc[16];

	while (ibv_poll_cq(cq, 16, wc) > 0)
		;
}

static void create_query_modify(void)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 5, .max_sge = 2 } };
	struct ibv_srq_init_attr_ex sx = {};
	struct ibv_srq_attr q, m;
	struct ibv_recv_wr wr[3], *bad;
	struct ibv_sge sge[3];
	struct ibv_srq *srq;
	uint32_t max_wr;
	int ret, i;

	srq = ibv_create_srq(pd, &sa);
	if (!ok(srq != NULL, "ibv_create_srq(max_wr 5, max_sge 2) (%s)",
		srq ? "success" : strerror(errno)))
		return;
	max_wr = sa.attr.max_wr;
	ok(max_wr >= 5 && sa.attr.max_sge >= 2,
	   "create reports the applied caps, >= requested (max_wr %u, max_sge %u)",
	   max_wr, sa.attr.max_sge);
	ret = ibv_query_srq(srq, &q);
	ok(!ret && q.max_wr == max_wr && q.max_sge == sa.attr.max_sge &&
	   q.srq_limit == 0,
	   "query_srq: max_wr %u, max_sge %u, srq_limit %u (not armed)",
	   q.max_wr, q.max_sge, q.srq_limit);

	m = (struct ibv_srq_attr){ .srq_limit = 3 };
	ret = ibv_modify_srq(srq, &m, IBV_SRQ_LIMIT);
	ok(!ret, "modify_srq(IBV_SRQ_LIMIT 3) (%s)", err_str(ret));
	ret = ibv_query_srq(srq, &q);
	ok(!ret && q.srq_limit == 3, "query_srq: srq_limit %u", q.srq_limit);
	m = (struct ibv_srq_attr){ .max_wr = max_wr * 2 };
	ret = ibv_modify_srq(srq, &m, IBV_SRQ_MAX_WR);
	ok(ret == EINVAL || ret == EOPNOTSUPP,
	   "modify_srq(IBV_SRQ_MAX_WR) without IBV_DEVICE_SRQ_RESIZE fails (%s)",
	   err_str(ret));
	ok(!(dev_attr.orig_attr.device_cap_flags & IBV_DEVICE_SRQ_RESIZE),
	   "device_cap_flags lacks IBV_DEVICE_SRQ_RESIZE");
	m = (struct ibv_srq_attr){ .srq_limit = max_wr + 1 };
	ret = ibv_modify_srq(srq, &m, IBV_SRQ_LIMIT);
	ok(ret == EINVAL, "modify_srq(srq_limit max_wr + 1) fails with EINVAL (%s)",
	   err_str(ret));
	ret = ibv_query_srq(srq, &q);
	ok(!ret && q.srq_limit == 3 && q.max_wr == max_wr,
	   "failed modifies changed nothing (srq_limit %u, max_wr %u)",
	   q.srq_limit, q.max_wr);

	/* post_srq_recv: max_sge, then max_wr outstanding */
	for (i = 0; i < 3; i++) {
		sge[i] = (struct ibv_sge){ (uintptr_t)dst, 8, dst_mr->lkey };
		wr[i] = (struct ibv_recv_wr){ .wr_id = i, .sg_list = sge,
					      .num_sge = 1,
					      .next = i < 2 ? &wr[i + 1] : NULL };
	}
	wr[1].num_sge = sa.attr.max_sge + 1;
	bad = NULL;
	ret = ibv_post_srq_recv(srq, wr, &bad);
	ok(ret == EINVAL && bad == &wr[1],
	   "post_srq_recv with num_sge > max_sge: EINVAL, bad_wr the second WR (%s)",
	   err_str(ret));
	wr[1].num_sge = 1;
	for (i = 1; i < (int)max_wr; i++) {
		ret = post_srq(srq, i, dst, 8);
		if (ret)
			break;
	}
	ok(i == (int)max_wr, "post_srq_recv: %d of max_wr %u posted", i, max_wr);
	bad = NULL;
	ret = ibv_post_srq_recv(srq, wr, &bad);
	ok(ret == ENOMEM && bad == wr,
	   "post_srq_recv beyond max_wr: ENOMEM, bad_wr the first WR (%s)",
	   err_str(ret));
	ok(!ibv_destroy_srq(srq), "destroy_srq");

	/* the device's limits */
	sa.attr.max_wr = dev_attr.orig_attr.max_srq_wr + 1;
	sa.attr.max_sge = 1;
	srq = ibv_create_srq(pd, &sa);
	ok(!srq && errno == EINVAL, "max_wr = max_srq_wr + 1 (%d) fails with EINVAL (%s)",
	   dev_attr.orig_attr.max_srq_wr + 1, srq ? "success" : strerror(errno));
	if (srq)
		ibv_destroy_srq(srq);
	sa.attr.max_wr = 4;
	sa.attr.max_sge = dev_attr.orig_attr.max_srq_sge + 1;
	srq = ibv_create_srq(pd, &sa);
	ok(!srq && errno == EINVAL, "max_sge = max_srq_sge + 1 (%d) fails with EINVAL (%s)",
	   dev_attr.orig_attr.max_srq_sge + 1, srq ? "success" : strerror(errno));
	if (srq)
		ibv_destroy_srq(srq);

	/* ibv_create_srq_ex: basic SRQs (with a CQ named) only */
	sx.attr.max_wr = 4;
	sx.attr.max_sge = 1;
	sx.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
		       IBV_SRQ_INIT_ATTR_CQ;
	sx.srq_type = IBV_SRQT_BASIC;
	sx.pd = pd;
	sx.cq = cq;
	srq = ibv_create_srq_ex(ctx, &sx);
	ok(srq && sx.attr.max_wr >= 4,
	   "ibv_create_srq_ex(BASIC, with a CQ) (%s, max_wr %u)",
	   srq ? "success" : strerror(errno), sx.attr.max_wr);
	if (srq)
		ok(!ibv_destroy_srq(srq), "destroy the create_srq_ex SRQ");
	sx.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
		       IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_XRCD;
	sx.srq_type = IBV_SRQT_XRC;
	errno = 0;
	srq = ibv_create_srq_ex(ctx, &sx);
	ok(!srq && errno == EOPNOTSUPP,
	   "ibv_create_srq_ex(IBV_SRQT_XRC) fails with EOPNOTSUPP (%s)",
	   srq ? "success" : strerror(errno));
	if (srq)
		ibv_destroy_srq(srq);
}

/* Message i: its sender, its length (all distinct), its pattern seed. */
static uint32_t msg_len(int i)
{
	return i == 3 ? 20000 : 100 * (i + 1) + i;	/* one of 5 packets */
}

static void two_qps(void)
{
	struct ibv_qp *a[2] = {}, *b[2] = {};
	struct ibv_wc wc[NMSG];
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr qa;
	struct ibv_srq *srq;
	bool seen[NMSG] = {}, good = true;
	int i, n, sends = 0, ret;
	long long end;
	size_t off = 0;

	srq = make_srq(NMSG, 1);
	if (!ok(srq != NULL, "SRQ of %d WRs", NMSG) ||
	    !ok(make_pair(srq, &a[0], &b[0]) && make_pair(srq, &a[1], &b[1]),
		"two RC QPs on the SRQ, each connected to a requester"))
		goto out;
	ret = ibv_query_qp(b[0], &qa, IBV_QP_CAP, &init);
	ok(!ret && init.srq == srq && qa.cap.max_recv_wr == 0 &&
	   init.cap.max_recv_wr == 0,
	   "query_qp: init_attr.srq is the SRQ, max_recv_wr 0 (%u)",
	   qa.cap.max_recv_wr);
	{
		struct ibv_sge sge = { (uintptr_t)dst, 8, dst_mr->lkey };
		struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 };
		struct ibv_recv_wr *bad;

		ret = ibv_post_recv(b[0], &wr, &bad);
		ok(ret != 0, "post_recv on a QP with an SRQ fails (%s)",
		   err_str(ret));
	}
	ret = ibv_destroy_srq(srq);
	ok(ret == EBUSY, "destroy_srq while QPs use it fails with EBUSY (%s)",
	   err_str(ret));

	for (i = 0; i < NMSG; i++)
		ok(!post_srq(srq, 0x5000 + i, dst + i * SLOT, SLOT),
		   "post_srq_recv wr_id 0x%x", 0x5000 + i);
	for (i = 0; i < NMSG; i++) {
		pattern(src + off, msg_len(i), i);
		ret = post_send(a[i & 1], 0xa000 + i, src + off, msg_len(i));
		if (ret)
			diag("post_send %d: %s", i, strerror(ret));
		off += msg_len(i);
	}
	n = poll_recvs(wc, NMSG, wait_ms(), &sends);
	ok(n == NMSG, "%d of %d receive completions", n, NMSG);
	for (i = 0; i < n; i++) {
		uint64_t slot = wc[i].wr_id - 0x5000;
		int k;

		if (wc[i].status != IBV_WC_SUCCESS || slot >= NMSG ||
		    seen[slot]) {
			diag("completion %d: status %s, wr_id 0x%llx", i,
			     ibv_wc_status_str(wc[i].status),
			     (unsigned long long)wc[i].wr_id);
			good = false;
			continue;
		}
		seen[slot] = true;
		for (k = 0; k < NMSG && msg_len(k) != wc[i].byte_len; k++)
			;
		if (k == NMSG || wc[i].qp_num != b[k & 1]->qp_num) {
			diag("wr_id 0x%llx: %u bytes on QP %u",
			     (unsigned long long)wc[i].wr_id, wc[i].byte_len,
			     wc[i].qp_num);
			good = false;
			continue;
		}
		pattern(src, msg_len(k), k);
		if (memcmp(dst + slot * SLOT, src, msg_len(k))) {
			diag("wr_id 0x%llx: the data of message %d differs",
			     (unsigned long long)wc[i].wr_id, k);
			good = false;
		}
	}
	ok(good && n == NMSG,
	   "every message arrived intact in the buffer of the wr_id its completion names, on its QP, each wr_id once");
	/* the send completions that are still to come, then a short look
	 * for a receive that must not come */
	end = now_ms() + wait_ms();
	n = 0;
	while (!n && sends < NMSG && now_ms() < end)
		n = poll_recvs(wc, 1, 100, &sends);
	n += poll_recvs(wc + n, 1, 200, &sends);
	ok(sends == NMSG && n == 0, "%d send completions, no extra receive",
	   sends);

	/* a QP on the SRQ goes to ERR: Last WQE Reached; the other goes on */
	drain_async(ctx, 0);
	take_events(IBV_EVENT_QP_LAST_WQE_REACHED, b[0]);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_ERR;
	ok(!ibv_modify_qp(b[0], &qa, IBV_QP_STATE), "QP 1 on the SRQ -> ERR");
	ok(wait_event(ctx, IBV_EVENT_QP_LAST_WQE_REACHED, b[0], wait_ms()),
	   "IBV_EVENT_QP_LAST_WQE_REACHED for it");
	ok(!take_events(IBV_EVENT_QP_LAST_WQE_REACHED, b[1]),
	   "none for the other QP");
	ok(!post_srq(srq, 0x6000, dst, SLOT) &&
	   !post_send(a[1], 0xa100, src, 64), "one more message to QP 2");
	n = poll_recvs(wc, 1, wait_ms(), &sends);
	ok(n == 1 && wc[0].status == IBV_WC_SUCCESS && wc[0].wr_id == 0x6000 &&
	   wc[0].qp_num == b[1]->qp_num,
	   "QP 2 still receives from the SRQ (wr_id 0x%llx, %s)",
	   n ? (unsigned long long)wc[0].wr_id : 0ULL,
	   n ? ibv_wc_status_str(wc[0].status) : "no completion");
out:
	for (i = 0; i < 2; i++) {
		if (b[i])
			forget_events(b[i]);
		if (a[i])
			ibv_destroy_qp(a[i]);
		if (b[i])
			ibv_destroy_qp(b[i]);
	}
	drain_cq();
	if (srq)
		ok(!ibv_destroy_srq(srq), "destroy_srq once its QPs are gone");
}

static void limit_event(void)
{
	struct ibv_qp *a = NULL, *b = NULL;
	struct ibv_srq_attr m = { .srq_limit = 4 }, q;
	struct ibv_wc wc[2];
	struct ibv_srq *srq;
	int i, n, sends = 0, ret;

	srq = make_srq(8, 1);
	if (!ok(srq != NULL, "SRQ of 8 WRs") ||
	    !ok(make_pair(srq, &a, &b), "RC QP on it, connected"))
		goto out;
	for (i = 0; i < 6; i++)
		post_srq(srq, 0x7000 + i, dst + i * 64, 64);
	drain_async(ctx, 0);
	take_events(IBV_EVENT_SRQ_LIMIT_REACHED, NULL);
	ok(!ibv_modify_srq(srq, &m, IBV_SRQ_LIMIT),
	   "6 WRs posted, limit armed at 4");
	for (i = 0; i < 2; i++)
		post_send(a, i, src, 8);
	n = poll_recvs(wc, 2, wait_ms(), &sends);
	drain_async(ctx, 300);
	ok(n == 2 && !take_events(IBV_EVENT_SRQ_LIMIT_REACHED, NULL),
	   "2 consumed, 4 left: no event");
	post_send(a, 2, src, 8);
	n = poll_recvs(wc, 1, wait_ms(), &sends);
	ok(n == 1 && wait_event(ctx, IBV_EVENT_SRQ_LIMIT_REACHED, NULL, wait_ms()),
	   "one more, 3 left: IBV_EVENT_SRQ_LIMIT_REACHED");
	memset(&q, 0xff, sizeof(q));
	ret = ibv_query_srq(srq, &q);
	ok(!ret && q.srq_limit == 0,
	   "the limit is disarmed (query_srq %s, srq_limit %u)", err_str(ret),
	   q.srq_limit);
	for (i = 3; i < 5; i++)
		post_send(a, i, src, 8);
	n = poll_recvs(wc, 2, wait_ms(), &sends);
	drain_async(ctx, 300);
	ok(n == 2 && !take_events(IBV_EVENT_SRQ_LIMIT_REACHED, NULL),
	   "2 more consumed: the event came once");
out:
	if (a)
		ibv_destroy_qp(a);
	if (b) {
		forget_events(b);
		ibv_destroy_qp(b);
	}
	drain_cq();
	if (srq)
		ibv_destroy_srq(srq);
}

/* 7: an SRQ, PD or CQ of another context means nothing in this one */
static void foreign_objects(void)
{
	struct ibv_context *other = ibv_open_device(ctx->device);
	struct ibv_pd *opd = other ? ibv_alloc_pd(other) : NULL;
	struct ibv_cq *ocq = other ? ibv_create_cq(other, 16, NULL, NULL, 0) : NULL;
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4, .max_sge = 1 } };
	struct ibv_srq *osrq = opd ? ibv_create_srq(opd, &sa) : NULL;
	struct ibv_srq_init_attr_ex sx = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE,
		.srq_type = IBV_SRQT_BASIC,
	};
	struct ibv_qp_init_attr qa = {
		.send_cq = cq, .recv_cq = cq, .srq = osrq,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_srq *srq;
	struct ibv_qp *qp;

	if (!ok(osrq && ocq, "a second context with a PD, CQ and SRQ"))
		goto out;
	errno = 0;
	qp = ibv_create_qp(pd, &qa);
	ok(!qp && errno == EINVAL,
	   "create_qp on an SRQ of another context: EINVAL (%s)",
	   qp ? "created" : strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	/*
	 * With only PD (and BASIC) libibverbs calls ibv_create_srq(), which
	 * creates in the PD's context; with a CQ it is the provider's call.
	 */
	sx.comp_mask |= IBV_SRQ_INIT_ATTR_CQ;
	sx.cq = cq;
	sx.pd = opd;
	errno = 0;
	srq = ibv_create_srq_ex(ctx, &sx);
	ok(!srq && errno == EINVAL,
	   "create_srq_ex with a PD of another context: EINVAL (%s)",
	   srq ? "created" : strerror(errno));
	if (srq)
		ibv_destroy_srq(srq);
	sx.pd = pd;
	sx.cq = ocq;
	errno = 0;
	srq = ibv_create_srq_ex(ctx, &sx);
	ok(!srq && errno == EINVAL,
	   "create_srq_ex with a CQ of another context: EINVAL (%s)",
	   srq ? "created" : strerror(errno));
	if (srq)
		ibv_destroy_srq(srq);
	sx.cq = cq;
	errno = 0;
	srq = ibv_create_srq_ex(ctx, &sx);
	ok(srq != NULL, "the same with this context's PD and CQ: created (%s)",
	   srq ? "ok" : strerror(errno));
	if (srq)
		ibv_destroy_srq(srq);
out:
	if (osrq)
		ibv_destroy_srq(osrq);
	if (ocq)
		ibv_destroy_cq(ocq);
	if (opd)
		ibv_dealloc_pd(opd);
	if (other)
		ibv_close_device(other);
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	int ret;

	ctx = open_device_by_name(dev);
	if (!ok(ctx != NULL, "open %s", dev))
		return tap_done();
	ret = ibv_query_device_ex(ctx, NULL, &dev_attr);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	if (!ok(!ret && pd && cq && !ibv_query_port(ctx, 1, &port),
		"query device, PD, CQ, port"))
		return tap_done();

	if (!dev_attr.orig_attr.max_srq) {
		struct ibv_srq *srq = make_srq(4, 1);

		ok(!srq && errno == EOPNOTSUPP,
		   "max_srq 0: ibv_create_srq fails with EOPNOTSUPP (%s)",
		   srq ? "success" : strerror(errno));
		if (srq)
			ibv_destroy_srq(srq);
		skip("the device reports max_srq 0", "SRQ traffic and events");
		goto done;
	}
	diag("max_srq %d, max_srq_wr %d, max_srq_sge %d",
	     dev_attr.orig_attr.max_srq, dev_attr.orig_attr.max_srq_wr,
	     dev_attr.orig_attr.max_srq_sge);
	src = calloc(1, NMSG * SLOT);
	dst = calloc(1, NMSG * SLOT);
	src_mr = ibv_reg_mr(pd, src, NMSG * SLOT, IBV_ACCESS_LOCAL_WRITE);
	dst_mr = ibv_reg_mr(pd, dst, NMSG * SLOT, IBV_ACCESS_LOCAL_WRITE);
	if (!ok(src_mr && dst_mr, "register buffers"))
		goto done;
	create_query_modify();
	two_qps();
	limit_event();
	foreign_objects();
	ibv_dereg_mr(src_mr);
	ibv_dereg_mr(dst_mr);
done:
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return tap_done();
}
