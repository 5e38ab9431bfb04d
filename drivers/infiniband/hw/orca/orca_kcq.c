// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues of kernel consumers.  The ring and its doorbell record
 * are the provider's format (orca_hw_io.h) in coherent memory the driver
 * allocates; the kernel polls and arms them as libibverbs does in user
 * space.  One queue format for both, as rxe has: the device does not know
 * who owns a ring.
 */

#include "orca.h"
#include "orca_attr.h"

/* Ring of 2^log_depth CQEs, then the doorbell record: one buffer. */
int orca_kcq_create(struct orca_dev *dev, struct orca_cq *cq, u32 cqe,
		    struct orca_create_cq_in *in, struct orca_pbl_buf *buf)
{
	/* the device wants more slots than CQEs: 2^n > cqe */
	unsigned int log_depth = order_base_2(cqe + 1);
	size_t ring = sizeof(struct orca_cqe) << log_depth;
	int err;

	err = orca_kbuf_alloc(dev, &cq->kbuf, ring + sizeof(*cq->dbrec),
			      &in->ring, buf);
	if (err)
		return err;
	spin_lock_init(&cq->lock);
	INIT_LIST_HEAD(&cq->send_qps);
	INIT_LIST_HEAD(&cq->recv_qps);
	cq->kernel = true;
	cq->ci = 0;
	cq->arm_sn = 0;
	cq->dbrec = orca_kbuf_ptr(&cq->kbuf, ring);
	in->log_depth = log_depth;
	in->dbrec_off = cpu_to_le32(ring);
	cq->dbrec_off = ring;
	cq->log_depth = log_depth;
	return 0;
}

void orca_kcq_destroy(struct orca_dev *dev, struct orca_cq *cq)
{
	orca_kbuf_release(dev, &cq->kbuf);
	cq->dbrec = NULL;
}

/*
 * The completion EQ said the CQ fired: the next arm is a new one (the
 * device fires once per sequence number).  Also called for events that
 * may have been lost, where a spurious step costs at most one event.
 */
void orca_kcq_event(struct orca_cq *cq)
{
	unsigned long flags;

	if (!cq->kernel)
		return;
	spin_lock_irqsave(&cq->lock, flags);
	cq->arm_sn++;
	spin_unlock_irqrestore(&cq->lock, flags);
}

/**
 * orca_kcq_take_arm - an event the driver raises itself: is it due?
 * @cq: the CQ
 *
 * For events the device did not post (it dropped them, or it is dead).
 * A kernel CQ is due one if its consumer armed it and no event answered
 * the arm yet; the arm is used up then.  ib_core never arms a CQ it polls
 * directly and warns at an event for it.  A user CQ's arm is in user
 * memory: it always gets one, which costs its consumer an empty poll.
 */
bool orca_kcq_take_arm(struct orca_cq *cq)
{
	unsigned long flags;
	bool armed;
	u32 arm;

	if (!cq->kernel)
		return true;
	spin_lock_irqsave(&cq->lock, flags);
	arm = le32_to_cpu(READ_ONCE(cq->dbrec->arm));
	armed = (arm & ORCA_CQ_ARM_NEXT) &&
		arm >> ORCA_CQ_ARM_SN_SHIFT ==
		(cq->arm_sn & (U32_MAX >> ORCA_CQ_ARM_SN_SHIFT));
	if (armed)
		cq->arm_sn++;
	spin_unlock_irqrestore(&cq->lock, flags);
	return armed;
}

/* The slot of CQE index @ci. */
static struct orca_cqe *orca_kcq_cqe(struct orca_cq *cq, u32 ci)
{
	/* no CQE crosses a page of the ring (orca_kbuf_ptr()) */
	BUILD_BUG_ON(PAGE_SIZE % sizeof(struct orca_cqe));
	return orca_kbuf_ptr(&cq->kbuf, (size_t)(ci & (BIT(cq->log_depth) - 1)) *
			     sizeof(struct orca_cqe));
}

/* The CQE at the consumer index if the device has written it; under lock. */
static struct orca_cqe *orca_kcq_next(struct orca_cq *cq)
{
	struct orca_cqe *cqe = orca_kcq_cqe(cq, cq->ci);

	if (READ_ONCE(cqe->owner) != 1 + ((cq->ci >> cq->log_depth) & 1))
		return NULL;
	dma_rmb();	/* the owner byte is written last */
	return cqe;
}

