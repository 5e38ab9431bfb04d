// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the device model's shared receive queues: the commands
 * and their checks, receives of two QPs from one SRQ (completions name
 * the WQE by its wqe_id, in any order), the limit event, the SRQ in use,
 * and the Last WQE Reached event of a QP that ends.  The test plays the
 * driver and the provider over fake guest RAM (dp_fixture.h).
 */
#include <string.h>

#include "dp_fixture.h"
#include "orca_cmd.h"
#include "orca_dev.h"
#include "orca_log.h"

struct ring_srq {
	uint32_t srqn, max_wr, pi;
	unsigned int log_depth;
	uint64_t base, db_off;
};

#define SRQ_LOG_STRIDE	RQ_LOG_STRIDE	/* 16 + 3 SGEs */

/* The input of a CREATE_SRQ for a fresh ring of 2^log_depth WQEs. */
static struct orca_create_srq_in srq_in(struct fx *f, struct ring_srq *srq,
					unsigned int log_depth, uint32_t max_wr)
{
	struct orca_create_srq_in in = {};
	uint64_t bytes;

	srq->db_off = (1ULL << log_depth) << SRQ_LOG_STRIDE;
	bytes = srq->db_off + sizeof(struct orca_srq_dbrec);
	srq->base = heap_alloc(bytes);
	memset(gpa(f, srq->base), 0, (bytes + PAGE - 1) & ~(PAGE - 1));
	srq->log_depth = log_depth;
	srq->pi = 0;
	in.pdn = htole32(f->pdn);
	in.max_wr = htole32(max_wr);
	in.max_sge = htole32(3);
	in.log_depth = log_depth;
	in.log_stride = SRQ_LOG_STRIDE;
	in.dbrec_off = htole32(srq->db_off);
	in.ring = pbl_for(f, srq->base, (bytes + PAGE - 1) / PAGE);
	return in;
}

static int create_srq(struct fx *f, struct ring_srq *srq,
		      const struct orca_create_srq_in *in)
{
	struct orca_srq_attr out;
	int ret;

	ret = fx_cmd(f, ORCA_CMD_CREATE_SRQ, in, sizeof(*in), &out,
		     sizeof(out));
	if (!ret) {
		srq->srqn = le32toh(out.srqn);
		srq->max_wr = le32toh(out.max_wr);
	}
	return ret;
}

static bool make_srq(struct fx *f, struct ring_srq *srq,
		     unsigned int log_depth)
{
	struct orca_create_srq_in in = srq_in(f, srq, log_depth,
					      1U << log_depth);

	return !create_srq(f, srq, &in);
}

/* One receive WQE named @id: @len bytes at @at. */
static void post_srq(struct fx *f, struct ring_srq *srq, uint64_t at,
		     uint32_t len, uint32_t lkey, uint32_t id)
{
	uint8_t *w = gpa(f, srq->base +
			 ((uint64_t)(srq->pi & ((1U << srq->log_depth) - 1))
			  << SRQ_LOG_STRIDE));
	struct orca_recv_wqe *h = (void *)w;
	struct orca_sge *s = (void *)(h + 1);
	struct orca_srq_dbrec *db = gpa(f, srq->base + srq->db_off);

	memset(w, 0, 1U << SRQ_LOG_STRIDE);
	h->num_sge = htole32(1);
	h->wqe_id = htole32(id);
	s->addr = htole64(iova(at));
	s->length = htole32(len);
	s->lkey = htole32(lkey);
	db->pi = htole32(++srq->pi);
}

static int query_srq(struct fx *f, uint32_t srqn, struct orca_srq_attr *a)
{
	struct orca_srq_handle h = { .srqn = htole32(srqn) };

	return fx_cmd(f, ORCA_CMD_QUERY_SRQ, &h, sizeof(h), a, sizeof(*a));
}

static int modify_srq(struct fx *f, uint32_t srqn, uint32_t mask,
		      uint32_t max_wr, uint32_t limit)
{
	struct orca_modify_srq_in in = {
		.srqn = htole32(srqn),
		.attr_mask = htole32(mask),
		.max_wr = htole32(max_wr),
		.limit = htole32(limit),
	};

	return fx_cmd(f, ORCA_CMD_MODIFY_SRQ, &in, sizeof(in), NULL, 0);
}

static int destroy_srq(struct fx *f, uint32_t srqn)
{
	struct orca_srq_handle h = { .srqn = htole32(srqn) };

	return fx_cmd(f, ORCA_CMD_DESTROY_SRQ, &h, sizeof(h), NULL, 0);
}

static int destroy_qp(struct fx *f, uint32_t qpn)
{
	struct orca_qp_handle h = { .qpn = htole32(qpn) };

	return fx_cmd(f, ORCA_CMD_DESTROY_QP, &h, sizeof(h), NULL, 0);
}

