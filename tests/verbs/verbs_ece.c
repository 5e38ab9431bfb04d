// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_ece: ibv_query_ece(3) / ibv_set_ece(3) semantics on orca QPs.
 *   usage: verbs_ece [-d DEV] [--config FILE] [--set KEY=VALUE]...
 *          verbs_ece -d DEV --probe N   (internal: the strace probe body)
 *
 * The expected ECE configuration (vendor id = the IEEE OUI, supported
 * options, or no ECE at all with ece=0) comes from tests/verbs/expect.h.
 * With ECE: query_ece after create returns the supported options in every
 * pre-connection state, set_ece requests are negotiated on INIT->RTR or
 * RTR->RTS and query_ece afterwards returns what the device accepted
 * (never an option it does not support); RESET restores the offer.
 * Invalid requests (a bit that is no orca option, another vendor id,
 * comp_mask) fail with EINVAL, vendor_id 0 with EOPNOTSUPP (in
 * libibverbs); an orca option the device lacks may be asked for (a peer's
 * offer) and is dropped by the negotiation.  Without ECE every call fails with EOPNOTSUPP.  Finally the
 * program runs itself under strace: N query_ece calls make no system call.
 */
#include "common.h"
#include "expect.h"

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_port_attr port;
	uint32_t vendor;	/* expected */
	uint32_t supported;	/* expected */
	bool has_ece;
};

static int query(struct ibv_qp *qp, struct ibv_ece *ece)
{
	memset(ece, 0xa5, sizeof(*ece));
	return ibv_query_ece(qp, ece);
}

static bool ece_is(struct ibv_qp *qp, uint32_t vendor, uint32_t options,
		   struct ibv_ece *got)
{
	int ret = query(qp, got);

	return !ret && got->vendor_id == vendor && got->options == options &&
	       got->comp_mask == 0;
}

static bool to_state(struct env *e, struct ibv_qp *qp, enum ibv_qp_state from,
		     enum ibv_qp_state to)
{
	return !walk_to(qp, &e->port, from, to);
}

/* set_ece(request) in @set_in (INIT or RTR), bring the QP to RTS */
static void negotiate(struct env *e, enum ibv_qp_type type, uint32_t request,
		      enum ibv_qp_state set_in, const char *what)
{
	struct ibv_ece ece = { .vendor_id = e->vendor, .options = request };
	const char *t = qpt_str(type);
	uint32_t accepted = request & e->supported;
	enum ibv_qp_state negotiated_at =
		set_in == IBV_QPS_INIT ? IBV_QPS_RTR : IBV_QPS_RTS;
	struct ibv_qp *qp;
	bool good;
	int ret;

	qp = create_qp(e->pd, e->cq, type);
	if (!ok(qp != NULL, "%s %s: create QP", t, what))
		return;
	ret = !to_state(e, qp, IBV_QPS_RESET, IBV_QPS_INIT);
	if (set_in == IBV_QPS_RTR)
		ret |= !to_state(e, qp, IBV_QPS_INIT, IBV_QPS_RTR);
	ok(!ret, "%s %s: to %s", t, what, qps_str(set_in));

	ret = ibv_set_ece(qp, &ece);
	ok(!ret, "%s %s: set_ece(options %#x) in %s: %s", t, what, request,
	   qps_str(set_in), err_str(ret));
	good = ece_is(qp, e->vendor, e->supported, &ece);
	ok(good,
	   "%s %s: query_ece before the negotiating transition still reports the offer %#x (got %#x)",
	   t, what, e->supported, ece.options);

