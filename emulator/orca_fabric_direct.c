// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: direct links to other ports of this machine, as
 * orca-fabric grants them (orca_fabric_proto.h, "Direct links").
 *
 * A direct link is the fabric's forwarding decision made once: while
 * the fabric would send this port's packets for the peer's LIDs to the
 * peer, they may as well go there straight, through a ring in memory
 * both emulators map, and the fabric's process is neither woken nor
 * copies them.  Everything else (subnet management, multicast, other
 * destinations, a full link's ACKs) still goes through the fabric.
 *
 * The link is one more egress of the one port: the engine stops when it
 * is full, as when the fabric's ring is (fabric_room()), and the peer's
 * kick when it takes some starts it again.  Nothing the peer or the
 * fabric wrote is trusted: the memfd must be sealed at the size of its
 * rings, the rings check their indices and lengths, and a packet through
 * the link must be from the peer's LIDs (fab_rx_pkt()) and for ours
 * (wire_rx()).  A broken ring or a closed socket drops the link; the
 * port goes on through the fabric.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "orca_fabric.h"

#define DIRECT_RX_BATCH	ORCA_FAB_RX_BATCH

static bool in_range(uint16_t base, uint8_t lmc, uint16_t lid)
{
	return lid >= base && (unsigned int)(lid - base) < (1U << lmc);
}

static void direct_free(struct orca_dev *dev, struct fab_direct *l,
			const char *why)
{
	struct orca_fab *fab = dev->fab;

	orca_log("fabric: direct link %u to LID 0x%x closed (%s): %llu packets out, %llu in",
		 l->id, l->peer_lid, why, (unsigned long long)l->tx_pkts,
		 (unsigned long long)l->rx_pkts);
	fab->direct_closed.tx_pkts += l->tx_pkts;
	fab->direct_closed.rx_pkts += l->rx_pkts;
	fab->direct_closed.kicks_sent += l->kicks_sent;
	fab->direct_closed.kicks_rcvd += l->kicks_rcvd;
	close(l->fd);
	munmap(l->shm, l->shm_size);
	memset(l, 0, sizeof(*l));
	l->fd = -1;
	fab->n_direct--;
}

static struct fab_direct *direct_by_id(struct orca_fab *fab, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < ORCA_FAB_DIRECT_MAX; i++)
		if (fab->direct[i].shm && fab->direct[i].id == id)
			return &fab->direct[i];
	return NULL;
}

/* The mapping of a memfd sealed at exactly @size bytes, or NULL. */
static void *map_sealed(int fd, size_t size)
{
	const int seals = F_SEAL_SHRINK | F_SEAL_GROW;
	struct stat st;
	void *mem;

	if (fstat(fd, &st) || st.st_size != (off_t)size ||
	    (fcntl(fd, F_GET_SEALS) & seals) != seals)
		return NULL;
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return mem == MAP_FAILED ? NULL : mem;
}

