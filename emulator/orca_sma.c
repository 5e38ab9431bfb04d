// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca management agents: the subnet management agent (IBA 14.2):
 * M_Key checking, the SMP attributes of a CA and of a switch, the
 * PortInfo Set rules and port state machine, and the owner's link calls.
 *
 * A Set is checked whole before any of it is applied: a refused Set
 * (status 0x1c) changes nothing, and every Set is answered with the
 * attribute as it is afterwards, a fresh Get, because OpenSM keeps what
 * the reply says as the truth (osm_port_info_rcv.c).
 */
#include <string.h>

#include "orca_mad.h"

/* The tables behind P_KeyTable, SL2VL, VLArb, LFT and MFT. */
struct span {
	uint8_t *b;		/* byte entries, or */
	uint16_t *w;		/* 16-bit entries */
	unsigned int n;
	uint8_t mask[2];	/* writable bits of even / odd byte entries */
	uint32_t chg;		/* ORCA_MAD_CHG_* of a Set that changes it */
};

struct smp;

struct smp_attr {
	uint16_t id;
	bool switch_only;
	uint16_t (*get)(struct smp *s);
	uint16_t (*set)(struct smp *s);		/* NULL: read-only */
	uint16_t (*locate)(struct smp *s, struct span *t);	/* tables */
};

struct smp {
	struct orca_mad_node *node;
	const struct smp_attr *attr;
	const uint8_t *req;	/* the request's attribute data */
	uint8_t *data;		/* the reply's */
	uint32_t mod;
	uint8_t in_port;
	bool sw;
	bool mkey_ok;		/* the right M_Key, none, or ignored */
	bool hide_mkey;		/* ORCA_MAD_HIDE_MKEY */
	bool rereg;		/* a PortInfo Set asked ClientReregister */
	uint32_t *changes;
};

/* Where a switch keeps M_Key, LID and the like: port 0 (IBA 14.2.5.6). */
static struct orca_mad_port *mgmt_port(struct orca_mad_node *node,
				       unsigned int port)
{
	return &node->port[node->node_type == ORCA_MAD_NODE_SWITCH ? 0 : port];
}

/*
 * IBA 14.2.4.2 (qib's check_mkey): a wrong key fails a Set or
 * TrapRepress always and a Get only at protect level 2 and up; a failure
 * gets no reply, counts, and starts the M_Key lease if it is not running
 * (M_KeyLeasePeriod seconds; 0: forever).  A MAD with the right key
 * stops it.  When it runs out before that, the protect bits go to 0: the
 * key can be read again, and a new SM takes the port over.
 */
/*
 * Trap 256 (IBA 14.2.5.1): who sent the SMP that failed the check, with
 * what, and for a directed-route one its path back (30 hops of it).
 */
static void mkey_trap(struct orca_mad_node *node, const struct orca_mad_in *in)
{
	const uint8_t *m = in->mad;
	uint8_t d[ORCA_NOTICE_DETAILS] = { 0 };
	unsigned int hops = m[ORCA_SMP_HOP_CNT] & 0x3f;

	mad_put16(d + 2, in->slid);
	d[6] = m[3];				/* method */
	memcpy(d + 8, m + 16, 2);		/* AttributeID */
	memcpy(d + 10, m + 20, 4);		/* AttributeModifier */
	memcpy(d + 14, m + 24, 8);		/* the M_Key it had */
	if (m[1] == ORCA_MGMT_SUBN_DR) {
		memcpy(d + 4, m + ORCA_SMP_DR_SLID, 2);
		/*
		 * DRNotice, DRPathTruncated, DRHopCount; the ReturnPath
		 * field as it is (entry 0 unused, hops 1..n), 30 bytes of it
		 */
		d[23] = 0x80 | (hops + 1 > 30 ? 0x40 : 0) | hops;
		memcpy(d + 24, m + ORCA_SMP_RET_PATH,
		       hops + 1 > 30 ? 30 : hops + 1);
	}
	orca_mad_trap(node, in->port, ORCA_TRAP_BAD_MKEY, d, sizeof(d));
}

