// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_query_qp: ibv_query_qp(3) on orca RC, UC and UD QPs, and the
 * ibv_modify_qp validation it depends on.
 *   usage: verbs_query_qp [-d DEV] [--config FILE] [--set KEY=VALUE]...
 *
 * Every QP type is walked through every state it can be in (RESET, INIT,
 * RTR, RTS, SQD, SQE for UC/UD, ERR).  After every step ibv_query_qp must
 * return, for every attribute set so far, the value ibv_modify_qp applied
 * (a model of the QP is kept next to it), with the full attr_mask and with
 * each attribute alone in attr_mask; init_attr must return the creation
 * values and the applied capacities; cur_qp_state is filled.  Changes the
 * device makes on its own (a fatal QP error and an SQ error injected with
 * tests/lib/hostctl, the end of an SQ drain) show up in the next query and
 * come with their asynchronous event.  Invalid transitions, missing or
 * superfluous attributes and out-of-range values fail with EINVAL and leave
 * the QP as it was.
 *
 * The expected device configuration (SQD_ASYNC_NOTIFY capability, limits)
 * comes from tests/verbs/expect.h.
 */
#include "common.h"
#include "expect.h"

#define REMOTE_ACCESS                                                         \
	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |                   \
	 IBV_ACCESS_REMOTE_ATOMIC)

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_port_attr port;
	struct ibv_device_attr dev;
	struct expect ex;
	bool sqd_notify;	/* device has ORCA_DEV_CAP_SQD_ASYNC_NOTIFY */
};

/* What the QP must report: the model */
struct model {
	struct env *e;
	struct ibv_qp *qp;
	enum ibv_qp_type type;
	const char *t;
	struct ibv_qp_attr exp;	/* expected attribute values */
	int set;		/* attributes set since the last RESET */
	struct ibv_qp_cap cap;	/* capacities applied at create */
	int sq_sig_all;
	void *qp_context;
};

static const struct {
	int bit;
	const char *name;
} attr_bits[] = {
	{ IBV_QP_ACCESS_FLAGS, "ACCESS_FLAGS" },
	{ IBV_QP_PKEY_INDEX, "PKEY_INDEX" },
	{ IBV_QP_PORT, "PORT" },
	{ IBV_QP_QKEY, "QKEY" },
	{ IBV_QP_AV, "AV" },
	{ IBV_QP_PATH_MTU, "PATH_MTU" },
	{ IBV_QP_TIMEOUT, "TIMEOUT" },
	{ IBV_QP_RETRY_CNT, "RETRY_CNT" },
	{ IBV_QP_RNR_RETRY, "RNR_RETRY" },
	{ IBV_QP_RQ_PSN, "RQ_PSN" },
	{ IBV_QP_MAX_QP_RD_ATOMIC, "MAX_QP_RD_ATOMIC" },
	{ IBV_QP_ALT_PATH, "ALT_PATH" },
	{ IBV_QP_MIN_RNR_TIMER, "MIN_RNR_TIMER" },
	{ IBV_QP_SQ_PSN, "SQ_PSN" },
	{ IBV_QP_MAX_DEST_RD_ATOMIC, "MAX_DEST_RD_ATOMIC" },
	{ IBV_QP_PATH_MIG_STATE, "PATH_MIG_STATE" },
	{ IBV_QP_DEST_QPN, "DEST_QPN" },
	{ IBV_QP_CAP, "CAP" },
	{ IBV_QP_STATE, "STATE" },
};

static const char *bit_name(int bit)
{
	for (size_t i = 0; i < sizeof(attr_bits) / sizeof(attr_bits[0]); i++)
		if (attr_bits[i].bit == bit)
			return attr_bits[i].name;
	return "?";
}

static int count_bits(int mask)
{
	return __builtin_popcount((unsigned int)mask);
}

/* ------------------------------------------------------------------ */
/* The model                                                          */
/* ------------------------------------------------------------------ */

static void model_apply(struct model *m, const struct ibv_qp_attr *a,
			int mask)
{
	struct ibv_qp_attr *x = &m->exp;

	if ((mask & IBV_QP_STATE) && a->qp_state == IBV_QPS_RESET) {
		/* orca.rst: RESET restores the create-time context */
		memset(x, 0, sizeof(*x));
		m->set = 0;
		return;
	}
	if (mask & IBV_QP_STATE)
		x->qp_state = a->qp_state;
	if (mask & IBV_QP_ACCESS_FLAGS)
		/* orca.rst: only the remote access rights are stored */
		x->qp_access_flags = a->qp_access_flags & REMOTE_ACCESS;
	if (mask & IBV_QP_PKEY_INDEX)
		x->pkey_index = a->pkey_index;
	if (mask & IBV_QP_PORT)
		x->port_num = a->port_num;
	if (mask & IBV_QP_QKEY)
		x->qkey = a->qkey;
	if (mask & IBV_QP_AV) {
		x->ah_attr = a->ah_attr;
		if (!a->ah_attr.is_global)
			memset(&x->ah_attr.grh, 0, sizeof(x->ah_attr.grh));
	}
	if (mask & IBV_QP_PATH_MTU)
		x->path_mtu = a->path_mtu;
	if (mask & IBV_QP_TIMEOUT)
		x->timeout = a->timeout;
	if (mask & IBV_QP_RETRY_CNT)
		x->retry_cnt = a->retry_cnt;
	if (mask & IBV_QP_RNR_RETRY)
		x->rnr_retry = a->rnr_retry;
	if (mask & IBV_QP_RQ_PSN)
		x->rq_psn = a->rq_psn;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		x->max_rd_atomic = a->max_rd_atomic;
	if (mask & IBV_QP_ALT_PATH) {
		x->alt_ah_attr = a->alt_ah_attr;
		if (!a->alt_ah_attr.is_global)
			memset(&x->alt_ah_attr.grh, 0,
			       sizeof(x->alt_ah_attr.grh));
		x->alt_port_num = a->alt_port_num;
		x->alt_pkey_index = a->alt_pkey_index;
		x->alt_timeout = a->alt_timeout;
	}
	if (mask & IBV_QP_MIN_RNR_TIMER)
		x->min_rnr_timer = a->min_rnr_timer;
	if (mask & IBV_QP_SQ_PSN)
		x->sq_psn = a->sq_psn;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		x->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & IBV_QP_PATH_MIG_STATE)
		x->path_mig_state = a->path_mig_state;
	if (mask & IBV_QP_DEST_QPN)
		x->dest_qp_num = a->dest_qp_num;
	m->set |= mask & ~(IBV_QP_STATE | IBV_QP_CUR_STATE |
			   IBV_QP_EN_SQD_ASYNC_NOTIFY);
}