static int modify_state(struct fx *f, uint32_t qpn, uint8_t state)
{
	struct orca_modify_qp_in in = {};
	struct orca_qp_ctx out;

	in.qpn = htole32(qpn);
	in.attr_mask = htole32(ORCA_QP_STATE);
	in.ctx.state = state;
	return fx_cmd(f, ORCA_CMD_MODIFY_QP, &in, sizeof(in), &out,
		      sizeof(out));
}

/* Async events of @type (and, for QP events, @event on @obj) so far. */
static unsigned int count_events(struct fx *f, uint8_t type, uint32_t obj,
				 uint8_t event)
{
	struct orca_eqe e;
	unsigned int i, n = 0;

	while (fx_pop(f, &e))
		if (f->n_async < 64)
			f->async[f->n_async++] = e;
	for (i = 0; i < f->n_async; i++) {
		const struct orca_eqe *a = &f->async[i];

		if (a->type != type)
			continue;
		if (type == ORCA_EQE_SRQ_LIMIT && le32toh(a->srq.srqn) == obj)
			n++;
		if (type == ORCA_EQE_QP_EVENT && le32toh(a->qp.qpn) == obj &&
		    a->qp.event == event)
			n++;
	}
	return n;
}

static struct ring_qp sender, sender2;

/* Two requesters to two responders that share @srq. */
static void connect_pairs(struct fx *f, struct ring_cq *cq,
			  struct ring_srq *srq, struct ring_qp *b1,
			  struct ring_qp *b2, uint8_t mtu)
{
	CHECK(make_qp(f, &sender, cq->cqn));
	CHECK(make_qp(f, &sender2, cq->cqn));
	CHECK(make_qp_srq(f, b1, cq->cqn, ORCA_QPT_RC, srq->srqn));
	CHECK(make_qp_srq(f, b2, cq->cqn, ORCA_QPT_RC, srq->srqn));
	CHECK(connect_rc(f, &sender, b1->qpn, 0, mtu));
	CHECK(connect_rc(f, &sender2, b2->qpn, 0, mtu));
	CHECK(connect_rc(f, b1, sender.qpn, 0, mtu));
	CHECK(connect_rc(f, b2, sender2.qpn, 0, mtu));
}

/* The next receive CQE, skipping send completions. */
static bool next_recv(struct fx *f, struct ring_cq *cq, struct orca_cqe *c)
{
	while (poll_cqe(f, cq, c))
		if (!(c->flags & ORCA_CQE_F_SQ))
			return true;
	return false;
}

