// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the device model's data path: page lists and memory
 * regions, CQ and QP rings, and RC traffic through the loopback port,
 * with the test playing the driver and the provider (it writes WQEs and
 * doorbell records into fake guest RAM and reads CQEs back).
 */
#include <string.h>

#include "be.h"
#include "dp_fixture.h"
#include "orca_log.h"

static void mr_checks(void)
{
	struct fx *f = dp_up();
	struct orca_reg_mr_in in = {};
	struct orca_pd_handle pd = { .pdn = htole32(f->pdn) };
	struct orca_mr_handle h = {};
	uint64_t buf = heap_alloc(3 * PAGE);
	uint32_t k1, k2;
	__le64 *list;

	CHECK_EQ(reg_mr(f, f->pdn, buf + 100, 2 * PAGE,
			ORCA_ACCESS_LOCAL_WRITE, &k1), 0);
	CHECK(k1 >> 8);
	h.lkey = htole32(k1);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_DEREG_MR, &h, sizeof(h), NULL, 0), 0);
	CHECK_EQ(reg_mr(f, f->pdn, buf, PAGE, ORCA_ACCESS_LOCAL_WRITE, &k2), 0);
	CHECK((k1 & 0xff) != (k2 & 0xff));
	/* the first key is dead even if the index came back */
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_DEREG_MR, &h, sizeof(h), NULL, 0),
		    ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_DEALLOC_PD, &pd, sizeof(pd), NULL, 0),
		    ORCA_STATUS_BAD_RES_STATE, ORCA_SYND_IN_USE);

	EXPECT_FAIL(f, reg_mr(f, f->pdn + 7, buf, PAGE, 0, NULL),
		    ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE);
	EXPECT_FAIL(f, reg_mr(f, f->pdn, buf, PAGE, 1U << 9, NULL),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS);
	EXPECT_FAIL(f, reg_mr(f, f->pdn, buf, PAGE, ORCA_ACCESS_REMOTE_WRITE,
			      NULL), ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS);

	/* pages the list names must be aligned guest RAM */
	in.iova = htole64(iova(buf));
	in.length = htole64(2 * PAGE);
	in.pdn = htole32(f->pdn);
	in.pbl = pbl_for(f, buf, 2);
	list = gpa(f, le64toh(in.pbl.addr));
	list[1] = htole64(RAM_SIZE);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_REG_MR, &in, sizeof(in), NULL, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_PAGE_LIST);
	list[1] = htole64(buf + 8);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_REG_MR, &in, sizeof(in), NULL, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_PAGE_LIST);
	/* a list shorter than the region */
	in.pbl.npages = htole32(1);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_REG_MR, &in, sizeof(in), NULL, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_PAGE_LIST);
	/* a list outside RAM */
	in.pbl.npages = htole32(2);
	in.pbl.addr = htole64(RAM_SIZE - 8);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_REG_MR, &in, sizeof(in), NULL, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_PAGE_LIST);
	CHECK_EQ(f->dev.n_mrs, 1);

	/* REREG_MR: a new description under the same key, PD refs move */
	{
		struct orca_rereg_mr_in ri = {};
		struct orca_pd_handle pd2;

		CHECK_EQ(fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, &pd2,
				sizeof(pd2)), 0);
		ri.lkey = htole32(k2);
		ri.mr.iova = htole64(iova(buf));
		ri.mr.length = htole64(2 * PAGE);
		ri.mr.pdn = pd2.pdn;
		ri.mr.access = htole32(ORCA_ACCESS_LOCAL_WRITE |
				       ORCA_ACCESS_REMOTE_READ);
		ri.mr.pbl = pbl_for(f, buf, 2);
		CHECK_EQ(fx_cmd(f, ORCA_CMD_REREG_MR, &ri, sizeof(ri), NULL, 0),
			 0);
		CHECK(mr_check(&f->dev, k2, le32toh(pd2.pdn), MR_REMOTE_READ,
			       iova(buf) + PAGE, PAGE));
		CHECK(!mr_check(&f->dev, k2, f->pdn, 0, iova(buf), 8));
		CHECK_EQ(f->dev.pds[f->pdn].mr_refs, 0);
		CHECK_EQ(fx_cmd(f, ORCA_CMD_DEALLOC_PD, &pd, sizeof(pd), NULL,
				0), 0);
		ri.lkey = htole32(k1);	/* the dead key */
		EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_REREG_MR, &ri, sizeof(ri),
				      NULL, 0), ORCA_STATUS_BAD_RESOURCE,
			    ORCA_SYND_HANDLE);
	}
	CHECK(canaries_ok(f));
	fx_free(f);
}

static void ring_checks(void)
{
	struct fx *f = dp_up();
	struct orca_create_cq_in ci = {};
	struct orca_create_cq_out co;
	struct orca_create_qp_in qi = {};
	struct orca_qp_ctx ctx;
	struct ring_cq cq;
	uint64_t buf = heap_alloc(4 * PAGE);

	/* a ring must hold cqe + 1 entries and the record after them */
	ci.cqe = htole32(64);
	ci.log_depth = 6;
	ci.dbrec_off = htole32(64 * 64);
	ci.ring = pbl_for(f, buf, 2);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_CREATE_CQ, &ci, sizeof(ci), &co,
			      sizeof(co)), ORCA_STATUS_BAD_PARAM, ORCA_SYND_RING);
	ci.log_depth = 7;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_CREATE_CQ, &ci, sizeof(ci), &co,
			      sizeof(co)), ORCA_STATUS_BAD_PARAM, ORCA_SYND_RING);
	ci.dbrec_off = htole32(128 * 64);
	ci.ring.npages = htole32(2);	/* 8 KiB: no room for the record */
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_CREATE_CQ, &ci, sizeof(ci), &co,
			      sizeof(co)), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_PAGE_LIST);

	CHECK(make_cq(f, &cq, 4));
	qi.qp_type = ORCA_QPT_RC;
	qi.pdn = htole32(f->pdn);
	qi.send_cqn = qi.recv_cqn = htole32(cq.cqn);
	qi.max_send_wr = htole32(8);
	qi.max_send_sge = htole32(4);
	qi.sq_log_depth = 2;		/* too shallow */
	qi.sq_log_stride = 7;
	qi.dbrec_off = htole32(4096);
	qi.ring = pbl_for(f, buf, 2);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_CREATE_QP, &qi, sizeof(qi), &ctx,
			      sizeof(ctx)), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_RING);
	qi.sq_log_depth = 3;
	qi.sq_log_stride = 6;		/* 4 SGEs do not fit in 64 B */
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_CREATE_QP, &qi, sizeof(qi), &ctx,
			      sizeof(ctx)), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_RING);
	qi.sq_log_stride = 7;
	qi.dbrec_off = htole32(512);	/* inside the SQ */
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_CREATE_QP, &qi, sizeof(qi), &ctx,
			      sizeof(ctx)), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_RING);
	qi.dbrec_off = htole32(1024);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_CREATE_QP, &qi, sizeof(qi), &ctx,
			sizeof(ctx)), 0);
	CHECK_EQ(f->dev.n_qps, 1);
	fx_free(f);
}