static bool mkey_check(struct orca_mad_node *node,
		       const struct orca_mad_in *in, bool *ok,
		       uint32_t *changes)
{
	struct orca_mad_port *m = mgmt_port(node, in->port);
	uint8_t method = in->mad[3];
	bool checked = method == ORCA_METHOD_GET || method == ORCA_METHOD_SET ||
		       method == ORCA_METHOD_TRAP_REPRESS;

	if (m->lease_end_ms && in->now_ms >= m->lease_end_ms) {
		m->lease_end_ms = 0;
		if (m->mkey_protect)
			*changes |= ORCA_MAD_CHG_MKEY;
		m->mkey_protect = 0;
	}
	*ok = (in->flags & ORCA_MAD_IGNORE_MKEY) || !m->mkey ||
	      m->mkey == mad_get64(in->mad + 24);
	if (*ok && checked)
		m->lease_end_ms = 0;
	if (*ok || !checked ||
	    (method == ORCA_METHOD_GET && m->mkey_protect < 2))
		return true;
	if (m->mkey_violations != 0xffff)
		m->mkey_violations++;
	if (!m->lease_end_ms && m->mkey_lease)
		m->lease_end_ms = in->now_ms + 1000ULL * m->mkey_lease;
	mkey_trap(node, in);
	return false;
}

static void set_state(struct orca_mad_node *node, unsigned int port,
		      uint8_t state, uint32_t *changes)
{
	struct orca_mad_port *p = &node->port[port];

	if (p->state == state)
		return;
	/*
	 * IBA 14.2.5.4: Down<->Init, Armed/Active->Down set PortStateChange;
	 * its setting is trap 128 (14.2.5.1), the SM's cue to sweep
	 */
	if (node->node_type == ORCA_MAD_NODE_SWITCH &&
	    (p->state == ORCA_MAD_PORT_DOWN || state == ORCA_MAD_PORT_DOWN) &&
	    !node->sw.port_state_change) {
		uint8_t d[2];

		node->sw.port_state_change = true;
		mad_put16(d, node->port[0].lid);	/* LIDADDR */
		orca_mad_trap(node, 0, ORCA_TRAP_LINK_STATE, d, sizeof(d));
	}
	p->state = state;
	*changes |= ORCA_MAD_CHG_STATE;
}

static void set_phys(struct orca_mad_port *p, uint8_t phys, uint32_t *changes)
{
	if (p->phys_state == phys)
		return;
	/* a link that was up or disabled must train again to come up */
	if (phys == ORCA_MAD_PHYS_POLLING)
		*changes |= ORCA_MAD_CHG_RETRAIN;
	p->phys_state = phys;
	*changes |= ORCA_MAD_CHG_STATE;
}

static uint8_t top_bit(uint8_t v)
{
	uint8_t b = 0x80;

	while (b && !(b & v))
		b >>= 1;
	return b;
}

uint32_t orca_mad_link(struct orca_mad_node *node, unsigned int port, bool up)
{
	struct orca_mad_port *p = orca_mad_port(node, port);
	uint32_t changes = 0;

	/* a switch's port 0 has no link; a disabled port does not train */
	if (!p || port == 0 || p->phys_state == ORCA_MAD_PHYS_DISABLED)
		return 0;
	if (up) {
		set_phys(p, ORCA_MAD_PHYS_LINKUP, &changes);
		p->link_width_active = top_bit(p->link_width_enabled &
					       p->link_width_supported);
		p->link_speed_active = top_bit(p->link_speed_enabled &
					       p->link_speed_supported);
		if (p->state == ORCA_MAD_PORT_DOWN)
			set_state(node, port, ORCA_MAD_PORT_INIT, &changes);
	} else {
		set_phys(p, ORCA_MAD_PHYS_POLLING, &changes);
		/* the owner told us: nothing for it to retrain */
		changes &= ~ORCA_MAD_CHG_RETRAIN;
		set_state(node, port, ORCA_MAD_PORT_DOWN, &changes);
	}
	return changes;
}

static uint16_t node_desc_get(struct smp *s)
{
	memcpy(s->data, s->node->desc, sizeof(s->node->desc));
	return 0;
}

