// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_fuzz: shared receive queues (create, modify, query, post, QPs on
 * them) and memory windows (type 1 bound by ibv_bind_mw, type 2 by a
 * BIND_MW work request; LOCAL_INV and SEND_WITH_INV naming their keys).
 *
 * An SRQ raises events (SRQ_LIMIT_REACHED, and LAST_WQE_REACHED on its
 * QPs), so, like a QP, it is created only in a context of this process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "fuzz.h"

/* ------------------------------------------------------------ SRQ */
static void rnd_srq_attr(struct ibv_srq_attr *a)
{
	static const uint32_t bad[] = {
		0, 4097, 1U << 20, 0x7fffffff, 0xffffffff,
	};

	a->max_wr = chance(90) ? rn(130) + 1 : bad[rn(ARRAY_SIZE(bad))];
	a->max_sge = chance(90) ? rn(8) + 1 : rnd_u32();
	a->srq_limit = chance(70) ? 0 : chance(90) ? rn(a->max_wr + 2) :
					     rnd_u32();
}

void op_create_srq(void)
{
	struct obj *c = pick_ctx(1), *p, *o;
	struct ibv_srq *srq;

	if (!c || !room(K_SRQ))
		return;
	p = pick_in(K_PD, c->u.ctx, 95);
	if (!p)
		return;
	errno = 0;
	/* ibv_create_srq() creates in the PD's context: only with a PD of c */
	if (chance(30) || p->ctx != c->u.ctx) {
		struct obj *cq = pick_in(K_CQ, c->u.ctx, 90);
		struct ibv_srq_init_attr_ex a = {
			.comp_mask = IBV_SRQ_INIT_ATTR_PD,
			.pd = p->u.pd,
			.srq_type = IBV_SRQT_BASIC,
		};

		rnd_srq_attr(&a.attr);
		if (chance(30)) {
			a.comp_mask |= IBV_SRQ_INIT_ATTR_TYPE;
			a.srq_type = chance(70) ? IBV_SRQT_BASIC :
				     (enum ibv_srq_type)rn(4);
		}
		if (chance(30) && cq) {
			a.comp_mask |= IBV_SRQ_INIT_ATTR_CQ;
			a.cq = cq->u.cq;
		}
		/* XRCD, TM: pointers we do not have, so never their bits */
		if (chance(5))
			a.comp_mask = rnd_u32() & ~(IBV_SRQ_INIT_ATTR_XRCD |
						    IBV_SRQ_INIT_ATTR_TM);
		if ((a.comp_mask & IBV_SRQ_INIT_ATTR_CQ) && !a.cq)
			a.comp_mask &= ~IBV_SRQ_INIT_ATTR_CQ;
		if (!(a.comp_mask & IBV_SRQ_INIT_ATTR_PD))
			a.pd = NULL;
		srq = ibv_create_srq_ex(c->u.ctx, &a);
		note("ibv_create_srq_ex", err_of(srq));
	} else {
		struct ibv_srq_init_attr a = {};

		rnd_srq_attr(&a.attr);
		srq = ibv_create_srq(p->u.pd, &a);
		note("ibv_create_srq", err_of(srq));
	}
	if (!srq)
		return;
	o = obj_new(K_SRQ, srq->context);
	o->u.srq = srq;
}

void op_modify_srq(void)
{
	struct obj *s = pick(K_SRQ);
	struct ibv_srq_attr a;
	int mask;

	if (!s)
		return;
	if (chance(40)) {
		note("ibv_query_srq", ibv_query_srq(s->u.srq, &a));
		return;
	}
	rnd_srq_attr(&a);
	mask = chance(90) ? (int)rn(4) : (int)rnd_u32();
	note("ibv_modify_srq", ibv_modify_srq(s->u.srq, &a, mask));
}

void op_post_srq_recv(void)
{
	struct ibv_recv_wr *bad = NULL;
	struct obj *s = pick(K_SRQ);

	if (s)
		note("ibv_post_srq_recv",
		     ibv_post_srq_recv(s->u.srq, rnd_recv_wrs(), &bad));
}

/* A new QP's SRQ: mostly none, mostly one of its own context. */
struct ibv_srq *qp_srq(struct ibv_context *ctx)
{
	struct obj *s;