/* Differences between @got and the model for the attributes in @bits */
static void diff_bits(const struct model *m, const struct ibv_qp_attr *got,
		      int bits, char *buf, size_t len)
{
	const struct ibv_qp_attr *x = &m->exp;

	buf[0] = '\0';
	if (bits & IBV_QP_STATE) {
		DIFF_FIELD(buf, len, x, got, qp_state);
		if (got->cur_qp_state != got->qp_state)
			strncat(buf, "cur_qp_state!=qp_state ",
				len - strlen(buf) - 1);
	}
	if (bits & IBV_QP_ACCESS_FLAGS)
		DIFF_FIELD(buf, len, x, got, qp_access_flags);
	if (bits & IBV_QP_PKEY_INDEX)
		DIFF_FIELD(buf, len, x, got, pkey_index);
	if (bits & IBV_QP_PORT)
		DIFF_FIELD(buf, len, x, got, port_num);
	if (bits & IBV_QP_QKEY)
		DIFF_FIELD(buf, len, x, got, qkey);
	if (bits & IBV_QP_AV)
		diff_ah(buf, len, "ah_attr", &x->ah_attr, &got->ah_attr);
	if (bits & IBV_QP_PATH_MTU)
		DIFF_FIELD(buf, len, x, got, path_mtu);
	if (bits & IBV_QP_TIMEOUT)
		DIFF_FIELD(buf, len, x, got, timeout);
	if (bits & IBV_QP_RETRY_CNT)
		DIFF_FIELD(buf, len, x, got, retry_cnt);
	if (bits & IBV_QP_RNR_RETRY)
		DIFF_FIELD(buf, len, x, got, rnr_retry);
	if (bits & IBV_QP_RQ_PSN)
		DIFF_FIELD(buf, len, x, got, rq_psn);
	if (bits & IBV_QP_MAX_QP_RD_ATOMIC)
		DIFF_FIELD(buf, len, x, got, max_rd_atomic);
	if (bits & IBV_QP_ALT_PATH) {
		diff_ah(buf, len, "alt_ah_attr", &x->alt_ah_attr,
			&got->alt_ah_attr);
		DIFF_FIELD(buf, len, x, got, alt_port_num);
		DIFF_FIELD(buf, len, x, got, alt_pkey_index);
		DIFF_FIELD(buf, len, x, got, alt_timeout);
	}
	if (bits & IBV_QP_MIN_RNR_TIMER)
		DIFF_FIELD(buf, len, x, got, min_rnr_timer);
	if (bits & IBV_QP_SQ_PSN)
		DIFF_FIELD(buf, len, x, got, sq_psn);
	if (bits & IBV_QP_MAX_DEST_RD_ATOMIC)
		DIFF_FIELD(buf, len, x, got, max_dest_rd_atomic);
	if (bits & IBV_QP_PATH_MIG_STATE)
		DIFF_FIELD(buf, len, x, got, path_mig_state);
	if (bits & IBV_QP_DEST_QPN)
		DIFF_FIELD(buf, len, x, got, dest_qp_num);
	if (bits & IBV_QP_CAP) {
		DIFF_FIELD(buf, len, m, got, cap.max_send_wr);
		DIFF_FIELD(buf, len, m, got, cap.max_recv_wr);
		DIFF_FIELD(buf, len, m, got, cap.max_send_sge);
		DIFF_FIELD(buf, len, m, got, cap.max_recv_sge);
		DIFF_FIELD(buf, len, m, got, cap.max_inline_data);
	}
}

static int query(struct model *m, int mask, struct ibv_qp_attr *a,
		 struct ibv_qp_init_attr *ia)
{
	memset(a, 0xa5, sizeof(*a));
	memset(ia, 0xa5, sizeof(*ia));
	return ibv_query_qp(m->qp, a, mask, ia);
}

/*
 * The model's attributes that are zero after RESET (orca.rst: "A
 * transition to RESET restores the context the QP had at create ... and
 * clears everything else").
 */
static bool all_clear(const struct ibv_qp_attr *a)
{
	return a->qkey == 0 && a->rq_psn == 0 && a->sq_psn == 0 &&
	       a->dest_qp_num == 0 && a->qp_access_flags == 0 &&
	       a->pkey_index == 0 && a->alt_pkey_index == 0 &&
	       a->path_mig_state == 0 && a->sq_draining == 0 &&
	       a->max_rd_atomic == 0 && a->max_dest_rd_atomic == 0 &&
	       a->min_rnr_timer == 0 && a->port_num == 0 &&
	       a->timeout == 0 && a->retry_cnt == 0 && a->rnr_retry == 0 &&
	       a->alt_port_num == 0 && a->alt_timeout == 0 &&
	       a->ah_attr.dlid == 0 && a->ah_attr.is_global == 0 &&
	       a->alt_ah_attr.dlid == 0 && a->alt_ah_attr.is_global == 0;
}

/*
 * Query the QP and compare with the model: the full attr_mask, then each
 * attribute alone; init_attr; ibv_qp.state.  @draining: expected
 * sq_draining (only meaningful in SQD).
 */
static void check(struct model *m, const char *when, int draining)
{
	const char *st = qps_str(m->exp.qp_state);
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	char diff[2048], all[2048] = "";
	int bits = m->set | IBV_QP_STATE | IBV_QP_CAP;
	int ret, bad = 0;

	ret = query(m, ALL_QP_ATTR_MASK, &a, &ia);
	if (!ok(!ret, "%s %s (%s): query_qp with every attr_mask bit: %s",
		m->t, st, when, err_str(ret)))
		return;
	diff_bits(m, &a, bits, diff, sizeof(diff));
	if (a.sq_draining != (m->exp.qp_state == IBV_QPS_SQD ? draining : 0))
		strncat(diff, "sq_draining ", sizeof(diff) - strlen(diff) - 1);
	if (!ok(!diff[0],
		"%s %s (%s): query_qp returns the %d attributes set by modify_qp as applied, qp_state, cur_qp_state, cap",
		m->t, st, when, count_bits(bits)))
		diag("differences (want!=got): %s", diff);

	/* init_attr: creation values and actual capacities */
	diff[0] = '\0';
	DIFF_FIELD(diff, sizeof(diff), m, &ia, cap.max_send_wr);
	DIFF_FIELD(diff, sizeof(diff), m, &ia, cap.max_recv_wr);
	DIFF_FIELD(diff, sizeof(diff), m, &ia, cap.max_send_sge);
	DIFF_FIELD(diff, sizeof(diff), m, &ia, cap.max_recv_sge);
	DIFF_FIELD(diff, sizeof(diff), m, &ia, cap.max_inline_data);
	DIFF_FIELD(diff, sizeof(diff), m, &ia, sq_sig_all);
	if (ia.qp_type != m->type)
		strncat(diff, "qp_type ", sizeof(diff) - strlen(diff) - 1);
	if (ia.send_cq != m->e->scq || ia.recv_cq != m->e->rcq ||
	    ia.srq != NULL || ia.qp_context != m->qp_context)
		strncat(diff, "send_cq/recv_cq/srq/qp_context ",
			sizeof(diff) - strlen(diff) - 1);
	if (!ok(!diff[0],
		"%s %s (%s): init_attr = creation values (type, CQs, srq, qp_context, sq_sig_all) and applied caps",
		m->t, st, when))
		diag("differences (want!=got): %s", diff);

	if (m->exp.qp_state == IBV_QPS_RESET)
		ok(all_clear(&a),
		   "%s RESET (%s): every attribute other than the caps reads 0 (orca.rst: RESET clears the context)",
		   m->t, when);

	/* attr_mask is the minimum list: each attribute alone */
	for (size_t i = 0; i < sizeof(attr_bits) / sizeof(attr_bits[0]); i++) {
		int bit = attr_bits[i].bit;

		if (!(bits & bit))
			continue;
		ret = query(m, bit, &a, &ia);
		if (ret) {
			bad++;
			snprintf(all + strlen(all), sizeof(all) - strlen(all),
				 "%s: %s; ", bit_name(bit), err_str(ret));
			continue;
		}
		diff_bits(m, &a, bit, diff, sizeof(diff));
		if (diff[0]) {
			bad++;
			snprintf(all + strlen(all), sizeof(all) - strlen(all),
				 "%s: %s; ", bit_name(bit), diff);
		}
	}
	if (!ok(!bad,
		"%s %s (%s): each attribute alone in attr_mask is returned (%d masks)",
		m->t, st, when, count_bits(bits)))
		diag("%s", all);
	ok(m->qp->state == m->exp.qp_state,
	   "%s %s (%s): ibv_qp.state follows the queried state (%s)", m->t, st,
	   when, qps_str(m->qp->state));
}

