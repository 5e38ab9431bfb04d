// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca management agents: the entry point.  What every MAD of the SMA's
 * and PMA's classes shares is decided here (is it ours at all, versions,
 * methods) and the reply's header is built here; the attributes are
 * orca_sma.c's and orca_pma.c's.  Also the node's defaults.
 */
#include <string.h>

#include "orca_mad.h"
#include "orca_pkt.h"

/* IBA 14.2.5.6 PortInfo defaults the SM expects of a fresh port. */
static void port_defaults(struct orca_mad_port *p)
{
	memset(p, 0, sizeof(*p));
	p->cap_mask = ORCA_CAP_SYS_IMAGE_GUID | ORCA_CAP_CLIENT_REREG;
	p->link_width_supported = 0x3;		/* 1x, 4x */
	p->link_width_enabled = 0x3;
	p->link_speed_supported = 0x7;		/* SDR, DDR, QDR */
	p->link_speed_enabled = 0x7;
	p->mtu_cap = 5;
	p->neighbor_mtu = 5;
	p->vl_cap = 1;
	p->op_vls = 1;
	p->guid_cap = 1;
	/* 4.096 us * 2^18: about a second, as qib's PMA says */
	p->resp_time = 18;
	p->link_down_default = ORCA_MAD_PHYS_POLLING;
	p->state = ORCA_MAD_PORT_DOWN;
	p->phys_state = ORCA_MAD_PHYS_POLLING;
	p->pkeys[0] = 0xffff;	/* ib_mad looks the default P_Key up at 0 */
}

int orca_mad_node_init(struct orca_mad_node *node, uint8_t node_type,
		       uint8_t num_ports)
{
	unsigned int i;

	if (num_ports < 1 || num_ports > ORCA_MAD_MAX_PORTS ||
	    (node_type != ORCA_MAD_NODE_CA && node_type != ORCA_MAD_NODE_SWITCH))
		return -1;
	memset(node, 0, sizeof(*node));
	node->node_type = node_type;
	node->num_ports = num_ports;
	node->partition_cap = ORCA_MAD_PKEYS;
	for (i = 0; i <= ORCA_MAD_MAX_PORTS; i++)
		port_defaults(&node->port[i]);
	if (node_type == ORCA_MAD_NODE_SWITCH) {
		/* base port 0 has no link: it is always up */
		node->port[0].state = ORCA_MAD_PORT_ACTIVE;
		node->port[0].phys_state = ORCA_MAD_PHYS_LINKUP;
		node->port[0].link_width_active = 0x2;
		node->port[0].link_speed_active = 0x1;
		node->sw.lft_cap = ORCA_MAD_LFT_CAP;
		node->sw.mft_cap = ORCA_MAD_MFT_CAP;
		memset(node->sw.lft, 0xff, sizeof(node->sw.lft));
	}
	return 0;
}

void orca_mad_port_cap(struct orca_mad_node *node, unsigned int port,
		       uint32_t set, uint32_t clear)
{
	struct orca_mad_port *p = orca_mad_port(node, port);

	if (p)
		p->cap_mask = (p->cap_mask | set) & ~clear;
}

void orca_mad_reply_pkt(struct orca_pkt *r, const struct orca_pkt *req,
			const uint8_t *mad, uint16_t dlid, uint16_t slid)
{
	bool qp0 = req->dqpn == 0;

	r->hdrs = PKT_DETH;
	r->dlid = dlid;
	r->slid = slid;
	r->vl = qp0 ? ORCA_VL15 : 0;
	r->sl = req->sl;
	r->opcode = IB_UD | IB_SEND_ONLY;
	r->pkey = qp0 ? 0xffff : req->pkey;
	r->dqpn = req->sqpn;
	r->sqpn = req->dqpn;
	r->qkey = qp0 ? 0 : ORCA_QP1_QKEY;
	r->psn = req->psn;
	r->paylen = ORCA_MAD_SIZE;
	memcpy(r->payload, mad, ORCA_MAD_SIZE);
}

void orca_mad_trap_pkt(struct orca_pkt *t, const uint8_t *mad, uint16_t dlid,
		       uint16_t slid)
{
	t->hdrs = PKT_DETH;
	t->dlid = dlid;
	t->slid = slid;
	t->vl = ORCA_VL15;
	t->opcode = IB_UD | IB_SEND_ONLY;
	t->pkey = 0xffff;
	t->paylen = ORCA_MAD_SIZE;
	if (t->payload != mad)
		memcpy(t->payload, mad, ORCA_MAD_SIZE);
}

/* The reply's header and, for a DR SMP, the route fields echoed. */
static void reply_header(const uint8_t *m, uint8_t *out)
{
	memset(out, 0, ORCA_MAD_SIZE);
	memcpy(out, m, ORCA_MAD_HDR);
	out[3] = ORCA_METHOD_GET_RESP;
	if (m[1] == ORCA_MGMT_SUBN_LID || m[1] == ORCA_MGMT_SUBN_DR)
		memcpy(out + 24, m + 24, 8);		/* M_Key */
	if (m[1] == ORCA_MGMT_SUBN_DR) {
		memcpy(out + 32, m + 32, 4);		/* DrSLID, DrDLID */
		memcpy(out + 128, m + 128, 128);	/* the two paths */
	}
}

enum orca_mad_result orca_mad_process(struct orca_mad_node *node,
				      const struct orca_mad_in *in,
				      uint8_t out[ORCA_MAD_SIZE],
				      uint32_t *changes)
{
	const uint8_t *m = in->mad;
	uint8_t class = m[1], method = m[3];
	bool smp = class == ORCA_MGMT_SUBN_LID || class == ORCA_MGMT_SUBN_DR;
	enum orca_mad_result r = ORCA_MAD_REPLY;
	uint16_t status = 0;

	*changes = 0;
	if (!smp && class != ORCA_MGMT_PERF)
		return ORCA_MAD_PASS;
	/* responses and traps are for whoever sent the request / the SM */
	if ((method & ORCA_METHOD_RESP) || method == ORCA_METHOD_TRAP)
		return ORCA_MAD_PASS;
	/* the SM on this node answers SMInfo, never the SMA (mthca, mlx4) */
	if (smp && mad_get16(m + 16) == ORCA_SMP_SM_INFO)
		return ORCA_MAD_PASS;
	if (!orca_mad_port(node, in->port))
		return ORCA_MAD_DROP;

	reply_header(m, out);
	if (m[0] != 1 || m[2] != 1) {
		if (method == ORCA_METHOD_TRAP_REPRESS)
			return ORCA_MAD_DROP;
		status = ORCA_MAD_STATUS_BAD_VERSION;
	} else if (smp) {
		r = orca_sma_process(node, in, out, &status, changes);
	} else {
		r = orca_pma_process(node, in, out, &status, changes);
	}
	if (r != ORCA_MAD_REPLY)
		return r;
	if (class == ORCA_MGMT_SUBN_DR)
		status |= ORCA_SMP_STATUS_D;
	mad_put16(out + 4, status);
	return ORCA_MAD_REPLY;
}
