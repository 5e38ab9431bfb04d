// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: shared receive queues (CREATE, MODIFY, QUERY,
 * DESTROY_SRQ) and what a QP's responder takes from them.
 *
 * An SRQ is a ring of receive WQEs in guest memory with a producer index
 * in its doorbell record.  QPs attached to it take WQEs in ring order;
 * the device copies a WQE when it takes it, so the slot is free for the
 * consumer at once, and the WQE's wqe_id names it in the completion (SRQ
 * WQEs complete in any order across QPs).  The limit event fires once,
 * when a take leaves fewer WQEs posted than the armed limit.
 */
#include "orca_dp.h"

static bool srq_busy(struct orca_dev *dev, uint32_t h)
{
	return dev->srqs[h].used;
}

struct orca_srq *srq_get(struct orca_dev *dev, uint32_t srqn)
{
	if (!srqn || srqn > dev->cfg.max_srq || !dev->srqs[srqn].used)
		return NULL;
	return &dev->srqs[srqn];
}

/* Geometry of the ring and its record, then the page list. */
static int srq_ring(struct orca_dev *dev, struct cmd *c, struct orca_srq *srq,
		    const struct orca_create_srq_in *in, uint32_t max_sge)
{
	uint32_t db = le32toh(in->dbrec_off);
	uint64_t ring_bytes;
	char why[160];

	if (in->log_depth > 24 ||
	    (1ULL << in->log_depth) < le32toh(in->max_wr) ||
	    (1U << in->log_depth) > roundup_pow2(dev->cfg.max_srq_wr))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RING,
			    "SRQ ring of 2^%u entries for %u WRs (max_srq_wr %llu)",
			    in->log_depth, le32toh(in->max_wr),
			    (unsigned long long)dev->cfg.max_srq_wr);
	if (in->log_stride < orca_rq_log_stride(max_sge) ||
	    in->log_stride > ORCA_RQ_MAX_LOG_STRIDE)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RING,
			    "SRQ stride 2^%u, needs 2^%u..2^%u", in->log_stride,
			    orca_rq_log_stride(max_sge), ORCA_RQ_MAX_LOG_STRIDE);
	ring_bytes = 1ULL << (in->log_depth + in->log_stride);
	if ((db & 7) || db < ring_bytes)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RING,
			    "SRQ doorbell record at %u misaligned or inside the ring",
			    db);
	if (!pages_copy_in(dev, &in->ring, &srq->ring,
			   (uint64_t)db + sizeof(struct orca_srq_dbrec), why,
			   sizeof(why)))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_PAGE_LIST,
			    "SRQ ring: %s", why);
	srq->log_depth = in->log_depth;
	srq->log_stride = in->log_stride;
	srq->dbrec_off = db;
	return ORCA_STATUS_OK;
}

int cmd_create_srq(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_create_srq_in *in = c->in;
	const struct orca_cfg *g = &dev->cfg;
	struct orca_srq_attr *o = c->out;
	uint32_t pdn = le32toh(in->pdn), wr = le32toh(in->max_wr);
	uint32_t sge = le32toh(in->max_sge), limit = le32toh(in->limit);
	struct orca_srq srq = { .used = true };
	uint32_t srqn, actual;
	int ret;

	CHECK_RESERVED(c, in->reserved);
	if (!g->max_srq)
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_NONE,
			    "no SRQs (max_srq 0)");
	if (!pd_get(dev, pdn))
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no PD %u", pdn);
	if (!wr || wr > g->max_srq_wr || sge > g->max_srq_sge)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "max_wr %u (1..%llu), max_sge %u (max %llu)", wr,
			    (unsigned long long)g->max_srq_wr, sge,
			    (unsigned long long)g->max_srq_sge);
	actual = roundup_pow2(wr);
	if (actual > g->max_srq_wr)
		actual = g->max_srq_wr;
	if (limit > actual)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "limit %u > max_wr %u", limit, actual);
	if (dev->n_srqs >= g->max_srq)
		return fail(c, ORCA_STATUS_NO_RESOURCES, ORCA_SYND_LIMIT,
			    "max_srq %llu reached",
			    (unsigned long long)g->max_srq);
	ret = srq_ring(dev, c, &srq, in, sge);
	if (ret)
		return ret;
	srqn = rr_next(&dev->next_srqn, 1, g->max_srq + 1, srq_busy, dev);
	srq.pdn = pdn;
	srq.max_wr = actual;
	srq.max_sge = sge;
	srq.limit = limit;
	dev->srqs[srqn] = srq;
	dev->n_srqs++;
	dev->pds[pdn].srq_refs++;
	o->srqn = htole32(srqn);
	o->max_wr = htole32(actual);
	o->max_sge = htole32(sge);
	o->limit = htole32(limit);
	return ORCA_STATUS_OK;
}