static bool modify(struct model *m, struct ibv_qp_attr *a, int mask,
		   const char *what)
{
	enum ibv_qp_state from = m->exp.qp_state;
	int ret = ibv_modify_qp(m->qp, a, mask);

	if (!ok(!ret, "%s: modify %s->%s %s: %s", m->t, qps_str(from),
		qps_str(mask & IBV_QP_STATE ? a->qp_state : from), what,
		err_str(ret)))
		return false;
	model_apply(m, a, mask);
	return true;
}

/* A modify that must fail with @want and change nothing */
static void reject(struct model *m, struct ibv_qp_attr *a, int mask,
		   int want, const char *what)
{
	int ret = ibv_modify_qp(m->qp, a, mask);

	ok(ret == want, "%s %s: modify %s fails with %s (got %s)", m->t,
	   qps_str(m->exp.qp_state), what, err_str(want), err_str(ret));
	if (!ret)	/* keep the model in step for the following checks */
		model_apply(m, a, mask);
}

/* After rejected modifies: the QP must be exactly as before */
static void unchanged(struct model *m, int draining)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	char diff[2048];
	int ret;

	ret = query(m, ALL_QP_ATTR_MASK, &a, &ia);
	diff[0] = '\0';
	if (!ret) {
		diff_bits(m, &a, m->set | IBV_QP_STATE | IBV_QP_CAP, diff,
			  sizeof(diff));
		if (a.sq_draining != draining)
			strncat(diff, "sq_draining ",
				sizeof(diff) - strlen(diff) - 1);
	}
	if (!ok(!ret && !diff[0],
		"%s %s: state and attributes unchanged by the rejected modifies",
		m->t, qps_str(m->exp.qp_state)))
		diag("query: %s; differences: %s", err_str(ret), diff);
}

/*
 * ibv_query_qp(3): "Multiple calls to ibv_query_qp() may yield some
 * differences for: qp_state, path_mig_state, sq_draining, ah_attr (if APM
 * is enabled)".  orca does not advertise APM (IBV_DEVICE_AUTO_PATH_MIG), so
 * with nothing happening to the QP repeated queries are identical.
 */
static void stable(struct model *m)
{
	struct ibv_qp_init_attr i0, i1;
	struct ibv_qp_attr a0, a1;
	char diff[2048] = "";
	bool same = true;
	int ret = 0;

	ret |= query(m, ALL_QP_ATTR_MASK, &a0, &i0);
	for (int i = 0; i < 20 && !ret && same; i++) {
		ret |= query(m, ALL_QP_ATTR_MASK, &a1, &i1);
		diff_qp_query(diff, sizeof(diff), &a0, &i0, &a1, &i1);
		same = !diff[0];
	}
	ok(!(m->e->dev.device_cap_flags & IBV_DEVICE_AUTO_PATH_MIG),
	   "device does not advertise IBV_DEVICE_AUTO_PATH_MIG (no APM)");
	if (!ok(!ret && same,
		"%s %s: 20 more queries without any change return identical attributes (path_mig_state, ah_attr stable without APM)",
		m->t, qps_str(m->exp.qp_state)))
		diag("%s", diff);
}

/* ------------------------------------------------------------------ */
/* Transitions                                                        */
/* ------------------------------------------------------------------ */

static bool valid_transition(enum ibv_qp_type type, enum ibv_qp_state from,
			     enum ibv_qp_state to)
{
	if (to == IBV_QPS_RESET)
		return true;
	if (to == IBV_QPS_ERR)
		return from != IBV_QPS_RESET;
	switch (from) {
	case IBV_QPS_RESET:
		return to == IBV_QPS_INIT;
	case IBV_QPS_INIT:
		return to == IBV_QPS_INIT || to == IBV_QPS_RTR;
	case IBV_QPS_RTR:
		return to == IBV_QPS_RTS;
	case IBV_QPS_RTS:
	case IBV_QPS_SQD:
		return to == IBV_QPS_RTS || to == IBV_QPS_SQD;
	case IBV_QPS_SQE:
		return to == IBV_QPS_RTS && type != IBV_QPT_RC;
	default:
		return false;
	}
}

/* The predecessor whose required mask is used to try an invalid move */
static enum ibv_qp_state canonical_from(enum ibv_qp_state to)
{
	switch (to) {
	case IBV_QPS_INIT:
		return IBV_QPS_RESET;
	case IBV_QPS_RTR:
		return IBV_QPS_INIT;
	case IBV_QPS_RTS:
		return IBV_QPS_RTR;
	case IBV_QPS_SQD:
		return IBV_QPS_RTS;
	default:
		return IBV_QPS_RTS;
	}
}

/* Values for a transition (attributes beyond the mask are ignored) */
static void values(struct model *m, struct ibv_qp_attr *a,
		   enum ibv_qp_state to)
{
	fill_attr(a, m->qp, &m->e->port, to);
	a->qkey = m->exp.qkey ? m->exp.qkey : 0x11111111;
}

