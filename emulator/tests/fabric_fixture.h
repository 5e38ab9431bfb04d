/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Two devices of this process on a real orca-fabric (its path in
 * fab_bin, started and stopped here): the fabric's sockets and control
 * requests, a poll loop for both devices (pump(), on the real clock or
 * on the virtual one that moves only while nothing is at the switch),
 * and a connected pair of QPs with a CQ and a registered buffer each.
 * Used by test_fabric_sm.c, test_fabric_traffic.c and test_flow.c.
 */
#ifndef ORCA_EMU_TESTS_FABRIC_FIXTURE_H
#define ORCA_EMU_TESTS_FABRIC_FIXTURE_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dp_fixture.h"
#include "orca_fabric_proto.h"
#include "orca_log.h"
#include "orca_pkt.h"

/* ------------------------------------------------------------------ */
/* Two devices on a real orca-fabric                                  */
/* ------------------------------------------------------------------ */

#define GUID_A	0x00ca7afffe00a000ULL
#define GUID_B	0x00ca7afffe00b000ULL
#define MSG	5000		/* 20 packets of 256 bytes */

static const char *fab_bin;
static char fab_dir[64], fab_sock[96], fab_ctl[96];
static pid_t fab_pid = -1;

/*
 * The bound of every wait on another process (the fabric, orca-emu), on
 * the real clock: they run when the host lets them.  Generous, since it
 * costs time only when a check is about to fail anyway; no check depends
 * on how soon they act.
 */
#define WAIT_MS		20000

static inline uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* SIGTERM: it must exit 0 and leave no socket behind. */
static inline void fabric_stop(void)
{
	struct stat st;
	int status;

	if (fab_pid < 0)
		return;
	kill(fab_pid, SIGTERM);
	CHECK_EQ(waitpid(fab_pid, &status, 0), fab_pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(stat(fab_sock, &st) && errno == ENOENT);
	CHECK(stat(fab_ctl, &st) && errno == ENOENT);
	fab_pid = -1;
}

/* One request to a control socket; true if the reply line is "ok ...". */
static inline bool ctl_request(const char *path, const char *req,
			       char *reply, size_t len)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t got = 0;
	ssize_t r;
	int fd;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    write(fd, req, strlen(req)) < 0 || write(fd, "\n", 1) != 1) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (got < len - 1) {
		r = read(fd, reply + got, len - 1 - got);
		if (r <= 0)
			break;
		got += r;
		if (memchr(reply, '\n', got))
			break;
	}
	close(fd);
	reply[got] = '\0';
	reply[strcspn(reply, "\n")] = '\0';
	return !strncmp(reply, "ok", 2);
}

static inline bool fabric_ctl(const char *req, char *reply, size_t len)
{
	return ctl_request(fab_ctl, req, reply, len);
}

/* orca-fabric in the background; true once its control socket answers. */
static inline bool fabric_start(void)
{
	uint64_t end = now_ms() + WAIT_MS;
	char reply[64];

	if (!fab_dir[0]) {
		snprintf(fab_dir, sizeof(fab_dir), "/tmp/orca-fab-test.XXXXXX");
		if (!mkdtemp(fab_dir))
			return false;
		snprintf(fab_sock, sizeof(fab_sock), "%s/fabric.sock", fab_dir);
		snprintf(fab_ctl, sizeof(fab_ctl), "%s/fabric.ctl", fab_dir);
	}
	fab_pid = fork();
	if (fab_pid < 0)
		return false;
	if (!fab_pid) {
		execl(fab_bin, "orca-fabric", "--socket", fab_sock, "--ctl",
		      fab_ctl, (char *)NULL);
		_exit(127);
	}
	/*
	 * The control socket is made after the fabric's own, and answers
	 * once it listens: its file appears at bind(), before that.
	 */
	while (!fabric_ctl("stats", reply, sizeof(reply))) {
		if (now_ms() > end)
			return false;
		usleep(2000);
	}
	return true;
}

