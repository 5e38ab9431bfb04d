// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca-fabric --sm none: the switch.  Its ports, LID-routed and
 * multicast forwarding by the tables the SM wrote (IBA 18.2.4), the port
 * state rules, partition enforcement by each port's P_Key table, base
 * port 0 (SMA on QP0, PMA on QP1, from orca_mad.h) and its traps, the
 * PMA's raw counters and the egress queues.  Directed-route SMPs are
 * fabric_dr.c's.  No sockets: see fabric_switch.h.
 */
#include <stddef.h>
#include <string.h>

#include "fabric_switch.h"
#include "orca_clock.h"
#include "orca_log.h"

static void pma_read(void *ctx, unsigned int port,
		     struct orca_pma_counters *out)
{
	struct fab_switch *sw = ctx;

	if (port <= sw->nports)
		*out = sw->port[port].pma;
	else
		memset(out, 0, sizeof(*out));
}

int fab_sw_init(struct fab_switch *sw, unsigned int nports, uint64_t guid)
{
	unsigned int i;

	memset(sw, 0, sizeof(*sw));
	if (orca_mad_node_init(&sw->node, ORCA_MAD_NODE_SWITCH, nports))
		return -1;
	sw->nports = nports;
	/* one GUID for the node, port 0 (every port reports it) and system */
	sw->node.node_guid = guid;
	sw->node.sys_guid = guid;
	for (i = 0; i <= nports; i++)
		sw->node.port[i].guid = guid;
	strncpy(sw->node.desc, FAB_SW_DESC, sizeof(sw->node.desc));
	sw->node.vendor_id = 0x00ca7a;
	sw->node.pma_read = pma_read;
	sw->node.pma_ctx = sw;
	/* raw packets never get this far (orca_pkt_decode): no FilterRaw */
	sw->node.sw.enforce_cap = FAB_SW_ENFORCE_CAP;
	sw->node.sw.enforce_mask = ORCA_MAD_ENF_IN | ORCA_MAD_ENF_OUT;
	for (i = 1; i <= nports; i++) {
		if (msgq_init(&sw->port[i].q15, FAB_SW_VL15_QUEUE,
			      ORCA_FAB_MSG_MAX) ||
		    msgq_init(&sw->port[i].q, FAB_SW_DATA_QUEUE,
			      ORCA_FAB_MSG_MAX)) {
			fab_sw_free(sw);
			return -1;
		}
	}
	return 0;
}

void fab_sw_free(struct fab_switch *sw)
{
	unsigned int i;

	for (i = 1; i <= sw->nports; i++) {
		msgq_free(&sw->port[i].q15);
		msgq_free(&sw->port[i].q);
	}
}

int fab_sw_attach(struct fab_switch *sw, uint64_t guid, uint64_t node_guid)
{
	struct fab_sw_port *sp = NULL;
	unsigned int i;

	for (i = 1; i <= sw->nports && !sp; i++)
		if (sw->port[i].guid == guid)
			sp = &sw->port[i];
	for (i = 1; i <= sw->nports && !sp; i++)
		if (!sw->port[i].guid)
			sp = &sw->port[i];
	if (!sp || sp->connected)
		return -1;
	sp->guid = guid;
	sp->node_guid = node_guid;
	sp->connected = true;
	sp->connects++;
	return sp - sw->port;
}

void fab_sw_detach(struct fab_switch *sw, unsigned int port)
{
	if (port < 1 || port > sw->nports)
		return;
	fab_sw_link(sw, port, false);
	sw->port[port].connected = false;
	sw->port[port].ring = NULL;
}

/* A message of the switch's own (not a forwarded packet) to @port. */
static void queue_ctl(struct fab_switch *sw, unsigned int port,
		      const void *m, size_t len)
{
	struct fab_sw_port *sp = &sw->port[port];
	uint8_t *slot = msgq_tail(&sp->q15);
	struct msgq *q = &sp->q15;

	/* ahead of data: the port must hear of its link before the SMPs */
	if (!slot) {
		q = &sp->q;
		slot = msgq_tail(q);
	}
	if (!slot) {
		orca_log("switch port %u: queue full, control message lost",
			 port);
		return;
	}
	memcpy(slot, m, len);
	msgq_push(q, len);
}

