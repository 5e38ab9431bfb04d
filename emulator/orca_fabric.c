// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the port's cable to orca-fabric (cfg fabric=PATH;
 * protocol in orca_fabric_proto.h).
 *
 * With a fabric the port is DOWN with LID 0 until the fabric answers
 * HELLO.  A fabric with its built-in SM (orca-fabric --sm builtin)
 * answers LID_ASSIGN: lid and sm_lid are set and the port is ACTIVE,
 * with the PORT_EVENT that says so.  A plain switch (--sm none) answers
 * LINK_UP: the cable is in, the physical link up and the port INIT with
 * LID 0, and a subnet manager programs it through the SMA (MAD_IFC's
 * SMPs, orca_cmd_mad.c) as it does any port.  A packet for
 * this port still loops back inside the device (orca_wire.c); any other
 * goes out encoded as IBTA bytes (orca_pkt.c), and what arrives is
 * decoded and goes through the same receive path as a looped-back one.
 *
 * Nothing here waits.  The socket is non-blocking; what it does not take
 * at once waits in a bounded queue (POLLOUT).  The engine asks before it
 * sends what it can hold back (requests, READ responses: fabric_room())
 * and stops while the queue is full, as an HCA stops without link
 * credits; the queue draining wakes it.  Only what cannot wait, the ACKs
 * and NAKs that arriving packets call for, may find the queue full: it
 * is dropped and counted, and RC retransmits.  ORCA_FAB_RESERVE slots
 * are kept for them, as many as one batch of arriving packets can call
 * for.  Receiving is done in batches from the glue's poll loop.
 * With cfg fabric_ring_slots (the default) the port offers the fabric a
 * shared-memory link (orca_ring.h) with its HELLO; once the fabric says
 * SHM_ACK, packets go through the rings with no system call, and the
 * socket only wakes the other side when it sleeps.  The queues stay, in
 * front of the ring, for what does not fit; a full ring is not a loss.
 * If the fabric goes away the port goes DOWN and the device connects
 * again every ORCA_FAB_RETRY_MS.  ctl port-down / port-up send PORT_DOWN
 * / PORT_UP: the SM stops routing to the port, and gives it the same LID
 * back.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "orca_link.h"
#include "orca_msgq.h"
#include "orca_ring.h"

#define ORCA_FAB_RETRY_MS	100	/* between connection attempts */
#define ORCA_FAB_QUEUE		256	/* messages waiting to go */
#define ORCA_FAB_RX_BATCH	64	/* messages read per poll */
#define ORCA_FAB_RESERVE	ORCA_FAB_RX_BATCH	/* for ACKs only */
#define ORCA_FAB_VL15_QUEUE	16	/* SMPs waiting, ahead of the rest */

enum fab_state {
	FAB_IDLE,		/* no connection: retry at retry_at */
	FAB_WAIT,		/* connected, waiting for LID_ASSIGN or LINK_UP */
	FAB_UP,			/* LID assigned by the fabric's SM */
	FAB_LINKED,		/* in a switch port: the subnet's SM's port */
};

struct orca_fab {
	int fd;
	enum fab_state state;
	uint8_t switch_port;	/* FAB_LINKED: the switch port we are in */
	bool admin_down;	/* ctl port-down, until port-up */
	uint64_t retry_at;	/* dp_now_ns() */
	/* in a row: connections refused, connections closed before a LID */
	unsigned int failures, refusals;
	struct msgq q15;	/* subnet management: sent first */
	struct msgq q;
	/* the shared-memory link, offered with HELLO, in use after SHM_ACK */
	void *shm;
	size_t shm_size;
	struct orca_ring tx, rx;	/* ring 0 to the fabric, ring 1 from it */
	bool shm_on;
	bool rx_sleeping;	/* told the fabric to kick us */
	uint64_t ring_active_ns;	/* last message through a ring */
	uint64_t kicks_sent, kicks_rcvd, ring_waits;
	uint64_t log_s;		/* second of the last complaint */
	uint64_t log_suppressed;
	uint8_t rx_msg[ORCA_FAB_MSG_MAX + 1];
};

static const char *const state_names[] = {
	[FAB_IDLE] = "idle", [FAB_WAIT] = "wait", [FAB_UP] = "up",
	[FAB_LINKED] = "linked",
};

