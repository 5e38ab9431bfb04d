// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca-fabric: one InfiniBand subnet for orca emulators: a single switch
 * that every emulator's port is cabled to.
 *
 *   orca-fabric --socket PATH [--ctl PATH] [--log FILE] [--once]
 *               [--sm builtin|none] [--ports N] [--guid G]
 *               [--mkey-protect N]
 *
 * Emulators connect to PATH (SOCK_SEQPACKET) and say HELLO.
 *
 * --sm builtin (the default, fabric_sm.c) is the v1 fabric: the switch
 * is also the subnet manager (LID 1); it answers HELLO with LID_ASSIGN,
 * and forwards a PKT to the port whose LID range (lid .. lid + 2^lmc - 1)
 * holds the LRH's DLID, or drops and counts it (unknown LID, port down
 * or gone, multicast).
 *
 * --sm none (fabric_switch.c, fabric_dr.c) is a real switch node for a
 * real SM (OpenSM in a guest): NodeType 2 with external ports 1..N and
 * base port 0, whose SMA and PMA (orca_mad.h) the SM uses to discover
 * and program it.  A port GUID gets the lowest free switch port for the
 * life of the process; HELLO and PORT_UP get LINK_UP{port} (PhysState
 * LinkUp, PortState INIT, no LID: the SM assigns it).  The switch
 * forwards directed-route SMPs by their paths, LID-routed packets by
 * the LFT the SM wrote, multicast by the MFT, obeys the port states
 * (VL15 from INIT on, data only ARMED/ACTIVE in and ACTIVE out), counts
 * per switch port for the PMA, and serves SMPs before data.
 *
 * Either way the switch never waits for a port: what a port does not
 * take at once waits in its bounded queue, and beyond that is dropped
 * and counted, as a switch with full buffers does; RC recovers.
 * Nothing is printed unless --log is given or something fails at start;
 * SIGTERM and SIGINT end it (status 0) and remove its sockets.
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "fabric.h"
#include "orca_log.h"

#define RX_BATCH	64	/* messages read from one port per pass */
#define ISL_BATCH	(4 * FAB_QUEUE)	/* moved between switches per pass */

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static uint64_t now_ms(void)
{
	return orca_mono_ns() / 1000000;
}

static uint64_t now_s(void)
{
	return now_ms() / 1000;
}

/* A port may be hostile: at most one complaint a second in the log. */
void fab_complain(struct fabric *f, const char *what, int conn)
{
	uint64_t s = now_s();

	if (s == f->last_log_s) {
		f->log_suppressed++;
		return;
	}
	orca_log("connection %d: %s (%llu more complaints not logged)", conn,
		 what, (unsigned long long)f->log_suppressed);
	f->last_log_s = s;
	f->log_suppressed = 0;
}

static int listen_on(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 16) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* ------------------------------------------------------------------ */
/* Connections                                                        */
/* ------------------------------------------------------------------ */

void fab_conn_close(struct fabric *f, struct fab_conn *c, const char *why)
{
	int i = c - f->conns;

	fab_direct_drop(f, c, why);
	if (c->lid >= 0) {
		fab_sm_close(f, c, why);
	} else if (c->port >= 0) {
		struct fab_switch *sw = f->topo->sw[c->sw];

		orca_log("switch %s port %d (port GUID 0x%016llx) left: %s",
			 f->topo->name[c->sw], c->port,
			 (unsigned long long)sw->port[c->port].guid, why);
		fab_sw_detach(sw, c->port);
	} else {
		/* a port refused again and again: rate-limited */
		fab_complain(f, why, i);
	}
	fab_shm_detach(f, c);
	close(c->fd);
	c->fd = -1;
	c->lid = -1;
	c->sw = -1;
	c->port = -1;
	msgq_free(&c->q);
	f->n_conns--;
	while (f->conns_end && f->conns[f->conns_end - 1].fd < 0)
		f->conns_end--;
}

