// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the device model's memory windows: ALLOC_MW / DEALLOC_MW
 * and their checks, the configuration switch, BIND_MW of type 1 and type
 * 2 windows (every IBTA rule, valid and refused), remote access through a
 * window (rights, bounds, PD, the QP a type 2 window is bound to, stale
 * keys), LOCAL_INV, SEND_WITH_INV, DEALLOC_MW and DESTROY_QP of bound
 * windows, DEREG_MR / REREG_MR of a region with windows bound.  The test
 * plays the driver and the provider over fake guest RAM (dp_fixture.h).
 */
#include <string.h>

#include "dp_fixture.h"
#include "orca_cmd.h"
#include "orca_dev.h"
#include "orca_log.h"

#define REMOTE_ALL	(ORCA_ACCESS_REMOTE_WRITE | ORCA_ACCESS_REMOTE_READ | \
			 ORCA_ACCESS_REMOTE_ATOMIC)

static int alloc_mw(struct fx *f, uint32_t pdn, uint8_t type, uint32_t *rkey)
{
	struct orca_alloc_mw_in in = { .pdn = htole32(pdn), .type = type };
	struct orca_mw_handle out;
	int ret;

	ret = fx_cmd(f, ORCA_CMD_ALLOC_MW, &in, sizeof(in), &out, sizeof(out));
	if (!ret && rkey)
		*rkey = le32toh(out.rkey);
	return ret;
}

static int dealloc_mw(struct fx *f, uint32_t rkey)
{
	struct orca_mw_handle in = { .rkey = htole32(rkey) };

	return fx_cmd(f, ORCA_CMD_DEALLOC_MW, &in, sizeof(in), NULL, 0);
}


/* A signaled BIND_MW WQE on @qp, kicked. */
static void post_bind(struct fx *f, struct ring_qp *qp, uint32_t rkey,
		      uint32_t lkey, uint64_t addr, uint64_t len,
		      uint32_t access)
{
	uint8_t *w = gpa(f, qp->base +
			 ((uint64_t)(qp->sq_pi & 7) << SQ_LOG_STRIDE));
	struct orca_bind_wqe *b = (void *)w;
	__le32 *db = gpa(f, qp->base + qp->db_off);

	memset(w, 0, 1U << SQ_LOG_STRIDE);
	b->opcode = ORCA_WR_BIND_MW;
	b->flags = ORCA_WQE_F_SIGNALED;
	b->rkey = htole32(rkey);
	b->mr_lkey = htole32(lkey);
	b->addr = htole64(addr);
	b->length = htole64(len);
	b->access = htole32(access);
	*db = htole32(++qp->sq_pi);
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_DB);
}

/* LOCAL_INV or a SEND_WITH_INV of no data, invalidating @key. */
static void post_inv(struct fx *f, struct ring_qp *qp, uint8_t op,
		     uint32_t key)
{
	uint8_t *w = gpa(f, qp->base +
			 ((uint64_t)(qp->sq_pi & 7) << SQ_LOG_STRIDE));
	struct orca_send_wqe *h = (void *)w;
	__le32 *db = gpa(f, qp->base + qp->db_off);

	memset(w, 0, 1U << SQ_LOG_STRIDE);
	h->opcode = op;
	h->flags = ORCA_WQE_F_SIGNALED;
	h->rkey = htole32(key);
	*db = htole32(++qp->sq_pi);
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_DB);
}

/* The next CQE's status and opcode (0xff, 0xff if there is none). */
static struct orca_cqe next(struct fx *f, struct ring_cq *cq)
{
	struct orca_cqe c;

	if (!poll_cqe(f, cq, &c)) {
		memset(&c, 0xff, sizeof(c));
		c.flags = 0;
	}
	return c;
}

struct world {
	struct fx *f;
	struct ring_cq cq;
	uint64_t src, dst;		/* 4 pages each */
	uint32_t slk;			/* src: local write */
	uint32_t dlk;			/* dst: local write + MW_BIND */
};

static void world_up(struct world *w, const char *const *sets)
{
	w->f = dp_up_cfg(sets);
	w->src = heap_alloc(4 * PAGE);
	w->dst = heap_alloc(4 * PAGE);
	CHECK_EQ(reg_mr(w->f, w->f->pdn, w->src, 4 * PAGE,
			ORCA_ACCESS_LOCAL_WRITE, &w->slk), 0);
	CHECK_EQ(reg_mr(w->f, w->f->pdn, w->dst, 4 * PAGE,
			ORCA_ACCESS_LOCAL_WRITE | ORCA_ACCESS_MW_BIND,
			&w->dlk), 0);
	CHECK(make_cq(w->f, &w->cq, 6));
}

