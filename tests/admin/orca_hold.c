// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * orca_hold: keep one of each verbs object open for tests/vm/admin.sh,
 * which looks at them from the outside (rdma res, trace events, debugfs).
 *
 *   orca_hold -d DEV
 *
 * Creates a PD, two CQs (33 and 100 entries asked), an MR over 3 pages +
 * 100 bytes starting 100 bytes into a page, and an RC QP (send CQ = the
 * first CQ, receive CQ = the second) moved to INIT.  Prints what it knows
 * of them as key=value lines, then "ready", then answers one line per
 * command read from stdin:
 *
 *   cq          create and destroy a CQ of 7 entries  -> "cq 0" or "cq ERRNO"
 *   pd          allocate and free a PD                -> "pd 0" or "pd ERRNO"
 *   badmodify   RTS -> RTS claiming IBV_QP_CUR_STATE RTS, which only the
 *               device can refuse (the QP is in INIT) -> "badmodify ERRNO"
 *   state       ibv_query_qp                          -> "state NAME"
 *   quit (or end of input)  destroy everything and exit 0
 *
 * The expected ring geometry (exp_*) follows the rules the provider and
 * the device share (orca_hw_io.h): depths are the requested WR counts
 * rounded up to a power of two, strides hold the SGEs and the inline data.
 * Exit status: 0, or 1 if a setup step failed (with a message on stderr).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "orca_hw_io.h"

#define SEND_CQE	33
#define RECV_CQE	100
#define SEND_WR		10
#define RECV_WR		5
#define SEND_SGE	2
#define RECV_SGE	3
#define INLINE		40
#define MR_PAGES	3
#define MR_OFF		100

static const char *const qps_names[] = {
	[IBV_QPS_RESET] = "RESET", [IBV_QPS_INIT] = "INIT",
	[IBV_QPS_RTR] = "RTR", [IBV_QPS_RTS] = "RTS", [IBV_QPS_SQD] = "SQD",
	[IBV_QPS_SQE] = "SQE", [IBV_QPS_ERR] = "ERR",
};

static const char *qps_name(enum ibv_qp_state s)
{
	return (unsigned int)s < sizeof(qps_names) / sizeof(qps_names[0]) ?
	       qps_names[s] : "UNKNOWN";
}

static uint32_t pow2_up(uint32_t v)
{
	return v ? 1U << orca_ilog2_up(v) : 0;
}

static int die(const char *what, int err)
{
	fprintf(stderr, "orca_hold: %s: %s\n", what, strerror(err));
	return 1;
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name)) {
			ctx = ibv_open_device(list[i]);
			break;
		}
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

static void serve(struct ibv_context *ctx, struct ibv_qp *qp)
{
	struct ibv_pd *pd;

	char line[64];

	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strcmp(line, "cq")) {
			struct ibv_cq *cq = ibv_create_cq(ctx, 7, NULL, NULL, 0);
			int err = cq ? ibv_destroy_cq(cq) : errno;

			printf("cq %d\n", err);
		} else if (!strcmp(line, "pd")) {
			pd = ibv_alloc_pd(ctx);
			printf("pd %d\n", pd ? ibv_dealloc_pd(pd) : errno);
		} else if (!strcmp(line, "badmodify")) {
			struct ibv_qp_attr a = {
				.qp_state = IBV_QPS_RTS,
				.cur_qp_state = IBV_QPS_RTS,
			};

			printf("badmodify %d\n",
			       ibv_modify_qp(qp, &a,
					     IBV_QP_STATE | IBV_QP_CUR_STATE));
		} else if (!strcmp(line, "state")) {
			struct ibv_qp_init_attr init;
			struct ibv_qp_attr a;
			int err = ibv_query_qp(qp, &a, IBV_QP_STATE, &init);

			printf("state %s\n", err ? "ERROR" : qps_name(a.qp_state));
		} else if (!strcmp(line, "quit")) {
			return;
		} else {
			printf("unknown %s\n", line);
		}
	}
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr qpa = {
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = SEND_WR,
			.max_recv_wr = RECV_WR,
			.max_send_sge = SEND_SGE,
			.max_recv_sge = RECV_SGE,
			.max_inline_data = INLINE,
		},
	};
	struct ibv_qp_attr init = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	long page = sysconf(_SC_PAGESIZE);
	struct ibv_cq *scq, *rcq;
	struct ibv_context *ctx;
	const char *dev = NULL;
	struct ibv_qp *qp;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t len;
	int opt;

	while ((opt = getopt(argc, argv, "d:")) != -1) {
		if (opt != 'd') {
			fprintf(stderr, "usage: %s -d DEV\n", argv[0]);
			return 2;
		}
		dev = optarg;
	}
	if (!dev) {
		fprintf(stderr, "usage: %s -d DEV\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	ctx = open_dev(dev);
	if (!ctx)
		return die("open device", errno ? errno : ENODEV);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		return die("ibv_alloc_pd", errno);
	scq = ibv_create_cq(ctx, SEND_CQE, NULL, NULL, 0);
	rcq = ibv_create_cq(ctx, RECV_CQE, NULL, NULL, 0);
	if (!scq || !rcq)
		return die("ibv_create_cq", errno);
	/* a mapping of its own: the region starts MR_OFF into a page */
	buf = mmap(NULL, (MR_PAGES + 2) * page, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return die("mmap", errno);
	len = MR_PAGES * page + 100;
	mr = ibv_reg_mr(pd, buf + MR_OFF, len,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mr)
		return die("ibv_reg_mr", errno);
	qpa.send_cq = scq;
	qpa.recv_cq = rcq;
	qp = ibv_create_qp(pd, &qpa);
	if (!qp)
		return die("ibv_create_qp", errno);
	opt = ibv_modify_qp(qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (opt)
		return die("ibv_modify_qp RESET -> INIT", opt);

	printf("pid=%d\n", (int)getpid());
	printf("send_cqe=%d\n", scq->cqe);
	printf("recv_cqe=%d\n", rcq->cqe);
	printf("cq_dbrec_size=%zu\n", sizeof(struct orca_cq_dbrec));
	printf("qpn=%u\n", qp->qp_num);
	printf("qp_state=INIT\n");
	printf("exp_sq_depth=%u\n", pow2_up(SEND_WR));
	printf("exp_rq_depth=%u\n", pow2_up(RECV_WR));
	printf("exp_sq_stride=%u\n",
	       1U << orca_sq_log_stride(SEND_SGE, (INLINE + 15) & ~15U));
	printf("exp_rq_stride=%u\n", 1U << orca_rq_log_stride(RECV_SGE));
	printf("qp_dbrec_size=%zu\n", sizeof(struct orca_qp_dbrec));
	printf("mr_addr=%" PRIu64 "\n", (uint64_t)(uintptr_t)mr->addr);
	printf("mr_len=%zu\n", mr->length);
	printf("mr_lkey=%u\n", mr->lkey);
	printf("mr_rkey=%u\n", mr->rkey);
	printf("ready\n");

	serve(ctx, qp);

	opt = ibv_destroy_qp(qp);
	if (!opt)
		opt = ibv_dereg_mr(mr);
	if (!opt)
		opt = ibv_destroy_cq(rcq);
	if (!opt)
		opt = ibv_destroy_cq(scq);
	if (!opt)
		opt = ibv_dealloc_pd(pd);
	if (opt)
		return die("destroy", opt);
	munmap(buf, (MR_PAGES + 2) * page);
	ibv_close_device(ctx);
	return 0;
}