/*
 * The wr_id of the WQE a CQE names, and on the send queue the unsignaled
 * ones before it are done too: the tail moves past it.
 */
static u64 orca_kwq_retire(struct orca_kwq *wq, u32 idx)
{
	u64 wr_id = wq->wrid[idx & (wq->depth - 1)];

	/*
	 * The slot is read: posters (under another lock) may reuse it.
	 * Pairs with the smp_load_acquire() of the posts (orca_kqp.c).
	 */
	smp_store_release(&wq->tail, idx + 1);
	return wr_id;
}

/*
 * The WQE @idx is posted and not completed yet: a CQE that names one
 * before the tail (completed, or flushed) or at the head or after (never
 * posted) would complete a wr_id twice, or move the tail past the head.
 */
static bool orca_kwq_outstanding(struct orca_kwq *wq, u32 idx)
{
	return idx - wq->tail < READ_ONCE(wq->head) - wq->tail;
}

/* The wc of a CQE; false if it names no WQE outstanding (dropped). */
static bool orca_kcq_fill(struct orca_dev *dev, const struct orca_cqe *cqe,
			  struct orca_qp *qp, struct ib_wc *wc)
{
	u32 idx = le32_to_cpu(cqe->wqe_idx);
	struct orca_kwq *wq = NULL;

	if (!(cqe->flags & ORCA_CQE_F_SRQ))
		wq = cqe->flags & ORCA_CQE_F_SQ ? &qp->sq :
		     qp->rq.depth ? &qp->rq : NULL;
	if (wq && !orca_kwq_outstanding(wq, idx)) {
		dev_err_ratelimited(&dev->pdev->dev,
				    "QP %u: CQE names %s WQE %u, not outstanding (%u..%u): dropped\n",
				    qp->ibqp.qp_num, wq == &qp->sq ? "send" : "receive",
				    idx, wq->tail, READ_ONCE(wq->head));
		return false;
	}

	memset(wc, 0, sizeof(*wc));
	wc->qp = &qp->ibqp;
	if (!orca_cqe_to_ib_wc(cqe->status, cqe->opcode,
			       cqe->flags & ORCA_CQE_F_SQ, wc))
		dev_err_ratelimited(&dev->pdev->dev,
				    "CQE of QP %u has status %u, opcode %u: completed with a general error\n",
				    qp->ibqp.qp_num, cqe->status, cqe->opcode);
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = le32_to_cpu(cqe->byte_len);
	wc->src_qp = le32_to_cpu(cqe->src_qp);
	wc->slid = le16_to_cpu(cqe->slid);
	wc->pkey_index = le16_to_cpu(cqe->pkey_index);
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;
	wc->port_num = 1;
	if (cqe->flags & ORCA_CQE_F_IMM) {
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = cqe->imm_data;
	}
	if (cqe->flags & ORCA_CQE_F_INV) {
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = le32_to_cpu(cqe->inv_rkey);
	}
	if (cqe->flags & ORCA_CQE_F_GRH)
		wc->wc_flags |= IB_WC_GRH;
	if (wq)
		wc->wr_id = orca_kwq_retire(wq, idx);
	else if ((cqe->flags & ORCA_CQE_F_SRQ) && qp->ibqp.srq)
		wc->wr_id = orca_ksrq_complete(dev, to_osrq(qp->ibqp.srq),
					       idx);
	return true;
}

/* A queue of a kernel QP with WQEs this CQ has not completed; under lock. */
static struct orca_kwq *orca_kcq_owed(struct orca_cq *cq, struct orca_qp **qpp)
{
	struct orca_qp *qp;

	list_for_each_entry(qp, &cq->send_qps, sq_node) {
		if (READ_ONCE(qp->sq.head) != qp->sq.tail) {
			*qpp = qp;
			return &qp->sq;
		}
	}
	list_for_each_entry(qp, &cq->recv_qps, rq_node) {
		if (READ_ONCE(qp->rq.head) != qp->rq.tail) {
			*qpp = qp;
			return &qp->rq;
		}
	}
	return NULL;
}

/*
 * A dead device completes nothing more: what its kernel QPs on this CQ
 * still have outstanding completes here with WR_FLUSH_ERR, one WQE at a
 * time, so that ib_drain_qp() and the consumers' teardown finish.
 */