void fab_sw_link(struct fab_switch *sw, unsigned int port, bool up)
{
	struct fab_sw_port *sp;
	struct orca_fab_link m;

	if (port < 1 || port > sw->nports)
		return;
	sp = &sw->port[port];
	if (up && !sp->connected)
		return;			/* no cable, no link */
	sp->up = up;
	sw->gen++;
	orca_mad_link(&sw->node, port, up);
	if (!up) {
		/* what a link held when it went down is lost */
		msgq_clear(&sp->q15);
		msgq_clear(&sp->q);
		return;
	}
	memset(&m, 0, sizeof(m));
	m.h.type = ORCA_FAB_LINK_UP;
	m.h.version = ORCA_FAB_VERSION;
	m.port = port;
	queue_ctl(sw, port, &m, sizeof(m));
}

/*
 * The SM set a cabled port DOWN (or Polling): the link trains again at
 * once, as a real one would with its peer still there, and comes back
 * in INIT; the peer hears it as a LINK_UP.  A port the SM disabled
 * stays down (the peer is not told: there is no message for it).
 */
static void retrain(struct fab_switch *sw)
{
	unsigned int i;

	for (i = 1; i <= sw->nports; i++) {
		struct orca_mad_port *p = &sw->node.port[i];

		if (sw->port[i].up && p->state == ORCA_MAD_PORT_DOWN &&
		    p->phys_state != ORCA_MAD_PHYS_DISABLED) {
			/* down first: what the link held is lost */
			fab_sw_link(sw, i, false);
			fab_sw_link(sw, i, true);
		}
	}
}

static bool is_mcast(uint16_t lid)
{
	return lid >= ORCA_MAD_LID_MCAST_BASE && lid != ORCA_LID_PERMISSIVE;
}

static void count(struct orca_pma_counters *c, bool xmit, size_t len,
		  uint16_t dlid)
{
	if (xmit) {
		c->c[ORCA_PMA_XMIT_BYTES] += len;
		c->c[ORCA_PMA_XMIT_PKTS]++;
		c->c[is_mcast(dlid) ? ORCA_PMA_MCAST_XMIT_PKTS :
				      ORCA_PMA_UCAST_XMIT_PKTS]++;
	} else {
		c->c[ORCA_PMA_RCV_BYTES] += len;
		c->c[ORCA_PMA_RCV_PKTS]++;
		c->c[is_mcast(dlid) ? ORCA_PMA_MCAST_RCV_PKTS :
				      ORCA_PMA_UCAST_RCV_PKTS]++;
	}
}

/*
 * Queue @pkt to external @port if its state lets it out: VL15 from INIT
 * on, data only ACTIVE (IBA 7.2.2: an ARMED port sends no data).
 */
static bool emit(struct fab_switch *sw, unsigned int port,
		 const uint8_t *pkt, size_t len, bool vl15, unsigned int flags)
{
	struct orca_fab_hdr h = {
		.type = ORCA_FAB_PKT, .version = ORCA_FAB_VERSION,
	};
	struct fab_sw_port *sp;
	struct msgq *q;
	uint8_t *slot, state;
	bool in_ring;

	if (port < 1 || port > sw->nports)
		return false;
	sp = &sw->port[port];
	q = vl15 ? &sp->q15 : &sp->q;
	state = sw->node.port[port].state;
	if (!sp->connected ||
	    state < (vl15 ? ORCA_MAD_PORT_INIT : ORCA_MAD_PORT_ACTIVE)) {
		sw->drops[FAB_SW_DROP_EGRESS]++;
		sp->pma.c[ORCA_PMA_XMIT_DISCARDS]++;
		return false;
	}
	slot = msgq_out_slot(&sp->q15, &sp->q, sp->ring, vl15, &in_ring);
	if (!slot) {
		sw->drops[FAB_SW_DROP_QUEUE]++;
		sp->pma.c[vl15 ? ORCA_PMA_VL15_DROPPED :
				 ORCA_PMA_XMIT_DISCARDS]++;
		return false;
	}
	memcpy(slot, &h, sizeof(h));
	memcpy(slot + sizeof(h), pkt, len);
	/* no ICRC: so into a ring only, else it is computed here */
	if (flags & ORCA_PKT_NO_ICRC) {
		if (sp->ring)
			slot[2] = ORCA_FAB_F_NO_ICRC;
		else
			orca_pkt_set_icrc(slot + sizeof(h), len);
	}
	msgq_out_push(q, sp->ring, in_ring, sizeof(h) + len);
	count(&sp->pma, true, len, (uint16_t)(pkt[2] << 8 | pkt[3]));
	return true;
}

