// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: shared receive queues, what a QP's responder takes
 * from them, and their limit event (the commands: orca_cmd_srq.c).
 *
 * An SRQ is a ring of receive WQEs in guest memory with a producer index
 * in its doorbell record.  QPs attached to it take WQEs in ring order;
 * the device copies a WQE when it takes it, so the slot is free for the
 * consumer at once, and the WQE's wqe_id names it in the completion (SRQ
 * WQEs complete in any order across QPs).  The limit event fires once,
 * when a take leaves fewer WQEs posted than the armed limit.
 */
#include "orca_res.h"

struct orca_srq *srq_get(struct orca_dev *dev, uint32_t srqn)
{
	if (!srqn || srqn > dev->cfg.max_srq || !dev->srqs[srqn].used)
		return NULL;
	return &dev->srqs[srqn];
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
