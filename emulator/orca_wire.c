// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the port and its link.
 *
 * Packets are IBTA-shaped (LRH/GRH/BTH and the extension headers, kept
 * unpacked in host order) and leave the device only through
 * wire_xmit(), the port's xmit operation (wire_link_ops).  The port routes a packet whose destination is this port
 * (DLID in lid..lid + 2^lmc - 1, or with a GRH a DGID in the GID table)
 * onto its own receive queue, as an HCA loops back internally.  Without
 * a fabric that is the whole link, and anything else is dropped the way
 * a fabric without that destination would drop it; with one (cfg fabric,
 * orca_fabric.c) anything else is sent to the fabric, and what the
 * fabric brings comes in through wire_rx().
 *
 * The link can be made lossy (cfg link_*, ctl link-faults): it drops,
 * duplicates, holds back (so that later packets overtake) and delays
 * packets at chosen rates, from a seeded generator so that a run can be
 * repeated.  The faults apply to every packet the port sends, looped
 * back or for the fabric; what the fabric brings has had its sender's.
 * The transport must survive it: RC by its PSN rules, retransmission and
 * duplicate detection; UC and UD lose messages.
 */
#include <stdlib.h>
#include <string.h>

#include "orca_link.h"

/* IBTA 10.9.3: same partition, and not both limited members. */
static bool pkey_match(uint16_t a, uint16_t b)
{
	return (a & 0x7fff) && (a & 0x7fff) == (b & 0x7fff) &&
	       ((a | b) & 0x8000);
}

static bool port_owns(struct orca_dev *dev, const struct orca_pkt *p)
{
	const struct orca_cfg *g = &dev->cfg;
	uint8_t gid[16];
	uint32_t i;

	if (mlid_is_mcast(p->dlid))
		return mcast_owns(dev, p->dlid,
				  p->hdrs & PKT_GRH ? p->dgid : NULL);
	if (p->hdrs & PKT_GRH) {
		for (i = 0; i < g->gid_tbl_len; i++) {
			orca_gid_entry(g, i, gid);
			if (!memcmp(gid, p->dgid, 16))
				return true;
		}
		return false;
	}
	/* a permissive DLID is never looped back: DR SMPs go out */
	return p->dlid != ORCA_LID_PERMISSIVE && g->lid &&
	       p->dlid >= g->lid && p->dlid - g->lid < (1U << g->lmc);
}

/*
 * IBA 7.2: subnet management (VL15) passes in every state past DOWN,
 * data only in ACTIVE (and, received, in ARMED, which it makes ACTIVE).
 */
static bool port_passes(const struct orca_dev *dev, const struct orca_pkt *p,
			bool rx)
{
	if (p->vl == ORCA_VL15)
		return dev->port_state >= ORCA_PORT_INIT;
	return dev->port_state == ORCA_PORT_ACTIVE ||
	       (rx && dev->port_state == ORCA_PORT_ARMED);
}

/* xorshift64*: a roll in [0, 1000000) */
static uint32_t link_roll(struct orca_dev *dev)
{
	/* never 0: the seed through a splitmix64 step */
	uint64_t x = dev->link_rng ? dev->link_rng :
		     (dev->cfg.link_seed + 0x9e3779b97f4a7c15ULL) *
		     0xbf58476d1ce4e5b9ULL | 1;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	dev->link_rng = x;
	return (uint32_t)(((x * 0x2545f4914f6cdd1dULL) >> 32) % 1000000);
}

static bool link_hit(struct orca_dev *dev, uint64_t ppm)
{
	return ppm && link_roll(dev) < ppm;
}

/* Onto the wire now, or held until dp_now_ns() + @hold_ns. */
static void link_put(struct orca_dev *dev, struct orca_pkt *p,
		     uint64_t hold_ns)
{
	struct orca_pkt **pp;

	p->next = NULL;
	dev->link_n++;
	/* held past this round: guest memory may change or move by then */
	if (hold_ns)
		orca_pkt_own(p);
	/* subnet management passes the data queued before it (IBA 7.6.4) */
	if (!hold_ns && p->vl == ORCA_VL15) {
		for (pp = &dev->link_head; *pp && (*pp)->vl == ORCA_VL15;
		     pp = &(*pp)->next)
			;
		p->next = *pp;
		*pp = p;
		if (!p->next)
			dev->link_tail = p;
		return;
	}
	if (!hold_ns) {
		if (dev->link_tail)
			dev->link_tail->next = p;
		else
			dev->link_head = p;
		dev->link_tail = p;
		return;
	}
	p->deliver_at = dp_now_ns() + hold_ns;
	for (pp = &dev->link_held; *pp && (*pp)->deliver_at <= p->deliver_at;
	     pp = &(*pp)->next)
		;
	p->next = *pp;
	*pp = p;
}