/* Every state not reachable from the current one must be refused */
static void invalid_transitions(struct model *m, int draining)
{
	enum ibv_qp_state from = m->exp.qp_state;
	static const enum ibv_qp_state all[] = {
		IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS,
		IBV_QPS_SQD,   IBV_QPS_SQE,  IBV_QPS_ERR,
	};
	int n = 0;

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		enum ibv_qp_state to = all[i];
		struct ibv_qp_attr a;
		char what[96];
		int mask;

		if (valid_transition(m->type, from, to))
			continue;
		values(m, &a, to);
		mask = required_mask(m->type, canonical_from(to), to);
		snprintf(what, sizeof(what), "->%s (invalid transition)",
			 qps_str(to));
		reject(m, &a, mask, EINVAL, what);
		n++;
	}
	if (n)
		unchanged(m, draining);
}

/* ------------------------------------------------------------------ */
/* Asynchronous changes                                               */
/* ------------------------------------------------------------------ */

static bool inject(struct model *m, const char *hook)
{
	char req[64], reply[256];
	int rc;

	snprintf(req, sizeof(req), "%s %u", hook, m->qp->qp_num);
	rc = hostctl(req, reply, sizeof(reply));
	if (!ok(rc == 0 && !strncmp(reply, "ok", 2),
		"%s %s: hostctl '%s' accepted by the emulator", m->t,
		qps_str(m->exp.qp_state), req))
		diag("hostctl rc=%d reply '%s'", rc, reply);
	return rc == 0;
}

static void qp_fatal(struct model *m)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	enum ibv_qp_state before = m->exp.qp_state;
	int ret;

	if (!have_hostctl()) {
		skip("not in the orca VM (no hostctl)",
		     "%s: device-initiated QP error", m->t);
		return;
	}
	ret = query(m, IBV_QP_STATE, &a, &ia);
	ok(!ret && a.qp_state == before,
	   "%s: query before the injected error: %s", m->t,
	   qps_str(a.qp_state));
	if (!inject(m, "qp-fatal"))
		return;
	/* No modify: the next query must show what the device did */
	ret = query(m, IBV_QP_STATE, &a, &ia);
	ok(!ret && a.qp_state == IBV_QPS_ERR && a.cur_qp_state == IBV_QPS_ERR,
	   "%s: the next query_qp shows ERR without any modify (got %s, cur %s)",
	   m->t, qps_str(a.qp_state), qps_str(a.cur_qp_state));
	ok(wait_event(m->e->ctx, IBV_EVENT_QP_FATAL, m->qp, wait_ms()),
	   "%s: IBV_EVENT_QP_FATAL for the QP arrives on the context", m->t);
	m->exp.qp_state = IBV_QPS_ERR;
	check(m, "after injected fatal error", 0);
}

static void sq_error(struct model *m)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	int ret;

	if (!have_hostctl()) {
		skip("not in the orca VM (no hostctl)",
		     "%s: device-initiated SQ error", m->t);
		return;
	}
	if (!inject(m, "sq-error"))
		return;
	ret = query(m, IBV_QP_STATE, &a, &ia);
	ok(!ret && a.qp_state == IBV_QPS_SQE,
	   "%s: the next query_qp shows SQE without any modify (got %s)", m->t,
	   qps_str(a.qp_state));
	/* IBTA: SQE has no affiliated event; the error completion says it */
	ok(!wait_event(m->e->ctx, IBV_EVENT_QP_FATAL, m->qp, 1000),
	   "%s: the SQ error is not reported as IBV_EVENT_QP_FATAL (the QP is in SQE, not ERR)",
	   m->t);
	m->exp.qp_state = IBV_QPS_SQE;
	check(m, "after injected SQ error", 0);
}

/*
 * RTS -> SQD.  The device sets sq_draining and finishes the drain on its
 * next heartbeat tick (every 100 ms), so a query right after the modify
 * normally sees sq_draining = 1; if a tick came first, the cycle is
 * repeated (SQD -> RTS -> SQD): at least 10 times, and on a slow machine
 * until it is caught or wait_ms() has passed (no wall-clock assert: the
 * number of attempts is a diagnostic).
 */
static void sqd_cycle(struct model *m, int notify)
{
	struct env *e = m->e;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a, q1, q2;
	bool seen_draining = false, seen_refused = false, bad = false;
	bool ev_ok = true, ev_order_ok = true, no_ev_ok = true;
	int attempt, ret = 0, sqd_mask;
	long long until = now_ms() + wait_ms();

	/* a harmless SQD->SQD change: the values the QP already has */
	sqd_mask = IBV_QP_STATE | (m->type == IBV_QPT_UD ? IBV_QP_QKEY :
				   m->type == IBV_QPT_RC ? IBV_QP_TIMEOUT :
							    IBV_QP_ACCESS_FLAGS);

	for (attempt = 1;; attempt++) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_SQD;
		a.en_sqd_async_notify = notify;
		ret = ibv_modify_qp(m->qp, &a,
				    IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY);
		if (ret)
			break;
		model_apply(m, &a, IBV_QP_STATE);
		ret = query(m, ALL_QP_ATTR_MASK, &q1, &ia);
		if (ret)
			break;
		a = m->exp;
		a.qp_state = IBV_QPS_SQD;
		ret = ibv_modify_qp(m->qp, &a, sqd_mask);
		if (query(m, ALL_QP_ATTR_MASK, &q2, &ia))
			break;
		if (q1.sq_draining)
			seen_draining = true;
		if (q2.sq_draining && ret == EINVAL)
			seen_refused = true;
		if (q2.sq_draining && !ret) {
			bad = true;
			diag("%s: SQD->SQD accepted while sq_draining = 1",
			     m->t);
		}
		ret = 0;
		if (notify) {
			if (!wait_event(e->ctx, IBV_EVENT_SQ_DRAINED, m->qp,
					wait_ms())) {
				ev_ok = false;
			} else {
				/* the mirror is written before the event */
				if (query(m, ALL_QP_ATTR_MASK, &q2, &ia) ||
				    q2.sq_draining || q2.qp_state != IBV_QPS_SQD)
					ev_order_ok = false;
			}
		} else {
			long long end = now_ms() + wait_ms();

			do {
				if (query(m, IBV_QP_STATE, &q2, &ia))
					break;
				if (!q2.sq_draining)
					break;
				sleep_ms(10);
			} while (now_ms() < end);
			if (q2.sq_draining)
				ev_order_ok = false;
			drain_async(e->ctx, 300);
			if (take_events(IBV_EVENT_SQ_DRAINED, m->qp))
				no_ev_ok = false;
		}
		if (seen_draining && seen_refused)
			break;
		/* a missing event or a drain that never ends: failed already */
		if (!ev_ok || !ev_order_ok)
			break;
		if (attempt >= 10 && now_ms() >= until)
			break;
		/* a tick came first: go round again */
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		if (ibv_modify_qp(m->qp, &a, IBV_QP_STATE)) {
			ret = EIO;
			break;
		}
		model_apply(m, &a, IBV_QP_STATE);
	}
	if (!ok(!ret, "%s: RTS->SQD with en_sqd_async_notify=%d: %s", m->t,
		notify, err_str(ret)))
		return;
	ok(seen_draining,
	   "%s SQD: query_qp right after RTS->SQD shows sq_draining=1 (%d attempt%s)",
	   m->t, attempt, attempt == 1 ? "" : "s");
	ok(seen_refused && !bad,
	   "%s SQD: SQD->SQD while the SQ drains fails with EINVAL (orca.rst, IBTA)",
	   m->t);
	if (notify) {
		ok(ev_ok, "%s SQD: IBV_EVENT_SQ_DRAINED arrives for the QP",
		   m->t);
		ok(ev_order_ok,
		   "%s SQD: once SQ_DRAINED has arrived, query_qp shows SQD with sq_draining=0",
		   m->t);
	} else {
		ok(ev_order_ok,
		   "%s SQD: sq_draining drops to 0 without a modify (device drained the SQ)",
		   m->t);
		ok(no_ev_ok,
		   "%s SQD: no IBV_EVENT_SQ_DRAINED without en_sqd_async_notify",
		   m->t);
	}
	check(m, "drained", 0);
}