	if (!chance(20))
		return NULL;
	s = pick_in(K_SRQ, ctx, 95);
	return s ? s->u.srq : NULL;
}

/* ------------------------------------------------------------ MW */
void op_alloc_mw(void)
{
	struct obj *p = pick(K_PD), *o;
	enum ibv_mw_type type;
	struct ibv_mw *mw;

	if (!p || !room(K_MW))
		return;
	type = chance(95) ? (chance(50) ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2) :
			    (enum ibv_mw_type)rnd_u32();
	errno = 0;
	mw = ibv_alloc_mw(p->u.pd, type);
	note("ibv_alloc_mw", err_of(mw));
	if (!mw)
		return;
	o = obj_new(K_MW, mw->context);
	o->u.mw = mw;
}

static unsigned int mw_access(void)
{
	static const unsigned int bits[] = {
		IBV_ACCESS_REMOTE_WRITE, IBV_ACCESS_REMOTE_READ,
		IBV_ACCESS_REMOTE_ATOMIC, IBV_ACCESS_LOCAL_WRITE,
		IBV_ACCESS_ZERO_BASED, IBV_ACCESS_MW_BIND,
	};
	unsigned int i, a = 0;

	if (chance(5))
		return rnd_u32();
	for (i = 0; i < ARRAY_SIZE(bits); i++)
		if (chance(i < 3 ? 50 : 5))
			a |= bits[i];
	return a;
}

/* a window over an MR: mostly inside it, sometimes past it or unbinding */
static void rnd_bind_info(struct ibv_mw_bind_info *bi, struct ibv_context *ctx)
{
	struct obj *m = pick_in(K_MR, ctx, 90);

	memset(bi, 0, sizeof(*bi));
	bi->mw_access_flags = mw_access();
	if (!m || chance(5))	/* unbind: no MR, no range */
		return;
	bi->mr = m->u.mr;
	bi->addr = (uintptr_t)m->u.mr->addr;
	bi->length = m->u.mr->length;
	if (chance(70) && bi->length) {
		uint64_t off = rnd() % bi->length;

		bi->addr += off;
		bi->length = rn((uint32_t)(bi->length - off)) + 1;
	}
	if (chance(10))
		bi->length += rn(8192);
	if (chance(5))
		bi->addr = rnd_u64();
}

void op_bind_mw(void)
{
	struct obj *w = pick(K_MW), *q;
	struct ibv_mw_bind b = {};

	if (!w)
		return;
	q = pick_in(K_QP, w->ctx, 90);
	if (!q)
		return;
	b.wr_id = rnd();
	b.send_flags = chance(80) ? IBV_SEND_SIGNALED : rn(32);
	rnd_bind_info(&b.bind_info, w->ctx);
	note("ibv_bind_mw", ibv_bind_mw(q->u.qp, w->u.mw, &b));
}

/* a key to invalidate: a window's, an MR's, or any */
static uint32_t inv_key(struct ibv_context *ctx)
{
	struct obj *o;

	switch (rn(3)) {
	case 0:
		o = pick_in(K_MW, ctx, 90);
		return o ? o->u.mw->rkey : rnd_u32();
	case 1:
		o = pick_in(K_MR, ctx, 90);
		return o ? (chance(50) ? o->u.mr->rkey : o->u.mr->lkey) :
			   rnd_u32();
	default:
		return rnd_u32();
	}
}

/* The window parts of a BIND_MW, LOCAL_INV or SEND_WITH_INV WR. */
void rnd_mw_wr(struct ibv_send_wr *wr, struct ibv_context *ctx)
{
	struct obj *w;

	switch (wr->opcode) {
	case IBV_WR_BIND_MW:
		w = pick_in(K_MW, ctx, 90);
		wr->bind_mw.mw = w && chance(97) ? w->u.mw : NULL;
		wr->bind_mw.rkey = w && chance(90) ?
				   ibv_inc_rkey(w->u.mw->rkey) : rnd_u32();
		rnd_bind_info(&wr->bind_mw.bind_info, ctx);
		break;
	case IBV_WR_LOCAL_INV:
	case IBV_WR_SEND_WITH_INV:
		wr->invalidate_rkey = inv_key(ctx);
		break;
	default:
		break;
	}
}
