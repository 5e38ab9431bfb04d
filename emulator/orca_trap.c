// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca management agents: the SMA's traps (IBA 14.2.5.1 Notice, 14.3.1
 * Trap and TrapRepress).  A node raises a trap; it goes to the SM LID of
 * the port it is about, LID-routed on QP0 (SubnTrap), and is sent again
 * until the SM answers it with a TrapRepress of the same TID or
 * ORCA_MAD_TRAP_TRIES sends went unanswered.  One trap of a number per
 * port is outstanding at a time: what happens meanwhile is counted, not
 * sent (a port that drops a flood of packets sends one trap, not a
 * flood of traps; the counters say how many).
 *
 * The owner sends what orca_mad_trap_next() returns, when it returns it:
 * this file has no clock and no wire.
 */
#include <string.h>

#include "orca_mad.h"

/* The port whose subnet fields (LID, SM LID, M_Key) a trap of @port has. */
static const struct orca_mad_port *trap_mgmt(const struct orca_mad_node *n,
					     unsigned int port)
{
	return &n->port[n->node_type == ORCA_MAD_NODE_SWITCH ? 0 : port];
}

static uint8_t notice_type(uint16_t num)
{
	/* IBA 14.2.5.1 Table 128: 128-131 urgent, 256-259 security */
	return num >= ORCA_TRAP_BAD_MKEY ? ORCA_NOTICE_SECURITY :
					   ORCA_NOTICE_URGENT;
}

/* Notice bytes 0-5: generic (type, producer, number) or orca's own. */
static void notice_head(const struct orca_mad_node *node, uint16_t num,
			uint8_t *d)
{
	if (num & ORCA_TRAP_VENDOR) {
		d[0] = ORCA_NOTICE_SECURITY;	/* IsGeneric 0 */
		d[1] = node->vendor_id >> 16;
		d[2] = node->vendor_id >> 8;
		d[3] = node->vendor_id;
		mad_put16(d + 4, num & ~ORCA_TRAP_VENDOR);	/* DeviceID */
		return;
	}
	d[0] = 0x80 | notice_type(num);
	d[3] = node->node_type;			/* 1 CA, 2 switch */
	mad_put16(d + 4, num);
}

bool orca_mad_trap(struct orca_mad_node *node, unsigned int port,
		   uint16_t num, const uint8_t *details, size_t len)
{
	struct orca_mad_traps *t = &node->traps;
	const struct orca_mad_port *m;
	struct orca_mad_trap *slot = NULL;
	uint8_t *d;
	unsigned int i;

	if (!orca_mad_port(node, port) || len > ORCA_NOTICE_DETAILS)
		return false;
	m = trap_mgmt(node, port);
	/* no SM to tell, or no LID to tell it from */
	if (!m->sm_lid || !m->lid) {
		t->no_sm++;
		return false;
	}
	for (i = 0; i < ORCA_MAD_TRAPS; i++) {
		if (t->slot[i].tid && t->slot[i].num == num &&
		    t->slot[i].port == port) {
			t->coalesced++;
			return false;
		}
		if (!t->slot[i].tid && !slot)
			slot = &t->slot[i];
	}
	if (!slot) {
		t->coalesced++;
		return false;
	}
	memset(slot, 0, sizeof(*slot));
	/* the node's GUID in the high half: TIDs of two nodes never meet */
	slot->tid = (node->node_guid << 32) | ++t->next_tid;
	slot->num = num;
	slot->port = port;
	slot->due_ms = 0;			/* now */
	/* 13.4.2 common header: SubnMgmt LID-routed, Trap(), Notice */
	slot->mad[0] = 1;
	slot->mad[1] = ORCA_MGMT_SUBN_LID;
	slot->mad[2] = 1;
	slot->mad[3] = ORCA_METHOD_TRAP;
	mad_put64(slot->mad + 8, slot->tid);
	mad_put16(slot->mad + 16, ORCA_SMP_NOTICE);
	mad_put64(slot->mad + 24, m->mkey);	/* 14.2.4: the port's */
	/* the Notice: generic or orca's own, its number, the issuer */
	d = slot->mad + ORCA_SMP_DATA;
	notice_head(node, num, d);
	mad_put16(d + 6, m->lid);
	/* NoticeToggle flips and NoticeCount counts each new notice */
	t->toggle = !t->toggle;
	t->count = (t->count + 1) & 0x7fff;
	mad_put16(d + 8, (t->toggle ? 0x8000 : 0) | t->count);
	if (len)
		memcpy(d + 10, details, len);
	t->raised++;
	return true;
}

/*
 * IBA 14.3.1 leaves the resend interval to the node; SubnetTimeOut is
 * how long the SM says it may take to answer (4.096 us * 2^n), so wait
 * that, and at least a second.
 */
static uint64_t resend_ms(const struct orca_mad_port *m)
{
	uint64_t us = 4ULL << (m->subnet_timeout & 0x1f);

	return us / 1000 > 1000 ? us / 1000 : 1000;
}

size_t orca_mad_trap_next(struct orca_mad_node *node, uint64_t now_ms,
			  uint8_t out[ORCA_MAD_SIZE], uint16_t *dlid,
			  uint16_t *slid)
{
	struct orca_mad_traps *t = &node->traps;
	const struct orca_mad_port *m;
	unsigned int i;

	for (i = 0; i < ORCA_MAD_TRAPS; i++) {
		struct orca_mad_trap *s = &t->slot[i];

		if (!s->tid || s->due_ms > now_ms)
			continue;
		m = trap_mgmt(node, s->port);
		if (s->tries == ORCA_MAD_TRAP_TRIES || !m->sm_lid ||
		    !m->lid) {
			/* never answered, or the subnet forgot the port */
			t->unanswered++;
			s->tid = 0;
			continue;
		}
		if (s->tries++)
			t->resent++;
		else
			t->sent++;
		s->due_ms = now_ms + resend_ms(m);
		memcpy(out, s->mad, ORCA_MAD_SIZE);
		/* the SM may have moved since it was raised */
		*dlid = m->sm_lid;
		*slid = m->lid;
		return ORCA_MAD_SIZE;
	}
	return 0;
}

bool orca_mad_traps_pending(const struct orca_mad_node *node)
{
	unsigned int i;

	for (i = 0; i < ORCA_MAD_TRAPS; i++)
		if (node->traps.slot[i].tid)
			return true;
	return false;
}

bool orca_mad_trap_repress(struct orca_mad_node *node, uint64_t tid)
{
	struct orca_mad_traps *t = &node->traps;
	unsigned int i;

	for (i = 0; i < ORCA_MAD_TRAPS; i++) {
		if (tid && t->slot[i].tid == tid) {
			t->slot[i].tid = 0;
			t->repressed++;
			return true;
		}
	}
	return false;
}
