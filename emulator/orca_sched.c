// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the engine loop and the transport timers.
 *
 * dp_run() gives every QP's responder and requester one packet's worth of
 * work per round and delivers what the link carries, until nothing moves
 * or the round budget is spent (so that commands, doorbells and the
 * heartbeat are never starved by a long transfer: the glue calls
 * orca_dev_work() again at once while orca_dev_busy()).
 */
#include "orca_engine.h"

#define DP_ROUND_BUDGET	4096	/* rounds per call */

static bool qp_has_queues(const struct orca_qp *qp)
{
	return qp && qp->ring.n;
}

bool dp_run(struct orca_dev *dev)
{
	struct orca_qp *qp;
	unsigned int rounds = 0;
	bool progress, moved = false;

	if (dev->dp_running || dev->fatal || !dev->ram ||
	    dev->state != ORCA_DEV_S_ACTIVE)
		return false;
	dev->dp_running = true;
	dev->dp_pending = false;
	do {
		progress = false;
		for_each_live_qp(dev, qp) {
			if (!qp_has_queues(qp))
				continue;
			if (qp->ctx.state == ORCA_QPS_ERR) {
				progress |= qp_flush(dev, qp);
				continue;
			}
			/* SQE: sends are flushed, receives go on */
			if (qp->ctx.state == ORCA_QPS_SQE)
				progress |= sq_flush(dev, qp);
			progress |= resp_step(dev, qp);
			progress |= req_step(dev, qp);
		}
		progress |= wire_drain(dev) > 0;
		moved |= progress;
	} while (progress && ++rounds < DP_ROUND_BUDGET);
	dev->dp_pending = progress;
	dev->dp_running = false;
	return moved;
}

/* Retransmit and RNR timers that expired. */
void dp_timers(struct orca_dev *dev)
{
	uint64_t now = dp_now_ns();
	struct orca_qp *qp;

	if (dev->state != ORCA_DEV_S_ACTIVE || dev->fatal)
		return;
	for_each_live_qp(dev, qp) {
		struct orca_req *r;

		if (!qp_has_queues(qp) || !qp->req.busy)
			continue;
		r = &qp->req;
		if (!r->deadline || now < r->deadline)
			continue;
		if (r->rnr_wait) {
			/* sent again now: timed like any retransmission */
			r->rnr_wait = false;
			req_arm_timer(qp);
			continue;
		}
		/* no response in time */
		if (!comp_timeout(dev, qp))
			comp_send_done(dev, qp, ORCA_CQE_RETRY_EXC_ERR, 6);
	}
}

/* The earliest timer, in dp_now_ns() time; 0 = none. */
uint64_t orca_dev_next_deadline(const struct orca_dev *dev)
{
	const struct orca_qp *qp;
	uint64_t first;

	if (dev->state != ORCA_DEV_S_ACTIVE || dev->fatal || !dev->qps)
		return 0;
	first = wire_next_deadline(dev);
	for_each_live_qp(dev, qp) {
		if (qp_has_queues(qp) && qp->req.busy && qp->req.deadline &&
		    (!first || qp->req.deadline < first))
			first = qp->req.deadline;
	}
	return first;
}

bool orca_dev_busy(const struct orca_dev *dev)
{
	return dev->dp_pending && !dev->hung;
}

void orca_dev_work(struct orca_dev *dev)
{
	if (dev->hung)
		return;
	dp_timers(dev);
	dp_run(dev);
	flush_irq(dev);
}

int orca_dev_fabric_pollfd(struct orca_dev *dev, struct pollfd *pfd)
{
	return fabric_pollfd(dev, pfd);
}

void orca_dev_fabric_io(struct orca_dev *dev, short revents)
{
	/* what the packets started: responses, completions, interrupts */
	if (fabric_io(dev, revents, wire_rx))
		orca_dev_work(dev);
}
