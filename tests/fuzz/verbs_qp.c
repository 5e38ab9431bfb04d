// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_fuzz: QPs (create, random and valid state changes, queries, ECE,
 * data-in-order) and posting work to them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "fuzz.h"

/* ------------------------------------------------------------ QP */
/*
 * A QP capability: mostly small, sometimes out of range.  The provider
 * sizes and zeroes its rings before the kernel checks the caps, so
 * "out of range" is just past the device's limits (max_qp_wr 4096,
 * 16 SGEs, 256 bytes inline by default) or too large to allocate at all,
 * not the 2^18 WRs that would make it zero a gigabyte first.
 */
static uint32_t qp_cap_value(uint32_t small)
{
	static const uint32_t bad[] = {
		4097, 8192, 256, 257, 4096 + 16, 1U << 28, 0x7fffffff,
		0x80000000, 0xfffffff0, 0xffffffff,
	};

	if (chance(90))
		return rn(small);
	if (big_sizes)
		return rnd_u32();
	return bad[rn(ARRAY_SIZE(bad))];
}

static struct ibv_qp_cap qp_cap(void)
{
	struct ibv_qp_cap cap;

	cap.max_send_wr = qp_cap_value(130);
	cap.max_recv_wr = qp_cap_value(130);
	cap.max_send_sge = qp_cap_value(8);
	cap.max_recv_sge = qp_cap_value(8);
	cap.max_inline_data = chance(80) ? rn(257) : qp_cap_value(257);
	return cap;
}

static enum ibv_qp_type qp_type(void)
{
	static const enum ibv_qp_type t[] = {
		IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD,
	};

	if (chance(4))
		return chance(50) ? IBV_QPT_RAW_PACKET : (enum ibv_qp_type)rnd_u32();
	return t[rn(3)];
}

void op_create_qp(void)
{
	struct obj *c = pick_ctx(1), *p, *s, *r, *o;
	struct ibv_qp *qp;

	if (!c || !room(K_QP))
		return;
	p = pick_in(K_PD, c->u.ctx, 95);
	s = pick_in(K_CQ, c->u.ctx, 95);
	r = chance(70) ? s : pick_in(K_CQ, c->u.ctx, 95);
	if (!p || !s || !r)
		return;
	/* never a foreign context's CQ in a child's shared context */
	errno = 0;
	/*
	 * ibv_create_qp() creates in the PD's context: only with a PD of c.
	 * ibv_create_qp_ex() creates in c, whatever context the PD is of.
	 */
	if (chance(30) || p->ctx != c->u.ctx) {
		struct ibv_qp_init_attr_ex a = {
			.send_cq = s->u.cq,
			.recv_cq = r->u.cq,
			.cap = qp_cap(),
			.qp_type = qp_type(),
			.sq_sig_all = (int)rn(2),
			.comp_mask = IBV_QP_INIT_ATTR_PD,
			.pd = p->u.pd,
			.srq = qp_srq(c->u.ctx),
		};

		if (chance(40)) {
			a.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
			a.create_flags = chance(50) ? 0 : 1U << rn(32);
		}
		if (chance(40)) {
			a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
			a.send_ops_flags = chance(50) ? rn(0x80) : rnd_u64();
		}
		if (chance(10))
			a.comp_mask |= IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
		qp = ibv_create_qp_ex(c->u.ctx, &a);
		note("ibv_create_qp_ex", err_of(qp));
	} else {
		struct ibv_qp_init_attr a = {
			.send_cq = s->u.cq,
			.recv_cq = r->u.cq,
			.cap = qp_cap(),
			.qp_type = qp_type(),
			.sq_sig_all = (int)rn(2),
			.srq = qp_srq(c->u.ctx),
		};

		qp = ibv_create_qp(p->u.pd, &a);
		note("ibv_create_qp", err_of(qp));
	}
	if (!qp)
		return;
	o = obj_new(K_QP, qp->context);
	o->u.qp = qp;
}

