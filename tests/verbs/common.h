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
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "verbs_compat.h"

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

/*
 * RESET -> INIT -> RTR -> RTS with fill_attr()'s values, connected to the
 * QP @dest, both directions starting at PSN 100 (fill_attr()'s own PSNs
 * only suit a QP looped back to itself).
 */
static inline int connect_to(struct ibv_qp *qp, uint32_t dest,
			     const struct ibv_port_attr *port)
{
	struct ibv_qp_attr a;

	fill_attr(&a, qp, port, IBV_QPS_INIT);
	if (ibv_modify_qp(qp, &a, required_mask(qp->qp_type, IBV_QPS_RESET,
						 IBV_QPS_INIT)))
		return -1;
	fill_attr(&a, qp, port, IBV_QPS_RTR);
	a.dest_qp_num = dest;
	a.rq_psn = 100;
	if (ibv_modify_qp(qp, &a, required_mask(qp->qp_type, IBV_QPS_INIT,
						 IBV_QPS_RTR)))
		return -1;
	fill_attr(&a, qp, port, IBV_QPS_RTS);
	a.sq_psn = 100;
	return ibv_modify_qp(qp, &a, required_mask(qp->qp_type, IBV_QPS_RTR,
						    IBV_QPS_RTS));
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

/* ------------------------------------------------------------------ */
/* Time                                                               */
/* ------------------------------------------------------------------ */

/*
 * The running kernel is at least @major.@minor (uname's release).  For
 * what uverbs itself can carry: a bit that a kernel before its version
 * has no name for cannot reach userspace, whatever the device can do.
 */
static inline bool kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

/* ib_user_verbs.h's IB_UVERBS_DEVICE_ATOMIC_WRITE (6.2): rdma-core 44 has no name */
#define UVERBS_DEVICE_ATOMIC_WRITE	(1ULL << 40)

static inline long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * The bound of every wait for something that must happen (a completion,
 * an event, a state): ORCA_WAIT seconds, default 120.  Generous on
 * purpose (issue 19: CI machines are shared and slow; TCG, busy loops
 * beside the VM, the debug kernel): a wait ends as soon as its condition
 * holds, so the bound costs time only when a test fails.  Waits that
 * check that something does NOT happen keep their short windows: a slow
 * machine can only make them pass, never fail.
 */
static inline int wait_ms(void)
{
	const char *s = getenv("ORCA_WAIT");
	long v = s ? strtol(s, NULL, 10) : 0;

	return (int)(v > 0 && v <= 3600 ? v : 120) * 1000;
}

/* The next completion on @cq within wait_ms(); status 0xff if none came. */
static inline struct ibv_wc next_wc(struct ibv_cq *cq)
{
	long long end = now_ms() + wait_ms();
	struct ibv_wc wc;

	while (now_ms() < end) {
		if (ibv_poll_cq(cq, 1, &wc) == 1)
			return wc;
	}
	memset(&wc, 0, sizeof(wc));
	wc.status = 0xff;
	return wc;
}

/* next_wc()'s status in words, "no completion" for its 0xff. */
static inline const char *wc_status_name(const struct ibv_wc *wc)
{
	return wc->status == 0xff ? "no completion" :
	       ibv_wc_status_str(wc->status);
}

static inline void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ------------------------------------------------------------------ */
/* Asynchronous events (ibv_get_async_event with a bound)             */
/* ------------------------------------------------------------------ */

/*
 * Events read while waiting for another one are remembered here (type and
 * QP only: every event is acked as soon as it is read, so that
 * ibv_destroy_qp never waits for us).
 */
struct seen_event {
	enum ibv_event_type type;
	struct ibv_qp *qp;
};
static struct seen_event seen_events[256];
static int n_seen_events;

static inline const char *ev_str(enum ibv_event_type t)
{
	return ibv_event_type_str(t);
}

static inline bool is_qp_event(enum ibv_event_type t)
{
	switch (t) {
	case IBV_EVENT_CQ_ERR:
	case IBV_EVENT_DEVICE_FATAL:
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
	case IBV_EVENT_WQ_FATAL:
		return false;
	default:
		return true;
	}
}

/* Read every pending async event (non-blocking) into seen_events[] */
static inline void drain_async(struct ibv_context *ctx, int timeout_ms)
{
	struct ibv_async_event ev;
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	int fl = fcntl(ctx->async_fd, F_GETFL);

	if (!(fl & O_NONBLOCK))
		fcntl(ctx->async_fd, F_SETFL, fl | O_NONBLOCK);
	while (poll(&pfd, 1, timeout_ms) > 0) {
		if (ibv_get_async_event(ctx, &ev))
			break;
		if (n_seen_events < (int)(sizeof(seen_events) /
					  sizeof(seen_events[0]))) {
			seen_events[n_seen_events].type = ev.event_type;
			seen_events[n_seen_events].qp =
				is_qp_event(ev.event_type) ? ev.element.qp :
							     NULL;
			n_seen_events++;
		}
		ibv_ack_async_event(&ev);
		timeout_ms = 0;
	}
}

/* Remove and count remembered events of @type for @qp */
static inline int take_events(enum ibv_event_type type, struct ibv_qp *qp)
{
	int i, j, n = 0;

	for (i = 0, j = 0; i < n_seen_events; i++) {
		if (seen_events[i].type == type && seen_events[i].qp == qp)
			n++;
		else
			seen_events[j++] = seen_events[i];
	}
	n_seen_events = j;
	return n;
}

/* Wait at most @timeout_ms for an event @type on @qp; true if it came */
static inline bool wait_event(struct ibv_context *ctx, enum ibv_event_type type,
			      struct ibv_qp *qp, int timeout_ms)
{
	long long end = now_ms() + timeout_ms;

	for (;;) {
		long long left = end - now_ms();

		if (take_events(type, qp))
			return true;
		if (left <= 0)
			return false;
		drain_async(ctx, (int)(left > 100 ? 100 : left));
	}
}

/* Forget remembered events of @qp (before it is destroyed) */
static inline void forget_events(struct ibv_qp *qp)
{
	int i, j;

	for (i = 0, j = 0; i < n_seen_events; i++)
		if (seen_events[i].qp != qp)
			seen_events[j++] = seen_events[i];
	n_seen_events = j;
}

/* ------------------------------------------------------------------ */
/* Host control (tests/lib/hostctl, only inside the orca VM)          */
/* ------------------------------------------------------------------ */

static inline bool have_hostctl(void)
{
	const char *job = getenv("ORCA_JOB");

	return job && *job;
}

/*
 * Run "hostctl REQUEST"; the reply line goes to @reply.  Returns hostctl's
 * exit status (0: the emulator answered "ok ..."), -1 if it could not run.
 */
static inline int hostctl(const char *request, char *reply, size_t len)
{
	char cmd[256];
	FILE *p;
	int st;

	if (reply && len)
		reply[0] = '\0';
	snprintf(cmd, sizeof(cmd), "hostctl %s 2>&1", request);
	fflush(stdout);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (reply && len) {
		size_t got = fread(reply, 1, len - 1, p);

		reply[got] = '\0';
		reply[strcspn(reply, "\n")] = '\0';
	} else {
		char buf[256];

		while (fread(buf, 1, sizeof(buf), p) > 0)
			;
	}
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Value of " key=N" in a "hostctl stats" reply; 0 if absent (the
 * per-opcode counters are only listed once non-zero) */
static inline unsigned long long stats_value(const char *stats,
					     const char *key)
{
	size_t kl = strlen(key);
	const char *p = stats;

	while ((p = strstr(p, key))) {
		if ((p == stats || p[-1] == ' ') && p[kl] == '=')
			return strtoull(p + kl + 1, NULL, 10);
		p += kl;
	}
	return 0;
}

/* One counter of "hostctl stats"; ~0 if the emulator did not answer */
static inline unsigned long long emu_stat(const char *key)
{
	char reply[4096];

	if (hostctl("stats", reply, sizeof(reply)))
		return ~0ULL;
	return stats_value(reply, key);
}

/* Port 1's hw_counters/NAME of device DEV; ~0 if it cannot be read */
static inline unsigned long long hw_counter(const char *dev, const char *name)
{
	char path[256];
	unsigned long long v = ~0ULL;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev, name);
	f = fopen(path, "r");
	if (!f)
		return v;
	if (fscanf(f, "%llu", &v) != 1)
		v = ~0ULL;
	fclose(f);
	return v;
}

/* ------------------------------------------------------------------ */
/* System-call probe: run this program under strace and count the    */
/* system calls it makes between two markers                          */
/* ------------------------------------------------------------------ */

/*
 * The markers are write(2)s to fd -1 (EBADF): visible to strace, no other
 * effect.  A probe body calls probe_mark(k, true) before and
 * probe_mark(k, false) after section k, and does nothing else in between
 * but the verbs under test.
 */
static inline void probe_mark(int section, bool begin)
{
	char m[32];
	int n = snprintf(m, sizeof(m), "orca-probe-%s-%d",
			 begin ? "begin" : "end", section);
	ssize_t r = write(-1, m, n);

	(void)r;
}

struct probe_section {
	int syscalls;		/* system calls of any kind in the section */
	int ioctl_write;	/* of which ioctl(2) / write(2) */
	bool begin, end;	/* markers seen */
	char first[200];	/* the first one, for the diagnostic */
};

/*
 * Run "strace -f -qq -o LOG <argv...>", wait for it, and count per section.
 * Returns the exit status of the traced program, or -1 (strace missing or
 * failed).
 */
static inline int strace_probe(char *const argv[], struct probe_section *sec,
			       int nsec)
{
	char log[] = "/tmp/orca-probe.XXXXXX";
	char *args[64];
	char line[1024];
	int fd, i, n = 0, st, cur = -1;
	pid_t pid;
	FILE *f;

	memset(sec, 0, nsec * sizeof(*sec));
	fd = mkstemp(log);
	if (fd < 0)
		return -1;
	close(fd);
	args[n++] = "strace";
	args[n++] = "-f";
	args[n++] = "-qq";
	args[n++] = "-o";
	args[n++] = log;
	args[n++] = "--";
	for (i = 0; argv[i] && n < 63; i++)
		args[n++] = argv[i];
	args[n] = NULL;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		unlink(log);
		return -1;
	}
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execvp("strace", args);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st) == 127) {
		unlink(log);
		return -1;
	}
	f = fopen(log, "r");
	if (!f) {
		unlink(log);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		const char *m = strstr(line, "\"orca-probe-");
		int k;

		if (m && sscanf(m, "\"orca-probe-begin-%d\"", &k) == 1 &&
		    k >= 0 && k < nsec) {
			sec[k].begin = true;
			cur = k;
			continue;
		}
		if (m && sscanf(m, "\"orca-probe-end-%d\"", &k) == 1 &&
		    k >= 0 && k < nsec) {
			sec[k].end = true;
			cur = -1;
			continue;
		}
		if (cur < 0 || strstr(line, "+++ ") || strstr(line, "--- "))
			continue;
		if (!sec[cur].syscalls)
			snprintf(sec[cur].first, sizeof(sec[cur].first), "%.*s",
				 (int)strcspn(line, "\n"), line);
		sec[cur].syscalls++;
		/* "PID ioctl(" with -f, or "ioctl(" */
		if (strstr(line, "ioctl(") || strstr(line, "write("))
			sec[cur].ioctl_write++;
	}
	fclose(f);
	unlink(log);
	return WEXITSTATUS(st);
}

