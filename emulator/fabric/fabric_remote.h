/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca-fabric: an inter-switch link whose other end is a switch of
 * another orca-fabric process, on this machine or another, over TCP.
 * One side listens, the other connects (again every
 * FAB_REMOTE_RETRY_MS while it cannot); each fabric message (struct
 * orca_fab_hdr and what follows: a packet, or LINK_UP when that end's
 * link came up again) crosses as a frame, its length in 4 bytes, big
 * endian, then the message.  The link is up while the connection is;
 * what does not fit the send buffer (FAB_REMOTE_TX bytes) is dropped and
 * counted, as a switch's full egress queue drops.  A link's faults
 * (struct fab_fault, fabric_fault.h) are its sending end's: packets
 * lost at random, and every frame held back for a delay.
 *
 * No switch here: fabric_topo.c hands what the local switch sends out of
 * the port to fab_remote_send() and takes what arrives from the
 * callbacks of fab_remote_io().
 */
#ifndef ORCA_FABRIC_REMOTE_H
#define ORCA_FABRIC_REMOTE_H

#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric_fault.h"
#include "orca_fabric_proto.h"

#define FAB_REMOTE_TX		(256 * 1024)
#define FAB_REMOTE_RETRY_MS	200

struct fab_remote {
	unsigned int sw, port;		/* the local end */
	bool listen;			/* else connect */
	bool admin_down;		/* the control socket pulled it */
	bool up;
	struct sockaddr_in addr;
	char where[64];			/* "listen 127.0.0.1:7000" */
	int listen_fd, fd;		/* -1: none */
	uint64_t retry_at_ms;
	size_t rx_len;
	uint8_t rx[4 + ORCA_FAB_MSG_MAX];
	size_t tx_off, tx_len;
	uint8_t *tx;			/* FAB_REMOTE_TX bytes */
	uint64_t frames_out, frames_in, drops, connects, bad_frames;
	uint64_t sends;			/* send() calls that took bytes */
	struct fab_fault fault;		/* of what this end sends */
};

struct fab_remote_cb {
	void *ctx;
	/* a message (struct orca_fab_hdr first) from the other end */
	void (*rx)(void *ctx, struct fab_remote *r, const uint8_t *msg,
		   size_t len);
	/* the connection came up or went down */
	void (*link)(void *ctx, struct fab_remote *r, bool up);
};

/*
 * The local end @sw:@port; @how "listen" or "connect", @hostport
 * "A.B.C.D:PORT".  A listening end binds at once, so that a port in use
 * is an error at start.  0, or -1 with @err.
 */
int fab_remote_init(struct fab_remote *r, unsigned int sw, unsigned int port,
		    const char *how, const char *hostport, char *err,
		    size_t len);
void fab_remote_free(struct fab_remote *r);

/*
 * Frame @msg (@len bytes) for the other end; false: down or no room (a
 * packet the link's loss takes counts as sent).
 */
bool fab_remote_send(struct fab_remote *r, const uint8_t *msg, size_t len);
/*
 * Send what the frames queued by fab_remote_send() since the last call
 * (the caller's pass) take, in as few send() calls as the socket allows.
 */
void fab_remote_flush(struct fab_remote *r);

/* The descriptor to poll now, into @pfd: 1, or 0 (none, waiting). */
int fab_remote_pollfd(const struct fab_remote *r, struct pollfd *pfd);
/* What poll() said of it (@revents 0: only the timers). */
void fab_remote_io(struct fab_remote *r, short revents, uint64_t now_ms,
		   const struct fab_remote_cb *cb);
/* Pulled (@up false: the connection closed, not made again) or back. */
void fab_remote_admin(struct fab_remote *r, bool up,
		      const struct fab_remote_cb *cb);

#endif /* ORCA_FABRIC_REMOTE_H */