/* Real time: the polling window is about the host's scheduler. */
static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Traffic through a ring, for the polling window (cfg fabric_poll_us):
 * no clock read per packet while there is no window.
 */
static void ring_traffic(struct orca_dev *dev)
{
	if (dev->cfg.fabric_poll_us)
		dev->fab->ring_active_ns = mono_ns();
}

/* What the peer sends is not ours to trust: one log line a second. */
static void complain(struct orca_dev *dev, const char *what, const char *why)
{
	struct orca_fab *fab = dev->fab;
	uint64_t s = dp_now_ns() / 1000000000ULL;

	if (s == fab->log_s) {
		fab->log_suppressed++;
		return;
	}
	orca_log("fabric: %s: %s (%llu more not logged)", what, why,
		 (unsigned long long)fab->log_suppressed);
	fab->log_s = s;
	fab->log_suppressed = 0;
}

int fabric_init(struct orca_dev *dev)
{
	struct orca_fab *fab;

	if (!dev->cfg.fabric[0])
		return 0;
	fab = calloc(1, sizeof(*fab));
	if (!fab)
		return -ENOMEM;
	if (msgq_init(&fab->q, ORCA_FAB_QUEUE, ORCA_FAB_MSG_MAX) ||
	    msgq_init(&fab->q15, ORCA_FAB_VL15_QUEUE, ORCA_FAB_MSG_MAX)) {
		msgq_free(&fab->q);
		free(fab);
		return -ENOMEM;
	}
	fab->fd = -1;
	dev->fab = fab;
	/* no LID until the SM gives one */
	dev->cfg.lid = 0;
	dev->cfg.sm_lid = 0;
	return 0;
}

void fabric_destroy(struct orca_dev *dev)
{
	struct orca_fab *fab = dev->fab;

	if (!fab)
		return;
	if (fab->fd >= 0)
		close(fab->fd);
	msgq_free(&fab->q);
	msgq_free(&fab->q15);
	free(fab);
	dev->fab = NULL;
}

bool fabric_link_up(const struct orca_dev *dev)
{
	return !dev->fab || ((dev->fab->state == FAB_UP ||
			      dev->fab->state == FAB_LINKED) &&
			     !dev->fab->admin_down);
}

bool fabric_sm_managed(const struct orca_dev *dev)
{
	return dev->fab && dev->fab->state == FAB_LINKED &&
	       !dev->fab->admin_down;
}

/*
 * The port's state after a function reset: the link's.  A port the
 * subnet's SM manages keeps what the SM made of it (the port is the
 * firmware's, not the driver's); it is at least INIT while linked.
 */
uint8_t port_link_state(const struct orca_dev *dev)
{
	if (!fabric_link_up(dev))
		return ORCA_PORT_DOWN;
	if (dev->fab && dev->fab->state == FAB_LINKED)
		return dev->port_state >= ORCA_PORT_INIT ? dev->port_state :
							   ORCA_PORT_INIT;
	return ORCA_PORT_ACTIVE;
}

static bool log_first(unsigned int n);

static void shm_unmap(struct orca_fab *fab)
{
	if (fab->shm)
		munmap(fab->shm, fab->shm_size);
	fab->shm = NULL;
	fab->shm_on = false;
	fab->rx_sleeping = false;
}

/*
 * The rings offered with HELLO: a memfd of the layout and two empty
 * rings; its descriptor, or -1 (the socket path then, said once).
 */