bool wire_set_faults(struct orca_dev *dev, uint32_t drop_ppm,
		     uint32_t dup_ppm, uint32_t reorder_ppm, uint32_t delay_us)
{
	if (drop_ppm > 1000000 || dup_ppm > 1000000 ||
	    reorder_ppm > 1000000 || delay_us > 1000000)
		return false;
	dev->cfg.link_drop_ppm = drop_ppm;
	dev->cfg.link_dup_ppm = dup_ppm;
	dev->cfg.link_reorder_ppm = reorder_ppm;
	dev->cfg.link_delay_us = delay_us;
	return true;
}

static void wire_xmit(struct orca_dev *dev, struct orca_pkt *p)
{
	const struct orca_cfg *g = &dev->cfg;
	uint64_t hold = g->link_delay_us * 1000;
	struct orca_pkt *d;

	dev->stats.pkts++;
	dev->stats.pkt_bytes += p->paylen;
	if (!port_passes(dev, p, false) || (!dev->fab && !port_owns(dev, p))) {
		dev->stats.pkts_dropped++;
		dev->stats.port_xmit_discards++;
		pkt_free(dev, p);
		return;
	}
	dev->stats.port_xmit_pkts++;
	dev->stats.port_xmit_octets += orca_pkt_wire_len(p);
	if (mlid_is_mcast(p->dlid))
		dev->stats.port_mcast_xmit_pkts++;
	if (link_hit(dev, g->link_drop_ppm)) {
		dev->stats.link_drops++;
		pkt_free(dev, p);
		return;
	}
	if (link_hit(dev, g->link_dup_ppm)) {
		d = pkt_alloc(dev);
		if (d) {
			memcpy(d, p, offsetof(struct orca_pkt, payload) +
			       p->paylen);
			dev->stats.link_dups++;
			link_put(dev, d, hold);
		}
	}
	/* held back long enough for the next packets to overtake it */
	if (link_hit(dev, g->link_reorder_ppm)) {
		dev->stats.link_reorders++;
		hold += 50000 + hold;
	}
	link_put(dev, p, hold);
}

/*
 * Everything on the link may be for the fabric: counting it all keeps
 * the engine from filling the egress queue while a burst is still on
 * its way there (a looped-back packet only makes the wait shorter).
 */
static bool wire_room(struct orca_dev *dev)
{
	if (!dev->fab || fabric_room(dev, dev->link_n)) {
		dev->egress_wait = false;
		return true;
	}
	/* the queue draining wakes the engine (orca_fabric.c) */
	if (!dev->egress_wait) {
		dev->egress_wait = true;
		dev->stats.egress_waits++;
	}
	return false;
}

uint64_t wire_next_deadline(const struct orca_dev *dev)
{
	return dev->link_held ? dev->link_held->deliver_at : 0;
}

static bool is_response(uint8_t opcode)
{
	uint8_t op = opcode & 0x1f;

	return (opcode & 0xe0) == IB_RC &&
	       op >= IB_READ_RESP_FIRST && op <= IB_ATOMIC_ACK;
}

/* From the port @av names: its LID, and its GID when both carry one. */
static bool from_av(const struct orca_av *av, const struct orca_pkt *p)
{
	if (p->slid != le16toh(av->dlid))
		return false;
	return !(p->hdrs & PKT_GRH) || !(av->flags & ORCA_AV_F_GRH) ||
	       !memcmp(p->sgid, av->dgid, sizeof(p->sgid));
}

/*
 * RC and UC take packets from their peer only, on the primary or the
 * alternate path (rxe's check_addr()): anyone else on the fabric who
 * guessed the QPN and a PSN must not write, read or complete anything.
 */
static bool from_peer(const struct orca_qp *qp, const struct orca_pkt *p)
{
	if (qp->ctx.qp_type == ORCA_QPT_UD)
		return true;
	return from_av(&qp->ctx.av, p) ||
	       (qp->ctx.alt_av.dlid && from_av(&qp->ctx.alt_av, p));
}

/*
 * QP0 takes VL15 only and is the only one to (IBA 13.5.3, qib's ud
 * receive checks); QP0 and QP1 take a MAD, 256 bytes, and nothing else.
 */
static bool special_ok(const struct orca_qp *qp, const struct orca_pkt *p)
{
	uint32_t qpn = le32toh(qp->ctx.qpn);

	if ((p->vl == ORCA_VL15) != (qpn == 0))
		return false;
	return qpn > 1 || p->paylen == ORCA_MAD_SIZE;
}

/* QP0 checks no P_Key, QP1 takes any of the table, the rest their own. */
static bool pkey_ok(struct orca_dev *dev, const struct orca_qp *qp,
		    const struct orca_pkt *p)
{
	switch (le32toh(qp->ctx.qpn)) {
	case 0:
		return true;
	case 1:
		return pkey_index_of(dev, p->pkey) >= 0;
	default:
		return pkey_match(p->pkey, qp_pkey(dev, qp));
	}
}