/* A fresh connected RC pair a -> b, b granting every remote right. */
static void pair(struct world *w, struct ring_qp *a, struct ring_qp *b)
{
	CHECK(make_qp(w->f, a, w->cq.cqn));
	CHECK(make_qp(w->f, b, w->cq.cqn));
	CHECK(connect_rc(w->f, a, b->qpn, REMOTE_ALL, 1));
	CHECK(connect_rc(w->f, b, a->qpn, REMOTE_ALL, 1));
}

/* a writes 100 bytes to iova(dst) + off with @rkey: its CQE status. */
static uint8_t write_with(struct world *w, struct ring_qp *a, uint32_t rkey,
			  uint64_t off, uint32_t len)
{
	struct orca_cqe c;

	post_send(w->f, a, ORCA_WR_RDMA_WRITE, w->src, len, w->slk,
		  iova(w->dst) + off, rkey);
	c = next(w->f, &w->cq);
	CHECK(c.flags & ORCA_CQE_F_SQ);
	return c.status;
}

static uint8_t bind_status(struct world *w, struct ring_qp *qp, uint32_t rkey,
			   uint32_t lkey, uint64_t addr, uint64_t len,
			   uint32_t access)
{
	struct orca_cqe c;

	post_bind(w->f, qp, rkey, lkey, addr, len, access);
	c = next(w->f, &w->cq);
	CHECK_EQ(c.opcode, ORCA_CQE_OP_BIND_MW);
	CHECK_EQ(le32toh(c.qpn), qp->qpn);
	return c.status;
}

