// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the QP commands (CREATE, MODIFY, QUERY, DESTROY).
 * The state machine they enforce is in orca_qp.c, the queues a QP owns in
 * orca_wq.c.
 */
#include <stdlib.h>

#include "orca_cmd.h"

static uint32_t qp_type_cap(unsigned int type)
{
	switch (type) {
	case ORCA_QPT_RC:
		return ORCA_DEV_CAP_RC;
	case ORCA_QPT_UC:
		return ORCA_DEV_CAP_UC;
	case ORCA_QPT_UD:
		return ORCA_DEV_CAP_UD;
	case ORCA_QPT_SMI:
	case ORCA_QPT_GSI:
		return ORCA_DEV_CAP_MAD_QPS;
	}
	return 0;
}

/* QP0 and QP1 are UD QPs by the numbers IBA reserves for them. */
static bool qp_type_special(unsigned int type)
{
	return type == ORCA_QPT_SMI || type == ORCA_QPT_GSI;
}

/* Work request and inline limits: range check, then device rounding. */
static int qp_caps(struct orca_dev *dev, struct cmd *c,
		   const struct orca_create_qp_in *in, struct orca_qp_ctx *ctx)
{
	const struct orca_cfg *g = &dev->cfg;
	uint32_t swr = le32toh(in->max_send_wr);
	uint32_t rwr = le32toh(in->max_recv_wr);
	uint32_t ssge = le32toh(in->max_send_sge);
	uint32_t rsge = le32toh(in->max_recv_sge);
	uint32_t inl = le32toh(in->max_inline_data);

	if (swr > g->max_qp_wr || rwr > g->max_qp_wr)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "max_send_wr %u / max_recv_wr %u > max_qp_wr %llu",
			    swr, rwr, (unsigned long long)g->max_qp_wr);
	if (ssge > g->max_send_sge || rsge > g->max_recv_sge)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "max_send_sge %u / max_recv_sge %u over limit", ssge,
			    rsge);
	if (inl > g->max_inline_data)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "max_inline_data %u > %llu", inl,
			    (unsigned long long)g->max_inline_data);
	swr = roundup_pow2(swr);
	rwr = roundup_pow2(rwr);
	if (swr > g->max_qp_wr)
		swr = g->max_qp_wr;
	if (rwr > g->max_qp_wr)
		rwr = g->max_qp_wr;
	inl = (inl + 15) & ~15U;
	if (inl > g->max_inline_data)
		inl = g->max_inline_data;
	ctx->max_send_wr = htole32(swr);
	ctx->max_recv_wr = htole32(rwr);
	ctx->max_send_sge = htole32(ssge);
	ctx->max_recv_sge = htole32(rsge);
	ctx->max_inline_data = htole32(inl);
	return ORCA_STATUS_OK;
}

/*
 * Every QP is on the live list, which the heartbeat walks, and one
 * without a kick ring also on the unringed list, which every engine
 * round walks (orca_kick.c).
 */
static struct orca_qp_list *qp_kick_list(struct orca_dev *dev,
					 struct orca_qp *qp)
{
	return qp->kick_ring ? &dev->kicks[qp->kick_ring - 1].qps :
			       &dev->unringed_qps;
}

static void qp_live_add(struct orca_dev *dev, struct orca_qp *qp)
{
	qp_list_add_tail(&dev->live_qps, qp, live);
	/* in creation order, as the engine served them in QPN order */
	qp_list_add_tail(qp_kick_list(dev, qp), qp, unringed);
}

static void qp_live_del(struct orca_dev *dev, struct orca_qp *qp)
{
	qp_list_del(&dev->live_qps, qp, live);
	qp_unsched(dev, qp);
	qp_list_del(qp_kick_list(dev, qp), qp, unringed);
}

