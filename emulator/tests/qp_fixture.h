/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * QP commands of the device-core tests, on top of fixture.h: create,
 * query, modify and destroy a QP the way the driver does, read its mirror
 * entry back, and the IBTA modify-QP rules written down a second time,
 * with which a test walks a QP to any state.  Used by test_cmd_errors.c,
 * test_objects.c, test_qp_sm.c, test_reset.c and test_hooks.c.
 */
#ifndef ORCA_EMU_TESTS_QP_FIXTURE_H
#define ORCA_EMU_TESTS_QP_FIXTURE_H

#include "fixture.h"

/* ------------------------------------------------------------------ */
/* Object helpers                                                     */
/* ------------------------------------------------------------------ */

static inline struct orca_create_qp_in qp_in(struct fx *f, uint8_t type)
{
	struct orca_create_qp_in in;

	memset(&in, 0, sizeof(in));
	in.qp_type = type;
	in.pdn = htole32(f->pdn);
	in.send_cqn = htole32(f->cqn);
	in.recv_cqn = htole32(f->cqn);
	in.max_send_wr = htole32(16);
	in.max_recv_wr = htole32(16);
	in.max_send_sge = htole32(1);
	in.max_recv_sge = htole32(1);
	return in;
}

static inline uint32_t create_qp_in(struct fx *f,
				    struct orca_create_qp_in *in,
				    struct orca_qp_ctx *out)
{
	struct orca_qp_ctx ctx;

	if (fx_cmd(f, ORCA_CMD_CREATE_QP, in, sizeof(*in), &ctx, sizeof(ctx)))
		return 0;
	if (out)
		*out = ctx;
	return le32toh(ctx.qpn);
}

static inline uint32_t create_qp(struct fx *f, uint8_t type)
{
	struct orca_create_qp_in in = qp_in(f, type);

	return create_qp_in(f, &in, NULL);
}

static inline int query_qp(struct fx *f, uint32_t qpn, struct orca_qp_ctx *ctx)
{
	struct orca_qp_handle h = { .qpn = htole32(qpn) };

	return fx_cmd(f, ORCA_CMD_QUERY_QP, &h, sizeof(h), ctx, sizeof(*ctx));
}

static inline int destroy_qp(struct fx *f, uint32_t qpn)
{
	struct orca_qp_handle h = { .qpn = htole32(qpn) };

	return fx_cmd(f, ORCA_CMD_DESTROY_QP, &h, sizeof(h), NULL, 0);
}

static inline int qp_state(struct fx *f, uint32_t qpn)
{
	struct orca_qp_ctx ctx;

	if (query_qp(f, qpn, &ctx))
		return -1;
	return ctx.state;
}

/* Valid values for every attribute. */
static inline void fill_attrs(struct orca_qp_ctx *a)
{
	memset(a, 0, sizeof(*a));
	a->en_sqd_async_notify = 1;
	a->access_flags = htole32(ORCA_ACCESS_REMOTE_WRITE |
				  ORCA_ACCESS_REMOTE_READ);
	a->pkey_index = htole16(0);
	a->port = 1;
	a->qkey = htole32(0x11111111);
	a->av.port = 1;
	a->av.dlid = htole16(0x12);
	a->av.sl = 3;
	a->path_mtu = 3;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->rq_psn = htole32(0x100);
	a->max_rd_atomic = 4;
	a->alt_av.port = 1;
	a->alt_av.dlid = htole16(0x13);
	a->alt_av.timeout = 14;
	a->min_rnr_timer = 12;
	a->sq_psn = htole32(0x200);
	a->max_dest_rd_atomic = 4;
	a->path_mig_state = ORCA_MIG_MIGRATED;
	a->dest_qpn = htole32(0x33);
}

