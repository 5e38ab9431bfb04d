// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca-fabric: one InfiniBand subnet for orca emulators.  A single
 * switch that every emulator's port is cabled to, and the subnet manager
 * (LID 1) that gives each port GUID a LID.
 *
 *   orca-fabric --socket PATH [--ctl PATH] [--log FILE] [--once]
 *
 * Emulators connect to PATH (SOCK_SEQPACKET) and say HELLO; the SM
 * (fabric_sm.c) answers LID_ASSIGN.  A PKT is forwarded to the port whose LID range
 * (lid .. lid + 2^lmc - 1) holds the LRH's DLID, or dropped and counted
 * (unknown LID, port down or gone, multicast).  The switch never waits
 * for a port: what a port does not take at once waits in its bounded
 * queue, and beyond that is dropped and counted, as a switch with full
 * buffers does; RC recovers.  Nothing is printed unless --log is given
 * or something fails at start; SIGTERM and SIGINT end it (status 0)
 * and remove its sockets.
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "fabric.h"
#include "orca_log.h"

#define RX_BATCH	64	/* messages read from one port per pass */

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static uint64_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
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

	if (c->lid >= 0) {
		fab_sm_close(f, c, why);
	} else {
		/* a port refused again and again: rate-limited */
		fab_complain(f, why, i);
	}
	close(c->fd);
	c->fd = -1;
	c->lid = -1;
	msgq_free(&c->q);
	f->n_conns--;
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
	if (!h.port_guid || h.lmc > 7 || c->lid >= 0) {
		fab_complain(f, "bad or second HELLO", c - f->conns);
		return;
	}
	fab_sm_hello(f, c, &h);
}

static void on_pkt(struct fabric *f, struct fab_conn *c, const uint8_t *m,
		   size_t len)
{
	if (c->lid < 0) {
		f->bad_msgs++;
		fab_complain(f, "packet before HELLO", c - f->conns);
		return;
	}
	fab_sm_forward(f, c, m, len);
}

static void on_msg(struct fabric *f, struct fab_conn *c, const uint8_t *m,
		   size_t len)
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
		on_pkt(f, c, m, len);
		return;
	case ORCA_FAB_HELLO:
		on_hello(f, c, m, len);
		return;
	case ORCA_FAB_PORT_DOWN:
	case ORCA_FAB_PORT_UP:
		if (c->lid < 0)
			break;
		fab_sm_link(f, c, h.type == ORCA_FAB_PORT_UP);
		return;
	}
	f->bad_msgs++;
	fab_complain(f, "unexpected message", c - f->conns);
}

/* Read what the port sent, a batch at most; false if it went away. */
static bool conn_input(struct fabric *f, struct fab_conn *c)
{
	static uint8_t m[ORCA_FAB_MSG_MAX + 1];
	unsigned int i;
	ssize_t r;

	for (i = 0; i < RX_BATCH && c->fd >= 0; i++) {
		r = recv(c->fd, m, sizeof(m), MSG_DONTWAIT | MSG_TRUNC);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		if (r <= 0) {
			fab_conn_close(f, c, r ? strerror(errno) : "EOF");
			return false;
		}
		if ((size_t)r > ORCA_FAB_MSG_MAX) {
			f->bad_msgs++;
			fab_complain(f, "message too long", c - f->conns);
			continue;
		}
		on_msg(f, c, m, r);
	}
	return true;
}

static void accept_conn(struct fabric *f)
{
	int fd = accept4(f->listen_fd, NULL, NULL,
			 SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct fab_conn *c = NULL;
	unsigned int i;

	if (fd < 0)
		return;
	for (i = 0; i < FAB_MAX_PORTS && !c; i++)
		if (f->conns[i].fd < 0)
			c = &f->conns[i];
	if (!c || msgq_init(&c->q, FAB_QUEUE, ORCA_FAB_MSG_MAX)) {
		orca_log("refusing a connection: %s",
			 c ? "out of memory" : "too many ports");
		close(fd);
		return;
	}
	c->fd = fd;
	c->lid = -1;
	f->n_conns++;
	f->had_conn = true;
}

/* ------------------------------------------------------------------ */
/* Main loop                                                          */
/* ------------------------------------------------------------------ */

static bool poll_once(struct fabric *f, bool once)
{
	struct pollfd pfd[1 + FAB_MAX_PORTS + 1 + FAB_CTL_CLIENTS];
	int idx[FAB_MAX_PORTS];
	int n = 0, ctl_first, ret;
	unsigned int i;

	pfd[n++] = (struct pollfd){ .fd = f->listen_fd, .events = POLLIN };
	for (i = 0; i < FAB_MAX_PORTS; i++) {
		struct fab_conn *c = &f->conns[i];

		idx[i] = -1;
		if (c->fd < 0)
			continue;
		idx[i] = n;
		pfd[n++] = (struct pollfd){
			.fd = c->fd,
			.events = POLLIN | (msgq_empty(&c->q) ? 0 : POLLOUT) };
	}
	ctl_first = n;
	n += fab_ctl_pollfds(f, pfd + n);
	ret = poll(pfd, n, 1000);
	if (ret < 0 && errno != EINTR) {
		orca_log("poll: %s", strerror(errno));
		return false;
	}
	if (stop_signal)
		return false;
	if (ret <= 0)
		return true;
	for (i = 0; i < FAB_MAX_PORTS; i++) {
		struct fab_conn *c = &f->conns[i];

		if (idx[i] < 0 || c->fd < 0 ||
		    !(pfd[idx[i]].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		conn_input(f, c);
	}
	/* forwarded packets go out now, in one pass */
	for (i = 0; i < FAB_MAX_PORTS; i++) {
		struct fab_conn *c = &f->conns[i];

		if (c->fd >= 0 && !msgq_empty(&c->q) &&
		    msgq_flush(&c->q, c->fd) < 0)
			fab_conn_close(f, c, strerror(errno));
	}
	fab_ctl_handle(f, pfd + ctl_first, n - ctl_first);
	if (pfd[0].revents & POLLIN)
		accept_conn(f);
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
		"\n"
		"  --socket PATH  emulators connect here (orca-emu --set fabric=PATH)\n"
		"  --ctl PATH     control socket: 'stats', 'ping'\n"
		"  --log FILE     log here (default: no log)\n"
		"  --once         exit when the last port has left\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "ctl", required_argument, NULL, 'C' },
		{ "log", required_argument, NULL, 'l' },
		{ "once", no_argument, NULL, '1' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sock = NULL, *ctl = NULL, *logf = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	static struct fabric f;
	FILE *logfp = NULL;
	bool once = false;
	unsigned int i;
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
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	f.ctl_fd = -1;
	f.next_lid = ORCA_FAB_FIRST_LID;
	for (i = 0; i < FAB_MAX_PORTS; i++) {
		f.conns[i].fd = -1;
		f.conns[i].lid = -1;
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
	orca_log("listening on %s%s%s, SM LID 0x%x", sock,
		 ctl ? ", ctl " : "", ctl ? ctl : "", ORCA_FAB_SM_LID);
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
	if (logfp)
		fclose(logfp);
	return 0;
}