/* Every check of ALLOC_MW / DEALLOC_MW, and the configuration switch. */
static void mw_commands(void)
{
	static const char *const two[] = { "max_mw=2", NULL };
	struct world w;
	struct fx *f;
	struct orca_alloc_mw_in in = {};
	struct orca_pd_handle pd;
	struct orca_caps caps;
	uint32_t k1, k2;

	world_up(&w, two);
	f = w.f;
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &caps, sizeof(caps)),
		 0);
	CHECK_EQ(le32toh(caps.max_mw), 2);
	CHECK(le32toh(caps.dev_caps) & ORCA_DEV_CAP_MEM_WINDOW);
	CHECK(le32toh(caps.dev_caps) & ORCA_DEV_CAP_MW_TYPE_2B);

	CHECK_EQ(alloc_mw(f, f->pdn, ORCA_MW_TYPE_1, &k1), 0);
	CHECK_EQ(alloc_mw(f, f->pdn, ORCA_MW_TYPE_2, &k2), 0);
	CHECK(k1 & ORCA_KEY_MW);
	CHECK(k2 & ORCA_KEY_MW);
	CHECK(k1 >> 8 != k2 >> 8);
	EXPECT_FAIL(f, alloc_mw(f, f->pdn, ORCA_MW_TYPE_1, NULL),
		    ORCA_STATUS_NO_RESOURCES, ORCA_SYND_LIMIT);
	EXPECT_FAIL(f, alloc_mw(f, f->pdn + 9, ORCA_MW_TYPE_1, NULL),
		    ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE);
	CHECK_EQ(dealloc_mw(f, k1), 0);
	EXPECT_FAIL(f, alloc_mw(f, f->pdn, 3, NULL), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_INVALID_ATTR);
	EXPECT_FAIL(f, alloc_mw(f, f->pdn, 0, NULL), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_INVALID_ATTR);
	in.pdn = htole32(f->pdn);
	in.type = ORCA_MW_TYPE_1;
	in.reserved[1] = 1;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_ALLOC_MW, &in, sizeof(in), NULL, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_RESERVED_NZ);
	/* a region's key, a dead window, no window bit: no such window */
	EXPECT_FAIL(f, dealloc_mw(f, w.dlk), ORCA_STATUS_BAD_RESOURCE,
		    ORCA_SYND_HANDLE);
	EXPECT_FAIL(f, dealloc_mw(f, k1), ORCA_STATUS_BAD_RESOURCE,
		    ORCA_SYND_HANDLE);
	EXPECT_FAIL(f, dealloc_mw(f, ORCA_KEY_MW | 3 << 8),
		    ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE);
	/* a PD with a window is in use */
	CHECK_EQ(fx_dereg_mr(f, w.slk), 0);
	CHECK_EQ(fx_dereg_mr(f, w.dlk), 0);
	pd.pdn = htole32(f->pdn);
	pd.reserved = 0;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_DEALLOC_PD, &pd, sizeof(pd), NULL,
			      0), ORCA_STATUS_BAD_RES_STATE, ORCA_SYND_IN_USE);
	/* DEALLOC_MW names the window by index: any key byte */
	CHECK_EQ(dealloc_mw(f, k2 ^ 0x5a), 0);
	CHECK_EQ(f->dev.n_mws, 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_DEALLOC_PD, &pd, sizeof(pd), NULL, 0), 0);
	CHECK(canaries_ok(f));
	fx_free(f);

	/* max_mw=0: no caps, ALLOC_MW UNSUPPORTED */
	{
		static const char *const off[] = { "max_mw=0", NULL };

		f = dp_up_cfg(off);
		CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &caps,
				sizeof(caps)), 0);
		CHECK_EQ(le32toh(caps.max_mw), 0);
		CHECK(!(le32toh(caps.dev_caps) & (ORCA_DEV_CAP_MEM_WINDOW |
						  ORCA_DEV_CAP_MW_TYPE_2B)));
		EXPECT_FAIL(f, alloc_mw(f, f->pdn, ORCA_MW_TYPE_1, NULL),
			    ORCA_STATUS_UNSUPPORTED, ORCA_SYND_NONE);
		fx_free(f);
	}
	/* dev_caps without MEM_WINDOW: max_mw 0 too */
	{
		static const char *const off[] = { "dev_caps=0x7", NULL };

		f = dp_up_cfg(off);
		CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &caps,
				sizeof(caps)), 0);
		CHECK_EQ(le32toh(caps.max_mw), 0);
		CHECK_EQ(le32toh(caps.dev_caps), 0x7);
		EXPECT_FAIL(f, alloc_mw(f, f->pdn, ORCA_MW_TYPE_2, NULL),
			    ORCA_STATUS_UNSUPPORTED, ORCA_SYND_NONE);
		fx_free(f);
	}
	/* type 1 only: type 2 refused */
	{
		static const char *const t1[] = { "dev_caps=0x2007", NULL };

		f = dp_up_cfg(t1);
		CHECK_EQ(alloc_mw(f, f->pdn, ORCA_MW_TYPE_1, NULL), 0);
		EXPECT_FAIL(f, alloc_mw(f, f->pdn, ORCA_MW_TYPE_2, NULL),
			    ORCA_STATUS_UNSUPPORTED, ORCA_SYND_NONE);
		fx_free(f);
	}
	/* the key's range */
	{
		struct orca_cfg c;
		char err[128];

		orca_cfg_defaults(&c);
		CHECK(orca_cfg_set_kv(&c, "max_mw=1000000", err, sizeof(err)));
		CHECK_EQ(orca_cfg_set_kv(&c, "max_mw=0", err, sizeof(err)), 0);
		CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), 0);
		CHECK(!(c.dev_caps & ORCA_DEV_CAP_MEM_WINDOW));
	}
}

