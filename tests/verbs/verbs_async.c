// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * QP state after device-initiated changes, and events the device had to
 * drop.  Needs the orca VM (tests/lib/hostctl drives the emulator).
 *
 *  1. RC QP in RTS, the device moves it to ERR (hostctl qp-fatal): the
 *     driver knows at once, so RTS -> SQD is refused without a firmware
 *     command; a caller that insists the QP is in RTS (IBV_QP_CUR_STATE)
 *     reaches the device, whose state machine refuses it.
 *  2. UD QP in RTS, the device moves its SQ to SQE (hostctl sq-error): no
 *     affiliated event (IBTA: the error completion is the signal), query
 *     shows SQE, and SQE -> RTS recovers it.
 *  3. The device floods the event queue and then moves a QP to ERR while
 *     the EQ is full (hostctl eq-flood): the driver notices the dropped
 *     events, finds the QP in ERR in the mirror and delivers the
 *     IBV_EVENT_QP_FATAL that was lost, and port 1's hw counter
 *     async_events_lost counts the drops.
 *  4. The same with a QP on an SRQ: its IBV_EVENT_QP_LAST_WQE_REACHED
 *     (IBTA 11.6.3.4, what a consumer waits for before it destroys the QP)
 *     was dropped with the QP_FATAL, and is recovered too.
 */
#include "common.h"

static struct ibv_context *ctx;
static struct ibv_port_attr port;

static struct ibv_qp *rts_qp_on(struct ibv_pd *pd, struct ibv_cq *cq,
				enum ibv_qp_type type, struct ibv_srq *srq)
{
	static const enum ibv_qp_state walk[] = { IBV_QPS_INIT, IBV_QPS_RTR,
						  IBV_QPS_RTS };
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .srq = srq, .qp_type = type,
		.cap = { .max_send_wr = 4, .max_recv_wr = srq ? 0 : 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	enum ibv_qp_state cur = IBV_QPS_RESET;
	struct ibv_qp *qp = srq ? ibv_create_qp(pd, &init) :
				  create_qp(pd, cq, type);
	unsigned int i;

	for (i = 0; qp && i < 3; cur = walk[i++])
		if (walk_to(qp, &port, cur, walk[i])) {
			ibv_destroy_qp(qp);
			return NULL;
		}
	return qp;
}

static struct ibv_qp *rts_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			     enum ibv_qp_type type)
{
	return rts_qp_on(pd, cq, type, NULL);
}

static bool inject(const char *what, struct ibv_qp *qp)
{
	char req[64], reply[256];

	snprintf(req, sizeof(req), "%s %u", what, qp->qp_num);
	if (hostctl(req, reply, sizeof(reply))) {
		diag("hostctl %s: %s", req, reply);
		return false;
	}
	return true;
}

static void fatal_then_modify(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp *qp = rts_qp(pd, cq, IBV_QPT_RC);
	unsigned long long cmds, failed;
	struct ibv_qp_attr a;
	int ret;

	if (!ok(qp != NULL, "RC QP in RTS") || !inject("qp-fatal", qp))
		goto out;
	ok(wait_event(ctx, IBV_EVENT_QP_FATAL, qp, wait_ms()),
	   "qp-fatal: IBV_EVENT_QP_FATAL arrives");

	cmds = emu_stat("cmds");
	fill_attr(&a, qp, &port, IBV_QPS_SQD);
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	ok(ret == EINVAL && emu_stat("cmds") == cmds,
	   "RTS -> SQD after the device moved the QP to ERR: EINVAL from the driver, no firmware command (%s, commands %llu -> %llu)",
	   err_str(ret), cmds, emu_stat("cmds"));

	failed = emu_stat("failed");
	fill_attr(&a, qp, &port, IBV_QPS_RTS);
	a.cur_qp_state = IBV_QPS_RTS;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_CUR_STATE);
	ok(ret == EINVAL && emu_stat("failed") == failed + 1,
	   "RTS -> RTS claiming cur_state RTS: the device's state machine refuses it (%s, device failures %llu -> %llu)",
	   err_str(ret), failed, emu_stat("failed"));
	ok(query_state(qp) == IBV_QPS_ERR, "the QP is still in ERR (%s)",
	   qps_str(query_state(qp)));
	ret = walk_to(qp, &port, IBV_QPS_ERR, IBV_QPS_RESET);
	ok(!ret && query_state(qp) == IBV_QPS_RESET, "ERR -> RESET works (%s)",
	   err_str(ret));
out:
	if (qp) {
		forget_events(qp);
		ibv_destroy_qp(qp);
	}
}

static void sq_error_then_recover(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp *qp = rts_qp(pd, cq, IBV_QPT_UD);
	struct ibv_qp_attr a;
	int ret;

	if (!ok(qp != NULL, "UD QP in RTS") || !inject("sq-error", qp))
		goto out;
	ok(query_state(qp) == IBV_QPS_SQE, "sq-error: query_qp shows SQE (%s)",
	   qps_str(query_state(qp)));
	drain_async(ctx, 1000);
	ok(!take_events(IBV_EVENT_QP_FATAL, qp),
	   "sq-error: no IBV_EVENT_QP_FATAL (the QP is in SQE, not ERR)");
	fill_attr(&a, qp, &port, IBV_QPS_RTS);
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	ok(!ret && query_state(qp) == IBV_QPS_RTS,
	   "SQE -> RTS recovers the QP (%s, now %s)", err_str(ret),
	   qps_str(query_state(qp)));
out:
	if (qp) {
		forget_events(qp);
		ibv_destroy_qp(qp);
	}
}

