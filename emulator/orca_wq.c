// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: a QP's work queues in its buffer.
 *
 * The geometry is checked once, at CREATE_QP; afterwards every entry and
 * the doorbell record are reached through the QP's copied page list, and
 * producer indices are re-read and checked each time they are used.
 */
#include "orca_res.h"

static uint32_t pow2_ceil(uint32_t v)
{
	return v <= 1 ? v : 1U << orca_ilog2_up(v);
}

/* One queue of @wr entries (0: none) at @off; returns its end or 0. */
static int wq_setup(struct orca_dev *dev, struct cmd *c, struct orca_wq *wq,
		    const char *name, uint32_t wr, unsigned int log_depth,
		    unsigned int log_stride, unsigned int min_stride,
		    unsigned int max_stride, uint64_t off, uint64_t *end)
{
	memset(wq, 0, sizeof(*wq));
	if (!wr) {
		if (log_depth || log_stride)
			return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RING,
				    "%s of 0 WRs with depth 2^%u stride 2^%u",
				    name, log_depth, log_stride);
		*end = off;
		return ORCA_STATUS_OK;
	}
	if (log_depth > 24 || (1U << log_depth) < wr ||
	    (1U << log_depth) > pow2_ceil(dev->cfg.max_qp_wr))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RING,
			    "%s of 2^%u entries for %u WRs (max_qp_wr %llu)",
			    name, log_depth, wr,
			    (unsigned long long)dev->cfg.max_qp_wr);
	if (log_stride < min_stride || log_stride > max_stride)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RING,
			    "%s stride 2^%u, needs 2^%u..2^%u", name, log_stride,
			    min_stride, max_stride);
	if (off & ((1ULL << log_stride) - 1))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RING,
			    "%s at offset %llu not aligned to its stride", name,
			    (unsigned long long)off);
	wq->present = true;
	wq->log_depth = log_depth;
	wq->log_stride = log_stride;
	wq->off = off;
	*end = off + ((uint64_t)1 << (log_depth + log_stride));
	return ORCA_STATUS_OK;
}

int qp_queues_create(struct orca_dev *dev, struct cmd *c, struct orca_qp *qp,
		     const struct orca_create_qp_in *in)
{
	const struct orca_qp_ctx *x = &qp->ctx;
	uint32_t rq_off = le32toh(in->rq_off), db = le32toh(in->dbrec_off);
	uint64_t sq_end, rq_end;
	char why[160];
	int ret;

	if (!in->ring.npages && all_zero(&in->ring, sizeof(in->ring))) {
		if (in->sq_log_depth || in->sq_log_stride || in->rq_log_depth ||
		    in->rq_log_stride || rq_off || db)
			return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RING,
				    "queue geometry without a ring");
		return ORCA_STATUS_OK;	/* no queues: carries no data */
	}
	ret = wq_setup(dev, c, &qp->sq, "SQ", le32toh(x->max_send_wr),
		       in->sq_log_depth, in->sq_log_stride,
		       orca_sq_log_stride(le32toh(x->max_send_sge),
					  le32toh(x->max_inline_data)),
		       ORCA_SQ_MAX_LOG_STRIDE, 0, &sq_end);
	if (ret)
		return ret;
	if (!le32toh(x->max_recv_wr))
		rq_off = sq_end;
	if (rq_off < sq_end)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RING,
			    "RQ at %u overlaps the SQ (ends at %llu)", rq_off,
			    (unsigned long long)sq_end);
	ret = wq_setup(dev, c, &qp->rq, "RQ", le32toh(x->max_recv_wr),
		       in->rq_log_depth, in->rq_log_stride,
		       orca_rq_log_stride(le32toh(x->max_recv_sge)),
		       ORCA_RQ_MAX_LOG_STRIDE, rq_off, &rq_end);
	if (ret)
		return ret;
	if ((db & 7) || db < rq_end)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RING,
			    "doorbell record at %u misaligned or inside a queue",
			    db);
	if (!pages_copy_in(dev, &in->ring, &qp->ring,
			   (uint64_t)db + sizeof(struct orca_qp_dbrec), why,
			   sizeof(why)))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_PAGE_LIST,
			    "QP ring: %s", why);
	qp->dbrec_off = db;
	return ORCA_STATUS_OK;
}