static int shm_create(struct orca_dev *dev)
{
	struct orca_fab *fab = dev->fab;
	unsigned int n = dev->cfg.fabric_ring_slots;
	size_t size;
	void *mem;
	int fd;

	if (!n)
		return -1;
	/* a power of two, as the ring's index arithmetic wants */
	while (n & (n - 1))
		n &= n - 1;
	if (n < ORCA_RING_MIN_SLOTS)
		n = ORCA_RING_MIN_SLOTS;
	size = orca_ring_map_size(n);
	fd = memfd_create("orca-fabric-link", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	/* sealed at its size: the fabric's mapping can never lose its pages */
	if (fd < 0 || ftruncate(fd, size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL))
		goto fail;
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED)
		goto fail;
	if (orca_ring_open(&fab->tx, mem, size, n, 0, true) ||
	    orca_ring_open(&fab->rx, mem, size, n, 1, true)) {
		munmap(mem, size);
		errno = EINVAL;
		goto fail;
	}
	fab->shm = mem;
	fab->shm_size = size;
	return fd;
fail:
	if (log_first(fab->failures))
		orca_log("fabric: no shared-memory link (%s): one message per packet",
			 strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Say it for the first of a run of failures, then every 100th. */
static bool log_first(unsigned int n)
{
	return n % 100 == 0;
}

static void link_lost(struct orca_dev *dev, const char *why)
{
	struct orca_fab *fab = dev->fab;

	/* a fabric that drops us before a LID (a GUID in use) is a refusal */
	if (fab->state != FAB_WAIT || log_first(fab->refusals))
		orca_log("fabric: link to %s lost (%s): port DOWN, LID 0x%llx kept until the SM answers again",
			 dev->cfg.fabric, why,
			 (unsigned long long)dev->cfg.lid);
	if (fab->state == FAB_WAIT)
		fab->refusals++;
	close(fab->fd);
	fab->fd = -1;
	shm_unmap(fab);
	fab->state = FAB_IDLE;
	msgq_clear(&fab->q15);
	msgq_clear(&fab->q);
	fab->retry_at = dp_now_ns() + ORCA_FAB_RETRY_MS * 1000000ULL;
	port_set_state(dev, ORCA_PORT_DOWN);
}

static void send_kick(struct orca_dev *dev)
{
	struct orca_fab *fab = dev->fab;
	struct orca_fab_hdr h = {
		.type = ORCA_FAB_KICK, .version = ORCA_FAB_VERSION,
	};

	/*
	 * A full socket is one the fabric has not read: it wakes anyway.
	 * Errors show at the next read.
	 */
	if (send(fab->fd, &h, sizeof(h), MSG_DONTWAIT | MSG_NOSIGNAL) ==
	    sizeof(h))
		fab->kicks_sent++;
}

/*
 * What waits in the queues into the ring (the next fabric_pollfd()
 * kicks the fabric if it sleeps); a full ring asks the fabric for a
 * kick when it takes some.
 * Returns -1 if the fabric broke the ring.
 */
static int ring_flush(struct orca_dev *dev)
{
	struct orca_fab *fab = dev->fab;
	int n;

	do {
		n = msgq_flush_ring(&fab->q15, &fab->q, &fab->tx);
		if (n < 0)
			return -1;
		if (msgq_empty(&fab->q15) && msgq_empty(&fab->q))
			break;
		fab->ring_waits++;
	} while (!orca_ring_wait_room(&fab->tx));
	return fab->tx.broken ? -1 : 0;
}

static int fab_flush(struct orca_dev *dev)
{
	struct orca_fab *fab = dev->fab;

	if (fab->shm_on)
		return ring_flush(dev);
	return msgq_flush_vl15(&fab->q15, &fab->q, fab->fd);
}

/* Queue the @len bytes written at @q's tail and send what the link takes. */
static void fab_push(struct orca_dev *dev, struct msgq *q, size_t len)
{
	struct orca_fab *fab = dev->fab;

	msgq_push(q, len);
	if (fab_flush(dev) < 0)
		link_lost(dev, fab->shm_on ? "the fabric broke the ring" :
					    strerror(errno));
}

/*
 * Queue @m for the fabric and send what the socket takes; false: queue
 * full.  @vl15 (subnet management, IBA 7.6.4) in a queue of its own that
 * goes first: SMPs never wait behind data.
 */
static bool fab_send(struct orca_dev *dev, const void *m, size_t len,
		     bool vl15)
{
	struct msgq *q = vl15 ? &dev->fab->q15 : &dev->fab->q;
	uint8_t *slot = msgq_tail(q);

	if (!slot)
		return false;
	memcpy(slot, m, len);
	fab_push(dev, q, len);
	return true;
}

static void fab_hdr(struct orca_fab_hdr *h, uint8_t type)
{
	memset(h, 0, sizeof(*h));
	h->type = type;
	h->version = ORCA_FAB_VERSION;
}

static void send_ctl(struct orca_dev *dev, uint8_t type)
{
	struct orca_fab_hdr h;

	fab_hdr(&h, type);
	if (!fab_send(dev, &h, sizeof(h), false))
		complain(dev, "queue full", "PORT_UP/DOWN not sent");
}

static void fab_connect(struct orca_dev *dev)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct orca_fab *fab = dev->fab;
	struct orca_fab_hello h;
	int fd, shm_fd;

	fab->retry_at = dp_now_ns() + ORCA_FAB_RETRY_MS * 1000000ULL;
	/* orca_cfg limits the path to 107 bytes: it fits */
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", dev->cfg.fabric);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		/* the fabric may not be up yet: say so once, then rarely */
		if (log_first(fab->failures))
			orca_log("fabric: cannot connect to %s (%s), retrying every %u ms",
				 dev->cfg.fabric, strerror(errno),
				 ORCA_FAB_RETRY_MS);
		fab->failures++;
		if (fd >= 0)
			close(fd);
		return;
	}
	fab->fd = fd;
	fab->state = FAB_WAIT;
	fab->failures = 0;
	memset(&h, 0, sizeof(h));
	fab_hdr(&h.h, ORCA_FAB_HELLO);
	h.node_guid = htole64(dev->cfg.node_guid);
	h.port_guid = htole64(dev->cfg.port_guid);
	h.lmc = dev->cfg.lmc;
	shm_fd = shm_create(dev);
	if (shm_fd >= 0)
		h.flags = ORCA_FAB_HELLO_SHM;
	if (log_first(fab->refusals))
		orca_log("fabric: connected to %s, HELLO port GUID 0x%016llx%s",
			 dev->cfg.fabric,
			 (unsigned long long)dev->cfg.port_guid,
			 shm_fd >= 0 ? ", shared-memory link offered" : "");
	if (shm_fd < 0) {
		fab_send(dev, &h, sizeof(h), false);
		return;
	}
	/* the first message on a new socket: it has room */
	if (msgq_send_fds(fd, &h, sizeof(h), &shm_fd, 1) < 0)
		link_lost(dev, strerror(errno));
	close(shm_fd);
}

