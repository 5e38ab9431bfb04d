// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * qbench: control-path latency of a few query verbs, on several devices in
 * the same process, batches interleaved (see tests/bench/bench.sh).
 *
 *   qbench time [-b BATCHES] [-w WARMUP] [-t BATCH_MS] DEV...
 *	per verb: one probe call per device (its return value is reported),
 *	WARMUP calls per device (which also size the batches: about BATCH_MS
 *	each, the same call count on every device), then BATCHES timed
 *	batches per device, the devices taking turns (order alternating), each
 *	timed with CLOCK_MONOTONIC.  Prints
 *	  RES <verb> <dev> <median> <min> <max> <probe_rc> <calls/batch> <batches>
 *	      <failed> <calls> <first_failure>
 *	  RAW <verb> <dev> <ns/call of every batch...>
 *	and the getppid() floor before and after as verb "getppid" dev "-"
 *	(-F: no floor).  -v VERB (repeatable): only these verbs.
 *   qbench fw -n CALLS -s 'STATS COMMAND' DEV
 *	per verb: runs STATS COMMAND (e.g. "hostctl stats": the emulator's
 *	counters, "ok cmds=N ... op_NAME=N ..."), CALLS calls, STATS COMMAND
 *	again; prints
 *	  FW <verb> <dev> <cmds/call> <op_NAME=n/call,...|-> <failed> <calls> <first_failure>
 *	(verb "idle": the same with no calls in between).
 *   qbench mark -n CALLS DEV...
 *	for strace: per device and verb, one untraced-worthy warm call, then
 *	write(-1, "QBMARK begin <verb> <dev> <calls>") (fails with EBADF), CALLS
 *	calls, write(-1, "QBMARK end ..."); then prints (after the end marker)
 *	  MARK <verb> <dev> <failed> <calls> <first_failure>
 *
 * Every call of a verb, in every loop (probe, warm-up, batches), is
 * checked: <failed> of <calls> failed, <first_failure> the first failing
 * return value ("-" if none; an errno as "95:EOPNOTSUPP").  A call fails
 * when it returns nonzero, or for data_in_order, whose value is an answer
 * (0 or 1 with flags 0) and not an error code, when it returns a negative
 * value or another answer than the first call of that loop on that device.
 * bench.sh makes any failure a FAIL row (on rxe0 a verb whose every call
 * fails with EOPNOTSUPP is shown as n/a: rxe lacks it).
 *
 * Verbs: query_qp (full mask on an RC QP in INIT), query_device_ex (NULL
 * input), query_port (port 1), query_ece, data_in_order (RDMA_WRITE, flags
 * 0), and query_qp_fw: query_qp with orca's debugfs knob query_qp_fw
 * set to 1 while it runs (set back to 0 afterwards; -P PATH overrides the
 * knob file, which bench.sh passes; devices not named orca* are measured
 * as plain query_qp).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define MAX_DEVS	4
#define MAX_BATCHES	101
#define QP_FULL_MASK	((1 << 21) - 1)	/* IBV_QP_STATE .. IBV_QP_DEST_QPN */

struct dev {
	const char *name;
	bool is_orca;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

struct verb {
	const char *name;
	int (*fn)(struct dev *d);
	bool qp_fw;		/* run with orca's query_qp_fw=1 */
	bool answer;		/* returns an answer >= 0, not an error code */
};

/* The calls of one verb on one device in one loop, and how many failed. */
struct tally {
	long calls, failed;
	int first;		/* first failing return value */
	bool have_want;
	int want;		/* answer verbs: the first answer */
};

static inline void account(const struct verb *v, struct tally *t, int r)
{
	t->calls++;
	if (v->answer) {
		if (!t->have_want && r >= 0) {
			t->want = r;
			t->have_want = true;
		}
		if (r >= 0 && r == t->want)
			return;
	} else if (r == 0) {
		return;
	}
	if (!t->failed++)
		t->first = r;
}

/* "<failed> <calls> <first_failure>" */
static const char *tally_str(const struct tally *t, char *buf, size_t len)
{
	const char *name = t->failed && t->first > 0 ?
			   strerrorname_np(t->first) : NULL;

	if (!t->failed)
		snprintf(buf, len, "0 %ld -", t->calls);
	else if (name)
		snprintf(buf, len, "%ld %ld %d:%s", t->failed, t->calls,
			 t->first, name);
	else
		snprintf(buf, len, "%ld %ld %d", t->failed, t->calls, t->first);
	return buf;
}

static const char *param_path = "/sys/kernel/debug/orca/0000:00:03.0/query_qp_fw";

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "qbench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* ------------------------------------------------------------ the verbs */

static int v_getppid(struct dev *d)
{
	(void)d;
	return getppid() > 0 ? 0 : -1;
}

static int v_query_qp(struct dev *d)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	return ibv_query_qp(d->qp, &attr, QP_FULL_MASK, &init);
}