static uint16_t node_info_get(struct smp *s)
{
	struct orca_mad_node *n = s->node;
	uint8_t *d = s->data;

	d[0] = 1;	/* BaseVersion */
	d[1] = 1;	/* ClassVersion */
	d[2] = n->node_type;
	d[3] = n->num_ports;
	mad_put64(d + 4, n->sys_guid);
	mad_put64(d + 12, n->node_guid);
	mad_put64(d + 20, mgmt_port(n, s->in_port)->guid);
	mad_put16(d + 28, n->partition_cap);
	mad_put16(d + 30, n->device_id);
	mad_put32(d + 32, n->revision);
	mad_put32(d + 36, (uint32_t)s->in_port << 24 |
		  (n->vendor_id & 0xffffff));
	return 0;
}

static uint16_t guid_info_get(struct smp *s)
{
	struct orca_mad_port *p = mgmt_port(s->node, s->in_port);
	unsigned int i;

	/*
	 * block 0 only: entry 0 is the port GUID, entries 1..GUIDCap-1 the
	 * alias GUIDs, which follow it (the owner's GID table does the same),
	 * so that the SM knows every GUID a port answers to
	 */
	if (s->mod != 0)
		return ORCA_MAD_STATUS_INVALID;
	for (i = 0; i < p->guid_cap && i < ORCA_MAD_GUIDS; i++)
		mad_put64(s->data + 8 * i, p->guid + i);
	return 0;
}

/* PortInfo's port: the modifier's (bit 31 says the SM knows ext. speeds) */
static struct orca_mad_port *pi_port(struct smp *s, unsigned int *num)
{
	uint32_t n = s->mod & 0x7fffffff;

	if (n > 0xff)
		return NULL;
	if (!s->sw && n == 0)
		n = s->in_port;
	*num = n;
	return orca_mad_port(s->node, n);
}

static uint16_t port_info_get(struct smp *s)
{
	struct orca_mad_port *p, *m;
	uint8_t *d = s->data;
	unsigned int n;

	p = pi_port(s, &n);
	if (!p)
		return ORCA_MAD_STATUS_INVALID;
	m = mgmt_port(s->node, n);
	/*
	 * protect level 1 hides the key from a Get with the wrong one; the
	 * owner may hide it always (a host the port is pinned against)
	 */
	if (!s->hide_mkey && (s->mkey_ok || m->mkey_protect != 1))
		mad_put64(d, m->mkey);
	mad_put64(d + 8, m->gid_prefix);
	mad_put16(d + 16, m->lid);
	mad_put16(d + 18, m->sm_lid);
	mad_put32(d + 20, m->cap_mask);
	mad_put16(d + 26, m->mkey_lease);
	d[28] = s->in_port;
	d[29] = p->link_width_enabled;
	d[30] = p->link_width_supported;
	d[31] = p->link_width_active;
	d[32] = p->link_speed_supported << 4 | p->state;
	d[33] = p->phys_state << 4 | p->link_down_default;
	d[34] = m->mkey_protect << 6 | m->lmc;
	d[35] = p->link_speed_active << 4 | p->link_speed_enabled;
	d[36] = p->neighbor_mtu << 4 | m->sm_sl;
	d[37] = p->vl_cap << 4;
	d[38] = p->vl_high_limit;
	d[39] = p->vl_arb_high_cap;
	d[40] = p->vl_arb_low_cap;
	d[41] = p->init_type_reply << 4 | p->mtu_cap;
	d[42] = p->vl_stall << 5 | p->hoq_life;
	d[43] = p->op_vls << 4 | p->enforcement;
	mad_put16(d + 44, m->mkey_violations);
	mad_put16(d + 46, p->pkey_violations);
	mad_put16(d + 48, p->qkey_violations);
	d[50] = p->guid_cap;
	d[51] = (s->rereg ? 0x80 : 0) | m->subnet_timeout;
	d[52] = p->resp_time & 0x1f;
	d[53] = p->err_thresholds;
	return 0;
}

static bool unicast(uint16_t lid)
{
	return lid && lid < ORCA_MAD_LID_MCAST_BASE;
}