int cmd_create_qp(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_create_qp_in *in = c->in;
	uint32_t flags = le32toh(in->create_flags);
	uint32_t pdn = le32toh(in->pdn);
	uint32_t scqn = le32toh(in->send_cqn), rcqn = le32toh(in->recv_cqn);
	uint32_t srqn = le32toh(in->srqn);
	struct orca_qp_ctx ctx;
	struct orca_qp *qp;
	uint32_t qpn;
	int ret;

	if (!qp_type_cap(in->qp_type))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_QP_TYPE,
			    "unknown QP type %u", in->qp_type);
	if (!(dev->cfg.dev_caps & qp_type_cap(in->qp_type)))
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_QP_TYPE,
			    "QP type %u disabled in dev_caps", in->qp_type);
	if (in->sq_sig_all > 1)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "sq_sig_all %u", in->sq_sig_all);
	if (flags & ~(ORCA_QP_CREATE_PCI_WRITE_END_PADDING |
		      ORCA_QP_CREATE_RESERVED_LKEY | ORCA_QP_CREATE_UD_AV |
		      ORCA_QP_CREATE_FAST_REG | ORCA_QP_CREATE_KICK_RING))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS,
			    "unknown create_flags 0x%x", flags);
	if ((flags & ORCA_QP_CREATE_KICK_RING) &&
	    !(dev->cfg.dev_caps & ORCA_DEV_CAP_KICK_RING))
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_FLAGS,
			    "kick rings not enabled");
	if (in->kick_ring && !(flags & ORCA_QP_CREATE_KICK_RING))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RESERVED_NZ,
			    "kick_ring %u without ORCA_QP_CREATE_KICK_RING",
			    le16toh(in->kick_ring));
	if (in->kick_ring && !kick_ring_live(dev, le16toh(in->kick_ring)))
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no kick ring %u", le16toh(in->kick_ring));
	if ((flags & ORCA_QP_CREATE_PCI_WRITE_END_PADDING) &&
	    !(dev->cfg.dev_caps & ORCA_DEV_CAP_PCI_WRITE_END_PADDING))
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_FLAGS,
			    "PCI write end padding not enabled");
	if ((flags & ORCA_QP_CREATE_RESERVED_LKEY) &&
	    !(dev->cfg.dev_caps & ORCA_DEV_CAP_RESERVED_LKEY))
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_FLAGS,
			    "reserved lkey not enabled");
	if ((flags & ORCA_QP_CREATE_UD_AV) &&
	    !(dev->cfg.dev_caps & ORCA_DEV_CAP_UD_AV))
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_FLAGS,
			    "address vectors in WQEs not enabled");
	if ((flags & ORCA_QP_CREATE_FAST_REG) &&
	    !(dev->cfg.dev_caps & ORCA_DEV_CAP_FAST_REG))
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_FLAGS,
			    "fast registration not enabled");
	if ((flags & ORCA_QP_CREATE_FAST_REG) && in->qp_type != ORCA_QPT_RC &&
	    in->qp_type != ORCA_QPT_UC)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS,
			    "fast registration on a QP of type %u",
			    in->qp_type);
	if ((flags & ORCA_QP_CREATE_UD_AV) && in->qp_type != ORCA_QPT_UD &&
	    !qp_type_special(in->qp_type))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS,
			    "address vectors in WQEs on a QP of type %u",
			    in->qp_type);
	if (qp_type_special(in->qp_type) && srqn)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_HANDLE,
			    "QP%u with an SRQ", in->qp_type - ORCA_QPT_SMI);
	if (qp_type_special(in->qp_type) &&
	    dev->qps[in->qp_type - ORCA_QPT_SMI])
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_LIMIT,
			    "QP%u exists", in->qp_type - ORCA_QPT_SMI);
	if (!pd_get(dev, pdn))
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no PD %u", pdn);
	if (!cq_get(dev, scqn) || !cq_get(dev, rcqn))
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no CQ %u or %u", scqn, rcqn);
	if (srqn && !srq_get(dev, srqn))
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no SRQ %u", srqn);
	/* receives come from the SRQ: no receive queue of its own */
	if (srqn && (in->max_recv_wr || in->max_recv_sge))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "QP with SRQ %u asks for %u receive WRs, %u SGEs",
			    srqn, le32toh(in->max_recv_wr),
			    le32toh(in->max_recv_sge));

	memset(&ctx, 0, sizeof(ctx));
	ret = qp_caps(dev, c, in, &ctx);
	if (ret)
		return ret;
	/* QP0 and QP1 are numbers of their own, outside max_qp */
	if (!qp_type_special(in->qp_type) && dev->n_qps >= dev->cfg.max_qp)
		return fail(c, ORCA_STATUS_NO_RESOURCES, ORCA_SYND_LIMIT,
			    "max_qp %llu reached",
			    (unsigned long long)dev->cfg.max_qp);
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return fail(c, ORCA_STATUS_NO_RESOURCES, ORCA_SYND_NONE,
			    "out of host memory");
	qp->ctx = ctx;
	ret = qp_queues_create(dev, c, qp, in);
	if (ret) {
		free(qp);
		return ret;
	}
	if (qp_type_special(in->qp_type))
		qpn = in->qp_type - ORCA_QPT_SMI;
	else
		qpn = rr_next(&dev->next_qpn, ORCA_QPN_BASE,
			      dev->cfg.max_qp + ORCA_QPN_BASE, qp_busy, dev);

	ctx.qpn = htole32(qpn);
	ctx.qp_type = qp_type_special(in->qp_type) ? ORCA_QPT_UD : in->qp_type;
	ctx.state = ORCA_QPS_RESET;
	ctx.sq_sig_all = in->sq_sig_all;
	ctx.path_mig_state = ORCA_MIG_MIGRATED;
	ctx.create_flags = htole32(flags);
	ctx.ece_options = htole32(dev->cfg.ece_options);
	ctx.pdn = htole32(pdn);
	ctx.send_cqn = htole32(scqn);
	ctx.recv_cqn = htole32(rcqn);
	ctx.srqn = htole32(srqn);
	qp->ctx = ctx;
	qp->dflt = ctx;
	dev->qps[qpn] = qp;
	qp->kick_ring = le16toh(in->kick_ring);
	qp_live_add(dev, qp);
	if (qpn >= ORCA_QPN_BASE)
		dev->n_qps++;
	dev->pds[pdn].qp_refs++;
	dev->cqs[scqn].qp_refs++;
	dev->cqs[rcqn].qp_refs++;
	if (srqn)
		dev->srqs[srqn].qp_refs++;

	mirror_write(dev, qpn, &qp->ctx);
	memcpy(c->out, &qp->ctx, sizeof(qp->ctx));
	return ORCA_STATUS_OK;
}

