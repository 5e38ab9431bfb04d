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

#include "orca_fabric.h"

static const char *const state_names[] = {
	[FAB_IDLE] = "idle", [FAB_WAIT] = "wait", [FAB_UP] = "up",
	[FAB_LINKED] = "linked",
};

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
	fab_direct_close_all(dev, "device destroyed");
	if (fab->fd >= 0)
		close(fab->fd);
	fab_ring_unmap(fab);
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


void fab_link_lost(struct orca_dev *dev, const char *why)
{
	struct orca_fab *fab = dev->fab;

	/* a fabric that drops us before a LID (a GUID in use) is a refusal */
	if (fab->state != FAB_WAIT || fab_log_first(fab->refusals))
		orca_log("fabric: link to %s lost (%s): port DOWN, LID 0x%llx kept until the SM answers again",
			 dev->cfg.fabric, why,
			 (unsigned long long)dev->cfg.lid);
	if (fab->state == FAB_WAIT)
		fab->refusals++;
	fab_direct_close_all(dev, why);
	close(fab->fd);
	fab->fd = -1;
	fab_ring_unmap(fab);
	fab->state = FAB_IDLE;
	msgq_clear(&fab->q15);
	msgq_clear(&fab->q);
	fab->retry_at = dp_now_ns() + ORCA_FAB_RETRY_MS * 1000000ULL;
	port_set_state(dev, ORCA_PORT_DOWN);
}

static int fab_flush(struct orca_dev *dev)
{
	struct orca_fab *fab = dev->fab;

	if (fab->shm_on)
		return fab_ring_flush(dev);
	return msgq_flush_vl15(&fab->q15, &fab->q, fab->fd);
}