/* Every check of CREATE/MODIFY/QUERY/DESTROY_SRQ and of QPs on an SRQ. */
static void srq_commands(void)
{
	struct fx *f = dp_up();
	struct orca_create_srq_in in;
	struct orca_srq_attr a;
	struct orca_pd_handle pd = { .pdn = htole32(f->pdn) };
	struct orca_create_qp_in qi = {};
	struct orca_qp_ctx ctx;
	struct ring_srq srq, s2;
	struct ring_qp qp;
	__le64 *list;

	/* 5 WRs: a ring of 8, max_wr rounded to 8, limit armed at create */
	in = srq_in(f, &srq, 3, 5);
	in.limit = htole32(2);
	CHECK_EQ(create_srq(f, &srq, &in), 0);
	CHECK(srq.srqn >= 1);
	CHECK_EQ(srq.max_wr, 8);
	CHECK_EQ(query_srq(f, srq.srqn, &a), 0);
	CHECK_EQ(le32toh(a.max_wr), 8);
	CHECK_EQ(le32toh(a.max_sge), 3);
	CHECK_EQ(le32toh(a.limit), 2);
	CHECK_EQ(f->dev.n_srqs, 1);

	/* MODIFY: the limit, never the size */
	CHECK_EQ(modify_srq(f, srq.srqn, ORCA_SRQ_LIMIT, 0, 7), 0);
	CHECK_EQ(query_srq(f, srq.srqn, &a), 0);
	CHECK_EQ(le32toh(a.limit), 7);
	EXPECT_FAIL(f, modify_srq(f, srq.srqn, ORCA_SRQ_MAX_WR, 16, 0),
		    ORCA_STATUS_UNSUPPORTED, ORCA_SYND_INVALID_ATTR);
	EXPECT_FAIL(f, modify_srq(f, srq.srqn, ORCA_SRQ_LIMIT, 0, 9),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	EXPECT_FAIL(f, modify_srq(f, srq.srqn, 4, 0, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_INVALID_ATTR);
	EXPECT_FAIL(f, modify_srq(f, srq.srqn + 1, ORCA_SRQ_LIMIT, 0, 1),
		    ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE);
	CHECK_EQ(query_srq(f, srq.srqn, &a), 0);
	CHECK_EQ(le32toh(a.limit), 7);	/* failed modifies changed nothing */
	CHECK_EQ(modify_srq(f, srq.srqn, ORCA_SRQ_LIMIT, 0, 0), 0);

	/* attribute and ring checks */
	in = srq_in(f, &s2, 3, 8);
	in.max_wr = 0;
	EXPECT_FAIL(f, create_srq(f, &s2, &in), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_ATTR_RANGE);
	in.max_wr = htole32(4097);
	EXPECT_FAIL(f, create_srq(f, &s2, &in), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_ATTR_RANGE);
	in.max_wr = htole32(8);
	in.max_sge = htole32(17);
	EXPECT_FAIL(f, create_srq(f, &s2, &in), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_ATTR_RANGE);
	in.max_sge = htole32(3);
	in.limit = htole32(9);
	EXPECT_FAIL(f, create_srq(f, &s2, &in), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_ATTR_RANGE);
	in.limit = 0;
	in.pdn = htole32(f->pdn + 9);
	EXPECT_FAIL(f, create_srq(f, &s2, &in), ORCA_STATUS_BAD_RESOURCE,
		    ORCA_SYND_HANDLE);
	in.pdn = htole32(f->pdn);
	in.reserved[1] = 1;
	EXPECT_FAIL(f, create_srq(f, &s2, &in), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_RESERVED_NZ);
	in.reserved[1] = 0;
	in.max_wr = htole32(9);		/* 2^3 cannot hold 9 */
	EXPECT_FAIL(f, create_srq(f, &s2, &in), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_RING);
	in.max_wr = htole32(8);
	in.max_sge = htole32(4);	/* 16 + 4 x 16 > 64 */
	EXPECT_FAIL(f, create_srq(f, &s2, &in), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_RING);
	in.max_sge = htole32(3);
	in.dbrec_off = htole32(64);	/* inside the ring */
	EXPECT_FAIL(f, create_srq(f, &s2, &in), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_RING);
	in.dbrec_off = htole32(s2.db_off + 4);	/* misaligned */
	EXPECT_FAIL(f, create_srq(f, &s2, &in), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_RING);
	in.dbrec_off = htole32(s2.db_off);
	/* the ring's pages: outside guest RAM, misaligned, list outside */
	list = gpa(f, le64toh(in.ring.addr));
	list[0] = htole64(RAM_SIZE);
	EXPECT_FAIL(f, create_srq(f, &s2, &in), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_PAGE_LIST);
	list[0] = htole64(s2.base + 64);
	EXPECT_FAIL(f, create_srq(f, &s2, &in), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_PAGE_LIST);
	list[0] = htole64(s2.base);
	in.ring.addr = htole64(RAM_SIZE + 4096);
	EXPECT_FAIL(f, create_srq(f, &s2, &in), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_PAGE_LIST);
	CHECK_EQ(f->dev.n_srqs, 1);

	/* a QP on the SRQ has no receive queue of its own */
	qi.qp_type = ORCA_QPT_UD;
	qi.pdn = htole32(f->pdn);
	qi.send_cqn = qi.recv_cqn = htole32(f->cqn);
	qi.srqn = htole32(srq.srqn);
	qi.max_recv_wr = htole32(1);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_CREATE_QP, &qi, sizeof(qi), &ctx,
			      sizeof(ctx)), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_ATTR_RANGE);
	qi.max_recv_wr = 0;
	qi.srqn = htole32(srq.srqn + 5);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_CREATE_QP, &qi, sizeof(qi), &ctx,
			      sizeof(ctx)), ORCA_STATUS_BAD_RESOURCE,
		    ORCA_SYND_HANDLE);
	CHECK(make_qp_srq(f, &qp, f->cqn, ORCA_QPT_UD, srq.srqn));
	CHECK_EQ(qp_state_of(f, qp.qpn), ORCA_QPS_RESET);
	{
		struct orca_qp_handle h = { .qpn = htole32(qp.qpn) };

		CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_QP, &h, sizeof(h), &ctx,
				sizeof(ctx)), 0);
		CHECK_EQ(le32toh(ctx.srqn), srq.srqn);
		CHECK_EQ(le32toh(ctx.max_recv_wr), 0);
	}

	/* in use: neither the SRQ nor its PD go */
	EXPECT_FAIL(f, destroy_srq(f, srq.srqn), ORCA_STATUS_BAD_RES_STATE,
		    ORCA_SYND_IN_USE);
	CHECK_EQ(destroy_qp(f, qp.qpn), 0);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_DEALLOC_PD, &pd, sizeof(pd), NULL, 0),
		    ORCA_STATUS_BAD_RES_STATE, ORCA_SYND_IN_USE);
	CHECK_EQ(destroy_srq(f, srq.srqn), 0);
	CHECK_EQ(f->dev.n_srqs, 0);
	EXPECT_FAIL(f, destroy_srq(f, srq.srqn), ORCA_STATUS_BAD_RESOURCE,
		    ORCA_SYND_HANDLE);
	EXPECT_FAIL(f, query_srq(f, srq.srqn, &a), ORCA_STATUS_BAD_RESOURCE,
		    ORCA_SYND_HANDLE);
	CHECK(canaries_ok(f));
	fx_free(f);

	/* a device without SRQs */
	{
		static const char *const sets[] = { "max_srq=0", NULL };

		heap_next = HEAP_BASE;
		f = fx_up_cfg(sets);
		in = srq_in(f, &s2, 3, 8);
		EXPECT_FAIL(f, create_srq(f, &s2, &in),
			    ORCA_STATUS_UNSUPPORTED, ORCA_SYND_NONE);
		fx_free(f);
	}
	/* and one with two: the third is refused */
	{
		static const char *const sets[] = { "max_srq=2", NULL };

		heap_next = HEAP_BASE;
		f = fx_up_cfg(sets);
		CHECK(make_srq(f, &srq, 2) && make_srq(f, &s2, 2));
		in = srq_in(f, &s2, 2, 4);
		EXPECT_FAIL(f, create_srq(f, &s2, &in),
			    ORCA_STATUS_NO_RESOURCES, ORCA_SYND_LIMIT);
		fx_free(f);
	}
}