/* Two RC QPs, a SEND over many packets, a WRITE, a READ. */
static void rc_traffic(void)
{
	struct fx *f = dp_up();
	uint64_t src = heap_alloc(16 * PAGE), dst = heap_alloc(16 * PAGE);
	uint32_t slk, dlk, i, n = 10000;
	struct ring_qp a, b;
	struct ring_cq cq;
	struct orca_cqe c, c2;
	struct orca_query_counters_out cnt;
	uint8_t *s = gpa(f, src), *d = gpa(f, dst);

	CHECK_EQ(reg_mr(f, f->pdn, src, 16 * PAGE, ORCA_ACCESS_LOCAL_WRITE,
			&slk), 0);
	CHECK_EQ(reg_mr(f, f->pdn, dst, 16 * PAGE, ORCA_ACCESS_LOCAL_WRITE |
			ORCA_ACCESS_REMOTE_WRITE | ORCA_ACCESS_REMOTE_READ,
			&dlk), 0);
	CHECK(make_cq(f, &cq, 5));
	CHECK(make_qp(f, &a, cq.cqn));
	CHECK(make_qp(f, &b, cq.cqn));
	CHECK(connect_rc(f, &a, b.qpn, 0, 1));	/* 256-byte MTU */
	CHECK(connect_rc(f, &b, a.qpn, ORCA_ACCESS_REMOTE_WRITE |
			 ORCA_ACCESS_REMOTE_READ, 1));
	for (i = 0; i < n; i++)
		s[i] = (uint8_t)(i * 13 + 1);

	post_recv(f, &b, dst, 16 * PAGE, dlk);
	post_send(f, &a, ORCA_WR_SEND, src, n, slk, 0, 0);
	CHECK(poll_cqe(f, &cq, &c) && poll_cqe(f, &cq, &c2));
	if (c.flags & ORCA_CQE_F_SQ) {
		struct orca_cqe t = c;

		c = c2;
		c2 = t;
	}
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK_EQ(c.opcode, ORCA_CQE_OP_RECV);
	CHECK_EQ(le32toh(c.byte_len), n);
	CHECK_EQ(le32toh(c.qpn), b.qpn);
	CHECK_EQ(c2.status, ORCA_CQE_SUCCESS);
	CHECK_EQ(le32toh(c2.wqe_idx), 0);
	CHECK(!memcmp(s, d, n));
	/*
	 * 40 packets of 256 B across the PSN wrap, and two ACKs: the one the
	 * 32nd (ORCA_ACK_EVERY) asked for, to move the window, and the last's
	 */
	CHECK_EQ(ORCA_ACK_EVERY, 32);
	CHECK_EQ(f->dev.stats.pkts, 42);
	CHECK_EQ(f->dev.stats.pkt_bytes, n);
	/* and so says QUERY_COUNTERS */
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_COUNTERS, NULL, 0, &cnt,
			sizeof(cnt)), 0);
	CHECK_EQ(f->out_len, sizeof(cnt));
	CHECK_EQ(le64toh(cnt.tx_packets), 42);
	CHECK_EQ(le64toh(cnt.tx_bytes), n);
	CHECK_EQ(le64toh(cnt.rx_packets), 42);
	CHECK_EQ(le64toh(cnt.rx_bytes), n);
	CHECK_EQ(le64toh(cnt.dropped_packets), 0);
	CHECK_EQ(le64toh(cnt.send_wqes), 1);
	CHECK_EQ(le64toh(cnt.doorbells), 1);	/* post_recv rings none */
	CHECK_EQ(le64toh(cnt.cqes), 2);
	CHECK_EQ(le64toh(cnt.cqe_errors), 0);
	CHECK_EQ(le64toh(cnt.retransmits), 0);
	CHECK_EQ(le64toh(cnt.cmds), f->dev.stats.cmds);
	CHECK_EQ(le64toh(cnt.cmd_errors), 0);

	memset(d, 0, n);
	post_send(f, &a, ORCA_WR_RDMA_WRITE, src, 3000, slk, iova(dst) + 5,
		  dlk);
	CHECK(poll_cqe(f, &cq, &c) && !c.status &&
	      c.opcode == ORCA_CQE_OP_RDMA_WRITE);
	CHECK(!d[4] && !memcmp(s, d + 5, 3000) && !d[3005]);

	memset(s, 0, n);
	post_send(f, &a, ORCA_WR_RDMA_READ, src, 3000, slk, iova(dst) + 5,
		  dlk);
	CHECK(poll_cqe(f, &cq, &c) && !c.status &&
	      c.opcode == ORCA_CQE_OP_RDMA_READ && le32toh(c.byte_len) == 3000);
	CHECK(!memcmp(s, d + 5, 3000));

	/* past the region's end: refused, and not a byte beyond it written */
	d[16 * PAGE] = 0x5a;
	post_send(f, &a, ORCA_WR_RDMA_WRITE, src, 600, slk,
		  iova(dst) + 16 * PAGE - 300, dlk);
	CHECK(poll_cqe(f, &cq, &c));
	CHECK_EQ(c.status, ORCA_CQE_REM_ACCESS_ERR);
	CHECK_EQ(d[16 * PAGE], 0x5a);
	CHECK_EQ(qp_state_of(f, a.qpn), ORCA_QPS_ERR);
	CHECK_EQ(qp_state_of(f, b.qpn), ORCA_QPS_ERR);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/* A CQ nobody reads: overrun, CQ_ERROR once, the QP ends. */
