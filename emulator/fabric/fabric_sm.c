// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca-fabric --sm builtin (the default): the v1 fabric.  A subnet
 * manager at LID 1 gives each port GUID a LID range for its life
 * (LID_ASSIGN in answer to HELLO and PORT_UP) and protects each port's
 * SMA with an M_Key of its own (--mkey-protect, level 1 by default: no
 * other host's SMP Set reaches the port), and the "switch" routes a
 * PKT to the port whose LID range holds the LRH's DLID.  There are no
 * switch ports, VLs or management packets here: that is switch mode
 * (fabric_switch.c).
 */
#include <endian.h>
#include <string.h>

#include "fabric.h"
#include "orca_log.h"

/* The entry of @guid, made (with fresh LIDs) if the SM never saw it. */
static struct fab_lid *sm_lookup(struct fabric *f, uint64_t guid,
				 uint8_t lmc)
{
	struct fab_lid *l;
	uint32_t n = 1U << lmc, lid;
	unsigned int i;

	for (i = 0; i < f->n_lids; i++)
		if (f->lids[i].port_guid == guid)
			return &f->lids[i];
	/* LMC: the base LID is a multiple of 2^lmc */
	lid = (f->next_lid + n - 1) & ~(n - 1);
	if (f->n_lids == FAB_MAX_LIDS || lid + n - 1 > ORCA_FAB_MAX_LID)
		return NULL;
	l = &f->lids[f->n_lids++];
	memset(l, 0, sizeof(*l));
	l->port_guid = guid;
	l->lid = lid;
	l->lmc = lmc;
	l->conn = -1;
	f->next_lid = lid + n;
	orca_log("SM: port GUID 0x%016llx gets LID 0x%x (LMC %u)",
		 (unsigned long long)guid, lid, lmc);
	return l;
}

/*
 * The M_Key of port GUID @guid: the seed and the GUID through splitmix64,
 * so that each port has its own and none can be guessed from another's.
 */
static uint64_t port_mkey(const struct fabric *f, uint64_t guid)
{
	uint64_t x = f->mkey_seed ^ guid;

	if (!f->mkey_seed)
		return 0;
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x ? x : 1;
}

static void send_lid(struct fabric *f, struct fab_conn *c,
		     const struct fab_lid *l)
{
	struct orca_fab_lid m;
	uint8_t *slot = msgq_tail(&c->q);

	memset(&m, 0, sizeof(m));
	m.h.type = ORCA_FAB_LID_ASSIGN;
	m.h.version = ORCA_FAB_VERSION;
	m.lid = htole16(l->lid);
	m.sm_lid = htole16(ORCA_FAB_SM_LID);
	m.lmc = l->lmc;
	m.mkey = htole64(port_mkey(f, l->port_guid));
	m.mkey_protect = m.mkey ? f->mkey_protect : 0;
	if (!slot) {
		/* a port that reads nothing gets no LID either */
		fab_complain(f, "queue full, LID_ASSIGN dropped", c - f->conns);
		return;
	}
	memcpy(slot, &m, sizeof(m));
	msgq_push(&c->q, sizeof(m));
}

void fab_sm_close(struct fabric *f, struct fab_conn *c, const char *why)
{
	struct fab_lid *l = &f->lids[c->lid];

	l->conn = -1;
	l->up = false;
	orca_log("port GUID 0x%016llx (LID 0x%x) left: %s",
		 (unsigned long long)l->port_guid, l->lid, why);
}

void fab_sm_hello(struct fabric *f, struct fab_conn *c,
		  const struct orca_fab_hello *h)
{
	struct fab_lid *l;

	l = sm_lookup(f, le64toh(h->port_guid), h->lmc);
	if (!l) {
		fab_complain(f, "no LIDs left", c - f->conns);
		return;
	}
	if (l->lmc != h->lmc) {
		fab_complain(f, "HELLO with another LMC than before",
			     c - f->conns);
		return;
	}
	if (l->conn >= 0) {
		/*
		 * Two emulators with one port GUID: the first keeps it (a
		 * port that went away has closed its socket already).
		 */
		fab_conn_close(f, c,
			       "HELLO with the port GUID of a connected port");
		return;
	}
	l->node_guid = le64toh(h->node_guid);
	l->conn = c - f->conns;
	l->up = true;
	l->connects++;
	c->lid = l - f->lids;
	orca_log("port GUID 0x%016llx (node 0x%016llx) is LID 0x%x",
		 (unsigned long long)l->port_guid,
		 (unsigned long long)l->node_guid, l->lid);
	send_lid(f, c, l);
}

void fab_sm_link(struct fabric *f, struct fab_conn *c, bool up)
{
	struct fab_lid *l = &f->lids[c->lid];

	if (!up)
		fab_direct_drop(f, c, "port down");
	l->up = up;
	orca_log("port GUID 0x%016llx (LID 0x%x) link %s",
		 (unsigned long long)l->port_guid, l->lid,
		 l->up ? "up" : "down");
	if (l->up)
		send_lid(f, c, l);
}

/* The port whose LID range holds @dlid, if it is up. */
static struct fab_lid *route(struct fabric *f, uint16_t dlid)
{
	unsigned int i;

	for (i = 0; i < f->n_lids; i++) {
		struct fab_lid *l = &f->lids[i];

		if (dlid >= l->lid && dlid - l->lid < (1 << l->lmc))
			return l->up && l->conn >= 0 ? l : NULL;
	}
	return NULL;
}

void fab_sm_forward(struct fabric *f, struct fab_conn *c, const uint8_t *m,
		    size_t len)
{
	const uint8_t *lrh = m + sizeof(struct orca_fab_hdr);
	struct fab_lid *src = &f->lids[c->lid], *dst;
	struct fab_conn *dc;
	uint8_t *slot;
	bool in_ring;

	if (!src->up || len < sizeof(struct orca_fab_hdr) + ORCA_PKT_LRH_LEN) {
		src->dropped++;
		return;
	}
	/* DLID: LRH bytes 2-3; multicast (0xc000 and up) is not routed */
	dst = route(f, (uint16_t)(lrh[2] << 8 | lrh[3]));
	if (!dst) {
		src->dropped++;
		return;
	}
	dc = &f->conns[dst->conn];
	slot = msgq_out_slot(&dc->q15, &dc->q, dc->shm ? &dc->out : NULL,
			     false, &in_ring);
	if (!slot) {
		dst->queue_drops++;
		return;
	}
	memcpy(slot, m, len);
	/* to a socket: with its ICRC (orca_fabric_proto.h) */
	if ((slot[2] & ORCA_FAB_F_NO_ICRC) && !dc->shm) {
		slot[2] &= ~ORCA_FAB_F_NO_ICRC;
		orca_pkt_set_icrc(slot + sizeof(struct orca_fab_hdr),
				  len - sizeof(struct orca_fab_hdr));
	}
	msgq_out_push(&dc->q, &dc->out, in_ring, len);
	src->pkts_in++;
	src->bytes_in += len;
	dst->pkts_out++;
	dst->bytes_out += len;
	/* the same decision for the packets after it: they may go direct */
	fab_direct_consider(f, c, dc, lrh);
}

bool fab_sm_blocked(struct fabric *f, const uint8_t *m, size_t len)
{
	const uint8_t *lrh = m + sizeof(struct orca_fab_hdr);
	struct fab_lid *dst;
	struct fab_conn *dc;

	if (len < sizeof(struct orca_fab_hdr) + ORCA_PKT_LRH_LEN ||
	    m[0] != ORCA_FAB_PKT)
		return false;
	dst = route(f, (uint16_t)(lrh[2] << 8 | lrh[3]));
	if (!dst)
		return false;
	dc = &f->conns[dst->conn];
	return dc->q.n == dc->q.cap && (!dc->shm || !orca_ring_room(&dc->out));
}