static inline int modify_full(struct fx *f, uint32_t qpn, uint32_t mask,
			      const struct orca_qp_ctx *attrs, uint8_t state,
			      uint8_t cur, uint32_t flags, uint32_t ece,
			      struct orca_qp_ctx *out)
{
	struct orca_modify_qp_in in;
	struct orca_qp_ctx res;

	memset(&in, 0, sizeof(in));
	in.qpn = htole32(qpn);
	in.attr_mask = htole32(mask);
	in.cur_state = cur;
	in.flags = htole32(flags);
	in.ece_options = htole32(ece);
	if (attrs)
		in.ctx = *attrs;
	in.ctx.state = state;
	return fx_cmd(f, ORCA_CMD_MODIFY_QP, &in, sizeof(in),
		      out ? out : &res, sizeof(res));
}

static inline int modify(struct fx *f, uint32_t qpn, uint32_t mask,
			 uint8_t state)
{
	struct orca_qp_ctx a;

	fill_attrs(&a);
	return modify_full(f, qpn, mask, &a, state, 0, 0, 0, NULL);
}

static inline const struct orca_qp_mirror *mirror(struct fx *f, uint32_t qpn)
{
	return (const struct orca_qp_mirror *)(f->ram + MIRROR_BASE +
					       qpn * sizeof(struct orca_qp_mirror));
}

/* ------------------------------------------------------------------ */
/* The IBTA modify-QP rules, written down a second time for the tests */
/* ------------------------------------------------------------------ */

enum { RC, UC, UD };

struct rule {
	bool valid;
	uint32_t req, opt;
};

static inline int tix(uint8_t type)
{
	return type == ORCA_QPT_RC ? RC : type == ORCA_QPT_UC ? UC : UD;
}