static void cq_overrun(void)
{
	struct fx *f = dp_up();
	uint64_t buf = heap_alloc(PAGE);
	struct ring_qp a, b;
	struct ring_cq cq;
	uint32_t lk, i, cq_err = 0;
	struct orca_eqe e;

	CHECK_EQ(reg_mr(f, f->pdn, buf, PAGE, ORCA_ACCESS_LOCAL_WRITE |
			ORCA_ACCESS_REMOTE_WRITE, &lk), 0);
	CHECK(make_cq(f, &cq, 1));	/* 2 entries */
	CHECK(make_qp(f, &a, cq.cqn));
	CHECK(make_qp(f, &b, cq.cqn));
	CHECK(connect_rc(f, &a, b.qpn, 0, 5));
	CHECK(connect_rc(f, &b, a.qpn, ORCA_ACCESS_REMOTE_WRITE, 5));
	for (i = 0; i < 3; i++)
		post_send(f, &a, ORCA_WR_RDMA_WRITE, buf, 8, lk,
			  iova(buf) + 64, lk);
	CHECK_EQ(f->dev.stats.cq_overruns, 1);
	CHECK_EQ(qp_state_of(f, a.qpn), ORCA_QPS_ERR);
	while (fx_pop(f, &e))
		cq_err += e.type == ORCA_EQE_CQ_ERROR &&
			  le32toh(e.cq.cqn) == cq.cqn;
	for (i = 0; i < f->n_async; i++)
		cq_err += f->async[i].type == ORCA_EQE_CQ_ERROR;
	CHECK_EQ(cq_err, 1);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/* A producer index the ring cannot hold: the QP ends, nothing is read. */
static void bad_sq_pi(void)
{
	struct fx *f = dp_up();
	struct ring_qp a, b;
	struct ring_cq cq;
	__le32 *db;

	CHECK(make_cq(f, &cq, 4));
	CHECK(make_qp(f, &a, cq.cqn));
	CHECK(make_qp(f, &b, cq.cqn));
	CHECK(connect_rc(f, &a, b.qpn, 0, 5));
	db = gpa(f, a.base + a.db_off);
	*db = htole32(1000);
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_DB);
	CHECK_EQ(qp_state_of(f, a.qpn), ORCA_QPS_ERR);
	CHECK_EQ(f->dev.stats.wqes, 0);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/* Arming in the CQ's doorbell record, events on the completion EQ. */
#define CEQ_BASE	0x2c0000ULL

/*
 * A device with a completion EQ of 16 at CEQ_BASE, an MR over the page
 * @buf (@lk), and RC QPs @a and @b connected, both on @cq; its arm word.
 */
static __le32 *ceq_pair(struct fx **fp, struct ring_cq *cq, struct ring_qp *a,
			struct ring_qp *b, uint64_t *buf, uint32_t *lk)
{
	struct fx *f;

	heap_next = HEAP_BASE;
	f = *fp = fx_new_cfg(NULL);
	f->regs->ceq_base = htole64(CEQ_BASE);
	f->regs->ceq_log_depth = htole32(4);
	fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
	*buf = heap_alloc(PAGE);
	CHECK_EQ(reg_mr(f, f->pdn, *buf, PAGE, ORCA_ACCESS_LOCAL_WRITE, lk), 0);
	CHECK(make_cq(f, cq, 4));
	CHECK(make_qp(f, a, cq->cqn));
	CHECK(make_qp(f, b, cq->cqn));
	CHECK(connect_rc(f, a, b->qpn, 0, 5));
	CHECK(connect_rc(f, b, a->qpn, 0, 5));
	return gpa(f, cq->base + (64ULL << cq->log_depth) + 4);
}

static void cq_events(void)
{
	struct fx *f;
	uint64_t buf;
	struct ring_qp a, b;
	struct ring_cq cq;
	struct orca_cqe c;
	struct orca_eqe *e;
	__le32 *arm;
	uint32_t lk, i;

	arm = ceq_pair(&f, &cq, &a, &b, &buf, &lk);

	/* not armed: no event */
	post_recv(f, &b, buf, 64, lk);
	post_send(f, &a, ORCA_WR_SEND, buf + 64, 8, lk, 0, 0);
	CHECK(poll_cqe(f, &cq, &c) && poll_cqe(f, &cq, &c));
	CHECK_EQ(le32toh(f->regs->ceq_pi), 0);

	/* armed (sn 0): one event for the next CQE, then no more */
	*arm = htole32(ORCA_CQ_ARM_NEXT);
	post_recv(f, &b, buf, 64, lk);
	post_send(f, &a, ORCA_WR_SEND, buf + 64, 8, lk, 0, 0);
	CHECK_EQ(le32toh(f->regs->ceq_pi), 1);
	e = gpa(f, CEQ_BASE);
	CHECK_EQ(e->type, ORCA_EQE_COMP);
	CHECK_EQ(le32toh(e->comp.cqn), cq.cqn);
	for (i = 0; i < 2; i++)
		CHECK(poll_cqe(f, &cq, &c));
	post_recv(f, &b, buf, 64, lk);
	post_send(f, &a, ORCA_WR_SEND, buf + 64, 8, lk, 0, 0);
	CHECK_EQ(le32toh(f->regs->ceq_pi), 1);
	for (i = 0; i < 2; i++)
		CHECK(poll_cqe(f, &cq, &c));

	/* solicited only (sn 1): not for an unsolicited message ... */
	*arm = htole32(ORCA_CQ_ARM_NEXT | ORCA_CQ_ARM_SOLICITED |
		       1U << ORCA_CQ_ARM_SN_SHIFT);
	post_recv(f, &b, buf, 64, lk);
	post_send(f, &a, ORCA_WR_SEND, buf + 64, 8, lk, 0, 0);
	CHECK_EQ(le32toh(f->regs->ceq_pi), 1);
	for (i = 0; i < 2; i++)
		CHECK(poll_cqe(f, &cq, &c));
	/* ... but for one whose last packet has SE */
	wqe_extra_flags = ORCA_WQE_F_SOLICITED;
	post_recv(f, &b, buf, 64, lk);
	post_send(f, &a, ORCA_WR_SEND, buf + 64, 8, lk, 0, 0);
	wqe_extra_flags = 0;
	CHECK_EQ(le32toh(f->regs->ceq_pi), 2);
	CHECK_EQ(f->dev.stats.comp_events, 2);
	CHECK_EQ(f->comp_irqs, 2);

	/*
	 * The driver takes nothing (ceq_ci stays 0): events up to the ring's
	 * 16 entries, then one dropped, counted, and interrupting all the
	 * same (the driver answers a drop; it must learn of it).
	 */
	for (i = 2; i < 17; i++) {
		*arm = htole32(ORCA_CQ_ARM_NEXT | i << ORCA_CQ_ARM_SN_SHIFT);
		post_recv(f, &b, buf, 64, lk);
		post_send(f, &a, ORCA_WR_SEND, buf + 64, 8, lk, 0, 0);
		CHECK(poll_cqe(f, &cq, &c) && poll_cqe(f, &cq, &c));
	}
	CHECK_EQ(le32toh(f->regs->ceq_pi), 16);
	CHECK_EQ(le32toh(f->regs->ceq_overflows), 1);
	CHECK_EQ(f->dev.stats.comp_events, 16);
	CHECK_EQ(f->dev.stats.comp_events_lost, 1);
	CHECK_EQ(f->comp_irqs, 17);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/*
 * An arm stored after the CQEs came, and not seen by the device when it
 * wrote them (a host that reorders the consumer's store after its load,
 * orca_hw_io.h): the heartbeat gives the event, once per arm, only while
 * CQEs are unread, and for a solicited-only arm only if one of those is
 * solicited.
 */
static void cq_arm_late(void)
{
	struct fx *f;
	uint64_t buf;
	struct ring_qp a, b;
	struct ring_cq cq;
	struct orca_cqe c;
	__le32 *arm;
	uint32_t lk;

	arm = ceq_pair(&f, &cq, &a, &b, &buf, &lk);

	/* two CQEs unread, then the arm: the next heartbeat fires */
	post_recv(f, &b, buf, 64, lk);
	post_send(f, &a, ORCA_WR_SEND, buf + 64, 8, lk, 0, 0);
	CHECK_EQ(le32toh(f->regs->ceq_pi), 0);
	*arm = htole32(ORCA_CQ_ARM_NEXT);
	orca_dev_tick(&f->dev);
	CHECK_EQ(le32toh(f->regs->ceq_pi), 1);
	CHECK_EQ(f->dev.stats.comp_events, 1);
	CHECK_EQ(f->dev.stats.comp_events_late, 1);
	/* once per arm: the same arm, still unread, no second event */
	orca_dev_tick(&f->dev);
	CHECK_EQ(le32toh(f->regs->ceq_pi), 1);

	/* all read, then armed (sn 1): nothing to tell of */
	CHECK(poll_cqe(f, &cq, &c) && poll_cqe(f, &cq, &c));
	*arm = htole32(ORCA_CQ_ARM_NEXT | 1U << ORCA_CQ_ARM_SN_SHIFT);
	orca_dev_tick(&f->dev);
	CHECK_EQ(le32toh(f->regs->ceq_pi), 1);

	/* solicited only (sn 2) over unsolicited CQEs: none ... */
	*arm = htole32(0);
	post_recv(f, &b, buf, 64, lk);
	post_send(f, &a, ORCA_WR_SEND, buf + 64, 8, lk, 0, 0);
	*arm = htole32(ORCA_CQ_ARM_NEXT | ORCA_CQ_ARM_SOLICITED |
		       2U << ORCA_CQ_ARM_SN_SHIFT);
	orca_dev_tick(&f->dev);
	CHECK_EQ(le32toh(f->regs->ceq_pi), 1);
	CHECK(poll_cqe(f, &cq, &c) && poll_cqe(f, &cq, &c));
	/* ... one over a solicited CQE unread */
	*arm = htole32(0);
	wqe_extra_flags = ORCA_WQE_F_SOLICITED;
	post_recv(f, &b, buf, 64, lk);
	post_send(f, &a, ORCA_WR_SEND, buf + 64, 8, lk, 0, 0);
	wqe_extra_flags = 0;
	*arm = htole32(ORCA_CQ_ARM_NEXT | ORCA_CQ_ARM_SOLICITED |
		       2U << ORCA_CQ_ARM_SN_SHIFT);
	orca_dev_tick(&f->dev);
	CHECK_EQ(le32toh(f->regs->ceq_pi), 2);
	CHECK_EQ(f->dev.stats.comp_events, 2);
	CHECK_EQ(f->dev.stats.comp_events_late, 2);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/* RESIZE_CQ: unread CQEs move to the new ring's start, or it is refused. */
static void cq_resize(void)
{
	struct fx *f = dp_up();
	struct orca_resize_cq_in ri = {};
	struct orca_create_cq_out out;
	uint64_t buf = heap_alloc(PAGE), nbase;
	struct ring_qp a, b;
	struct ring_cq cq;
	struct orca_cqe c;
	uint32_t lk, i;

	CHECK_EQ(reg_mr(f, f->pdn, buf, PAGE, ORCA_ACCESS_LOCAL_WRITE |
			ORCA_ACCESS_REMOTE_WRITE, &lk), 0);
	CHECK(make_cq(f, &cq, 4));
	CHECK(make_qp(f, &a, cq.cqn));
	CHECK(make_qp(f, &b, cq.cqn));
	CHECK(connect_rc(f, &a, b.qpn, 0, 5));
	CHECK(connect_rc(f, &b, a.qpn, ORCA_ACCESS_REMOTE_WRITE, 5));
	for (i = 0; i < 3; i++)
		post_send(f, &a, ORCA_WR_RDMA_WRITE, buf, 8, lk,
			  iova(buf) + 64, lk);
	CHECK(poll_cqe(f, &cq, &c));	/* one read, two unread */

	/* a ring of 2 (1 usable) cannot take 2 unread CQEs */
	nbase = heap_alloc(PAGE);
	memset(gpa(f, nbase), 0, PAGE);
	ri.cqn = htole32(cq.cqn);
	ri.cq.cqe = htole32(1);
	ri.cq.log_depth = 1;
	ri.cq.dbrec_off = htole32(128);
	ri.cq.ring = pbl_for(f, nbase, 1);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_RESIZE_CQ, &ri, sizeof(ri), &out,
			      sizeof(out)), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_RING);
	/* 8 entries: both arrive at indices 0 and 1, in order */
	ri.cq.cqe = htole32(7);
	ri.cq.log_depth = 3;
	ri.cq.dbrec_off = htole32(8 * 64);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESIZE_CQ, &ri, sizeof(ri), &out,
			sizeof(out)), 0);
	CHECK_EQ(le32toh(out.cqe), 7);
	cq.base = nbase;
	cq.ci = 0;
	cq.log_depth = 3;
	CHECK(poll_cqe(f, &cq, &c) && le32toh(c.wqe_idx) == 1);
	CHECK(poll_cqe(f, &cq, &c) && le32toh(c.wqe_idx) == 2);
	CHECK(!poll_cqe(f, &cq, &c));
	/* and new completions follow there */
	post_send(f, &a, ORCA_WR_RDMA_WRITE, buf, 8, lk, iova(buf) + 64, lk);
	CHECK(poll_cqe(f, &cq, &c) && le32toh(c.wqe_idx) == 3);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/*
 * The clock of a 156.25 MHz counter of 48 bits (tests/vm/caps.conf's):
 * a tick is 6.4 ns, 32 ns are 5 ticks.  Worked out here, not by the
 * device's arithmetic.
 */
