// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Allocation-failure injection across every verb that allocates (debug
 * kernel, tests/vm/failslab.sh).  For each verb and for n = 1, 2, ...:
 * /proc/thread-self/fail-nth makes the n-th fault-injection site of the
 * next system call fail (slab and page allocations: failslab and
 * fail_page_alloc), the verb runs, and whatever it created is destroyed;
 * until a call completes with no fault left to inject.  Every error path
 * of ib_core and orca on the way is taken once.  Prints one line per verb
 * ("VERB name sites=N failed=F ok=K"), "SETUP_FAILED ..." on trouble;
 * exit status 0 if every verb also worked without a fault afterwards.
 *
 *   failnth -d orca0 [-m MAX_SITES]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_port_attr port;
static char buf[8192];

static int set_fail_nth(unsigned int n)
{
	char s[16];
	int fd = open("/proc/thread-self/fail-nth", O_WRONLY), ok;

	if (fd < 0)
		return -1;
	snprintf(s, sizeof(s), "%u", n);
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/* 0 once the armed fault was injected; the sites still to go otherwise */
static long fail_nth_left(void)
{
	char s[16] = "";
	int fd = open("/proc/thread-self/fail-nth", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, s, sizeof(s) - 1);
	close(fd);
	return n > 0 ? strtol(s, NULL, 10) : -1;
}

typedef void *(*make_fn)(void);
typedef void (*free_fn)(void *);

static void *mk_pd(void) { return ibv_alloc_pd(ctx); }
static void fr_pd(void *p) { ibv_dealloc_pd(p); }
static void *mk_cq(void) { return ibv_create_cq(ctx, 64, NULL, NULL, 0); }
static void fr_cq(void *p) { ibv_destroy_cq(p); }
static void *mk_mr(void)
{
	return ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
}
static void fr_mr(void *p) { ibv_dereg_mr(p); }

static void *mk_qp_type(enum ibv_qp_type t)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = t,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2 },
	};

	return ibv_create_qp(pd, &init);
}
static void *mk_rc(void) { return mk_qp_type(IBV_QPT_RC); }
static void *mk_ud(void) { return mk_qp_type(IBV_QPT_UD); }
static void fr_qp(void *p) { ibv_destroy_qp(p); }
static void *mk_ah(void)
{
	struct ibv_ah_attr a = { .dlid = port.lid, .port_num = 1 };

	return ibv_create_ah(pd, &a);
}
static void fr_ah(void *p) { ibv_destroy_ah(p); }
static void *mk_ctx(void)
{
	return ibv_open_device(ctx->device);
}
static void fr_ctx(void *p) { ibv_close_device(p); }

/* modify_qp's error paths: the QP itself is created without a fault */
static void *mk_modify(void) { return mk_rc(); }

static const struct verb {
	const char *name;
	make_fn make;
	free_fn free;
	bool fault_modify;
} verbs[] = {
	{ "open_device", mk_ctx, fr_ctx, false },
	{ "alloc_pd", mk_pd, fr_pd, false },
	{ "create_cq", mk_cq, fr_cq, false },
	{ "reg_mr", mk_mr, fr_mr, false },
	{ "create_qp_rc", mk_rc, fr_qp, false },
	{ "create_qp_ud", mk_ud, fr_qp, false },
	{ "create_ah", mk_ah, fr_ah, false },
	{ "modify_qp", mk_modify, fr_qp, true },
};

static int modify_to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

int main(int argc, char **argv)
{
	const char *name = "orca0";
	unsigned int max = 2000, i, n;
	struct ibv_device **list;
	int opt, bad = 0;

	while ((opt = getopt(argc, argv, "d:m:")) != -1) {
		if (opt == 'd')
			name = optarg;
		else if (opt == 'm')
			max = strtoul(optarg, NULL, 0);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	list = ibv_get_device_list(NULL);
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	pd = ctx ? ibv_alloc_pd(ctx) : NULL;
	cq = pd ? ibv_create_cq(ctx, 64, NULL, NULL, 0) : NULL;
	if (!cq || ibv_query_port(ctx, 1, &port) || set_fail_nth(0)) {
		printf("SETUP_FAILED %s: %s\n", name, strerror(errno));
		return 2;
	}

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++) {
		const struct verb *v = &verbs[i];
		unsigned int failed = 0, oks = 0;
		long left = 0;
		void *obj;

		for (n = 1; n <= max; n++) {
			int rc = 0;

			if (v->fault_modify) {
				obj = v->make();
				if (!obj)
					break;
				set_fail_nth(n);
				rc = modify_to_init(obj);
				left = fail_nth_left();
				set_fail_nth(0);
			} else {
				set_fail_nth(n);
				obj = v->make();
				left = fail_nth_left();
				set_fail_nth(0);
			}
			if (!obj || rc)
				failed++;
			else
				oks++;
			if (obj)
				v->free(obj);
			if (left > 0)
				break;	/* fewer than n sites: all were tried */
		}
		/* and it still works without a fault */
		obj = v->make();
		if (obj && v->fault_modify && modify_to_init(obj)) {
			v->free(obj);
			obj = NULL;
		}
		printf("VERB %s sites=%u failed=%u ok=%u after=%s\n", v->name,
		       n > max ? max : n - 1, failed, oks, obj ? "works" : "BROKEN");
		if (!obj || n > max)
			bad++;
		else
			v->free(obj);
	}
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return bad ? 1 : 0;
}