	/* A failed modify must not consume the pending request */
	if (set_in == IBV_QPS_INIT && type != IBV_QPT_UD) {
		struct ibv_qp_attr a;

		fill_attr(&a, qp, &e->port, IBV_QPS_RTR);
		ret = ibv_modify_qp(qp, &a,
				    required_mask(type, IBV_QPS_INIT,
						  IBV_QPS_RTR) &
					    ~IBV_QP_DEST_QPN);
		ok(ret == EINVAL,
		   "%s %s: INIT->RTR without DEST_QPN -> EINVAL (got %s)", t,
		   what, err_str(ret));
	}
	if (set_in == IBV_QPS_INIT) {
		ret = !to_state(e, qp, IBV_QPS_INIT, IBV_QPS_RTR);
		ok(!ret, "%s %s: INIT->RTR", t, what);
		good = ece_is(qp, e->vendor, accepted, &ece);
		ok(good,
		   "%s %s: query_ece in RTR = {vendor %#x, options %#x (requested & supported), comp_mask 0} (got {%#x, %#x, %#x})",
		   t, what, e->vendor, accepted, ece.vendor_id, ece.options,
		   ece.comp_mask);
	}
	ret = !to_state(e, qp, IBV_QPS_RTR, IBV_QPS_RTS);
	ok(!ret, "%s %s: RTR->RTS", t, what);
	good = ece_is(qp, e->vendor, accepted, &ece);
	ok(good,
	   "%s %s: query_ece in RTS = %#x, negotiated on ->%s (got %#x)", t,
	   what, accepted, qps_str(negotiated_at), ece.options);
	ok((ece.options & ~e->supported) == 0,
	   "%s %s: no option outside the supported %#x is claimed", t, what,
	   e->supported);

	/* Outside INIT->RTR / RTR->RTS a request is not negotiated */
	ece.vendor_id = e->vendor;
	ece.options = e->supported;
	ece.comp_mask = 0;
	ret = ibv_set_ece(qp, &ece);
	ret |= walk_to(qp, &e->port, IBV_QPS_RTS, IBV_QPS_SQD);
	good = !ret && ece_is(qp, e->vendor, accepted, &ece);
	ok(good,
	   "%s %s: set_ece in RTS then RTS->SQD leaves the negotiated %#x (got %#x)",
	   t, what, accepted, ece.options);

	/* RESET restores the offer */
	ret = walk_to(qp, &e->port, IBV_QPS_SQD, IBV_QPS_ERR) ||
	      walk_to(qp, &e->port, IBV_QPS_ERR, IBV_QPS_RESET);
	good = !ret && ece_is(qp, e->vendor, e->supported, &ece);
	ok(good,
	   "%s %s: after ->RESET query_ece reports the offer %#x again (got %#x)",
	   t, what, e->supported, ece.options);

	ret = ibv_destroy_qp(qp);
	ok(!ret, "%s %s: destroy_qp: %s", t, what, err_str(ret));
}

static void invalid_requests(struct env *e, struct ibv_qp *qp)
{
	static const uint32_t unknown[] = { 1u << 4, 1u << 16, 1u << 31 };
	struct ibv_ece ece;
	uint32_t outside;
	bool good;
	int ret;

	ece = (struct ibv_ece){ .vendor_id = e->vendor,
				.options = e->supported, .comp_mask = 1 };
	ret = ibv_set_ece(qp, &ece);
	ok(ret == EINVAL, "set_ece comp_mask 1 -> EINVAL (got %s)", err_str(ret));
	ece = (struct ibv_ece){ .vendor_id = e->vendor ^ 0x1,
				.options = e->supported };
	ret = ibv_set_ece(qp, &ece);
	ok(ret == EINVAL, "set_ece foreign vendor_id %#x -> EINVAL (got %s)",
	   ece.vendor_id, err_str(ret));
	ece = (struct ibv_ece){ .vendor_id = 0, .options = e->supported };
	ret = ibv_set_ece(qp, &ece);
	ok(ret == EOPNOTSUPP,
	   "set_ece vendor_id 0 -> EOPNOTSUPP (libibverbs) (got %s)",
	   err_str(ret));
	for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		ece = (struct ibv_ece){ .vendor_id = e->vendor,
					.options = e->supported | unknown[i] };
		ret = ibv_set_ece(qp, &ece);
		ok(ret == EINVAL,
		   "set_ece with undocumented option bit %#x -> EINVAL (got %s)",
		   unknown[i], err_str(ret));
	}
	/*
	 * An orca option the device does not support may be asked for (a
	 * peer's offer): accepted, and negotiated away at RTR below.
	 */
	outside = EXPECT_ECE_OPT_ALL & ~e->supported;
	if (outside) {
		outside &= -outside;
		ece = (struct ibv_ece){ .vendor_id = e->vendor,
					.options = e->supported | outside };
		ret = ibv_set_ece(qp, &ece);
		ok(ret == 0,
		   "set_ece with option %#x the device does not support is accepted (got %s)",
		   outside, err_str(ret));
	}
	good = ece_is(qp, e->vendor, e->supported, &ece);
	ok(good,
	   "query_ece unchanged before the next transition (%#x)", ece.options);
	/* connect: nothing outside the device's options is claimed */
	ret = walk_to(qp, &e->port, IBV_QPS_INIT, IBV_QPS_RTR) ||
	      walk_to(qp, &e->port, IBV_QPS_RTR, IBV_QPS_RTS);
	good = !ret && ece_is(qp, e->vendor, e->supported, &ece);
	ok(good,
	   "INIT->RTR->RTS negotiates the offer %#x, nothing outside it (got %#x)",
	   e->supported, ece.options);
}