void fabric_admin(struct orca_dev *dev, bool up)
{
	struct orca_fab *fab = dev->fab;

	if (fab->admin_down == !up)
		return;
	fab->admin_down = !up;
	orca_log("fabric: port %s by request", up ? "up" : "down");
	if (!up) {
		if (fab->fd >= 0)
			send_ctl(dev, ORCA_FAB_PORT_DOWN);
		port_set_state(dev, ORCA_PORT_DOWN);
		return;
	}
	if (fab->fd < 0) {
		fab->retry_at = 0;	/* connect at the next poll */
		return;
	}
	/* ACTIVE again when the SM answers with the LID */
	fab->state = FAB_WAIT;
	send_ctl(dev, ORCA_FAB_PORT_UP);
}

bool fabric_room(const struct orca_dev *dev, unsigned int pending)
{
	const struct orca_fab *fab = dev->fab;
	unsigned int room;

	if (!fabric_link_up(dev) || fab->fd < 0)
		return true;
	room = fab->q.cap - fab->q.n;
	/* the ring's room counts only while nothing waits in front of it */
	if (fab->shm_on && msgq_empty(&fab->q))
		room += orca_ring_room((struct orca_ring *)&fab->tx);
	return room > pending + ORCA_FAB_RESERVE;
}

void fabric_xmit(struct orca_dev *dev, const struct orca_pkt *p)
{
	struct orca_fab *fab = dev->fab;
	struct msgq *q;
	uint8_t *slot;
	size_t len;
	bool ring;

	if (!fabric_link_up(dev) || fab->fd < 0) {
		dev->stats.pkts_dropped++;
		return;
	}
	q = p->vl == ORCA_VL15 ? &fab->q15 : &fab->q;
	/* encoded where it goes: the ring, else its queue slot */
	slot = msgq_out_slot(&fab->q15, &fab->q, fab->shm_on ? &fab->tx : NULL,
			     p->vl == ORCA_VL15, &ring);
	if (!slot) {
		dev->stats.fabric_queue_drops++;
		return;
	}
	fab_hdr((struct orca_fab_hdr *)slot, ORCA_FAB_PKT);
	/* into the ring, now or from the queue: no ICRC needed there */
	if (fab->shm_on)
		((struct orca_fab_hdr *)slot)->flags = ORCA_FAB_F_NO_ICRC;
	len = orca_pkt_encode_flags(p, slot + sizeof(struct orca_fab_hdr),
				    fab->shm_on ? ORCA_PKT_NO_ICRC : 0);
	if (!len) {
		/* the engine built a packet IBTA does not have */
		dev->stats.pkts_dropped++;
		complain(dev, "not sent", "packet its opcode does not allow");
		return;
	}
	dev->stats.fabric_tx_pkts++;
	dev->stats.fabric_tx_bytes += len;
	if (!ring) {
		fab_push(dev, q, sizeof(struct orca_fab_hdr) + len);
		return;
	}
	msgq_out_push(q, &fab->tx, true, sizeof(struct orca_fab_hdr) + len);
	ring_traffic(dev);
}