/* Address vector of the primary (alt = false) or alternate path. */
static int check_av(struct orca_dev *dev, struct cmd *c,
		    const struct orca_av *av, bool alt)
{
	const struct orca_cfg *g = &dev->cfg;
	const char *p = alt ? "alt_av" : "av";

	/* port 0 = the QP's port */
	if (av->port > g->phys_port_cnt)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "%s.port %u", p, av->port);
	if (av->sl > 15)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "%s.sl %u > 15", p, av->sl);
	if (av->flags & ~ORCA_AV_F_GRH)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "%s.flags 0x%x", p, av->flags);
	if (le32toh(av->flow_label) > 0xfffff)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "%s.flow_label 0x%x > 0xfffff", p,
			    le32toh(av->flow_label));
	if ((av->flags & ORCA_AV_F_GRH) && av->sgid_index >= g->gid_tbl_len)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "%s.sgid_index %u >= gid_tbl_len %llu", p,
			    av->sgid_index, (unsigned long long)g->gid_tbl_len);
	if (alt && av->timeout > 31)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "alt_av.timeout %u > 31", av->timeout);
	if (alt && av->pkey_index >= g->pkey_tbl_len)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "alt_av.pkey_index %u >= %llu", av->pkey_index,
			    (unsigned long long)g->pkey_tbl_len);
	return ORCA_STATUS_OK;
}

