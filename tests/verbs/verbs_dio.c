// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_dio: ibv_query_qp_data_in_order(3) on orca RC, UC and UD QPs.
 *   usage: verbs_dio [-d DEV] [--config FILE] [--set KEY=VALUE]...
 *                    [--expect SEND,WRITE,READ | --expect none]
 *          verbs_dio -d DEV --probe N   (internal: the strace probe body)
 *
 * The RETURN_CAPS vector the device must report per opcode comes from the
 * emulator configuration (tests/verbs/expect.h: dio_send, dio_rdma_write,
 * dio_rdma_read; default 3,3,2: SEND and RDMA_WRITE whole message,
 * RDMA_READ 128-byte blocks), or from --expect; "none" checks only the
 * rules of the man page.  The answer must not depend on the QP type or
 * state, and the verb must not make a system call (checked with strace).
 *
 * libibverbs 44 (Debian 12) passes flags to the provider unchanged and its
 * <infiniband/verbs.h> lacks the IBV_QUERY_QP_DATA_IN_ORDER_* names
 * (common.h defines them with the upstream values); newer libibverbs
 * filters unknown flags and adds ALIGNED_128_BYTES to WHOLE_MSG itself.
 * The orca provider implements the whole page, so both give the same
 * answers and the same checks hold.
 */
#include "common.h"
#include "expect.h"

static const struct {
	enum ibv_wr_opcode op;
	const char *name;
	int idx;		/* index into the expectation, -1 = not queried */
} ops[] = {
	{ IBV_WR_SEND, "SEND", 0 },
	{ IBV_WR_SEND_WITH_IMM, "SEND_WITH_IMM", 0 },
	{ IBV_WR_RDMA_WRITE, "RDMA_WRITE", 1 },
	{ IBV_WR_RDMA_WRITE_WITH_IMM, "RDMA_WRITE_WITH_IMM", 1 },
	{ IBV_WR_RDMA_READ, "RDMA_READ", 2 },
	{ IBV_WR_ATOMIC_CMP_AND_SWP, "ATOMIC_CMP_AND_SWP", -1 },
	{ IBV_WR_ATOMIC_FETCH_AND_ADD, "ATOMIC_FETCH_AND_ADD", -1 },
	{ IBV_WR_LOCAL_INV, "LOCAL_INV", -1 },
	{ IBV_WR_BIND_MW, "BIND_MW", -1 },
	{ IBV_WR_SEND_WITH_INV, "SEND_WITH_INV", -1 },
	{ IBV_WR_TSO, "TSO", -1 },
	{ IBV_WR_DRIVER1, "DRIVER1", -1 },
};
#define N_OPS (sizeof(ops) / sizeof(ops[0]))

static const uint32_t bad_flags[] = { 1u << 1, 1u << 7, 1u << 31 };

/* Full check of one QP (in RTS) */
static void check_qp(struct ibv_qp *qp, const int *expect)
{
	const int all = IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG |
			IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES;
	const char *t = qpt_str(qp->qp_type);
	int caps_by_idx[3] = { -1, -1, -1 };

	for (size_t i = 0; i < N_OPS; i++) {
		int r0 = ibv_query_qp_data_in_order(qp, ops[i].op, 0);
		int caps = ibv_query_qp_data_in_order(
			qp, ops[i].op, IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS);

		if (ops[i].idx < 0) {
			ok(r0 == 0 && caps == 0,
			   "%s %s: 0 for flags 0 and RETURN_CAPS (got %d, %d)",
			   t, ops[i].name, r0, caps);
			continue;
		}
		ok(r0 == 0 || r0 == 1, "%s %s flags 0 returns %d", t,
		   ops[i].name, r0);
		ok((caps & ~all) == 0, "%s %s RETURN_CAPS returns %#x (known bits only)",
		   t, ops[i].name, caps);
		ok(r0 == !!(caps & IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG),
		   "%s %s flags 0 == (caps & WHOLE_MSG)", t, ops[i].name);
		if (caps & IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG)
			ok(caps & IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES,
			   "%s %s WHOLE_MSG implies ALIGNED_128_BYTES", t,
			   ops[i].name);
		if (caps_by_idx[ops[i].idx] < 0)
			caps_by_idx[ops[i].idx] = caps;
		else
			ok(caps == caps_by_idx[ops[i].idx],
			   "%s %s answers like its base opcode", t,
			   ops[i].name);
		if (expect) {
			ok(caps == expect[ops[i].idx],
			   "%s %s RETURN_CAPS == %#x (got %#x)", t,
			   ops[i].name, expect[ops[i].idx], caps);
			ok(r0 == !!(expect[ops[i].idx] &
				    IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG),
			   "%s %s flags 0 == %d (1 only with WHOLE_MSG)", t,
			   ops[i].name,
			   !!(expect[ops[i].idx] &
			      IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG));
		}
		for (size_t f = 0; f < sizeof(bad_flags) / sizeof(bad_flags[0]); f++) {
			int r = ibv_query_qp_data_in_order(
				qp, ops[i].op,
				bad_flags[f] | IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS);

			ok(r == 0, "%s %s unknown flag %#x returns 0 (got %d)",
			   t, ops[i].name, bad_flags[f], r);
		}
	}
}