void fab_direct_open(struct orca_dev *dev, const uint8_t *m, size_t len,
		     int *fds, unsigned int nfds)
{
	struct orca_fab *fab = dev->fab;
	struct orca_fab_direct d;
	struct orca_fab_direct_keys k;
	struct fab_direct *l = NULL;
	const char *why = NULL;
	unsigned int i, nslots, nkeys;
	uint16_t lid, own;
	size_t size;
	void *mem;

	if (len != sizeof(d) + sizeof(k) || nfds != 2) {
		why = "wrong size, or not a memfd and a socket";
		goto refuse;
	}
	memcpy(&d, m, sizeof(d));
	memcpy(&k, m + sizeof(d), sizeof(k));
	nslots = le32toh(d.nslots);
	lid = le16toh(d.peer_lid);
	own = le16toh(d.own_lid);
	if (!dev->cfg.fabric_direct || !fab->shm_on) {
		why = "not asked for";
		goto refuse;
	}
	if (!lid || lid > ORCA_FAB_MAX_LID || d.peer_lmc > 7 || d.ring > 1 ||
	    !own || own > ORCA_FAB_MAX_LID || d.own_lmc > 7 ||
	    (k.n_tx != ORCA_FAB_DIRECT_KEYS_ALL &&
	     k.n_tx > ORCA_FAB_DIRECT_MAX_KEYS) ||
	    (k.n_rx != ORCA_FAB_DIRECT_KEYS_ALL &&
	     k.n_rx > ORCA_FAB_DIRECT_MAX_KEYS) ||
	    nslots < ORCA_RING_MIN_SLOTS || nslots > ORCA_RING_MAX_SLOTS) {
		why = "bad LID, LMC, ring or size";
		goto refuse;
	}
	/* a newer grant to the same peer replaces the old one */
	for (i = 0; i < ORCA_FAB_DIRECT_MAX; i++)
		if (fab->direct[i].shm && fab->direct[i].peer_lid == lid)
			direct_free(dev, &fab->direct[i], "replaced");
	for (i = 0; i < ORCA_FAB_DIRECT_MAX && !l; i++)
		if (!fab->direct[i].shm)
			l = &fab->direct[i];
	if (!l || direct_by_id(fab, le32toh(d.id))) {
		why = l ? "its id is in use" : "no room for another";
		goto refuse;
	}
	size = orca_ring_map_size(nslots);
	mem = map_sealed(fds[0], size);
	if (!mem) {
		why = "not a memfd sealed at the rings' size";
		goto refuse;
	}
	if (orca_ring_open(&l->tx, mem, size, nslots, d.ring, false) ||
	    orca_ring_open(&l->rx, mem, size, nslots, !d.ring, false) ||
	    fcntl(fds[1], F_SETFL, O_NONBLOCK)) {
		munmap(mem, size);
		memset(l, 0, sizeof(*l));
		why = "bad ring layout, or not a socket";
		goto refuse;
	}
	l->shm = mem;
	l->shm_size = size;
	l->fd = fds[1];
	l->id = le32toh(d.id);
	l->peer_lid = lid;
	l->peer_lmc = d.peer_lmc;
	l->own_lid = own;
	l->own_lmc = d.own_lmc;
	l->n_tx_keys = k.n_tx;
	l->n_rx_keys = k.n_rx;
	for (i = 0; k.n_tx != ORCA_FAB_DIRECT_KEYS_ALL && i < k.n_tx; i++)
		l->tx_keys[i] = le16toh(k.key[i]) & 0x7fff;
	nkeys = k.n_tx == ORCA_FAB_DIRECT_KEYS_ALL ? 0 : k.n_tx;
	for (i = 0; k.n_rx != ORCA_FAB_DIRECT_KEYS_ALL && i < k.n_rx; i++)
		l->rx_keys[i] = le16toh(k.key[nkeys + i]) & 0x7fff;
	close(fds[0]);
	fab->n_direct++;
	fab->direct_opened++;
	orca_log("fabric: direct link %u to LID 0x%x (LMC %u), %u slots a way",
		 l->id, lid, l->peer_lmc, nslots);
	return;
refuse:
	fab->direct_refused++;
	fab_complain(dev, "DIRECT_OPEN refused", why);
	for (i = 0; i < nfds; i++)
		close(fds[i]);
}

void fab_direct_close_msg(struct orca_dev *dev, const uint8_t *m,
			  size_t len)
{
	struct orca_fab_direct d;
	struct fab_direct *l;

	if (len != sizeof(d)) {
		fab_complain(dev, "DIRECT_CLOSE ignored", "wrong size");
		return;
	}
	memcpy(&d, m, sizeof(d));
	l = direct_by_id(dev->fab, le32toh(d.id));
	/* one the port dropped itself already: nothing to do */
	if (l)
		direct_free(dev, l, "the fabric took it back");
}