int cmd_modify_srq(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_modify_srq_in *in = c->in;
	uint32_t srqn = le32toh(in->srqn), mask = le32toh(in->attr_mask);
	uint32_t limit = le32toh(in->limit);
	struct orca_srq *srq;

	if (mask & ~(ORCA_SRQ_MAX_WR | ORCA_SRQ_LIMIT))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_INVALID_ATTR,
			    "unknown SRQ attr_mask bits 0x%x", mask);
	srq = srq_get(dev, srqn);
	if (!srq)
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no SRQ %u", srqn);
	if (mask & ORCA_SRQ_MAX_WR)
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_INVALID_ATTR,
			    "SRQ %u: resizing is not supported", srqn);
	if ((mask & ORCA_SRQ_LIMIT) && limit > srq->max_wr)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "SRQ %u: limit %u > max_wr %u", srqn, limit,
			    srq->max_wr);
	if (mask & ORCA_SRQ_LIMIT)
		srq->limit = limit;
	return ORCA_STATUS_OK;
}

int cmd_query_srq(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_srq_handle *in = c->in;
	uint32_t srqn = le32toh(in->srqn);
	struct orca_srq_attr *o = c->out;
	struct orca_srq *srq;

	CHECK_RESERVED(c, in->reserved);
	srq = srq_get(dev, srqn);
	if (!srq)
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no SRQ %u", srqn);
	o->srqn = htole32(srqn);
	o->max_wr = htole32(srq->max_wr);
	o->max_sge = htole32(srq->max_sge);
	o->limit = htole32(srq->limit);
	return ORCA_STATUS_OK;
}

int cmd_destroy_srq(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_srq_handle *in = c->in;
	uint32_t srqn = le32toh(in->srqn);
	struct orca_srq *srq;

	CHECK_RESERVED(c, in->reserved);
	srq = srq_get(dev, srqn);
	if (!srq)
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no SRQ %u", srqn);
	if (srq->qp_refs)
		return fail(c, ORCA_STATUS_BAD_RES_STATE, ORCA_SYND_IN_USE,
			    "SRQ %u still used by %u QPs", srqn, srq->qp_refs);
	dev->pds[srq->pdn].srq_refs--;
	pages_free(&srq->ring);
	memset(srq, 0, sizeof(*srq));
	dev->n_srqs--;
	return ORCA_STATUS_OK;
}

void srq_destroy_all(struct orca_dev *dev)
{
	uint32_t i;

	for (i = 0; dev->srqs && i <= dev->cfg.max_srq; i++)
		pages_free(&dev->srqs[i].ring);
	if (dev->srqs)
		memset(dev->srqs, 0, (dev->cfg.max_srq + 1) * sizeof(*dev->srqs));
	dev->n_srqs = 0;
}

static void srq_limit_event(struct orca_dev *dev, uint32_t srqn,
			    struct orca_srq *srq)
{
	struct orca_eqe eqe;

	memset(&eqe, 0, sizeof(eqe));
	eqe.type = ORCA_EQE_SRQ_LIMIT;
	eqe.srq.srqn = htole32(srqn);
	post_async_kept(dev, &eqe, &srq->limit_event_pending);
}

/* post_deferred(): the SRQ_LIMIT events kept; returns how many still wait. */
uint32_t srq_post_deferred(struct orca_dev *dev)
{
	uint32_t srqn, left = 0;

	for (srqn = 1; srqn <= dev->cfg.max_srq; srqn++) {
		struct orca_srq *srq = &dev->srqs[srqn];

		if (!srq->used || !srq->limit_event_pending)
			continue;
		srq_limit_event(dev, srqn, srq);
		left += srq->limit_event_pending;
	}
	return left;
}

/*
 * The next WQE of @qp's SRQ, copied into its responder (have_rwqe with
 * the WQE's wqe_id, the SRQ's PD for its SGEs).  The WQE is consumed even
 * when it turns out malformed: its completion reports the error.
 */
enum rwqe_take srq_take(struct orca_dev *dev, struct orca_qp *qp)
{
	uint32_t srqn = le32toh(qp->ctx.srqn), pi, left;
	struct orca_srq *srq = srq_get(dev, srqn);
	struct orca_srq_dbrec *db;
	const uint8_t *w;
	enum rwqe_take ret;

	if (!srq)
		return RWQE_NONE;
	db = pages_ptr(dev, &srq->ring, srq->dbrec_off, sizeof(*db));
	if (!db)
		return RWQE_NONE;
	pi = le32toh(__atomic_load_n(&db->pi, __ATOMIC_ACQUIRE));
	if (pi == srq->ci)
		return RWQE_NONE;
	if (pi - srq->ci > (1U << srq->log_depth))
		return RWQE_BAD_INDEX;
	w = pages_ptr(dev, &srq->ring,
		      (uint64_t)(srq->ci & ((1U << srq->log_depth) - 1))
		      << srq->log_stride, 1U << srq->log_stride);
	ret = rwqe_load(&qp->resp, w, 1U << srq->log_stride, srq->max_sge,
			true, srq->ci);
	qp->resp.rpdn = srq->pdn;
	srq->ci++;
	left = pi - srq->ci;
	if (srq->limit && left < srq->limit) {
		orca_log("SRQ %u: %u WQEs left, below the limit %u", srqn,
			 left, srq->limit);
		srq->limit = 0;
		srq_limit_event(dev, srqn, srq);
	}
	return ret;
}