/* Switch mode: the port GUID gets its switch port, and the link is up. */
static void sw_hello(struct fabric *f, struct fab_conn *c,
		     const struct orca_fab_hello *h)
{
	uint64_t guid = le64toh(h->port_guid);
	unsigned int s = 0;
	int port = fab_topo_attach(f->topo, guid, le64toh(h->node_guid), &s);

	if (port < 0) {
		orca_log("refusing port GUID 0x%016llx: %s",
			 (unsigned long long)guid,
			 "no switch port left, or the GUID is connected");
		fab_conn_close(f, c, "no switch port for it");
		return;
	}
	c->sw = s;
	c->port = port;
	f->topo->sw[s]->port[port].ring = c->shm ? &c->out : NULL;
	orca_log("port GUID 0x%016llx (node 0x%016llx) is in switch %s port %d",
		 (unsigned long long)guid,
		 (unsigned long long)le64toh(h->node_guid), f->topo->name[s],
		 port);
	fab_sw_link(f->topo->sw[s], port, true);
}

static void on_hello(struct fabric *f, struct fab_conn *c, const uint8_t *m,
		     size_t len)
{
	struct orca_fab_hello h;

	if (len != sizeof(h)) {
		fab_complain(f, "HELLO of the wrong size", c - f->conns);
		return;
	}
	memcpy(&h, m, sizeof(h));
	if (!h.port_guid || h.lmc > 7 || c->lid >= 0 || c->port >= 0) {
		fab_complain(f, "bad or second HELLO", c - f->conns);
		return;
	}
	c->direct_ok = h.flags & ORCA_FAB_HELLO_DIRECT;
	/* rings offered: in use before the answer, which goes by them */
	if ((h.flags & ORCA_FAB_HELLO_SHM) && c->hello_fd >= 0 && !c->shm &&
	    !fab_shm_attach(f, c, c->hello_fd))
		orca_log("port GUID 0x%016llx: shared-memory link, %u slots a way",
			 (unsigned long long)le64toh(h.port_guid),
			 c->out.nslots);
	if (f->mode == FAB_SM_BUILTIN)
		fab_sm_hello(f, c, &h);
	else
		sw_hello(f, c, &h);
}

static void on_pkt(struct fabric *f, struct fab_conn *c, const uint8_t *m,
		   size_t len, bool ring)
{
	const size_t hdr = sizeof(struct orca_fab_hdr);
	bool no_icrc = m[2] & ORCA_FAB_F_NO_ICRC;

	if (c->lid < 0 && c->port < 0) {
		f->bad_msgs++;
		fab_complain(f, "packet before HELLO", c - f->conns);
		return;
	}
	/* without its ICRC only through a ring: a socket may not say so */
	if (no_icrc && !ring) {
		f->bad_msgs++;
		fab_complain(f, "packet without ICRC on a socket", c - f->conns);
		return;
	}
	if (f->mode == FAB_SM_BUILTIN)
		fab_sm_forward(f, c, m, len);
	else if (c->port >= 0) {
		fab_sw_input_flags(f->topo->sw[c->sw], c->port, m + hdr,
				   len - hdr, no_icrc ? ORCA_PKT_NO_ICRC : 0);
		/* what the switch decided may hold for the packets after it */
		fab_direct_consider_sw(f, c, m + hdr, len - hdr);
	}
}

void fab_on_msg(struct fabric *f, struct fab_conn *c, const uint8_t *m,
		size_t len, bool ring)
{
	struct orca_fab_hdr h;

	if (len < sizeof(h)) {
		f->bad_msgs++;
		fab_complain(f, "message shorter than its header",
			     c - f->conns);
		return;
	}
	memcpy(&h, m, sizeof(h));
	if (h.version != ORCA_FAB_VERSION) {
		f->bad_msgs++;
		fab_complain(f, "message of another protocol version",
			 c - f->conns);
		return;
	}
	switch (h.type) {
	case ORCA_FAB_PKT:
		on_pkt(f, c, m, len, ring);
		return;
	case ORCA_FAB_HELLO:
		on_hello(f, c, m, len);
		return;
	case ORCA_FAB_KICK:
		c->kicks_rcvd++;
		return;
	case ORCA_FAB_PORT_DOWN:
	case ORCA_FAB_PORT_UP:
		if (c->lid >= 0) {
			fab_sm_link(f, c, h.type == ORCA_FAB_PORT_UP);
			return;
		}
		if (c->port < 0)
			break;
		orca_log("switch %s port %d link %s", f->topo->name[c->sw],
			 c->port, h.type == ORCA_FAB_PORT_UP ? "up" : "down");
		fab_sw_link(f->topo->sw[c->sw], c->port,
			    h.type == ORCA_FAB_PORT_UP);
		return;
	}
	f->bad_msgs++;
	fab_complain(f, "unexpected message", c - f->conns);
}

