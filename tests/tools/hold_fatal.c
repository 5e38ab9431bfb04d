// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Hold a context with objects while the device goes away (unplug and
 * rmmod tests, tests/vm/unplug.sh).
 *
 *   hold_fatal -d orca0 [-t SECONDS]
 *
 * Opens the device, creates a PD, a CQ, an MR and an RC QP in RTS
 * (connected to itself) and prints "READY qpn=N".  Then waits up to
 * SECONDS (ORCA_WAIT, 120) for an asynchronous event and prints "EVENT <name> <ms>"
 * for each (and "DEVICE_FATAL" for that one).  After IBV_EVENT_DEVICE_FATAL: a new PD must be refused
 * ("CREATE_FAILS errno=E"), a posted send must not complete successfully
 * ("SEND rc=R"), and every WQE outstanding (that send, and three receives
 * posted before the device died) completes with IBV_WC_WR_FLUSH_ERR, as
 * after a fatal error on mlx5 ("FLUSHED n=N want=W not_flush_err=E
 * wr_ids=all"), and destroying everything
 * and closing the context must work ("CLOSED rc=R").  If the device has
 * SRQs, a second QP takes its receives from an SRQ into a CQ of its own;
 * after the device is gone, destroying that CQ or the SRQ before the QP
 * must still say EBUSY, as it did before ("ORDER cq=E srq=E": ib_core no
 * longer checks, a disassociated context's destroys all succeed, and the
 * provider must not free what a QP still points to).  Exit status 0 if
 * all of that held, 1 otherwise, 2 if the setup failed.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "self_rc.h"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

int main(int argc, char **argv)
{
	const char *name = "orca0";
	/* the bound of the wait for the event: -t, else ORCA_WAIT (120) */
	const char *wait_env = getenv("ORCA_WAIT");
	int secs = wait_env && atoi(wait_env) > 0 ? atoi(wait_env) : 120;
	int opt, fatal = 0, ok = 1, n, rc;
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_port_attr port;
	struct ibv_device_attr dattr;
	struct ibv_async_event ev;
	struct ibv_context *ctx;
	struct ibv_pd *pd, *pd2;
	struct ibv_cq *cq, *scq = NULL;
	struct ibv_srq *srq = NULL;
	struct ibv_mr *mr;
	struct ibv_qp *qp, *sqp = NULL;
	struct ibv_wc wc;
	struct pollfd pfd;
	long long t0, end;
	static char buf[4096];

	while ((opt = getopt(argc, argv, "d:t:")) != -1) {
		if (opt == 'd')
			name = optarg;
		else if (opt == 't')
			secs = atoi(optarg);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	ctx = open_dev(name);
	if (!ctx || ibv_query_port(ctx, 1, &port)) {
		printf("SETUP_FAILED open %s\n", name);
		return 2;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	mr = cq ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_WRITE) : NULL;
	init.send_cq = init.recv_cq = cq;
	qp = mr ? ibv_create_qp(pd, &init) : NULL;
	if (!qp || self_rc_to_rts(qp, &port)) {
		printf("SETUP_FAILED objects: %s\n", strerror(errno));
		return 2;
	}
	if (!ibv_query_device(ctx, &dattr) && dattr.max_srq) {
		struct ibv_srq_init_attr sinit = {
			.attr = { .max_wr = 16, .max_sge = 1 },
		};

		/* a CQ big enough that its ring is its own mapping */
		scq = ibv_create_cq(ctx, 8192, NULL, NULL, 0);
		srq = scq ? ibv_create_srq(pd, &sinit) : NULL;
		init.recv_cq = scq;
		init.srq = srq;
		sqp = srq ? ibv_create_qp(pd, &init) : NULL;
		if (!sqp) {
			printf("SETUP_FAILED SRQ objects: %s\n",
			       strerror(errno));
			return 2;
		}
	}
	/* receives nothing will match: outstanding when the device dies */
	for (n = 0; n < 3; n++) {
		struct ibv_sge sge = { (uintptr_t)buf, 64, mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = 100 + n, .sg_list = &sge,
					   .num_sge = 1 }, *rbad;

		if (ibv_post_recv(qp, &rwr, &rbad)) {
			printf("SETUP_FAILED post_recv: %s\n", strerror(errno));
			return 2;
		}
	}
	printf("READY qpn=%u\n", qp->qp_num);

	pfd.fd = ctx->async_fd;
	pfd.events = POLLIN;
	t0 = now_ms();
	for (end = t0 + secs * 1000LL; !fatal && now_ms() < end;) {
		if (poll(&pfd, 1, 200) <= 0 || ibv_get_async_event(ctx, &ev))
			continue;
		printf("EVENT %s %lld\n", ibv_event_type_str(ev.event_type),
		       now_ms() - t0);
		fatal = ev.event_type == IBV_EVENT_DEVICE_FATAL;
		if (fatal)
			printf("DEVICE_FATAL\n");
		ibv_ack_async_event(&ev);
	}
	if (!fatal) {
		printf("NO_FATAL after %d s\n", secs);
		ok = 0;
	}

	pd2 = ibv_alloc_pd(ctx);
	printf("CREATE_FAILS %s errno=%d\n", pd2 ? "no" : "yes",
	       pd2 ? 0 : errno);
	if (pd2) {
		ok = 0;
		ibv_dealloc_pd(pd2);
	}
	{
		struct ibv_sge sge = { (uintptr_t)buf, 64, mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 7, .sg_list = &sge,
					  .num_sge = 1,
					  .opcode = IBV_WR_RDMA_WRITE,
					  .send_flags = IBV_SEND_SIGNALED },
				   *bad;

		wr.wr.rdma.remote_addr = (uintptr_t)buf + 2048;
		wr.wr.rdma.rkey = mr->rkey;
		int got = 0, not_flush = 0, want;
		unsigned int seen = 0;

		rc = ibv_post_send(qp, &wr, &bad);
		printf("SEND rc=%d\n", rc);
		want = 3 + !rc;
		/* the device is gone: nothing completes but flushed */
		usleep(500000);
		while (got < 16 && ibv_poll_cq(cq, 1, &wc) == 1) {
			got++;
			if (wc.status != IBV_WC_WR_FLUSH_ERR)
				not_flush++;
			if (wc.wr_id == 7)
				seen |= 1;
			else if (wc.wr_id >= 100 && wc.wr_id < 103)
				seen |= 2U << (wc.wr_id - 100);
		}
		printf("FLUSHED n=%d want=%d not_flush_err=%d wr_ids=%s\n",
		       got, want, not_flush,
		       seen == (rc ? 0xeU : 0xfU) ? "all" : "missing");
		if (got != want || not_flush || seen != (rc ? 0xeU : 0xfU))
			ok = 0;
	}
	if (sqp) {
		int cq_rc = ibv_destroy_cq(scq), srq_rc = ibv_destroy_srq(srq);

		printf("ORDER cq=%s srq=%s\n", strerror(cq_rc), strerror(srq_rc));
		if (cq_rc != EBUSY || srq_rc != EBUSY)
			return 1;	/* freed under a live QP: stop here */
		rc = ibv_destroy_qp(sqp);
		rc |= ibv_destroy_srq(srq);
		rc |= ibv_destroy_cq(scq);
		printf("SRQ_CLOSED rc=%d\n", rc);
		if (rc)
			ok = 0;
	}
	rc = ibv_destroy_qp(qp);
	rc |= ibv_dereg_mr(mr);
	rc |= ibv_destroy_cq(cq);
	rc |= ibv_dealloc_pd(pd);
	rc |= ibv_close_device(ctx);
	printf("CLOSED rc=%d\n", rc);
	if (rc)
		ok = 0;
	return ok ? 0 : 1;
}