/* ------------------------------------------------------------------ */
/* The walk                                                           */
/* ------------------------------------------------------------------ */

static void set_av(struct ibv_ah_attr *ah, uint16_t dlid, uint8_t sl,
		   bool grh, const struct ibv_port_attr *port)
{
	memset(ah, 0, sizeof(*ah));
	ah->dlid = dlid;
	ah->sl = sl;
	ah->src_path_bits = 1;
	ah->static_rate = IBV_RATE_10_GBPS;
	ah->port_num = 1;
	if (grh) {
		static const uint8_t dgid[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
						  0x00, 0xca, 0x7a, 0xff,
						  0xfe, 0x12, 0x34, 0x56 };

		ah->is_global = 1;
		memcpy(ah->grh.dgid.raw, dgid, 16);
		ah->grh.flow_label = 0x12345;
		ah->grh.sgid_index = 0;
		ah->grh.hop_limit = 7;
		ah->grh.traffic_class = 0x28;
	}
	(void)port;
}

static void set_alt(struct ibv_qp_attr *a, uint16_t dlid, uint8_t timeout)
{
	memset(&a->alt_ah_attr, 0, sizeof(a->alt_ah_attr));
	a->alt_ah_attr.dlid = dlid;
	a->alt_ah_attr.sl = 2;
	a->alt_ah_attr.port_num = 1;
	a->alt_port_num = 1;
	a->alt_pkey_index = 0;
	a->alt_timeout = timeout;
}

static uint8_t min_u8(unsigned int a, unsigned int b)
{
	return a < b ? a : b;
}

static void reset_init_negative(struct model *m)
{
	struct ibv_qp_attr a;
	int req = required_mask(m->type, IBV_QPS_RESET, IBV_QPS_INIT);

	values(m, &a, IBV_QPS_INIT);
	reject(m, &a, req & ~IBV_QP_PKEY_INDEX, EINVAL,
	       "RESET->INIT without PKEY_INDEX");
	reject(m, &a, req & ~IBV_QP_PORT, EINVAL, "RESET->INIT without PORT");
	if (m->type == IBV_QPT_UD) {
		reject(m, &a, req & ~IBV_QP_QKEY, EINVAL,
		       "RESET->INIT without QKEY");
		reject(m, &a, req | IBV_QP_ACCESS_FLAGS, EINVAL,
		       "RESET->INIT with ACCESS_FLAGS (not allowed for UD)");
	} else {
		reject(m, &a, req & ~IBV_QP_ACCESS_FLAGS, EINVAL,
		       "RESET->INIT without ACCESS_FLAGS");
		reject(m, &a, req | IBV_QP_QKEY, EINVAL,
		       "RESET->INIT with QKEY (not allowed for RC/UC)");
	}
	reject(m, &a, req | IBV_QP_SQ_PSN, EINVAL,
	       "RESET->INIT with SQ_PSN (not allowed)");
	a.port_num = m->e->dev.phys_port_cnt + 1;
	reject(m, &a, req, EINVAL, "RESET->INIT with port_num out of range");
	values(m, &a, IBV_QPS_INIT);
	a.pkey_index = m->e->port.pkey_tbl_len;
	reject(m, &a, req, EINVAL,
	       "RESET->INIT with pkey_index = pkey_tbl_len");
	unchanged(m, 0);
}

static void init_rtr_negative(struct model *m)
{
	struct ibv_qp_attr a;
	int req = required_mask(m->type, IBV_QPS_INIT, IBV_QPS_RTR);
	static const int rc_req[] = { IBV_QP_AV, IBV_QP_PATH_MTU,
				      IBV_QP_DEST_QPN, IBV_QP_RQ_PSN,
				      IBV_QP_MAX_DEST_RD_ATOMIC,
				      IBV_QP_MIN_RNR_TIMER };
	char what[96];

	values(m, &a, IBV_QPS_RTR);
	if (m->type != IBV_QPT_UD) {
		for (size_t i = 0; i < sizeof(rc_req) / sizeof(rc_req[0]); i++) {
			if (!(req & rc_req[i]))
				continue;
			snprintf(what, sizeof(what),
				 "INIT->RTR without %s (required)",
				 bit_name(rc_req[i]));
			reject(m, &a, req & ~rc_req[i], EINVAL, what);
		}
	}
	if (m->type == IBV_QPT_UC)
		reject(m, &a, req | IBV_QP_MAX_DEST_RD_ATOMIC, EINVAL,
		       "INIT->RTR with MAX_DEST_RD_ATOMIC (RC only)");
	if (m->type == IBV_QPT_UD)
		reject(m, &a, req | IBV_QP_AV | IBV_QP_PATH_MTU, EINVAL,
		       "INIT->RTR with AV and PATH_MTU (not for UD)");
	reject(m, &a, req | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT, EINVAL,
	       "INIT->RTR with SQ_PSN and TIMEOUT (RTR->RTS attributes)");
	if (m->type != IBV_QPT_UD) {
		values(m, &a, IBV_QPS_RTR);
		a.path_mtu = (enum ibv_mtu)6;
		reject(m, &a, req, EINVAL, "INIT->RTR with path_mtu 6 (no such MTU)");
		values(m, &a, IBV_QPS_RTR);
		a.dest_qp_num = 0x1000000;
		reject(m, &a, req, EINVAL,
		       "INIT->RTR with dest_qp_num 0x1000000 (> 24 bits)");
		values(m, &a, IBV_QPS_RTR);
		a.ah_attr.sl = 16;
		reject(m, &a, req, EINVAL, "INIT->RTR with ah_attr.sl 16");
		values(m, &a, IBV_QPS_RTR);
		a.ah_attr.port_num = m->e->dev.phys_port_cnt + 1;
		reject(m, &a, req, EINVAL,
		       "INIT->RTR with ah_attr.port_num out of range");
	}
	if (m->type == IBV_QPT_RC) {
		values(m, &a, IBV_QPS_RTR);
		a.min_rnr_timer = 32;
		reject(m, &a, req, EINVAL, "INIT->RTR with min_rnr_timer 32");
		values(m, &a, IBV_QPS_RTR);
		a.max_dest_rd_atomic = min_u8(m->e->dev.max_qp_rd_atom + 1, 255);
		if (m->e->dev.max_qp_rd_atom < 255)
			reject(m, &a, req, EINVAL,
			       "INIT->RTR with max_dest_rd_atomic > device max_qp_rd_atom");
	}
	unchanged(m, 0);
}