void qp_queues_destroy(struct orca_qp *qp)
{
	pages_free(&qp->ring);
	rd_res_free(qp);
}

static uint32_t dbrec_read(struct orca_dev *dev, struct orca_qp *qp,
			   size_t field, bool *ok)
{
	__le32 *v = pages_ptr(dev, &qp->ring, qp->dbrec_off + field, 4);

	*ok = v != NULL;
	return v ? le32toh(__atomic_load_n(v, __ATOMIC_ACQUIRE)) : 0;
}

uint32_t qp_sq_pi(struct orca_dev *dev, struct orca_qp *qp, bool *ok)
{
	return dbrec_read(dev, qp, offsetof(struct orca_qp_dbrec, sq_pi), ok);
}

uint32_t qp_rq_pi(struct orca_dev *dev, struct orca_qp *qp, bool *ok)
{
	return dbrec_read(dev, qp, offsetof(struct orca_qp_dbrec, rq_pi), ok);
}

static void *wq_entry(struct orca_dev *dev, struct orca_qp *qp,
		      const struct orca_wq *wq, uint32_t idx)
{
	uint64_t slot = idx & ((1U << wq->log_depth) - 1);

	if (!wq->present)
		return NULL;
	return pages_ptr(dev, &qp->ring, wq->off + (slot << wq->log_stride),
			 1U << wq->log_stride);
}

void *sq_wqe(struct orca_dev *dev, struct orca_qp *qp, uint32_t idx)
{
	return wq_entry(dev, qp, &qp->sq, idx);
}

void *rq_wqe(struct orca_dev *dev, struct orca_qp *qp, uint32_t idx)
{
	return wq_entry(dev, qp, &qp->rq, idx);
}

/*
 * Copy the receive WQE at @w (@stride bytes) into the responder: it is
 * taken from now on, whatever it holds.  In an SRQ it is named by its
 * wqe_id, in a QP's receive queue by its index @idx.
 */
enum rwqe_take rwqe_load(struct orca_resp *s, const uint8_t *w,
			 uint32_t stride, uint32_t max_sge, bool srq,
			 uint32_t idx)
{
	struct orca_recv_wqe h;

	s->have_rwqe = true;
	s->rwqe_srq = srq;
	s->rwqe_idx = idx;
	s->roff = 0;
	s->rnum_sge = 0;
	if (!w)
		return RWQE_MALFORMED;
	memcpy(&h, w, sizeof(h));
	if (srq)
		s->rwqe_idx = le32toh(h.wqe_id);
	if (le32toh(h.num_sge) > max_sge ||
	    sizeof(h) + le32toh(h.num_sge) * sizeof(struct orca_sge) > stride)
		return RWQE_MALFORMED;
	s->rnum_sge = le32toh(h.num_sge);
	memcpy(s->rsge, w + sizeof(h), s->rnum_sge * sizeof(struct orca_sge));
	return RWQE_OK;
}

/* The WQE at rq.ci of the QP's own receive queue. */
enum rwqe_take rq_take(struct orca_dev *dev, struct orca_qp *qp)
{
	bool ok = false;
	uint32_t pi;

	pi = qp->rq.present ? qp_rq_pi(dev, qp, &ok) : 0;
	if (!ok || pi == qp->rq.ci)
		return RWQE_NONE;
	if (pi - qp->rq.ci > (1U << qp->rq.log_depth))
		return RWQE_BAD_INDEX;
	qp->resp.rpdn = le32toh(qp->ctx.pdn);
	return rwqe_load(&qp->resp, rq_wqe(dev, qp, qp->rq.ci),
			 1U << qp->rq.log_stride, le32toh(qp->ctx.max_recv_sge),
			 false, qp->rq.ci);
}