/* Run this very program as "SELF -d DEV --probe N" under strace */
static inline int strace_self_probe(const char *dev, int n,
				    struct probe_section *sec, int nsec)
{
	char self[512], nbuf[16];
	char *args[] = { self, "-d", (char *)dev, "--probe", nbuf, NULL };
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (len <= 0)
		return -1;
	self[len] = '\0';
	snprintf(nbuf, sizeof(nbuf), "%d", n);
	return strace_probe(args, sec, nsec);
}

/* ------------------------------------------------------------------ */
/* QP attributes                                                      */
/* ------------------------------------------------------------------ */

#define ALL_QP_ATTR_MASK                                                      \
	(IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY |       \
	 IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY | \
	 IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |    \
	 IBV_QP_RNR_RETRY | IBV_QP_RQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC |         \
	 IBV_QP_ALT_PATH | IBV_QP_MIN_RNR_TIMER | IBV_QP_SQ_PSN |             \
	 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_PATH_MIG_STATE | IBV_QP_CAP |     \
	 IBV_QP_DEST_QPN)

/* Append "name(a!=b) " to @buf when the two differ */
#define DIFF_FIELD(buf, len, a, b, field)                                     \
	do {                                                                  \
		if ((a)->field != (b)->field) {                               \
			size_t _o = strlen(buf);                              \
			snprintf((buf) + _o, (len) - _o, #field "(%llu!=%llu) ", \
				 (unsigned long long)(a)->field,              \
				 (unsigned long long)(b)->field);             \
		}                                                             \
	} while (0)