void fab_direct_close_all(struct orca_dev *dev, const char *why)
{
	struct orca_fab *fab = dev->fab;
	unsigned int i;

	for (i = 0; i < ORCA_FAB_DIRECT_MAX && fab->n_direct; i++)
		if (fab->direct[i].shm)
			direct_free(dev, &fab->direct[i], why);
}

struct fab_direct *fab_direct_to(struct orca_dev *dev, uint16_t slid,
				 uint16_t dlid)
{
	struct orca_fab *fab = dev->fab;
	unsigned int i;

	for (i = 0; i < ORCA_FAB_DIRECT_MAX; i++) {
		struct fab_direct *l = &fab->direct[i];

		if (l->shm && in_range(l->peer_lid, l->peer_lmc, dlid) &&
		    in_range(l->own_lid, l->own_lmc, slid))
			return l;
	}
	return NULL;
}

bool fab_direct_xmit(struct orca_dev *dev, const struct orca_pkt *p)
{
	struct fab_direct *l = fab_direct_to(dev, p->slid, p->dlid);
	struct orca_fab_hdr *h;
	uint8_t *slot;
	size_t len;

	/* a key the switch would drop: through it, to be dropped and trapped */
	if (!l || !fab_direct_key_ok(l->tx_keys, l->n_tx_keys, p->pkey))
		return false;
	/* full: through the fabric, only the ACKs fabric_room() let by */
	slot = orca_ring_slot(&l->tx);
	if (!slot) {
		l->drops++;
		return false;
	}
	h = (struct orca_fab_hdr *)slot;
	fab_hdr(h, ORCA_FAB_PKT);
	h->flags = ORCA_FAB_F_NO_ICRC;
	len = orca_pkt_encode_flags(p, slot + sizeof(*h), ORCA_PKT_NO_ICRC);
	if (!len)
		return false;	/* the fabric's path says why */
	orca_ring_publish(&l->tx, sizeof(*h) + len);
	l->tx_pkts++;
	dev->stats.fabric_tx_pkts++;
	dev->stats.fabric_tx_bytes += len;
	return true;
}

bool fab_direct_room(const struct orca_dev *dev, unsigned int pending)
{
	struct orca_fab *fab = dev->fab;
	unsigned int i;

	for (i = 0; i < ORCA_FAB_DIRECT_MAX; i++)
		if (fab->direct[i].shm &&
		    orca_ring_room(&fab->direct[i].tx) <= pending)
			return false;
	return true;
}

int fab_direct_pollfds(struct orca_dev *dev, struct pollfd *pfd,
		       unsigned int max)
{
	struct orca_fab *fab = dev->fab;
	unsigned int i, n = 0;

	for (i = 0; i < ORCA_FAB_DIRECT_MAX && n < max; i++) {
		struct fab_direct *l = &fab->direct[i];

		if (!l->shm)
			continue;
		/* what this pass put in the ring: one kick, if it sleeps */
		if (orca_ring_kick_due(&l->tx) && fab_send_kick(l->fd))
			l->kicks_sent++;
		pfd[n++] = (struct pollfd){ .fd = l->fd, .events = POLLIN };
	}
	return n;
}

/* Kicks on the pair's socket; false if the peer has gone. */
static bool direct_sock(struct fab_direct *l, short revents)
{
	uint8_t m[sizeof(struct orca_fab_hdr)];
	unsigned int i;
	ssize_t r;

	if (!(revents & (POLLIN | POLLHUP | POLLERR)))
		return true;
	for (i = 0; i < DIRECT_RX_BATCH; i++) {
		r = recv(l->fd, m, sizeof(m), MSG_DONTWAIT | MSG_TRUNC);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		if (r <= 0)
			return false;
		/* only kicks come this way; anything else says nothing */
		l->kicks_rcvd++;
	}
	return true;
}