#define RANGE(c, cond, fmt, ...)					\
	do {								\
		if (cond)						\
			return fail(c, ORCA_STATUS_BAD_PARAM,		\
				    ORCA_SYND_ATTR_RANGE, fmt, __VA_ARGS__); \
	} while (0)

/* Value checks for every attribute selected by mask. */
static int check_attrs(struct orca_dev *dev, struct cmd *c, uint32_t mask,
		       const struct orca_qp_ctx *a)
{
	const struct orca_cfg *g = &dev->cfg;
	uint32_t v;
	int ret;

	if (mask & ORCA_QP_EN_SQD_ASYNC_NOTIFY) {
		RANGE(c, a->en_sqd_async_notify > 1, "en_sqd_async_notify %u",
		      a->en_sqd_async_notify);
		if (a->en_sqd_async_notify &&
		    !(g->dev_caps & ORCA_DEV_CAP_SQD_ASYNC_NOTIFY))
			return fail(c, ORCA_STATUS_UNSUPPORTED,
				    ORCA_SYND_INVALID_ATTR,
				    "SQD async notify not enabled");
	}
	v = le32toh(a->access_flags);
	RANGE(c, (mask & ORCA_QP_ACCESS_FLAGS) &&
		 (v & ~(ORCA_ACCESS_REMOTE_WRITE | ORCA_ACCESS_REMOTE_READ |
			ORCA_ACCESS_REMOTE_ATOMIC)),
	      "access_flags 0x%x", v);
	v = le16toh(a->pkey_index);
	RANGE(c, (mask & ORCA_QP_PKEY_INDEX) && v >= g->pkey_tbl_len,
	      "pkey_index %u >= pkey_tbl_len", v);
	RANGE(c, (mask & ORCA_QP_PORT) &&
		 (!a->port || a->port > g->phys_port_cnt),
	      "port %u", a->port);
	if (mask & ORCA_QP_AV) {
		ret = check_av(dev, c, &a->av, false);
		if (ret)
			return ret;
	}
	RANGE(c, (mask & ORCA_QP_PATH_MTU) &&
		 (!a->path_mtu || a->path_mtu > g->max_mtu),
	      "path_mtu %u not in 1..%llu", a->path_mtu,
	      (unsigned long long)g->max_mtu);
	RANGE(c, (mask & ORCA_QP_TIMEOUT) && a->timeout > 31, "timeout %u",
	      a->timeout);
	RANGE(c, (mask & ORCA_QP_RETRY_CNT) && a->retry_cnt > 7,
	      "retry_cnt %u", a->retry_cnt);
	RANGE(c, (mask & ORCA_QP_RNR_RETRY) && a->rnr_retry > 7,
	      "rnr_retry %u", a->rnr_retry);
	v = le32toh(a->rq_psn);
	RANGE(c, (mask & ORCA_QP_RQ_PSN) && v > 0xffffff, "rq_psn 0x%x", v);
	RANGE(c, (mask & ORCA_QP_MAX_QP_RD_ATOMIC) &&
		 a->max_rd_atomic > g->max_qp_init_rd_atom,
	      "max_rd_atomic %u > %llu", a->max_rd_atomic,
	      (unsigned long long)g->max_qp_init_rd_atom);
	if (mask & ORCA_QP_ALT_PATH) {
		ret = check_av(dev, c, &a->alt_av, true);
		if (ret)
			return ret;
	}
	RANGE(c, (mask & ORCA_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31,
	      "min_rnr_timer %u", a->min_rnr_timer);
	v = le32toh(a->sq_psn);
	RANGE(c, (mask & ORCA_QP_SQ_PSN) && v > 0xffffff, "sq_psn 0x%x", v);
	RANGE(c, (mask & ORCA_QP_MAX_DEST_RD_ATOMIC) &&
		 a->max_dest_rd_atomic > g->max_qp_rd_atom,
	      "max_dest_rd_atomic %u > %llu", a->max_dest_rd_atomic,
	      (unsigned long long)g->max_qp_rd_atom);
	RANGE(c, (mask & ORCA_QP_PATH_MIG_STATE) &&
		 a->path_mig_state > ORCA_MIG_ARMED,
	      "path_mig_state %u", a->path_mig_state);
	v = le32toh(a->dest_qpn);
	RANGE(c, (mask & ORCA_QP_DEST_QPN) && v > 0xffffff, "dest_qpn 0x%x",
	      v);
	return ORCA_STATUS_OK;
}

static void apply_attrs(struct orca_qp_ctx *q, uint32_t mask,
			const struct orca_qp_ctx *a)
{
	if (mask & ORCA_QP_EN_SQD_ASYNC_NOTIFY)
		q->en_sqd_async_notify = a->en_sqd_async_notify;
	if (mask & ORCA_QP_ACCESS_FLAGS)
		q->access_flags = a->access_flags;
	if (mask & ORCA_QP_PKEY_INDEX)
		q->pkey_index = a->pkey_index;
	if (mask & ORCA_QP_PORT)
		q->port = a->port;
	if (mask & ORCA_QP_QKEY)
		q->qkey = a->qkey;
	if (mask & ORCA_QP_AV)
		q->av = a->av;
	if (mask & ORCA_QP_PATH_MTU)
		q->path_mtu = a->path_mtu;
	if (mask & ORCA_QP_TIMEOUT)
		q->timeout = a->timeout;
	if (mask & ORCA_QP_RETRY_CNT)
		q->retry_cnt = a->retry_cnt;
	if (mask & ORCA_QP_RNR_RETRY)
		q->rnr_retry = a->rnr_retry;
	if (mask & ORCA_QP_RQ_PSN)
		q->rq_psn = a->rq_psn;
	if (mask & ORCA_QP_MAX_QP_RD_ATOMIC)
		q->max_rd_atomic = a->max_rd_atomic;
	if (mask & ORCA_QP_ALT_PATH)
		q->alt_av = a->alt_av;
	if (mask & ORCA_QP_MIN_RNR_TIMER)
		q->min_rnr_timer = a->min_rnr_timer;
	if (mask & ORCA_QP_SQ_PSN)
		q->sq_psn = a->sq_psn;
	if (mask & ORCA_QP_MAX_DEST_RD_ATOMIC)
		q->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & ORCA_QP_PATH_MIG_STATE)
		q->path_mig_state = a->path_mig_state;
	if (mask & ORCA_QP_DEST_QPN)
		q->dest_qpn = a->dest_qpn;
}

