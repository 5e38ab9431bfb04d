// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca management agents: the performance management agent (IBA 16.1):
 * ClassPortInfo, PortCounters and PortCountersExtended.
 *
 * The owner counts raw 64-bit totals and never resets them; a Set that
 * "clears" a counter moves the port's base to the current total instead,
 * so the value reported is total - base, in 4-byte words for the data
 * counters, saturated at the field's width.  The data and packet
 * counters are one base for both attributes: clearing XmitData through
 * either clears it in both.
 */
#include <string.h>

#include "orca_mad.h"

/* Where a counter sits in PortCounters (data offset, width in bits). */
struct pc_field {
	uint8_t counter;	/* enum orca_pma_counter */
	uint8_t off;
	uint8_t bits;		/* 4 (high nibble if shift), 8, 16, 32, 64 */
	uint8_t nibble_shift;
};

/* PortCounters, in CounterSelect bit order (IBA table 247) */
static const struct pc_field pc_fields[16] = {
	{ ORCA_PMA_SYMBOL_ERRORS, 4, 16, 0 },
	{ ORCA_PMA_LINK_ERROR_RECOVERY, 6, 8, 0 },
	{ ORCA_PMA_LINK_DOWNED, 7, 8, 0 },
	{ ORCA_PMA_RCV_ERRORS, 8, 16, 0 },
	{ ORCA_PMA_RCV_REMPHYS_ERRORS, 10, 16, 0 },
	{ ORCA_PMA_RCV_SWITCH_RELAY_ERRORS, 12, 16, 0 },
	{ ORCA_PMA_XMIT_DISCARDS, 14, 16, 0 },
	{ ORCA_PMA_XMIT_CONSTRAINT_ERRORS, 16, 8, 0 },
	{ ORCA_PMA_RCV_CONSTRAINT_ERRORS, 17, 8, 0 },
	{ ORCA_PMA_LOCAL_LINK_INTEGRITY_ERRORS, 19, 4, 4 },
	{ ORCA_PMA_EXCESSIVE_BUFFER_OVERRUNS, 19, 4, 0 },
	{ ORCA_PMA_VL15_DROPPED, 22, 16, 0 },
	{ ORCA_PMA_XMIT_BYTES, 24, 32, 0 },
	{ ORCA_PMA_RCV_BYTES, 28, 32, 0 },
	{ ORCA_PMA_XMIT_PKTS, 32, 32, 0 },
	{ ORCA_PMA_RCV_PKTS, 36, 32, 0 },
};

/* PortCountersExtended, in CounterSelect bit order */
static const struct pc_field pcx_fields[8] = {
	{ ORCA_PMA_XMIT_BYTES, 8, 64, 0 },
	{ ORCA_PMA_RCV_BYTES, 16, 64, 0 },
	{ ORCA_PMA_XMIT_PKTS, 24, 64, 0 },
	{ ORCA_PMA_RCV_PKTS, 32, 64, 0 },
	{ ORCA_PMA_UCAST_XMIT_PKTS, 40, 64, 0 },
	{ ORCA_PMA_UCAST_RCV_PKTS, 48, 64, 0 },
	{ ORCA_PMA_MCAST_XMIT_PKTS, 56, 64, 0 },
	{ ORCA_PMA_MCAST_RCV_PKTS, 64, 64, 0 },
};

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* The counters of @port since its last clear; 0 if the owner has none. */
static void port_counts(struct orca_mad_node *node, unsigned int port,
			struct orca_pma_counters *c)
{
	const struct orca_pma_counters *base = &node->port[port].pma_base;
	unsigned int i;

	memset(c, 0, sizeof(*c));
	if (node->pma_read)
		node->pma_read(node->pma_ctx, port, c);
	/* an owner that reset its totals restarts from 0, not from 2^64 */
	for (i = 0; i < ORCA_PMA_NR; i++)
		c->c[i] = c->c[i] >= base->c[i] ? c->c[i] - base->c[i] : c->c[i];
}

/* The ports PortSelect names: [*first, *last], or false if none. */
static bool port_range(const struct orca_mad_node *node, uint8_t sel,
		       unsigned int *first, unsigned int *last)
{
	unsigned int lo = node->node_type == ORCA_MAD_NODE_SWITCH ? 0 : 1;

	if (sel == ORCA_PMA_ALL_PORTS) {
		/* a switch's all-ports sums its external ports */
		*first = 1;
		*last = node->num_ports;
		return true;
	}
	if (sel < lo || sel > node->num_ports)
		return false;
	*first = *last = sel;
	return true;
}

