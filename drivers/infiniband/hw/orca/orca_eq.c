// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The completion event queue: the device posts one entry per completion
 * event of an armed CQ (userspace arms in the CQ's doorbell record) and
 * raises ORCA_MSIX_COMP; the handler calls the CQ's comp_handler, which
 * for a user CQ wakes its completion channel.
 */

#include <linux/interrupt.h>
#include <linux/io-64-nonatomic-lo-hi.h>

#include "orca.h"
#include "orca_trace.h"

#define ORCA_CEQ_REG(field)	offsetof(struct orca_regs, field)

int orca_ceq_alloc(struct orca_dev *dev)
{
	dev->ceq = dma_alloc_coherent(&dev->pdev->dev,
				      sizeof(*dev->ceq) << ORCA_CEQ_LOG_DEPTH,
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
	dma_free_coherent(&dev->pdev->dev, sizeof(*dev->ceq) << ORCA_CEQ_LOG_DEPTH,
			  dev->ceq, dev->ceq_dma);
	dev->ceq = NULL;
}

/* Before ORCA_DEV_CTL_ENABLE, which latches the address. */
void orca_ceq_program(struct orca_dev *dev)
{
	dev->ceq_ci = readl(dev->regs + ORCA_CEQ_REG(ceq_pi));
	lo_hi_writeq(dev->ceq_dma, dev->regs + ORCA_CEQ_REG(ceq_base));
	writel(ORCA_CEQ_LOG_DEPTH, dev->regs + ORCA_CEQ_REG(ceq_log_depth));
	writel(dev->ceq_ci, dev->regs + ORCA_CEQ_REG(ceq_ci));
	dev->ceq_overflows = readl(dev->regs + ORCA_CEQ_REG(ceq_overflows));
}

irqreturn_t orca_ceq_irq(int irq, void *data)
{
	struct orca_dev *dev = data;
	u32 mask = BIT(ORCA_CEQ_LOG_DEPTH) - 1, pi, lost, ci;
	const struct orca_eqe *eqe;
	struct orca_cq *cq;

	spin_lock(&dev->ceq_lock);
	ci = dev->ceq_ci;
	pi = readl(dev->regs + ORCA_CEQ_REG(ceq_pi));
	if (pi - dev->ceq_ci > BIT(ORCA_CEQ_LOG_DEPTH)) {
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
		if (cq && cq->ibcq.comp_handler)
			cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	}
	writel(dev->ceq_ci, dev->regs + ORCA_CEQ_REG(ceq_ci));
	lost = readl(dev->regs + ORCA_CEQ_REG(ceq_overflows));
	trace_orca_ceq_irq(&dev->pdev->dev, ci, pi, dev->ceq_ci - ci,
			   lost - dev->ceq_overflows);
	if (lost != dev->ceq_overflows) {
		dev_warn_ratelimited(&dev->pdev->dev,
				     "%u completion events dropped: completion EQ full\n",
				     lost - dev->ceq_overflows);
		dev->ceq_overflows = lost;
	}
	spin_unlock(&dev->ceq_lock);
	return IRQ_HANDLED;
}

/* After this no completion handler can still be running for a CQ forgotten. */
void orca_ceq_sync(struct orca_dev *dev)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->ceq_lock, flags);
	spin_unlock_irqrestore(&dev->ceq_lock, flags);
}
