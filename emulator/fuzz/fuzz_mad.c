// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libFuzzer harness: the SMA/PMA library (orca_mad.h) as a hostile
 * subnet manager drives it.  The input is
 *
 *   byte 0     bit 0: a switch with 8 ports, else a CA with one
 *   bytes 1-8  a seed for the owner's raw PMA counters
 *   then steps, each an op byte and a port byte (any value: the
 *   library must refuse ports the node lacks), and for a MAD 256 bytes:
 *     op bit 7  the link of the port goes up (bit 0) or down, no MAD;
 *     op bit 0  the MAD comes with the ignore-M_Key flag;
 *     op bit 6  versions forced to 1 and the class to SubnMgmt LID,
 *               DR or PerfMgmt by the MAD's byte 1, to reach deeper.
 *
 * Every reply must be a GetResp to its request (same TID, attribute,
 * modifier), with the D bit exactly for DR SMPs, a defined status and
 * its reserved bytes 0; what is passed up or dropped changes nothing
 * reported; a successful PortInfo Set's reply is what a Get then says;
 * and the node's port state stays in its ranges.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "orca_mad.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct orca_mad_node node;
static uint64_t counter_seed;
static unsigned int steps;
static uint64_t now_ms;

/* Counters that grow with every step and sometimes go back (a reset). */
static void read_counters(void *ctx, unsigned int port,
			  struct orca_pma_counters *out)
{
	unsigned int i;

	(void)ctx;
	FZ_ASSERT(port <= node.num_ports, "counters of port %u asked", port);
	for (i = 0; i < ORCA_PMA_NR; i++)
		out->c[i] = counter_seed * (i + 1) * (port + 1) +
			    (steps % 7) * 0x1000;
}

static bool status_defined(uint16_t st)
{
	st &= 0x7fff;
	return st == 0 || st == 0x0004 || st == 0x0008 || st == 0x000c ||
	       st == 0x001c;
}

static bool zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

static void check_reply(const uint8_t *in, const uint8_t *out)
{
	uint16_t st = mad_get16(out + 4);

	FZ_ASSERT(out[3] == ORCA_METHOD_GET_RESP, "method 0x%x", out[3]);
	FZ_ASSERT(out[0] == in[0] && out[1] == in[1] && out[2] == in[2],
		  "versions or class changed");
	FZ_ASSERT(!memcmp(out + 8, in + 8, 8), "TID changed");
	FZ_ASSERT(!memcmp(out + 16, in + 16, 8), "attribute/modifier changed");
	FZ_ASSERT(status_defined(st), "status 0x%x", st);
	FZ_ASSERT(!(st & ORCA_SMP_STATUS_D) == (in[1] != ORCA_MGMT_SUBN_DR),
		  "D bit 0x%x in class 0x%x", st, in[1]);
	if (in[1] == ORCA_MGMT_SUBN_DR) {
		FZ_ASSERT(out[6] == in[6] && out[7] == in[7], "hops changed");
		FZ_ASSERT(!memcmp(out + 128, in + 128, 128), "paths changed");
		FZ_ASSERT(zero(out + 36, 28), "DR reserved bytes");
	} else if (in[1] == ORCA_MGMT_SUBN_LID) {
		FZ_ASSERT(zero(out + 32, 32) && zero(out + 128, 128),
			  "LID-routed reserved bytes");
	} else {
		FZ_ASSERT(zero(out + 24, 40), "PMA reserved bytes");
	}
}

/* A PortInfo Set that held reads back as its reply said. */
static void check_port_info_set(const struct orca_mad_in *in,
				const uint8_t *out)
{
	struct orca_mad_in get = *in;
	uint8_t req[ORCA_MAD_SIZE], again[ORCA_MAD_SIZE];
	uint32_t changes;

	if (in->mad[1] == ORCA_MGMT_PERF || in->mad[3] != ORCA_METHOD_SET ||
	    mad_get16(in->mad + 16) != ORCA_SMP_PORT_INFO ||
	    (mad_get16(out + 4) & 0x7fff))
		return;
	memcpy(req, in->mad, sizeof(req));
	req[3] = ORCA_METHOD_GET;
	get.mad = req;
	/* the key as the Set's sender may see it: hidden if it was */
	get.flags = ORCA_MAD_IGNORE_MKEY | (in->flags & ORCA_MAD_HIDE_MKEY);
	FZ_ASSERT(orca_mad_process(&node, &get, again, &changes) ==
		  ORCA_MAD_REPLY, "no Get after a PortInfo Set");
	FZ_ASSERT(!changes, "a Get changed 0x%x", changes);
	again[64 + 51] |= out[64 + 51] & 0x80;	/* ClientReregister echo */
	FZ_ASSERT(!memcmp(out + 64, again + 64, 64),
		  "PortInfo Set reply differs from a Get after it");
}