static void flood(const char *dev, struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp *qp = rts_qp(pd, cq, IBV_QPT_RC);
	unsigned long long lost0 = hw_counter(dev, "async_events_lost");
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int comm_est = 0, fatal = 0, port_active = 0;
	char req[64], reply[256];
	long long end;

	if (!ok(qp != NULL, "RC QP in RTS"))
		return;
	drain_async(ctx, 0);
	n_seen_events = 0;
	/* more events than the EQ holds, then the QP to ERR: dropped */
	snprintf(req, sizeof(req), "eq-flood 300 %u", qp->qp_num);
	if (!ok(!hostctl(req, reply, sizeof(reply)), "hostctl %s: %s", req,
		reply))
		goto out;
	fcntl(ctx->async_fd, F_SETFL,
	      fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
	for (end = now_ms() + wait_ms(); !fatal && now_ms() < end;) {
		if (poll(&pfd, 1, 100) <= 0 || ibv_get_async_event(ctx, &ev))
			continue;
		if (ev.event_type == IBV_EVENT_COMM_EST && ev.element.qp == qp)
			comm_est++;
		else if (ev.event_type == IBV_EVENT_QP_FATAL &&
			 ev.element.qp == qp)
			fatal++;
		else if (ev.event_type == IBV_EVENT_PORT_ACTIVE)
			port_active++;
		ibv_ack_async_event(&ev);
	}
	diag("%d COMM_EST, %d QP_FATAL, %d PORT_ACTIVE", comm_est, fatal,
	     port_active);
	ok(comm_est > 0 && comm_est < 300,
	   "the EQ overflowed: %d of 300 COMM_EST delivered", comm_est);
	ok(fatal == 1,
	   "the dropped QP_FATAL is recovered from the mirror and delivered once (%d)",
	   fatal);
	ok(query_state(qp) == IBV_QPS_ERR, "query_qp shows ERR (%s)",
	   qps_str(query_state(qp)));
	ok(hw_counter(dev, "async_events_lost") >= lost0 + 300 - comm_est + 1 &&
	   lost0 != ~0ULL,
	   "hw_counters/async_events_lost counts the drops (%llu -> %llu)",
	   lost0, hw_counter(dev, "async_events_lost"));
out:
	ibv_destroy_qp(qp);
}

/* 4: an SRQ QP's QP_FATAL and LAST_WQE_REACHED, both dropped */
static void flood_srq(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 8, .max_sge = 1 } };
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_srq *srq = ibv_create_srq(pd, &sa);
	struct ibv_qp *qp = srq ? rts_qp_on(pd, cq, IBV_QPT_RC, srq) : NULL;
	int fatal = 0, last_wqe = 0;
	bool settling = false;
	struct ibv_async_event ev;
	char req[64], reply[256];
	long long end;

	if (!ok(srq && qp, "RC QP on an SRQ, in RTS"))
		goto out;
	drain_async(ctx, 0);
	snprintf(req, sizeof(req), "eq-flood 300 %u", qp->qp_num);
	if (!ok(!hostctl(req, reply, sizeof(reply)), "hostctl %s: %s", req,
		reply))
		goto out;
	/*
	 * Until both came (or the bound), then 200 ms more: a second of
	 * either would follow within a poll or two.  (drain_async()'s table
	 * would fill with the flood's COMM_EST first.)
	 */
	for (end = now_ms() + wait_ms(); now_ms() < end;) {
		if (fatal && last_wqe && !settling) {
			settling = true;
			end = now_ms() + 200;
		}
		if (poll(&pfd, 1, 100) <= 0 || ibv_get_async_event(ctx, &ev))
			continue;
		if (ev.event_type == IBV_EVENT_QP_FATAL && ev.element.qp == qp)
			fatal++;
		else if (ev.event_type == IBV_EVENT_QP_LAST_WQE_REACHED &&
			 ev.element.qp == qp)
			last_wqe++;
		ibv_ack_async_event(&ev);
	}
	ok(fatal == 1, "SRQ QP: the dropped QP_FATAL is delivered once (%d)",
	   fatal);
	ok(last_wqe == 1,
	   "SRQ QP: the dropped LAST_WQE_REACHED is delivered once (%d)",
	   last_wqe);
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (srq)
		ibv_destroy_srq(srq);
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;

	if (!have_hostctl()) {
		skip("not in the orca VM (no hostctl)", "async state tests");
		return tap_done();
	}
	ctx = open_device_by_name(dev);
	if (!ok(ctx != NULL, "open %s", dev))
		return tap_done();
	if (!ok(!ibv_query_port(ctx, 1, &port), "query port 1"))
		goto out;
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	if (!ok(pd && cq, "PD and CQ"))
		goto out;
	fatal_then_modify(pd, cq);
	sq_error_then_recover(pd, cq);
	flood(dev, pd, cq);
	flood_srq(pd, cq);
out:
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return tap_done();
}