static uint64_t ticks_156mhz(uint64_t ns)
{
	return (ns / 32 * 5 + ns % 32 * 5 / 32) & ((1ULL << 48) - 1);
}

/*
 * CQE timestamps and QUERY_CLOCK: both clocks read as the CQE is
 * written, only on a CQ that asked, kept across RESIZE_CQ; nothing of
 * it without a clock.
 */
static void cq_timestamps(void)
{
	static const char *const clock156[] = {
		"hca_core_clock=156250",
		"completion_timestamp_mask=0xffffffffffff", NULL };
	static const char *const noclock[] = { "hca_core_clock=0", NULL };
	struct fx *f = dp_up_cfg(clock156);
	uint64_t buf = heap_alloc(PAGE), nbase, t0, real0;
	struct orca_resize_cq_in ri = {};
	struct orca_query_clock_out clk, clk2;
	struct orca_create_cq_out out;
	struct ring_cq cq, plain;
	struct ring_qp a, b;
	struct orca_cqe c;
	uint32_t lk;

	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CLOCK, NULL, 0, &clk, sizeof(clk)),
		 0);
	CHECK_EQ(le64toh(clk.free_running), ticks_156mhz(fx_now_ns));
	fx_clock_advance(1000);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CLOCK, NULL, 0, &clk2, sizeof(clk2)),
		 0);
	CHECK_EQ(le64toh(clk2.free_running), ticks_156mhz(fx_now_ns));
	/* the real-time clock runs with the device clock */
	CHECK_EQ(le64toh(clk2.real_time) - le64toh(clk.real_time), 1000);
	/* and is the time of day: after 2020, before 2200 */
	CHECK(le64toh(clk2.real_time) > 1577836800ULL * 1000000000ULL &&
	      le64toh(clk2.real_time) < 7258118400ULL * 1000000000ULL);

	CHECK_EQ(reg_mr(f, f->pdn, buf, PAGE, ORCA_ACCESS_LOCAL_WRITE |
			ORCA_ACCESS_REMOTE_WRITE, &lk), 0);
	CHECK(make_cq_flags(f, &cq, 4, ORCA_CQ_CREATE_TIMESTAMP));
	CHECK(make_cq(f, &plain, 4));
	CHECK(make_qp(f, &a, cq.cqn));
	CHECK(make_qp(f, &b, plain.cqn));
	CHECK(connect_rc(f, &a, b.qpn, 0, 5));
	CHECK(connect_rc(f, &b, a.qpn, ORCA_ACCESS_REMOTE_WRITE, 5));

	t0 = fx_now_ns;
	real0 = le64toh(clk2.real_time);
	post_send(f, &a, ORCA_WR_RDMA_WRITE, buf, 8, lk, iova(buf) + 64, lk);
	CHECK(poll_cqe(f, &cq, &c) && !c.status);
	CHECK_EQ(le64toh(c.timestamp), ticks_156mhz(t0));
	CHECK_EQ(le64toh(c.real_time), real0);
	fx_clock_advance(3200);
	post_send(f, &a, ORCA_WR_RDMA_WRITE, buf, 8, lk, iova(buf) + 64, lk);
	CHECK(poll_cqe(f, &cq, &c));
	CHECK_EQ(le64toh(c.timestamp), ticks_156mhz(t0) + 500);
	CHECK_EQ(le64toh(c.real_time), real0 + 3200);

	/* a receive on the CQ that did not ask: no clock in it */
	post_recv(f, &a, buf, 64, lk);
	post_send(f, &b, ORCA_WR_SEND, buf, 8, lk, 0, 0);
	CHECK(poll_cqe(f, &plain, &c) && !c.status);
	CHECK(!c.timestamp && !c.real_time);
	CHECK(poll_cqe(f, &cq, &c) && c.opcode == ORCA_CQE_OP_RECV);
	CHECK_EQ(le64toh(c.timestamp), ticks_156mhz(fx_now_ns));

	/* past 2^48 ticks the counter wraps: the low 48 bits */
	fx_clock_advance((1ULL << 48) / 5 * 32);
	post_send(f, &a, ORCA_WR_RDMA_WRITE, buf, 8, lk, iova(buf) + 64, lk);
	CHECK(poll_cqe(f, &cq, &c));
	CHECK_EQ(le64toh(c.timestamp), ticks_156mhz(fx_now_ns));
	CHECK(le64toh(c.timestamp) < ticks_156mhz(t0) + 1000);

	/* RESIZE keeps the CQ's flags and takes none */
	nbase = heap_alloc(PAGE);
	memset(gpa(f, nbase), 0, PAGE);
	ri.cqn = htole32(cq.cqn);
	ri.cq.cqe = htole32(7);
	ri.cq.log_depth = 3;
	ri.cq.dbrec_off = htole32(8 * 64);
	ri.cq.ring = pbl_for(f, nbase, 1);
	ri.cq.flags = ORCA_CQ_CREATE_TIMESTAMP;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_RESIZE_CQ, &ri, sizeof(ri), &out,
			      sizeof(out)), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_FLAGS);
	ri.cq.flags = 0;
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESIZE_CQ, &ri, sizeof(ri), &out,
			sizeof(out)), 0);
	cq.base = nbase;
	cq.ci = 0;
	cq.log_depth = 3;
	fx_clock_advance(64);
	post_send(f, &a, ORCA_WR_RDMA_WRITE, buf, 8, lk, iova(buf) + 64, lk);
	CHECK(poll_cqe(f, &cq, &c));
	CHECK_EQ(le64toh(c.timestamp), ticks_156mhz(fx_now_ns));
	/* a flag the device does not know */
	EXPECT_FAIL(f, make_cq_flags(f, &plain, 4, 0x80) ? 0 : f->status,
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS);
	CHECK(canaries_ok(f));
	fx_free(f);

	/* no clock: neither stamped CQs nor QUERY_CLOCK */
	f = dp_up_cfg(noclock);
	EXPECT_FAIL(f, make_cq_flags(f, &cq, 4, ORCA_CQ_CREATE_TIMESTAMP) ?
		    0 : f->status, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_FLAGS);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_QUERY_CLOCK, NULL, 0, &clk,
			      sizeof(clk)), ORCA_STATUS_UNSUPPORTED,
		    ORCA_SYND_NONE);
	CHECK(make_cq(f, &cq, 4));
	fx_free(f);
}