/* A counter "key=N" of a stats line; -1 if it is not there. */
static inline long long stat_of(const char *line, const char *key)
{
	char pat[64];
	const char *at;

	snprintf(pat, sizeof(pat), " %s=", key);
	at = strstr(line, pat);
	return at ? strtoll(at + strlen(pat), NULL, 0) : -1;
}

/* A device on the fabric, with node GUID @guid and more keys @extra. */
static inline struct fx *fab_dev_cfg(uint64_t guid,
				     const char *const *extra, bool first)
{
	static char fabric[160], node[64];
	const char *sets[16] = { fabric, node };
	unsigned int n = 2;

	snprintf(fabric, sizeof(fabric), "fabric=%s", fab_sock);
	snprintf(node, sizeof(node), "node_guid=0x%llx",
		 (unsigned long long)guid);
	for (; extra && *extra && n < 14; extra++)
		sets[n++] = *extra;
	/* each its own fault sequence */
	sets[n++] = first ? "link_seed=11" : "link_seed=12";
	sets[n] = NULL;
	/* the second device shares the first one's heap (dp_up_pair) */
	if (first)
		heap_next = HEAP_BASE;
	return fx_up_cfg(sets);
}

/*
 * rc_lossy_run()'s device clock: fixture.h's virtual one, which pump()
 * moves only while no packet of the two devices is at the switch (sent,
 * neither received nor dropped yet), and then at once to the next timer.
 * The link faults lose packets before the switch: a retransmit timer
 * expires because its packet was lost, never because the host was slow
 * to run the fabric process.
 */
static bool lossy_clock;

static inline long long at_switch(const struct fx *a, const struct fx *b)
{
	const struct orca_stats *s = &a->dev.stats, *t = &b->dev.stats;

	return s->fabric_tx_pkts + t->fabric_tx_pkts - s->fabric_rx_pkts -
	       t->fabric_rx_pkts - s->fabric_decode_drops -
	       t->fabric_decode_drops;
}

/*
 * The glue's poll loop for both devices, one pass: the fabric sockets
 * until the first device timer (1 ms at most), the engine, the
 * heartbeat every 100 ms.  On lossy_clock, with nothing at the switch
 * and nothing to do, the clock first moves on to that timer.
 */
static inline void pump(struct fx *a, struct fx *b)
{
	static uint64_t next_tick;
	struct fx *f[2] = { a, b };
	uint64_t now = dp_now_ns(), wait = 1000000, d, d2;
	struct timespec ts;
	struct pollfd pfd[2 * ORCA_FAB_POLLFDS];
	int idx[2], cnt[2], n = 0, i;

	if (lossy_clock && !orca_dev_busy(&a->dev) &&
	    !orca_dev_busy(&b->dev) && !at_switch(a, b)) {
		d = orca_dev_next_deadline(&a->dev);
		d2 = orca_dev_next_deadline(&b->dev);
		if (!d || (d2 && d2 < d))
			d = d2;
		if (d > now) {
			fx_clock_advance(d - now);
			now = d;
		}
	}
	for (i = 0; i < 2; i++) {
		idx[i] = -1;
		if (!f[i])
			continue;
		cnt[i] = orca_dev_fabric_pollfd(&f[i]->dev, &pfd[n],
						ORCA_FAB_POLLFDS);
		if (cnt[i])
			idx[i] = n;
		n += cnt[i];
		d = orca_dev_next_deadline(&f[i]->dev);
		if (orca_dev_busy(&f[i]->dev) || (d && d <= now))
			wait = 0;
		else if (d && d - now < wait)
			wait = d - now;
	}
	for (i = 0; i < 2 && wait; i++)
		if (idx[i] >= 0 && !orca_dev_fabric_may_sleep(&f[i]->dev))
			wait = 0;
	ts.tv_sec = 0;
	ts.tv_nsec = wait;
	if (ppoll(pfd, n, &ts, NULL) <= 0)
		for (i = 0; i < n; i++)
			pfd[i].revents = 0;
	for (i = 0; i < 2; i++)
		if (idx[i] >= 0)
			orca_dev_fabric_io(&f[i]->dev, &pfd[idx[i]], cnt[i]);
	for (i = 0; i < 2; i++)
		if (f[i])
			orca_dev_work(&f[i]->dev);
	if (now_ms() >= next_tick) {
		for (i = 0; i < 2; i++)
			if (f[i])
				orca_dev_tick(&f[i]->dev);
		next_tick = now_ms() + ORCA_HEARTBEAT_PERIOD_MS;
	}
}