/*
 * One message from @c's socket into @m, and the descriptor that came with
 * it into c->hello_fd (-1: none; more than one are closed at once).
 */
static ssize_t recv_fd(struct fab_conn *c, uint8_t *m, size_t len)
{
	unsigned int n, i;
	int fds[MSGQ_MAX_FDS];
	ssize_t r;

	r = msgq_recv_fds(c->fd, m, len, fds, &n);
	c->hello_fd = n ? fds[0] : -1;
	for (i = 1; i < n; i++)
		close(fds[i]);
	return r;
}

/* Read what the port sent, a batch at most; false if it went away. */
static bool conn_input(struct fabric *f, struct fab_conn *c)
{
	static uint8_t m[ORCA_FAB_MSG_MAX + 1];
	unsigned int i;
	ssize_t r;

	for (i = 0; i < RX_BATCH && c->fd >= 0; i++) {
		r = recv_fd(c, m, sizeof(m));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		if (r <= 0) {
			if (c->hello_fd >= 0)
				close(c->hello_fd);
			fab_conn_close(f, c, r ? strerror(errno) : "EOF");
			return false;
		}
		if ((size_t)r > ORCA_FAB_MSG_MAX) {
			f->bad_msgs++;
			fab_complain(f, "message too long", c - f->conns);
		} else {
			fab_on_msg(f, c, m, r, false);
		}
		/* a descriptor is kept only by a mapping made of it */
		if (c->hello_fd >= 0)
			close(c->hello_fd);
		c->hello_fd = -1;
	}
	return true;
}

/*
 * A connection is a descriptor: FAB_MAX_PORTS of them need more than the
 * 1024 a login shell often allows, so take what the hard limit gives, and
 * accept no more than it leaves room for (poll() fails with EINVAL past
 * RLIMIT_NOFILE descriptors).
 */
#define FAB_FD_RESERVE	(8 + FAB_CTL_CLIENTS + FAB_TOPO_MAX_REMOTE)

static unsigned int conn_limit(void)
{
	rlim_t want = FAB_MAX_PORTS + FAB_FD_RESERVE;
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r))
		return FAB_MAX_PORTS;
	if (r.rlim_cur < want) {
		r.rlim_cur = r.rlim_max == RLIM_INFINITY || r.rlim_max > want ?
			     want : r.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &r) || getrlimit(RLIMIT_NOFILE, &r))
			return FAB_MAX_PORTS;
	}
	if (r.rlim_cur >= want)
		return FAB_MAX_PORTS;
	orca_log("RLIMIT_NOFILE %llu: at most %llu ports",
		 (unsigned long long)r.rlim_cur,
		 r.rlim_cur > FAB_FD_RESERVE ?
		 (unsigned long long)(r.rlim_cur - FAB_FD_RESERVE) : 0ULL);
	return r.rlim_cur > FAB_FD_RESERVE ? r.rlim_cur - FAB_FD_RESERVE : 0;
}

