// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca-fabric: an inter-switch link to another orca-fabric over TCP
 * (fabric_remote.h).  Non-blocking throughout: a connect in progress, a
 * partial frame either way and a full send buffer never hold the loop.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fabric_remote.h"
#include "orca_log.h"

#define RX_READS	64	/* recv() calls per pass */

static int fail(char *err, size_t len, const char *what, const char *arg)
{
	snprintf(err, len, "%s '%s'", what, arg);
	return -1;
}

/* The listening socket, bound now; 0 or -1 with errno. */
static int listen_open(struct fab_remote *r)
{
	int one = 1;

	r->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK |
			      SOCK_CLOEXEC, 0);
	if (r->listen_fd < 0)
		return -1;
	if (setsockopt(r->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one,
		       sizeof(one)) ||
	    bind(r->listen_fd, (struct sockaddr *)&r->addr, sizeof(r->addr)) ||
	    listen(r->listen_fd, 1)) {
		int e = errno;

		close(r->listen_fd);
		r->listen_fd = -1;
		errno = e;
		return -1;
	}
	return 0;
}

int fab_remote_init(struct fab_remote *r, unsigned int sw, unsigned int port,
		    const char *how, const char *hostport, char *err,
		    size_t len)
{
	char host[32];
	const char *colon = strrchr(hostport, ':');
	unsigned long tcp;
	char *end;

	memset(r, 0, sizeof(*r));
	r->fd = r->listen_fd = -1;
	r->sw = sw;
	r->port = port;
	if (strcmp(how, "listen") && strcmp(how, "connect"))
		return fail(err, len, "listen or connect, not", how);
	r->listen = !strcmp(how, "listen");
	if (!colon || colon == hostport ||
	    (size_t)(colon - hostport) >= sizeof(host))
		return fail(err, len, "not A.B.C.D:PORT:", hostport);
	memcpy(host, hostport, colon - hostport);
	host[colon - hostport] = '\0';
	errno = 0;
	tcp = strtoul(colon + 1, &end, 10);
	r->addr.sin_family = AF_INET;
	if (*end || errno || !tcp || tcp > 65535 ||
	    inet_pton(AF_INET, host, &r->addr.sin_addr) != 1)
		return fail(err, len, "not A.B.C.D:PORT:", hostport);
	r->addr.sin_port = htons(tcp);
	snprintf(r->where, sizeof(r->where), "%s %s", how, hostport);
	r->tx = malloc(FAB_REMOTE_TX);
	if (!r->tx)
		return fail(err, len, "out of memory for", hostport);
	if (!r->listen)
		return 0;
	if (listen_open(r)) {
		snprintf(err, len, "listen on %s: %s", hostport,
			 strerror(errno));
		fab_remote_free(r);
		return -1;
	}
	return 0;
}

void fab_remote_free(struct fab_remote *r)
{
	if (r->fd >= 0)
		close(r->fd);
	if (r->listen_fd >= 0)
		close(r->listen_fd);
	r->fd = r->listen_fd = -1;
	free(r->tx);
	r->tx = NULL;
	fab_fault_free(&r->fault);
}

static void flush_tx(struct fab_remote *r);

static void connected(struct fab_remote *r, int fd,
		      const struct fab_remote_cb *cb)
{
	int one = 1;

	r->fd = fd;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	r->up = true;
	r->connects++;
	r->rx_len = r->tx_off = r->tx_len = 0;
	orca_log("remote link %u:%u (%s) up", r->sw, r->port, r->where);
	cb->link(cb->ctx, r, true);
}

static void down(struct fab_remote *r, uint64_t now_ms, const char *why,
		 const struct fab_remote_cb *cb)
{
	bool was_up = r->up;

	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	r->up = false;
	r->rx_len = r->tx_off = r->tx_len = 0;
	fab_fault_flush(&r->fault);	/* what was on the cable is gone */
	r->retry_at_ms = now_ms + FAB_REMOTE_RETRY_MS;
	if (was_up) {
		orca_log("remote link %u:%u (%s) down: %s", r->sw, r->port,
			 r->where, why);
		cb->link(cb->ctx, r, false);
	}
}

/* Into the send buffer as a frame; false: no room (counted). */
static bool frame_out(struct fab_remote *r, const uint8_t *msg, size_t len)
{
	if (FAB_REMOTE_TX - r->tx_len < 4 + len && r->tx_off) {
		memmove(r->tx, r->tx + r->tx_off, r->tx_len - r->tx_off);
		r->tx_len -= r->tx_off;
		r->tx_off = 0;
	}
	if (FAB_REMOTE_TX - r->tx_len < 4 + len) {
		r->drops++;
		return false;
	}
	r->tx[r->tx_len] = len >> 24;
	r->tx[r->tx_len + 1] = len >> 16;
	r->tx[r->tx_len + 2] = len >> 8;
	r->tx[r->tx_len + 3] = len;
	memcpy(r->tx + r->tx_len + 4, msg, len);
	r->tx_len += 4 + len;
	r->frames_out++;
	/*
	 * One send() for a pass's frames (fab_remote_flush()), not one a
	 * frame; sooner only when half the buffer waits
	 */
	if (r->tx_len - r->tx_off >= FAB_REMOTE_TX / 2)
		flush_tx(r);
	return true;
}

/* The frames held whose time has come, in order. */
static void release_due(struct fab_remote *r)
{
	uint64_t now = fab_fault_holding(&r->fault) ? fab_fault_now_us() : 0;
	const uint8_t *msg;
	size_t n;

	while ((n = fab_fault_due(&r->fault, now, &msg)))
		frame_out(r, msg, n);
}

