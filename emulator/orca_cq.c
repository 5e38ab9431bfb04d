// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: completion queue rings.
 *
 * The device writes a CQE's fields, then its owner byte (release); the
 * consumer publishes how far it has read in the CQ's doorbell record.
 * The device reads that record only when the ring looks full, and a CQ
 * that is really full is overrun: it reports CQ_ERROR once and takes no
 * more entries (IBTA: the CQ is then unusable).
 */
#include "orca_res.h"

int cq_ring_create(struct orca_dev *dev, struct cmd *c, struct orca_cq *cq,
		   const struct orca_create_cq_in *in)
{
	uint32_t cqe = le32toh(in->cqe), off = le32toh(in->dbrec_off);
	uint64_t ring_bytes;
	char why[160];

	if (in->log_depth > 24 || (1ULL << in->log_depth) <= cqe)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RING,
			    "CQ ring of 2^%u entries for %u CQEs",
			    in->log_depth, cqe);
	ring_bytes = (uint64_t)sizeof(struct orca_cqe) << in->log_depth;
	if ((off & 7) || off < ring_bytes)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RING,
			    "CQ doorbell record at %u overlaps or is misaligned",
			    off);
	if (!pages_copy_in(dev, &in->ring, &cq->ring,
			   (uint64_t)off + sizeof(struct orca_cq_dbrec), why,
			   sizeof(why)))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_PAGE_LIST,
			    "CQ ring: %s", why);
	if (cq->ring.shift < ORCA_CQE_LOG_SIZE) {
		pages_free(&cq->ring);
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_PAGE_LIST,
			    "CQ ring pages smaller than a CQE");
	}
	cq->log_depth = in->log_depth;
	cq->dbrec_off = off;
	cq->pi = cq->ci = cq->sol_pi = 0;
	cq->overrun = false;
	return ORCA_STATUS_OK;
}

void cq_ring_destroy(struct orca_cq *cq)
{
	pages_free(&cq->ring);
}

static uint32_t cq_read_ci(struct orca_dev *dev, struct orca_cq *cq)
{
	struct orca_cq_dbrec *db = pages_ptr(dev, &cq->ring, cq->dbrec_off,
					     sizeof(*db));

	if (!db)
		return cq->ci;
	return le32toh(__atomic_load_n(&db->ci, __ATOMIC_ACQUIRE));
}

static void cq_error_eqe(struct orca_eqe *eqe, uint32_t cqn)
{
	memset(eqe, 0, sizeof(*eqe));
	eqe->type = ORCA_EQE_CQ_ERROR;
	eqe->cq.cqn = htole32(cqn);
	eqe->cq.syndrome = htole32(1);
}

static void cq_overrun(struct orca_dev *dev, uint32_t cqn, struct orca_cq *cq)
{
	struct orca_eqe eqe;

	cq->overrun = true;
	dev->stats.cq_overruns++;
	orca_log("CQ %u overrun (pi %u, ci %u, depth %u): CQ in error", cqn,
		 cq->pi, cq->ci, 1U << cq->log_depth);
	cq_error_eqe(&eqe, cqn);
	post_async_kept(dev, &eqe, &cq->err_event_pending);
}

/* post_deferred(): the CQ_ERROR events kept; returns how many still wait. */
uint32_t cq_post_deferred(struct orca_dev *dev)
{
	struct orca_eqe eqe;
	uint32_t cqn, left = 0;

	for (cqn = 1; cqn <= dev->cfg.max_cq; cqn++) {
		struct orca_cq *cq = &dev->cqs[cqn];

		if (!cq->used || !cq->err_event_pending)
			continue;
		cq_error_eqe(&eqe, cqn);
		if (!post_async_kept(dev, &eqe, &cq->err_event_pending))
			left++;
	}
	return left;
}

/*
 * Completion EQ: like EQ 0 (orca_eq.c eq_post), with the ceq registers.
 * A full completion EQ drops the event, counts it in ceq_overflows and
 * interrupts all the same: the driver may have read ceq_overflows just
 * before this drop, and without an interrupt it would not look again
 * (it answers a drop with an event for every CQ).
 */
static void ceq_post(struct orca_dev *dev, uint32_t cqn)
{
	uint32_t depth = 1U << dev->ceq_log_depth;
	uint32_t ci = REG_RD32(dev, ceq_ci);
	struct orca_eqe eqe;

	if (!dev->ceq_base || !dev->armed || dev->fatal)
		return;
	if (dev->ceq_log_depth > ORCA_EMU_EQ_MAX_LOG_DEPTH ||
	    !ring_ok(dev, dev->ceq_base, dev->ceq_log_depth) ||
	    dev->ceq_pi - ci >= depth) {
		dev->ceq_overflows++;
		dev->stats.comp_events_lost++;
		REG_WR32(dev, ceq_overflows, dev->ceq_overflows);
		orca_log("completion EQ full or unusable: event for CQ %u dropped (ceq_overflows %u)",
			 cqn, dev->ceq_overflows);
		dev->comp_irq_pending |= dev->irq_enabled;
		return;
	}
	memset(&eqe, 0, sizeof(eqe));
	eqe.type = ORCA_EQE_COMP;
	eqe.comp.cqn = htole32(cqn);
	if (dma_write(dev, dev->ceq_base +
		      (uint64_t)(dev->ceq_pi & (depth - 1)) * sizeof(eqe),
		      &eqe, sizeof(eqe)))
		return;
	dev->stats.dma_writes++;
	dev->stats.comp_events++;
	dev->ceq_pi++;
	REG_WR32(dev, ceq_pi, dev->ceq_pi);
	dev->comp_irq_pending |= dev->irq_enabled;
}