static void rtr_rts_negative(struct model *m)
{
	struct ibv_qp_attr a;
	int req = required_mask(m->type, IBV_QPS_RTR, IBV_QPS_RTS);
	static const int rc_req[] = { IBV_QP_TIMEOUT, IBV_QP_RETRY_CNT,
				      IBV_QP_RNR_RETRY, IBV_QP_SQ_PSN,
				      IBV_QP_MAX_QP_RD_ATOMIC };
	char what[96];

	values(m, &a, IBV_QPS_RTS);
	for (size_t i = 0; i < sizeof(rc_req) / sizeof(rc_req[0]); i++) {
		if (!(req & rc_req[i]))
			continue;
		snprintf(what, sizeof(what), "RTR->RTS without %s (required)",
			 bit_name(rc_req[i]));
		reject(m, &a, req & ~rc_req[i], EINVAL, what);
	}
	if (m->type != IBV_QPT_RC)
		reject(m, &a, req | IBV_QP_TIMEOUT, EINVAL,
		       "RTR->RTS with TIMEOUT (RC only)");
	reject(m, &a, req | IBV_QP_PATH_MTU, EINVAL,
	       "RTR->RTS with PATH_MTU (not allowed)");
	if (m->type == IBV_QPT_RC) {
		values(m, &a, IBV_QPS_RTS);
		a.timeout = 32;
		reject(m, &a, req, EINVAL, "RTR->RTS with timeout 32");
		values(m, &a, IBV_QPS_RTS);
		a.retry_cnt = 8;
		reject(m, &a, req, EINVAL, "RTR->RTS with retry_cnt 8");
		values(m, &a, IBV_QPS_RTS);
		a.rnr_retry = 8;
		reject(m, &a, req, EINVAL, "RTR->RTS with rnr_retry 8");
		values(m, &a, IBV_QPS_RTS);
		a.max_rd_atomic = min_u8(m->e->dev.max_qp_init_rd_atom + 1, 255);
		if (m->e->dev.max_qp_init_rd_atom < 255)
			reject(m, &a, req, EINVAL,
			       "RTR->RTS with max_rd_atomic > device max_qp_init_rd_atom");
	}
	unchanged(m, 0);
}

static void rts_negative(struct model *m)
{
	struct ibv_qp_attr a = m->exp;

	a.qp_state = IBV_QPS_RTS;
	a.cur_qp_state = IBV_QPS_RTR;
	reject(m, &a,
	       required_mask(m->type, IBV_QPS_RTR, IBV_QPS_RTS) |
		       IBV_QP_CUR_STATE,
	       EINVAL,
	       "RTR->RTS with cur_qp_state RTR while the QP is RTS (CUR_STATE mismatch)");
	a = m->exp;
	a.qp_state = IBV_QPS_RTS;
	reject(m, &a, IBV_QP_STATE | IBV_QP_PATH_MTU, EINVAL,
	       "RTS->RTS with PATH_MTU (not allowed)");
	reject(m, &a, IBV_QP_STATE | IBV_QP_CAP, EINVAL,
	       "RTS->RTS with CAP (a QP cannot be resized)");
	if (m->type == IBV_QPT_UD) {
		reject(m, &a, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS, EINVAL,
		       "RTS->RTS with ACCESS_FLAGS (not for UD)");
	} else {
		a.path_mig_state = (enum ibv_mig_state)3;
		reject(m, &a, IBV_QP_STATE | IBV_QP_PATH_MIG_STATE, EINVAL,
		       "RTS->RTS with path_mig_state 3");
		a = m->exp;
		a.qp_state = IBV_QPS_RTS;
		set_alt(&a, 0x4433, 32);
		reject(m, &a, IBV_QP_STATE | IBV_QP_ALT_PATH, EINVAL,
		       "RTS->RTS with alt_timeout 32");
	}
	a = m->exp;
	a.qp_state = IBV_QPS_SQD;
	a.timeout = 14;
	reject(m, &a, IBV_QP_STATE | IBV_QP_TIMEOUT, EINVAL,
	       "RTS->SQD with TIMEOUT (only EN_SQD_ASYNC_NOTIFY allowed)");
	unchanged(m, 0);
}