/* Type 1: bind, use, rebind, zero-length bind; every refusal. */
static void mw_type1(void)
{
	struct world w;
	struct ring_qp a, b;
	struct fx *f;
	uint32_t k, k2, nobind, rolk, pd2, mw2, lk2;
	uint64_t ro;
	uint8_t *s, *d;

	world_up(&w, NULL);
	f = w.f;
	s = gpa(f, w.src);
	d = gpa(f, w.dst);
	memset(s, 0xab, PAGE);
	pair(&w, &a, &b);
	CHECK_EQ(alloc_mw(f, f->pdn, ORCA_MW_TYPE_1, &k), 0);

	/* bound to [dst + PAGE, + 2 pages), remote write only */
	k = (k & ~0xffU) | 0x11;
	CHECK_EQ(bind_status(&w, &b, k, w.dlk, iova(w.dst) + PAGE, 2 * PAGE,
			     ORCA_ACCESS_REMOTE_WRITE), ORCA_CQE_SUCCESS);
	CHECK_EQ(f->dev.mrs[w.dlk >> 8].mw_refs, 1);
	CHECK_EQ(write_with(&w, &a, k, PAGE + 8, 100), ORCA_CQE_SUCCESS);
	CHECK(d[PAGE + 8] == 0xab && d[PAGE + 107] == 0xab && !d[PAGE + 108]);
	/* the window's last byte, exactly */
	CHECK_EQ(write_with(&w, &a, k, 3 * PAGE - 100, 100), ORCA_CQE_SUCCESS);

	/* a region with windows bound is neither deregistered nor rebound */
	EXPECT_FAIL(f, fx_dereg_mr(f, w.dlk), ORCA_STATUS_BAD_RES_STATE,
		    ORCA_SYND_IN_USE);
	{
		struct orca_rereg_mr_in ri = {};

		ri.lkey = htole32(w.dlk);
		ri.mr.iova = htole64(iova(w.dst));
		ri.mr.length = htole64(PAGE);
		ri.mr.pdn = htole32(f->pdn);
		ri.mr.access = htole32(ORCA_ACCESS_LOCAL_WRITE);
		ri.mr.pbl = pbl_for(f, w.dst, 1);
		EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_REREG_MR, &ri, sizeof(ri),
				      NULL, 0), ORCA_STATUS_BAD_RES_STATE,
			    ORCA_SYND_IN_USE);
	}

	/* rebound under a new key: the old one is stale */
	k2 = (k & ~0xffU) | 0x12;
	CHECK_EQ(bind_status(&w, &b, k2, w.dlk, iova(w.dst), PAGE,
			     REMOTE_ALL), ORCA_CQE_SUCCESS);
	CHECK_EQ(f->dev.mrs[w.dlk >> 8].mw_refs, 1);
	CHECK_EQ(write_with(&w, &a, k2, 0, 100), ORCA_CQE_SUCCESS);
	CHECK_EQ(write_with(&w, &a, k, PAGE + 8, 100), ORCA_CQE_REM_ACCESS_ERR);
	CHECK_EQ(qp_state_of(f, a.qpn), ORCA_QPS_ERR);
	CHECK_EQ(qp_state_of(f, b.qpn), ORCA_QPS_ERR);
	while (poll_cqe(f, &w.cq, &(struct orca_cqe){}))
		;

	/* out of the window's bounds (inside the region) */
	pair(&w, &a, &b);
	CHECK_EQ(write_with(&w, &a, k2, PAGE - 50, 100),
		 ORCA_CQE_REM_ACCESS_ERR);
	while (poll_cqe(f, &w.cq, &(struct orca_cqe){}))
		;

	/* a right the window lacks (READ of a write-only window) */
	pair(&w, &a, &b);
	k = (k & ~0xffU) | 0x13;
	CHECK_EQ(bind_status(&w, &b, k, w.dlk, iova(w.dst), PAGE,
			     ORCA_ACCESS_REMOTE_WRITE), ORCA_CQE_SUCCESS);
	post_send(f, &a, ORCA_WR_RDMA_READ, w.src, 64, w.slk, iova(w.dst), k);
	CHECK_EQ(next(f, &w.cq).status, ORCA_CQE_REM_ACCESS_ERR);
	while (poll_cqe(f, &w.cq, &(struct orca_cqe){}))
		;

	/* zero-length bind: bound to nothing, the key refused */
	pair(&w, &a, &b);
	k2 = (k & ~0xffU) | 0x14;
	CHECK_EQ(bind_status(&w, &b, k2, w.dlk, iova(w.dst), 0, 0),
		 ORCA_CQE_SUCCESS);
	CHECK_EQ(f->dev.mrs[w.dlk >> 8].mw_refs, 0);
	CHECK_EQ(write_with(&w, &a, k2, 0, 8), ORCA_CQE_REM_ACCESS_ERR);
	while (poll_cqe(f, &w.cq, &(struct orca_cqe){}))
		;
	CHECK_EQ(write_with(&w, &a, k, 0, 8), ORCA_CQE_WR_FLUSH_ERR);

	/* a region without MW_BIND */
	pair(&w, &a, &b);
	nobind = heap_alloc(PAGE);
	CHECK_EQ(reg_mr(f, f->pdn, nobind, PAGE, ORCA_ACCESS_LOCAL_WRITE |
			ORCA_ACCESS_REMOTE_WRITE, &lk2), 0);
	CHECK_EQ(bind_status(&w, &b, k, lk2, iova(nobind), PAGE,
			     ORCA_ACCESS_REMOTE_WRITE), ORCA_CQE_MW_BIND_ERR);
	CHECK_EQ(qp_state_of(f, b.qpn), ORCA_QPS_ERR);

	/* remote write on a region without local write */
	pair(&w, &a, &b);
	ro = heap_alloc(PAGE);
	CHECK_EQ(reg_mr(f, f->pdn, ro, PAGE, ORCA_ACCESS_MW_BIND, &rolk), 0);
	CHECK_EQ(bind_status(&w, &b, k, rolk, iova(ro), PAGE,
			     ORCA_ACCESS_REMOTE_WRITE), ORCA_CQE_MW_BIND_ERR);
	pair(&w, &a, &b);
	CHECK_EQ(bind_status(&w, &b, k, rolk, iova(ro), PAGE,
			     ORCA_ACCESS_REMOTE_ATOMIC), ORCA_CQE_MW_BIND_ERR);
	/* read only is fine there */
	pair(&w, &a, &b);
	CHECK_EQ(bind_status(&w, &b, k, rolk, iova(ro), PAGE,
			     ORCA_ACCESS_REMOTE_READ), ORCA_CQE_SUCCESS);

	/* a range outside the region */
	CHECK_EQ(bind_status(&w, &b, k, w.dlk, iova(w.dst) + PAGE, 4 * PAGE,
			     ORCA_ACCESS_REMOTE_WRITE), ORCA_CQE_MW_BIND_ERR);

	/* unknown access bits, a stale region key, no such window */
	pair(&w, &a, &b);
	CHECK_EQ(bind_status(&w, &b, k, w.dlk, iova(w.dst), PAGE,
			     ORCA_ACCESS_MW_BIND), ORCA_CQE_MW_BIND_ERR);
	pair(&w, &a, &b);
	CHECK_EQ(bind_status(&w, &b, k, w.dlk ^ 0x80, iova(w.dst), PAGE,
			     ORCA_ACCESS_REMOTE_READ), ORCA_CQE_MW_BIND_ERR);
	pair(&w, &a, &b);
	CHECK_EQ(bind_status(&w, &b, k + (5 << 8), w.dlk, iova(w.dst), PAGE,
			     ORCA_ACCESS_REMOTE_READ), ORCA_CQE_MW_BIND_ERR);

	/* wrong PD: a window of another PD, or a region of another PD */
	pd2 = fx_alloc_pd(f);
	CHECK_EQ(alloc_mw(f, pd2, ORCA_MW_TYPE_1, &mw2), 0);
	pair(&w, &a, &b);
	CHECK_EQ(bind_status(&w, &b, mw2, w.dlk, iova(w.dst), PAGE,
			     ORCA_ACCESS_REMOTE_READ), ORCA_CQE_MW_BIND_ERR);
	{
		uint64_t other = heap_alloc(PAGE);
		uint32_t olk;

		CHECK_EQ(reg_mr(f, pd2, other, PAGE, ORCA_ACCESS_LOCAL_WRITE |
				ORCA_ACCESS_MW_BIND, &olk), 0);
		pair(&w, &a, &b);
		CHECK_EQ(bind_status(&w, &b, k, olk, iova(other), PAGE,
				     ORCA_ACCESS_REMOTE_READ),
			 ORCA_CQE_MW_BIND_ERR);
	}
	/* a window bound in one PD used through a responder QP of another */
	{
		struct ring_qp c, e;
		uint32_t pdn1 = f->pdn;

		pair(&w, &a, &b);
		CHECK_EQ(bind_status(&w, &b, k, w.dlk, iova(w.dst), PAGE,
				     ORCA_ACCESS_REMOTE_WRITE),
			 ORCA_CQE_SUCCESS);
		CHECK_EQ(write_with(&w, &a, k, 0, 8), ORCA_CQE_SUCCESS);
		f->pdn = pd2;
		CHECK(make_qp(f, &e, w.cq.cqn));
		f->pdn = pdn1;
		CHECK(make_qp(f, &c, w.cq.cqn));
		CHECK(connect_rc(f, &c, e.qpn, 0, 1));
		CHECK(connect_rc(f, &e, c.qpn, REMOTE_ALL, 1));
		CHECK_EQ(write_with(&w, &c, k, 0, 8), ORCA_CQE_REM_ACCESS_ERR);
		while (poll_cqe(f, &w.cq, &(struct orca_cqe){}))
			;
	}
	/* a type 1 window is not invalidated by LOCAL_INV */
	pair(&w, &a, &b);
	post_inv(f, &b, ORCA_WR_LOCAL_INV, k);
	{
		struct orca_cqe c = next(f, &w.cq);

		CHECK_EQ(c.status, ORCA_CQE_LOC_QP_OP_ERR);
		CHECK_EQ(c.opcode, ORCA_CQE_OP_LOCAL_INV);
	}
	/* BIND_MW with an SGE is malformed */
	pair(&w, &a, &b);
	put_send(f, &b, ORCA_WR_BIND_MW, w.src, 8, w.slk, 0, k);
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_DB);
	CHECK_EQ(next(f, &w.cq).status, ORCA_CQE_LOC_QP_OP_ERR);

	/* after DEALLOC_MW the region can go */
	CHECK_EQ(dealloc_mw(f, k), 0);
	CHECK_EQ(f->dev.mrs[w.dlk >> 8].mw_refs, 0);
	CHECK_EQ(fx_dereg_mr(f, w.dlk), 0);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/* Type 2: bound to a QP, invalidated four ways. */