static int v_query_device_ex(struct dev *d)
{
	struct ibv_device_attr_ex attr;

	return ibv_query_device_ex(d->ctx, NULL, &attr);
}

static int v_query_port(struct dev *d)
{
	struct ibv_port_attr attr;

	return ibv_query_port(d->ctx, 1, &attr);
}

static int v_query_ece(struct dev *d)
{
	struct ibv_ece ece;

	return ibv_query_ece(d->qp, &ece);
}

static int v_data_in_order(struct dev *d)
{
	return ibv_query_qp_data_in_order(d->qp, IBV_WR_RDMA_WRITE, 0);
}

static const struct verb floor_verb = { "getppid", v_getppid, false, false };

static const struct verb verbs[] = {
	{ "query_qp", v_query_qp, false, false },
	{ "query_qp_fw", v_query_qp, true, false },
	{ "query_device_ex", v_query_device_ex, false, false },
	{ "query_port", v_query_port, false, false },
	{ "query_ece", v_query_ece, false, false },
	{ "data_in_order", v_data_in_order, false, true },
};
#define N_VERBS (sizeof(verbs) / sizeof(verbs[0]))

/* ------------------------------------------------------------ setup */

static void set_qp_fw(bool on)
{
	const char *v = on ? "1\n" : "0\n";
	int fd = open(param_path, O_WRONLY);

	if (fd < 0)
		die("open %s: %s", param_path, strerror(errno));
	if (write(fd, v, 2) != 2)
		die("write %s: %s", param_path, strerror(errno));
	close(fd);
}

static bool any_orca(struct dev *devs, int n)
{
	for (int i = 0; i < n; i++)
		if (devs[i].is_orca)
			return true;
	return false;
}

static void verb_begin(const struct verb *v, struct dev *devs, int n)
{
	if (v->qp_fw && any_orca(devs, n))
		set_qp_fw(true);
}

static void verb_end(const struct verb *v, struct dev *devs, int n)
{
	if (v->qp_fw && any_orca(devs, n))
		set_qp_fw(false);
}

static void open_dev(struct dev *d)
{
	struct ibv_device **list;
	int n, i;

	list = ibv_get_device_list(&n);
	if (!list)
		die("ibv_get_device_list: %s", strerror(errno));
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), d->name))
			break;
	if (i == n)
		die("device %s not found", d->name);
	d->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!d->ctx)
		die("ibv_open_device(%s): %s", d->name, strerror(errno));
	d->is_orca = !strncmp(d->name, "orca", 4);

	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		die("%s: ibv_alloc_pd: %s", d->name, strerror(errno));
	d->cq = ibv_create_cq(d->ctx, 16, NULL, NULL, 0);
	if (!d->cq)
		die("%s: ibv_create_cq: %s", d->name, strerror(errno));

	struct ibv_qp_init_attr ia = {
		.send_cq = d->cq,
		.recv_cq = d->cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	d->qp = ibv_create_qp(d->pd, &ia);
	if (!d->qp)
		die("%s: ibv_create_qp(RC): %s", d->name, strerror(errno));

	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_WRITE,
	};
	int err = ibv_modify_qp(d->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (err)
		die("%s: ibv_modify_qp(INIT): %s", d->name, strerror(err));
}

static void close_dev(struct dev *d)
{
	ibv_destroy_qp(d->qp);
	ibv_destroy_cq(d->cq);
	ibv_dealloc_pd(d->pd);
	ibv_close_device(d->ctx);
}

/* ------------------------------------------------------------ time */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double batch(const struct verb *v, struct dev *d, long n,
		    struct tally *t)
{
	uint64_t t0, t1;

	t0 = now_ns();
	for (long i = 0; i < n; i++)
		account(v, t, v->fn(d));
	t1 = now_ns();
	return (double)(t1 - t0) / n;
}

/*
 * Measure one verb on devs[0..ndev-1]; the batches of the devices take
 * turns, the order alternating from one round to the next.
 */