static inline void diff_ah(char *buf, size_t len, const char *pfx,
			   const struct ibv_ah_attr *a,
			   const struct ibv_ah_attr *b)
{
	char tmp[512] = "";

	DIFF_FIELD(tmp, sizeof(tmp), a, b, dlid);
	DIFF_FIELD(tmp, sizeof(tmp), a, b, sl);
	DIFF_FIELD(tmp, sizeof(tmp), a, b, src_path_bits);
	DIFF_FIELD(tmp, sizeof(tmp), a, b, static_rate);
	DIFF_FIELD(tmp, sizeof(tmp), a, b, is_global);
	DIFF_FIELD(tmp, sizeof(tmp), a, b, port_num);
	if (a->is_global || b->is_global) {
		DIFF_FIELD(tmp, sizeof(tmp), a, b, grh.flow_label);
		DIFF_FIELD(tmp, sizeof(tmp), a, b, grh.sgid_index);
		DIFF_FIELD(tmp, sizeof(tmp), a, b, grh.hop_limit);
		DIFF_FIELD(tmp, sizeof(tmp), a, b, grh.traffic_class);
		if (memcmp(a->grh.dgid.raw, b->grh.dgid.raw, 16))
			strncat(tmp, "grh.dgid ", sizeof(tmp) - strlen(tmp) - 1);
	}
	if (tmp[0]) {
		size_t o = strlen(buf);

		snprintf(buf + o, len - o, "%s.{%s} ", pfx, tmp);
	}
}