/*
 * An event if the CQ's arm word asks for one not yet raised: for any
 * CQE, or with ORCA_CQ_ARM_SOLICITED only if @solicited.
 */
static bool cq_arm_fire(struct orca_dev *dev, uint32_t cqn,
			struct orca_cq *cq, bool solicited)
{
	struct orca_cq_dbrec *db = pages_ptr(dev, &cq->ring, cq->dbrec_off,
					     sizeof(*db));
	uint32_t arm, sn;

	if (!db)
		return false;
	arm = le32toh(__atomic_load_n(&db->arm, __ATOMIC_ACQUIRE));
	sn = arm >> ORCA_CQ_ARM_SN_SHIFT;
	if (!(arm & ORCA_CQ_ARM_NEXT) || (cq->fired && cq->fired_sn == sn) ||
	    ((arm & ORCA_CQ_ARM_SOLICITED) && !solicited))
		return false;
	cq->fired = true;
	cq->fired_sn = sn;
	ceq_post(dev, cqn);
	return true;
}

/* After a CQE: an event if the CQ is armed for it and not yet fired. */
static void cq_arm_check(struct orca_dev *dev, uint32_t cqn,
			 struct orca_cq *cq, bool solicited)
{
	/* the CQE before the arm word: seq_cst orders the store and load */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	cq_arm_fire(dev, cqn, cq, solicited);
}

/*
 * Every heartbeat, a CQ armed while it holds CQEs its consumer has not
 * taken gets the event it asked for (orca_hw_io.h).  The consumer stores
 * its arm, then looks for a CQE; the device stores a CQE, then reads the
 * arm.  If the host does not keep the consumer's store before its load,
 * both may miss the other and no event would ever come: QEMU before 8.1
 * drops a TCG guest's memory barriers when one thread runs all its vCPUs
 * (thread=single), though the device is another process.
 */
void cq_arm_sweep(struct orca_dev *dev)
{
	uint32_t cqn, ci;

	for (cqn = 1; cqn <= dev->cfg.max_cq; cqn++) {
		struct orca_cq *cq = &dev->cqs[cqn];

		if (!cq->used || !cq->ring.n || cq->overrun ||
		    cq->pi == cq->ci)
			continue;
		ci = cq_read_ci(dev, cq);
		/* a consumer index ahead of pi is garbage: no event for it */
		if (cq->pi - ci > 1U << cq->log_depth)
			continue;
		cq->ci = ci;
		if (ci != cq->pi &&
		    cq_arm_fire(dev, cqn, cq, (int32_t)(cq->sol_pi - ci) > 0))
			dev->stats.comp_events_late++;
	}
}

bool cq_post(struct orca_dev *dev, uint32_t cqn, struct orca_cqe *cqe,
	     bool solicited)
{
	struct orca_cq *cq = &dev->cqs[cqn];
	uint32_t depth, slot;
	struct orca_cqe *dst;

	if (!cqn || cqn > dev->cfg.max_cq || !cq->used || !cq->ring.n ||
	    cq->overrun)
		return false;
	depth = 1U << cq->log_depth;
	if (cq->pi - cq->ci >= depth) {
		cq->ci = cq_read_ci(dev, cq);
		/* a consumer index ahead of pi is garbage: treat as full */
		if (cq->pi - cq->ci >= depth) {
			cq_overrun(dev, cqn, cq);
			return false;
		}
	}
	slot = cq->pi & (depth - 1);
	dst = pages_ptr(dev, &cq->ring, (uint64_t)slot << ORCA_CQE_LOG_SIZE,
			sizeof(*dst));
	if (!dst)
		return false;
	cqe->timestamp = 0;
	cqe->real_time = 0;
	if (cq->timestamp) {
		cqe->timestamp = htole64(dp_clock_ticks(dp_now_ns(),
					 dev->cfg.hca_core_clock,
					 dev->cfg.completion_timestamp_mask));
		cqe->real_time = htole64(dp_real_time_ns());
	}
	cqe->owner = 0;
	memcpy(dst, cqe, offsetof(struct orca_cqe, owner));
	__atomic_store_n(&dst->owner, 1 + ((cq->pi >> cq->log_depth) & 1),
			 __ATOMIC_RELEASE);
	cq->pi++;
	dev->stats.cqes++;
	dev->stats.dma_writes++;
	if (cqe->status)
		dev->stats.cqe_errors++;
	/* IBTA: an error completion satisfies a solicited-only arm too */
	if (solicited || cqe->status)
		cq->sol_pi = cq->pi;
	cq_arm_check(dev, cqn, cq, solicited || cqe->status);
	return true;
}