bool fab_sw_emit(struct fab_switch *sw, unsigned int port,
		 const uint8_t *pkt, size_t len, bool vl15)
{
	return emit(sw, port, pkt, len, vl15, 0);
}

/* A UD SEND of exactly one MAD, as QP0 and QP1 carry. */
static bool is_mad(const struct orca_pkt *p)
{
	return p->opcode == (IB_UD | IB_SEND_ONLY) &&
	       p->paylen == ORCA_MAD_SIZE;
}

bool fab_sw_port0(struct fab_switch *sw, unsigned int in_port,
		  const struct orca_pkt *p, uint8_t *out)
{
	struct orca_mad_in in = {
		.mad = p->payload, .port = in_port, .slid = p->slid,
	};
	enum orca_mad_result r;
	uint32_t chg;

	count(&sw->port[0].pma, false, orca_pkt_wire_len(p), p->dlid);
	/* the M_Key lease runs on it */
	in.now_ms = orca_mono_ns() / 1000000;
	r = orca_mad_process(&sw->node, &in, out, &chg);
	/* a Set may change what forwarding decides (LFT, states, P_Keys) */
	if (p->payload[3] == ORCA_METHOD_SET)
		sw->gen++;
	if (chg & (ORCA_MAD_CHG_STATE | ORCA_MAD_CHG_RETRAIN))
		retrain(sw);
	if (r != ORCA_MAD_REPLY) {
		/* traps, responses, SMInfo: no SM on the switch takes them */
		sw->drops[FAB_SW_DROP_PORT0]++;
		return false;
	}
	return true;
}

/*
 * QP1 of port 0 takes a packet whose P_Key is a member of port 0's table
 * (IBA 10.9.3: same partition, not both limited members), as a CA's QP1
 * does; QP0 takes any (SMPs carry 0xffff).
 */
static bool port0_pkey_ok(const struct fab_switch *sw, uint16_t pkey)
{
	const struct orca_mad_port *p0 = &sw->node.port[0];
	unsigned int i, n = sw->node.partition_cap;

	if (n > ORCA_MAD_PKEYS)
		n = ORCA_MAD_PKEYS;
	for (i = 0; i < n; i++)
		if ((pkey & 0x7fff) && (pkey & 0x7fff) ==
		    (p0->pkeys[i] & 0x7fff) && ((pkey | p0->pkeys[i]) & 0x8000))
			return true;
	return false;
}

size_t fab_sw_reply(struct fab_switch *sw, const struct orca_pkt *req,
		    const uint8_t *mad, uint16_t dlid)
{
	struct orca_pkt *r = &sw->reply;
	uint16_t lid = sw->node.port[0].lid;
	size_t len;

	/* the headers only: the payload is the MAD's 256 bytes */
	memset(r, 0, offsetof(struct orca_pkt, payload));
	orca_mad_reply_pkt(r, req, mad, dlid, lid ? lid : ORCA_LID_PERMISSIVE);
	len = orca_pkt_encode(r, sw->buf);
	if (len)
		count(&sw->port[0].pma, true, len, dlid);
	return len;
}

/*
 * Trap 259 (IBA 14.2.5.1, "bad P_Key at a switch port"): the packet's
 * LIDs, P_Key, SL, QPs (the source QP if a DETH carries it), GIDs if it
 * has a GRH, the switch's LID and the port that dropped it.
 */
static void partition_trap(struct fab_switch *sw, unsigned int port,
			   const struct orca_pkt *p)
{
	uint8_t d[ORCA_NOTICE_DETAILS] = { 0 };
	bool deth = p->hdrs & PKT_DETH, grh = p->hdrs & PKT_GRH;

	/* DataValid: LID1, LID2, P_Key, SL, QP2; QP1 with a DETH; GIDs */
	mad_put16(d, 0xb400 | (deth ? 0x0800 : 0) | (grh ? 0x0300 : 0));
	mad_put16(d + 2, p->slid);
	mad_put16(d + 4, p->dlid);
	mad_put16(d + 6, p->pkey);
	mad_put32(d + 8, (uint32_t)p->sl << 28 | (deth ? p->sqpn : 0));
	mad_put32(d + 12, p->dqpn);
	if (grh) {
		memcpy(d + 16, p->sgid, 16);
		memcpy(d + 32, p->dgid, 16);
	}
	mad_put16(d + 48, sw->node.port[0].lid);
	d[50] = port;
	orca_mad_trap(&sw->node, port, ORCA_TRAP_SW_BAD_PKEY, d, 51);
}

