// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca-fabric: direct links between two ports on ring links
 * (orca_fabric_proto.h, "Direct links"), --sm builtin.
 *
 * When the switch forwards a unicast data packet from one such port to
 * another, its decision holds for every packet between the two until a
 * port goes down or leaves: so it makes them a pair of rings of their
 * own and a socket pair for their kicks, and steps out of the way.  The
 * fabric keeps the mapping, to count what goes through (the rings'
 * tails) into the ports' counters, and takes the link back with
 * DIRECT_CLOSE.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fabric.h"
#include "orca_log.h"

/* Enough room that a 64 KiB message and its ACKs never wait for it. */
#define DIRECT_SLOTS	256
/* After a grant failed (no memory, a full socket): a second's rest. */
#define DIRECT_RETRY_NS	1000000000ULL

static struct fab_dlink *dlink_between(struct fabric *f, int a, int b)
{
	const struct fab_conn *c = &f->conns[a];
	unsigned int i;

	for (i = 0; i < c->n_direct; i++) {
		struct fab_dlink *l = &f->direct[c->direct[i]];

		if ((l->a == a && l->b == b) || (l->a == b && l->b == a))
			return l;
	}
	return NULL;
}

static uint32_t tail_of(const struct orca_ring *r)
{
	return __atomic_load_n(&r->idx->tail, __ATOMIC_RELAXED);
}

/* DIRECT_CLOSE for @l to the port of @conn (a full socket: it is gone). */
static void send_close(struct fabric *f, int conn, const struct fab_dlink *l)
{
	struct orca_fab_direct d = {
		.h = { .type = ORCA_FAB_DIRECT_CLOSE,
		       .version = ORCA_FAB_VERSION },
		.id = htole32(l->id),
	};

	if (f->conns[conn].fd >= 0)
		send(f->conns[conn].fd, &d, sizeof(d),
		     MSG_DONTWAIT | MSG_NOSIGNAL);
}

static void conn_forget(struct fab_conn *c, unsigned int link)
{
	unsigned int i;

	for (i = 0; i < c->n_direct; i++)
		if (c->direct[i] == link) {
			c->direct[i] = c->direct[--c->n_direct];
			return;
		}
}

/* Close link @l: both ports told, its counts into theirs. */
static void dlink_close(struct fabric *f, struct fab_dlink *l,
			const char *why)
{
	struct fab_conn *ca = &f->conns[l->a], *cb = &f->conns[l->b];
	uint32_t ab = tail_of(&l->r0), ba = tail_of(&l->r1);
	struct fab_lid *la = &f->lids[ca->lid], *lb = &f->lids[cb->lid];

	la->pkts_in += ab;
	lb->pkts_out += ab;
	lb->pkts_in += ba;
	la->pkts_out += ba;
	orca_log("direct link %u between LIDs 0x%x and 0x%x closed (%s): %u and %u packets",
		 l->id, la->lid, lb->lid, why, ab, ba);
	send_close(f, l->a, l);
	send_close(f, l->b, l);
	conn_forget(ca, l - f->direct);
	conn_forget(cb, l - f->direct);
	munmap(l->shm, l->shm_size);
	memset(l, 0, sizeof(*l));
	f->n_direct--;
}

void fab_direct_drop(struct fabric *f, struct fab_conn *c, const char *why)
{
	while (c->n_direct)
		dlink_close(f, &f->direct[c->direct[0]], why);
}

/* The memfd of two empty rings, sealed at its size, mapped into @l. */
static int make_rings(struct fab_dlink *l)
{
	int fd = orca_ring_memfd("orca-direct-link", DIRECT_SLOTS, &l->shm,
				 &l->shm_size);

	if (fd < 0)
		return -1;
	if (orca_ring_open(&l->r0, l->shm, l->shm_size, DIRECT_SLOTS, 0,
			   false) ||
	    orca_ring_open(&l->r1, l->shm, l->shm_size, DIRECT_SLOTS, 1,
			   false)) {
		munmap(l->shm, l->shm_size);
		close(fd);
		return -1;
	}
	return fd;
}