static void on_lid(struct orca_dev *dev, const uint8_t *m, size_t len)
{
	struct orca_fab *fab = dev->fab;
	struct orca_fab_lid a;
	uint16_t lid, sm_lid;

	if (len != sizeof(a)) {
		complain(dev, "LID_ASSIGN ignored", "wrong size");
		return;
	}
	memcpy(&a, m, sizeof(a));
	lid = le16toh(a.lid);
	sm_lid = le16toh(a.sm_lid);
	if (!lid || lid > ORCA_FAB_MAX_LID || !sm_lid ||
	    sm_lid > ORCA_FAB_MAX_LID || a.lmc != dev->cfg.lmc ||
	    (lid & ((1U << a.lmc) - 1)) || a.mkey_protect > 3) {
		complain(dev, "LID_ASSIGN ignored",
			 "bad LID, SM LID, LMC or M_Key protection");
		return;
	}
	/* the SM's M_Key for the port's SMA: other hosts' SMPs need it */
	if (dev->mad) {
		dev->mad->port[1].mkey = le64toh(a.mkey);
		dev->mad->port[1].mkey_protect = a.mkey ? a.mkey_protect : 0;
	}
	if (fab->state != FAB_UP || dev->cfg.lid != lid)
		orca_log("fabric: LID 0x%x, SM LID 0x%x%s", lid, sm_lid,
			 fab->admin_down ? " (port down by request)" : "");
	if (dev->cfg.lid != lid || dev->cfg.sm_lid != sm_lid) {
		dev->cfg.lid = lid;
		dev->cfg.sm_lid = sm_lid;
		port_mirror_write(dev);
	}
	if (fab->state != FAB_UP)
		dev->stats.fabric_links++;
	fab->state = FAB_UP;
	fab->refusals = 0;
	/* the LID first, then the port is ACTIVE: never ACTIVE with LID 0 */
	if (!fab->admin_down)
		port_set_state(dev, ORCA_PORT_ACTIVE);
}

/*
 * LINK_UP: the cable is in switch port @port and the link trained: INIT,
 * for the SM to program.  Again while linked, the switch port went down
 * and up (the SM set it DOWN): the link retrained, INIT again.
 */
static void on_link_up(struct orca_dev *dev, const uint8_t *m, size_t len)
{
	struct orca_fab *fab = dev->fab;
	struct orca_fab_link l;

	if (len != sizeof(l)) {
		complain(dev, "LINK_UP ignored", "wrong size");
		return;
	}
	memcpy(&l, m, sizeof(l));
	if (!l.port) {
		complain(dev, "LINK_UP ignored", "switch port 0");
		return;
	}
	if (fab->state != FAB_LINKED || fab->switch_port != l.port)
		orca_log("fabric: linked to switch port %u, for the subnet manager to program%s",
			 l.port,
			 fab->admin_down ? " (port down by request)" : "");
	if (fab->state != FAB_LINKED)
		dev->stats.fabric_links++;
	fab->state = FAB_LINKED;
	fab->switch_port = l.port;
	fab->refusals = 0;
	if (!fab->admin_down)
		port_set_state(dev, ORCA_PORT_INIT);
}

/*
 * One message from the fabric (@ring: through the shared-memory link);
 * true if it was a packet delivered.
 */