/* IBA 14.2.5.6 / 7.2: which PortState and PortPhysicalState Sets hold. */
static bool state_ok(const struct smp *s, const struct orca_mad_port *p,
		     unsigned int n, uint8_t state, uint8_t phys)
{
	if (phys && phys != ORCA_MAD_PHYS_POLLING && phys != ORCA_MAD_PHYS_DISABLED)
		return false;
	if (phys && state != ORCA_MAD_PORT_NOP && state != ORCA_MAD_PORT_DOWN)
		return false;
	/* a switch's port 0 is always up: only "no change" holds */
	if (s->sw && n == 0)
		return !phys && (state == ORCA_MAD_PORT_NOP || state == p->state);
	switch (state) {
	case ORCA_MAD_PORT_NOP:
	case ORCA_MAD_PORT_DOWN:
		return true;
	case ORCA_MAD_PORT_ARMED:	/* from INIT; ARMED again changes nothing */
		return p->state == ORCA_MAD_PORT_INIT || p->state == ORCA_MAD_PORT_ARMED;
	case ORCA_MAD_PORT_ACTIVE:
		return p->state == ORCA_MAD_PORT_ARMED || p->state == ORCA_MAD_PORT_ACTIVE;
	default:
		return false;
	}
}

static bool port_info_ok(const struct smp *s, const struct orca_mad_port *p,
			 unsigned int n, bool mgmt)
{
	const uint8_t *r = s->req;
	uint8_t lwe = r[29], lse = r[35] & 0xf, mtu = r[36] >> 4;

	if (mgmt && (!unicast(mad_get16(r + 16)) ||
		     !unicast(mad_get16(r + 18))))
		return false;
	/* enabled: 0 no change, all-ones all supported, else a subset */
	if (lwe && lwe != 0xff && (lwe & ~p->link_width_supported))
		return false;
	if (lse && lse != 0xf && (lse & ~p->link_speed_supported))
		return false;
	if ((r[33] & 0xf) > ORCA_MAD_PHYS_POLLING)	/* LinkDownDefaultState */
		return false;
	if (mtu < 1 || mtu > p->mtu_cap || (r[43] >> 4) > p->vl_cap)
		return false;
	return state_ok(s, p, n, r[32] & 0xf, r[33] >> 4);
}

/* The subnet-wide part: on a switch only through port 0. */
static void port_info_mgmt(struct smp *s, struct orca_mad_port *m)
{
	const uint8_t *r = s->req;
	uint64_t mkey = mad_get64(r), prefix = mad_get64(r + 8);
	uint16_t lid = mad_get16(r + 16), sm_lid = mad_get16(r + 18);
	uint8_t lmc = r[34] & 7, sl = r[36] & 0xf, protect = r[34] >> 6;

	if (mkey != m->mkey || protect != m->mkey_protect ||
	    mad_get16(r + 26) != m->mkey_lease)
		*s->changes |= ORCA_MAD_CHG_MKEY;
	if (prefix != m->gid_prefix)
		*s->changes |= ORCA_MAD_CHG_GID;
	if (lid != m->lid || lmc != m->lmc)
		*s->changes |= ORCA_MAD_CHG_LID;
	if (sm_lid != m->sm_lid || sl != m->sm_sl)
		*s->changes |= ORCA_MAD_CHG_SM;
	m->mkey = mkey;
	m->mkey_protect = protect;
	m->gid_prefix = prefix;
	m->lid = lid;
	m->lmc = lmc;
	m->sm_lid = sm_lid;
	m->sm_sl = sl;
	m->mkey_lease = mad_get16(r + 26);
	m->subnet_timeout = r[51] & 0x1f;
	m->mkey_violations = mad_get16(r + 44);
	if (r[51] & 0x80) {
		s->rereg = true;
		*s->changes |= ORCA_MAD_CHG_REREG;
	}
}

/* The PortInfo enforcement bits a switch does: none without tables. */
static uint8_t enforce_bits(const struct orca_mad_node *node)
{
	return node->sw.enforce_cap ? node->sw.enforce_mask & 0xf : 0;
}