void rnd_ah_attr(struct ibv_ah_attr *ah, const struct obj *ctxo)
{
	memset(ah, 0, sizeof(*ah));
	ah->dlid = chance(80) && ctxo ? ctxo->lid : (uint16_t)rnd_u32();
	ah->sl = chance(90) ? rn(16) : (uint8_t)rnd_u32();
	ah->src_path_bits = chance(90) ? 0 : (uint8_t)rnd_u32();
	ah->static_rate = chance(90) ? 0 : (uint8_t)rnd_u32();
	ah->port_num = chance(90) ? 1 : (uint8_t)rn(4);
	ah->is_global = chance(20);
	if (ah->is_global) {
		ah->grh.sgid_index = chance(80) ? 0 : (uint8_t)rn(8);
		ah->grh.hop_limit = (uint8_t)rnd_u32();
		ah->grh.flow_label = rnd_u32();
		ah->grh.traffic_class = (uint8_t)rnd_u32();
		ah->grh.dgid.global.subnet_prefix = chance(50) ?
			htobe64(0xfe80000000000000ULL) : rnd_u64();
		ah->grh.dgid.global.interface_id = rnd_u64();
	}
}

void op_modify_qp_random(void)
{
	struct obj *q = pick(K_QP), *d;
	struct ibv_qp_attr a;
	int mask;

	if (!q)
		return;
	memset(&a, 0, sizeof(a));
	a.qp_state = chance(90) ? rn(7) : (enum ibv_qp_state)rnd_u32();
	a.cur_qp_state = rn(8);
	a.path_mtu = chance(80) ? (enum ibv_mtu)(rn(5) + 1) : (enum ibv_mtu)rnd_u32();
	a.path_mig_state = rn(4);
	a.qkey = rnd_u32();
	/* past 24 bits ib_core masks them, with a log line each time */
	a.rq_psn = chance(95) ? rn(1 << 24) : rnd_u32();
	a.sq_psn = chance(95) ? rn(1 << 24) : rnd_u32();
	d = pick(K_QP);
	a.dest_qp_num = d && chance(80) ? d->u.qp->qp_num : rnd_u32();
	a.qp_access_flags = mr_access();
	a.cap = qp_cap();
	rnd_ah_attr(&a.ah_attr, ctx_obj(q->ctx));
	rnd_ah_attr(&a.alt_ah_attr, ctx_obj(q->ctx));
	a.pkey_index = chance(80) ? 0 : (uint16_t)rnd_u32();
	a.alt_pkey_index = (uint16_t)rnd_u32();
	a.en_sqd_async_notify = rn(2);
	a.sq_draining = rn(2);
	a.max_rd_atomic = chance(80) ? rn(17) : (uint8_t)rnd_u32();
	a.max_dest_rd_atomic = chance(80) ? rn(17) : (uint8_t)rnd_u32();
	a.min_rnr_timer = rn(32);
	a.port_num = chance(85) ? 1 : rn(4);
	a.timeout = rn(32);
	a.retry_cnt = rn(8);
	a.rnr_retry = rn(8);
	a.alt_port_num = rn(3);
	a.alt_timeout = rn(32);
	a.rate_limit = chance(90) ? 0 : rnd_u32();
	mask = chance(90) ? (int)(rnd_u32() & 0x1fffff) : (int)rnd_u32();
	if (chance(70))
		mask |= IBV_QP_STATE;
	note("ibv_modify_qp", ibv_modify_qp(q->u.qp, &a, mask));
}

/*
 * The valid walk RESET -> INIT -> RTR -> RTS to a live QP of the same
 * device (or itself), so that posted work really moves.
 */
