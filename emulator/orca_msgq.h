/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * A bounded queue of fabric messages waiting for a non-blocking socket
 * or a shared-memory ring (both ends of the fabric use it).  A full queue refuses: the caller
 * drops and counts, it never waits.
 */
#ifndef ORCA_MSGQ_H
#define ORCA_MSGQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct msgq {
	unsigned int cap;		/* slots */
	unsigned int head, n;		/* oldest, how many queued */
	size_t slot;			/* bytes per slot */
	uint16_t *len;			/* [cap] */
	uint8_t *buf;			/* [cap * slot] */
};

/* @cap slots of @slot bytes; 0 or -1 (no memory). */
int msgq_init(struct msgq *q, unsigned int cap, size_t slot);
void msgq_free(struct msgq *q);
void msgq_clear(struct msgq *q);

static inline bool msgq_empty(const struct msgq *q)
{
	return !q->n;
}

/* Room for the next message (q->slot bytes), or NULL if the queue is full. */
uint8_t *msgq_tail(struct msgq *q);
/* Queue the message written at msgq_tail(), @len bytes. */
void msgq_push(struct msgq *q, size_t len);
/*
 * Send what the socket @fd takes now.  Returns how many were sent, or
 * -1 with errno on a socket error (the connection is unusable).
 */
int msgq_flush(struct msgq *q, int fd);
/*
 * The same for a port's two queues: subnet management (VL15) first, and
 * data only once no SMP waits (IBA 7.6.4: VL15 is never queued behind
 * data).  Returns how many went, or -1 as msgq_flush().
 */
int msgq_flush_vl15(struct msgq *vl15, struct msgq *data, int fd);

struct orca_ring;
/*
 * The same into a shared-memory ring (orca_ring.h), VL15 first: what
 * fits now.  Returns how many went, or -1 if the peer broke the ring.
 */
int msgq_flush_ring(struct msgq *vl15, struct msgq *data,
		    struct orca_ring *ring);
/*
 * Where the next message to the peer is written: straight into @ring
 * (NULL: none) when nothing waits in front of it in the queues (a VL15
 * message waits only behind VL15 ones), else at the tail of its queue
 * (@vl15 ? @vl15q : @dataq).  *@in_ring says which; NULL if neither has
 * room.  msgq_out_push() then sends the @len bytes written there.
 */
uint8_t *msgq_out_slot(struct msgq *vl15q, struct msgq *dataq,
		       struct orca_ring *ring, bool vl15, bool *in_ring);
void msgq_out_push(struct msgq *q, struct orca_ring *ring, bool in_ring,
		   size_t len);

#define MSGQ_MAX_FDS	2	/* descriptors with one message */
/*
 * One message of @len bytes on the socket @fd, with the @nfds
 * descriptors @fds attached (SCM_RIGHTS), at once or not at all: 0, or
 * -1 with errno.
 */
int msgq_send_fds(int fd, const void *m, size_t len, const int *fds,
		  unsigned int nfds);
/*
 * One message from the socket @fd into @m (@len bytes; the return value
 * is its whole length, as MSG_TRUNC says), and the descriptors that came
 * with it into @fds (MSGQ_MAX_FDS, close-on-exec), their number in
 * *@nfds; more than that are closed at once.  -1 with errno as recv().
 */
ssize_t msgq_recv_fds(int fd, void *m, size_t len, int *fds,
		      unsigned int *nfds);

#endif /* ORCA_MSGQ_H */