/* Device without ECE: both verbs fail with EOPNOTSUPP, in every state */
static void without_ece(struct env *e)
{
	static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC,
						  IBV_QPT_UD };

	for (size_t i = 0; i < 3; i++) {
		const char *t = qpt_str(types[i]);
		struct ibv_qp *qp = create_qp(e->pd, e->cq, types[i]);
		struct ibv_ece ece;
		enum ibv_qp_state st = IBV_QPS_RESET;
		bool all = true;
		int ret;

		if (!ok(qp != NULL, "%s: create QP", t))
			continue;
		for (;;) {
			ret = query(qp, &ece);
			if (ret != EOPNOTSUPP) {
				all = false;
				diag("%s %s: query_ece returned %s", t,
				     qps_str(st), err_str(ret));
			}
			if (st == IBV_QPS_RTS)
				break;
			if (walk_to(qp, &e->port, st, st + 1))
				break;
			st++;
		}
		ok(all && st == IBV_QPS_RTS,
		   "%s: query_ece fails with EOPNOTSUPP in RESET, INIT, RTR and RTS (device without ECE)",
		   t);
		ece = (struct ibv_ece){ .vendor_id = 0x00ca7a, .options = 1 };
		ret = ibv_set_ece(qp, &ece);
		ok(ret == EOPNOTSUPP,
		   "%s: set_ece without ECE -> EOPNOTSUPP (got %s)", t,
		   err_str(ret));
		ibv_destroy_qp(qp);
	}
}

/* ------------------------------------------------------------------ */
/* System calls: none for query_ece                                   */
/* ------------------------------------------------------------------ */

static int probe_body(const char *dev, int n)
{
	struct ibv_port_attr port;
	struct ibv_context *ctx = open_device_by_name(dev);
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	struct ibv_ece ece;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int i, bad = 0, first;

	if (!ctx || ibv_query_port(ctx, 1, &port))
		return 2;
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	qp = pd && cq ? create_qp(pd, cq, IBV_QPT_RC) : NULL;
	if (!qp || walk_to(qp, &port, IBV_QPS_RESET, IBV_QPS_INIT))
		return 2;
	first = ibv_query_ece(qp, &ece);

	probe_mark(0, true);
	for (i = 0; i < n; i++)
		bad += ibv_query_ece(qp, &ece) != first;
	probe_mark(0, false);

	/* positive control: ibv_query_qp does make system calls */
	probe_mark(1, true);
	for (i = 0; i < n; i++)
		bad += !!ibv_query_qp(qp, &qa, IBV_QP_STATE, &ia);
	probe_mark(1, false);

	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return bad ? 1 : 0;
}

