// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: port 1's attributes and state, as QUERY_PORT and
 * the port mirror show them, and the events that announce a change.
 */
#include <string.h>

#include "orca_core.h"
#include "orca_mad.h"

/* PortInfo:CapabilityMask: the device's bits, and software's. */
uint32_t port_cap_flags(const struct orca_dev *dev)
{
	return (dev->cfg.port_cap_flags & ~ORCA_PORT_CAP_SW) | dev->port_cap_sw;
}

/* What QUERY_PORT and the port mirror say (every port alike). */
void port_attr_fill(struct orca_dev *dev, struct orca_port_attr *o)
{
	const struct orca_cfg *g = &dev->cfg;
	/* the physical link is up in every state past DOWN (IBA 7.2) */
	bool up = dev->port_state >= ORCA_PORT_INIT;

	memset(o, 0, sizeof(*o));
	o->subnet_prefix = htole64(g->subnet_prefix);
	o->port_guid = htole64(g->port_guid);
	o->port_cap_flags = htole32(port_cap_flags(dev));
	o->max_msg_sz = htole32(g->max_msg_sz);
	o->lid = htole16(g->lid);
	o->sm_lid = htole16(g->sm_lid);
	o->gid_tbl_len = htole16(LIE(dev, gid_tbl_len));
	o->pkey_tbl_len = htole16(LIE(dev, pkey_tbl_len));
	o->pkey = htole16(g->pkey_table[0]);
	o->state = dev->port_state;
	o->phys_state = up ? 5 : 2;	/* LinkUp : Polling */
	o->max_mtu = g->max_mtu;
	o->active_mtu = g->active_mtu;
	o->lmc = g->lmc;
	o->sm_sl = g->sm_sl;
	o->max_vl_num = g->max_vl_num;
	o->active_width = g->active_width;
	o->active_speed = g->active_speed;
	o->link_layer = ORCA_LINK_LAYER_IB;
	o->bad_pkey_cntr = htole32(dev->bad_pkey_cntr);
	o->qkey_viol_cntr = htole32(dev->qkey_viol_cntr);
}

/*
 * Publish what QUERY_PORT would return in every port's mirror entry, as
 * mirror_write() does for a QP.  Called on every change, before the
 * event that announces it.
 */
void port_mirror_write(struct orca_dev *dev)
{
	struct orca_port_mirror *m;
	uint32_t seq = dev->port_mirror_seq;
	uint64_t i;

	if (!dev->armed || !dev->port_mirror_base)
		return;
	for (i = 0; i < dev->cfg.phys_port_cnt; i++) {
		m = dma_ptr(dev, dev->port_mirror_base + i * sizeof(*m),
			    sizeof(*m));
		if (!m)
			return;	/* cannot happen: INIT checked the range */
		__atomic_store_n(&m->seq, htole32(seq + 1), __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		m->port = i + 1;
		memset(m->reserved, 0, sizeof(m->reserved));
		port_attr_fill(dev, &m->attr);
		__atomic_store_n(&m->seq, htole32(seq + 2), __ATOMIC_RELEASE);
		dev->stats.dma_writes++;
	}
	dev->port_mirror_seq = seq + 2;
	dev->stats.port_mirror_writes++;
}

static const char *const port_state_names[] = {
	[ORCA_PORT_DOWN] = "DOWN", [ORCA_PORT_INIT] = "INIT",
	[ORCA_PORT_ARMED] = "ARMED", [ORCA_PORT_ACTIVE] = "ACTIVE",
};

static void port_event(struct orca_dev *dev, uint8_t event, uint16_t changes)
{
	struct orca_eqe eqe;

	memset(&eqe, 0, sizeof(eqe));
	eqe.type = ORCA_EQE_PORT_EVENT;
	eqe.port.port = 1;
	eqe.port.event = event;
	eqe.port.changes = htole16(changes);
	post_async(dev, &eqe);
	flush_irq(dev);
}

/*
 * A PortState transition.  Entering ACTIVE and leaving it are events
 * (ib_core's PORT_ACTIVE and PORT_ERR); DOWN, INIT and ARMED among
 * themselves are seen in the mirror only.
 */
void port_set_state(struct orca_dev *dev, uint8_t state)
{
	uint8_t old = dev->port_state;

	if (old == state || state < ORCA_PORT_DOWN || state > ORCA_PORT_ACTIVE)
		return;	/* no transition, no event */
	dev->port_state = state;
	port_mirror_write(dev);
	orca_log("port 1 %s", port_state_names[state]);
	if (state == ORCA_PORT_ACTIVE)
		port_event(dev, ORCA_PORT_EV_ACTIVE, 0);
	else if (old == ORCA_PORT_ACTIVE)
		port_event(dev, ORCA_PORT_EV_DOWN, 0);
}

/* The SM changed what @changes (ORCA_PORT_CHG_*) says; mirror first. */
void port_mgmt_event(struct orca_dev *dev, uint16_t changes)
{
	port_mirror_write(dev);
	if (changes)
		port_event(dev, ORCA_PORT_EV_MGMT, changes);
}

/*
 * Trap 257 or 258 (IBA 14.2.5.1) for @p: its LIDs, the key it had, its
 * SL and QPs (the source QP if a DETH carries it), its GIDs if it has a
 * GRH.  The firmware sends it (fw_mad_traps()).
 */
static void key_trap(struct orca_dev *dev, bool pkey, const struct orca_pkt *p)
{
	uint8_t d[ORCA_NOTICE_DETAILS] = { 0 };

	if (!dev->mad)
		return;
	mad_put16(d + 2, p->slid);
	mad_put16(d + 4, p->dlid);
	mad_put32(d + 6, pkey ? p->pkey : p->qkey);
	mad_put32(d + 10, (uint32_t)p->sl << 28 |
		  (p->hdrs & PKT_DETH ? p->sqpn : 0));
	mad_put32(d + 14, p->dqpn);
	if (p->hdrs & PKT_GRH) {
		memcpy(d + 18, p->sgid, 16);
		memcpy(d + 34, p->dgid, 16);
	}
	orca_mad_trap(dev->mad, 1, pkey ? ORCA_TRAP_BAD_PKEY :
		      ORCA_TRAP_BAD_QKEY, d, 50);
}

/*
 * A packet dropped for its P_Key (@pkey) or Q_Key: PortInfo's violation
 * counter, if the device has it, stopping at 0xffff, and the trap.
 */
void port_count_violation(struct orca_dev *dev, bool pkey,
			  const struct orca_pkt *p)
{
	uint64_t cap = pkey ? ORCA_DEV_CAP_BAD_PKEY_CNTR :
			      ORCA_DEV_CAP_BAD_QKEY_CNTR;
	uint16_t *cntr = pkey ? &dev->bad_pkey_cntr : &dev->qkey_viol_cntr;

	key_trap(dev, pkey, p);
	if (!(dev->cfg.dev_caps & cap) || *cntr == 0xffff)
		return;
	(*cntr)++;
	port_mirror_write(dev);
}
