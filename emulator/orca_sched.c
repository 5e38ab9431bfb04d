// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the engine loop and the transport timers.
 *
 * dp_run() gives each QP on the run list (orca_kick.c) one packet's worth
 * of work per round: its responder and its requester, or its flush.  A
 * QP stays on the list while it moved, has a WQE in flight or READ
 * responses due; otherwise it leaves until a kick ring, a packet, a
 * timer or a command names it again.  Rounds go on, delivering what the
 * link carries, until nothing moves or the round budget is spent (so
 * that commands, doorbells and the heartbeat are never starved by a long
 * transfer: the glue calls orca_dev_work() again at once while
 * orca_dev_busy()).  The cost of a round is the QPs with work, not the
 * QPs that exist.
 */
#include "orca_engine.h"

#define DP_ROUND_BUDGET	4096	/* rounds per call */

/* One step of @qp; true if it moved. */
static bool qp_step(struct orca_dev *dev, struct orca_qp *qp)
{
	bool progress = false;

	dev->stats.qp_visits++;
	if (qp->ctx.state == ORCA_QPS_ERR)
		return qp_flush(dev, qp);
	/* SQE: sends are flushed, receives go on */
	if (qp->ctx.state == ORCA_QPS_SQE)
		progress |= sq_flush(dev, qp);
	progress |= resp_step(dev, qp);
	progress |= req_step(dev, qp);
	return progress;
}

bool dp_run(struct orca_dev *dev)
{
	struct orca_qp *qp;
	unsigned int rounds = 0;
	bool progress, moved = false;
	uint32_t n;

	/*
	 * No host at all (an emulator with no QEMU, vm2.sh --guestless):
	 * no QP, but the port is there, and what its firmware answers the
	 * SM off the wire goes out
	 */
	if (!dev->ram && !dev->fatal && !dev->dp_running)
		return wire_drain(dev) > 0;
	if (dev->dp_running || dev->fatal || !dev->ram ||
	    dev->state != ORCA_DEV_S_ACTIVE)
		return false;
	dev->dp_running = true;
	dev->dp_pending = false;
	do {
		progress = false;
		qp_sched_kicked(dev);
		/* this round's list: what it puts back waits for the next */
		for (n = dev->run_qps.n; n && (qp = qp_sched_pop(dev)); n--) {
			bool p = qp->ring.n && qp_step(dev, qp);

			if (p || (qp->ring.n && (qp->req.busy ||
						 qp->resp.rd_due)))
				qp_sched(dev, qp);
			progress |= p;
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
	/* a QP with a WQE in flight stays on the run list */
	for (qp = dev->run_qps.head; qp; qp = qp->run.next) {
		struct orca_req *r;

		if (!qp->ring.n || !qp->req.busy)
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
	for (qp = dev->run_qps.head; qp; qp = qp->run.next) {
		if (qp->ring.n && qp->req.busy && qp->req.deadline &&
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

int orca_dev_fabric_pollfd(struct orca_dev *dev, struct pollfd *pfd,
			   unsigned int max)
{
	return fabric_pollfd(dev, pfd, max);
}

bool orca_dev_fabric_may_sleep(struct orca_dev *dev)
{
	return fabric_may_sleep(dev);
}

void orca_dev_fabric_io(struct orca_dev *dev, const struct pollfd *pfd,
			unsigned int n)
{
	/* what the packets started: responses, completions, interrupts */
	if (fabric_io(dev, pfd, n, wire_rx))
		orca_dev_work(dev);
}