#define PORT_MIRROR_BASE	0x2ff000ULL	/* below the heap */

static struct orca_port_mirror *port_mirror(struct fx *f)
{
	return gpa(f, PORT_MIRROR_BASE);
}

static struct fx *port_up(const char *const *sets)
{
	struct fx *f = fx_new_cfg(sets);

	heap_next = HEAP_BASE;
	f->port_mirror_base = PORT_MIRROR_BASE;
	fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
	return f;
}

/* The mirror says what QUERY_PORT says. */
static bool mirror_is_query_port(struct fx *f)
{
	struct orca_query_port_in in = { .port = 1 };
	struct orca_port_mirror *m = port_mirror(f);
	struct orca_port_attr p;

	if (fx_cmd(f, ORCA_CMD_QUERY_PORT, &in, sizeof(in), &p, sizeof(p)))
		return false;
	return !(le32toh(m->seq) & 1) && m->port == 1 &&
	       !memcmp(&m->attr, &p, sizeof(p));
}

/*
 * The port mirror: written at INIT, rewritten before a port event, on a
 * table size change and on a violation counter change; not after RESET.
 */
static void port_mirror_updates(void)
{
	static const char *const sets[] = { "pkey_table=0x8001,0x7fff",
					    "pkey_tbl_len=2", NULL };
	struct fx *f = port_up(sets);
	struct orca_port_mirror *m = port_mirror(f);
	struct orca_init_in init = {};
	struct ring_qp a, b;
	uint32_t seq, lk;
	uint64_t buf;

	seq = le32toh(m->seq);
	CHECK(seq && !(seq & 1));
	CHECK_EQ(m->attr.state, ORCA_PORT_ACTIVE);
	CHECK(mirror_is_query_port(f));
	CHECK_EQ(f->dev.stats.per_opcode[ORCA_CMD_QUERY_PORT], 1);

	/* port down: the mirror has it when the event is read */
	CHECK_EQ(orca_dev_hook_port(&f->dev, false, NULL, 0), 0);
	CHECK_EQ(le32toh(m->seq), seq + 2);
	CHECK_EQ(m->attr.state, ORCA_PORT_DOWN);
	CHECK_EQ(m->attr.phys_state, 2);
	CHECK(mirror_is_query_port(f));
	CHECK_EQ(orca_dev_hook_port(&f->dev, true, NULL, 0), 0);
	CHECK_EQ(m->attr.state, ORCA_PORT_ACTIVE);
	CHECK_EQ(le32toh(m->seq), seq + 4);
	CHECK(mirror_is_query_port(f));
	CHECK(f->n_async == 2 && f->async[0].type == ORCA_EQE_PORT_EVENT &&
	      f->async[1].port.event == ORCA_PORT_EV_ACTIVE);

	/* a table size the device reports differently */
	CHECK_EQ(orca_dev_hook_caps_override(&f->dev, "gid_tbl_len", 3,
					     NULL, 0), 0);
	CHECK_EQ(le16toh(m->attr.gid_tbl_len), 3);
	CHECK(mirror_is_query_port(f));

	/* a packet in another partition: P_Key violation, counted */
	buf = heap_alloc(PAGE);
	CHECK_EQ(reg_mr(f, f->pdn, buf, PAGE, ORCA_ACCESS_LOCAL_WRITE, &lk), 0);
	CHECK(make_qp(f, &a, f->cqn) && make_qp(f, &b, f->cqn));
	connect_pkey_index = 0;		/* 0x8001 */
	CHECK(connect_rc(f, &a, b.qpn, 0, 1));
	connect_pkey_index = 1;		/* 0x7fff */
	CHECK(connect_rc(f, &b, a.qpn, 0, 1));
	connect_pkey_index = 0;
	seq = le32toh(m->seq);
	post_send(f, &a, ORCA_WR_SEND, buf, 8, lk, 0, 0);
	CHECK_EQ(le32toh(m->attr.bad_pkey_cntr), 1);
	CHECK_EQ(le32toh(m->seq), seq + 2);
	CHECK_EQ(f->dev.stats.rx_pkts, 1);
	CHECK(mirror_is_query_port(f));

	/* after RESET the device no longer writes it; INIT again does */
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	seq = le32toh(m->seq);
	CHECK_EQ(orca_dev_hook_port(&f->dev, false, NULL, 0), 0);
	CHECK_EQ(le32toh(m->seq), seq);
	CHECK_EQ(m->attr.state, ORCA_PORT_ACTIVE);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0), 0);
	CHECK_EQ(le32toh(m->seq), seq + 2);
	CHECK_EQ(m->attr.state, ORCA_PORT_DOWN);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/* A port mirror outside host memory or misaligned: INIT refuses it. */
