// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The completion event queue: the device posts one entry per completion
 * event of an armed CQ (userspace arms in the CQ's doorbell record) and
 * raises ORCA_MSIX_COMP; the handler calls the CQ's comp_handler, which
 * for a user CQ wakes its completion channel.
 *
 * A CQ has at most one event per arm, so a ring as deep as the CQs that
 * wait on it never fills; the default depth is the device's default
 * max_cq.  It can still fill (more CQs, or a CQ re-armed before its event
 * was taken): the device then drops the entry, counts it in ceq_overflows
 * and interrupts anyway, and the driver, which cannot tell whose event it
 * was, gives every CQ armed an event (orca_kcq_take_arm()).  A spurious
 * event costs its consumer one empty poll; a lost one blocks it in
 * ibv_get_cq_event() for good.
 */

#include <linux/interrupt.h>
#include <linux/io-64-nonatomic-lo-hi.h>

#include "orca.h"
#include "orca_trace.h"

#define ORCA_CEQ_REG(field)	offsetof(struct orca_regs, field)

static unsigned int comp_eq_log_depth = 10;

static int orca_set_ceq_depth(const char *val, const struct kernel_param *kp)
{
	return orca_param_set_uint_range(val, kp, ORCA_CEQ_LOG_DEPTH_MIN,
					 ORCA_CEQ_LOG_DEPTH_MAX);
}

static const struct kernel_param_ops orca_ceq_depth_ops = {
	.set = orca_set_ceq_depth,
	.get = param_get_uint,
};

module_param_cb(comp_eq_log_depth, &orca_ceq_depth_ops, &comp_eq_log_depth,
		0444);
MODULE_PARM_DESC(comp_eq_log_depth,
		 "log2 of the completion event queue's entries, 6..12 (default 10)");

static size_t orca_ceq_bytes(const struct orca_dev *dev)
{
	return sizeof(*dev->ceq) << dev->ceq_log_depth;
}

int orca_ceq_alloc(struct orca_dev *dev)
{
	dev->ceq_log_depth = comp_eq_log_depth;
	dev->ceq = dma_alloc_coherent(&dev->pdev->dev, orca_ceq_bytes(dev),
				      &dev->ceq_dma, GFP_KERNEL);
	if (!dev->ceq)
		return -ENOMEM;
	spin_lock_init(&dev->ceq_lock);
	return 0;
}

/*
 * Free only when the device cannot write to it any more: a function
 * reset was acknowledged, or the queue was never programmed.
 */
void orca_ceq_free(struct orca_dev *dev, bool quiesced)
{
	if (!dev->ceq)
		return;
	if (!quiesced) {
		dev_warn(&dev->pdev->dev, "leaking the completion event queue\n");
		return;
	}
	dma_free_coherent(&dev->pdev->dev, orca_ceq_bytes(dev), dev->ceq,
			  dev->ceq_dma);
	dev->ceq = NULL;
}

/* Before ORCA_DEV_CTL_ENABLE, which latches the address. */
void orca_ceq_program(struct orca_dev *dev)
{
	dev->ceq_ci = readl(dev->regs + ORCA_CEQ_REG(ceq_pi));
	lo_hi_writeq(dev->ceq_dma, dev->regs + ORCA_CEQ_REG(ceq_base));
	writel(dev->ceq_log_depth, dev->regs + ORCA_CEQ_REG(ceq_log_depth));
	writel(dev->ceq_ci, dev->regs + ORCA_CEQ_REG(ceq_ci));
	dev->ceq_overflows = readl(dev->regs + ORCA_CEQ_REG(ceq_overflows));
}

/*
 * The device dropped events it could not post: whose, it cannot say; or
 * it is dead.  Every CQ armed gets one.  Under ceq_lock, so no CQ
 * retired (orca_retire() + orca_ceq_sync()) is called after its destroy
 * went on.
 */
static void orca_ceq_fire_all(struct orca_dev *dev)
{
	struct orca_cq *cq;
	unsigned long cqn;

	xa_for_each(&dev->cqs, cqn, cq) {
		if (!orca_kcq_take_arm(cq))
			continue;
		if (cq->ibcq.comp_handler)
			cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	}
}

/* Every entry the device posted so far; under ceq_lock. */
static void orca_ceq_process(struct orca_dev *dev)
{
	u32 mask = BIT(dev->ceq_log_depth) - 1, pi, lost, ci;
	const struct orca_eqe *eqe;
	struct orca_cq *cq;

	ci = dev->ceq_ci;
	pi = readl(dev->regs + ORCA_CEQ_REG(ceq_pi));
	if (pi - dev->ceq_ci > BIT(dev->ceq_log_depth)) {
		dev_err_ratelimited(&dev->pdev->dev,
				    "completion EQ: producer %u is not within a ring of consumer %u\n",
				    pi, dev->ceq_ci);
		pi = dev->ceq_ci;
	}
	dma_rmb();
	for (; dev->ceq_ci != pi; dev->ceq_ci++) {
		eqe = &dev->ceq[dev->ceq_ci & mask];
		if (eqe->type != ORCA_EQE_COMP) {
			dev_err_ratelimited(&dev->pdev->dev,
					    "completion EQ: entry of type %u ignored\n",
					    eqe->type);
			continue;
		}
		cq = xa_load(&dev->cqs, le32_to_cpu(eqe->comp.cqn));
		if (!cq)
			continue;
		orca_kcq_event(cq);
		if (cq->ibcq.comp_handler)
			cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	}
	writel(dev->ceq_ci, dev->regs + ORCA_CEQ_REG(ceq_ci));
	lost = readl(dev->regs + ORCA_CEQ_REG(ceq_overflows));
	trace_orca_ceq_irq(&dev->pdev->dev, ci, pi, dev->ceq_ci - ci,
			   lost - dev->ceq_overflows);
	if (lost != dev->ceq_overflows) {
		dev_warn_ratelimited(&dev->pdev->dev,
				     "%u completion events dropped: completion EQ full; an event for every CQ\n",
				     lost - dev->ceq_overflows);
		dev->ceq_overflows = lost;
		orca_ceq_fire_all(dev);
	}
}

irqreturn_t orca_ceq_irq(int irq, void *data)
{
	struct orca_dev *dev = data;

	spin_lock(&dev->ceq_lock);
	orca_ceq_process(dev);
	spin_unlock(&dev->ceq_lock);
	return IRQ_HANDLED;
}

/*
 * After DESTROY_CQ: entries the device posted for the CQ before it was
 * destroyed are taken now, while its number is in no table, so that none
 * is left for the next CQ the device gives that number (the completion EQ
 * is not ordered with the command EQ that carried DESTROY_CQ's answer).
 */
void orca_ceq_drain(struct orca_dev *dev)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->ceq_lock, flags);
	orca_ceq_process(dev);
	spin_unlock_irqrestore(&dev->ceq_lock, flags);
}