int cmd_modify_qp(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_modify_qp_in *in = c->in;
	uint32_t qpn = le32toh(in->qpn);
	uint32_t mask = le32toh(in->attr_mask);
	uint32_t flags = le32toh(in->flags);
	struct orca_qp_ctx next;
	struct orca_qp *qp;
	unsigned int cur, to;
	const char *why;
	uint32_t synd;
	int ret;

	CHECK_RESERVED(c, in->reserved0);
	CHECK_RESERVED(c, in->reserved1);
	CHECK_RESERVED(c, in->ctx.reserved);
	if (flags & ~ORCA_MODIFY_F_ECE)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS,
			    "unknown MODIFY_QP flags 0x%x", flags);
	if (mask & ~ORCA_QP_ATTR_ALL)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_INVALID_ATTR,
			    "unknown attr_mask bits 0x%x", mask);
	qp = qp_get(dev, qpn);
	if (!qp)
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no QP %u", qpn);
	if ((flags & ORCA_MODIFY_F_ECE) && !orca_cfg_has_ece(&dev->cfg))
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_ECE,
			    "ECE requested but not enabled");

	cur = qp->ctx.state;
	if (mask & ORCA_QP_CUR_STATE) {
		if (in->cur_state > ORCA_QPS_ERR)
			return fail(c, ORCA_STATUS_BAD_PARAM,
				    ORCA_SYND_ATTR_RANGE, "cur_state %u",
				    in->cur_state);
		if (in->cur_state != cur)
			return fail(c, ORCA_STATUS_BAD_QP_STATE,
				    ORCA_SYND_TRANSITION,
				    "QP %u: cur_state %s but QP is %s", qpn,
				    orca_qps_name(in->cur_state),
				    orca_qps_name(cur));
	}
	to = (mask & ORCA_QP_STATE) ? in->ctx.state : cur;
	if (to > ORCA_QPS_ERR)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "state %u", to);
	ret = orca_qp_check_transition(qp->ctx.qp_type, cur, to, mask, &synd,
				       &why);
	if (ret)
		return fail(c, ret, synd, "QP %u %s %s->%s mask 0x%x: %s", qpn,
			    qp->ctx.qp_type == ORCA_QPT_RC ? "RC" :
			    qp->ctx.qp_type == ORCA_QPT_UC ? "UC" : "UD",
			    orca_qps_name(cur), orca_qps_name(to), mask, why);
	/* IBTA: SQD attributes may change only once the SQ has drained. */
	if (cur == ORCA_QPS_SQD && to == ORCA_QPS_SQD && qp->ctx.sq_draining)
		return fail(c, ORCA_STATUS_BAD_QP_STATE, ORCA_SYND_TRANSITION,
			    "QP %u: SQD->SQD while the SQ is still draining",
			    qpn);
	ret = check_attrs(dev, c, mask, &in->ctx);
	if (ret)
		return ret;

	if (to == ORCA_QPS_RESET) {
		next = qp->dflt;
	} else {
		next = qp->ctx;
		apply_attrs(&next, mask, &in->ctx);
		next.state = to;
	}
	if (cur == ORCA_QPS_RTS && to == ORCA_QPS_SQD) {
		next.sq_draining = 1;
		if (!(mask & ORCA_QP_EN_SQD_ASYNC_NOTIFY))
			next.en_sqd_async_notify = 0;
	} else if (to != ORCA_QPS_SQD) {
		next.sq_draining = 0;
	}
	/* ECE is negotiated while the connection is being established. */
	if ((flags & ORCA_MODIFY_F_ECE) &&
	    ((cur == ORCA_QPS_INIT && to == ORCA_QPS_RTR) ||
	     (cur == ORCA_QPS_RTR && to == ORCA_QPS_RTS)))
		next.ece_options = htole32(le32toh(in->ece_options) &
					   dev->cfg.ece_options);

	/* RC: the responder keeps max_dest_rd_atomic READs and atomics */
	if (qp->ctx.qp_type == ORCA_QPT_RC &&
	    rd_res_resize(qp, next.max_dest_rd_atomic))
		return fail(c, ORCA_STATUS_NO_RESOURCES, ORCA_SYND_NONE,
			    "QP %u: no memory for %u READ/atomic resources",
			    qpn, next.max_dest_rd_atomic);
	if (next.sq_draining && !qp->ctx.sq_draining)
		dev->n_draining++;
	else if (!next.sq_draining && qp->ctx.sq_draining)
		dev->n_draining--;
	qp->ctx = next;
	mirror_write(dev, qpn, &qp->ctx);
	dp_qp_state(dev, qp, cur);
	/* a new state may have work: RTS sends, ERR flushes */
	qp_sched(dev, qp);
	memcpy(c->out, &qp->ctx, sizeof(qp->ctx));
	return ORCA_STATUS_OK;
}