/* The peer's ring, a batch at most: delivered, or -1 if it broke it. */
static int direct_input(struct orca_dev *dev, struct fab_direct *l,
			fab_deliver_fn deliver)
{
	const uint8_t *m;
	unsigned int i;
	int delivered = 0;
	size_t len;

	if (l->rx_sleeping) {
		orca_ring_wake(&l->rx);
		l->rx_sleeping = false;
	}
	for (i = 0; i < DIRECT_RX_BATCH; i++) {
		m = orca_ring_peek(&l->rx, &len);
		if (!m)
			break;
		if (len < sizeof(struct orca_fab_hdr) ||
		    m[0] != ORCA_FAB_PKT || m[1] != ORCA_FAB_VERSION) {
			dev->stats.fabric_decode_drops++;
			fab_complain(dev, "direct link message dropped",
				     "not a packet of this version");
		} else if (fab_rx_pkt(dev, m, len, true, l, deliver)) {
			l->rx_pkts++;
			delivered++;
		}
		orca_ring_pop(&l->rx);
	}
	if (l->rx.broken || l->tx.broken)
		return -1;
	if (orca_ring_room_kick_due(&l->rx) && fab_send_kick(l->fd))
		l->kicks_sent++;
	return delivered;
}

unsigned int fab_direct_io(struct orca_dev *dev, const struct pollfd *pfd,
			   unsigned int n, fab_deliver_fn deliver)
{
	struct orca_fab *fab = dev->fab;
	unsigned int i, j = 0, delivered = 0;
	int got;

	for (i = 0; i < ORCA_FAB_DIRECT_MAX && fab->n_direct; i++) {
		struct fab_direct *l = &fab->direct[i];
		short revents = 0;

		if (!l->shm)
			continue;
		/* the links in the order fabric_pollfd() listed them */
		while (j < n && pfd[j].fd != l->fd)
			j++;
		if (j < n)
			revents = pfd[j].revents;
		if (!direct_sock(l, revents)) {
			direct_free(dev, l, "the peer closed it");
			continue;
		}
		got = direct_input(dev, l, deliver);
		if (got < 0) {
			direct_free(dev, l, "the peer broke its ring");
			continue;
		}
		delivered += got;
	}
	return delivered;
}

bool fab_direct_may_sleep(struct orca_dev *dev)
{
	struct orca_fab *fab = dev->fab;
	unsigned int i;

	for (i = 0; i < ORCA_FAB_DIRECT_MAX; i++) {
		struct fab_direct *l = &fab->direct[i];

		if (!l->shm)
			continue;
		l->rx_sleeping = true;
		if (!orca_ring_sleep(&l->rx))
			return false;
		/* the engine waits for room here: a kick when it comes */
		if (dev->egress_wait &&
		    orca_ring_room(&l->tx) <= dev->link_n &&
		    !orca_ring_wait_room_for(&l->tx, dev->link_n + 1))
			return false;
	}
	return true;
}

int fab_direct_format_stats(const struct orca_dev *dev, char *buf,
			    size_t len)
{
	const struct orca_fab *fab = dev->fab;
	const struct fab_direct *c = &fab->direct_closed;
	uint64_t tx = c->tx_pkts, rx = c->rx_pkts;
	uint64_t ks = c->kicks_sent, kr = c->kicks_rcvd;
	unsigned int i;

	for (i = 0; i < ORCA_FAB_DIRECT_MAX; i++) {
		const struct fab_direct *l = &fab->direct[i];

		tx += l->tx_pkts;
		rx += l->rx_pkts;
		ks += l->kicks_sent;
		kr += l->kicks_rcvd;
	}
	return snprintf(buf, len,
			" fabric_direct_links=%u fabric_direct_opened=%llu fabric_direct_refused=%llu fabric_direct_tx_pkts=%llu fabric_direct_rx_pkts=%llu fabric_direct_kicks_sent=%llu fabric_direct_kicks_rcvd=%llu",
			fab->n_direct, (unsigned long long)fab->direct_opened,
			(unsigned long long)fab->direct_refused,
			(unsigned long long)tx, (unsigned long long)rx,
			(unsigned long long)ks, (unsigned long long)kr);
}
