// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca-fabric: direct links between two ports on ring links
 * (orca_fabric_proto.h, "Direct links").
 *
 * When the switch forwards a unicast data packet from one such port to
 * another, its decision holds for every packet between the two LIDs
 * until something it decided on changes: so it makes them a pair of
 * rings of their own and a socket pair for their kicks, and steps out of
 * the way.  The fabric keeps the mapping, to count what goes through
 * (the rings' tails and byte counts) into the counters, and takes the
 * link back with DIRECT_CLOSE.
 *
 * --sm builtin: between any two ports; the link lasts until either goes
 * down or leaves, and the LIDs' counters add the rings' counts.
 *
 * --sm none: between two ports of one switch, both ways by the LFT the
 * SM wrote, both switch ports ACTIVE, for the P_Keys both ports'
 * partition enforcement passes (a packet with another goes through the
 * switch, to be dropped, counted and trapped there); the link lasts while the switch's generation
 * does (any Set through its SMA, any link change ends it), and the
 * switch ports' PMA counters count what goes through, once a pass.
 * Paths through several switches still go through them.
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

static uint64_t bytes_of(const struct orca_ring *r)
{
	return __atomic_load_n(&r->idx->bytes, __ATOMIC_RELAXED);
}

/*
 * Switch mode: what went through @l since the last time into the switch
 * ports' counters (a ring message is the fabric header and the packet).
 */
static void count_at_switch(struct fabric *f, struct fab_dlink *l)
{
	const struct fab_conn *ca = &f->conns[l->a], *cb = &f->conns[l->b];
	struct fab_switch *sw = f->topo->sw[ca->sw];
	uint32_t ab = tail_of(&l->r0), ba = tail_of(&l->r1);
	uint64_t abb = bytes_of(&l->r0), bab = bytes_of(&l->r1);
	uint32_t n;

	n = ab - l->counted_ab;
	if (n)
		fab_sw_count_passed(sw, ca->port, cb->port, n,
				    abb - l->counted_ab_bytes -
				    (uint64_t)n * sizeof(struct orca_fab_hdr));
	n = ba - l->counted_ba;
	if (n)
		fab_sw_count_passed(sw, cb->port, ca->port, n,
				    bab - l->counted_ba_bytes -
				    (uint64_t)n * sizeof(struct orca_fab_hdr));
	l->counted_ab = ab;
	l->counted_ba = ba;
	l->counted_ab_bytes = abb;
	l->counted_ba_bytes = bab;
}

/* Close link @l: both ports told, its counts into theirs. */
static void dlink_close(struct fabric *f, struct fab_dlink *l,
			const char *why)
{
	struct fab_conn *ca = &f->conns[l->a], *cb = &f->conns[l->b];
	uint32_t ab = tail_of(&l->r0), ba = tail_of(&l->r1);

	if (f->mode == FAB_SM_NONE) {
		count_at_switch(f, l);
	} else {
		f->lids[ca->lid].pkts_in += ab;
		f->lids[cb->lid].pkts_out += ab;
		f->lids[cb->lid].pkts_in += ba;
		f->lids[ca->lid].pkts_out += ba;
	}
	orca_log("direct link %u between LIDs 0x%x and 0x%x closed (%s): %u and %u packets",
		 l->id, l->lid_a, l->lid_b, why, ab, ba);
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
	bool a = conn == l->a;
	struct {
		struct orca_fab_direct d;
		struct orca_fab_direct_keys k;
	} m = {
		.d = {
			.h = { .type = ORCA_FAB_DIRECT_OPEN,
			       .version = ORCA_FAB_VERSION },
			.id = htole32(l->id),
			.nslots = htole32(DIRECT_SLOTS),
			.peer_lid = htole16(a ? l->lid_b : l->lid_a),
			.peer_lmc = a ? l->lmc_b : l->lmc_a,
			.ring = a ? 0 : 1,
			.own_lid = htole16(a ? l->lid_a : l->lid_b),
			.own_lmc = a ? l->lmc_a : l->lmc_b,
		},
		.k = { .n_tx = a ? l->n_ab : l->n_ba,
		       .n_rx = a ? l->n_ba : l->n_ab },
	};
	const uint16_t *tx = a ? l->keys_ab : l->keys_ba;
	const uint16_t *rx = a ? l->keys_ba : l->keys_ab;
	unsigned int i, n = 0;
	int fds[2] = { mfd, sock };

	for (i = 0; m.k.n_tx != ORCA_FAB_DIRECT_KEYS_ALL && i < m.k.n_tx; i++)
		m.k.key[n++] = htole16(tx[i]);
	for (i = 0; m.k.n_rx != ORCA_FAB_DIRECT_KEYS_ALL && i < m.k.n_rx; i++)
		m.k.key[n++] = htole16(rx[i]);
	return msgq_send_fds(f->conns[conn].fd, &m, sizeof(m), fds, 2);
}

static void grant(struct fabric *f, int a, int b, const uint16_t lid[2],
		  const uint8_t lmc[2])
{
	struct fab_switch *sw = f->mode == FAB_SM_NONE ?
				f->topo->sw[f->conns[a].sw] : NULL;
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
	l->lid_a = lid[0];
	l->lid_b = lid[1];
	l->lmc_a = lmc[0];
	l->lmc_b = lmc[1];
	l->n_ab = ORCA_FAB_DIRECT_KEYS_ALL;
	l->n_ba = ORCA_FAB_DIRECT_KEYS_ALL;
	if (sw) {
		/* what the two ports' partition enforcement lets by, each way */
		l->gen = sw->gen;
		l->n_ab = fab_sw_passing_keys(sw, f->conns[a].port,
					      f->conns[b].port, l->keys_ab);
		l->n_ba = fab_sw_passing_keys(sw, f->conns[b].port,
					      f->conns[a].port, l->keys_ba);
	}
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
	orca_log("direct link %u between LIDs 0x%x and 0x%x", l->id, l->lid_a,
		 l->lid_b);
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

/* The checks of both modes, then the grant. */
static void consider(struct fabric *f, struct fab_conn *src,
		     struct fab_conn *dst, const uint16_t lid[2],
		     const uint8_t lmc[2])
{
	int a = src - f->conns, b = dst - f->conns;
	uint64_t retry = src->direct_retry_ns > dst->direct_retry_ns ?
			 src->direct_retry_ns : dst->direct_retry_ns;

	if (!dst->direct_ok || a == b || !dst->shm ||
	    src->n_direct >= ORCA_FAB_DIRECT_PER_PORT ||
	    dst->n_direct >= ORCA_FAB_DIRECT_PER_PORT ||
	    dlink_between(f, a, b) || (retry && orca_mono_ns() < retry))
		return;
	grant(f, a, b, lid, lmc);
}

void fab_direct_consider(struct fabric *f, struct fab_conn *src,
			 struct fab_conn *dst, const uint8_t *lrh)
{
	const struct fab_lid *ls = &f->lids[src->lid], *ld = &f->lids[dst->lid];
	const uint16_t lid[2] = { ls->lid, ld->lid };
	const uint8_t lmc[2] = { ls->lmc, ld->lmc };

	/* VL15 (LRH byte 0's high nibble) keeps going through the switch */
	if (!f->direct_on || !src->direct_ok || !src->shm ||
	    (lrh[0] >> 4) == 15)
		return;
	consider(f, src, dst, lid, lmc);
}

void fab_direct_consider_sw(struct fabric *f, struct fab_conn *src,
			    const uint8_t *pkt, size_t len)
{
	struct fab_switch *sw;
	uint16_t slid, dlid;
	unsigned int i;
	int out;

	if (!f->direct_on || !src->direct_ok || !src->shm || src->port < 0 ||
	    len < ORCA_PKT_LRH_LEN || (pkt[0] >> 4) == 15)
		return;
	dlid = (uint16_t)(pkt[2] << 8 | pkt[3]);
	slid = (uint16_t)(pkt[6] << 8 | pkt[7]);
	sw = f->topo->sw[src->sw];
	/* to a port of this switch, and back by the same two ports */
	out = fab_sw_route(sw, src->port, dlid);
	if (out < 0 || fab_sw_route(sw, out, slid) != src->port ||
	    !fab_sw_passes_data(sw, src->port, out))
		return;
	for (i = 0; i < f->conns_end; i++) {
		struct fab_conn *c = &f->conns[i];

		if (c->fd >= 0 && c->sw == src->sw && c->port == out) {
			/* the LIDs the packet named: the LFT decided for them */
			consider(f, src, c, (const uint16_t[2]){ slid, dlid },
				 (const uint8_t[2]){ 0, 0 });
			return;
		}
	}
}

void fab_direct_sweep(struct fabric *f)
{
	unsigned int i, seen = 0, n = f->n_direct;

	if (f->mode != FAB_SM_NONE || !n)
		return;
	/* the slots in use may lie anywhere: stop after the last of them */
	for (i = 0; i < FAB_MAX_DIRECT && seen < n; i++) {
		struct fab_dlink *l = &f->direct[i];

		if (!l->shm)
			continue;
		seen++;
		if (f->topo->sw[f->conns[l->a].sw]->gen != l->gen)
			dlink_close(f, l, "the switch's tables or ports changed");
		else
			count_at_switch(f, l);
	}
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