/*
 * IBA 10.9.4: a switch port that enforces partitions passes a packet
 * whose P_Key's 15 bits are in its table; the membership bit is not
 * looked at (a limited member's packets to a full member pass the
 * switch, the end port judges them).  SMPs (VL15) are not checked.
 */
static bool partition_ok(struct fab_switch *sw, unsigned int port,
			 const struct orca_pkt *p, uint8_t dir)
{
	const struct orca_mad_port *mp = &sw->node.port[port];
	unsigned int i, n = sw->node.sw.enforce_cap;
	bool in = dir == ORCA_MAD_ENF_IN;
	uint64_t *c;

	if (p->vl == ORCA_VL15 || !(mp->enforcement & dir))
		return true;
	if (n > ORCA_MAD_PKEYS)
		n = ORCA_MAD_PKEYS;
	for (i = 0; i < n; i++)
		if ((p->pkey & 0x7fff) &&
		    (p->pkey & 0x7fff) == (mp->pkeys[i] & 0x7fff))
			return true;
	sw->drops[in ? FAB_SW_DROP_PART_IN : FAB_SW_DROP_PART_OUT]++;
	partition_trap(sw, port, p);
	c = &sw->port[port].pma.c[in ? ORCA_PMA_RCV_CONSTRAINT_ERRORS :
				      ORCA_PMA_XMIT_CONSTRAINT_ERRORS];
	/* a log line at the 1st, 2nd, 4th, 8th ... of a port */
	++*c;
	if (!(*c & (*c - 1)))
		orca_log("switch port %u: P_Key 0x%04x %s, not in its partitions: dropped (%llu so far)",
			 port, p->pkey, in ? "in" : "out",
			 (unsigned long long)*c);
	return false;
}

/*
 * Data out of @port, if its partitions take it (VL15 goes by); @flags
 * ORCA_PKT_NO_ICRC: @pkt came without its ICRC.
 */
static void forward(struct fab_switch *sw, unsigned int port,
		    const struct orca_pkt *p, const uint8_t *pkt, size_t len,
		    unsigned int flags)
{
	if (partition_ok(sw, port, p, ORCA_MAD_ENF_OUT))
		emit(sw, port, pkt, len, p->vl == ORCA_VL15, flags);
}

/* The LFT's port for @dlid; -1 (and counted at @in) if none. */
static int lft_port(struct fab_switch *sw, unsigned int in, uint16_t dlid)
{
	const struct orca_mad_switch *t = &sw->node.sw;
	uint8_t out;

	/* IBA 18.2.4.3.3: past LinearFDBTop, an invalid port: discard */
	if (!dlid || dlid > t->lft_top || dlid >= t->lft_cap ||
	    (out = t->lft[dlid]) > sw->nports || (out && out == in)) {
		sw->drops[FAB_SW_DROP_NO_ROUTE]++;
		sw->port[in].pma.c[ORCA_PMA_RCV_SWITCH_RELAY_ERRORS]++;
		return -1;
	}
	return out;
}

/*
 * What port 0's SMA has to tell the SM (orca_trap.c): SubnTrap() on QP0,
 * VL15, LID-routed to the SM by the LFT, sent now and again until the SM
 * represses it.
 */
void fab_sw_tick(struct fab_switch *sw, uint64_t now_ms)
{
	struct orca_pkt *t = &sw->reply;
	uint16_t dlid, slid;
	size_t len;
	int port;

	memset(t, 0, offsetof(struct orca_pkt, payload));
	while (orca_mad_trap_next(&sw->node, now_ms, t->payload, &dlid,
				  &slid)) {
		orca_mad_trap_pkt(t, t->payload, dlid, slid);
		port = lft_port(sw, 0, dlid);
		orca_log("switch: trap %u to the SM at LID %u (port %d), TID 0x%016llx",
			 mad_get16(t->payload + ORCA_SMP_DATA + 4), dlid, port,
			 (unsigned long long)mad_get64(t->payload + 8));
		len = orca_pkt_encode(t, sw->buf);
		if (len && port > 0 && fab_sw_emit(sw, port, sw->buf, len, true))
			count(&sw->port[0].pma, true, len, dlid);
	}
}

