// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_limits: resource limits are enforced exactly.
 *   usage: verbs_limits [-d DEV] [--max-qp N] [--max-pd N] [--max-cq N]
 *                       [--config FILE] [--set KEY=VALUE]...
 * N of a resource must be creatable and N+1 must fail with ENOMEM or EINVAL.
 * --max-qp defaults to the device's max_qp; PDs and CQs are checked only when
 * their limit is given (the test itself holds one PD and one CQ while
 * creating QPs, and none while checking PDs/CQs).
 * Per-object limits (ibv_query_device_ex(3): "The maximum values returned
 * by this function are the upper limits of supported resources"): a QP with
 * max_qp_wr work requests, the configured send/receive SGEs and inline
 * size, and a CQ with max_cqe entries can be created; one more fails with
 * EINVAL.  The SGE and inline limits are not in ibv_device_attr (only
 * min(send, recv) SGEs is), so they come from tests/verbs/expect.h.
 */
#include "common.h"
#include "expect.h"

enum res { RES_QP, RES_PD, RES_CQ };

static const char *const res_name[] = { "QP", "PD", "CQ" };

static void *create(enum res r, struct ibv_context *ctx, struct ibv_pd *pd,
		    struct ibv_cq *cq)
{
	switch (r) {
	case RES_QP:
		return create_qp(pd, cq, IBV_QPT_UD);
	case RES_PD:
		return ibv_alloc_pd(ctx);
	case RES_CQ:
		return ibv_create_cq(ctx, 1, NULL, NULL, 0);
	}
	return NULL;
}

static int destroy(enum res r, void *obj)
{
	switch (r) {
	case RES_QP:
		return ibv_destroy_qp(obj);
	case RES_PD:
		return ibv_dealloc_pd(obj);
	case RES_CQ:
		return ibv_destroy_cq(obj);
	}
	return EINVAL;
}

static void check_limit(enum res r, long max, struct ibv_context *ctx,
			struct ibv_pd *pd, struct ibv_cq *cq)
{
	void **objs = calloc(max + 1, sizeof(*objs));
	long n, i;
	int destroy_failed = 0, err = 0;
	void *extra;

	if (!objs) {
		ok(false, "%s: allocate bookkeeping", res_name[r]);
		return;
	}
	for (n = 0; n < max; n++) {
		objs[n] = create(r, ctx, pd, cq);
		if (!objs[n]) {
			err = errno;
			break;
		}
	}
	ok(n == max, "%s: created %ld of %ld%s%s", res_name[r], n, max,
	   n == max ? "" : ", failed with ", n == max ? "" : strerror(err));

	if (n == max) {
		extra = create(r, ctx, pd, cq);
		err = errno;
		ok(!extra && (err == ENOMEM || err == EINVAL),
		   "%s: number %ld fails with ENOMEM or EINVAL (%s)",
		   res_name[r], max + 1,
		   extra ? "succeeded" : strerror(err));
		if (extra)
			destroy(r, extra);
	}

	for (i = 0; i < n; i++)
		if (destroy(r, objs[i]))
			destroy_failed++;
	ok(!destroy_failed, "%s: destroyed all %ld (%d failures)", res_name[r],
	   n, destroy_failed);

	/* After freeing, one can be created again */
	extra = create(r, ctx, pd, cq);
	ok(extra != NULL, "%s: create works again after freeing", res_name[r]);
	if (extra)
		destroy(r, extra);
	free(objs);
}

/* cap.FIELD = LIMIT works, LIMIT + 1 fails with EINVAL */
#define EQ_LIMIT(field, limit, what)                                          \
	do {                                                                  \
		cap = base;                                                   \
		cap.field = (limit);                                          \
		ret = try_qp(pd, cq, cap);                                    \
		ok(!ret, "RC QP with " #field " = %s %u: %s", what,           \
		   (unsigned int)(limit), err_str(ret));                      \
		cap.field = (limit) + 1;                                      \
		ret = try_qp(pd, cq, cap);                                    \
		ok(ret == EINVAL,                                             \
		   "RC QP with " #field " = %s + 1 fails with EINVAL (got %s)", \
		   what, err_str(ret));                                       \
	} while (0)

/* Create an RC QP with @cap; 0 or errno */
static int try_qp(struct ibv_pd *pd, struct ibv_cq *cq, struct ibv_qp_cap cap)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .cap = cap,
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp *qp;

	errno = 0;
	qp = ibv_create_qp(pd, &init);
	if (!qp)
		return errno ? errno : EIO;
	ibv_destroy_qp(qp);
	return 0;
}

