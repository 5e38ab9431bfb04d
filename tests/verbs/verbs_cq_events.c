// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion events are never lost (issue 20; review-driver finding 4):
 * many CQs armed on one completion channel, one completion each, and
 * every CQ gets its event (ibv_req_notify_cq(3), ibv_get_cq_event(3)).
 *
 * Each CQ carries one RC QP looped back to itself: the QP's send
 * completion goes to its own CQ (armed), its receive completion to one
 * shared CQ (not armed).  All CQs are armed, then one signaled SEND is
 * posted on every QP in a tight loop, so the device raises all events at
 * once, more than a small completion event queue holds.  Every CQ must
 * then deliver its event (a spurious extra one is allowed: the verbs
 * promise an event after a completion on an armed CQ, not at most one),
 * and every send completion is there, successful.  Before the fix, with
 * a 256-entry event queue, 270 of 400 CQs got their event on orca0; the
 * other ibv_get_cq_event() calls would block for good.
 *
 *   verbs_cq_events [-d orca0] [--cqs N]   (default 100, at most max_cq-1;
 *   tests/vm/comp-events.sh runs 400 on the default ring and on a small one)
 */
#include <poll.h>

#include "common.h"

#define MSG	8

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_port_attr port;

int main(int argc, char **argv)
{
	const char *name = parse_dev_arg(&argc, &argv);
	struct ibv_comp_channel *ch = NULL;
	struct ibv_device_attr attr;
	struct ibv_cq **cqs = NULL, *rcq = NULL;
	struct ibv_qp **qps = NULL;
	unsigned int *events = NULL;
	unsigned int want = 100, n = 0, i, got = 0, spurious = 0, bad = 0;
	unsigned int cqes = 0;
	struct ibv_mr *mr = NULL;
	uint8_t *buf = NULL;
	long long t0, deadline;

	for (i = 1; i + 1 < (unsigned int)argc; i++)
		if (!strcmp(argv[i], "--cqs"))
			want = (unsigned int)strtoul(argv[i + 1], NULL, 0);
	ctx = open_device_by_name(name);
	if (!ctx) {
		printf("Bail out! cannot open %s\n", name);
		return 1;
	}
	if (ibv_query_device(ctx, &attr) || ibv_query_port(ctx, 1, &port)) {
		printf("Bail out! query_device / query_port\n");
		return 1;
	}
	/* one CQ each, plus the shared receive CQ; one QP each */
	if (attr.max_cq < 2 || attr.max_qp < 1) {
		skip("the device has no room for two CQs and a QP",
		     "CQs on one completion channel");
		return tap_done();
	}
	if (want > (unsigned int)attr.max_cq - 1)
		want = (unsigned int)attr.max_cq - 1;
	if (want > (unsigned int)attr.max_qp)
		want = (unsigned int)attr.max_qp;
	diag("%u CQs on one completion channel (max_cq %d, max_qp %d)", want,
	     attr.max_cq, attr.max_qp);

	pd = ibv_alloc_pd(ctx);
	ch = ibv_create_comp_channel(ctx);
	cqs = calloc(want, sizeof(*cqs));
	qps = calloc(want, sizeof(*qps));
	events = calloc(want, sizeof(*events));
	buf = calloc(want, 2 * MSG);
	if (!pd || !ch || !cqs || !qps || !events || !buf) {
		printf("Bail out! PD, channel or memory\n");
		return 1;
	}
	mr = ibv_reg_mr(pd, buf, (size_t)want * 2 * MSG,
			IBV_ACCESS_LOCAL_WRITE);
	rcq = ibv_create_cq(ctx, (int)want, NULL, NULL, 0);
	if (!mr || !rcq) {
		printf("Bail out! MR or receive CQ: %s\n", strerror(errno));
		return 1;
	}
	for (n = 0; n < want; n++) {
		struct ibv_qp_init_attr init = {
			.cap = { .max_send_wr = 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.qp_type = IBV_QPT_RC,
		};

		cqs[n] = ibv_create_cq(ctx, 1, (void *)(uintptr_t)n, ch, 0);
		if (!cqs[n])
			break;
		init.send_cq = cqs[n];
		init.recv_cq = rcq;
		qps[n] = ibv_create_qp(pd, &init);
		if (!qps[n] || connect_to(qps[n], qps[n]->qp_num, &port)) {
			diag("QP %u: %s", n, strerror(errno));
			if (qps[n])
				ibv_destroy_qp(qps[n]);
			ibv_destroy_cq(cqs[n]);
			break;
		}
	}
	if (!ok(n == want, "%u CQs on one channel, each with an RC QP looped back to itself (%u made)",
		want, n))
		goto out;

	/* arm all, then one completion each, as fast as the CPU posts */
	for (i = 0; i < n; i++)
		if (ibv_req_notify_cq(cqs[i], 0))
			bad++;
	ok(!bad, "ibv_req_notify_cq on every CQ (%u failed)", bad);
	bad = 0;
	for (i = 0; i < n; i++) {
		struct ibv_sge rs = { (uintptr_t)(buf + i * 2 * MSG), MSG, mr->lkey };
		struct ibv_sge ss = { (uintptr_t)(buf + i * 2 * MSG + MSG), MSG,
				      mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = i, .sg_list = &rs, .num_sge = 1 };
		struct ibv_send_wr swr = { .wr_id = i, .sg_list = &ss, .num_sge = 1,
					   .opcode = IBV_WR_SEND,
					   .send_flags = IBV_SEND_SIGNALED };
		struct ibv_recv_wr *rb;
		struct ibv_send_wr *sb;

		if (ibv_post_recv(qps[i], &rwr, &rb) ||
		    ibv_post_send(qps[i], &swr, &sb))
			bad++;
	}
	ok(!bad, "one signaled SEND posted on each of the %u QPs (%u failed)", n, bad);

	/* every CQ's event, within the bound; each acked as it comes */
	t0 = now_ms();
	deadline = t0 + wait_ms();
	while (got < n && now_ms() < deadline) {
		struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
		struct ibv_cq *ev_cq;
		void *cq_ctx;
		uintptr_t k;

		if (poll(&pfd, 1, (int)(deadline - now_ms())) != 1)
			break;
		if (ibv_get_cq_event(ch, &ev_cq, &cq_ctx))
			break;
		ibv_ack_cq_events(ev_cq, 1);
		k = (uintptr_t)cq_ctx;
		if (k >= n || cqs[k] != ev_cq) {
			bad++;
			continue;
		}
		if (events[k]++)
			spurious++;
		else
			got++;
	}
	ok(got == n && !bad, "every CQ got its completion event: %u of %u (%u for an unknown CQ)",
	   got, n, bad);
	diag("the events took %lld ms; %u extra events (allowed)", now_ms() - t0,
	     spurious);
	if (got < n)
		for (i = 0, bad = 0; i < n && bad < 8; i++)
			if (!events[i]) {
				diag("no event for CQ %u (QP %u)", i, qps[i]->qp_num);
				bad++;
			}

	/* and each CQ holds its one successful send completion */
	bad = 0;
	for (i = 0; i < n; i++) {
		struct ibv_wc wc;
		int r = 0;

		deadline = now_ms() + wait_ms();
		while ((r = ibv_poll_cq(cqs[i], 1, &wc)) == 0 && now_ms() < deadline)
			;
		if (r == 1 && wc.status == IBV_WC_SUCCESS && wc.wr_id == i &&
		    wc.opcode == IBV_WC_SEND)
			cqes++;
		else if (bad++ < 8)
			diag("CQ %u: poll %d, status %s", i, r,
			     r == 1 ? ibv_wc_status_str(wc.status) : "-");
	}
	ok(cqes == n, "every CQ holds its send completion, successful (%u of %u)", cqes, n);
out:
	for (i = 0; i < n; i++) {
		ibv_destroy_qp(qps[i]);
		ibv_destroy_cq(cqs[i]);
	}
	if (rcq)
		ibv_destroy_cq(rcq);
	if (mr)
		ibv_dereg_mr(mr);
	ibv_destroy_comp_channel(ch);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	free(cqs);
	free(qps);
	free(events);
	free(buf);
	return tap_done();
}