/* Receive side of one QP: its kind, its P_Key, its peer. */
static void qp_rx(struct orca_dev *dev, struct orca_qp *qp, struct orca_pkt *p)
{
	if (!qp || !special_ok(qp, p)) {
		dev->stats.pkts_dropped++;
		return;
	}
	if (!pkey_ok(dev, qp, p)) {
		dev->stats.pkts_dropped++;
		port_count_violation(dev, true, p);
		return;
	}
	if (!from_peer(qp, p)) {
		dev->stats.pkts_dropped++;
		dev->stats.peer_drops++;
		return;
	}
	if (is_response(p->opcode))
		comp_rx(dev, qp, p);
	else
		resp_rx(dev, qp, p);
	/* what it started (a response due, the next WQE) is the engine's */
	qp_sched(dev, qp);
}

static void mcast_copy(struct orca_dev *dev, uint32_t qpn, void *pkt)
{
	dev->stats.mcast_copies++;
	qp_rx(dev, qp_get(dev, qpn), pkt);
}

/*
 * Receive side of the port: the QP the BTH names, or for a multicast
 * packet (DestQP 0xffffff, IBA 9.6.1.1) a copy to each attached QP.
 */
static void port_rx(struct orca_dev *dev, struct orca_pkt *p)
{
	dev->stats.rx_pkts++;
	dev->stats.rx_bytes += p->paylen;
	dev->stats.port_rcv_octets += orca_pkt_wire_len(p);
	if (!mlid_is_mcast(p->dlid)) {
		qp_rx(dev, qp_get(dev, p->dqpn), p);
		return;
	}
	dev->stats.port_mcast_rcv_pkts++;
	if (p->dqpn != ORCA_MCAST_QPN || (p->opcode & 0xe0) != IB_UD ||
	    !mcast_for_each(dev, p->dlid, p->hdrs & PKT_GRH ? p->dgid : NULL,
			    mcast_copy, p))
		dev->stats.pkts_dropped++;
}

/*
 * A packet off the link: looped back, or out to the fabric; multicast
 * both, to the switch for the other ports and to this port's own QPs.
 */
static void link_deliver(struct orca_dev *dev, struct orca_pkt *p)
{
	bool mine = port_owns(dev, p);

	if (dev->fab && (!mine || mlid_is_mcast(p->dlid)))
		fabric_xmit(dev, p);
	/*
	 * looped back: placed from the packet, not from the sender's
	 * memory, which may be where it is placed (as an HCA's buffer)
	 */
	if (mine)
		orca_pkt_own(p);
	if (mine && !fw_mad_wire(dev, p))
		port_rx(dev, p);
	else if (!dev->fab)
		dev->stats.pkts_dropped++;	/* the LID changed in flight */
	pkt_free(dev, p);
}

unsigned int wire_drain(struct orca_dev *dev)
{
	unsigned int n = 0;
	struct orca_pkt *p;
	uint64_t now;

	while ((p = dev->link_head)) {
		dev->link_head = p->next;
		if (!dev->link_head)
			dev->link_tail = NULL;
		dev->link_n--;
		link_deliver(dev, p);
		n++;
	}
	if (!dev->link_held)
		return n;
	now = dp_now_ns();
	while ((p = dev->link_held) && p->deliver_at <= now) {
		dev->link_held = p->next;
		dev->link_n--;
		link_deliver(dev, p);
		n++;
	}
	return n;
}

/*
 * From the fabric: only while the port is ACTIVE and the device could
 * take it (the switch routed it by DLID; a GRH must name us too).
 */
void wire_rx(struct orca_dev *dev, struct orca_pkt *p)
{
	bool dr_smp = p->dlid == ORCA_LID_PERMISSIVE && p->vl == ORCA_VL15;
	bool ours = port_owns(dev, p) || dr_smp;

	/* the firmware's own SMPs: whatever the host's driver is doing */
	if (ours && port_passes(dev, p, true) && !dev->fatal && !dev->hung &&
	    fw_mad_wire(dev, p)) {
		/* answered or dropped there */
	} else if (!ours || !port_passes(dev, p, true) || dev->fatal ||
		   dev->hung || !dev->ram || dev->state != ORCA_DEV_S_ACTIVE) {
		dev->stats.pkts_dropped++;
	} else {
		/* IBA 7.2.5: data received in ARMED makes the port ACTIVE */
		if (p->vl != ORCA_VL15 && dev->port_state == ORCA_PORT_ARMED)
			port_set_state(dev, ORCA_PORT_ACTIVE);
		port_rx(dev, p);
	}
	pkt_free(dev, p);
}

/* Drop what is in flight (reset, destroy of everything). */
void wire_flush(struct orca_dev *dev)
{
	struct orca_pkt *p;

	while ((p = dev->link_head)) {
		dev->link_head = p->next;
		free(p);
	}
	dev->link_tail = NULL;
	while ((p = dev->link_held)) {
		dev->link_held = p->next;
		free(p);
	}
	dev->link_n = 0;
}

/* What the fabric's way to @dlid holds; the loopback as the fabric. */
static unsigned int wire_window(struct orca_dev *dev, uint16_t dlid)
{
	return dev->fab ? fabric_window(dev, dlid) : ORCA_MAX_UNACKED_PSNS;
}

const struct orca_link_ops wire_link_ops = {
	.xmit = wire_xmit,
	.room = wire_room,
	.window = wire_window,
};
