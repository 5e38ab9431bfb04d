/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Helpers shared by the orca verb tests: TAP output, device opening and the
 * per-type QP state walk.  Each test prints TAP ("ok N - ...", "not ok N -
 * ...", "ok N - ... # SKIP why", plan last) and exits with the number of
 * failures (capped at 125).
 */
#ifndef ORCA_TESTS_COMMON_H
#define ORCA_TESTS_COMMON_H

#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#ifndef IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS
#define IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS (1 << 0)
#endif
#ifndef IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG
#define IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG (1 << 0)
#endif
#ifndef IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES
#define IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES (1 << 1)
#endif

static int tap_num, tap_failed, tap_skipped;

static inline __attribute__((format(printf, 2, 3))) bool ok(bool pass,
						     const char *fmt, ...)
{
	va_list ap;

	tap_num++;
	printf("%sok %d - ", pass ? "" : "not ", tap_num);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass)
		tap_failed++;
	fflush(stdout);
	return pass;
}

static inline __attribute__((format(printf, 2, 3))) void skip(const char *why,
						       const char *fmt, ...)
{
	va_list ap;

	tap_num++;
	tap_skipped++;
	printf("ok %d - ", tap_num);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", why);
	fflush(stdout);
}

static inline __attribute__((format(printf, 1, 2))) void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_num);
	printf("# pass %d fail %d skip %d\n", tap_num - tap_failed - tap_skipped,
	       tap_failed, tap_skipped);
	return tap_failed > 125 ? 125 : tap_failed;
}

/* Verbs returning an errno value must also be mapped to a name for output */
static inline const char *err_str(int err)
{
	return err ? strerror(err) : "success";
}

static inline struct ibv_context *open_device_by_name(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list) {
		diag("ibv_get_device_list: %s", strerror(errno));
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(list[i]), name))
			continue;
		ctx = ibv_open_device(list[i]);
		if (!ctx)
			diag("ibv_open_device(%s): %s", name, strerror(errno));
		break;
	}
	if (i == n)
		diag("device %s not found (%d devices)", name, n);
	ibv_free_device_list(list);
	return ctx;
}

/* -d NAME (default orca0); returns the index of the first unparsed arg */
static inline const char *parse_dev_arg(int *argc, char ***argv)
{
	const char *dev = "orca0";
	int i, j;

	for (i = 1, j = 1; i < *argc; i++) {
		if (!strcmp((*argv)[i], "-d") && i + 1 < *argc)
			dev = (*argv)[++i];
		else
			(*argv)[j++] = (*argv)[i];
	}
	*argc = j;
	return dev;
}

static inline struct ibv_qp *create_qp(struct ibv_pd *pd, struct ibv_cq *cq,
				enum ibv_qp_type type)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = type,
	};

	return ibv_create_qp(pd, &init);
}

/*
 * Attribute masks the IBTA (and ib_core's qp_state_table) require for each
 * transition of the types orca supports.
 */
static inline int required_mask(enum ibv_qp_type type, enum ibv_qp_state from,
			 enum ibv_qp_state to)
{
	if (from == IBV_QPS_RESET && to == IBV_QPS_INIT)
		return IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		       (type == IBV_QPT_UD ? IBV_QP_QKEY :
					     IBV_QP_ACCESS_FLAGS);
	if (from == IBV_QPS_INIT && to == IBV_QPS_RTR) {
		if (type == IBV_QPT_UD)
			return IBV_QP_STATE;
		return IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		       IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		       (type == IBV_QPT_RC ? IBV_QP_MAX_DEST_RD_ATOMIC |
						     IBV_QP_MIN_RNR_TIMER :
					     0);
	}
	if (from == IBV_QPS_RTR && to == IBV_QPS_RTS)
		return IBV_QP_STATE | IBV_QP_SQ_PSN |
		       (type == IBV_QPT_RC ? IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
						     IBV_QP_RNR_RETRY |
						     IBV_QP_MAX_QP_RD_ATOMIC :
					     0);
	return IBV_QP_STATE;
}

/* Values used for every transition (loopback to the QP itself) */
static inline void fill_attr(struct ibv_qp_attr *a, struct ibv_qp *qp,
		      const struct ibv_port_attr *port, enum ibv_qp_state to)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = to;
	a->pkey_index = 0;
	a->port_num = 1;
	a->qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	a->qkey = 0x11111111;
	a->path_mtu = port->active_mtu;
	a->dest_qp_num = qp->qp_num;
	a->rq_psn = 0x1234;
	a->max_dest_rd_atomic = 1;
	a->min_rnr_timer = 12;
	a->ah_attr.dlid = port->lid;
	a->ah_attr.sl = 0;
	a->ah_attr.port_num = 1;
	a->sq_psn = 0x4321;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->max_rd_atomic = 1;
}

static inline const char *qpt_str(enum ibv_qp_type t)
{
	switch (t) {
	case IBV_QPT_RC: return "RC";
	case IBV_QPT_UC: return "UC";
	case IBV_QPT_UD: return "UD";
	default: return "?";
	}
}

static inline const char *qps_str(enum ibv_qp_state s)
{
	static const char *const names[] = {
		[IBV_QPS_RESET] = "RESET", [IBV_QPS_INIT] = "INIT",
		[IBV_QPS_RTR] = "RTR",	   [IBV_QPS_RTS] = "RTS",
		[IBV_QPS_SQD] = "SQD",	   [IBV_QPS_SQE] = "SQE",
		[IBV_QPS_ERR] = "ERR",
	};

	if ((unsigned int)s < sizeof(names) / sizeof(names[0]) && names[s])
		return names[s];
	return "UNKNOWN";
}

/* Modify with the required mask for cur->to; returns the verb's result */
static inline int walk_to(struct ibv_qp *qp, const struct ibv_port_attr *port,
		   enum ibv_qp_state cur, enum ibv_qp_state to)
{
	struct ibv_qp_attr a;

	fill_attr(&a, qp, port, to);
	return ibv_modify_qp(qp, &a, required_mask(qp->qp_type, cur, to));
}

static inline enum ibv_qp_state query_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
		return (enum ibv_qp_state)-1;
	return a.qp_state;
}

#endif /* ORCA_TESTS_COMMON_H */