/*
 * Two responders take receives from one SRQ, in ring order; a long
 * message and a short one in flight together complete out of order,
 * each CQE naming its WQE by wqe_id, and each message lands in the
 * buffer of the WQE that was taken for it.
 */
static void srq_two_qps(void)
{
	struct fx *f = dp_up();
	uint64_t src = heap_alloc(PAGE), dst = heap_alloc(4 * PAGE);
	uint8_t *s = gpa(f, src), *d = gpa(f, dst);
	struct ring_qp b1, b2;
	struct ring_srq srq;
	struct ring_cq cq;
	struct orca_cqe c;
	uint32_t slk, dlk, i;

	CHECK_EQ(reg_mr(f, f->pdn, src, PAGE, ORCA_ACCESS_LOCAL_WRITE, &slk),
		 0);
	CHECK_EQ(reg_mr(f, f->pdn, dst, 4 * PAGE, ORCA_ACCESS_LOCAL_WRITE,
			&dlk), 0);
	for (i = 0; i < PAGE; i++)
		s[i] = (uint8_t)(i * 7 + 3);
	CHECK(make_cq(f, &cq, 5));
	CHECK(make_srq(f, &srq, 3));
	connect_pairs(f, &cq, &srq, &b1, &b2, 1);	/* 256-byte MTU */
	for (i = 0; i < 4; i++)
		post_srq(f, &srq, dst + i * PAGE, PAGE, dlk, 100 + i);
	CHECK_EQ(f->dev.stats.db_kicks, 0);	/* receives need no kick */

	/* b1 gets 1000 bytes (4 packets), b2 8: b2's completes first */
	put_send(f, &sender, ORCA_WR_SEND, src, 1000, slk, 0, 0);
	put_send(f, &sender2, ORCA_WR_SEND, src + 1000, 8, slk, 0, 0);
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_DB);
	CHECK(next_recv(f, &cq, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(c.flags & ORCA_CQE_F_SRQ);
	CHECK_EQ(le32toh(c.qpn), b2.qpn);
	CHECK_EQ(le32toh(c.wqe_idx), 101);
	CHECK_EQ(le32toh(c.byte_len), 8);
	CHECK(next_recv(f, &cq, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(c.flags & ORCA_CQE_F_SRQ);
	CHECK_EQ(le32toh(c.qpn), b1.qpn);
	CHECK_EQ(le32toh(c.wqe_idx), 100);
	CHECK_EQ(le32toh(c.byte_len), 1000);
	CHECK(!memcmp(d, s, 1000));
	CHECK(!memcmp(d + PAGE, s + 1000, 8));

	/* the next ones, one per responder, take WQEs 102 and 103 */
	post_send(f, &sender2, ORCA_WR_SEND_WITH_IMM, src + 2000, 16, slk, 0, 0);
	CHECK(next_recv(f, &cq, &c));
	CHECK(le32toh(c.qpn) == b2.qpn && le32toh(c.wqe_idx) == 102 &&
	      (c.flags & ORCA_CQE_F_IMM));
	post_send(f, &sender, ORCA_WR_SEND, src + 3000, 32, slk, 0, 0);
	CHECK(next_recv(f, &cq, &c));
	CHECK(le32toh(c.qpn) == b1.qpn && le32toh(c.wqe_idx) == 103);
	CHECK(!memcmp(d + 2 * PAGE, s + 2000, 16));
	CHECK(!memcmp(d + 3 * PAGE, s + 3000, 32));
	CHECK_EQ(f->dev.srqs[srq.srqn].ci, 4);

	/*
	 * The SRQ is empty: RC answers with RNR (rnr_retry 0 ends it);
	 * the ring slots are free again and take new WQEs.
	 */
	while (poll_cqe(f, &cq, &c))
		CHECK(c.flags & ORCA_CQE_F_SQ && !c.status);
	post_send(f, &sender, ORCA_WR_SEND, src, 8, slk, 0, 0);
	CHECK(poll_cqe(f, &cq, &c));
	CHECK_EQ(c.status, ORCA_CQE_RNR_RETRY_EXC_ERR);
	CHECK_EQ(le32toh(c.qpn), sender.qpn);
	post_srq(f, &srq, dst, PAGE, dlk, 7);
	post_send(f, &sender2, ORCA_WR_SEND, src, 24, slk, 0, 0);
	CHECK(next_recv(f, &cq, &c));
	CHECK(le32toh(c.qpn) == b2.qpn && le32toh(c.wqe_idx) == 7 &&
	      c.status == ORCA_CQE_SUCCESS);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/* The limit event: once, when a take leaves fewer WQEs than the limit. */
static void srq_limit(void)
{
	struct fx *f = dp_up();
	uint64_t buf = heap_alloc(PAGE);
	struct orca_srq_attr a;
	struct ring_qp b1, b2;
	struct ring_srq srq;
	struct ring_cq cq;
	struct orca_cqe c;
	uint32_t lk, i;

	CHECK_EQ(reg_mr(f, f->pdn, buf, PAGE, ORCA_ACCESS_LOCAL_WRITE, &lk), 0);
	CHECK(make_cq(f, &cq, 5));
	CHECK(make_srq(f, &srq, 3));
	connect_pairs(f, &cq, &srq, &b1, &b2, 5);
	for (i = 0; i < 5; i++)
		post_srq(f, &srq, buf, 64, lk, i);
	CHECK_EQ(modify_srq(f, srq.srqn, ORCA_SRQ_LIMIT, 0, 3), 0);

	/* 4 left, then 3: not below the limit */
	for (i = 0; i < 2; i++) {
		post_send(f, i ? &sender2 : &sender, ORCA_WR_SEND, buf + 128,
			  8, lk, 0, 0);
		CHECK(next_recv(f, &cq, &c) && c.status == ORCA_CQE_SUCCESS);
	}
	CHECK_EQ(count_events(f, ORCA_EQE_SRQ_LIMIT, srq.srqn, 0), 0);
	/* 2 left: the event, and the limit is disarmed */
	post_send(f, &sender, ORCA_WR_SEND, buf + 128, 8, lk, 0, 0);
	CHECK(next_recv(f, &cq, &c) && c.status == ORCA_CQE_SUCCESS);
	CHECK_EQ(count_events(f, ORCA_EQE_SRQ_LIMIT, srq.srqn, 0), 1);
	CHECK(f->irqs > 0);
	CHECK_EQ(query_srq(f, srq.srqn, &a), 0);
	CHECK_EQ(le32toh(a.limit), 0);
	/* 1 and 0 left: no second event until armed again */
	for (i = 0; i < 2; i++) {
		post_send(f, i ? &sender : &sender2, ORCA_WR_SEND, buf + 128,
			  8, lk, 0, 0);
		CHECK(next_recv(f, &cq, &c) && c.status == ORCA_CQE_SUCCESS);
	}
	CHECK_EQ(count_events(f, ORCA_EQE_SRQ_LIMIT, srq.srqn, 0), 1);
	/* armed again with 1: the first take that leaves 0 fires */
	for (i = 0; i < 2; i++)
		post_srq(f, &srq, buf, 64, lk, 10 + i);
	CHECK_EQ(modify_srq(f, srq.srqn, ORCA_SRQ_LIMIT, 0, 1), 0);
	post_send(f, &sender, ORCA_WR_SEND, buf + 128, 8, lk, 0, 0);
	CHECK(next_recv(f, &cq, &c));
	CHECK_EQ(count_events(f, ORCA_EQE_SRQ_LIMIT, srq.srqn, 0), 1);
	post_send(f, &sender2, ORCA_WR_SEND, buf + 128, 8, lk, 0, 0);
	CHECK(next_recv(f, &cq, &c));
	CHECK_EQ(count_events(f, ORCA_EQE_SRQ_LIMIT, srq.srqn, 0), 2);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/*
 * A producer index the SRQ's ring cannot hold ends the QP that finds it;
 * the SRQ is left as it was, and nothing was read.
 */
static void srq_bad_pi(void)
{
	struct fx *f = dp_up();
	uint64_t buf = heap_alloc(PAGE);
	struct orca_srq_dbrec *db;
	struct ring_qp b1, b2;
	struct ring_srq srq;
	struct ring_cq cq;
	struct orca_cqe c;
	uint32_t lk;

	CHECK_EQ(reg_mr(f, f->pdn, buf, PAGE, ORCA_ACCESS_LOCAL_WRITE, &lk), 0);
	CHECK(make_cq(f, &cq, 5));
	CHECK(make_srq(f, &srq, 2));
	connect_pairs(f, &cq, &srq, &b1, &b2, 5);
	db = gpa(f, srq.base + srq.db_off);
	db->pi = htole32(5);		/* 5 WQEs in a ring of 4 */
	post_send(f, &sender, ORCA_WR_SEND, buf, 8, lk, 0, 0);
	CHECK_EQ(qp_state_of(f, b1.qpn), ORCA_QPS_ERR);
	CHECK_EQ(f->dev.srqs[srq.srqn].ci, 0);
	CHECK_EQ(count_events(f, ORCA_EQE_QP_EVENT, b1.qpn,
			      ORCA_QP_EV_LAST_WQE_REACHED), 1);
	while (poll_cqe(f, &cq, &c))
		CHECK(!(c.flags & ORCA_CQE_F_SRQ));
	CHECK_EQ(qp_state_of(f, b2.qpn), ORCA_QPS_RTS);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/*
 * Last WQE Reached: a QP on an SRQ that enters ERR gets the event after
 * the WQE it was filling completed (flushed); the SRQ keeps its other
 * WQEs for the other QP; a QP without an SRQ never gets it.
 */
static void srq_last_wqe(void)
{
	struct fx *f = dp_up();
	uint64_t buf = heap_alloc(PAGE);
	struct orca_pkt *p = calloc(1, sizeof(*p));
	struct ring_qp b1, b2, plain;
	struct ring_srq srq;
	struct ring_cq cq;
	struct orca_cqe c;
	uint32_t lk, n;

	CHECK_EQ(reg_mr(f, f->pdn, buf, PAGE, ORCA_ACCESS_LOCAL_WRITE, &lk), 0);
	CHECK(make_cq(f, &cq, 5));
	CHECK(make_srq(f, &srq, 3));
	connect_pairs(f, &cq, &srq, &b1, &b2, 1);
	post_srq(f, &srq, buf, PAGE, lk, 41);
	post_srq(f, &srq, buf, PAGE, lk, 42);

	/* the first packet of a message: b1 takes WQE 41 and fills it */
	p->opcode = IB_RC | IB_SEND_FIRST;
	p->psn = f->dev.qps[b1.qpn]->resp.epsn;
	p->paylen = 256;
	resp_rx(&f->dev, f->dev.qps[b1.qpn], p);
	CHECK(f->dev.qps[b1.qpn]->resp.have_rwqe);
	CHECK_EQ(f->dev.srqs[srq.srqn].ci, 1);
	CHECK(!poll_cqe(f, &cq, &c));

	/* b1 -> ERR: WQE 41 flushed, then the event; 42 stays in the SRQ */
	CHECK_EQ(modify_state(f, b1.qpn, ORCA_QPS_ERR), 0);
	CHECK(poll_cqe(f, &cq, &c));
	CHECK_EQ(c.status, ORCA_CQE_WR_FLUSH_ERR);
	CHECK_EQ(c.opcode, ORCA_CQE_OP_RECV);
	CHECK(c.flags & ORCA_CQE_F_SRQ);
	CHECK_EQ(le32toh(c.wqe_idx), 41);
	CHECK_EQ(le32toh(c.qpn), b1.qpn);
	CHECK(!poll_cqe(f, &cq, &c));
	CHECK_EQ(count_events(f, ORCA_EQE_QP_EVENT, b1.qpn,
			      ORCA_QP_EV_LAST_WQE_REACHED), 1);
	CHECK_EQ(f->dev.srqs[srq.srqn].ci, 1);
	/* once: ERR -> ERR and the device's flush scans add none */
	CHECK_EQ(modify_state(f, b1.qpn, ORCA_QPS_ERR), 0);
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_DB);
	CHECK_EQ(count_events(f, ORCA_EQE_QP_EVENT, b1.qpn,
			      ORCA_QP_EV_LAST_WQE_REACHED), 1);
	post_send(f, &sender2, ORCA_WR_SEND, buf, 8, lk, 0, 0);
	CHECK(next_recv(f, &cq, &c));
	CHECK(le32toh(c.qpn) == b2.qpn && le32toh(c.wqe_idx) == 42 &&
	      c.status == ORCA_CQE_SUCCESS);

	/* an idle QP: the event at once; one the device ends: too */
	CHECK_EQ(orca_dev_hook_qp_fatal(&f->dev, b2.qpn, NULL, 0), 0);
	CHECK_EQ(count_events(f, ORCA_EQE_QP_EVENT, b2.qpn,
			      ORCA_QP_EV_FATAL), 1);
	CHECK_EQ(count_events(f, ORCA_EQE_QP_EVENT, b2.qpn,
			      ORCA_QP_EV_LAST_WQE_REACHED), 1);
	CHECK(make_qp(f, &plain, cq.cqn));
	CHECK(connect_rc(f, &plain, sender.qpn, 0, 5));
	CHECK_EQ(modify_state(f, plain.qpn, ORCA_QPS_ERR), 0);
	n = count_events(f, ORCA_EQE_QP_EVENT, plain.qpn,
			 ORCA_QP_EV_LAST_WQE_REACHED);
	CHECK_EQ(n, 0);

	/* destroyed QPs release the SRQ */
	CHECK_EQ(destroy_qp(f, b1.qpn), 0);
	CHECK_EQ(destroy_qp(f, b2.qpn), 0);
	CHECK_EQ(destroy_srq(f, srq.srqn), 0);
	free(p);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/* UD QPs on an SRQ: the GRH room and the payload, wqe_id in the CQE. */
static void srq_ud(void)
{
	struct fx *f = dp_up();
	uint64_t buf = heap_alloc(PAGE);
	struct orca_create_ah_in ai = {};
	struct orca_ah_handle ah;
	struct orca_modify_qp_in mi;
	struct orca_qp_ctx ctx;
	struct ring_qp u1, u2;
	struct ring_srq srq;
	struct ring_cq cq;
	struct orca_cqe c;
	uint8_t *b = gpa(f, buf);
	uint32_t lk, i;
	struct orca_send_wqe *w;

	CHECK_EQ(reg_mr(f, f->pdn, buf, PAGE, ORCA_ACCESS_LOCAL_WRITE, &lk), 0);
	CHECK(make_cq(f, &cq, 4));
	CHECK(make_srq(f, &srq, 2));
	CHECK(make_qp_srq(f, &u1, cq.cqn, ORCA_QPT_UD, 0));
	CHECK(make_qp_srq(f, &u2, cq.cqn, ORCA_QPT_UD, srq.srqn));
	for (i = 0; i < 2; i++) {
		struct ring_qp *q = i ? &u2 : &u1;
		static const uint8_t st[] = { ORCA_QPS_INIT, ORCA_QPS_RTR,
					      ORCA_QPS_RTS };
		unsigned int k;

		for (k = 0; k < 3; k++) {
			memset(&mi, 0, sizeof(mi));
			mi.qpn = htole32(q->qpn);
			mi.attr_mask = htole32(ORCA_QP_STATE |
				(k == 0 ? ORCA_QP_PKEY_INDEX | ORCA_QP_PORT |
					  ORCA_QP_QKEY : 0) |
				(k == 2 ? ORCA_QP_SQ_PSN : 0));
			mi.ctx.state = st[k];
			mi.ctx.port = 1;
			mi.ctx.qkey = htole32(0x1234);
			CHECK_EQ(fx_cmd(f, ORCA_CMD_MODIFY_QP, &mi, sizeof(mi),
					&ctx, sizeof(ctx)), 0);
		}
	}
	ai.pdn = htole32(f->pdn);
	ai.av.port = 1;
	ai.av.dlid = htole16(f->cfg.lid);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_CREATE_AH, &ai, sizeof(ai), &ah,
			sizeof(ah)), 0);
	post_srq(f, &srq, buf, 256, lk, 77);
	memset(b + 512, 0x3c, 20);
	for (i = 0; i < 2; i++) {
		put_send(f, &u1, ORCA_WR_SEND, buf + 512, 20, lk, 0, 0);
		w = gpa(f, u1.base + ((uint64_t)((u1.sq_pi - 1) & 7) <<
				      SQ_LOG_STRIDE));
		w->ud_ah = ah.ahn;
		w->ud_remote_qpn = htole32(u2.qpn);
		w->ud_remote_qkey = htole32(0x1234);
	}
	/* the second finds no WQE left: dropped, the QP stays in RTS */
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_DB);
	CHECK(next_recv(f, &cq, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK_EQ(le32toh(c.qpn), u2.qpn);
	CHECK_EQ(le32toh(c.wqe_idx), 77);
	CHECK(c.flags & ORCA_CQE_F_SRQ);
	CHECK_EQ(le32toh(c.byte_len), 40 + 20);
	CHECK_EQ(le32toh(c.src_qp), u1.qpn);
	CHECK(b[40] == 0x3c && b[59] == 0x3c);
	CHECK(!next_recv(f, &cq, &c));
	CHECK_EQ(f->dev.stats.pkts_dropped, 1);
	CHECK_EQ(qp_state_of(f, u2.qpn), ORCA_QPS_RTS);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/* A UC QP straight to RTR (it only receives here). */
static uint32_t uc_access;	/* the access flags uc_rtr() gives */

static bool uc_rtr(struct fx *f, struct ring_qp *qp)
{
	static const uint32_t masks[] = {
		ORCA_QP_STATE | ORCA_QP_PKEY_INDEX | ORCA_QP_PORT |
			ORCA_QP_ACCESS_FLAGS,
		ORCA_QP_STATE | ORCA_QP_AV | ORCA_QP_PATH_MTU |
			ORCA_QP_DEST_QPN | ORCA_QP_RQ_PSN,
	};
	struct orca_modify_qp_in in;
	struct orca_qp_ctx out;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		memset(&in, 0, sizeof(in));
		in.qpn = htole32(qp->qpn);
		in.attr_mask = htole32(masks[i]);
		in.ctx.state = i ? ORCA_QPS_RTR : ORCA_QPS_INIT;
		in.ctx.port = 1;
		in.ctx.av.dlid = htole16(f->cfg.lid);
		in.ctx.path_mtu = 1;
		in.ctx.dest_qpn = htole32(qp->qpn);
		in.ctx.rq_psn = htole32(10);
		in.ctx.access_flags = htole32(uc_access);
		if (fx_cmd(f, ORCA_CMD_MODIFY_QP, &in, sizeof(in), &out,
			   sizeof(out)))
			return false;
	}
	return true;
}

/*
 * UC: a message abandoned after its first packet (packets lost) leaves
 * the SRQ WQE it took with the QP; the next message that needs a receive
 * WQE - a SEND, or a WRITE_WITH_IMM (which consumes one too) - fills it
 * and completes it under its wqe_id.  The SRQ gives out no second WQE.
 */
static void uc_resync_run(bool write_imm)
{
	struct fx *f = dp_up();
	uint64_t buf = heap_alloc(PAGE);
	struct orca_pkt *p = calloc(1, sizeof(*p));
	uint8_t *b = gpa(f, buf);
	struct ring_srq srq;
	struct ring_qp u;
	struct ring_cq cq;
	struct orca_cqe c;
	uint32_t lk;

	CHECK_EQ(reg_mr(f, f->pdn, buf, PAGE, ORCA_ACCESS_LOCAL_WRITE, &lk), 0);
	CHECK(make_cq(f, &cq, 4));
	CHECK(make_srq(f, &srq, 2));
	CHECK(make_qp_srq(f, &u, cq.cqn, ORCA_QPT_UC, srq.srqn));
	uc_access = write_imm ? ORCA_ACCESS_REMOTE_WRITE : 0;
	CHECK(uc_rtr(f, &u));
	post_srq(f, &srq, buf, PAGE, lk, 9);
	post_srq(f, &srq, buf, PAGE, lk, 10);
	p->opcode = IB_UC | IB_SEND_FIRST;
	p->psn = 10;
	p->paylen = 256;
	memset(p->payload, 'A', 256);
	resp_rx(&f->dev, f->dev.qps[u.qpn], p);
	/* PSN 11 is lost: a new message starts at 12 */
	p->psn = 12;
	if (write_imm) {	/* zero-length: no R_Key needed */
		p->opcode = IB_UC | IB_WRITE_ONLY_IMM;
		p->hdrs = PKT_RETH | PKT_IMM;
		p->paylen = 0;
	} else {
		p->opcode = IB_UC | IB_SEND_ONLY;
		p->paylen = 8;
		memset(p->payload, 'B', 8);
	}
	resp_rx(&f->dev, f->dev.qps[u.qpn], p);
	CHECK(poll_cqe(f, &cq, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK_EQ(le32toh(c.wqe_idx), 9);
	CHECK_EQ(c.opcode, write_imm ? ORCA_CQE_OP_RECV_RDMA_WITH_IMM :
				       ORCA_CQE_OP_RECV);
	if (!write_imm)
		CHECK(le32toh(c.byte_len) == 8 && b[0] == 'B' &&
		      b[7] == 'B' && b[8] == 'A');
	CHECK(!poll_cqe(f, &cq, &c));
	/* WQE 10 is still in the SRQ for the next message */
	CHECK_EQ(f->dev.srqs[srq.srqn].ci, 1);
	uc_access = 0;
	free(p);
	CHECK(canaries_ok(f));
	fx_free(f);
}

static void srq_uc_resync(void)
{
	uc_resync_run(false);
	uc_resync_run(true);
}

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();
	RUN(srq_commands);
	RUN(srq_two_qps);
	RUN(srq_limit);
	RUN(srq_bad_pi);
	RUN(srq_last_wqe);
	RUN(srq_ud);
	RUN(srq_uc_resync);
	return tap_done();
}