static void walk(struct env *e, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr init = {
		.send_cq = e->scq,
		.recv_cq = e->rcq,
		.cap = { .max_send_wr = 5, .max_recv_wr = 3,
			 .max_send_sge = 3, .max_recv_sge = 2,
			 .max_inline_data = 20 },
		.qp_type = type,
		.sq_sig_all = 1,
	};
	struct model m = { .e = e, .type = type, .t = qpt_str(type) };
	bool rc = type == IBV_QPT_RC, ud = type == IBV_QPT_UD;
	struct ibv_qp_attr a;
	int mask, ret;

	m.qp_context = &m;
	init.qp_context = m.qp_context;
	m.qp = ibv_create_qp(e->pd, &init);
	if (!ok(m.qp != NULL, "%s: create_qp (send_wr 5, recv_wr 3, sge 3/2, inline 20, sq_sig_all 1): %s",
		m.t, m.qp ? "success" : strerror(errno)))
		return;
	m.cap = init.cap;
	m.sq_sig_all = 1;
	/* orca.rst: WR counts round up to a power of two, inline to 16 */
	ok(m.cap.max_send_wr == 8 && m.cap.max_recv_wr == 4 &&
		   m.cap.max_send_sge == 3 && m.cap.max_recv_sge == 2 &&
		   m.cap.max_inline_data == 32,
	   "%s: create_qp reports the applied caps 8/4/3/2/32 (got %u/%u/%u/%u/%u)",
	   m.t, m.cap.max_send_wr, m.cap.max_recv_wr, m.cap.max_send_sge,
	   m.cap.max_recv_sge, m.cap.max_inline_data);
	check(&m, "after create", 0);

	/* RESET */
	invalid_transitions(&m, 0);
	values(&m, &a, IBV_QPS_RESET);
	if (modify(&m, &a, IBV_QP_STATE, "(RESET->RESET is valid)"))
		check(&m, "RESET->RESET", 0);
	reset_init_negative(&m);

	/* INIT: access rights with a local bit that is not stored */
	values(&m, &a, IBV_QPS_INIT);
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    (rc ? IBV_ACCESS_REMOTE_READ : 0);
	a.qkey = 0x11111111;
	if (!modify(&m, &a, required_mask(type, IBV_QPS_RESET, IBV_QPS_INIT),
		    "(required attributes)"))
		goto out;
	check(&m, "RESET->INIT", 0);
	invalid_transitions(&m, 0);

	values(&m, &a, IBV_QPS_INIT);
	a.qp_access_flags = rc ? IBV_ACCESS_REMOTE_READ : 0;
	a.qkey = 0x22222222;
	mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       (ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);
	if (modify(&m, &a, mask, "(optional attributes changed)"))
		check(&m, "INIT->INIT", 0);

	/* RTR */
	init_rtr_negative(&m);
	values(&m, &a, IBV_QPS_RTR);
	a.qkey = 0x33333333;
	set_av(&a.ah_attr, 0x2211, 5, rc, &e->port);
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = 0xabcd;
	a.rq_psn = 0x123456;
	a.max_dest_rd_atomic = min_u8(4, e->dev.max_qp_rd_atom);
	a.min_rnr_timer = 12;
	set_alt(&a, 0x3322, 17);
	mask = required_mask(type, IBV_QPS_INIT, IBV_QPS_RTR) |
	       (ud ? IBV_QP_QKEY : IBV_QP_ALT_PATH);
	if (!modify(&m, &a, mask, "(required + optional attributes)"))
		goto out;
	check(&m, "INIT->RTR", 0);
	invalid_transitions(&m, 0);
	rtr_rts_negative(&m);

	/* RTS */
	values(&m, &a, IBV_QPS_RTS);
	a.sq_psn = 0x654321;
	a.timeout = 14;
	a.retry_cnt = 6;
	a.rnr_retry = 5;
	a.max_rd_atomic = min_u8(3, e->dev.max_qp_init_rd_atom);
	a.min_rnr_timer = 13;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	a.qkey = 0x3333aaaa;
	mask = required_mask(type, IBV_QPS_RTR, IBV_QPS_RTS) |
	       (rc ? IBV_QP_MIN_RNR_TIMER :
		ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);
	if (!modify(&m, &a, mask, "(required + optional attributes)"))
		goto out;
	check(&m, "RTR->RTS", 0);
	invalid_transitions(&m, 0);
	rts_negative(&m);

	a = m.exp;
	a.qp_state = IBV_QPS_RTS;
	a.cur_qp_state = IBV_QPS_RTS;
	a.qkey = 0x44444444;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
			    (rc ? IBV_ACCESS_REMOTE_ATOMIC : 0);
	a.min_rnr_timer = 20;
	a.path_mig_state = IBV_MIG_REARM;
	set_alt(&a, 0x4433, 9);
	mask = IBV_QP_STATE | IBV_QP_CUR_STATE |
	       (ud ? IBV_QP_QKEY :
		     IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH |
			     IBV_QP_PATH_MIG_STATE |
			     (rc ? IBV_QP_MIN_RNR_TIMER : 0));
	if (modify(&m, &a, mask, "(optional attributes, CUR_STATE)"))
		check(&m, "RTS->RTS", 0);
	stable(&m);

	/* SQD */
	if (e->sqd_notify) {
		sqd_cycle(&m, 1);
	} else {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_SQD;
		a.en_sqd_async_notify = 1;
		ret = ibv_modify_qp(m.qp, &a,
				    IBV_QP_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY);
		ok(ret == EOPNOTSUPP,
		   "%s RTS: RTS->SQD with en_sqd_async_notify=1 on a device without SQD_ASYNC_NOTIFY fails with EOPNOTSUPP (got %s)",
		   m.t, err_str(ret));
		unchanged(&m, 0);
		sqd_cycle(&m, 0);
	}
	if (m.exp.qp_state != IBV_QPS_SQD)
		goto out;
	invalid_transitions(&m, 0);

	a = m.exp;
	a.qp_state = IBV_QPS_SQD;
	a.timeout = 20;
	a.retry_cnt = 3;
	a.rnr_retry = 2;
	a.max_rd_atomic = min_u8(2, e->dev.max_qp_init_rd_atom);
	a.max_dest_rd_atomic = min_u8(2, e->dev.max_qp_rd_atom);
	a.min_rnr_timer = 5;
	a.qp_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
	a.path_mig_state = IBV_MIG_MIGRATED;
	a.qkey = 0x55555555;
	set_av(&a.ah_attr, 0x5544, 3, false, &e->port);
	set_alt(&a, 0x6655, 21);
	if (rc)
		mask = IBV_QP_STATE | IBV_QP_PORT | IBV_QP_AV | IBV_QP_TIMEOUT |
		       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		       IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC |
		       IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
		       IBV_QP_PKEY_INDEX | IBV_QP_MIN_RNR_TIMER |
		       IBV_QP_PATH_MIG_STATE;
	else if (ud)
		mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_QKEY;
	else
		mask = IBV_QP_STATE | IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS |
		       IBV_QP_PKEY_INDEX | IBV_QP_PATH_MIG_STATE;
	if (type == IBV_QPT_UC) {
		/*
		 * IBTA allows AV in UC SQD->SQD, but Linux 6.1's ib_uverbs
		 * (uverbs_cmd.c modify_qp) adds IB_QP_PORT to an AV-only
		 * SQD->SQD, and PORT is not allowed for UC: EINVAL before
		 * the driver is called.
		 */
		reject(&m, &a, mask | IBV_QP_AV, EINVAL,
		       "SQD->SQD with AV (ib_uverbs adds PORT, not allowed for UC)");
	}
	if (modify(&m, &a, mask, "(attributes changed once drained)"))
		check(&m, "SQD->SQD", 0);

	a = m.exp;
	a.qp_state = IBV_QPS_RTS;
	a.min_rnr_timer = 7;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	a.qkey = 0x66666666;
	mask = IBV_QP_STATE | (rc ? IBV_QP_MIN_RNR_TIMER :
			       ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);
	if (!modify(&m, &a, mask, "(optional attribute)"))
		goto out;
	check(&m, "SQD->RTS", 0);

	/* SQE (UC, UD): entered only by the device */
	if (!rc && have_hostctl()) {
		sq_error(&m);
		if (m.exp.qp_state == IBV_QPS_SQE) {
			invalid_transitions(&m, 0);
			a = m.exp;
			a.qp_state = IBV_QPS_RTS;
			a.cur_qp_state = IBV_QPS_SQE;
			a.qkey = 0x77777777;
			a.qp_access_flags = 0;
			mask = IBV_QP_STATE | IBV_QP_CUR_STATE |
			       (ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);
			if (modify(&m, &a, mask, "(recovery, CUR_STATE SQE)"))
				check(&m, "SQE->RTS", 0);
		}
	} else if (!rc) {
		skip("not in the orca VM (no hostctl)", "%s: SQE state", m.t);
	}

	/* ERR, entered by the device */
	qp_fatal(&m);
	if (m.exp.qp_state != IBV_QPS_ERR) {
		values(&m, &a, IBV_QPS_ERR);
		if (!modify(&m, &a, IBV_QP_STATE, "(to ERR)"))
			goto out;
		check(&m, "->ERR", 0);
	}
	invalid_transitions(&m, 0);
	values(&m, &a, IBV_QPS_ERR);
	if (modify(&m, &a, IBV_QP_STATE, "(ERR->ERR is valid)"))
		check(&m, "ERR->ERR", 0);
	values(&m, &a, IBV_QPS_RESET);
	if (modify(&m, &a, IBV_QP_STATE, "(back to RESET)"))
		check(&m, "ERR->RESET", 0);

	/* and up again, then ERR by modify */
	values(&m, &a, IBV_QPS_INIT);
	a.qkey = 0x12121212;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	if (modify(&m, &a, required_mask(type, IBV_QPS_RESET, IBV_QPS_INIT),
		   "(again after RESET)"))
		check(&m, "RESET->INIT again", 0);
	values(&m, &a, IBV_QPS_ERR);
	if (modify(&m, &a, IBV_QP_STATE, "(INIT->ERR)"))
		check(&m, "INIT->ERR", 0);

out:
	drain_async(e->ctx, 0);
	forget_events(m.qp);
	ret = ibv_destroy_qp(m.qp);
	ok(!ret, "%s: destroy_qp: %s", m.t, err_str(ret));
}

