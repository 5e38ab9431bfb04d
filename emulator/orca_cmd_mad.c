// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: MAD_IFC, the firmware's management agents (the
 * library of orca_mad.h) behind the driver's process_mad(), and
 * MODIFY_PORT.
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
 * Without ORCA_DEV_CAP_MAD_QPS SMPs are handed back up (PASS).
 */
#include <stdlib.h>

#include "orca_cmd.h"
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
 * The agents' node as the port is after power-on: a CA of one port, its
 * identity from the configuration, the counters from zero (as the
 * device's statistics, which a new host starts over too).
 */
int mad_node_reset(struct orca_dev *dev)
{
	const struct orca_cfg *g = &dev->cfg;
	struct orca_mad_node *n;

	if (!dev->mad) {
		dev->mad = calloc(1, sizeof(*dev->mad));
		if (!dev->mad)
			return -1;
	}
	n = dev->mad;
	if (orca_mad_node_init(n, ORCA_MAD_NODE_CA, 1))
		return -1;
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

int cmd_mad_ifc(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_mad_ifc_in *in = c->in;
	struct orca_mad_ifc_out *o = c->out;
	struct orca_mad_in mi = { .mad = in->mad, .port = in->port };
	bool sma = dev->cfg.dev_caps & ORCA_DEV_CAP_MAD_QPS;
	uint32_t changes = 0;
	uint8_t class = in->mad[1];

	CHECK_RESERVED(c, in->reserved);
	if (in->flags & ~(ORCA_MAD_IFC_F_IGNORE_MKEY | ORCA_MAD_IFC_F_WC |
			  ORCA_MAD_IFC_F_GRH))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS,
			    "unknown MAD_IFC flags 0x%x", in->flags);
	if (!in->port || in->port > dev->cfg.phys_port_cnt)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "port %u not in 1..%llu", in->port,
			    (unsigned long long)dev->cfg.phys_port_cnt);
	if (in->flags & ORCA_MAD_IFC_F_IGNORE_MKEY)
		mi.flags |= ORCA_MAD_IGNORE_MKEY;
	o->result = ORCA_MAD_IFC_PASS;
	if (class != ORCA_MGMT_PERF &&
	    (!sma || (class != ORCA_MGMT_SUBN_LID &&
		      class != ORCA_MGMT_SUBN_DR)))
		return ORCA_STATUS_OK;
	if (sma)
		sma_port_load(dev);
	switch (orca_mad_process(dev->mad, &mi, o->mad, &changes)) {
	case ORCA_MAD_REPLY:
		o->result = ORCA_MAD_IFC_REPLY;
		break;
	case ORCA_MAD_DROP:
		o->result = ORCA_MAD_IFC_DROP;
		break;
	case ORCA_MAD_PASS:
		break;
	}
	if (sma && changes)
		sma_port_apply(dev, changes);
	return ORCA_STATUS_OK;
}

int cmd_modify_port(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_modify_port_in *in = c->in;
	uint32_t set = le32toh(in->set_cap), clr = le32toh(in->clr_cap);

	CHECK_RESERVED(c, in->reserved);
	CHECK_RESERVED(c, in->reserved2);
	if (!(dev->cfg.dev_caps & ORCA_DEV_CAP_MAD_QPS))
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_NONE,
			    "MODIFY_PORT without the MAD QPs capability");
	if (in->port != 1 || in->port > dev->cfg.phys_port_cnt)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "port %u", in->port);
	if (in->flags & ~ORCA_MODIFY_PORT_F_RESET_QKEY_CNTR)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS,
			    "unknown MODIFY_PORT flags 0x%x", in->flags);
	if ((set | clr) & ~ORCA_PORT_CAP_SW)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "capability bits 0x%x are the device's",
			    (unsigned int)((set | clr) & ~ORCA_PORT_CAP_SW));
	dev->port_cap_sw = (dev->port_cap_sw | set) & ~clr;
	if (in->flags & ORCA_MODIFY_PORT_F_RESET_QKEY_CNTR)
		dev->qkey_viol_cntr = 0;
	port_mirror_write(dev);
	return ORCA_STATUS_OK;
}
