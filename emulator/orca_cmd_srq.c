// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the shared receive queue commands CREATE_SRQ,
 * MODIFY_SRQ, QUERY_SRQ and DESTROY_SRQ (taking WQEs and the limit
 * event: orca_srq.c).
 */
#include "orca_cmd.h"

static bool srq_busy(struct orca_dev *dev, uint32_t h)
{
	return dev->srqs[h].used;
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