bool fab_remote_send(struct fab_remote *r, const uint8_t *msg, size_t len)
{
	if (!r->up || len > ORCA_FAB_MSG_MAX)
		return false;
	switch (fab_fault_admit(&r->fault, msg, len, fab_fault_now_us())) {
	case FAB_FAULT_PASS:
		return frame_out(r, msg, len);
	case FAB_FAULT_FULL:
		r->drops++;
		return false;
	default:			/* lost counts as sent; held will go */
		return true;
	}
}

/* What the socket takes now; an error is found by the next poll. */
static void flush_tx(struct fab_remote *r)
{
	ssize_t n;

	while (r->fd >= 0 && r->tx_off < r->tx_len) {
		n = send(r->fd, r->tx + r->tx_off, r->tx_len - r->tx_off,
			 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		r->tx_off += n;
		r->sends++;
	}
	if (r->tx_off == r->tx_len)
		r->tx_off = r->tx_len = 0;
}

int fab_remote_pollfd(const struct fab_remote *r, struct pollfd *pfd)
{
	if (r->fd >= 0) {
		*pfd = (struct pollfd){
			.fd = r->fd,
			.events = r->up ? POLLIN | (r->tx_off < r->tx_len ?
						    POLLOUT : 0) : POLLOUT,
		};
		return 1;
	}
	if (r->listen_fd >= 0) {
		*pfd = (struct pollfd){ .fd = r->listen_fd, .events = POLLIN };
		return 1;
	}
	return 0;
}

/* The connecting side: start a connect when it is time to. */
static void try_connect(struct fab_remote *r, uint64_t now_ms,
			const struct fab_remote_cb *cb)
{
	int fd;

	if (r->admin_down || r->fd >= 0 || now_ms < r->retry_at_ms)
		return;
	r->retry_at_ms = now_ms + FAB_REMOTE_RETRY_MS;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (!connect(fd, (struct sockaddr *)&r->addr, sizeof(r->addr))) {
		connected(r, fd, cb);
		return;
	}
	if (errno != EINPROGRESS) {
		close(fd);
		return;
	}
	r->fd = fd;			/* up when it is writable */
}

/* Frames out of the receive buffer; false on a frame no fabric sends. */
static bool take_frames(struct fab_remote *r, const struct fab_remote_cb *cb)
{
	size_t len;

	while (r->fd >= 0 && r->rx_len >= 4) {
		len = (size_t)r->rx[0] << 24 | r->rx[1] << 16 | r->rx[2] << 8 |
		      r->rx[3];
		if (len < sizeof(struct orca_fab_hdr) || len > ORCA_FAB_MSG_MAX) {
			r->bad_frames++;
			return false;
		}
		if (r->rx_len < 4 + len)
			return true;
		r->frames_in++;
		cb->rx(cb->ctx, r, r->rx + 4, len);
		memmove(r->rx, r->rx + 4 + len, r->rx_len - 4 - len);
		r->rx_len -= 4 + len;
	}
	return true;
}

void fab_remote_io(struct fab_remote *r, short revents, uint64_t now_ms,
		   const struct fab_remote_cb *cb)
{
	unsigned int i;
	socklen_t sl;
	ssize_t n;
	int e, fd;

	if (r->fd < 0 && r->listen_fd >= 0 && (revents & POLLIN)) {
		fd = accept4(r->listen_fd, NULL, NULL,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0)
			connected(r, fd, cb);
		return;
	}
	if (r->fd >= 0 && !r->up) {
		/* a connect in progress */
		if (!(revents & (POLLOUT | POLLERR | POLLHUP)))
			return;
		e = 0;
		sl = sizeof(e);
		if (getsockopt(r->fd, SOL_SOCKET, SO_ERROR, &e, &sl) || e) {
			close(r->fd);
			r->fd = -1;
			return;
		}
		fd = r->fd;
		r->fd = -1;
		connected(r, fd, cb);
		return;
	}
	if (r->fd < 0) {
		if (!r->listen)
			try_connect(r, now_ms, cb);
		return;
	}
	release_due(r);
	for (i = 0; i < RX_READS && (revents & (POLLIN | POLLHUP | POLLERR));
	     i++) {
		n = recv(r->fd, r->rx + r->rx_len, sizeof(r->rx) - r->rx_len,
			 MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			down(r, now_ms, n ? strerror(errno) : "EOF", cb);
			return;
		}
		r->rx_len += n;
		if (!take_frames(r, cb)) {
			down(r, now_ms, "a frame no fabric sends", cb);
			return;
		}
	}
	/* what the delay released, and what waited for POLLOUT */
	flush_tx(r);
}

void fab_remote_flush(struct fab_remote *r)
{
	if (r->up)
		flush_tx(r);
}

/*
 * Pulled, the listening end stops listening too, so that the other end's
 * connects are refused rather than accepted and closed (which its link
 * would see come up for a moment).
 */
void fab_remote_admin(struct fab_remote *r, bool up,
		      const struct fab_remote_cb *cb)
{
	if (r->admin_down == !up)
		return;
	r->admin_down = !up;
	r->retry_at_ms = 0;
	if (up) {
		if (r->listen && r->listen_fd < 0 && listen_open(r))
			orca_log("remote link %u:%u (%s): cannot listen again: %s",
				 r->sw, r->port, r->where, strerror(errno));
		return;
	}
	if (r->up) {
		down(r, 0, "pulled (control socket)", cb);
	} else if (r->fd >= 0) {
		close(r->fd);
		r->fd = -1;
	}
	if (r->listen_fd >= 0) {
		close(r->listen_fd);
		r->listen_fd = -1;
	}
}