static inline void pump_ms(struct fx *a, struct fx *b, unsigned int ms)
{
	uint64_t end = now_ms() + ms;

	while (now_ms() < end)
		pump(a, b);
}

/*
 * Pump both (b may be NULL) until @cond, which another process must make
 * true; false, with a diagnostic, if it is not within WAIT_MS.
 */
#define pump_until(a, b, cond)						\
	({								\
		uint64_t _end = now_ms() + WAIT_MS;			\
		bool _ok;						\
									\
		while (!(_ok = (cond)) && now_ms() < _end)		\
			pump(a, b);					\
		if (!_ok)						\
			printf("# not within %u ms: %s\n", WAIT_MS,	\
			       #cond);					\
		_ok;							\
	})

static inline struct orca_port_attr port_of(struct fx *f)
{
	struct orca_query_port_in in = { .port = 1 };
	struct orca_port_attr o;

	memset(&o, 0, sizeof(o));
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_PORT, &in, sizeof(in), &o,
			sizeof(o)), 0);
	return o;
}

static bool bad_active;		/* a port seen ACTIVE with LID 0 */

/* Both ports (b may be NULL) in @state within WAIT_MS. */
static inline bool wait_port(struct fx *a, struct fx *b, uint8_t state)
{
	uint64_t end = now_ms() + WAIT_MS;
	struct orca_port_attr pa, pb;

	for (;;) {
		pa = port_of(a);
		pb = b ? port_of(b) : pa;
		if ((pa.state == ORCA_PORT_ACTIVE && !pa.lid) ||
		    (pb.state == ORCA_PORT_ACTIVE && !pb.lid))
			bad_active = true;
		if (pa.state == state && pb.state == state)
			return true;
		if (now_ms() > end)
			return false;
		pump(a, b);
	}
}

/* Port events of kind @ev seen since the last call (EQ drained). */
static inline unsigned int port_events(struct fx *f, uint8_t ev)
{
	struct orca_eqe e;
	unsigned int i, n = 0;

	for (i = 0; i < f->n_async; i++)
		n += f->async[i].type == ORCA_EQE_PORT_EVENT &&
		     f->async[i].port.event == ev;
	f->n_async = 0;
	while (fx_pop(f, &e))
		n += e.type == ORCA_EQE_PORT_EVENT && e.port.event == ev;
	return n;
}

static inline uint16_t lid_of(struct fx *f)
{
	return le16toh(port_of(f).lid);
}


/* ---- traffic between the two ---- */

struct side {
	struct fx *f;
	struct ring_cq cq;
	struct ring_qp qp;
	uint64_t buf;			/* 4 pages, all access */
	uint32_t lk;
};

static const uint32_t all_access = ORCA_ACCESS_LOCAL_WRITE |
	ORCA_ACCESS_REMOTE_WRITE | ORCA_ACCESS_REMOTE_READ |
	ORCA_ACCESS_REMOTE_ATOMIC;

static inline void pattern(uint8_t *p, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + 1);
}

/* Pump both until @s has a CQE, WAIT_MS at most. */
static inline bool wait_cqe2(struct side *s, struct side *o,
			     struct orca_cqe *c)
{
	uint64_t end = now_ms() + WAIT_MS;