/* Create-time values: sq_sig_all 0, zero receive queue, other caps */
static void init_attr_variants(struct env *e)
{
	struct ibv_qp_init_attr init = {
		.send_cq = e->rcq,
		.recv_cq = e->scq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 0,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 0 },
		.qp_type = IBV_QPT_UC,
		.sq_sig_all = 0,
	};
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	struct ibv_qp *qp;
	int ret;

	qp = ibv_create_qp(e->pd, &init);
	if (!ok(qp != NULL, "UC: create_qp (send_wr 1, recv_wr 0, sq_sig_all 0, swapped CQs)"))
		return;
	memset(&ia, 0xa5, sizeof(ia));
	ret = ibv_query_qp(qp, &a, IBV_QP_CAP, &ia);
	ok(!ret && ia.sq_sig_all == 0 && ia.send_cq == e->rcq &&
		   ia.recv_cq == e->scq && ia.qp_context == NULL &&
		   ia.cap.max_send_wr == 1 && ia.cap.max_recv_wr == 0 &&
		   a.cap.max_recv_wr == 0 && ia.cap.max_inline_data == 0,
	   "UC: init_attr returns sq_sig_all 0, the swapped CQs, send_wr 1, recv_wr 0 (got sig %d send_wr %u recv_wr %u)",
	   ia.sq_sig_all, ia.cap.max_send_wr, ia.cap.max_recv_wr);
	ibv_destroy_qp(qp);

	/* the device limits are accepted and reported as such */
	init.qp_type = IBV_QPT_RC;
	init.cap.max_send_wr = e->dev.max_qp_wr;
	init.cap.max_recv_wr = e->dev.max_qp_wr;
	init.cap.max_send_sge = e->ex.max_send_sge;
	init.cap.max_recv_sge = e->ex.max_recv_sge;
	init.cap.max_inline_data = e->ex.max_inline_data;
	qp = ibv_create_qp(e->pd, &init);
	if (!ok(qp != NULL, "RC: create_qp with every cap at the device limit: %s",
		qp ? "success" : strerror(errno)))
		return;
	ret = ibv_query_qp(qp, &a, IBV_QP_CAP, &ia);
	ok(!ret && a.cap.max_send_wr == (uint32_t)e->dev.max_qp_wr &&
		   a.cap.max_recv_wr == (uint32_t)e->dev.max_qp_wr &&
		   a.cap.max_send_sge == e->ex.max_send_sge &&
		   a.cap.max_recv_sge == e->ex.max_recv_sge &&
		   a.cap.max_inline_data == e->ex.max_inline_data &&
		   !memcmp(&a.cap, &ia.cap, sizeof(a.cap)),
	   "RC: query_qp reports the limits as the actual caps (%u/%u/%u/%u/%u)",
	   a.cap.max_send_wr, a.cap.max_recv_wr, a.cap.max_send_sge,
	   a.cap.max_recv_sge, a.cap.max_inline_data);
	ibv_destroy_qp(qp);
}

/* ibv_query_qp's own failure: "returns ... the value of errno" */
static void query_errors(struct env *e)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	struct ibv_qp *qp;
	int ret;

	qp = create_qp(e->pd, e->scq, IBV_QPT_RC);
	if (!ok(qp != NULL, "RC: create QP for query_qp error checks"))
		return;
	ret = ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_RATE_LIMIT, &ia);
	ok(ret == EOPNOTSUPP,
	   "query_qp with IBV_QP_RATE_LIMIT in attr_mask returns EOPNOTSUPP (got %s)",
	   err_str(ret));
	ret = ibv_query_qp(qp, &a, 0, &ia);
	ok(!ret && a.qp_state == IBV_QPS_RESET,
	   "query_qp with attr_mask 0 succeeds (the mask is only a hint): %s",
	   err_str(ret));
	ibv_destroy_qp(qp);
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	struct env e = {};
	int ret;

	if (expect_init(&e.ex, &argc, argv) || argc > 1) {
		fprintf(stderr,
			"usage: %s [-d DEV] [--config FILE] [--set KEY=VALUE]...\n",
			argv[0]);
		return 125;
	}
	diag("expected configuration from %s", e.ex.source);
	e.sqd_notify = e.ex.dev_caps & EXPECT_DEV_CAP_SQD_ASYNC_NOTIFY;

	e.ctx = open_device_by_name(dev);
	if (!ok(e.ctx != NULL, "open %s", dev))
		return tap_done();
	ret = ibv_query_port(e.ctx, 1, &e.port);
	ok(!ret, "query_port 1: %s", err_str(ret));
	ret = ibv_query_device(e.ctx, &e.dev);
	ok(!ret, "query_device: %s", err_str(ret));
	e.pd = ibv_alloc_pd(e.ctx);
	e.scq = ibv_create_cq(e.ctx, 16, NULL, NULL, 0);
	e.rcq = ibv_create_cq(e.ctx, 16, NULL, NULL, 0);
	if (!ok(e.pd && e.scq && e.rcq, "alloc_pd + two CQs"))
		goto out;

	walk(&e, IBV_QPT_RC);
	walk(&e, IBV_QPT_UC);
	walk(&e, IBV_QPT_UD);
	init_attr_variants(&e);
	query_errors(&e);

	drain_async(e.ctx, 0);
	ok(n_seen_events == 0, "no unexpected asynchronous events (%d left)",
	   n_seen_events);
	for (int i = 0; i < n_seen_events; i++)
		diag("unexpected event %s", ev_str(seen_events[i].type));
out:
	if (e.rcq)
		ibv_destroy_cq(e.rcq);
	if (e.scq)
		ibv_destroy_cq(e.scq);
	if (e.pd)
		ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	return tap_done();
}