static void object_limits(struct ibv_context *ctx, const struct expect *c,
			  const struct ibv_device_attr *attr)
{
	const struct ibv_qp_cap base = { .max_send_wr = 1, .max_recv_wr = 1,
					 .max_send_sge = 1, .max_recv_sge = 1 };
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	struct ibv_qp_cap cap;
	struct ibv_cq *big;
	int ret;

	if (!ok(pd && cq, "alloc_pd + create_cq for the per-object limits"))
		goto out;
	EQ_LIMIT(max_send_wr, (uint32_t)attr->max_qp_wr, "max_qp_wr");
	EQ_LIMIT(max_recv_wr, (uint32_t)attr->max_qp_wr, "max_qp_wr");
	EQ_LIMIT(max_send_sge, (uint32_t)c->max_send_sge, "configured max_send_sge");
	EQ_LIMIT(max_recv_sge, (uint32_t)c->max_recv_sge, "configured max_recv_sge");
	EQ_LIMIT(max_inline_data, (uint32_t)c->max_inline_data,
		 "configured max_inline_data");
	ok(attr->max_sge == (int)(c->max_send_sge < c->max_recv_sge ?
					  c->max_send_sge : c->max_recv_sge),
	   "device max_sge %d is min(max_send_sge, max_recv_sge)",
	   attr->max_sge);

	big = ibv_create_cq(ctx, attr->max_cqe, NULL, NULL, 0);
	ok(big != NULL, "CQ with max_cqe %d entries: %s", attr->max_cqe,
	   big ? "success" : strerror(errno));
	if (big)
		ibv_destroy_cq(big);
	errno = 0;
	big = ibv_create_cq(ctx, attr->max_cqe + 1, NULL, NULL, 0);
	ok(!big && errno == EINVAL, "CQ with max_cqe + 1 entries fails with EINVAL (got %s)",
	   big ? "success" : strerror(errno));
	if (big)
		ibv_destroy_cq(big);
out:
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	long max[3] = { -1, -1, -1 };
	struct expect ex;
	struct ibv_device_attr attr;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	int ret;

	if (expect_init(&ex, &argc, argv)) {
		fprintf(stderr, "%s: bad --config/--set\n", argv[0]);
		return 125;
	}
	for (int i = 1; i < argc; i++) {
		long *dst = NULL;

		if (!strcmp(argv[i], "--max-qp"))
			dst = &max[RES_QP];
		else if (!strcmp(argv[i], "--max-pd"))
			dst = &max[RES_PD];
		else if (!strcmp(argv[i], "--max-cq"))
			dst = &max[RES_CQ];
		if (!dst || i + 1 >= argc || (*dst = atol(argv[++i])) <= 0) {
			fprintf(stderr,
				"usage: %s [-d DEV] [--max-qp N] [--max-pd N] [--max-cq N] [--config F] [--set K=V]...\n",
				argv[0]);
			return 125;
		}
	}

	ctx = open_device_by_name(dev);
	if (!ok(ctx != NULL, "open %s", dev))
		return tap_done();
	ret = ibv_query_device(ctx, &attr);
	ok(!ret, "query_device: %s", err_str(ret));
	if (max[RES_QP] < 0)
		max[RES_QP] = attr.max_qp;
	diag("limits: qp %ld pd %ld cq %ld (device max_qp %d max_pd %d max_cq %d)",
	     max[RES_QP], max[RES_PD], max[RES_CQ], attr.max_qp, attr.max_pd,
	     attr.max_cq);

	object_limits(ctx, &ex, &attr);

	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (ok(pd && cq, "alloc_pd + create_cq for the QPs"))
		check_limit(RES_QP, max[RES_QP], ctx, pd, cq);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);

	if (max[RES_PD] > 0)
		check_limit(RES_PD, max[RES_PD], ctx, NULL, NULL);
	if (max[RES_CQ] > 0)
		check_limit(RES_CQ, max[RES_CQ], ctx, NULL, NULL);

	ibv_close_device(ctx);
	return tap_done();
}