static void time_verb(const struct verb *v, struct dev *devs, int ndev,
		      int nb, long warm, double batch_ms)
{
	double ns[MAX_DEVS][MAX_BATCHES], est = 0;
	struct tally t[MAX_DEVS] = {};
	int rc[MAX_DEVS];
	char ts[96];
	long n;

	verb_begin(v, devs, ndev);
	for (int d = 0; d < ndev; d++) {
		errno = 0;
		rc[d] = v->fn(&devs[d]);
		account(v, &t[d], rc[d]);
	}
	for (int d = 0; d < ndev; d++) {
		double e = batch(v, &devs[d], warm, &t[d]);

		if (e > est)
			est = e;
	}
	n = (long)(batch_ms * 1e6 / (est > 1 ? est : 1));
	if (n < 100)
		n = 100;
	if (n > 2000000)
		n = 2000000;
	for (int b = 0; b < nb; b++)
		for (int k = 0; k < ndev; k++) {
			int d = (b & 1) ? ndev - 1 - k : k;

			ns[d][b] = batch(v, &devs[d], n, &t[d]);
		}
	verb_end(v, devs, ndev);

	for (int d = 0; d < ndev; d++) {
		double s[MAX_BATCHES];

		printf("RAW %s %s", v->name, v == &floor_verb ? "-" : devs[d].name);
		for (int b = 0; b < nb; b++)
			printf(" %.1f", ns[d][b]);
		printf("\n");
		memcpy(s, ns[d], nb * sizeof(double));
		qsort(s, nb, sizeof(double), cmp_double);
		printf("RES %s %s %.1f %.1f %.1f %d %ld %d %s\n", v->name,
		       v == &floor_verb ? "-" : devs[d].name,
		       (nb & 1) ? s[nb / 2] : (s[nb / 2 - 1] + s[nb / 2]) / 2,
		       s[0], s[nb - 1], rc[d], n, nb,
		       tally_str(&t[d], ts, sizeof(ts)));
	}
	fflush(stdout);
}

/* ------------------------------------------------------------ fw */

#define MAX_KEYS 64
struct stats {
	int n;
	char key[MAX_KEYS][48];
	unsigned long long val[MAX_KEYS];
};

static unsigned long long stat_get(const struct stats *s, const char *k)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->key[i], k))
			return s->val[i];
	return 0;
}

static void read_stats(const char *cmd, struct stats *s)
{
	char line[4096], *tok, *save, *eq;
	FILE *f;
	bool okay = false;

	memset(s, 0, sizeof(*s));
	fflush(stdout);
	f = popen(cmd, "r");
	if (!f)
		die("popen(%s): %s", cmd, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		for (tok = strtok_r(line, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save)) {
			if (!strcmp(tok, "ok")) {
				okay = true;
				continue;
			}
			eq = strchr(tok, '=');
			if (!eq || s->n == MAX_KEYS || eq - tok >= 48)
				continue;
			*eq = 0;
			snprintf(s->key[s->n], sizeof(s->key[0]), "%s", tok);
			s->val[s->n++] = strtoull(eq + 1, NULL, 0);
		}
	}
	if (pclose(f) != 0 || !okay)
		die("'%s' failed or did not answer 'ok ...'", cmd);
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->key[i], "cmds"))
			return;
	die("'%s': no cmds= in its answer", cmd);
}

static void fw_verb(const struct verb *v, struct dev *d, long n,
		    const char *cmd)
{
	struct stats a, b;
	struct tally t = {};
	char detail[1024] = "", ts[96];
	size_t off = 0;

	verb_begin(v, d, 1);
	if (n)	/* warm (lazy setup is not the verb's cost) */
		account(v, &t, v->fn(d));
	read_stats(cmd, &a);
	for (long i = 0; i < n; i++)
		account(v, &t, v->fn(d));
	read_stats(cmd, &b);
	verb_end(v, d, 1);

	for (int i = 0; i < b.n; i++) {
		unsigned long long diff;

		if (strncmp(b.key[i], "op_", 3))
			continue;
		diff = b.val[i] - stat_get(&a, b.key[i]);
		if (diff && off < sizeof(detail))
			off += snprintf(detail + off, sizeof(detail) - off,
					"%s%s=%.3g", off ? "," : "",
					b.key[i] + 3, n ? (double)diff / n : (double)diff);
	}
	unsigned long long c = stat_get(&b, "cmds") - stat_get(&a, "cmds");

	printf("FW %s %s %.3f %s %s\n", n ? v->name : "idle", d->name,
	       n ? (double)c / n : (double)c, off ? detail : "-",
	       tally_str(&t, ts, sizeof(ts)));
	fflush(stdout);
}

