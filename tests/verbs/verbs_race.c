// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Concurrent create/destroy against a device that reuses a number the
 * moment it is freed (hostctl reuse-handles 1).  A destroy must forget
 * its CQN/QPN before the device can hand it out again, or a concurrent
 * create that gets it fails (and destroys a valid object).  Every create
 * and destroy must succeed.  Needs the orca VM.
 *
 * Concurrent resizes of one CQ from two processes sharing the context
 * (fork): ib_uverbs holds the CQ only for read while it resizes, so the
 * driver must serialize them; each resize used to release the same old
 * ring, unpinning its pages twice (the verbs fuzzer's "Bad page state").
 * Every resize succeeds and the kernel logs no memory error.
 *
 * A QP destroyed with a completion of its own still in its CQ, and a new
 * QP that gets the same QPN at once: the new QP must never see the old
 * one's completion (a wrong wr_id, and its receive queue counted as full
 * for ever after).
 *
 * A CQ destroyed with its completion event still in the completion EQ
 * (the device's interrupt held back: hostctl comp-irq-hold 1), and a new
 * CQ on another channel that gets the same CQN: the new CQ's channel must
 * never get the old CQ's event (review-driver finding 5).
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/wait.h>

#include "common.h"

#define ROUNDS	300

static struct ibv_context *ctx;
static struct ibv_pd *pd;

struct worker {
	pthread_t thread;
	int cq_fail, qp_fail, destroy_fail;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		struct ibv_cq *cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
		struct ibv_qp *qp;

		if (!cq) {
			w->cq_fail++;
			continue;
		}
		qp = create_qp(pd, cq, i & 1 ? IBV_QPT_UD : IBV_QPT_RC);
		if (!qp)
			w->qp_fail++;
		else if (ibv_destroy_qp(qp))
			w->destroy_fail++;
		if (ibv_destroy_cq(cq))
			w->destroy_fail++;
	}
	return NULL;
}

#define RESIZES	300

/* /dev/kmsg from now on: its records are read by kmsg_errors() */
static int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* kernel memory errors logged since kmsg_open() */
static int kmsg_errors(int fd)
{
	static const char *const bad[] = {
		"Bad page", "BUG:", "general protection", "WARNING:",
	};
	char rec[8192];
	unsigned int i;
	ssize_t n;
	int errors = 0;

	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;
		rec[n] = 0;
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			if (strstr(rec, bad[i])) {
				diag("kernel: %s", strchr(rec, ';') ? strchr(rec, ';') + 1 : rec);
				errors++;
			}
	}
	return errors;
}

/* resizes of @cq, alternating between two sizes; the number that failed */
static int resize_loop(struct ibv_cq *cq, int salt)
{
	int i, failed = 0;

	for (i = 0; i < RESIZES; i++)
		if (ibv_resize_cq(cq, (i + salt) & 1 ? 64 : 200))
			failed++;
	return failed;
}

static void concurrent_resize(void)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	int kmsg = kmsg_open(), st = 0, failed;
	pid_t child;

	if (!ok(cq != NULL, "a CQ to resize"))
		goto out;
	fflush(stdout);
	child = fork();
	if (child == 0)
		_exit(resize_loop(cq, 1) ? 1 : 0);
	failed = resize_loop(cq, 0);
	if (child > 0)
		waitpid(child, &st, 0);
	ok(child > 0 && !failed && WIFEXITED(st) && !WEXITSTATUS(st),
	   "2 processes x %d resizes of one CQ: all succeed (parent %d failed, child status 0x%x)",
	   RESIZES, failed, st);
	ok(!ibv_destroy_cq(cq), "destroy the resized CQ");
	if (kmsg >= 0)
		ok(!kmsg_errors(kmsg), "no Bad page, BUG, GPF or WARNING in the kernel log");
	else
		skip("cannot read /dev/kmsg", "kernel log check");
out:
	if (kmsg >= 0)
		close(kmsg);
}

