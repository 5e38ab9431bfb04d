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
#include <time.h>

#include "orca_dp.h"

#define DP_ROUND_BUDGET	4096	/* rounds per call */

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* One clock for every device of the process: a test's devices agree. */
static uint64_t (*clock_ns)(void) = monotonic_ns;

void orca_dev_set_clock(uint64_t (*now_ns)(void))
{
	clock_ns = now_ns ? now_ns : monotonic_ns;
}

/*
 * Every timer of the model (retransmit, RNR, link delay, doorbell poll,
 * fabric reconnect) reads the time here, so that a unit test that
 * installed a virtual clock decides when they expire, not the host's
 * scheduler.
 */
uint64_t dp_now_ns(void)
{
	return clock_ns();
}

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

/* RESET: the queues start over at index 0 (the provider's too). */
void dp_qp_reset(struct orca_qp *qp)
{
	qp->sq.ci = qp->rq.ci = 0;
	qp->sq_una = 0;
	memset(&qp->req, 0, sizeof(qp->req));
	memset(&qp->resp, 0, sizeof(qp->resp));
	rd_res_clear(qp);
}

/* After a MODIFY_QP moved the QP from @old to its current state. */
void dp_qp_state(struct orca_dev *dev, struct orca_qp *qp, unsigned int old)
{
	unsigned int st = qp->ctx.state;

	if (st == ORCA_QPS_RESET) {
		rwqe_flush(dev, qp);
		dp_qp_reset(qp);
		return;
	}
	if (st == ORCA_QPS_ERR) {
		rd_res_stop(qp);
		if (old != ORCA_QPS_ERR)
			qp_err_entered(dev, qp);
		else
			qp_flush(dev, qp);
		return;
	}
	if (old == ORCA_QPS_INIT && st == ORCA_QPS_RTR)
		qp->resp.epsn = le32toh(qp->ctx.rq_psn) & PSN_MASK;
	if (old == ORCA_QPS_RTR && st == ORCA_QPS_RTS)
		qp->req.next_psn = le32toh(qp->ctx.sq_psn) & PSN_MASK;
}