/* DIRECT_OPEN for @l to the port of @conn, with the memfd and @sock. */
static int send_open(struct fabric *f, int conn, const struct fab_dlink *l,
		     int mfd, int sock)
{
	const struct fab_lid *peer =
		&f->lids[f->conns[conn == l->a ? l->b : l->a].lid];
	struct orca_fab_direct d = {
		.h = { .type = ORCA_FAB_DIRECT_OPEN,
		       .version = ORCA_FAB_VERSION },
		.id = htole32(l->id),
		.nslots = htole32(DIRECT_SLOTS),
		.peer_lid = htole16(peer->lid),
		.peer_lmc = peer->lmc,
		.ring = conn == l->a ? 0 : 1,
	};
	int fds[2] = { mfd, sock };

	return msgq_send_fds(f->conns[conn].fd, &d, sizeof(d), fds, 2);
}

static void grant(struct fabric *f, int a, int b)
{
	struct fab_dlink *l = NULL;
	int mfd, sv[2];
	unsigned int i;

	for (i = 0; i < FAB_MAX_DIRECT && !l; i++)
		if (!f->direct[i].shm)
			l = &f->direct[i];
	if (!l)
		return;
	mfd = make_rings(l);
	if (mfd < 0)
		goto fail;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		munmap(l->shm, l->shm_size);
		close(mfd);
		goto fail;
	}
	l->id = ++f->direct_ids;
	l->a = a;
	l->b = b;
	if (send_open(f, a, l, mfd, sv[0]))
		goto unsent;
	if (send_open(f, b, l, mfd, sv[1])) {
		send_close(f, a, l);
		goto unsent;
	}
	close(mfd);
	close(sv[0]);
	close(sv[1]);
	f->conns[a].direct[f->conns[a].n_direct++] = l - f->direct;
	f->conns[b].direct[f->conns[b].n_direct++] = l - f->direct;
	f->n_direct++;
	f->direct_opened++;
	orca_log("direct link %u between LIDs 0x%x and 0x%x",
		 l->id, f->lids[f->conns[a].lid].lid,
		 f->lids[f->conns[b].lid].lid);
	return;
unsent:
	close(mfd);
	close(sv[0]);
	close(sv[1]);
	munmap(l->shm, l->shm_size);
fail:
	memset(l, 0, sizeof(*l));
	/* not for every packet after it: the ports rest a while */
	f->direct_failed++;
	f->conns[a].direct_retry_ns = orca_mono_ns() + DIRECT_RETRY_NS;
	f->conns[b].direct_retry_ns = f->conns[a].direct_retry_ns;
	orca_log("no direct link between ports %d and %d: %s; again in a second",
		 a, b, strerror(errno));
}

void fab_direct_consider(struct fabric *f, struct fab_conn *src,
			 struct fab_conn *dst, const uint8_t *lrh)
{
	int a = src - f->conns, b = dst - f->conns;

	/* VL15 (LRH byte 0's high nibble) keeps going through the switch */
	if (!f->direct_on || !src->direct_ok || !dst->direct_ok || a == b ||
	    !src->shm || !dst->shm || (lrh[0] >> 4) == 15 ||
	    src->n_direct >= ORCA_FAB_DIRECT_PER_PORT ||
	    dst->n_direct >= ORCA_FAB_DIRECT_PER_PORT ||
	    dlink_between(f, a, b))
		return;
	if ((src->direct_retry_ns || dst->direct_retry_ns) &&
	    orca_mono_ns() < (src->direct_retry_ns > dst->direct_retry_ns ?
			      src->direct_retry_ns : dst->direct_retry_ns))
		return;
	grant(f, a, b);
}

void fab_direct_counts(const struct fabric *f, const struct fab_conn *c,
		       uint64_t *in, uint64_t *out)
{
	int me = c - f->conns;
	unsigned int i;

	*in = 0;
	*out = 0;
	for (i = 0; i < c->n_direct; i++) {
		const struct fab_dlink *l = &f->direct[c->direct[i]];
		uint32_t mine = tail_of(l->a == me ? &l->r0 : &l->r1);
		uint32_t theirs = tail_of(l->a == me ? &l->r1 : &l->r0);

		*in += mine;
		*out += theirs;
	}
}