static bool on_msg(struct orca_dev *dev, const uint8_t *m, size_t len,
		   bool ring,
		   void (*deliver)(struct orca_dev *, struct orca_pkt *))
{
	const size_t hl = sizeof(struct orca_fab_hdr);
	unsigned int flags = 0;
	enum orca_pkt_err err;
	struct orca_pkt *p;

	if (len < hl || m[1] != ORCA_FAB_VERSION) {
		dev->stats.fabric_decode_drops++;
		complain(dev, "message dropped", "no header or another version");
		return false;
	}
	if (m[0] == ORCA_FAB_LID_ASSIGN) {
		on_lid(dev, m, len);
		return false;
	}
	if (m[0] == ORCA_FAB_LINK_UP) {
		on_link_up(dev, m, len);
		return false;
	}
	if (m[0] == ORCA_FAB_KICK) {
		dev->fab->kicks_rcvd++;
		return false;
	}
	if (m[0] == ORCA_FAB_SHM_ACK) {
		if (!dev->fab->shm || dev->fab->shm_on) {
			complain(dev, "SHM_ACK ignored", "no rings offered");
			return false;
		}
		dev->fab->shm_on = true;
		orca_log("fabric: shared-memory link in use (%u slots a way)",
			 dev->fab->tx.nslots);
		return false;
	}
	if (m[0] != ORCA_FAB_PKT) {
		dev->stats.fabric_decode_drops++;
		complain(dev, "message dropped", "unknown type");
		return false;
	}
	/* no ICRC to check only where nothing could have corrupted it */
	if (m[2] & ORCA_FAB_F_NO_ICRC) {
		if (!ring) {
			dev->stats.fabric_decode_drops++;
			complain(dev, "packet dropped",
				 "no ICRC, and not through the ring");
			return false;
		}
		flags = ORCA_PKT_NO_ICRC;
	}
	p = pkt_alloc(dev);
	if (!p) {
		dev->stats.pkts_dropped++;
		return false;
	}
	/*
	 * The payload stays in the message (the ring's slot, the receive
	 * buffer) and is placed from there: deliver() is done with the
	 * packet before this returns (wire_rx() is synchronous)
	 */
	err = orca_pkt_decode_flags(m + hl, len - hl, p,
				    flags | ORCA_PKT_BORROW);
	if (err != ORCA_PKT_OK) {
		dev->stats.fabric_decode_drops++;
		complain(dev, "packet dropped", orca_pkt_strerror(err));
		pkt_free(dev, p);
		return false;
	}
	dev->stats.fabric_rx_pkts++;
	dev->stats.fabric_rx_bytes += len - hl;
	deliver(dev, p);
	return true;
}

int fabric_pollfd(struct orca_dev *dev, struct pollfd *pfd)
{
	struct orca_fab *fab = dev->fab;
	bool queued;

	if (!fab)
		return 0;
	if (fab->fd < 0 && !fab->admin_down && dp_now_ns() >= fab->retry_at)
		fab_connect(dev);
	if (fab->fd < 0)
		return 0;
	/*
	 * What this pass put in the ring: one kick for all of it, if the
	 * fabric sleeps (a batch per wake-up, not a wake-up per packet)
	 */
	if (fab->shm_on && orca_ring_kick_due(&fab->tx))
		send_kick(dev);
	/* with rings, what is queued waits for a KICK, not for the socket */
	queued = !msgq_empty(&fab->q) || !msgq_empty(&fab->q15);
	*pfd = (struct pollfd){
		.fd = fab->fd,
		.events = POLLIN | (queued && !fab->shm_on ? POLLOUT : 0),
	};
	return 1;
}

bool fabric_may_sleep(struct orca_dev *dev)
{
	struct orca_fab *fab = dev->fab;

	if (!fab || !fab->shm_on)
		return true;
	/*
	 * Poll a while after traffic, as the fabric does: a burst's next
	 * packet then costs no kick and no wake-up on either side
	 */
	if (dev->cfg.fabric_poll_us &&
	    mono_ns() - fab->ring_active_ns < dev->cfg.fabric_poll_us * 1000)
		return false;
	fab->rx_sleeping = true;
	if (!orca_ring_sleep(&fab->rx))
		return false;
	/* queued for a full ring: a kick when the fabric takes some */
	return msgq_empty(&fab->q) && msgq_empty(&fab->q15) ?
	       true : orca_ring_wait_room(&fab->tx);
}