/*
 * A's receive is flushed into CQ c (A moved to ERR); the completion
 * event says the CQE is in the ring, and nobody polls it.  A is
 * destroyed, B gets A's QPN: c must be empty for B, and B's receive queue
 * must take max_recv_wr receives.
 */
/* A QP on @cq, INIT, one receive, @cq armed, then ERR: one flush CQE. */
static struct ibv_qp *flush_one_recv(struct ibv_cq *cq, struct ibv_mr *mr,
				     const struct ibv_port_attr *port)
{
	struct ibv_sge sge = { .addr = (uintptr_t)mr->addr, .length = 64,
			       .lkey = mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 0xc, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	struct ibv_qp *qp = create_qp(pd, cq, IBV_QPT_RC);

	if (qp && !walk_to(qp, port, IBV_QPS_RESET, IBV_QPS_INIT) &&
	    !ibv_post_recv(qp, &wr, &bad) && !ibv_req_notify_cq(cq, 0) &&
	    !walk_to(qp, port, IBV_QPS_INIT, IBV_QPS_ERR))
		return qp;
	if (qp)
		ibv_destroy_qp(qp);
	return NULL;
}

static void stale_cqe_after_destroy(void)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq *cq = ch ? ibv_create_cq(ctx, 16, NULL, ch, 0) : NULL;
	static uint8_t buf[4096];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf),
				       IBV_ACCESS_LOCAL_WRITE);
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 64 };
	struct ibv_recv_wr wr = { .wr_id = 0xa, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	struct ibv_qp *a = NULL, *b = NULL;
	struct ibv_port_attr port;
	struct ibv_wc wc;
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	struct pollfd pfd;
	uint32_t qpn;
	int i, n, posted = 0, err = 0;

	if (!ok(ch && cq && mr && !ibv_query_port(ctx, 1, &port),
		"a CQ on a completion channel and an MR"))
		goto out;
	sge.lkey = mr->lkey;
	a = flush_one_recv(cq, mr, &port);
	if (!ok(a != NULL, "QP A: INIT, one receive posted, then ERR"))
		goto out;
	pfd = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
	if (!ok(poll(&pfd, 1, wait_ms()) == 1 &&
		!ibv_get_cq_event(ch, &ev_cq, &ev_ctx),
		"the flushed receive's completion is in the CQ (its event came)"))
		goto out;
	ibv_ack_cq_events(cq, 1);
	qpn = a->qp_num;
	ok(!ibv_destroy_qp(a), "destroy QP A (0x%x) without polling its completion",
	   qpn);
	a = NULL;
	b = create_qp(pd, cq, IBV_QPT_RC);
	if (!ok(b && b->qp_num == qpn, "QP B gets A's QPN 0x%x (0x%x)", qpn,
		b ? b->qp_num : 0))
		goto out;
	n = ibv_poll_cq(cq, 1, &wc);
	ok(n == 0, "B's CQ holds nothing of A's (%d completions%s)", n,
	   n > 0 && wc.qp_num == qpn ? ", one of A's reported as B's" : "");
	if (!walk_to(b, &port, IBV_QPS_RESET, IBV_QPS_INIT))
		for (i = 0; i < 4 && !err; i++) {
			err = ibv_post_recv(b, &wr, &bad);
			posted += !err;
		}
	ok(posted == 4, "B's receive queue takes its 4 receives (%d; %s)",
	   posted, err ? err_str(err) : "ok");
out:
	if (a)
		ibv_destroy_qp(a);
	if (b)
		ibv_destroy_qp(b);
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(cq);
	if (ch)
		ibv_destroy_comp_channel(ch);
}

static int cq_events_on(struct ibv_comp_channel *ch, int ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n = 0;

	while (poll(&pfd, 1, ms) == 1 && !ibv_get_cq_event(ch, &ev_cq, &ev_ctx)) {
		ibv_ack_cq_events(ev_cq, 1);
		n++;
		ms = 200;	/* anything queued behind it is there already */
	}
	return n;
}