static uint16_t port_info_set(struct smp *s)
{
	const uint8_t *r = s->req;
	uint8_t state = r[32] & 0xf, phys = r[33] >> 4;
	struct orca_mad_port *p, before;
	unsigned int n;
	bool mgmt;

	p = pi_port(s, &n);
	if (!p)
		return ORCA_MAD_STATUS_INVALID;
	mgmt = !s->sw || n == 0;
	if (!port_info_ok(s, p, n, mgmt))
		return ORCA_MAD_STATUS_INVALID;

	before = *p;
	if (r[29])
		p->link_width_enabled = r[29] == 0xff ?
					p->link_width_supported : r[29];
	if (r[35] & 0xf)
		p->link_speed_enabled = (r[35] & 0xf) == 0xf ?
					p->link_speed_supported : r[35] & 0xf;
	if (r[33] & 0xf)
		p->link_down_default = r[33] & 0xf;
	p->neighbor_mtu = r[36] >> 4;
	if (r[43] >> 4)
		p->op_vls = r[43] >> 4;
	/* only a switch's external ports enforce, and only what it can */
	p->enforcement = s->sw && n ? r[43] & enforce_bits(s->node) : 0;
	p->vl_high_limit = r[38];
	p->init_type_reply = r[41] >> 4;
	p->vl_stall = r[42] >> 5;
	p->hoq_life = r[42] & 0x1f;
	p->err_thresholds = r[53];
	if (memcmp(&before, p, sizeof(before)))
		*s->changes |= ORCA_MAD_CHG_PORT;
	p->pkey_violations = mad_get16(r + 46);
	p->qkey_violations = mad_get16(r + 48);
	if (mgmt)
		port_info_mgmt(s, p);

	/* DOWN, or a new PhysState, takes the link down (qib does so) */
	if (state == ORCA_MAD_PORT_DOWN || phys) {
		if (!phys)
			phys = p->phys_state == ORCA_MAD_PHYS_DISABLED ?
			       ORCA_MAD_PHYS_DISABLED : ORCA_MAD_PHYS_POLLING;
		set_phys(p, phys, s->changes);
		set_state(s->node, n, ORCA_MAD_PORT_DOWN, s->changes);
	} else if (state != ORCA_MAD_PORT_NOP) {
		set_state(s->node, n, state, s->changes);
	}
	return 0;
}

/* A table attribute: Get copies the entries out, Set in. */
static uint16_t table_get(struct smp *s)
{
	struct span t;
	uint16_t st = s->attr->locate(s, &t);
	unsigned int i;

	if (st)
		return st;
	for (i = 0; i < t.n; i++) {
		if (t.w)
			mad_put16(s->data + 2 * i, t.w[i]);
		else
			s->data[i] = t.b[i];
	}
	return 0;
}

static uint16_t table_set(struct smp *s)
{
	struct span t;
	uint16_t st = s->attr->locate(s, &t), v;
	unsigned int i;

	if (st)
		return st;
	for (i = 0; i < t.n; i++) {
		if (t.w) {
			v = mad_get16(s->req + 2 * i);
			if (t.w[i] != v)
				*s->changes |= t.chg;
			t.w[i] = v;
		} else {
			v = s->req[i] & t.mask[i & 1];
			if (t.b[i] != v)
				*s->changes |= t.chg;
			t.b[i] = v;
		}
	}
	return 0;
}

static void span_init(struct span *t, uint8_t *b, uint16_t *w, unsigned int n,
		      uint32_t chg)
{
	t->b = b;
	t->w = w;
	t->n = n;
	t->mask[0] = 0xff;
	t->mask[1] = 0xff;
	t->chg = chg;
}

static unsigned int min_u(unsigned int a, unsigned int b)
{
	return a < b ? a : b;
}

/*
 * P_KeyTable: modifier 15:0 block of 32, 23:16 a switch's port.  Port 0
 * has NodeInfo's PartitionCap entries, an external port SwitchInfo's
 * PartitionEnforcementCap (none if 0).
 */
static uint16_t pkey_locate(struct smp *s, struct span *t)
{
	unsigned int cap = min_u(s->node->partition_cap, ORCA_MAD_PKEYS);
	unsigned int block = s->mod & 0xffff, port = s->mod >> 16 & 0xff;
	struct orca_mad_port *p = &s->node->port[s->in_port];

	if (s->sw) {
		if (port > s->node->num_ports ||
		    (port && !s->node->sw.enforce_cap))
			return ORCA_MAD_STATUS_INVALID;
		p = &s->node->port[port];
		if (port)
			cap = min_u(s->node->sw.enforce_cap, ORCA_MAD_PKEYS);
	}
	if (block >= (cap + 31) / 32)
		return ORCA_MAD_STATUS_INVALID;
	span_init(t, NULL, p->pkeys + 32 * block, min_u(32, cap - 32 * block),
		  ORCA_MAD_CHG_PKEY);
	return 0;
}