/* What the fabric put in the ring, a batch at most; -1: ring broken. */
static int ring_input(struct orca_dev *dev,
		      void (*deliver)(struct orca_dev *, struct orca_pkt *))
{
	struct orca_fab *fab = dev->fab;
	const uint8_t *m;
	unsigned int i;
	int delivered = 0;
	size_t len;

	if (fab->rx_sleeping) {
		orca_ring_wake(&fab->rx);
		fab->rx_sleeping = false;
	}
	for (i = 0; i < ORCA_FAB_RX_BATCH; i++) {
		m = orca_ring_peek(&fab->rx, &len);
		if (!m)
			break;
		delivered += on_msg(dev, m, len, true, deliver);
		orca_ring_pop(&fab->rx);
		/* a message may have ended the link (link_lost()) */
		if (!fab->shm_on)
			return delivered;
	}
	if (fab->rx.broken)
		return -1;
	if (i)
		ring_traffic(dev);
	if (orca_ring_room_kick_due(&fab->rx))
		send_kick(dev);
	return delivered;
}

bool fabric_io(struct orca_dev *dev, short revents,
	       void (*deliver)(struct orca_dev *, struct orca_pkt *))
{
	struct orca_fab *fab = dev->fab;
	unsigned int i, delivered = 0;
	bool wake = false;
	ssize_t r;
	int n;

	if (!fab || fab->fd < 0)
		return false;
	if ((revents & POLLOUT) && !fab->shm_on &&
	    msgq_flush_vl15(&fab->q15, &fab->q, fab->fd) < 0) {
		link_lost(dev, strerror(errno));
		return false;
	}
	for (i = 0; (revents & (POLLIN | POLLHUP | POLLERR)) &&
		    i < ORCA_FAB_RX_BATCH; i++) {
		r = recv(fab->fd, fab->rx_msg, sizeof(fab->rx_msg),
			 MSG_DONTWAIT | MSG_TRUNC);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (r <= 0) {
			link_lost(dev, r ? strerror(errno) : "fabric closed");
			return delivered;
		}
		if ((size_t)r > ORCA_FAB_MSG_MAX) {
			dev->stats.fabric_decode_drops++;
			complain(dev, "message dropped", "too long");
			continue;
		}
		delivered += on_msg(dev, fab->rx_msg, r, false, deliver);
		if (fab->fd < 0)
			return delivered;
	}
	/* after the socket: SHM_ACK and LINK_UP come before ring traffic */
	if (fab->shm_on) {
		n = ring_input(dev, deliver);
		if (n < 0 || (fab->shm_on && ring_flush(dev) < 0)) {
			link_lost(dev, "the fabric broke the ring");
			return delivered;
		}
		delivered += n;
	}
	/* the queue drained: what waited for it goes on */
	if (dev->egress_wait && fabric_room(dev, dev->link_n)) {
		dev->egress_wait = false;
		wake = true;
	}
	return delivered || wake;
}

int fabric_format_stats(const struct orca_dev *dev, char *buf, size_t len)
{
	const struct orca_stats *s = &dev->stats;
	const struct orca_fab *fab = dev->fab;

	if (!fab)
		return 0;
	return snprintf(buf, len,
			" fabric_state=%s fabric_admin_down=%d fabric_lid=%llu fabric_sm_lid=%llu fabric_tx_pkts=%llu fabric_tx_bytes=%llu fabric_rx_pkts=%llu fabric_rx_bytes=%llu fabric_decode_drops=%llu fabric_queue_drops=%llu fabric_egress_waits=%llu fabric_links=%llu fabric_queued=%u fabric_shm=%d fabric_kicks_sent=%llu fabric_kicks_rcvd=%llu fabric_ring_waits=%llu",
			state_names[fab->state], fab->admin_down,
			(unsigned long long)dev->cfg.lid,
			(unsigned long long)dev->cfg.sm_lid,
			(unsigned long long)s->fabric_tx_pkts,
			(unsigned long long)s->fabric_tx_bytes,
			(unsigned long long)s->fabric_rx_pkts,
			(unsigned long long)s->fabric_rx_bytes,
			(unsigned long long)s->fabric_decode_drops,
			(unsigned long long)s->fabric_queue_drops,
			(unsigned long long)s->egress_waits,
			(unsigned long long)s->fabric_links, fab->q.n,
			fab->shm_on, (unsigned long long)fab->kicks_sent,
			(unsigned long long)fab->kicks_rcvd,
			(unsigned long long)fab->ring_waits);
}