/* Queue the @len bytes written at @q's tail and send what the link takes. */
static void fab_push(struct orca_dev *dev, struct msgq *q, size_t len)
{
	struct orca_fab *fab = dev->fab;

	msgq_push(q, len);
	if (fab_flush(dev) < 0)
		fab_link_lost(dev, fab->shm_on ? "the fabric broke the ring" :
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

static void send_ctl(struct orca_dev *dev, uint8_t type)
{
	struct orca_fab_hdr h;

	fab_hdr(&h, type);
	if (!fab_send(dev, &h, sizeof(h), false))
		fab_complain(dev, "queue full", "PORT_UP/DOWN not sent");
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
		if (fab_log_first(fab->failures))
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
	shm_fd = fab_ring_create(dev);
	if (shm_fd >= 0)
		h.flags = ORCA_FAB_HELLO_SHM |
			  (dev->cfg.fabric_direct ? ORCA_FAB_HELLO_DIRECT : 0);
	if (fab_log_first(fab->refusals))
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
		fab_link_lost(dev, strerror(errno));
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
		fab_direct_close_all(dev, "port down by request");
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
	/* one egress port: a full direct link holds everything back too */
	return room > pending + ORCA_FAB_RESERVE &&
	       (!fab->n_direct || fab_direct_room(dev, pending));
}

unsigned int fabric_window(struct orca_dev *dev, uint16_t dlid)
{
	return dev->fab->n_direct && fab_direct_to(dev, dev->cfg.lid, dlid) ?
	       ORCA_DIRECT_UNACKED_PSNS : ORCA_MAX_UNACKED_PSNS;
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
	/* subnet management and multicast always through the switch */
	if (fab->n_direct && p->vl != ORCA_VL15 && fab_direct_xmit(dev, p))
		return;
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
		fab_complain(dev, "not sent", "packet its opcode does not allow");
		return;
	}
	dev->stats.fabric_tx_pkts++;
	dev->stats.fabric_tx_bytes += len;
	if (!ring) {
		fab_push(dev, q, sizeof(struct orca_fab_hdr) + len);
		return;
	}
	msgq_out_push(q, &fab->tx, true, sizeof(struct orca_fab_hdr) + len);
	fab_ring_traffic(dev);
}

static void on_lid(struct orca_dev *dev, const uint8_t *m, size_t len)
{
	struct orca_fab *fab = dev->fab;
	struct orca_fab_lid a;
	uint16_t lid, sm_lid;

	if (len != sizeof(a)) {
		fab_complain(dev, "LID_ASSIGN ignored", "wrong size");
		return;
	}
	memcpy(&a, m, sizeof(a));
	lid = le16toh(a.lid);
	sm_lid = le16toh(a.sm_lid);
	if (!lid || lid > ORCA_FAB_MAX_LID || !sm_lid ||
	    sm_lid > ORCA_FAB_MAX_LID || a.lmc != dev->cfg.lmc ||
	    (lid & ((1U << a.lmc) - 1)) || a.mkey_protect > 3) {
		fab_complain(dev, "LID_ASSIGN ignored",
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
		fab_complain(dev, "LINK_UP ignored", "wrong size");
		return;
	}
	memcpy(&l, m, sizeof(l));
	if (!l.port) {
		fab_complain(dev, "LINK_UP ignored", "switch port 0");
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

bool fab_on_msg(struct orca_dev *dev, const uint8_t *m, size_t len,
		bool ring, fab_deliver_fn deliver)
{
	const size_t hl = sizeof(struct orca_fab_hdr);

	if (len < hl || m[1] != ORCA_FAB_VERSION) {
		dev->stats.fabric_decode_drops++;
		fab_complain(dev, "message dropped", "no header or another version");
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
			fab_complain(dev, "SHM_ACK ignored", "no rings offered");
			return false;
		}
		dev->fab->shm_on = true;
		orca_log("fabric: shared-memory link in use (%u slots a way)",
			 dev->fab->tx.nslots);
		return false;
	}
	if (m[0] == ORCA_FAB_DIRECT_CLOSE) {
		fab_direct_close_msg(dev, m, len);
		return false;
	}
	if (m[0] != ORCA_FAB_PKT) {
		dev->stats.fabric_decode_drops++;
		fab_complain(dev, "message dropped", "unknown type");
		return false;
	}
	return fab_rx_pkt(dev, m, len, ring, NULL, deliver);
}

int fabric_pollfd(struct orca_dev *dev, struct pollfd *pfd,
		  unsigned int max)
{
	struct orca_fab *fab = dev->fab;
	bool queued;

	if (!fab || !max)
		return 0;
	if (fab->fd < 0 && !fab->admin_down && dp_now_ns() >= fab->retry_at)
		fab_connect(dev);
	if (fab->fd < 0)
		return 0;
	/*
	 * What this pass put in the ring: one kick for all of it, if the
	 * fabric sleeps (a batch per wake-up, not a wake-up per packet)
	 */
	if (fab->shm_on && orca_ring_kick_due(&fab->tx) &&
	    fab_send_kick(fab->fd))
		fab->kicks_sent++;
	/* with rings, what is queued waits for a KICK, not for the socket */
	queued = !msgq_empty(&fab->q) || !msgq_empty(&fab->q15);
	*pfd = (struct pollfd){
		.fd = fab->fd,
		.events = POLLIN | (queued && !fab->shm_on ? POLLOUT : 0),
	};
	return 1 + fab_direct_pollfds(dev, pfd + 1, max - 1);
}

bool fabric_may_sleep(struct orca_dev *dev)
{
	struct orca_fab *fab = dev->fab;

	if (!fab)
		return true;
	if (fab->shm_on && !fab_ring_may_sleep(dev))
		return false;
	return !fab->n_direct || fab_direct_may_sleep(dev);
}

/* A message on the socket: DIRECT_OPEN takes the descriptors with it. */
static unsigned int sock_msg(struct orca_dev *dev, size_t len, int *fds,
			     unsigned int nfds, fab_deliver_fn deliver)
{
	struct orca_fab *fab = dev->fab;
	unsigned int i;

	if (len >= sizeof(struct orca_fab_hdr) &&
	    fab->rx_msg[0] == ORCA_FAB_DIRECT_OPEN) {
		fab_direct_open(dev, fab->rx_msg, len, fds, nfds);
		return 0;
	}
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	if (nfds)
		fab_complain(dev, "descriptors closed",
			     "sent with a message that takes none");
	return fab_on_msg(dev, fab->rx_msg, len, false, deliver);
}

bool fabric_io(struct orca_dev *dev, const struct pollfd *pfd,
	       unsigned int npfd, fab_deliver_fn deliver)
{
	struct orca_fab *fab = dev->fab;
	short revents = npfd ? pfd[0].revents : 0;
	unsigned int i, nfds, delivered = 0;
	int n, fds[MSGQ_MAX_FDS];
	bool wake = false;
	ssize_t r;

	if (!fab || fab->fd < 0)
		return false;
	if ((revents & POLLOUT) && !fab->shm_on &&
	    msgq_flush_vl15(&fab->q15, &fab->q, fab->fd) < 0) {
		fab_link_lost(dev, strerror(errno));
		return false;
	}
	for (i = 0; (revents & (POLLIN | POLLHUP | POLLERR)) &&
		    i < ORCA_FAB_RX_BATCH; i++) {
		r = msgq_recv_fds(fab->fd, fab->rx_msg, sizeof(fab->rx_msg),
				  fds, &nfds);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (r <= 0) {
			while (nfds)
				close(fds[--nfds]);
			fab_link_lost(dev, r ? strerror(errno) : "fabric closed");
			return delivered;
		}
		if ((size_t)r > ORCA_FAB_MSG_MAX) {
			while (nfds)
				close(fds[--nfds]);
			dev->stats.fabric_decode_drops++;
			fab_complain(dev, "message dropped", "too long");
			continue;
		}
		delivered += sock_msg(dev, r, fds, nfds, deliver);
		if (fab->fd < 0)
			return delivered;
	}
	/* after the socket: SHM_ACK and LINK_UP come before ring traffic */
	if (fab->shm_on) {
		n = fab_ring_input(dev, fab_on_msg, deliver);
		if (n < 0 || (fab->shm_on && fab_ring_flush(dev) < 0)) {
			fab_link_lost(dev, "the fabric broke the ring");
			return delivered;
		}
		delivered += n;
	}
	if (fab->n_direct && npfd)
		delivered += fab_direct_io(dev, pfd + 1, npfd - 1, deliver);
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
	int off;

	if (!fab)
		return 0;
	off = snprintf(buf, len,
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
	if (off < 0 || (size_t)off >= len)
		return off;
	return off + fab_direct_format_stats(dev, buf + off, len - off);
}