static void port_mirror_bad_address(void)
{
	static const uint64_t bad[] = { PORT_MIRROR_BASE + 8,
					RAM_SIZE - 32, RAM_SIZE + 4096 };

	fx_init_refuses(offsetof(struct orca_regs, port_mirror_base), bad,
			ARRAY_SIZE(bad));
}

/*
 * Violation counters: only with the capability, stopping at 0xffff;
 * QUERY_COUNTERS starts again from 0 at a function reset.
 */
static void port_counters(void)
{
	static const char *const sets[] = { "pkey_table=0x8001,0x7fff",
					    "pkey_tbl_len=2",
					    "dev_caps=0x0ce7", NULL };
	struct orca_query_counters_out cnt;
	struct fx *f = port_up(sets);
	struct orca_port_mirror *m = port_mirror(f);
	struct orca_pkt pk = { .slid = 2, .dlid = 3 };
	unsigned int i;

	for (i = 0; i < 3; i++)
		port_count_violation(&f->dev, true, &pk);
	CHECK_EQ(le32toh(m->attr.bad_pkey_cntr), 0);
	fx_free(f);

	f = port_up(NULL);
	m = port_mirror(f);
	f->dev.qkey_viol_cntr = 0xfffe;
	port_count_violation(&f->dev, false, &pk);
	CHECK_EQ(le32toh(m->attr.qkey_viol_cntr), 0xffff);
	port_count_violation(&f->dev, false, &pk);
	CHECK_EQ(le32toh(m->attr.qkey_viol_cntr), 0xffff);
	CHECK(mirror_is_query_port(f));
	/*
	 * Each is trap 258 (IBA 14.2.5.1) once the port has an SM: the
	 * packet's LIDs and Q_Key in the Notice's DataDetails (byte 10)
	 */
	CHECK_EQ(f->dev.mad->traps.raised, 0);
	CHECK_EQ(f->dev.mad->traps.no_sm, 2);	/* this device's two */
	f->dev.mad->port[1].lid = 3;
	f->dev.mad->port[1].sm_lid = 9;
	pk.qkey = 0x11111111;
	pk.dqpn = 0x44;
	port_count_violation(&f->dev, false, &pk);
	{
		uint8_t t[256];
		uint16_t dlid, slid;

		CHECK_EQ(orca_mad_trap_next(f->dev.mad, 0, t, &dlid, &slid),
			 256);
		CHECK_EQ(dlid, 9);
		CHECK_EQ(slid, 3);
		CHECK_EQ(get_be(t + 64 + 4, 2), 258);
		CHECK_EQ(t[64], 0x82);
		CHECK_EQ(get_be(t + 74 + 2, 2), 2);	/* LID1 */
		CHECK_EQ(get_be(t + 74 + 4, 2), 3);	/* LID2 */
		CHECK_EQ(get_be(t + 74 + 6, 4), 0x11111111);
		CHECK_EQ(get_be(t + 74 + 14, 4), 0x44);
	}

	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_COUNTERS, NULL, 0, &cnt,
			sizeof(cnt)), 0);
	CHECK(le64toh(cnt.cmds) >= 4);
	/* a function reset clears the counters and the port counters */
	f->regs->dev_ctl = htole32(ORCA_DEV_CTL_RESET);
	orca_dev_tick(&f->dev);
	CHECK(le32toh(f->regs->dev_sts) & ORCA_DEV_STS_RESET_DONE);
	f->port_mirror_base = PORT_MIRROR_BASE;
	fx_bringup_flags(f, 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_COUNTERS, NULL, 0, &cnt,
			sizeof(cnt)), 0);
	/* RESET QUERY_CAPS INIT ALLOC_PD CREATE_CQ QUERY_COUNTERS */
	CHECK_EQ(le64toh(cnt.cmds), 6);
	CHECK_EQ(le32toh(m->attr.qkey_viol_cntr), 0);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/*
 * Data-in-order as a device property: a payload is placed ascending
 * (last byte last) only where its opcode's guarantee is WHOLE_MSG and the
 * region is not relaxed-ordering; otherwise block by block, last block
 * first (dio_scrambled counts those payloads).  The bytes are right
 * either way.
 */