int cmd_query_qp(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_qp_handle *in = c->in;
	uint32_t qpn = le32toh(in->qpn);
	struct orca_qp *qp;

	CHECK_RESERVED(c, in->reserved);
	qp = qp_get(dev, qpn);
	if (!qp)
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no QP %u", qpn);
	memcpy(c->out, &qp->ctx, sizeof(qp->ctx));
	return ORCA_STATUS_OK;
}

int cmd_destroy_qp(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_qp_handle *in = c->in;
	uint32_t qpn = le32toh(in->qpn);
	struct orca_qp *qp;

	CHECK_RESERVED(c, in->reserved);
	qp = qp_get(dev, qpn);
	if (!qp)
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no QP %u", qpn);
	dev->pds[le32toh(qp->ctx.pdn)].qp_refs--;
	dev->cqs[le32toh(qp->ctx.send_cqn)].qp_refs--;
	dev->cqs[le32toh(qp->ctx.recv_cqn)].qp_refs--;
	if (qp->ctx.srqn) {
		/* the SRQ WQE it was filling completes, flushed */
		if (qp->ctx.state != ORCA_QPS_RESET)
			rwqe_flush(dev, qp);
		dev->srqs[le32toh(qp->ctx.srqn)].qp_refs--;
	}
	if (qp->ctx.sq_draining)
		dev->n_draining--;
	mw_qp_gone(dev, qp);
	mcast_qp_gone(dev, qp);
	qp_queues_destroy(qp);
	qp_live_del(dev, qp);
	free(qp);
	dev->qps[qpn] = NULL;
	if (qpn >= ORCA_QPN_BASE)
		dev->n_qps--;
	mirror_write(dev, qpn, NULL);
	return ORCA_STATUS_OK;
}

