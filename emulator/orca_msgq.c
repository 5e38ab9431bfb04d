// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Bounded message queue in front of a non-blocking SOCK_SEQPACKET socket.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "orca_msgq.h"
#include "orca_ring.h"

int msgq_init(struct msgq *q, unsigned int cap, size_t slot)
{
	memset(q, 0, sizeof(*q));
	q->len = calloc(cap, sizeof(*q->len));
	q->buf = malloc(cap * slot);
	if (!q->len || !q->buf) {
		msgq_free(q);
		return -1;
	}
	q->cap = cap;
	q->slot = slot;
	return 0;
}

void msgq_free(struct msgq *q)
{
	free(q->len);
	free(q->buf);
	memset(q, 0, sizeof(*q));
}

void msgq_clear(struct msgq *q)
{
	q->head = q->n = 0;
}

uint8_t *msgq_tail(struct msgq *q)
{
	if (q->n == q->cap)
		return NULL;
	return q->buf + (size_t)((q->head + q->n) % q->cap) * q->slot;
}

void msgq_push(struct msgq *q, size_t len)
{
	q->len[(q->head + q->n) % q->cap] = len;
	q->n++;
}

int msgq_flush(struct msgq *q, int fd)
{
	int sent = 0;
	ssize_t r;

	while (q->n) {
		r = send(fd, q->buf + (size_t)q->head * q->slot,
			 q->len[q->head], MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == ENOBUFS)
				return sent;
			return -1;
		}
		q->head = (q->head + 1) % q->cap;
		q->n--;
		sent++;
	}
	return sent;
}

int msgq_flush_vl15(struct msgq *vl15, struct msgq *data, int fd)
{
	int a, b;

	a = msgq_flush(vl15, fd);
	if (a < 0 || !msgq_empty(vl15))
		return a;
	b = msgq_flush(data, fd);
	return b < 0 ? b : a + b;
}

/* Move what fits of @q into @ring; false when @q is left non-empty. */
static bool to_ring(struct msgq *q, struct orca_ring *ring, int *moved)
{
	uint8_t *slot;

	while (q->n && (slot = orca_ring_slot(ring))) {
		size_t len = q->len[q->head];

		memcpy(slot, q->buf + (size_t)q->head * q->slot, len);
		orca_ring_publish(ring, len);
		q->head = (q->head + 1) % q->cap;
		q->n--;
		(*moved)++;
	}
	return !q->n;
}

int msgq_flush_ring(struct msgq *vl15, struct msgq *data,
		    struct orca_ring *ring)
{
	int moved = 0;

	if (to_ring(vl15, ring, &moved))
		to_ring(data, ring, &moved);
	return ring->broken ? -1 : moved;
}

uint8_t *msgq_out_slot(struct msgq *vl15q, struct msgq *dataq,
		       struct orca_ring *ring, bool vl15, bool *in_ring)
{
	uint8_t *slot = NULL;

	*in_ring = false;
	/* what waits goes first, as far as the ring has room now */
	if (ring && !(msgq_empty(vl15q) && (vl15 || msgq_empty(dataq))))
		msgq_flush_ring(vl15q, dataq, ring);
	if (ring && msgq_empty(vl15q) && (vl15 || msgq_empty(dataq)))
		slot = orca_ring_slot(ring);
	if (slot) {
		*in_ring = true;
		return slot;
	}
	return msgq_tail(vl15 ? vl15q : dataq);
}

void msgq_out_push(struct msgq *q, struct orca_ring *ring, bool in_ring,
		   size_t len)
{
	if (in_ring)
		orca_ring_publish(ring, len);
	else
		msgq_push(q, len);
}

int msgq_send_fds(int fd, const void *m, size_t len, const int *fds,
		  unsigned int nfds)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(MSGQ_MAX_FDS * sizeof(int))];
	} u;
	struct iovec iov = { .iov_base = (void *)m, .iov_len = len };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = CMSG_SPACE(nfds * sizeof(int)),
	};
	struct cmsghdr *c;

	if (!nfds || nfds > MSGQ_MAX_FDS) {
		errno = EINVAL;
		return -1;
	}
	memset(&u, 0, sizeof(u));
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
	memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	if (sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)len)
		return 0;
	if (errno == 0)
		errno = EMSGSIZE;
	return -1;
}

ssize_t msgq_recv_fds(int fd, void *m, size_t len, int *fds,
		      unsigned int *nfds)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(8 * sizeof(int))];
	} u;
	struct iovec iov = { .iov_base = m, .iov_len = len };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = u.buf, .msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *cm;
	ssize_t r;

	*nfds = 0;
	r = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_TRUNC | MSG_CMSG_CLOEXEC);
	if (r < 0)
		return r;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t i, n;
		int got;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			memcpy(&got, CMSG_DATA(cm) + i * sizeof(int),
			       sizeof(int));
			if (*nfds < MSGQ_MAX_FDS)
				fds[(*nfds)++] = got;
			else
				close(got);
		}
	}
	return r;
}
