// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_dio: ibv_query_qp_data_in_order(3) on orca RC and UD QPs in RTS.
 *   usage: verbs_dio [-d DEV] [--expect SEND,WRITE,READ | --expect none]
 * --expect gives the RETURN_CAPS vector the device is configured for (the
 * orca emulator default is 3,3,2: SEND and RDMA_WRITE whole message, RDMA_READ
 * 128-byte blocks); "none" checks only the rules of the man page.
 */
#include "common.h"

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

static void check_qp(struct ibv_qp *qp, const int *expect)
{
	const int all = IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG |
			IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES;
	const char *t = qpt_str(qp->qp_type);
	int caps_by_idx[3] = { -1, -1, -1 };
	static const uint32_t bad_flags[] = { 1u << 1, 1u << 7, 1u << 31 };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
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
		if (expect)
			ok(caps == expect[ops[i].idx],
			   "%s %s RETURN_CAPS == %#x (got %#x)", t,
			   ops[i].name, expect[ops[i].idx], caps);
		for (size_t f = 0; f < sizeof(bad_flags) / sizeof(bad_flags[0]); f++) {
			int r = ibv_query_qp_data_in_order(
				qp, ops[i].op,
				bad_flags[f] | IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS);

			ok(r == 0, "%s %s unknown flag %#x returns 0 (got %d)",
			   t, ops[i].name, bad_flags[f], r);
		}
	}
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	int expect_buf[3] = { 3, 3, 2 };
	int *expect = expect_buf;
	enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UD };
	struct ibv_port_attr port;
	struct ibv_context *ctx;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--expect") && i + 1 < argc) {
			i++;
			if (!strcmp(argv[i], "none"))
				expect = NULL;
			else if (sscanf(argv[i], "%d,%d,%d", &expect_buf[0],
					&expect_buf[1], &expect_buf[2]) != 3) {
				fprintf(stderr, "bad --expect %s\n", argv[i]);
				return 125;
			}
		} else {
			fprintf(stderr,
				"usage: %s [-d DEV] [--expect S,W,R|none]\n",
				argv[0]);
			return 125;
		}
	}

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
		struct ibv_qp *qp = create_qp(pd, cq, types[i]);

		if (!ok(qp != NULL, "create %s QP", qpt_str(types[i])))
			continue;
		ret = walk_to(qp, &port, IBV_QPS_RESET, IBV_QPS_INIT) ||
		      walk_to(qp, &port, IBV_QPS_INIT, IBV_QPS_RTR) ||
		      walk_to(qp, &port, IBV_QPS_RTR, IBV_QPS_RTS);
		ok(!ret, "%s QP to RTS", qpt_str(types[i]));
		check_qp(qp, expect);
		ret = ibv_destroy_qp(qp);
		ok(!ret, "destroy %s QP: %s", qpt_str(types[i]), err_str(ret));
	}
out:
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return tap_done();
}