static bool orca_kcq_flush_one(struct orca_cq *cq, struct ib_wc *wc)
{
	struct orca_qp *qp;
	struct orca_kwq *wq = orca_kcq_owed(cq, &qp);

	if (!wq)
		return false;
	memset(wc, 0, sizeof(*wc));
	wc->qp = &qp->ibqp;
	wc->status = IB_WC_WR_FLUSH_ERR;
	wc->opcode = wq == &qp->sq ? IB_WC_SEND : IB_WC_RECV;
	wc->port_num = 1;
	wc->wr_id = orca_kwq_retire(wq, wq->tail);
	return true;
}

/**
 * orca_kcq_attach - put a kernel QP on its CQs' lists
 * @qp: the QP, created on the device
 */
void orca_kcq_attach(struct orca_qp *qp)
{
	struct orca_cq *scq = to_ocq(qp->ibqp.send_cq);
	struct orca_cq *rcq = to_ocq(qp->ibqp.recv_cq);
	unsigned long flags;

	spin_lock_irqsave(&scq->lock, flags);
	list_add_tail(&qp->sq_node, &scq->send_qps);
	spin_unlock_irqrestore(&scq->lock, flags);
	spin_lock_irqsave(&rcq->lock, flags);
	list_add_tail(&qp->rq_node, &rcq->recv_qps);
	spin_unlock_irqrestore(&rcq->lock, flags);
}

/*
 * A CQE of a destroyed or reset QP, in a kernel CQ's ring: QPNs are 24
 * bits, so this one names none (0 does: QP0).
 */
#define ORCA_KCQE_DISOWNED	U32_MAX

/*
 * A CQE of @qp that no one will poll: the SRQ WQE it used, if any, is
 * the SRQ's again (its wr_id goes with the CQE).
 */
static void orca_kcq_drop(struct orca_dev *dev, const struct orca_cqe *cqe,
			  struct orca_qp *qp)
{
	if ((cqe->flags & ORCA_CQE_F_SRQ) && qp->ibqp.srq)
		orca_ksrq_complete(dev, to_osrq(qp->ibqp.srq),
				   le32_to_cpu(cqe->wqe_idx));
}

/* The CQEs of @qp still in @cq's ring name no QP from now on; under lock. */
static void orca_kcq_disown_cqes(struct orca_dev *dev, struct orca_cq *cq,
				 struct orca_qp *qp)
{
	u32 ci, mask = BIT(cq->log_depth) - 1;
	struct orca_cqe *cqe;

	for (ci = cq->ci; ci - cq->ci <= mask; ci++) {
		cqe = orca_kcq_cqe(cq, ci);
		if (READ_ONCE(cqe->owner) != 1 + ((ci >> cq->log_depth) & 1))
			break;
		dma_rmb();
		if (le32_to_cpu(cqe->qpn) != qp->ibqp.qp_num)
			continue;
		orca_kcq_drop(dev, cqe, qp);
		cqe->qpn = cpu_to_le32(ORCA_KCQE_DISOWNED);
	}
}

/* @qp's CQEs in @cq are disowned; with @unlink it leaves the CQ too. */
static void orca_kcq_disown_one(struct orca_cq *cq, struct orca_qp *qp,
				struct list_head *unlink)
{
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	if (unlink)
		list_del(unlink);
	orca_kcq_disown_cqes(to_odev(cq->ibcq.device), cq, qp);
	spin_unlock_irqrestore(&cq->lock, flags);
}

/**
 * orca_kcq_disown - take a destroyed kernel QP off its CQs
 * @qp: the QP, which the device has destroyed: it writes no more CQEs
 *
 * Its CQEs still in the rings are skipped by poll_cq from now on, so that
 * none names a later QP that gets its number, and the SRQ WQEs they used
 * are free again; once each CQ's lock was taken here, no poller still
 * looks at the QP.
 */
void orca_kcq_disown(struct orca_qp *qp)
{
	orca_kcq_disown_one(to_ocq(qp->ibqp.send_cq), qp, &qp->sq_node);
	orca_kcq_disown_one(to_ocq(qp->ibqp.recv_cq), qp, &qp->rq_node);
}

/**
 * orca_kcq_reset - a kernel QP went to RESET: its CQEs leave its CQs
 * @qp: the QP, which the device has reset: it writes no more CQEs for
 *	the WQEs posted before
 *
 * IBA 10.3.1: RESET discards the QP's work, completions included; its
 * rings start over at index 0, which old CQEs would name (mlx4 and mlx5
 * clean the CQ of a kernel QP the same way).  Their SRQ WQEs are free.
 */
