// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_qp_mirror: the orca driver answers ibv_query_qp from the QP state
 * mirror the device writes plus the context MODIFY_QP returned, without a
 * firmware command; debugfs knob query_qp_fw=1 sends QUERY_QP instead.
 *   usage: verbs_qp_mirror [-d DEV] [--queries N]
 *
 * 1. Many QPs of every type in every state (including ERR after an
 *    injected fatal error, SQE after an injected SQ error, SQD while the SQ
 *    drains and after) are queried with query_qp_fw=0 and =1: the two
 *    answers must be identical field by field.
 * 2. "hostctl stats" (the emulator's counters, per opcode) must show no
 *    QUERY_QP command and no command at all across N queries with
 *    query_qp_fw=0, and exactly N QUERY_QP commands with query_qp_fw=1.
 *
 * Needs root (the knob is written through debugfs) and, for the
 * injected errors and the counters, tests/lib/hostctl (the orca VM).
 */
#include "common.h"

/* the debug knob lives in debugfs, per PCI function */
static char PARAM[512];

static int param_locate(const char *dev)
{
	char link[256], path[128];
	const char *pci;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device", dev);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return -1;
	link[n] = '\0';
	pci = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	snprintf(PARAM, sizeof(PARAM), "/sys/kernel/debug/orca/%s/query_qp_fw",
		 pci);
	return 0;
}

static char param_orig[8];

static int param_read(char *buf, size_t len)
{
	FILE *f = fopen(PARAM, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int param_write(const char *v)
{
	int fd = open(PARAM, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, v, strlen(v));
	close(fd);
	return n == (ssize_t)strlen(v) ? 0 : -1;
}

static void param_restore(void)
{
	if (param_orig[0])
		param_write(param_orig[0] == 'Y' || param_orig[0] == '1' ? "1" :
									     "0");
}

struct qp_case {
	struct ibv_qp *qp;
	char name[64];
};

static struct qp_case cases[256];
static int n_cases;

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_port_attr port;

static bool hook(const char *what, uint32_t qpn)
{
	char req[64], reply[256];
	int rc;

	snprintf(req, sizeof(req), "%s %u", what, qpn);
	rc = hostctl(req, reply, sizeof(reply));
	if (rc || strncmp(reply, "ok", 2)) {
		diag("hostctl %s: rc=%d '%s'", req, rc, reply);
		return false;
	}
	return true;
}

/* Bring a new QP of @type to @to along the usual path; NULL on failure */
static struct ibv_qp *make_qp(enum ibv_qp_type type, enum ibv_qp_state to,
			      int variant)
{
	static const enum ibv_qp_state path[] = { IBV_QPS_INIT, IBV_QPS_RTR,
						  IBV_QPS_RTS };
	enum ibv_qp_state cur = IBV_QPS_RESET;
	struct ibv_qp_attr a;
	struct ibv_qp *qp;

	qp = create_qp(pd, cq, type);
	if (!qp)
		return NULL;
	for (size_t i = 0; i < 3 && cur != to; i++) {
		int mask = required_mask(type, cur, path[i]);

		fill_attr(&a, qp, &port, path[i]);
		/* vary the values so that the QPs differ */
		a.qkey += variant;
		a.rq_psn += variant;
		a.sq_psn += 2 * variant;
		a.dest_qp_num = 0x100 + variant;
		a.ah_attr.dlid += variant;
		if (type != IBV_QPT_UD && path[i] == IBV_QPS_RTR && variant & 1) {
			/* an alternate path and a GRH on odd variants */
			a.alt_ah_attr = a.ah_attr;
			a.alt_ah_attr.dlid += 0x100;
			a.alt_port_num = 1;
			a.alt_timeout = 10 + variant % 8;
			mask |= IBV_QP_ALT_PATH;
			a.ah_attr.is_global = 1;
			a.ah_attr.grh.dgid.raw[0] = 0xfe;
			a.ah_attr.grh.dgid.raw[1] = 0x80;
			a.ah_attr.grh.dgid.raw[15] = variant;
			a.ah_attr.grh.flow_label = variant;
			a.ah_attr.grh.hop_limit = 3;
		}
		if (ibv_modify_qp(qp, &a, mask)) {
			ibv_destroy_qp(qp);
			return NULL;
		}
		cur = path[i];
	}
	if (cur != to && to != IBV_QPS_RESET) {
		memset(&a, 0, sizeof(a));
		a.qp_state = to;
		if (ibv_modify_qp(qp, &a, IBV_QP_STATE)) {
			ibv_destroy_qp(qp);
			return NULL;
		}
	}
	return qp;
}

static void add_case(struct ibv_qp *qp, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_case(struct ibv_qp *qp, const char *fmt, ...)
{
	va_list ap;

	if (n_cases == (int)(sizeof(cases) / sizeof(cases[0])))
		return;
	cases[n_cases].qp = qp;
	va_start(ap, fmt);
	vsnprintf(cases[n_cases].name, sizeof(cases[n_cases].name), fmt, ap);
	va_end(ap);
	n_cases++;
}

static int query_all(int fw, struct ibv_qp_attr *a, struct ibv_qp_init_attr *ia,
		     int mask)
{
	int bad = 0;

	if (param_write(fw ? "1" : "0"))
		return -1;
	for (int i = 0; i < n_cases; i++) {
		memset(&a[i], 0x5a, sizeof(a[i]));
		memset(&ia[i], 0x5a, sizeof(ia[i]));
		if (ibv_query_qp(cases[i].qp, &a[i], mask, &ia[i]))
			bad++;
	}
	return bad;
}

static void compare_paths(const char *label, int mask)
{
	static struct ibv_qp_attr a0[256], a1[256], a2[256];
	static struct ibv_qp_init_attr i0[256], i1[256], i2[256];
	char diff[2048];
	int bad = 0, e0, e1, e2;

	/* mirror, firmware, mirror: nothing changes between the three */
	e0 = query_all(0, a0, i0, mask);
	e1 = query_all(1, a1, i1, mask);
	e2 = query_all(0, a2, i2, mask);
	if (!ok(!e0 && !e1 && !e2,
		"%s: every query_qp succeeds with query_qp_fw=0 and =1 (%d QPs; failures %d/%d/%d)",
		label, n_cases, e0, e1, e2))
		return;
	for (int i = 0; i < n_cases; i++) {
		diff_qp_query(diff, sizeof(diff), &a0[i], &i0[i], &a1[i], &i1[i]);
		if (diff[0]) {
			bad++;
			diag("%s: mirror != firmware: %s", cases[i].name, diff);
		}
		diff_qp_query(diff, sizeof(diff), &a0[i], &i0[i], &a2[i], &i2[i]);
		if (diff[0]) {
			bad++;
			diag("%s: mirror changed between the queries: %s",
			     cases[i].name, diff);
		}
	}
	ok(!bad,
	   "%s: query_qp_fw=0 (mirror) and query_qp_fw=1 (QUERY_QP) return identical attributes and init_attr for all %d QPs",
	   label, n_cases);
}

/* A QP in SQD whose SQ is still draining, compared right away */
static void compare_draining(enum ibv_qp_type type)
{
	struct ibv_qp_init_attr i0, i1, i2;
	struct ibv_qp_attr a, a0, a1, a2;
	struct ibv_qp *qp = make_qp(type, IBV_QPS_RTS, 3);
	bool seen = false, bad = false;
	char diff[2048];
	long long until = now_ms() + wait_ms();
	int attempt;

	if (!ok(qp != NULL, "%s: QP in RTS for the draining comparison",
		qpt_str(type)))
		return;
	/* the drain ends on the device's next tick (100 ms): catching it
	 * takes some attempts on a slow machine; at least 10, and more
	 * until wait_ms() has passed (the count is a diagnostic) */
	for (attempt = 1; !seen && (attempt <= 10 || now_ms() < until);
	     attempt++) {
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_SQD;
		a.en_sqd_async_notify = 0;
		if (ibv_modify_qp(qp, &a, IBV_QP_STATE)) {
			bad = true;
			break;
		}
		memset(&a0, 0x5a, sizeof(a0));
		memset(&a1, 0x5a, sizeof(a1));
		memset(&a2, 0x5a, sizeof(a2));
		param_write("0");
		ibv_query_qp(qp, &a0, ALL_QP_ATTR_MASK, &i0);
		param_write("1");
		ibv_query_qp(qp, &a1, ALL_QP_ATTR_MASK, &i1);
		param_write("0");
		ibv_query_qp(qp, &a2, ALL_QP_ATTR_MASK, &i2);
		/* sq_draining only ever drops: equal ends pin the middle */
		if (a0.sq_draining && a2.sq_draining) {
			seen = true;
			diff_qp_query(diff, sizeof(diff), &a0, &i0, &a1, &i1);
			if (diff[0]) {
				bad = true;
				diag("%s draining: mirror != firmware: %s",
				     qpt_str(type), diff);
			}
		}
		/* wait for the drain, then round again */
		for (long long end = now_ms() + wait_ms(); now_ms() < end;) {
			ibv_query_qp(qp, &a0, IBV_QP_STATE, &i0);
			if (!a0.sq_draining)
				break;
			sleep_ms(10);
		}
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		if (ibv_modify_qp(qp, &a, IBV_QP_STATE)) {
			bad = true;
			break;
		}
	}
	ok(seen && !bad,
	   "%s SQD while draining: mirror and QUERY_QP agree field by field, sq_draining=1 in both (%d attempt%s)",
	   qpt_str(type), attempt - 1, attempt == 2 ? "" : "s");
	ibv_destroy_qp(qp);
}

static bool stats(unsigned long long *cmds, unsigned long long *qq)
{
	char reply[2048];

	if (hostctl("stats", reply, sizeof(reply)) || strncmp(reply, "ok", 2)) {
		diag("hostctl stats: '%s'", reply);
		return false;
	}
	*cmds = stats_value(reply, "cmds");
	*qq = stats_value(reply, "op_QUERY_QP");
	if (!strstr(reply, " cmds=")) {
		diag("hostctl stats: no cmds= counter in '%s'", reply);
		return false;
	}
	return true;
}

static void count_commands(int n)
{
	unsigned long long c0, q0, c1, q1, c2, q2;
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	int fails = 0;

	if (!have_hostctl()) {
		skip("not in the orca VM (no hostctl)",
		     "zero firmware commands per query_qp");
		skip("not in the orca VM (no hostctl)",
		     "one QUERY_QP per query_qp with query_qp_fw=1");
		return;
	}
	param_write("0");
	if (!ok(stats(&c0, &q0), "hostctl stats answers with the command counters"))
		return;
	for (int i = 0; i < n; i++)
		fails += !!ibv_query_qp(cases[i % n_cases].qp, &a,
					ALL_QP_ATTR_MASK, &ia);
	if (!stats(&c1, &q1))
		return;
	ok(!fails && q1 == q0 && c1 == c0,
	   "query_qp_fw=0: %d ibv_query_qp calls issue no firmware command (QUERY_QP %llu -> %llu, all commands %llu -> %llu, %d failed)",
	   n, q0, q1, c0, c1, fails);

	param_write("1");
	fails = 0;
	for (int i = 0; i < n; i++)
		fails += !!ibv_query_qp(cases[i % n_cases].qp, &a,
					ALL_QP_ATTR_MASK, &ia);
	param_write("0");
	if (!stats(&c2, &q2))
		return;
	ok(!fails && q2 - q1 == (unsigned long long)n,
	   "query_qp_fw=1: %d ibv_query_qp calls issue %d QUERY_QP commands (QUERY_QP %llu -> %llu, %d failed)",
	   n, n, q1, q2, fails);
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC,
						  IBV_QPT_UD };
	static const enum ibv_qp_state states[] = {
		IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS,
		IBV_QPS_SQD,   IBV_QPS_ERR,
	};
	char v[8];
	int n = 1000, ret, made = 0, wanted = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--queries") && i + 1 < argc &&
		    (n = atoi(argv[i + 1])) > 0) {
			i++;
		} else {
			fprintf(stderr, "usage: %s [-d DEV] [--queries N]\n",
				argv[0]);
			return 125;
		}
	}

	if (!ok(!param_locate(dev) && !param_read(param_orig, sizeof(param_orig)),
		"%s exists (%s)", PARAM, param_orig))
		return tap_done();
	atexit(param_restore);
	ok(!param_write("1") && !param_read(v, sizeof(v)) && v[0] == 'Y' &&
		   !param_write("0") && !param_read(v, sizeof(v)) && v[0] == 'N',
	   "query_qp_fw is writable (1 -> Y, 0 -> N)");

	ctx = open_device_by_name(dev);
	if (!ok(ctx != NULL, "open %s", dev))
		return tap_done();
	ret = ibv_query_port(ctx, 1, &port);
	ok(!ret, "query_port 1: %s", err_str(ret));
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!ok(pd && cq, "alloc_pd + create_cq"))
		goto out;

	/* Population: 2 QPs per type and state, plus device-made states */
	for (size_t t = 0; t < 3; t++) {
		for (size_t s = 0; s < sizeof(states) / sizeof(states[0]); s++) {
			for (int k = 0; k < 2; k++) {
				int variant = (int)(t * 16 + s * 2 + k);
				struct ibv_qp *qp =
					make_qp(types[t], states[s], variant);

				wanted++;
				if (!qp)
					continue;
				made++;
				add_case(qp, "%s %s #%d", qpt_str(types[t]),
					 qps_str(states[s]), k);
			}
		}
	}
	ok(made == wanted, "created %d of %d QPs in RESET..ERR", made, wanted);

	if (have_hostctl()) {
		int hooks = 0, hooked = 0;

		for (size_t t = 0; t < 3; t++) {
			static const enum ibv_qp_state from[] = {
				IBV_QPS_INIT, IBV_QPS_RTS, IBV_QPS_SQD };

			for (size_t s = 0; s < 3; s++) {
				struct ibv_qp *qp =
					make_qp(types[t], from[s], 40 + (int)s);

				hooks++;
				if (qp && hook("qp-fatal", qp->qp_num)) {
					hooked++;
					add_case(qp, "%s ERR (qp-fatal in %s)",
						 qpt_str(types[t]),
						 qps_str(from[s]));
				} else if (qp) {
					ibv_destroy_qp(qp);
				}
			}
			if (types[t] == IBV_QPT_RC)
				continue;
			struct ibv_qp *qp = make_qp(types[t], IBV_QPS_RTS, 50);

			hooks++;
			if (qp && hook("sq-error", qp->qp_num)) {
				hooked++;
				add_case(qp, "%s SQE (sq-error)",
					 qpt_str(types[t]));
			} else if (qp) {
				ibv_destroy_qp(qp);
			}
		}
		ok(hooked == hooks,
		   "%d of %d QPs moved to ERR/SQE by the device (hostctl qp-fatal / sq-error)",
		   hooked, hooks);
	} else {
		skip("not in the orca VM (no hostctl)",
		     "QPs moved to ERR/SQE by the device");
	}

	/* the SQD QPs of the population drain on the device's next tick:
	 * wait for it (bounded), not for a time */
	for (long long end = now_ms() + wait_ms(); now_ms() < end;) {
		int draining = 0;

		for (int i = 0; i < n_cases; i++) {
			struct ibv_qp_init_attr di;
			struct ibv_qp_attr da;

			if (!ibv_query_qp(cases[i].qp, &da, IBV_QP_STATE, &di) &&
			    da.sq_draining)
				draining++;
		}
		if (!draining)
			break;
		sleep_ms(10);
	}
	compare_paths("full attr_mask", ALL_QP_ATTR_MASK);
	compare_paths("attr_mask IBV_QP_STATE", IBV_QP_STATE);
	for (size_t t = 0; t < 3; t++)
		compare_draining(types[t]);

	count_commands(n);

	for (int i = 0; i < n_cases; i++)
		ibv_destroy_qp(cases[i].qp);
	drain_async(ctx, 0);
out:
	param_restore();
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return tap_done();
}