/* ------------------------------------------------------------ mark */

static void mark(const char *what, const struct verb *v, struct dev *d, long n)
{
	char buf[160];
	int len = snprintf(buf, sizeof(buf), "QBMARK %s %s %s %ld\n", what,
			   v->name, d->name, n);

	/* fd -1: fails with EBADF, visible in strace, writes nothing */
	if (write(-1, buf, len) >= 0)
		die("marker write succeeded?");
}

static void mark_verb(const struct verb *v, struct dev *d, long n)
{
	struct tally t = {};
	char ts[96];

	verb_begin(v, d, 1);
	account(v, &t, v->fn(d));
	mark("begin", v, d, n);
	for (long i = 0; i < n; i++)
		account(v, &t, v->fn(d));
	mark("end", v, d, n);
	verb_end(v, d, 1);
	/* after the end marker: not counted as the verb's syscalls */
	printf("MARK %s %s %s\n", v->name, d->name, tally_str(&t, ts, sizeof(ts)));
	fflush(stdout);
}

/* ------------------------------------------------------------ main */

static void usage(void)
{
	fprintf(stderr,
		"usage: qbench time [-b BATCHES] [-w WARMUP] [-t BATCH_MS] [-F] [-v VERB]... DEV...\n"
		"       qbench fw -n CALLS -s 'STATS COMMAND' [-v VERB]... DEV\n"
		"       qbench mark -n CALLS [-v VERB]... DEV...\n"
		"       (-P PARAM_FILE: the query_qp_fw parameter)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct dev devs[MAX_DEVS] = {};
	const char *mode, *stats_cmd = NULL;
	bool want[N_VERBS] = {}, any_want = false, floor = true;
	int nb = 11, ndev = 0, opt;
	long warm = 2000, calls = 1000;
	double batch_ms = 40;

	if (argc < 2)
		usage();
	mode = argv[1];
	optind = 2;
	while ((opt = getopt(argc, argv, "b:w:t:n:s:v:P:F")) != -1) {
		switch (opt) {
		case 'b':
			nb = atoi(optarg);
			break;
		case 'w':
			warm = atol(optarg);
			break;
		case 't':
			batch_ms = atof(optarg);
			break;
		case 'n':
			calls = atol(optarg);
			break;
		case 's':
			stats_cmd = optarg;
			break;
		case 'P':
			param_path = optarg;
			break;
		case 'F':
			floor = false;
			break;
		case 'v': {
			size_t i;

			for (i = 0; i < N_VERBS; i++)
				if (!strcmp(optarg, verbs[i].name))
					break;
			if (i == N_VERBS)
				die("unknown verb %s", optarg);
			want[i] = any_want = true;
			break;
		}
		default:
			usage();
		}
	}
	if (nb < 1 || nb > MAX_BATCHES || warm < 1 || batch_ms <= 0 || calls < 0)
		usage();
	for (; optind < argc; optind++) {
		if (ndev == MAX_DEVS)
			usage();
		devs[ndev++].name = argv[optind];
	}
	if (!ndev)
		usage();
	for (int d = 0; d < ndev; d++)
		open_dev(&devs[d]);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(mode, "time")) {
		if (floor)
			time_verb(&floor_verb, devs, 1, nb, warm, batch_ms);
		for (size_t i = 0; i < N_VERBS; i++)
			if (!any_want || want[i])
				time_verb(&verbs[i], devs, ndev, nb, warm, batch_ms);
		if (floor)
			time_verb(&floor_verb, devs, 1, nb, warm, batch_ms);
	} else if (!strcmp(mode, "fw")) {
		if (!stats_cmd || ndev != 1)
			usage();
		fw_verb(&floor_verb, &devs[0], 0, stats_cmd);	/* idle */
		for (size_t i = 0; i < N_VERBS; i++)
			if (!any_want || want[i])
				fw_verb(&verbs[i], &devs[0], calls, stats_cmd);
	} else if (!strcmp(mode, "mark")) {
		for (int d = 0; d < ndev; d++)
			for (size_t i = 0; i < N_VERBS; i++)
				if (!any_want || want[i])
					mark_verb(&verbs[i], &devs[d], calls);
	} else {
		usage();
	}

	for (int d = 0; d < ndev; d++)
		close_dev(&devs[d]);
	return 0;
}