/**
 * orca_ceq_event_all - a completion event for every CQ armed
 * @dev: device
 *
 * For events the device did not post and the driver owes: those it
 * dropped, and those a dead device no longer raises.
 */
void orca_ceq_event_all(struct orca_dev *dev)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->ceq_lock, flags);
	orca_ceq_fire_all(dev);
	spin_unlock_irqrestore(&dev->ceq_lock, flags);
}

/* After this no completion handler can still be running for a CQ forgotten. */
void orca_ceq_sync(struct orca_dev *dev)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->ceq_lock, flags);
	spin_unlock_irqrestore(&dev->ceq_lock, flags);
}

/**
 * orca_dead_comp_work - the completion events a dead device does not raise
 * @work: orca_dev.dead_comp_work
 *
 * The work its kernel QPs still have outstanding completes in poll_cq, as
 * flush errors (orca_kcq.c), once the device is stopped: before, a device
 * that is slow rather than dead may still place a receive into a buffer
 * whose flush would have handed it back.  Their consumers poll when an
 * event says so, and a dead device interrupts no more.  Queued when the
 * device acknowledges the reset, and on every kernel post and arm after,
 * so that a drain WR posted to a dead QP completes.  From a work item,
 * not the verb: a comp_handler may take locks its consumer holds while
 * it posts or arms.
 */
void orca_dead_comp_work(struct work_struct *work)
{
	struct orca_dev *dev = container_of(work, struct orca_dev,
					    dead_comp_work);

	orca_ceq_event_all(dev);
}
