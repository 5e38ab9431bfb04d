// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_ece: ibv_query_ece / ibv_set_ece semantics on orca RC QPs.
 *   usage: verbs_ece [-d DEV]
 * ECE may be absent (ibv_query_ece(3): EOPNOTSUPP); then only the
 * consistency of that answer is checked and the rest is reported as SKIP.
 */
#include "common.h"

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_port_attr port;
	uint32_t vendor;
	uint32_t supported;
};

static int query(struct ibv_qp *qp, struct ibv_ece *ece)
{
	memset(ece, 0xa5, sizeof(*ece));
	return ibv_query_ece(qp, ece);
}

/* set_ece(request) before RTR, bring the QP to RTS, expect @accepted */
static void negotiate(struct env *e, uint32_t request, const char *what)
{
	struct ibv_ece ece = { .vendor_id = e->vendor, .options = request };
	struct ibv_qp *qp;
	uint32_t accepted = request & e->supported;
	int ret;

	qp = create_qp(e->pd, e->cq, IBV_QPT_RC);
	if (!ok(qp != NULL, "%s: create RC QP", what))
		return;
	ret = walk_to(qp, &e->port, IBV_QPS_RESET, IBV_QPS_INIT);
	ok(!ret, "%s: RESET->INIT: %s", what, err_str(ret));

	ret = ibv_set_ece(qp, &ece);
	ok(!ret, "%s: set_ece(options %#x): %s", what, request, err_str(ret));
	ret = query(qp, &ece);
	ok(!ret && ece.options == e->supported,
	   "%s: query_ece before RTR still reports %#x (got %#x)", what,
	   e->supported, ece.options);

	/* A failed modify must not consume the pending request */
	{
		struct ibv_qp_attr a;

		fill_attr(&a, qp, &e->port, IBV_QPS_RTR);
		ret = ibv_modify_qp(qp, &a,
				    required_mask(IBV_QPT_RC, IBV_QPS_INIT,
						  IBV_QPS_RTR) &
					    ~IBV_QP_DEST_QPN);
		ok(ret == EINVAL, "%s: INIT->RTR without DEST_QPN -> EINVAL (got %s)",
		   what, err_str(ret));
	}

	ret = walk_to(qp, &e->port, IBV_QPS_INIT, IBV_QPS_RTR);
	ok(!ret, "%s: INIT->RTR: %s", what, err_str(ret));
	ret = query(qp, &ece);
	ok(!ret && ece.vendor_id == e->vendor && ece.options == accepted &&
		   ece.comp_mask == 0,
	   "%s: query_ece in RTR = {vendor %#x, options %#x, comp_mask 0} (got {%#x, %#x, %#x})",
	   what, e->vendor, accepted, ece.vendor_id, ece.options,
	   ece.comp_mask);

	ret = walk_to(qp, &e->port, IBV_QPS_RTR, IBV_QPS_RTS);
	ok(!ret, "%s: RTR->RTS: %s", what, err_str(ret));
	ret = query(qp, &ece);
	ok(!ret && ece.options == accepted,
	   "%s: query_ece in RTS options %#x (got %#x)", what, accepted,
	   ece.options);

	ret = ibv_destroy_qp(qp);
	ok(!ret, "%s: destroy_qp: %s", what, err_str(ret));
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	struct env e = {};
	struct ibv_ece ece;
	struct ibv_qp *qp;
	uint32_t outside;
	int ret;

	e.ctx = open_device_by_name(dev);
	if (!ok(e.ctx != NULL, "open %s", dev))
		return tap_done();
	ret = ibv_query_port(e.ctx, 1, &e.port);
	ok(!ret, "query_port 1: %s", err_str(ret));
	e.pd = ibv_alloc_pd(e.ctx);
	e.cq = ibv_create_cq(e.ctx, 16, NULL, NULL, 0);
	if (!ok(e.pd && e.cq, "alloc_pd + create_cq"))
		goto out;

	qp = create_qp(e.pd, e.cq, IBV_QPT_RC);
	if (!ok(qp != NULL, "create RC QP"))
		goto out;

	ret = query(qp, &ece);
	if (ret == EOPNOTSUPP) {
		ok(true, "query_ece: EOPNOTSUPP (device without ECE)");
		ece = (struct ibv_ece){ .vendor_id = 0x00ca7a, .options = 1 };
		ret = ibv_set_ece(qp, &ece);
		ok(ret == EOPNOTSUPP, "set_ece without ECE -> EOPNOTSUPP (got %s)",
		   err_str(ret));
		skip("device does not support ECE", "ECE negotiation");
		ibv_destroy_qp(qp);
		goto out;
	}
	if (!ok(!ret, "query_ece after create: %s", err_str(ret))) {
		ibv_destroy_qp(qp);
		goto out;
	}
	e.vendor = ece.vendor_id;
	e.supported = ece.options;
	ok(ece.vendor_id != 0, "query_ece vendor_id %#x non-zero", ece.vendor_id);
	ok(ece.comp_mask == 0, "query_ece comp_mask 0 (got %#x)", ece.comp_mask);
	ok(ece.options != 0, "query_ece reports supported options %#x",
	   ece.options);

	/* Invalid requests (ibv_set_ece(3)): nothing changes */
	ece = (struct ibv_ece){ .vendor_id = e.vendor,
				.options = e.supported, .comp_mask = 1 };
	ret = ibv_set_ece(qp, &ece);
	ok(ret == EINVAL, "set_ece comp_mask 1 -> EINVAL (got %s)", err_str(ret));
	ece = (struct ibv_ece){ .vendor_id = e.vendor ^ 0x1,
				.options = e.supported };
	ret = ibv_set_ece(qp, &ece);
	ok(ret == EINVAL, "set_ece foreign vendor_id -> EINVAL (got %s)",
	   err_str(ret));
	ece = (struct ibv_ece){ .vendor_id = 0, .options = e.supported };
	ret = ibv_set_ece(qp, &ece);
	ok(ret == EOPNOTSUPP, "set_ece vendor_id 0 -> EOPNOTSUPP (got %s)",
	   err_str(ret));
	outside = ~e.supported;
	if (outside) {
		outside &= -outside;	/* lowest unsupported bit */
		ece = (struct ibv_ece){ .vendor_id = e.vendor,
					.options = e.supported | outside };
		ret = ibv_set_ece(qp, &ece);
		ok(ret == EINVAL, "set_ece with unsupported option %#x -> EINVAL (got %s)",
		   outside, err_str(ret));
	}
	ret = query(qp, &ece);
	ok(!ret && ece.options == e.supported && ece.vendor_id == e.vendor,
	   "query_ece unchanged after rejected set_ece (%#x)", ece.options);
	ret = ibv_destroy_qp(qp);
	ok(!ret, "destroy_qp: %s", err_str(ret));

	/* Negotiation on INIT->RTR / RTR->RTS */
	negotiate(&e, e.supported, "all supported");
	if (e.supported & (e.supported - 1))
		negotiate(&e, e.supported & -e.supported, "subset");
	negotiate(&e, 0, "none");

	/* No set_ece: the QP keeps reporting the supported options */
	qp = create_qp(e.pd, e.cq, IBV_QPT_RC);
	if (ok(qp != NULL, "create RC QP without set_ece")) {
		ret = walk_to(qp, &e.port, IBV_QPS_RESET, IBV_QPS_INIT) ||
		      walk_to(qp, &e.port, IBV_QPS_INIT, IBV_QPS_RTR) ||
		      walk_to(qp, &e.port, IBV_QPS_RTR, IBV_QPS_RTS);
		ok(!ret, "bring it to RTS");
		ret = query(qp, &ece);
		ok(!ret && ece.options == e.supported,
		   "query_ece in RTS without set_ece = %#x (got %#x)",
		   e.supported, ece.options);
		ibv_destroy_qp(qp);
	}
out:
	if (e.cq)
		ibv_destroy_cq(e.cq);
	if (e.pd)
		ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	return tap_done();
}