void op_connect_qp(void)
{
	struct obj *q = pick(K_QP), *d, *c;
	struct ibv_qp_attr a;
	int ud, ret;

	if (!q)
		return;
	c = ctx_obj(q->ctx);
	d = chance(20) ? q : pick_in(K_QP, NULL, 0);
	if (!d || !c)
		return;
	ud = q->u.qp->qp_type == IBV_QPT_UD;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RESET;
	ret = ibv_modify_qp(q->u.qp, &a, IBV_QP_STATE);
	note("ibv_modify_qp(connect)", ret);
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qkey = 0x11111111;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	ret = ibv_modify_qp(q->u.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | (ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS));
	note("ibv_modify_qp(connect)", ret);
	if (ret)
		return;
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = (enum ibv_mtu)(rn(5) + 1);
	a.dest_qp_num = d->u.qp->qp_num;
	a.rq_psn = rn(1 << 24);
	a.max_dest_rd_atomic = rn(5);
	a.min_rnr_timer = rn(4);
	a.ah_attr.dlid = c->lid;
	a.ah_attr.port_num = 1;
	if (ud)
		ret = ibv_modify_qp(q->u.qp, &a, IBV_QP_STATE);
	else
		ret = ibv_modify_qp(q->u.qp, &a, IBV_QP_STATE | IBV_QP_AV |
				    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				    IBV_QP_RQ_PSN |
				    (q->u.qp->qp_type == IBV_QPT_RC ?
				     IBV_QP_MAX_DEST_RD_ATOMIC |
				     IBV_QP_MIN_RNR_TIMER : 0));
	note("ibv_modify_qp(connect)", ret);
	if (ret)
		return;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = rn(1 << 24);
	a.timeout = rn(3) + 1;
	a.retry_cnt = rn(3);
	a.rnr_retry = rn(3);
	a.max_rd_atomic = rn(5);
	if (q->u.qp->qp_type == IBV_QPT_RC)
		ret = ibv_modify_qp(q->u.qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
				    IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	else
		ret = ibv_modify_qp(q->u.qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	note("ibv_modify_qp(connect)", ret);
}

void op_query_qp(void)
{
	struct obj *q = pick(K_QP);
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	struct ibv_ece ece;
	uint32_t caps;

	if (!q)
		return;
	switch (rn(4)) {
	case 0:
		note("ibv_query_ece", ibv_query_ece(q->u.qp, &ece));
		break;
	case 1:
		ece.vendor_id = chance(50) ? 0x00c0de : rnd_u32();
		ece.options = rnd_u32();
		ece.comp_mask = chance(90) ? 0 : rnd_u32();
		note("ibv_set_ece", ibv_set_ece(q->u.qp, &ece));
		break;
	case 2:
		caps = (uint32_t)ibv_query_qp_data_in_order(q->u.qp,
				(enum ibv_wr_opcode)rn(12), rn(4));
		note("ibv_query_qp_data_in_order", caps > 3 ? EINVAL : 0);
		break;
	default:
		note("ibv_query_qp", ibv_query_qp(q->u.qp, &a,
				chance(90) ? (int)(rnd_u32() & 0x1fffff) :
					     (int)rnd_u32(), &ia));
		break;
	}
}

/* ------------------------------------------------------------ post */

/*
 * An SGE over an MR (its keys, sometimes wrong ones).  With @inl the
 * provider copies the bytes: the address must be readable memory of ours,
 * so it is clamped into the MR arena whatever the MR says.
 */
void rnd_sge(struct ibv_sge *s, int inl)
{
	struct obj *m = pick(K_MR);
	uintptr_t lo = (uintptr_t)mr_arena.base, hi = lo + mr_arena.len;
	uint64_t addr;
	uint32_t len;

	if (m && chance(85)) {
		uint64_t mlen = m->u.mr->length;
		uint64_t off = mlen ? rnd() % mlen : 0;

		addr = (uintptr_t)m->u.mr->addr + off;
		len = (uint32_t)(chance(80) ? rn(4097) : rn(65537));
		if (off + len > mlen && chance(80))
			len = (uint32_t)(mlen - off);
		s->lkey = chance(92) ? m->u.mr->lkey : rnd_u32();
	} else {
		addr = arena_ptr(&mr_arena, 4096, NULL);
		len = rn(4097);
		s->lkey = rnd_u32();
	}
	if (!inl && chance(5))
		addr = chance(50) ? bad_ptr() : addr + rnd_u32();
	if (inl) {
		len = len % 512;
		if (addr < lo || addr >= hi)
			addr = lo + rn(mr_arena.len);
		if (addr + len > hi)
			len = (uint32_t)(hi - addr);
	}
	s->addr = addr;
	s->length = len;
}

static enum ibv_wr_opcode send_opcode(void)
{
	static const enum ibv_wr_opcode op[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_BIND_MW, IBV_WR_LOCAL_INV, IBV_WR_SEND_WITH_INV,
	};

	if (chance(8))
		return chance(50) ? (enum ibv_wr_opcode)rn(16) :
				    (enum ibv_wr_opcode)rnd_u32();
	return op[rn(ARRAY_SIZE(op))];
}

void op_post_send(void)
{
	static struct ibv_sge sge[MAX_WR][MAX_SGE];
	struct ibv_send_wr wr[MAX_WR], *bad = NULL;
	struct obj *q = pick(K_QP), *m, *ah;
	unsigned int i, j, n;

	if (!q)
		return;
	n = rn(MAX_WR) + 1;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		int inl;

		wr[i].wr_id = rnd();
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		wr[i].opcode = send_opcode();
		wr[i].send_flags = chance(90) ? rn(32) : (unsigned int)rnd_u32();
		inl = !!(wr[i].send_flags & IBV_SEND_INLINE);
		wr[i].num_sge = chance(85) ? (int)rn(4) :
			chance(90) ? (int)rn(MAX_SGE + 1) : -1;
		for (j = 0; (int)j < wr[i].num_sge; j++)
			rnd_sge(&sge[i][j], inl);
		wr[i].sg_list = sge[i];
		wr[i].imm_data = rnd_u32();
		m = pick(K_MR);
		if (wr[i].opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
		    wr[i].opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			wr[i].wr.atomic.remote_addr = m && chance(90) ?
				((uintptr_t)m->u.mr->addr + rn(64) * 8) : rnd_u64();
			wr[i].wr.atomic.rkey = m && chance(90) ? m->u.mr->rkey : rnd_u32();
			wr[i].wr.atomic.compare_add = rnd_u64();
			wr[i].wr.atomic.swap = rnd_u64();
		} else {
			wr[i].wr.rdma.remote_addr = m && chance(90) ?
				(uintptr_t)m->u.mr->addr + rn(4096) : rnd_u64();
			wr[i].wr.rdma.rkey = m && chance(90) ? m->u.mr->rkey : rnd_u32();
		}
		if (q->u.qp->qp_type == IBV_QPT_UD) {
			struct obj *d = pick(K_QP);

			ah = pick_in(K_AH, q->ctx, 80);
			wr[i].wr.ud.ah = ah && chance(95) ? ah->u.ah : NULL;
			wr[i].wr.ud.remote_qpn = d && chance(80) ?
				d->u.qp->qp_num : rnd_u32();
			wr[i].wr.ud.remote_qkey = chance(80) ? 0x11111111 : rnd_u32();
		}
		rnd_mw_wr(&wr[i], q->ctx);
	}
	/* the inline lengths of a WR that sum past 2^32 */
	if (chance(2)) {
		wr[0].send_flags |= IBV_SEND_INLINE;
		wr[0].opcode = IBV_WR_SEND;
		wr[0].num_sge = 2;
		sge[0][0].addr = (uintptr_t)mr_arena.base;
		sge[0][0].length = 0xffffffff;
		sge[0][1].addr = (uintptr_t)mr_arena.base;
		sge[0][1].length = 2;
	}
	note("ibv_post_send", ibv_post_send(q->u.qp, wr, &bad));
}

/* 1 to MAX_WR chained receive WRs with random SGEs (static storage) */
struct ibv_recv_wr *rnd_recv_wrs(void)
{
	static struct ibv_sge sge[MAX_WR][MAX_SGE];
	static struct ibv_recv_wr wr[MAX_WR];
	unsigned int i, j, n = rn(MAX_WR) + 1;

	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		wr[i].wr_id = rnd();
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		wr[i].num_sge = chance(85) ? (int)rn(4) :
			chance(90) ? (int)rn(MAX_SGE + 1) : -1;
		for (j = 0; (int)j < wr[i].num_sge; j++)
			rnd_sge(&sge[i][j], 0);
		wr[i].sg_list = sge[i];
	}
	return wr;
}

void op_post_recv(void)
{
	struct ibv_recv_wr *bad = NULL;
	struct obj *q = pick(K_QP);

	if (q)
		note("ibv_post_recv", ibv_post_recv(q->u.qp, rnd_recv_wrs(), &bad));
}

