// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the firmware's management agents on port 1 (the
 * library of orca_mad.h), for the host's MAD_IFC and for the wire.
 *
 * The performance management agent answers from the port's own counters
 * (PortCounters, PortCountersExtended, ClassPortInfo).  The subnet
 * management agent programs port 1: what the device keeps of the port
 * for the data path and for QUERY_PORT (LID, LMC, SM LID and SL, the
 * P_Key table, the GID prefix, PortState, the violation counters; cfg
 * and port_state) is loaded into the agent's port before every MAD, and
 * what a Set changed goes back before the reply, with the port events
 * that say so (mlx4's port management change events).  The rest of
 * PortInfo (M_Key, NeighborMTU, OperationalVLs, ...) is the agent's own.
 *
 * The host policy (cfg port_pin, orca.rst "Host policy"): with no pin
 * the host is trusted as a physical host is: its driver hands the
 * agents the SMPs its QP0 receives, with their work completion, and its
 * own with IGNORE_MKEY.  With a pin the host is a tenant, as an SR-IOV
 * virtual function is: the firmware answers the subnet's SMPs to this
 * port itself, off the wire (fw_mad_wire()), so the host never sees an
 * SM's M_Key, and everything the host asks through MAD_IFC is its own
 * request: the M_Key is not its business (ignored, and hidden from it
 * when it may not be an SM), and a Set that would change what is pinned
 * is refused whole, counted and logged.
 */
#include <stdlib.h>
#include <string.h>

#include "orca_link.h"
#include "orca_log.h"
#include "orca_mad.h"

/* The PMA's raw totals of port 1: what the port sent and received. */
static void mad_pma_read(void *ctx, unsigned int port,
			 struct orca_pma_counters *out)
{
	const struct orca_stats *s = &((struct orca_dev *)ctx)->stats;

	memset(out, 0, sizeof(*out));
	if (port != 1)
		return;
	out->c[ORCA_PMA_XMIT_BYTES] = s->port_xmit_octets;
	out->c[ORCA_PMA_RCV_BYTES] = s->port_rcv_octets;
	out->c[ORCA_PMA_XMIT_PKTS] = s->port_xmit_pkts;
	out->c[ORCA_PMA_RCV_PKTS] = s->rx_pkts;
	out->c[ORCA_PMA_MCAST_XMIT_PKTS] = s->port_mcast_xmit_pkts;
	out->c[ORCA_PMA_MCAST_RCV_PKTS] = s->port_mcast_rcv_pkts;
	out->c[ORCA_PMA_UCAST_XMIT_PKTS] = s->port_xmit_pkts -
					   s->port_mcast_xmit_pkts;
	out->c[ORCA_PMA_UCAST_RCV_PKTS] = s->rx_pkts - s->port_mcast_rcv_pkts;
	out->c[ORCA_PMA_XMIT_DISCARDS] = s->port_xmit_discards;
}

/*
 * The agents' node: a CA of one port, its identity from the
 * configuration, the counters from zero (as the device's statistics,
 * which a new host starts over too).
 */
int mad_node_reset(struct orca_dev *dev)
{
	const struct orca_cfg *g = &dev->cfg;
	struct orca_mad_port keep = {};
	struct orca_mad_node *n;
	bool again = dev->mad;

	if (!dev->mad) {
		dev->mad = calloc(1, sizeof(*dev->mad));
		if (!dev->mad)
			return -1;
	}
	n = dev->mad;
	if (again)
		keep = n->port[1];
	if (orca_mad_node_init(n, ORCA_MAD_NODE_CA, 1))
		return -1;
	/*
	 * A new host or a firmware restart keeps the port as the SM set it,
	 * M_Key and its protection included, as it keeps the link, the LID
	 * and the P_Keys: a tenant must not shed the SM's protection by
	 * restarting.  Only the counters start over, with the statistics.
	 */
	if (again) {
		memset(&keep.pma_base, 0, sizeof(keep.pma_base));
		n->port[1] = keep;
	}
	n->sys_guid = g->sys_image_guid;
	n->node_guid = g->node_guid;
	n->device_id = g->vendor_part_id;
	n->revision = g->hw_ver;
	n->vendor_id = g->vendor_id & 0xffffff;
	snprintf(n->desc, sizeof(n->desc), "%s", g->fw_name);
	n->pma_read = mad_pma_read;
	n->pma_ctx = dev;
	n->port[1].guid = g->port_guid;
	return 0;
}

void mad_node_free(struct orca_dev *dev)
{
	free(dev->mad);
	dev->mad = NULL;
}

/* The device's port 1, as the SMA's port sees it before a MAD. */
static void sma_port_load(struct orca_dev *dev)
{
	const struct orca_cfg *g = &dev->cfg;
	struct orca_mad_node *n = dev->mad;
	struct orca_mad_port *p = &n->port[1];
	unsigned int i;

	n->partition_cap = g->pkey_tbl_len < ORCA_MAD_PKEYS ?
			   g->pkey_tbl_len : ORCA_MAD_PKEYS;
	p->lid = g->lid;
	p->lmc = g->lmc;
	p->sm_lid = g->sm_lid;
	p->sm_sl = g->sm_sl;
	p->gid_prefix = g->subnet_prefix;
	p->cap_mask = port_cap_flags(dev);
	/* the GID table's GUIDs, port GUID + index: GUIDInfo shows them */
	p->guid_cap = g->gid_tbl_len < ORCA_MAD_GUIDS ? g->gid_tbl_len :
		      ORCA_MAD_GUIDS;
	p->mtu_cap = g->max_mtu;
	for (i = 0; i < ORCA_MAD_PKEYS; i++)
		p->pkeys[i] = i < g->n_pkey_table ? g->pkey_table[i] : 0;
	p->state = dev->port_state;
	if (p->state >= ORCA_PORT_INIT) {
		p->phys_state = ORCA_MAD_PHYS_LINKUP;
		p->link_width_active = g->active_width;
		/*
		 * FDR and faster are PortInfo's extended speeds, which this
		 * SMA does not report: the fastest of the basic ones
		 */
		p->link_speed_active = g->active_speed <= 4 ? g->active_speed :
				       4;
	} else if (p->phys_state == ORCA_MAD_PHYS_LINKUP) {
		p->phys_state = ORCA_MAD_PHYS_POLLING;
	}
	p->pkey_violations = dev->bad_pkey_cntr;
	p->qkey_violations = dev->qkey_viol_cntr;
}

/*
 * What the SMA's Sets changed (@changes, ORCA_MAD_CHG_*) into the device,
 * then the events: a PortState change (mirror, PORT_EVENT) and one
 * management event for the rest.  A Set of DOWN takes the link down;
 * the cable is still there, so it trains again at once, to INIT.
 */
static void sma_port_apply(struct orca_dev *dev, uint32_t changes)
{
	struct orca_cfg *g = &dev->cfg;
	struct orca_mad_port *p = &dev->mad->port[1];
	uint16_t chg = 0;
	unsigned int i;

	if (changes & ORCA_MAD_CHG_LID) {
		g->lid = p->lid;
		g->lmc = p->lmc;
		chg |= ORCA_PORT_CHG_LID;
	}
	if (changes & ORCA_MAD_CHG_SM) {
		g->sm_lid = p->sm_lid;
		g->sm_sl = p->sm_sl;
		chg |= ORCA_PORT_CHG_SM;
	}
	if (changes & ORCA_MAD_CHG_PKEY) {
		for (i = 0; i < dev->mad->partition_cap; i++)
			g->pkey_table[i] = p->pkeys[i];
		g->n_pkey_table = dev->mad->partition_cap;
		g->pkey = g->pkey_table[0];
		chg |= ORCA_PORT_CHG_PKEY;
	}
	if (changes & ORCA_MAD_CHG_GID) {
		g->subnet_prefix = p->gid_prefix;
		chg |= ORCA_PORT_CHG_GID;
	}
	if (changes & ORCA_MAD_CHG_REREG)
		chg |= ORCA_PORT_CHG_REREG;
	if ((changes & ORCA_MAD_CHG_PORT) && p->neighbor_mtu &&
	    p->neighbor_mtu <= g->max_mtu)
		g->active_mtu = p->neighbor_mtu;
	/* a PortInfo Set may clear the violation counters */
	dev->bad_pkey_cntr = p->pkey_violations;
	dev->qkey_viol_cntr = p->qkey_violations;
	if ((changes & ORCA_MAD_CHG_RETRAIN) && fabric_link_up(dev))
		orca_mad_link(dev->mad, 1, true);
	if (chg)
		orca_log("port 1: the SM changed%s%s%s%s%s (LID 0x%x, SM LID 0x%x)",
			 chg & ORCA_PORT_CHG_LID ? " LID" : "",
			 chg & ORCA_PORT_CHG_SM ? " SM" : "",
			 chg & ORCA_PORT_CHG_PKEY ? " P_Keys" : "",
			 chg & ORCA_PORT_CHG_GID ? " GID prefix" : "",
			 chg & ORCA_PORT_CHG_REREG ? " client-reregister" : "",
			 (unsigned int)g->lid, (unsigned int)g->sm_lid);
	/* the tables first: a PORT_ACTIVE reader finds the LID in place */
	port_mgmt_event(dev, chg);
	port_set_state(dev, p->state);
}

/* The ORCA_MAD_CHG_* a pinned host may not change. */
static uint32_t pin_deny(uint64_t pin)
{
	uint32_t deny = 0;

	if (pin & ORCA_PIN_PKEYS)
		deny |= ORCA_MAD_CHG_PKEY;
	if (pin & ORCA_PIN_LID)
		deny |= ORCA_MAD_CHG_LID;
	if (pin & ORCA_PIN_SM)
		deny |= ORCA_MAD_CHG_SM | ORCA_MAD_CHG_MKEY | ORCA_MAD_CHG_GID;
	return deny;
}

/* One MAD through the agents: the port loaded, the changes applied. */
static enum orca_mad_result fw_mad(struct orca_dev *dev,
				   struct orca_mad_in *mi, uint8_t *out,
				   bool sma)
{
	enum orca_mad_result r;
	uint32_t changes = 0;

	mi->now_ms = dp_now_ns() / 1000000;
	if (sma)
		sma_port_load(dev);
	r = orca_mad_process(dev->mad, mi, out, &changes);
	if (changes & ORCA_MAD_CHG_DENIED) {
		uint8_t d[7];

		/* the SM hears of it: attribute, modifier, method */
		memcpy(d, mi->mad + 16, 2);
		memcpy(d + 2, mi->mad + 20, 4);
		d[6] = mi->mad[3];
		orca_mad_trap(dev->mad, 1, ORCA_VTRAP_PIN_SET, d, sizeof(d));
		dev->pin.mad_refused++;
		orca_log("port 1: host policy (port_pin 0x%llx): a Set of attribute 0x%04x refused (%llu so far)",
			 (unsigned long long)dev->cfg.port_pin,
			 mad_get16(mi->mad + 16),
			 (unsigned long long)dev->pin.mad_refused);
		changes &= ~ORCA_MAD_CHG_DENIED;
	}
	if (sma && changes)
		sma_port_apply(dev, changes);
	return r;
}

enum orca_mad_result fw_mad_host(struct orca_dev *dev, uint8_t port,
				 const uint8_t *mad, bool ignore_mkey,
				 uint16_t slid, uint8_t *out)
{
	struct orca_mad_in mi = { .mad = mad, .port = port, .slid = slid };
	bool sma = dev->cfg.dev_caps & ORCA_DEV_CAP_MAD_QPS;
	uint64_t pin = dev->cfg.port_pin;
	uint8_t class = mad[1];

	if (class != ORCA_MGMT_PERF &&
	    (!sma || (class != ORCA_MGMT_SUBN_LID &&
		      class != ORCA_MGMT_SUBN_DR)))
		return ORCA_MAD_PASS;
	if (pin) {
		/* the host's own request, whatever its driver says */
		mi.flags = ORCA_MAD_IGNORE_MKEY;
		if (pin & ORCA_PIN_SM)
			mi.flags |= ORCA_MAD_HIDE_MKEY;
		mi.deny = pin_deny(pin);
	} else if (ignore_mkey) {
		mi.flags = ORCA_MAD_IGNORE_MKEY;
	}
	return fw_mad(dev, &mi, out, sma);
}

/*
 * A directed-route SMP at its end, this CA (IBA 14.2.2.2, the kernel's
 * smi_handle_dr_smp_recv for a CA): the outbound part ends here
 * (C14-9:3, the way back noted) or ended at the hop before (C14-9:4),
 * and its DrDLID is permissive; anything else is no SMP for this port.
 */
static bool dr_arrived(uint8_t *m)
{
	uint8_t hop_ptr = m[ORCA_SMP_HOP_PTR], hop_cnt = m[ORCA_SMP_HOP_CNT];

	if (hop_cnt > ORCA_SMP_MAX_HOPS || !hop_cnt ||
	    mad_get16(m + ORCA_SMP_DR_DLID) != ORCA_LID_PERMISSIVE)
		return false;
	if (hop_ptr == hop_cnt) {
		m[ORCA_SMP_RET_PATH + hop_ptr] = 1;
		m[ORCA_SMP_HOP_PTR] = ++hop_ptr;
	}
	return hop_ptr == hop_cnt + 1;
}

/* The agent's reply to @req, from QP0 on VL15, back where it came from. */
static void wire_reply(struct orca_dev *dev, const struct orca_pkt *req,
		       uint8_t *mad)
{
	struct orca_pkt *r = pkt_alloc(dev);

	if (!r) {
		dev->pin.smp_dropped++;	/* the SM asks again */
		return;
	}
	if (mad[1] == ORCA_MGMT_SUBN_DR) {
		/* C14-13:1: the sender steps back to the way it came in */
		mad[ORCA_SMP_HOP_PTR] = mad[ORCA_SMP_HOP_CNT];
		orca_mad_reply_pkt(r, req, mad, ORCA_LID_PERMISSIVE,
				   ORCA_LID_PERMISSIVE);
	} else {
		orca_mad_reply_pkt(r, req, mad, req->slid, dev->cfg.lid ?
				   dev->cfg.lid : ORCA_LID_PERMISSIVE);
	}
	dev->pin.smp_answered++;
	port_xmit(dev, r);
}

void fw_mad_traps(struct orca_dev *dev)
{
	uint8_t mad[ORCA_MAD_SIZE];
	uint16_t dlid, slid;
	struct orca_pkt *t;

	if (!dev->mad || !orca_mad_traps_pending(dev->mad) ||
	    !fabric_sm_managed(dev))
		return;
	/* the LID and SM LID as they are now */
	sma_port_load(dev);
	while (orca_mad_trap_next(dev->mad, dp_now_ns() / 1000000, mad,
				  &dlid, &slid)) {
		t = pkt_alloc(dev);
		if (!t)
			return;		/* it is due again in a second */
		orca_mad_trap_pkt(t, mad, dlid, slid);
		orca_log("port 1: trap %u to the SM at LID %u, TID 0x%016llx",
			 mad_get16(mad + ORCA_SMP_DATA + 4), dlid,
			 (unsigned long long)mad_get64(mad + 8));
		port_xmit(dev, t);
	}
}

int fw_mad_format_stats(const struct orca_dev *dev, char *buf, size_t len)
{
	static const struct orca_mad_traps none;
	const struct orca_mad_traps *t = dev->mad ? &dev->mad->traps : &none;

	return snprintf(buf, len,
			" traps_raised=%llu traps_sent=%llu traps_resent=%llu traps_repressed=%llu traps_unanswered=%llu traps_coalesced=%llu",
			(unsigned long long)t->raised,
			(unsigned long long)t->sent,
			(unsigned long long)t->resent,
			(unsigned long long)t->repressed,
			(unsigned long long)t->unanswered,
			(unsigned long long)t->coalesced);
}

/* The firmware took @p: it arrived, as port_rx() would count it. */
static bool fw_took(struct orca_dev *dev, const struct orca_pkt *p)
{
	dev->stats.rx_pkts++;
	dev->stats.rx_bytes += p->paylen;
	dev->stats.port_rcv_octets += orca_pkt_wire_len(p);
	return true;
}

bool fw_mad_wire(struct orca_dev *dev, const struct orca_pkt *p)
{
	uint64_t pin = dev->cfg.port_pin;
	struct orca_mad_in mi = { .port = 1, .slid = p->slid };
	uint8_t m[ORCA_MAD_SIZE], out[ORCA_MAD_SIZE];
	bool smp;

	if (!pin || p->vl != ORCA_VL15 || p->dqpn != 0 ||
	    !(dev->cfg.dev_caps & ORCA_DEV_CAP_MAD_QPS))
		return false;
	if (p->paylen != ORCA_MAD_SIZE)
		return false;		/* QP0's own rules drop it */
	memcpy(m, orca_pkt_payload(p), sizeof(m));
	mi.mad = m;
	smp = m[1] == ORCA_MGMT_SUBN_LID || m[1] == ORCA_MGMT_SUBN_DR;
	/* on the way back (D set): a response for an SM on this node */
	if (smp && !(m[1] == ORCA_MGMT_SUBN_DR && (m[ORCA_SMP_STATUS] & 0x80))) {
		if (m[1] == ORCA_MGMT_SUBN_DR && !dr_arrived(m)) {
			dev->pin.smp_dropped++;
			return fw_took(dev, p);
		}
		switch (fw_mad(dev, &mi, out, true)) {
		case ORCA_MAD_REPLY:
			wire_reply(dev, p, out);
			return fw_took(dev, p);
		case ORCA_MAD_DROP:		/* M_Key violation, ... */
			return fw_took(dev, p);
		case ORCA_MAD_PASS:		/* SMInfo, responses, traps */
			break;
		}
	}
	/* what is for an SM here: only if the host may be one */
	if (!(pin & ORCA_PIN_SM))
		return false;
	/*
	 * None here: a request is answered as ib_mad answers one that no
	 * agent takes (status 0x0c), so that an SM's SMInfo sweep does not
	 * wait out its timeouts; the rest is dropped
	 */
	if (smp && (m[3] == ORCA_METHOD_GET || m[3] == ORCA_METHOD_SET) &&
	    (m[1] == ORCA_MGMT_SUBN_LID || dr_arrived(m))) {
		memcpy(out, m, sizeof(out));
		out[3] = ORCA_METHOD_GET_RESP;
		mad_put16(out + ORCA_SMP_STATUS, ORCA_MAD_STATUS_UNSUP_ATTR |
			  (m[1] == ORCA_MGMT_SUBN_DR ? ORCA_SMP_STATUS_D : 0));
		wire_reply(dev, p, out);
		return fw_took(dev, p);
	}
	dev->pin.smp_dropped++;
	return fw_took(dev, p);
}
