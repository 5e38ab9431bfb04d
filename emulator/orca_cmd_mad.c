// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: MAD_IFC, the firmware's management agents (the
 * library of orca_mad.h) behind the driver's process_mad().
 *
 * The performance management agent answers from the port's own counters
 * (PortCounters, PortCountersExtended, ClassPortInfo).  The subnet
 * management agent is not yet the port's: the port's LID, state and
 * tables still come from the configuration or the fabric's built-in SM,
 * so SMPs are handed back up (PASS) until the SMA programs the port.
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
	/* no multicast yet: every packet is unicast */
	out->c[ORCA_PMA_UCAST_XMIT_PKTS] = s->port_xmit_pkts;
	out->c[ORCA_PMA_UCAST_RCV_PKTS] = s->rx_pkts;
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

int cmd_mad_ifc(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_mad_ifc_in *in = c->in;
	struct orca_mad_ifc_out *o = c->out;
	struct orca_mad_in mi = { .mad = in->mad, .port = in->port };
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
	/* only the PMA is the port's yet (see the top of this file) */
	if (class != ORCA_MGMT_PERF)
		return ORCA_STATUS_OK;
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
	return ORCA_STATUS_OK;
}