static void mw_type2(void)
{
	struct world w;
	struct ring_qp a, b, c, e;
	struct orca_cqe q, r;
	struct fx *f;
	uint32_t k, k1;
	uint8_t *s, *d;

	world_up(&w, NULL);
	f = w.f;
	s = gpa(f, w.src);
	d = gpa(f, w.dst);
	memset(s, 0xcd, PAGE);
	pair(&w, &a, &b);
	CHECK_EQ(alloc_mw(f, f->pdn, ORCA_MW_TYPE_2, &k), 0);
	k = (k & ~0xffU) | 0x42;	/* the consumer's key byte */

	/* not bound yet: refused */
	CHECK_EQ(write_with(&w, &a, k, 0, 8), ORCA_CQE_REM_ACCESS_ERR);
	while (poll_cqe(f, &w.cq, &q))
		;
	pair(&w, &a, &b);
	/* length 0 is not a type 2 bind */
	CHECK_EQ(bind_status(&w, &b, k, w.dlk, iova(w.dst), 0, 0),
		 ORCA_CQE_MW_BIND_ERR);
	pair(&w, &a, &b);
	CHECK_EQ(bind_status(&w, &b, k, w.dlk, iova(w.dst), 2 * PAGE,
			     REMOTE_ALL), ORCA_CQE_SUCCESS);
	CHECK_EQ(f->dev.qps[b.qpn]->mw_refs, 1);
	CHECK_EQ(write_with(&w, &a, k, 16, 100), ORCA_CQE_SUCCESS);
	CHECK(d[16] == 0xcd && d[115] == 0xcd && !d[116]);
	/* READ and atomics through it too */
	post_send(f, &a, ORCA_WR_RDMA_READ, w.src + PAGE, 100, w.slk,
		  iova(w.dst) + 16, k);
	q = next(f, &w.cq);
	CHECK_EQ(q.status, ORCA_CQE_SUCCESS);
	CHECK(!memcmp(s + PAGE, d + 16, 100));
	post_send(f, &a, ORCA_WR_ATOMIC_FETCH_AND_ADD, w.src + 2 * PAGE, 8,
		  w.slk, iova(w.dst) + 1024, k);
	CHECK_EQ(next(f, &w.cq).status, ORCA_CQE_SUCCESS);
	CHECK_EQ(d[1024], 0);	/* add 0 (the fixture's compare_add) */

	/* bound to b: a QP of the same PD connected elsewhere is refused */
	CHECK(make_qp(f, &c, w.cq.cqn));
	CHECK(make_qp(f, &e, w.cq.cqn));
	CHECK(connect_rc(f, &c, e.qpn, 0, 1));
	CHECK(connect_rc(f, &e, c.qpn, REMOTE_ALL, 1));
	CHECK_EQ(write_with(&w, &c, k, 16, 8), ORCA_CQE_REM_ACCESS_ERR);
	while (poll_cqe(f, &w.cq, &q))
		;

	/* still bound: a second bind is refused (b ends) */
	CHECK_EQ(bind_status(&w, &b, k, w.dlk, iova(w.dst), PAGE,
			     REMOTE_ALL), ORCA_CQE_MW_BIND_ERR);
	CHECK_EQ(qp_state_of(f, b.qpn), ORCA_QPS_ERR);
	while (poll_cqe(f, &w.cq, &q))
		;
	/* b still exists: the window is still bound to it, and useless */
	CHECK(f->dev.mws[(k & ~ORCA_KEY_MW) >> 8].bound);

	/* DESTROY_QP of b invalidates it */
	{
		struct orca_qp_handle h = { .qpn = htole32(b.qpn) };

		CHECK_EQ(fx_cmd(f, ORCA_CMD_DESTROY_QP, &h, sizeof(h), NULL, 0),
			 0);
	}
	CHECK(!f->dev.mws[(k & ~ORCA_KEY_MW) >> 8].bound);
	CHECK_EQ(f->dev.mrs[w.dlk >> 8].mw_refs, 0);

	/* LOCAL_INV by the QP it is bound to */
	pair(&w, &a, &b);
	CHECK_EQ(bind_status(&w, &b, k, w.dlk, iova(w.dst), PAGE,
			     ORCA_ACCESS_REMOTE_WRITE), ORCA_CQE_SUCCESS);
	post_inv(f, &b, ORCA_WR_LOCAL_INV, k ^ 1);	/* wrong key byte */
	q = next(f, &w.cq);
	CHECK_EQ(q.status, ORCA_CQE_LOC_QP_OP_ERR);
	CHECK_EQ(q.opcode, ORCA_CQE_OP_LOCAL_INV);
	pair(&w, &a, &b);
	CHECK_EQ(bind_status(&w, &b, k, w.dlk, iova(w.dst), PAGE,
			     ORCA_ACCESS_REMOTE_WRITE), ORCA_CQE_MW_BIND_ERR);
	/* the old b (in ERR) still holds it: LOCAL_INV from a works */
	pair(&w, &a, &b);
	post_inv(f, &a, ORCA_WR_LOCAL_INV, k);
	q = next(f, &w.cq);
	CHECK_EQ(q.status, ORCA_CQE_SUCCESS);
	CHECK_EQ(q.opcode, ORCA_CQE_OP_LOCAL_INV);
	CHECK_EQ(f->dev.mrs[w.dlk >> 8].mw_refs, 0);
	/* the same key byte again after an invalidation */
	CHECK_EQ(bind_status(&w, &b, k, w.dlk, iova(w.dst), PAGE,
			     ORCA_ACCESS_REMOTE_WRITE), ORCA_CQE_SUCCESS);
	CHECK_EQ(write_with(&w, &a, k, 0, 8), ORCA_CQE_SUCCESS);
	post_inv(f, &b, ORCA_WR_LOCAL_INV, k);
	CHECK_EQ(next(f, &w.cq).status, ORCA_CQE_SUCCESS);
	CHECK_EQ(write_with(&w, &a, k, 0, 8), ORCA_CQE_REM_ACCESS_ERR);
	while (poll_cqe(f, &w.cq, &q))
		;
	/* LOCAL_INV of an unbound window or a region's key */
	pair(&w, &a, &b);
	post_inv(f, &b, ORCA_WR_LOCAL_INV, k);
	CHECK_EQ(next(f, &w.cq).status, ORCA_CQE_LOC_QP_OP_ERR);
	pair(&w, &a, &b);
	post_inv(f, &b, ORCA_WR_LOCAL_INV, w.dlk);
	CHECK_EQ(next(f, &w.cq).status, ORCA_CQE_LOC_QP_OP_ERR);

	/* SEND_WITH_INV from a: b's receive reports the key, it is gone */
	pair(&w, &a, &b);
	k1 = (k & ~0xffU) | 0x43;
	CHECK_EQ(bind_status(&w, &b, k1, w.dlk, iova(w.dst), PAGE,
			     ORCA_ACCESS_REMOTE_WRITE), ORCA_CQE_SUCCESS);
	post_recv(f, &b, w.dst + 2 * PAGE, PAGE, w.dlk);
	post_send(f, &a, ORCA_WR_SEND_WITH_INV, w.src, 600, w.slk, 0, k1);
	q = next(f, &w.cq);
	r = next(f, &w.cq);
	if (q.flags & ORCA_CQE_F_SQ) {
		struct orca_cqe t = q;

		q = r;
		r = t;
	}
	CHECK_EQ(q.status, ORCA_CQE_SUCCESS);
	CHECK_EQ(q.opcode, ORCA_CQE_OP_RECV);
	CHECK(q.flags & ORCA_CQE_F_INV);
	CHECK(!(q.flags & ORCA_CQE_F_IMM));
	CHECK_EQ(le32toh(q.inv_rkey), k1);
	CHECK_EQ(le32toh(q.byte_len), 600);
	CHECK(!memcmp(d + 2 * PAGE, s, 600));
	CHECK_EQ(r.status, ORCA_CQE_SUCCESS);
	CHECK_EQ(r.opcode, ORCA_CQE_OP_SEND);
	CHECK(!f->dev.mws[(k & ~ORCA_KEY_MW) >> 8].bound);
	CHECK_EQ(write_with(&w, &a, k1, 0, 8), ORCA_CQE_REM_ACCESS_ERR);
	while (poll_cqe(f, &w.cq, &q))
		;

	/* SEND_WITH_INV of a key that is no window of b: both fail */
	pair(&w, &a, &b);
	post_recv(f, &b, w.dst + 2 * PAGE, PAGE, w.dlk);
	post_send(f, &a, ORCA_WR_SEND_WITH_INV, w.src, 8, w.slk, 0, k1);
	q = next(f, &w.cq);
	r = next(f, &w.cq);
	if (q.flags & ORCA_CQE_F_SQ) {
		struct orca_cqe t = q;

		q = r;
		r = t;
	}
	CHECK_EQ(q.status, ORCA_CQE_REM_INV_REQ_ERR);
	CHECK(!(q.flags & ORCA_CQE_F_INV));
	CHECK_EQ(r.status, ORCA_CQE_REM_INV_REQ_ERR);
	while (poll_cqe(f, &w.cq, &q))
		;
	/* ... nor a window bound to another QP */
	pair(&w, &a, &b);
	CHECK_EQ(bind_status(&w, &b, k1, w.dlk, iova(w.dst), PAGE,
			     ORCA_ACCESS_REMOTE_WRITE), ORCA_CQE_SUCCESS);
	CHECK(make_qp(f, &c, w.cq.cqn));
	CHECK(make_qp(f, &e, w.cq.cqn));
	CHECK(connect_rc(f, &c, e.qpn, 0, 1));
	CHECK(connect_rc(f, &e, c.qpn, REMOTE_ALL, 1));
	post_recv(f, &e, w.dst + 2 * PAGE, PAGE, w.dlk);
	post_send(f, &c, ORCA_WR_SEND_WITH_INV, w.src, 8, w.slk, 0, k1);
	q = next(f, &w.cq);
	r = next(f, &w.cq);
	CHECK_EQ(q.status, ORCA_CQE_REM_INV_REQ_ERR);
	CHECK_EQ(r.status, ORCA_CQE_REM_INV_REQ_ERR);
	CHECK(f->dev.mws[(k & ~ORCA_KEY_MW) >> 8].bound);
	while (poll_cqe(f, &w.cq, &q))
		;
	/* DEALLOC_MW of the bound window: its key is refused at once */
	CHECK_EQ(write_with(&w, &a, k1, 0, 8), ORCA_CQE_SUCCESS);
	CHECK_EQ(dealloc_mw(f, k1), 0);
	CHECK_EQ(f->dev.mrs[w.dlk >> 8].mw_refs, 0);
	CHECK_EQ(f->dev.qps[b.qpn]->mw_refs, 0);
	CHECK_EQ(write_with(&w, &a, k1, 0, 8), ORCA_CQE_REM_ACCESS_ERR);
	while (poll_cqe(f, &w.cq, &q))
		;
	CHECK_EQ(fx_dereg_mr(f, w.dlk), 0);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/* A RESET of the device drops every window with everything else. */
static void mw_reset(void)
{
	struct world w;
	struct ring_qp a, b;
	uint32_t k;

	world_up(&w, NULL);
	pair(&w, &a, &b);
	CHECK_EQ(alloc_mw(w.f, w.f->pdn, ORCA_MW_TYPE_2, &k), 0);
	CHECK_EQ(bind_status(&w, &b, k, w.dlk, iova(w.dst), PAGE,
			     ORCA_ACCESS_REMOTE_WRITE), ORCA_CQE_SUCCESS);
	CHECK_EQ(fx_cmd(w.f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	CHECK_EQ(w.f->dev.n_mws, 0);
	CHECK(!w.f->dev.mws[(k & ~ORCA_KEY_MW) >> 8].used);
	fx_free(w.f);
}

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();
	RUN(mw_commands);
	RUN(mw_type1);
	RUN(mw_type2);
	RUN(mw_reset);
	return tap_done();
}
