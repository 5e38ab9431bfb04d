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
 */
#include <fcntl.h>
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