/*
 * ATTACH_MCAST / DETACH_MCAST: a UD QP of the host's (not QP0 or QP1),
 * a multicast LID and a multicast GID (IBA 4.1.1: first byte 0xff).
 */
static struct orca_qp *mcast_qp(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_mcast_in *in = c->in;
	uint32_t qpn = le32toh(in->qpn);
	uint16_t mlid = le16toh(in->mlid);
	struct orca_qp *qp;

	if (!dev->cfg.max_mcast_grp) {
		fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_NONE,
		     "multicast disabled (max_mcast_grp 0)");
		return NULL;
	}
	if (in->reserved[0] || in->reserved[1]) {
		fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RESERVED_NZ,
		     "reserved bytes not zero");
		return NULL;
	}
	qp = qpn >= ORCA_QPN_BASE ? qp_get(dev, qpn) : NULL;
	if (!qp) {
		fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
		     "no QP %u to attach", qpn);
		return NULL;
	}
	if (qp->ctx.qp_type != ORCA_QPT_UD) {
		fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_QP_TYPE,
		     "QP %u is not UD", qpn);
		return NULL;
	}
	if (!mlid_is_mcast(mlid) || in->mgid[0] != 0xff) {
		fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_INVALID_ATTR,
		     "LID 0x%x / GID %02x..: not a multicast address", mlid,
		     in->mgid[0]);
		return NULL;
	}
	return qp;
}

int cmd_attach_mcast(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_mcast_in *in = c->in;
	struct orca_qp *qp = mcast_qp(dev, c);
	const char *why = NULL;
	int st;

	if (!qp)
		return c->status;
	st = mcast_attach(dev, qp, le16toh(in->mlid), in->mgid, &why);
	if (st != ORCA_STATUS_OK)
		return fail(c, st, ORCA_SYND_LIMIT, "QP %u not attached: %s",
			    le32toh(in->qpn), why);
	return ORCA_STATUS_OK;
}

int cmd_detach_mcast(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_mcast_in *in = c->in;
	struct orca_qp *qp = mcast_qp(dev, c);

	if (!qp)
		return c->status;
	if (!mcast_detach(dev, qp, le16toh(in->mlid), in->mgid))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_INVALID_ATTR,
			    "QP %u is not attached to MLID 0x%x",
			    le32toh(in->qpn), le16toh(in->mlid));
	return ORCA_STATUS_OK;
}