static void syscall_check(const char *dev, int n)
{
	struct probe_section sec[2];
	int rc = strace_self_probe(dev, n, sec, 2);

	if (!ok(rc == 0, "strace probe ran (%d query_ece calls, %d query_qp calls; exit %d)",
		n, n, rc))
		return;
	if (!ok(sec[0].begin && sec[0].end && sec[0].ioctl_write == 0 &&
			sec[0].syscalls == 0,
		"%d ibv_query_ece calls make no system call (strace: %d ioctl/write, %d in all)",
		n, sec[0].ioctl_write, sec[0].syscalls))
		diag("first: %s", sec[0].first);
	ok(sec[1].begin && sec[1].end && sec[1].ioctl_write >= n,
	   "control: %d ibv_query_qp calls are seen by strace (%d ioctl/write)",
	   n, sec[1].ioctl_write);
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC,
						  IBV_QPT_UD };
	struct expect ex;
	struct env e = {};
	struct ibv_ece ece;
	struct ibv_qp *qp;
	bool good;
	int ret;

	if (argc == 3 && !strcmp(argv[1], "--probe"))
		return probe_body(dev, atoi(argv[2]));
	if (expect_init(&ex, &argc, argv) || argc > 1) {
		fprintf(stderr,
			"usage: %s [-d DEV] [--config FILE] [--set KEY=VALUE]...\n",
			argv[0]);
		return 125;
	}
	diag("expected configuration from %s", ex.source);
	e.has_ece = expect_has_ece(&ex);
	e.vendor = ex.ece_vendor_id;
	e.supported = ex.ece_options;

	e.ctx = open_device_by_name(dev);
	if (!ok(e.ctx != NULL, "open %s", dev))
		return tap_done();
	ret = ibv_query_port(e.ctx, 1, &e.port);
	ok(!ret, "query_port 1: %s", err_str(ret));
	e.pd = ibv_alloc_pd(e.ctx);
	e.cq = ibv_create_cq(e.ctx, 16, NULL, NULL, 0);
	if (!ok(e.pd && e.cq, "alloc_pd + create_cq"))
		goto out;

	if (!e.has_ece) {
		without_ece(&e);
		goto probe;
	}
	ok(e.vendor != 0 && e.vendor <= 0xffffff,
	   "configured ECE vendor id %#x is a 24-bit IEEE OUI", e.vendor);
	ok(e.supported && (e.supported & ~EXPECT_ECE_OPT_ALL) == 0,
	   "configured options %#x are documented bits (ORCA_ECE_OPT_ALL %#x)",
	   e.supported, EXPECT_ECE_OPT_ALL);

	/* After create, in every state up to the negotiation: the offer */
	for (size_t i = 0; i < 3; i++) {
		const char *t = qpt_str(types[i]);

		qp = create_qp(e.pd, e.cq, types[i]);
		if (!ok(qp != NULL, "%s: create QP", t))
			continue;
		good = ece_is(qp, e.vendor, e.supported, &ece);
		ok(good,
		   "%s: query_ece after create = {vendor %#x, options %#x, comp_mask 0} (got {%#x, %#x, %#x})",
		   t, e.vendor, e.supported, ece.vendor_id, ece.options,
		   ece.comp_mask);
		ret = walk_to(qp, &e.port, IBV_QPS_RESET, IBV_QPS_INIT);
		good = !ret && ece_is(qp, e.vendor, e.supported, &ece);
		ok(good,
		   "%s: query_ece in INIT = the offer %#x (got %#x)", t,
		   e.supported, ece.options);
		if (types[i] == IBV_QPT_RC)
			invalid_requests(&e, qp);
		ret = ibv_destroy_qp(qp);
		ok(!ret, "%s: destroy_qp: %s", t, err_str(ret));
	}

	/* Negotiation on INIT->RTR and RTR->RTS */
	for (size_t i = 0; i < 3; i++) {
		negotiate(&e, types[i], e.supported, IBV_QPS_INIT,
			  "all supported");
		if (e.supported & (e.supported - 1))
			negotiate(&e, types[i], e.supported & -e.supported,
				  IBV_QPS_INIT, "subset");
		negotiate(&e, types[i], 0, IBV_QPS_INIT, "none");
	}
	negotiate(&e, IBV_QPT_RC, e.supported & ~(e.supported & -e.supported),
		  IBV_QPS_RTR, "set in RTR");

	/* No set_ece: the QP keeps reporting the supported options */
	qp = create_qp(e.pd, e.cq, IBV_QPT_RC);
	if (ok(qp != NULL, "create RC QP without set_ece")) {
		ret = walk_to(qp, &e.port, IBV_QPS_RESET, IBV_QPS_INIT) ||
		      walk_to(qp, &e.port, IBV_QPS_INIT, IBV_QPS_RTR) ||
		      walk_to(qp, &e.port, IBV_QPS_RTR, IBV_QPS_RTS);
		ok(!ret, "bring it to RTS");
		good = ece_is(qp, e.vendor, e.supported, &ece);
		ok(good,
		   "query_ece in RTS without set_ece = %#x (got %#x)",
		   e.supported, ece.options);
		ibv_destroy_qp(qp);
	}
probe:
	syscall_check(dev, 1000);
out:
	if (e.cq)
		ibv_destroy_cq(e.cq);
	if (e.pd)
		ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	return tap_done();
}