static void sum_counts(struct orca_mad_node *node, unsigned int first,
		       unsigned int last, struct orca_pma_counters *sum)
{
	struct orca_pma_counters c;
	unsigned int p, i;

	memset(sum, 0, sizeof(*sum));
	for (p = first; p <= last; p++) {
		port_counts(node, p, &c);
		for (i = 0; i < ORCA_PMA_NR; i++)
			sum->c[i] = sat_add(sum->c[i], c.c[i]);
	}
}

/* Write every field of @f from @c into @data, saturated at its width. */
static void put_fields(uint8_t *data, const struct pc_field *f,
		       unsigned int n, const struct orca_pma_counters *c)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint64_t v = c->c[f[i].counter];
		uint64_t max = f[i].bits == 64 ? UINT64_MAX :
			       (1ull << f[i].bits) - 1;
		uint8_t *p = data + f[i].off;

		/* IBA counts data in words of 4 bytes, one per lane */
		if (f[i].counter == ORCA_PMA_XMIT_BYTES ||
		    f[i].counter == ORCA_PMA_RCV_BYTES)
			v /= 4;
		if (v > max)
			v = max;
		switch (f[i].bits) {
		case 4:
			*p |= v << f[i].nibble_shift;
			break;
		case 8:
			*p = v;
			break;
		case 16:
			mad_put16(p, v);
			break;
		case 32:
			mad_put32(p, v);
			break;
		default:
			mad_put64(p, v);
		}
	}
}

/* Clear the counters @sel selects from @f on ports [first, last]. */
static void clear_fields(struct orca_mad_node *node, unsigned int first,
			 unsigned int last, const struct pc_field *f,
			 unsigned int n, uint16_t sel)
{
	struct orca_pma_counters raw;
	unsigned int p, i;

	for (p = first; p <= last; p++) {
		memset(&raw, 0, sizeof(raw));
		if (node->pma_read)
			node->pma_read(node->pma_ctx, p, &raw);
		for (i = 0; i < n; i++)
			if (sel & (1u << i))
				node->port[p].pma_base.c[f[i].counter] =
					raw.c[f[i].counter];
	}
}

/* PortCounters (@ext false) or PortCountersExtended Get/Set. */
static uint16_t counters(struct orca_mad_node *node, const uint8_t *req,
			 uint8_t *data, bool set, bool ext, uint32_t *changes)
{
	const struct pc_field *f = ext ? pcx_fields : pc_fields;
	unsigned int n = ext ? 8 : 16, first, last;
	struct orca_pma_counters c;
	uint16_t sel = mad_get16(req + 2);

	data[1] = req[1];
	if (!port_range(node, req[1], &first, &last))
		return ORCA_MAD_STATUS_INVALID;
	if (set && sel) {
		clear_fields(node, first, last, f, n, sel);
		*changes |= ORCA_MAD_CHG_COUNTERS;
	}
	sum_counts(node, first, last, &c);
	put_fields(data, f, n, &c);
	return 0;
}

static void class_port_info(uint8_t *data)
{
	data[0] = 1;	/* BaseVersion */
	data[1] = 1;	/* ClassVersion */
	mad_put16(data + 2, ORCA_PMA_CAP_ALL_PORT_SELECT |
		  ORCA_PMA_CAP_EXT_WIDTH);
	/* CapabilityMask2 0, RespTimeValue as qib's (about a second) */
	mad_put32(data + 4, 18);
}

enum orca_mad_result orca_pma_process(struct orca_mad_node *node,
				      const struct orca_mad_in *in,
				      uint8_t *out, uint16_t *status,
				      uint32_t *changes)
{
	const uint8_t *req = in->mad + ORCA_PMA_DATA;
	uint8_t *data = out + ORCA_PMA_DATA;
	uint8_t method = in->mad[3];
	bool set = method == ORCA_METHOD_SET;

	if (method == ORCA_METHOD_TRAP_REPRESS)
		return ORCA_MAD_DROP;	/* no PMA traps, nothing to repress */
	if (method != ORCA_METHOD_GET && !set) {
		*status = ORCA_MAD_STATUS_UNSUP_METHOD;
		return ORCA_MAD_REPLY;
	}
	switch (mad_get16(in->mad + 16)) {
	case ORCA_PMA_CLASS_PORT_INFO:
		if (set)
			*status = ORCA_MAD_STATUS_UNSUP_ATTR;
		else
			class_port_info(data);
		break;
	case ORCA_PMA_PORT_COUNTERS:
		*status = counters(node, req, data, set, false, changes);
		break;
	case ORCA_PMA_PORT_COUNTERS_EXT:
		*status = counters(node, req, data, set, true, changes);
		break;
	default:
		*status = ORCA_MAD_STATUS_UNSUP_ATTR;
	}
	return ORCA_MAD_REPLY;
}