/* A LID-routed packet to the switch itself: QP0's SMA or QP1's PMA. */
static void to_port0(struct fab_switch *sw, unsigned int in,
		     const struct orca_pkt *p)
{
	static uint8_t out[ORCA_MAD_SIZE];
	bool vl15 = p->vl == ORCA_VL15;
	size_t len;
	int port;

	if (!is_mad(p) || p->dqpn > 1 ||
	    (p->dqpn == 0) != vl15 ||
	    (p->dqpn == 1 && (p->qkey != ORCA_QP1_QKEY ||
			      p->payload[1] != ORCA_MGMT_PERF))) {
		sw->drops[FAB_SW_DROP_PORT0]++;
		return;
	}
	if (p->dqpn == 1 && !port0_pkey_ok(sw, p->pkey)) {
		sw->drops[FAB_SW_DROP_PKEY]++;
		return;
	}
	if (p->dqpn == 0 && p->payload[1] != ORCA_MGMT_SUBN_LID) {
		/* a DR SMP LID-routed to its DR part: not done here */
		sw->drops[p->payload[1] == ORCA_MGMT_SUBN_DR ?
			  FAB_SW_DROP_DR_LID : FAB_SW_DROP_PORT0]++;
		return;
	}
	if (!fab_sw_port0(sw, in, p, out))
		return;
	len = fab_sw_reply(sw, p, out, p->slid);
	port = lft_port(sw, 0, p->slid);
	if (len && port > 0)
		forward(sw, port, &sw->reply, sw->buf, len, 0);
}

/* IBA 18.2.4.3.4: to every port of the MLID's mask but the ingress one. */
static void multicast(struct fab_switch *sw, unsigned int in,
		      const struct orca_pkt *p, const uint8_t *pkt, size_t len,
		      unsigned int flags)
{
	const struct orca_mad_switch *t = &sw->node.sw;
	unsigned int idx = p->dlid - ORCA_MAD_LID_MCAST_BASE, port;

	if (idx >= t->mft_cap) {
		sw->drops[FAB_SW_DROP_MCAST]++;
		sw->port[in].pma.c[ORCA_PMA_RCV_SWITCH_RELAY_ERRORS]++;
		return;
	}
	for (port = 1; port <= sw->nports; port++)
		if (port != in &&
		    (t->mft[port / 16][idx] & (1u << (port % 16))))
			forward(sw, port, p, pkt, len, flags);
}

void fab_sw_input(struct fab_switch *sw, unsigned int in,
		  const uint8_t *pkt, size_t len)
{
	fab_sw_input_flags(sw, in, pkt, len, 0);
}

void fab_sw_input_flags(struct fab_switch *sw, unsigned int in,
			const uint8_t *pkt, size_t len, unsigned int flags)
{
	struct orca_pkt *p = &sw->pkt;
	struct orca_mad_port *ip;
	bool vl15;
	int out;

	if (in < 1 || in > sw->nports)
		return;
	ip = &sw->node.port[in];
	flags &= ORCA_PKT_NO_ICRC;
	/* forwarded as the bytes it came in: its payload is not copied */
	if (orca_pkt_decode_flags(pkt, len, p, flags | ORCA_PKT_BORROW) !=
	    ORCA_PKT_OK) {
		sw->drops[FAB_SW_DROP_MALFORMED]++;
		sw->port[in].pma.c[ORCA_PMA_RCV_ERRORS]++;
		return;
	}
	/* but a MAD's is read (port 0's agents, DR SMPs rewrite it) */
	if (is_mad(p)) {
		memcpy(p->payload, p->data, p->paylen);
		p->data = NULL;
	}
	count(&sw->port[in].pma, false, len, p->dlid);
	vl15 = p->vl == ORCA_VL15;
	/* IBA 7.2.2: data on an ARMED port makes it ACTIVE (hfi1 too) */
	if (!vl15 && ip->state == ORCA_MAD_PORT_ARMED)
		ip->state = ORCA_MAD_PORT_ACTIVE;
	if (ip->state < (vl15 ? ORCA_MAD_PORT_INIT : ORCA_MAD_PORT_ARMED)) {
		sw->drops[FAB_SW_DROP_INGRESS]++;
		if (vl15)
			sw->port[in].pma.c[ORCA_PMA_VL15_DROPPED]++;
		return;
	}
	if (!partition_ok(sw, in, p, ORCA_MAD_ENF_IN))
		return;
	if (p->dlid == ORCA_LID_PERMISSIVE) {
		/* only directed-route SMPs go to the permissive LID */
		if (vl15 && is_mad(p) && p->dqpn == 0 &&
		    p->payload[1] == ORCA_MGMT_SUBN_DR)
			fab_sw_dr(sw, in, p);
		else
			sw->drops[FAB_SW_DROP_NO_ROUTE]++;
		return;
	}
	if (is_mcast(p->dlid)) {
		if (vl15)
			sw->drops[FAB_SW_DROP_NO_ROUTE]++;
		else
			multicast(sw, in, p, pkt, len, flags);
		return;
	}
	out = lft_port(sw, in, p->dlid);
	if (out == 0)
		to_port0(sw, in, p);
	else if (out > 0)
		forward(sw, out, p, pkt, len, flags);
}

