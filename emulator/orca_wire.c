// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the port and its link.
 *
 * Packets are IBTA-shaped (LRH/GRH/BTH and the extension headers, kept
 * unpacked in host order) and leave the device only through
 * wire_xmit().  Today the link is a loopback: the port routes a packet
 * whose destination is this port (DLID in lid..lid + 2^lmc - 1, or with
 * a GRH a DGID in the GID table) onto its own receive queue, and drops
 * anything else the way a fabric without that destination would.  A
 * second port or a fabric plugs in here.
 */
#include <stdlib.h>

#include "orca_dp.h"

#define PKT_CACHE_MAX	64

struct orca_pkt *pkt_alloc(struct orca_dev *dev)
{
	struct orca_pkt *p = dev->pkt_cache;

	if (p) {
		dev->pkt_cache = p->next;
		dev->n_pkt_cache--;
	} else {
		p = malloc(sizeof(*p));
		if (!p)
			return NULL;
	}
	memset(p, 0, offsetof(struct orca_pkt, payload));
	return p;
}

void pkt_free(struct orca_dev *dev, struct orca_pkt *p)
{
	if (dev->n_pkt_cache >= PKT_CACHE_MAX) {
		free(p);
		return;
	}
	p->next = dev->pkt_cache;
	dev->pkt_cache = p;
	dev->n_pkt_cache++;
}

void pkt_cache_free(struct orca_dev *dev)
{
	struct orca_pkt *p;

	wire_flush(dev);
	while ((p = dev->pkt_cache)) {
		dev->pkt_cache = p->next;
		free(p);
	}
	dev->n_pkt_cache = 0;
}

uint16_t qp_pkey(struct orca_dev *dev, const struct orca_qp *qp)
{
	uint32_t idx = le16toh(qp->ctx.pkey_index);

	return idx < dev->cfg.n_pkey_table ? dev->cfg.pkey_table[idx] : 0;
}

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

	if (p->hdrs & PKT_GRH) {
		for (i = 0; i < g->gid_tbl_len; i++) {
			orca_gid_entry(g, i, gid);
			if (!memcmp(gid, p->dgid, 16))
				return true;
		}
		return false;
	}
	return p->dlid >= g->lid && p->dlid - g->lid < (1U << g->lmc);
}

void wire_xmit(struct orca_dev *dev, struct orca_pkt *p)
{
	dev->stats.pkts++;
	dev->stats.pkt_bytes += p->paylen;
	if (dev->port_state != ORCA_PORT_ACTIVE || !port_owns(dev, p)) {
		dev->stats.pkts_dropped++;
		pkt_free(dev, p);
		return;
	}
	p->next = NULL;
	if (dev->link_tail)
		dev->link_tail->next = p;
	else
		dev->link_head = p;
	dev->link_tail = p;
}

static bool is_response(uint8_t opcode)
{
	uint8_t op = opcode & 0x1f;

	return (opcode & 0xe0) == IB_RC &&
	       op >= IB_READ_RESP_FIRST && op <= IB_ATOMIC_ACK;
}

/* Receive side of the port: BTH destination, P_Key, then the QP. */
static void port_rx(struct orca_dev *dev, struct orca_pkt *p)
{
	struct orca_qp *qp = qp_get(dev, p->dqpn);

	dev->stats.rx_pkts++;
	dev->stats.rx_bytes += p->paylen;
	if (!qp) {
		dev->stats.pkts_dropped++;
		return;
	}
	if (!pkey_match(p->pkey, qp_pkey(dev, qp))) {
		dev->stats.pkts_dropped++;
		port_count_violation(dev, true);
		return;
	}
	if (is_response(p->opcode))
		comp_rx(dev, qp, p);
	else
		resp_rx(dev, qp, p);
}

unsigned int wire_drain(struct orca_dev *dev)
{
	unsigned int n = 0;
	struct orca_pkt *p;

	while ((p = dev->link_head)) {
		dev->link_head = p->next;
		if (!dev->link_head)
			dev->link_tail = NULL;
		port_rx(dev, p);
		pkt_free(dev, p);
		n++;
	}
	return n;
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
}