	while (!poll_cqe(s->f, &s->cq, c)) {
		if (now_ms() > end)
			return false;
		pump(s->f, o->f);
	}
	return true;
}

/* Both devices on a fresh fabric, ACTIVE, with a QP of @type each. */
static inline bool pair_up(struct side *a, struct side *b, uint8_t type,
			   const char *const *extra)
{
	struct side *s[2] = { a, b };
	int i;

	if (!fabric_start())
		return false;
	a->f = fab_dev_cfg(GUID_A, extra, true);
	b->f = fab_dev_cfg(GUID_B, extra, false);
	if (!wait_port(a->f, b->f, ORCA_PORT_ACTIVE))
		return false;
	for (i = 0; i < 2; i++) {
		s[i]->buf = heap_alloc(4 * PAGE);
		CHECK_EQ(reg_mr(s[i]->f, s[i]->f->pdn, s[i]->buf, 4 * PAGE,
				all_access, &s[i]->lk), 0);
		CHECK(make_cq(s[i]->f, &s[i]->cq, 5));
		CHECK(make_qp_srq(s[i]->f, &s[i]->qp, s[i]->cq.cqn, type, 0));
	}
	return true;
}

static inline void pair_connect_rc(struct side *a, struct side *b,
				   uint8_t mtu)
{
	const uint32_t remote = all_access & ~ORCA_ACCESS_LOCAL_WRITE;

	connect_dlid = lid_of(b->f);
	CHECK(connect_rc(a->f, &a->qp, b->qp.qpn, remote, mtu));
	connect_dlid = lid_of(a->f);
	CHECK(connect_rc(b->f, &b->qp, a->qp.qpn, remote, mtu));
	connect_dlid = 0;
}

/*
 * pair_connect_rc() with QPs that retry @retry_cnt times after @timeout
 * (4.096 us << it) each, then connect_rc()'s defaults again.
 */
static inline void pair_connect_rc_retry(struct side *a, struct side *b,
					 uint8_t mtu, uint8_t retry_cnt,
					 uint8_t timeout)
{
	connect_retry_cnt = retry_cnt;
	connect_timeout = timeout;
	pair_connect_rc(a, b, mtu);
	connect_retry_cnt = 1;
	connect_timeout = 10;
}

static inline void pair_down(struct side *a, struct side *b)
{
	CHECK(canaries_ok(a->f));
	CHECK(canaries_ok(b->f));
	fx_free(a->f);
	fx_free(b->f);
	fabric_stop();
}

/* The send WQE put_send() wrote last. */
static inline struct orca_send_wqe *last_wqe(struct side *s)
{
	return gpa(s->f, s->qp.base +
		   ((uint64_t)((s->qp.sq_pi - 1) & 7) << SQ_LOG_STRIDE));
}

/* ---- main() ---- */

/*
 * The command line, [-v] PATH/TO/orca-fabric ...: fab_bin (NULL when not
 * given); SIGPIPE ignored, a peer may go away.  True with -v.
 */
static inline bool fabric_args(int argc, char **argv)
{
	bool verbose = argc > 1 && !strcmp(argv[1], "-v");

	signal(SIGPIPE, SIG_IGN);
	fab_bin = argc > 1 + verbose ? argv[1 + verbose] : NULL;
	return verbose;
}

/* The end of main(): nothing left behind, the TAP plan. */
static inline int fabric_done(void)
{
	/* a case that failed half way may have left it running */
	if (fab_pid > 0) {
		kill(fab_pid, SIGKILL);
		waitpid(fab_pid, NULL, 0);
	}
	/* empty: every process removed its sockets */
	if (fab_dir[0] && rmdir(fab_dir))
		printf("# %s left behind: %s\n", fab_dir, strerror(errno));
	return tap_done();
}

#endif /* ORCA_EMU_TESTS_FABRIC_FIXTURE_H */