int fab_sw_route(const struct fab_switch *sw, unsigned int in, uint16_t dlid)
{
	const struct orca_mad_switch *t = &sw->node.sw;
	uint8_t out;

	if (!dlid || is_mcast(dlid) || dlid == ORCA_LID_PERMISSIVE ||
	    dlid > t->lft_top || dlid >= t->lft_cap ||
	    (out = t->lft[dlid]) > sw->nports || !out || out == in)
		return -1;
	return out;
}

bool fab_sw_passes_data(const struct fab_switch *sw, unsigned int in,
			unsigned int out)
{
	return in >= 1 && in <= sw->nports && out >= 1 && out <= sw->nports &&
	       sw->port[in].connected && sw->port[out].connected &&
	       sw->node.port[in].state == ORCA_MAD_PORT_ACTIVE &&
	       sw->node.port[out].state == ORCA_MAD_PORT_ACTIVE;
}

/* @port's keys for @dir as partition_ok() checks them; ..._ALL: any. */
static unsigned int port_keys(const struct fab_switch *sw, unsigned int port,
			      uint8_t dir, uint16_t *keys)
{
	const struct orca_mad_port *mp = &sw->node.port[port];
	unsigned int i, n = 0, cap = sw->node.sw.enforce_cap;

	if (!(mp->enforcement & dir))
		return ORCA_FAB_DIRECT_KEYS_ALL;
	if (cap > ORCA_MAD_PKEYS)
		cap = ORCA_MAD_PKEYS;
	for (i = 0; i < cap; i++)
		if (mp->pkeys[i] & 0x7fff)
			keys[n++] = mp->pkeys[i] & 0x7fff;
	return n;
}

unsigned int fab_sw_passing_keys(const struct fab_switch *sw, unsigned int in,
				 unsigned int out, uint16_t *keys)
{
	uint16_t a[ORCA_MAD_PKEYS], b[ORCA_MAD_PKEYS];
	unsigned int na = port_keys(sw, in, ORCA_MAD_ENF_IN, a);
	unsigned int nb = port_keys(sw, out, ORCA_MAD_ENF_OUT, b);
	unsigned int i, j, n = 0;

	if (na == ORCA_FAB_DIRECT_KEYS_ALL && nb == ORCA_FAB_DIRECT_KEYS_ALL)
		return ORCA_FAB_DIRECT_KEYS_ALL;
	if (na == ORCA_FAB_DIRECT_KEYS_ALL || nb == ORCA_FAB_DIRECT_KEYS_ALL) {
		const uint16_t *k = na == ORCA_FAB_DIRECT_KEYS_ALL ? b : a;

		n = na == ORCA_FAB_DIRECT_KEYS_ALL ? nb : na;
		memcpy(keys, k, n * sizeof(*keys));
		return n;
	}
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if (a[i] == b[j]) {
				keys[n++] = a[i];
				break;
			}
	return n;
}