/* Every answer as a vector, to compare QPs, types and states */
static void answers(struct ibv_qp *qp, int *v)
{
	for (size_t i = 0; i < N_OPS; i++) {
		v[2 * i] = ibv_query_qp_data_in_order(qp, ops[i].op, 0);
		v[2 * i + 1] = ibv_query_qp_data_in_order(
			qp, ops[i].op, IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS);
	}
}

static int probe_body(const char *dev, int n)
{
	struct ibv_port_attr port;
	struct ibv_context *ctx = open_device_by_name(dev);
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int i, sum = 0, bad = 0;

	if (!ctx || ibv_query_port(ctx, 1, &port))
		return 2;
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	qp = pd && cq ? create_qp(pd, cq, IBV_QPT_RC) : NULL;
	if (!qp)
		return 2;

	probe_mark(0, true);
	for (i = 0; i < n; i++) {
		size_t k = (size_t)i % N_OPS;

		sum += ibv_query_qp_data_in_order(qp, ops[k].op, 0);
		sum += ibv_query_qp_data_in_order(
			qp, ops[k].op, IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS);
	}
	probe_mark(0, false);

	probe_mark(1, true);
	for (i = 0; i < n; i++)
		bad += !!ibv_query_qp(qp, &qa, IBV_QP_STATE, &ia);
	probe_mark(1, false);

	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return bad || sum < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	int expect_buf[3];
	int *expect = expect_buf;
	enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD };
	int ref[2 * N_OPS], v[2 * N_OPS];
	bool have_ref = false;
	struct probe_section sec[2];
	struct ibv_port_attr port;
	struct ibv_context *ctx;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	struct expect ex;
	const char *src;
	int ret;

	if (argc == 3 && !strcmp(argv[1], "--probe"))
		return probe_body(dev, atoi(argv[2]));
	if (expect_init(&ex, &argc, argv)) {
		fprintf(stderr, "%s: bad --config/--set\n", argv[0]);
		return 125;
	}
	for (int i = 0; i < 3; i++)
		expect_buf[i] = expect_dio(&ex, i);
	src = ex.source;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--expect") && i + 1 < argc) {
			i++;
			src = "--expect";
			if (!strcmp(argv[i], "none"))
				expect = NULL;
			else if (sscanf(argv[i], "%d,%d,%d", &expect_buf[0],
					&expect_buf[1], &expect_buf[2]) != 3) {
				fprintf(stderr, "bad --expect %s\n", argv[i]);
				return 125;
			}
		} else {
			fprintf(stderr,
				"usage: %s [-d DEV] [--config FILE] [--set K=V]... [--expect S,W,R|none]\n",
				argv[0]);
			return 125;
		}
	}
	if (expect)
		diag("expected RETURN_CAPS SEND %#x, RDMA_WRITE %#x, RDMA_READ %#x (from %s)",
		     expect[0], expect[1], expect[2], src);

	ctx = open_device_by_name(dev);
	if (!ok(ctx != NULL, "open %s", dev))
		return tap_done();
	ret = ibv_query_port(ctx, 1, &port);
	ok(!ret, "query_port 1: %s", err_str(ret));
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!ok(pd && cq, "alloc_pd + create_cq"))
		goto out;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		const char *t = qpt_str(types[i]);
		struct ibv_qp *qp = create_qp(pd, cq, types[i]);
		enum ibv_qp_state st = IBV_QPS_RESET;
		bool same = true;

		if (!ok(qp != NULL, "create %s QP", t))
			continue;
		/* the same answers in RESET, INIT, RTR and RTS */
		for (;;) {
			answers(qp, v);
			if (!have_ref) {
				memcpy(ref, v, sizeof(ref));
				have_ref = true;
			} else if (memcmp(ref, v, sizeof(ref))) {
				same = false;
				diag("%s %s answers differently", t,
				     qps_str(st));
			}
			if (st == IBV_QPS_RTS || walk_to(qp, &port, st, st + 1))
				break;
			st++;
		}
		ok(st == IBV_QPS_RTS, "%s QP to RTS", t);
		ok(same,
		   "%s: every answer is the same in RESET, INIT, RTR, RTS and as for the first RC QP",
		   t);
		check_qp(qp, expect);
		ret = ibv_destroy_qp(qp);
		ok(!ret, "destroy %s QP: %s", t, err_str(ret));
	}

	ret = strace_self_probe(dev, 1000, sec, 2);
	if (ok(ret == 0, "strace probe ran (exit %d)", ret)) {
		if (!ok(sec[0].begin && sec[0].end && sec[0].syscalls == 0 &&
				sec[0].ioctl_write == 0,
			"2000 ibv_query_qp_data_in_order calls (flags 0 and RETURN_CAPS, every opcode) make no system call (strace: %d ioctl/write, %d in all)",
			sec[0].ioctl_write, sec[0].syscalls))
			diag("first: %s", sec[0].first);
		ok(sec[1].begin && sec[1].end && sec[1].ioctl_write >= 1000,
		   "control: 1000 ibv_query_qp calls are seen by strace (%d ioctl/write)",
		   sec[1].ioctl_write);
	}
out:
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return tap_done();
}