/* SLtoVLMappingTable: a CA's port, or a switch's in 15:8 / out 7:0 */
static uint16_t sl2vl_locate(struct smp *s, struct span *t)
{
	struct orca_mad_port *p = &s->node->port[s->in_port];
	unsigned int out = 0;

	if (s->sw) {
		p = orca_mad_port(s->node, s->mod >> 8 & 0xff);
		out = s->mod & 0xff;
		if (!p || out > s->node->num_ports)
			return ORCA_MAD_STATUS_INVALID;
	}
	span_init(t, p->sl2vl[out], NULL, 8, ORCA_MAD_CHG_QOS);
	return 0;
}

/* VLArbitrationTable: modifier 31:16 block 1..4, 15:0 a switch's port */
static uint16_t vl_arb_locate(struct smp *s, struct span *t)
{
	struct orca_mad_port *p = &s->node->port[s->in_port];
	unsigned int block = s->mod >> 16;

	if (s->sw)
		p = (s->mod & 0xffff) > 0xff ? NULL :
		    orca_mad_port(s->node, s->mod & 0xffff);
	if (!p)
		return ORCA_MAD_STATUS_INVALID;
	/* with VL0 alone there is nothing to arbitrate (qib says so too) */
	if (p->vl_cap <= 1)
		return ORCA_MAD_STATUS_UNSUP_ATTR;
	if (block < 1 || block > 4)
		return ORCA_MAD_STATUS_INVALID;
	span_init(t, p->vl_arb[block - 1], NULL, 64, ORCA_MAD_CHG_QOS);
	t->mask[0] = 0x0f;	/* reserved:4, VL:4; then the weight */
	return 0;
}

/* LinearForwardingTable: block of 64 LIDs */
static uint16_t lft_locate(struct smp *s, struct span *t)
{
	unsigned int cap = min_u(s->node->sw.lft_cap, ORCA_MAD_LFT_CAP);

	if (s->mod >= (cap + 63) / 64)
		return ORCA_MAD_STATUS_INVALID;
	span_init(t, s->node->sw.lft + 64 * s->mod, NULL,
		  min_u(64, cap - 64 * s->mod), ORCA_MAD_CHG_FWD);
	return 0;
}

/* MulticastForwardingTable: 31:28 position (16 ports), 8:0 block of 32 */
static uint16_t mft_locate(struct smp *s, struct span *t)
{
	unsigned int cap = min_u(s->node->sw.mft_cap, ORCA_MAD_MFT_CAP) / 32;
	unsigned int pos = s->mod >> 28, block = s->mod & 0x1ff;

	/* ports 0..num_ports, 16 a position */
	if (pos > s->node->num_ports / 16 || block >= cap)
		return ORCA_MAD_STATUS_INVALID;
	span_init(t, NULL, s->node->sw.mft[pos] + 32 * block, 32,
		  ORCA_MAD_CHG_FWD);
	return 0;
}

static uint16_t switch_info_get(struct smp *s)
{
	const struct orca_mad_switch *sw = &s->node->sw;
	uint8_t *d = s->data;

	mad_put16(d, sw->lft_cap);
	mad_put16(d + 4, sw->mft_cap);
	mad_put16(d + 6, sw->lft_top);
	d[8] = sw->default_port;
	d[9] = sw->default_mcast_primary;
	d[10] = sw->default_mcast_other;
	d[11] = sw->life_time << 3 | (sw->port_state_change ? 0x04 : 0);
	/* RandomFDBCap, LIDsPerPort: 0 */
	mad_put16(d + 14, sw->enforce_cap);
	/* Inbound/OutboundEnforcementCap, FilterRawInbound/OutboundCap */
	d[16] = enforce_bits(s->node) << 4;
	return 0;
}