void fab_sw_count_passed(struct fab_switch *sw, unsigned int in,
			 unsigned int out, uint64_t pkts, uint64_t bytes)
{
	struct orca_pma_counters *i = &sw->port[in].pma;
	struct orca_pma_counters *o = &sw->port[out].pma;

	i->c[ORCA_PMA_RCV_BYTES] += bytes;
	i->c[ORCA_PMA_RCV_PKTS] += pkts;
	i->c[ORCA_PMA_UCAST_RCV_PKTS] += pkts;
	o->c[ORCA_PMA_XMIT_BYTES] += bytes;
	o->c[ORCA_PMA_XMIT_PKTS] += pkts;
	o->c[ORCA_PMA_UCAST_XMIT_PKTS] += pkts;
}

bool fab_sw_pending(const struct fab_switch *sw, unsigned int port)
{
	if (port < 1 || port > sw->nports)
		return false;
	return !msgq_empty(&sw->port[port].q15) ||
	       !msgq_empty(&sw->port[port].q);
}

size_t fab_sw_peek(const struct fab_switch *sw, unsigned int port,
		   const uint8_t **msg)
{
	const struct msgq *q;

	if (!fab_sw_pending(sw, port))
		return 0;
	q = &sw->port[port].q15;
	if (msgq_empty(q))
		q = &sw->port[port].q;
	*msg = q->buf + (size_t)q->head * q->slot;
	return q->len[q->head];
}

void fab_sw_drop_head(struct fab_switch *sw, unsigned int port)
{
	struct msgq *q;

	if (!fab_sw_pending(sw, port))
		return;
	q = &sw->port[port].q15;
	if (msgq_empty(q))
		q = &sw->port[port].q;
	q->head = (q->head + 1) % q->cap;
	q->n--;
}

size_t fab_sw_pop(struct fab_switch *sw, unsigned int port, uint8_t *msg)
{
	const uint8_t *m;
	size_t len = fab_sw_peek(sw, port, &m);

	if (len) {
		memcpy(msg, m, len);
		fab_sw_drop_head(sw, port);
	}
	return len;
}

bool fab_sw_blocked(const struct fab_switch *sw, unsigned int in,
		    const uint8_t *pkt, size_t len)
{
	const struct orca_mad_switch *t = &sw->node.sw;
	const struct fab_sw_port *sp;
	uint16_t dlid;
	uint8_t out;

	if (in < 1 || in > sw->nports || len < ORCA_PKT_LRH_LEN ||
	    (pkt[0] >> 4) == ORCA_VL15)
		return false;
	dlid = (uint16_t)(pkt[2] << 8 | pkt[3]);
	if (!dlid || is_mcast(dlid) || dlid == ORCA_LID_PERMISSIVE ||
	    dlid > t->lft_top || dlid >= t->lft_cap)
		return false;
	out = t->lft[dlid];
	if (!out || out > sw->nports || out == in)
		return false;
	sp = &sw->port[out];
	if (!sp->connected ||
	    sw->node.port[out].state < ORCA_MAD_PORT_ACTIVE)
		return false;
	return sp->q.n == sp->q.cap &&
	       (!sp->ring || !orca_ring_room(sp->ring));
}

int fab_sw_flush(struct fab_switch *sw, unsigned int port, int fd)
{
	struct fab_sw_port *sp;

	if (port < 1 || port > sw->nports)
		return 0;
	sp = &sw->port[port];
	return msgq_flush_vl15(&sp->q15, &sp->q, fd);
}

const char *fab_sw_state_name(uint8_t state)
{
	static const char *const names[] = {
		"nop", "down", "init", "armed", "active",
	};

	return state < 5 ? names[state] : "?";
}

const char *fab_sw_drop_name(enum fab_sw_drop d)
{
	static const char *const names[FAB_SW_DROP_NR] = {
		[FAB_SW_DROP_MALFORMED] = "malformed",
		[FAB_SW_DROP_INGRESS] = "ingress_state",
		[FAB_SW_DROP_EGRESS] = "egress_state",
		[FAB_SW_DROP_NO_ROUTE] = "no_route",
		[FAB_SW_DROP_MCAST] = "mcast",
		[FAB_SW_DROP_QUEUE] = "queue_full",
		[FAB_SW_DROP_DR] = "dr",
		[FAB_SW_DROP_DR_LID] = "dr_lid_routed",
		[FAB_SW_DROP_PORT0] = "port0",
		[FAB_SW_DROP_PKEY] = "port0_pkey",
		[FAB_SW_DROP_PART_IN] = "partition_in",
		[FAB_SW_DROP_PART_OUT] = "partition_out",
	};

	return d < FAB_SW_DROP_NR ? names[d] : "?";
}