static void accept_conn(struct fabric *f)
{
	int fd = accept4(f->listen_fd, NULL, NULL,
			 SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct fab_conn *c = NULL;
	unsigned int i;

	if (fd < 0)
		return;
	for (i = 0; i < FAB_MAX_PORTS && !c && f->n_conns < f->max_conns; i++)
		if (f->conns[i].fd < 0)
			c = &f->conns[i];
	/* in switch mode the queues are the switch ports' */
	if (!c || (f->mode == FAB_SM_BUILTIN &&
		   msgq_init(&c->q, FAB_QUEUE, ORCA_FAB_MSG_MAX))) {
		orca_log("refusing a connection: %s",
			 c ? "out of memory" : "too many ports");
		close(fd);
		return;
	}
	c->fd = fd;
	c->lid = -1;
	c->sw = -1;
	c->port = -1;
	c->hello_fd = -1;
	c->direct_ok = false;
	c->direct_retry_ns = 0;
	if (c - f->conns >= (long)f->conns_end)
		f->conns_end = c - f->conns + 1;
	c->kicks_sent = c->kicks_rcvd = c->blocks = 0;
	f->n_conns++;
	f->had_conn = true;
}

/* ------------------------------------------------------------------ */
/* Main loop                                                          */
/* ------------------------------------------------------------------ */

static bool conn_pending(struct fabric *f, struct fab_conn *c)
{
	/* a ring link is flushed on every pass: what went in needs a kick */
	if (c->shm)
		return true;
	if (c->port >= 0)
		return fab_sw_pending(f->topo->sw[c->sw], c->port);
	return !msgq_empty(&c->q);
}

/* Send what the port takes now; false if the connection broke. */
static bool conn_flush(struct fabric *f, struct fab_conn *c)
{
	if (c->shm)
		return fab_shm_flush(f, c);
	if (c->port >= 0)
		return fab_sw_flush(f->topo->sw[c->sw], c->port, c->fd) >= 0;
	return msgq_flush(&c->q, c->fd) >= 0;
}

static bool poll_once(struct fabric *f, bool once)
{
	struct pollfd pfd[1 + FAB_MAX_PORTS + 1 + FAB_CTL_CLIENTS +
			  FAB_TOPO_MAX_REMOTE];
	int idx[FAB_MAX_PORTS];
	int n = 0, ctl_first, remote_first = -1, ret, wait_ms = 1000;
	unsigned int i;

	pfd[n++] = (struct pollfd){ .fd = f->listen_fd, .events = POLLIN };
	for (i = 0; i < f->conns_end; i++) {
		struct fab_conn *c = &f->conns[i];

		idx[i] = -1;
		if (c->fd < 0)
			continue;
		idx[i] = n;
		pfd[n++] = (struct pollfd){
			.fd = c->fd,
			.events = POLLIN | (!c->shm && conn_pending(f, c) ?
					    POLLOUT : 0) };
	}
	ctl_first = n;
	n += fab_ctl_pollfds(f, pfd + n);
	/* links to other fabrics; a connect is tried again in a while */
	if (f->topo && f->topo->n_remote) {
		remote_first = n;
		n += fab_topo_pollfds(f->topo, pfd + n);
		wait_ms = FAB_REMOTE_RETRY_MS;
	}
	/* frames a delayed link holds: back soon, to send them in time */
	if (f->topo && fab_topo_holding(f->topo))
		wait_ms = 1;
	/* packets left between switches by the last pass: no sleep */
	if (f->topo && fab_topo_busy(f->topo))
		wait_ms = 0;
	/* ring links: poll a while after traffic, as the ports do */
	if (wait_ms && f->poll_ns &&
	    orca_mono_ns() - f->ring_active_ns < f->poll_ns)
		wait_ms = 0;
	/* then sleep only once each port knows to kick */
	for (i = 0; wait_ms && i < f->conns_end; i++)
		if (f->conns[i].fd >= 0 && f->conns[i].shm &&
		    !fab_shm_may_sleep(f, &f->conns[i]))
			wait_ms = 0;
	ret = poll(pfd, n, wait_ms);
	if (ret < 0 && errno != EINTR) {
		orca_log("poll: %s", strerror(errno));
		return false;
	}
	if (stop_signal)
		return false;
	/*
	 * direct links first: closed if their switch changed, and what went
	 * through them in its PMA counters before anything reads them
	 */
	fab_direct_sweep(f);
	/* (a timeout or a signal leaves every revents 0) */
	for (i = 0; ret > 0 && i < f->conns_end; i++) {
		struct fab_conn *c = &f->conns[i];

		if (idx[i] < 0 || c->fd < 0 ||
		    !(pfd[idx[i]].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		conn_input(f, c);
	}
	/* after the sockets: a port's ring comes after its HELLO */
	for (i = 0; i < f->conns_end; i++)
		if (f->conns[i].fd >= 0 && f->conns[i].shm)
			fab_shm_input(f, &f->conns[i]);
	/*
	 * the switches' traps: new ones, and those due again (each second);
	 * then what crossed from switch to switch, a bounded pass (a loop in
	 * the LFTs circulates, it does not hold the loop)
	 */
	if (f->topo) {
		if (remote_first >= 0)
			fab_topo_io(f->topo, ret > 0 ? pfd + remote_first : NULL,
				    now_ms());
		fab_topo_tick(f->topo, now_ms());
		fab_topo_carry(f->topo, ISL_BATCH);
	}
	/* forwarded packets go out now, in one pass */
	for (i = 0; i < f->conns_end; i++) {
		struct fab_conn *c = &f->conns[i];

		if (c->fd >= 0 && conn_pending(f, c) && !conn_flush(f, c))
			fab_conn_close(f, c, strerror(errno));
	}
	if (ret > 0) {
		fab_ctl_handle(f, pfd + ctl_first, n - ctl_first);
		if (pfd[0].revents & POLLIN)
			accept_conn(f);
	}
	if (once && f->had_conn && !f->n_conns) {
		orca_log("--once: the last port left, exiting");
		return false;
	}
	return true;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: orca-fabric --socket PATH [--ctl PATH] [--log FILE] [--once]\n"
		"                   [--sm builtin|none] [--ports N] [--guid G]\n"
		"                   [--topology FILE] [--mkey-protect N] [--poll-us N]\n"
		"                   [--direct 0|1]\n"
		"\n"
		"  --socket PATH  emulators connect here (orca-emu --set fabric=PATH)\n"
		"  --ctl PATH     control socket: 'stats', 'ping'\n"
		"  --log FILE     log here (default: no log)\n"
		"  --once         exit when the last port has left\n"
		"  --sm MODE      builtin (default): own SM, LIDs by LID_ASSIGN;\n"
		"                 none: a switch node for a real SM (OpenSM)\n"
		"  --ports N      --sm none: external switch ports (default %u, max %u)\n"
		"  --guid G       --sm none: the switch's node GUID (default 0x%016llx)\n"
		"  --topology FILE  --sm none: several switches and their links\n"
		"                 (emulator/fabric/fabric_topo.h); not with --ports, --guid\n"
		"  --mkey-protect N  --sm builtin: each port's M_Key protection level\n"
		"                 0..3 (default 1; 0: no M_Keys)\n"
		"  --poll-us N    shared-memory links: poll them N us after their\n"
		"                 last traffic before sleeping (default 0, 0..1000)\n"
		"  --direct 0|1   --sm builtin: let two ports on shared-memory links\n"
		"                 have a direct link (default 1)\n",
		FAB_SW_DEFAULT_PORTS, ORCA_MAD_MAX_PORTS,
		(unsigned long long)FAB_SW_DEFAULT_GUID);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "ctl", required_argument, NULL, 'C' },
		{ "log", required_argument, NULL, 'l' },
		{ "once", no_argument, NULL, '1' },
		{ "sm", required_argument, NULL, 'm' },
		{ "ports", required_argument, NULL, 'p' },
		{ "guid", required_argument, NULL, 'g' },
		{ "topology", required_argument, NULL, 't' },
		{ "mkey-protect", required_argument, NULL, 'k' },
		{ "poll-us", required_argument, NULL, 'P' },
		{ "direct", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sock = NULL, *ctl = NULL, *logf = NULL, *topo = NULL;
	bool one_switch_opts = false;
	char err[256];
	struct sigaction sa = { .sa_handler = on_signal };
	static struct fabric f;
	unsigned long nports = FAB_SW_DEFAULT_PORTS, mkey_protect = 1;
	unsigned long poll_us = 0, direct = 1;
	uint64_t guid = FAB_SW_DEFAULT_GUID;
	FILE *logfp = NULL;
	bool once = false;
	unsigned int i;
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			sock = optarg;
			break;
		case 'C':
			ctl = optarg;
			break;
		case 'l':
			logf = optarg;
			break;
		case '1':
			once = true;
			break;
		case 'm':
			if (!strcmp(optarg, "builtin")) {
				f.mode = FAB_SM_BUILTIN;
			} else if (!strcmp(optarg, "none")) {
				f.mode = FAB_SM_NONE;
			} else {
				fprintf(stderr, "orca-fabric: --sm builtin or none\n");
				return 2;
			}
			break;
		case 'p':
			nports = strtoul(optarg, &end, 0);
			if (*end || !nports || nports > ORCA_MAD_MAX_PORTS) {
				fprintf(stderr, "orca-fabric: --ports 1..%u\n",
					ORCA_MAD_MAX_PORTS);
				return 2;
			}
			one_switch_opts = true;
			break;
		case 'g':
			errno = 0;
			guid = strtoull(optarg, &end, 0);
			if (*end || errno || !guid) {
				fprintf(stderr, "orca-fabric: bad --guid\n");
				return 2;
			}
			one_switch_opts = true;
			break;
		case 't':
			topo = optarg;
			break;
		case 'k':
			mkey_protect = strtoul(optarg, &end, 0);
			if (*end || mkey_protect > 3) {
				fprintf(stderr, "orca-fabric: --mkey-protect 0..3\n");
				return 2;
			}
			break;
		case 'P':
			poll_us = strtoul(optarg, &end, 0);
			if (*end || poll_us > 1000) {
				fprintf(stderr, "orca-fabric: --poll-us 0..1000\n");
				return 2;
			}
			break;
		case 'D':
			direct = strtoul(optarg, &end, 0);
			if (*end || direct > 1) {
				fprintf(stderr, "orca-fabric: --direct 0 or 1\n");
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !sock) {
		fprintf(stderr, "orca-fabric: --socket is required\n");
		usage(stderr);
		return 2;
	}
	if (topo && (f.mode != FAB_SM_NONE || one_switch_opts)) {
		fprintf(stderr, "orca-fabric: --topology goes with --sm none, without --ports and --guid\n");
		return 2;
	}
	orca_log_set_name("orca-fabric");
	if (logf) {
		logfp = fopen(logf, "a");
		if (!logfp) {
			fprintf(stderr, "orca-fabric: %s: %s\n", logf,
				strerror(errno));
			return 2;
		}
		orca_log_set_file(logfp);
	} else {
		orca_log_set_quiet(1);
	}
	f.mkey_protect = mkey_protect;
	f.poll_ns = poll_us * 1000;
	f.direct_on = direct;
	if (mkey_protect &&
	    getrandom(&f.mkey_seed, sizeof(f.mkey_seed), 0) !=
	    sizeof(f.mkey_seed))
		f.mkey_seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	if (mkey_protect && !f.mkey_seed)
		f.mkey_seed = 1;
	f.max_conns = conn_limit();
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	f.ctl_fd = -1;
	f.next_lid = ORCA_FAB_FIRST_LID;
	for (i = 0; i < FAB_MAX_PORTS; i++) {
		f.conns[i].fd = -1;
		f.conns[i].lid = -1;
		f.conns[i].sw = -1;
		f.conns[i].port = -1;
	}
	if (f.mode == FAB_SM_NONE) {
		f.topo = calloc(1, sizeof(*f.topo));
		if (!f.topo) {
			fprintf(stderr, "orca-fabric: out of memory\n");
			return 1;
		}
		if (topo ? fab_topo_load(f.topo, topo, err, sizeof(err)) :
			   fab_topo_one(f.topo, nports, guid, err, sizeof(err))) {
			fprintf(stderr, "orca-fabric: %s%s%s\n", topo ? topo : "",
				topo ? ": " : "", err);
			free(f.topo);
			return topo ? 2 : 1;
		}
	}
	for (i = 0; i < FAB_CTL_CLIENTS; i++)
		f.ctl[i].fd = -1;
	f.path = sock;
	f.listen_fd = listen_on(sock);
	if (f.listen_fd < 0) {
		fprintf(stderr, "orca-fabric: %s: %s\n", sock, strerror(errno));
		return 1;
	}
	if (ctl && fab_ctl_open(&f, ctl)) {
		fprintf(stderr, "orca-fabric: %s: %s\n", ctl, strerror(errno));
		close(f.listen_fd);
		unlink(sock);
		return 1;
	}
	if (f.mode == FAB_SM_BUILTIN)
		orca_log("listening on %s%s%s, SM LID 0x%x", sock,
			 ctl ? ", ctl " : "", ctl ? ctl : "", ORCA_FAB_SM_LID);
	else if (!topo)
		orca_log("listening on %s%s%s, switch 0x%016llx with %lu ports, no SM",
			 sock, ctl ? ", ctl " : "", ctl ? ctl : "",
			 (unsigned long long)guid, nports);
	else
		orca_log("listening on %s%s%s, %u switches and %u links from %s, no SM",
			 sock, ctl ? ", ctl " : "", ctl ? ctl : "",
			 f.topo->n_sw, f.topo->n_links, topo);
	while (poll_once(&f, once))
		;
	if (stop_signal)
		orca_log("signal %d: exiting", (int)stop_signal);
	for (i = 0; i < FAB_MAX_PORTS; i++)
		if (f.conns[i].fd >= 0)
			fab_conn_close(&f, &f.conns[i], "shutdown");
	fab_ctl_close(&f);
	close(f.listen_fd);
	unlink(sock);
	if (f.topo) {
		fab_topo_free(f.topo);
		free(f.topo);
	}
	if (logfp)
		fclose(logfp);
	return 0;
}