static void dio_run(const char *const *sets, uint32_t dst_access,
		    uint8_t op, uint64_t want_scrambled)
{
	struct fx *f = dp_up_cfg(sets);
	uint64_t src = heap_alloc(4 * PAGE), dst = heap_alloc(4 * PAGE);
	uint32_t slk, dlk, i, n = 3 * 1024 + 77;
	uint8_t *s = gpa(f, src), *d = gpa(f, dst);
	struct ring_qp a, b;
	struct ring_cq cq;
	struct orca_cqe c;

	CHECK_EQ(reg_mr(f, f->pdn, src, 4 * PAGE, ORCA_ACCESS_LOCAL_WRITE |
			ORCA_ACCESS_REMOTE_READ, &slk), 0);
	CHECK_EQ(reg_mr(f, f->pdn, dst, 4 * PAGE, ORCA_ACCESS_LOCAL_WRITE |
			ORCA_ACCESS_REMOTE_WRITE | dst_access, &dlk), 0);
	CHECK(make_cq(f, &cq, 5));
	CHECK(make_qp(f, &a, cq.cqn));
	CHECK(make_qp(f, &b, cq.cqn));
	CHECK(connect_rc(f, &a, b.qpn, ORCA_ACCESS_REMOTE_READ, 3)); /* 1 KiB */
	CHECK(connect_rc(f, &b, a.qpn, ORCA_ACCESS_REMOTE_WRITE |
			 ORCA_ACCESS_REMOTE_READ, 3));
	for (i = 0; i < n; i++)
		s[i] = (uint8_t)(i * 7 + 3);
	if (op == ORCA_WR_SEND)
		post_recv(f, &b, dst, 4 * PAGE, dlk);
	if (op == ORCA_WR_RDMA_READ)	/* b reads a's source into dst */
		post_send(f, &b, op, dst + 9, n, dlk, iova(src), slk);
	else
		post_send(f, &a, op, src, n, slk, iova(dst) + 9, dlk);
	CHECK(poll_cqe(f, &cq, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	if (op == ORCA_WR_SEND)
		CHECK(poll_cqe(f, &cq, &c) && !c.status);
	CHECK(!memcmp(s, d + (op == ORCA_WR_SEND ? 0 : 9), n));
	/* 4 packets of <= 1 KiB: 3 of more than one block */
	CHECK_EQ(f->dev.stats.dio_scrambled, want_scrambled);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/*
 * Relaxed placement through a region whose pages are listed last to
 * first; with its iova @skew bytes off its pages, every page boundary
 * also splits a 128-byte block (written whole across both pages).
 */
static void dio_pages_run(uint64_t skew)
{
	struct fx *f = dp_up();
	uint64_t src = heap_alloc(4 * PAGE), dst = heap_alloc(4 * PAGE);
	uint64_t list = heap_alloc(4 * 8), riova = iova(dst) + skew;
	uint32_t slk, dlk = 0, i, n = 3 * PAGE + 77, at = 9;
	uint8_t *s = gpa(f, src), *d = gpa(f, dst);
	__le64 *e = gpa(f, list);
	struct orca_pbl pbl = { .addr = htole64(list), .npages = htole32(4),
				.page_shift = 12 };
	struct ring_qp a, b;
	struct ring_cq cq;
	struct orca_cqe c;
	uint64_t scrambled = 0;
	bool same = true;

	for (i = 0; i < 4; i++)
		e[i] = htole64(dst + (3 - i) * PAGE);
	CHECK_EQ(reg_mr_pbl(f, f->pdn, riova, 4 * PAGE, ORCA_ACCESS_LOCAL_WRITE |
			    ORCA_ACCESS_REMOTE_WRITE |
			    ORCA_ACCESS_RELAXED_ORDERING, pbl, 0, &dlk), 0);
	CHECK_EQ(reg_mr(f, f->pdn, src, 4 * PAGE, ORCA_ACCESS_LOCAL_WRITE, &slk),
		 0);
	CHECK(make_cq(f, &cq, 5));
	CHECK(make_qp(f, &a, cq.cqn));
	CHECK(make_qp(f, &b, cq.cqn));
	CHECK(connect_rc(f, &a, b.qpn, 0, 3));	/* 1 KiB packets */
	CHECK(connect_rc(f, &b, a.qpn, ORCA_ACCESS_REMOTE_WRITE, 3));
	for (i = 0; i < n; i++)
		s[i] = (uint8_t)(i * 13 + 5);
	post_send(f, &a, ORCA_WR_RDMA_WRITE, src, n, slk, riova + at, dlk);
	CHECK(poll_cqe(f, &cq, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	/* region byte o is byte o % PAGE of listed page o / PAGE */
	for (i = 0; i < n; i++) {
		uint32_t o = at + i;

		same &= d[(3 - o / PAGE) * PAGE + o % PAGE] == s[i];
	}
	CHECK(same);
	/* out of order: each 1 KiB packet that spans more than one block */
	for (i = 0; i < n; i += 1024) {
		uint64_t va = riova + at + i, len = n - i < 1024 ? n - i : 1024;

		scrambled += va / 128 != (va + len - 1) / 128;
	}
	CHECK_EQ(f->dev.stats.dio_scrambled, scrambled);
	CHECK(canaries_ok(f));
	fx_free(f);
}

static void dio_pages(void)
{
	dio_pages_run(0);
	dio_pages_run(64);
}

static void dio_placement(void)
{
	static const char *const aligned[] = {
		"dio_send=2", "dio_rdma_write=2", "dio_rdma_read=0", NULL };
	static const char *const whole[] = { "dio_rdma_read=3", NULL };

	/* the defaults: SEND and WRITE whole message, READ 128-byte blocks */
	dio_run(NULL, 0, ORCA_WR_RDMA_WRITE, 0);
	dio_run(NULL, 0, ORCA_WR_SEND, 0);
	dio_run(NULL, 0, ORCA_WR_RDMA_READ, 3);
	dio_run(whole, 0, ORCA_WR_RDMA_READ, 0);
	/* a relaxed-ordering region gives the guarantee up */
	dio_run(NULL, ORCA_ACCESS_RELAXED_ORDERING, ORCA_WR_RDMA_WRITE, 3);
	dio_run(aligned, 0, ORCA_WR_RDMA_WRITE, 3);
	dio_run(aligned, 0, ORCA_WR_SEND, 3);
	dio_run(aligned, 0, ORCA_WR_RDMA_READ, 3);
}

/*
 * IBA: max_sge_rd is the most SGEs an RDMA READ WQE may have, which may
 * be fewer than a send WQE's.  A READ with more is a malformed WQE
 * (LOC_QP_OP_ERR) and no request is sent.
 */
static void read_sge_limit(void)
{
	static const char *const sets[] = { "max_sge_rd=1", NULL };
	struct fx *f = dp_up_cfg(sets);
	uint64_t buf = heap_alloc(PAGE);
	struct orca_send_wqe *h;
	struct orca_sge *sg;
	struct ring_qp a, b;
	struct ring_cq cq;
	struct orca_cqe c;
	uint32_t lk;

	CHECK_EQ(reg_mr(f, f->pdn, buf, PAGE, ORCA_ACCESS_LOCAL_WRITE |
			ORCA_ACCESS_REMOTE_READ, &lk), 0);
	CHECK(make_cq(f, &cq, 4));
	CHECK(make_qp(f, &a, cq.cqn));
	CHECK(make_qp(f, &b, cq.cqn));
	CHECK(connect_rc(f, &a, b.qpn, 0, 1));
	CHECK(connect_rc(f, &b, a.qpn, ORCA_ACCESS_REMOTE_READ, 1));
	/* two SGEs: within max_send_sge (4), past max_sge_rd (1) */
	h = gpa(f, a.base);
	put_send(f, &a, ORCA_WR_RDMA_READ, buf, 16, lk, iova(buf) + 512, lk);
	sg = (void *)(h + 1);
	h->num_sge = 2;
	sg[1] = sg[0];
	sg[1].addr = htole64(iova(buf) + 64);
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_DB);
	CHECK(poll_cqe(f, &cq, &c));
	CHECK_EQ(c.status, ORCA_CQE_LOC_QP_OP_ERR);
	CHECK_EQ(c.opcode, ORCA_CQE_OP_RDMA_READ);
	CHECK_EQ(f->dev.stats.pkts, 0);
	CHECK(canaries_ok(f));
	fx_free(f);
}

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();
	RUN(mr_checks);
	RUN(ring_checks);
	RUN(rc_traffic);
	RUN(cq_overrun);
	RUN(bad_sq_pi);
	RUN(cq_events);
	RUN(cq_arm_late);
	RUN(cq_resize);
	RUN(cq_timestamps);
	RUN(port_mirror_updates);
	RUN(port_mirror_bad_address);
	RUN(port_counters);
	RUN(dio_placement);
	RUN(dio_pages);
	RUN(read_sge_limit);
	return tap_done();
}