static void stale_ceqe_after_destroy(void)
{
	struct ibv_comp_channel *ch1 = ibv_create_comp_channel(ctx);
	struct ibv_comp_channel *ch2 = ibv_create_comp_channel(ctx);
	struct ibv_cq *a = ch1 ? ibv_create_cq(ctx, 16, NULL, ch1, 0) : NULL;
	static uint8_t buf[4096];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf),
				       IBV_ACCESS_LOCAL_WRITE);
	struct ibv_qp *qa = NULL, *qb = NULL;
	struct ibv_cq *b = NULL;
	struct ibv_port_attr port;
	long long end;
	struct ibv_wc wc;
	int n = 0;

	if (!ok(ch1 && ch2 && a && mr && !ibv_query_port(ctx, 1, &port) &&
		!hostctl("comp-irq-hold 1", NULL, 0),
		"CQ A on channel 1; the device holds completion interrupts"))
		goto out;
	qa = flush_one_recv(a, mr, &port);
	for (end = now_ms() + wait_ms(); qa && !n && now_ms() < end;)
		n = ibv_poll_cq(a, 1, &wc);
	if (!ok(n == 1, "A armed, its QP's receive flushed: the CQE is there, its event held"))
		goto out;
	ok(!ibv_destroy_qp(qa) && !ibv_destroy_cq(a),
	   "destroy A with its event still in the completion EQ");
	qa = NULL;
	a = NULL;
	b = ibv_create_cq(ctx, 16, NULL, ch2, 0);
	ok(b && !hostctl("comp-irq-hold 0", NULL, 0),
	   "CQ B on channel 2 (the device reuses A's CQN); interrupts flow again");
	/* B's own event, behind anything the interrupt delivered */
	qb = b ? flush_one_recv(b, mr, &port) : NULL;
	n = qb ? cq_events_on(ch2, wait_ms()) : -1;
	ok(n == 1, "channel 2 gets B's one event, never A's (%d events)", n);
	n = cq_events_on(ch1, 200);
	ok(n == 0, "channel 1: A's event went with A (%d events)", n);
out:
	hostctl("comp-irq-hold 0", NULL, 0);
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	if (a)
		ibv_destroy_cq(a);
	if (b)
		ibv_destroy_cq(b);
	if (mr)
		ibv_dereg_mr(mr);
	if (ch1)
		ibv_destroy_comp_channel(ch1);
	if (ch2)
		ibv_destroy_comp_channel(ch2);
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	struct worker w[3] = {};
	char reply[256];
	int i, cq_fail = 0, qp_fail = 0, destroy_fail = 0;

	if (!have_hostctl()) {
		skip("not in the orca VM (no hostctl)", "create/destroy race");
		return tap_done();
	}
	ctx = open_device_by_name(dev);
	if (!ok(ctx != NULL, "open %s", dev))
		return tap_done();
	pd = ibv_alloc_pd(ctx);
	if (!ok(pd != NULL, "alloc PD") ||
	    !ok(!hostctl("reuse-handles 1", reply, sizeof(reply)),
		"the device reuses freed numbers at once (%s)", reply))
		goto out;
	for (i = 0; i < 3; i++)
		pthread_create(&w[i].thread, NULL, work, &w[i]);
	for (i = 0; i < 3; i++) {
		pthread_join(w[i].thread, NULL);
		cq_fail += w[i].cq_fail;
		qp_fail += w[i].qp_fail;
		destroy_fail += w[i].destroy_fail;
	}
	stale_cqe_after_destroy();
	stale_ceqe_after_destroy();
	hostctl("reuse-handles 0", NULL, 0);
	ok(!cq_fail, "3 threads x %d: every create_cq succeeds (%d failed)",
	   ROUNDS, cq_fail);
	ok(!qp_fail, "3 threads x %d: every create_qp succeeds (%d failed)",
	   ROUNDS, qp_fail);
	ok(!destroy_fail, "every destroy succeeds (%d failed)", destroy_fail);
	concurrent_resize();
out:
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return tap_done();
}