/*
 * Every field of ibv_qp_attr and of the ibv_qp_init_attr ibv_query_qp
 * returns; the names of the differing ones go to @buf ("" if identical).
 */
static inline void diff_qp_query(char *buf, size_t len,
				 const struct ibv_qp_attr *a,
				 const struct ibv_qp_init_attr *ia,
				 const struct ibv_qp_attr *b,
				 const struct ibv_qp_init_attr *ib)
{
	buf[0] = '\0';
	DIFF_FIELD(buf, len, a, b, qp_state);
	DIFF_FIELD(buf, len, a, b, cur_qp_state);
	DIFF_FIELD(buf, len, a, b, path_mtu);
	DIFF_FIELD(buf, len, a, b, path_mig_state);
	DIFF_FIELD(buf, len, a, b, qkey);
	DIFF_FIELD(buf, len, a, b, rq_psn);
	DIFF_FIELD(buf, len, a, b, sq_psn);
	DIFF_FIELD(buf, len, a, b, dest_qp_num);
	DIFF_FIELD(buf, len, a, b, qp_access_flags);
	DIFF_FIELD(buf, len, a, b, cap.max_send_wr);
	DIFF_FIELD(buf, len, a, b, cap.max_recv_wr);
	DIFF_FIELD(buf, len, a, b, cap.max_send_sge);
	DIFF_FIELD(buf, len, a, b, cap.max_recv_sge);
	DIFF_FIELD(buf, len, a, b, cap.max_inline_data);
	diff_ah(buf, len, "ah_attr", &a->ah_attr, &b->ah_attr);
	diff_ah(buf, len, "alt_ah_attr", &a->alt_ah_attr, &b->alt_ah_attr);
	DIFF_FIELD(buf, len, a, b, pkey_index);
	DIFF_FIELD(buf, len, a, b, alt_pkey_index);
	/* en_sqd_async_notify: "irrelevant for ibv_query_qp", and
	 * libibverbs' ibv_cmd_query_qp does not copy it */
	DIFF_FIELD(buf, len, a, b, sq_draining);
	DIFF_FIELD(buf, len, a, b, max_rd_atomic);
	DIFF_FIELD(buf, len, a, b, max_dest_rd_atomic);
	DIFF_FIELD(buf, len, a, b, min_rnr_timer);
	DIFF_FIELD(buf, len, a, b, port_num);
	DIFF_FIELD(buf, len, a, b, timeout);
	DIFF_FIELD(buf, len, a, b, retry_cnt);
	DIFF_FIELD(buf, len, a, b, rnr_retry);
	DIFF_FIELD(buf, len, a, b, alt_port_num);
	DIFF_FIELD(buf, len, a, b, alt_timeout);
	if (!ia || !ib)
		return;
	DIFF_FIELD(buf, len, ia, ib, cap.max_send_wr);
	DIFF_FIELD(buf, len, ia, ib, cap.max_recv_wr);
	DIFF_FIELD(buf, len, ia, ib, cap.max_send_sge);
	DIFF_FIELD(buf, len, ia, ib, cap.max_recv_sge);
	DIFF_FIELD(buf, len, ia, ib, cap.max_inline_data);
	DIFF_FIELD(buf, len, ia, ib, qp_type);
	DIFF_FIELD(buf, len, ia, ib, sq_sig_all);
	if (ia->send_cq != ib->send_cq || ia->recv_cq != ib->recv_cq ||
	    ia->srq != ib->srq || ia->qp_context != ib->qp_context)
		strncat(buf, "init_attr.{send_cq,recv_cq,srq,qp_context} ",
			len - strlen(buf) - 1);
}

#endif /* ORCA_TESTS_COMMON_H */