void orca_kcq_reset(struct orca_qp *qp)
{
	orca_kcq_disown_one(to_ocq(qp->ibqp.send_cq), qp, NULL);
	orca_kcq_disown_one(to_ocq(qp->ibqp.recv_cq), qp, NULL);
}

/*
 * The kernel QP @qpn on @cq's lists, whose number is retiring (its destroy
 * has begun); under lock.  A CQE can reach poll_cq before its destroy
 * disowns it.
 */
static struct orca_qp *orca_kcq_find_retiring(struct orca_cq *cq, u32 qpn)
{
	struct orca_qp *qp;

	list_for_each_entry(qp, &cq->send_qps, sq_node)
		if (qp->ibqp.qp_num == qpn)
			return qp;
	list_for_each_entry(qp, &cq->recv_qps, rq_node)
		if (qp->ibqp.qp_num == qpn)
			return qp;
	return NULL;
}

int orca_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct orca_dev *dev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);
	struct orca_cqe *cqe;
	struct orca_qp *qp;
	unsigned long flags;
	int n = 0;

	if (!cq->kernel)	/* user CQs are polled in user space */
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, flags);
	while (n < num_entries && (cqe = orca_kcq_next(cq))) {
		cq->ci++;
		/*
		 * A destroyed or reset QP's CQEs were disowned
		 * (orca_kcq_disown_cqes()): every other names a QP that is
		 * on this CQ's lists, whose destroy waits for this lock.
		 */
		if (cqe->qpn == cpu_to_le32(ORCA_KCQE_DISOWNED))
			continue;
		qp = xa_load(&dev->qps, le32_to_cpu(cqe->qpn));
		if (!qp) {	/* being destroyed: its CQEs go with it */
			qp = orca_kcq_find_retiring(cq,
						    le32_to_cpu(cqe->qpn));
			if (qp)
				orca_kcq_drop(dev, cqe, qp);
			ibdev_dbg(&dev->ibdev, "CQ %u: CQE of %s QP %u dropped\n",
				  cq->cqn, qp ? "retiring" : "unknown",
				  le32_to_cpu(cqe->qpn));
			continue;
		}
		if (!qp->kernel) {
			dev_err_ratelimited(&dev->pdev->dev,
					    "CQ %u: CQE of user QP %u in a kernel CQ dropped\n",
					    cq->cqn, le32_to_cpu(cqe->qpn));
			continue;
		}
		if (orca_kcq_fill(dev, cqe, qp, &wc[n]))
			n++;
	}
	/*
	 * A dead device's CQEs come first, then, once it is stopped, the
	 * flushes: none of a WQE it completed itself, and none that hands a
	 * buffer back while the device may still write it.
	 */
	if (n || !orca_dead_stopped(dev))
		/* the slots are free for the device again */
		smp_store_release(&cq->dbrec->ci, cpu_to_le32(cq->ci));
	else
		while (n < num_entries && orca_kcq_flush_one(cq, &wc[n]))
			n++;
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/*
 * Arm for the next (solicited) completion: a store into the doorbell
 * record, which the device reads after every CQE it writes.  With
 * IB_CQ_REPORT_MISSED_EVENTS, 1 if a CQE is already there: it may have
 * come before the arm, and no event would tell of it.
 */
int orca_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct orca_dev *dev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);
	struct orca_qp *qp;
	u32 arm = ORCA_CQ_ARM_NEXT;
	unsigned long irqflags;
	int ret = 0;

	if (!cq->kernel)
		return -EOPNOTSUPP;
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED)
		arm |= ORCA_CQ_ARM_SOLICITED;
	spin_lock_irqsave(&cq->lock, irqflags);
	arm |= cq->arm_sn << ORCA_CQ_ARM_SN_SHIFT;
	WRITE_ONCE(cq->dbrec->arm, cpu_to_le32(arm));
	/* the arm before the look at the ring, as the device writes first */
	smp_mb();
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && orca_kcq_next(cq))
		ret = 1;
	/*
	 * A stopped dead device writes no CQE and raises no event: what
	 * poll_cq still has to flush is the driver's to report.
	 */
	if (!ret && orca_dead_stopped(dev) && orca_kcq_owed(cq, &qp)) {
		if (flags & IB_CQ_REPORT_MISSED_EVENTS)
			ret = 1;
		else
			queue_work(system_dfl_wq, &dev->dead_comp_work);
	}
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