static uint16_t switch_info_set(struct smp *s)
{
	struct orca_mad_switch *sw = &s->node->sw;
	const uint8_t *r = s->req;

	if (mad_get16(r + 6) >= sw->lft_cap)
		return ORCA_MAD_STATUS_INVALID;
	sw->lft_top = mad_get16(r + 6);
	sw->default_port = r[8];
	sw->default_mcast_primary = r[9];
	sw->default_mcast_other = r[10];
	sw->life_time = r[11] >> 3;
	/* the SM clears PortStateChange by writing it as 1 */
	if (r[11] & 0x04)
		sw->port_state_change = false;
	*s->changes |= ORCA_MAD_CHG_FWD;
	return 0;
}

static const struct smp_attr smp_attrs[] = {
	{ ORCA_SMP_NODE_DESC, false, node_desc_get, NULL, NULL },
	{ ORCA_SMP_NODE_INFO, false, node_info_get, NULL, NULL },
	{ ORCA_SMP_SWITCH_INFO, true, switch_info_get, switch_info_set, NULL },
	{ ORCA_SMP_GUID_INFO, false, guid_info_get, NULL, NULL },
	{ ORCA_SMP_PORT_INFO, false, port_info_get, port_info_set, NULL },
	{ ORCA_SMP_PKEY_TABLE, false, table_get, table_set, pkey_locate },
	{ ORCA_SMP_SL2VL, false, table_get, table_set, sl2vl_locate },
	{ ORCA_SMP_VL_ARB, false, table_get, table_set, vl_arb_locate },
	{ ORCA_SMP_LFT, true, table_get, table_set, lft_locate },
	{ ORCA_SMP_MFT, true, table_get, table_set, mft_locate },
};

static const struct smp_attr *find_attr(uint16_t id, bool sw)
{
	unsigned int i;

	for (i = 0; i < sizeof(smp_attrs) / sizeof(smp_attrs[0]); i++)
		if (smp_attrs[i].id == id && (sw || !smp_attrs[i].switch_only))
			return &smp_attrs[i];
	return NULL;
}

enum orca_mad_result orca_sma_process(struct orca_mad_node *node,
				      const struct orca_mad_in *in,
				      uint8_t *out, uint16_t *status,
				      uint32_t *changes)
{
	uint8_t method = in->mad[3];
	uint32_t set_changes = 0;
	struct smp s = {
		.node = node,
		.req = in->mad + ORCA_SMP_DATA,
		.data = out + ORCA_SMP_DATA,
		.mod = mad_get32(in->mad + 20),
		.in_port = in->port,
		.sw = node->node_type == ORCA_MAD_NODE_SWITCH,
		.hide_mkey = in->flags & ORCA_MAD_HIDE_MKEY,
		.changes = &set_changes,
	};
	struct orca_mad_port before;
	uint16_t st = 0, get_st;

	if (!mkey_check(node, in, &s.mkey_ok, changes))
		return ORCA_MAD_DROP;
	/* the SM answers a trap: no reply to it (IBA 14.3.1) */
	if (method == ORCA_METHOD_TRAP_REPRESS) {
		orca_mad_trap_repress(node, mad_get64(in->mad + 8));
		return ORCA_MAD_DROP;
	}
	if (method != ORCA_METHOD_GET && method != ORCA_METHOD_SET) {
		*status = ORCA_MAD_STATUS_UNSUP_METHOD;
		return ORCA_MAD_REPLY;
	}
	s.attr = find_attr(mad_get16(in->mad + 16), s.sw);
	if (!s.attr || (method == ORCA_METHOD_SET && !s.attr->set)) {
		*status = ORCA_MAD_STATUS_UNSUP_ATTR;
		return ORCA_MAD_REPLY;
	}
	/* a CA's Set changes its port alone: kept, to undo a denied one */
	if (in->deny && !s.sw)
		before = node->port[in->port];
	if (method == ORCA_METHOD_SET)
		st = s.attr->set(&s);
	if (in->deny && !s.sw && (set_changes & in->deny)) {
		node->port[in->port] = before;
		set_changes = ORCA_MAD_CHG_DENIED;
		s.rereg = false;
		st = ORCA_MAD_STATUS_INVALID;
	}
	*changes |= set_changes;
	get_st = s.attr->get(&s);
	*status = st ? st : get_st;
	return ORCA_MAD_REPLY;
}