static void check_node(void)
{
	unsigned int i, first = node.node_type == ORCA_MAD_NODE_SWITCH ? 0 : 1;

	for (i = first; i <= node.num_ports; i++) {
		const struct orca_mad_port *p = &node.port[i];

		FZ_ASSERT(p->state >= ORCA_MAD_PORT_DOWN &&
			  p->state <= ORCA_MAD_PORT_ACTIVE, "port %u state %u",
			  i, p->state);
		FZ_ASSERT(p->phys_state == ORCA_MAD_PHYS_POLLING ||
			  p->phys_state == ORCA_MAD_PHYS_DISABLED ||
			  p->phys_state == ORCA_MAD_PHYS_LINKUP,
			  "port %u phys %u", i, p->phys_state);
		FZ_ASSERT(p->state == ORCA_MAD_PORT_DOWN ||
			  p->phys_state == ORCA_MAD_PHYS_LINKUP,
			  "port %u up without a link", i);
		FZ_ASSERT(p->lid < ORCA_MAD_LID_MCAST_BASE &&
			  p->sm_lid < ORCA_MAD_LID_MCAST_BASE,
			  "port %u multicast LID", i);
		FZ_ASSERT(p->lmc <= 7 && p->mkey_protect <= 3 &&
			  p->sm_sl <= 15 && p->subnet_timeout <= 31,
			  "port %u field out of range", i);
		FZ_ASSERT(p->neighbor_mtu >= 1 && p->neighbor_mtu <= p->mtu_cap,
			  "port %u MTU %u", i, p->neighbor_mtu);
		FZ_ASSERT(p->op_vls >= 1 && p->op_vls <= p->vl_cap,
			  "port %u OpVLs %u", i, p->op_vls);
		FZ_ASSERT(!(p->link_width_enabled & ~p->link_width_supported) &&
			  !(p->link_speed_enabled & ~p->link_speed_supported),
			  "port %u enables what it lacks", i);
	}
	if (node.node_type == ORCA_MAD_NODE_SWITCH)
		FZ_ASSERT(node.port[0].state == ORCA_MAD_PORT_ACTIVE,
			  "switch port 0 not active");
}

static void one_mad(struct fz *z, uint8_t op, uint8_t port)
{
	static const uint8_t classes[] = { ORCA_MGMT_SUBN_LID,
					   ORCA_MGMT_SUBN_DR, ORCA_MGMT_PERF };
	uint8_t mad[ORCA_MAD_SIZE], out[ORCA_MAD_SIZE];
	struct orca_mad_in in = { .mad = mad, .port = port, .flags = op & 3 };
	struct orca_mad_port before = {};
	enum orca_mad_result r;
	uint32_t changes;

	/* a pinned host's MAD: what it may not change (a CA's, orca_mad.h) */
	if ((op & 4) && node.node_type == ORCA_MAD_NODE_CA)
		in.deny = ORCA_MAD_CHG_PKEY | ORCA_MAD_CHG_LID |
			  ORCA_MAD_CHG_SM | ORCA_MAD_CHG_MKEY | ORCA_MAD_CHG_GID;
	/* the M_Key lease runs on this clock: up to 255 s a step */
	now_ms += 1000ULL * fz_u8(z);
	in.now_ms = now_ms;
	fz_bytes(z, mad, sizeof(mad));
	if (op & 0x40) {
		mad[0] = 1;
		mad[1] = classes[mad[1] % 3];
		mad[2] = 1;
	}
	if (port <= ORCA_MAD_MAX_PORTS)
		before = node.port[port];
	r = orca_mad_process(&node, &in, out, &changes);
	FZ_ASSERT(r == ORCA_MAD_PASS || r == ORCA_MAD_REPLY ||
		  r == ORCA_MAD_DROP, "result %d", r);
	/* without a reply only the lease can have run out */
	if (r != ORCA_MAD_REPLY) {
		FZ_ASSERT(!(changes & ~ORCA_MAD_CHG_MKEY),
			  "changes 0x%x without a reply", changes);
		return;
	}
	/* a denied Set: 0x1c, and the port as it was but for the lease */
	if (changes & ORCA_MAD_CHG_DENIED) {
		FZ_ASSERT(in.deny && node.node_type == ORCA_MAD_NODE_CA,
			  "denied without a deny");
		FZ_ASSERT((mad_get16(out + 4) & 0x7fff) ==
			  ORCA_MAD_STATUS_INVALID, "denied, status 0x%x",
			  mad_get16(out + 4));
		before.mkey_protect = node.port[port].mkey_protect;
		before.lease_end_ms = node.port[port].lease_end_ms;
		FZ_ASSERT(!memcmp(&before, &node.port[port], sizeof(before)),
			  "a denied Set changed the port");
	}
	/* (an M_Key change past deny can only be the lease running out) */
	FZ_ASSERT(!(changes & in.deny & ~ORCA_MAD_CHG_MKEY),
		  "changes 0x%x past deny 0x%x", changes, in.deny);
	check_reply(mad, out);
	check_port_info_set(&in, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz z = { .p = data, .n = size };
	uint8_t op, port;

	bool sw = fz_u8(&z) & 1;

	FZ_ASSERT(!orca_mad_node_init(&node, sw ? ORCA_MAD_NODE_SWITCH :
				      ORCA_MAD_NODE_CA, sw ? 8 : 1), "init");
	node.port[1].vl_cap = 4;	/* VL arbitration reachable */
	node.pma_read = read_counters;
	counter_seed = fz_u64(&z);
	for (steps = 0; z.n; steps++) {
		op = fz_u8(&z);
		port = fz_u8(&z);
		if (op & 0x80)
			orca_mad_link(&node, port, op & 1);
		else
			one_mad(&z, op, port);
		check_node();
	}
	return 0;
}