static inline struct rule rule_for(uint8_t type, int from, int to)
{
	const int t = tix(type);
	struct rule r = { false, 0, 0 };
	const uint32_t conn_rts = ORCA_QP_CUR_STATE | ORCA_QP_ACCESS_FLAGS |
				  ORCA_QP_ALT_PATH | ORCA_QP_PATH_MIG_STATE;

	/* RESET from anywhere; ERR from anywhere but RESET */
	if (to == ORCA_QPS_RESET || (to == ORCA_QPS_ERR &&
				     from != ORCA_QPS_RESET)) {
		r.valid = true;
		return r;
	}
	switch (from * 8 + to) {
	case ORCA_QPS_RESET * 8 + ORCA_QPS_INIT:
		r.valid = true;
		r.req = ORCA_QP_PKEY_INDEX | ORCA_QP_PORT |
			(t == UD ? ORCA_QP_QKEY : ORCA_QP_ACCESS_FLAGS);
		break;
	case ORCA_QPS_INIT * 8 + ORCA_QPS_INIT:
		r.valid = true;
		r.opt = ORCA_QP_PKEY_INDEX | ORCA_QP_PORT |
			(t == UD ? ORCA_QP_QKEY : ORCA_QP_ACCESS_FLAGS);
		break;
	case ORCA_QPS_INIT * 8 + ORCA_QPS_RTR:
		r.valid = true;
		if (t != UD)
			r.req = ORCA_QP_AV | ORCA_QP_PATH_MTU |
				ORCA_QP_DEST_QPN | ORCA_QP_RQ_PSN;
		if (t == RC)
			r.req |= ORCA_QP_MAX_DEST_RD_ATOMIC |
				 ORCA_QP_MIN_RNR_TIMER;
		r.opt = ORCA_QP_PKEY_INDEX |
			(t == UD ? ORCA_QP_QKEY :
				   ORCA_QP_ALT_PATH | ORCA_QP_ACCESS_FLAGS);
		break;
	case ORCA_QPS_RTR * 8 + ORCA_QPS_RTS:
		r.valid = true;
		r.req = ORCA_QP_SQ_PSN;
		if (t == RC)
			r.req |= ORCA_QP_TIMEOUT | ORCA_QP_RETRY_CNT |
				 ORCA_QP_RNR_RETRY | ORCA_QP_MAX_QP_RD_ATOMIC;
		r.opt = t == UD ? ORCA_QP_CUR_STATE | ORCA_QP_QKEY :
			t == UC ? conn_rts : conn_rts | ORCA_QP_MIN_RNR_TIMER;
		break;
	case ORCA_QPS_RTS * 8 + ORCA_QPS_RTS:
	case ORCA_QPS_SQD * 8 + ORCA_QPS_RTS:
		r.valid = true;
		r.opt = t == UD ? ORCA_QP_CUR_STATE | ORCA_QP_QKEY :
			t == UC ? conn_rts : conn_rts | ORCA_QP_MIN_RNR_TIMER;
		break;
	case ORCA_QPS_RTS * 8 + ORCA_QPS_SQD:
		r.valid = true;
		r.opt = ORCA_QP_EN_SQD_ASYNC_NOTIFY;
		break;
	case ORCA_QPS_SQD * 8 + ORCA_QPS_SQD:
		r.valid = true;
		if (t == UD)
			r.opt = ORCA_QP_PKEY_INDEX | ORCA_QP_QKEY;
		else if (t == UC)
			r.opt = ORCA_QP_AV | ORCA_QP_ALT_PATH |
				ORCA_QP_ACCESS_FLAGS | ORCA_QP_PKEY_INDEX |
				ORCA_QP_PATH_MIG_STATE;
		else
			r.opt = ORCA_QP_PORT | ORCA_QP_AV | ORCA_QP_TIMEOUT |
				ORCA_QP_RETRY_CNT | ORCA_QP_RNR_RETRY |
				ORCA_QP_MAX_QP_RD_ATOMIC |
				ORCA_QP_MAX_DEST_RD_ATOMIC | ORCA_QP_ALT_PATH |
				ORCA_QP_ACCESS_FLAGS | ORCA_QP_PKEY_INDEX |
				ORCA_QP_MIN_RNR_TIMER | ORCA_QP_PATH_MIG_STATE;
		break;
	case ORCA_QPS_SQE * 8 + ORCA_QPS_RTS:
		r.valid = true;
		r.opt = t == UD ? ORCA_QP_CUR_STATE | ORCA_QP_QKEY :
			t == UC ? ORCA_QP_CUR_STATE | ORCA_QP_ACCESS_FLAGS : 0;
		break;
	case ORCA_QPS_ERR * 8 + ORCA_QPS_ERR:
		r.valid = true;
		break;
	}
	return r;
}

/* Create a QP and walk it to @state with the required attributes. */
static inline uint32_t qp_in_state(struct fx *f, uint8_t type, int state)
{
	static const int path[] = { ORCA_QPS_INIT, ORCA_QPS_RTR, ORCA_QPS_RTS };
	uint32_t qpn = create_qp(f, type);
	int cur = ORCA_QPS_RESET;
	char err[128];
	unsigned int i;

	if (!qpn || state == ORCA_QPS_RESET)
		return qpn;
	for (i = 0; i < 3; i++) {
		if (modify(f, qpn, ORCA_QP_STATE |
			   rule_for(type, cur, path[i]).req, path[i]))
			return 0;
		cur = path[i];
		if (cur == state)
			return qpn;
		if (state == ORCA_QPS_ERR)
			return modify(f, qpn, ORCA_QP_STATE, ORCA_QPS_ERR) ?
			       0 : qpn;
	}
	if (state == ORCA_QPS_SQD) {
		if (modify(f, qpn, ORCA_QP_STATE, ORCA_QPS_SQD))
			return 0;
		orca_dev_tick(&f->dev);		/* drain */
		return qpn;
	}
	if (state == ORCA_QPS_SQE)
		return orca_dev_hook_sq_error(&f->dev, qpn, err, sizeof(err)) ?
		       0 : qpn;
	return 0;
}

#endif /* ORCA_EMU_TESTS_QP_FIXTURE_H */
