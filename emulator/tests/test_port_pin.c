// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the port as a tenant's (cfg port_pin, orca.rst "Host
 * policy") and of the M_Key rules around it (IBA vol 1 14.2.4): what a
 * pinned host asks through MAD_IFC cannot change what is pinned nor see
 * the SM's M_Key; the firmware answers the subnet's SMPs off the wire
 * itself (LID-routed and directed-route, C14-9 and C14-13 at a CA), so
 * the host's QP0 never holds one; a host that may not be an SM sends no
 * SMP and cannot claim IsSM.  The M_Key holds across a new host, and its
 * lease runs out as 14.2.4.2 says.  The attribute offsets are IBA's
 * (14.2.5.6 PortInfo, 14.2.5.7 P_KeyTable, 14.2.1.2 the DR SMP), written
 * here anew.
 */
#include <string.h>

#include "be.h"
#include "dp_fixture.h"
#include "orca_log.h"

#define D		64	/* SMP data */
#define PI		0x0015	/* PortInfo */
#define PKT		0x0016	/* P_KeyTable */
#define NI		0x0011	/* NodeInfo */
#define MKEY		0x5eed5eed5eed5eedULL
#define SM_LID		0x0005

/* ---- what the port sends, caught instead of the wire ---- */

static struct orca_pkt sent[8];
static unsigned int n_sent;

static void catch_xmit(struct orca_dev *dev, struct orca_pkt *p)
{
	if (n_sent < 8)
		sent[n_sent] = *p;
	n_sent++;
	pkt_free(dev, p);
}

static bool catch_room(struct orca_dev *dev)
{
	(void)dev;
	return true;
}

static unsigned int catch_window(struct orca_dev *dev, uint16_t dlid)
{
	(void)dev;
	(void)dlid;
	return ORCA_MAX_UNACKED_PSNS;
}

static const struct orca_link_ops catch_ops = {
	.xmit = catch_xmit,
	.room = catch_room,
	.window = catch_window,
};

static void catch_wire(struct fx *f)
{
	f->dev.link = &catch_ops;
	n_sent = 0;
}

/* ---- SMPs ---- */

/* An SMP of @class (0x01 LID-routed, 0x81 DR) with M_Key @key. */
static void smp(uint8_t *m, uint8_t class, uint8_t method, uint16_t attr,
		uint64_t key)
{
	memset(m, 0, 256);
	m[0] = 1;
	m[1] = class;
	m[2] = 1;
	m[3] = method;
	put_be(m + 8, 0x7a11, 8);	/* TID */
	put_be(m + 16, attr, 2);
	put_be(m + 24, key, 8);
	if (class == 0x81) {
		put_be(m + 32, 0xffff, 2);	/* DrSLID */
		put_be(m + 34, 0xffff, 2);	/* DrDLID */
	}
}

/* MAD_IFC from the host: the result; the reply in @r. */
static uint8_t host_mad(struct fx *f, const uint8_t *m, uint8_t flags,
			uint8_t *r)
{
	struct orca_mad_ifc_in in = { .port = 1, .flags = flags };
	struct orca_mad_ifc_out out = {};

	memcpy(in.mad, m, 256);
	if (fx_cmd(f, ORCA_CMD_MAD_IFC, &in, sizeof(in), &out, sizeof(out)))
		return 0xff;
	memcpy(r, out.mad, 256);
	return out.result;
}

/* The host's PortInfo Get (hop 0, as its own tools ask). */
static void host_pi(struct fx *f, uint8_t *r)
{
	uint8_t m[256];

	smp(m, 0x81, 0x01, PI, 0);
	CHECK_EQ(host_mad(f, m, ORCA_MAD_IFC_F_IGNORE_MKEY, r),
		 ORCA_MAD_IFC_REPLY);
}

/* A host's PortInfo Set of its own Get with @edit applied: the status. */
static uint16_t host_pi_set(struct fx *f, void (*edit)(uint8_t *d),
			    uint8_t flags, uint64_t key, uint8_t *r)
{
	uint8_t m[256], cur[256];

	host_pi(f, cur);
	smp(m, 0x81, 0x02, PI, key);
	memcpy(m + D, cur + D, 64);
	m[D + 32] &= 0xf0;		/* PortState: no change */
	m[D + 33] &= 0x0f;		/* PortPhysicalState: no change */
	edit(m + D);
	if (host_mad(f, m, flags, r) != ORCA_MAD_IFC_REPLY)
		return 0xffff;
	return get_be(r + 4, 2) & 0x7fff;
}

/* @m arriving from the wire: LID-routed from SM_LID, or DR (DLID 0xffff). */
static void from_wire(struct fx *f, const uint8_t *m)
{
	struct orca_pkt *p = pkt_alloc(&f->dev);

	CHECK(p);
	if (!p)
		return;
	p->opcode = IB_UD | IB_SEND_ONLY;
	p->hdrs = PKT_DETH;
	p->vl = ORCA_VL15;
	p->sl = 0;
	p->dlid = m[1] == 0x81 ? 0xffff : f->cfg.lid;
	p->slid = m[1] == 0x81 ? 0xffff : SM_LID;
	p->dqpn = 0;
	p->sqpn = 0;
	p->pkey = 0xffff;
	p->psn = 99;
	p->paylen = 256;
	memcpy(p->payload, m, 256);
	wire_rx(&f->dev, p);
}

/* A QP0 of the host's with a receive posted, to see what reaches it. */
struct qp0 {
	struct ring_cq cq;
	struct ring_qp qp;
	uint64_t buf;
	uint32_t lk;
};

static void qp0_up(struct fx *f, struct qp0 *q)
{
	q->buf = heap_alloc(PAGE);
	CHECK_EQ(reg_mr(f, f->pdn, q->buf, PAGE, ORCA_ACCESS_LOCAL_WRITE,
			&q->lk), 0);
	CHECK(make_cq(f, &q->cq, 5));
	make_qp_flags = ORCA_QP_CREATE_UD_AV;
	make_qp_type = ORCA_QPT_SMI;
	CHECK(make_qp(f, &q->qp, q->cq.cqn));
	make_qp_type = ORCA_QPT_RC;
	make_qp_flags = 0;
	ud_rts_qkey(f, &q->qp, 0);
	post_recv(f, &q->qp, q->buf + 1024, 40 + 256, q->lk);
}

static unsigned int cqes(struct fx *f, struct qp0 *q)
{
	struct orca_cqe c;
	unsigned int n = 0;

	while (poll_cqe(f, &q->cq, &c))
		n++;
	return n;
}

/* ---- edits ---- */

static void edit_lid(uint8_t *d)
{
	put_be(d + 16, 0x99, 2);
}

static void edit_mtu(uint8_t *d)
{
	d[36] = (d[36] & 0x0f) | 3 << 4;	/* NeighborMTU 1024 */
}

static void edit_mkey(uint8_t *d)
{
	put_be(d, MKEY, 8);
	d[34] = (d[34] & 0x3f) | 2 << 6;	/* protect 2 */
}

static void edit_mkey_lease(uint8_t *d)
{
	edit_mkey(d);
	put_be(d + 26, 2, 2);			/* M_KeyLeasePeriod 2 s */
}

static void edit_no_mkey(uint8_t *d)
{
	put_be(d, 0, 8);
	d[34] &= 0x3f;				/* protect 0 */
}

/* ---- cases ---- */

/* 14.2.5.6: the firmware's SMA says what it handles (review finding 4). */
static void cap_mask_default(void)
{
	struct fx *f = dp_up();
	uint8_t r[256];
	uint32_t cap;

	host_pi(f, r);
	cap = get_be(r + D + 20, 4);
	CHECK(cap & 1U << 11);		/* SystemImageGUID */
	CHECK(cap & 1U << 25);		/* ClientReregister */
	fx_free(f);
}

/*
 * Review finding 8: the SM knows every GUID the port answers to.  With
 * gid_tbl_len 4, GID i is port GUID + i; GUIDInfo block 0 lists those
 * four (14.2.5.5) and PortInfo's GUIDCap says 4.
 */
static void alias_guids(void)
{
	const char *const sets[] = { "gid_tbl_len=4", NULL };
	struct fx *f = dp_up_cfg(sets);
	uint8_t m[256], r[256];
	unsigned int i;

	smp(m, 0x81, 0x01, 0x0014, 0);
	CHECK_EQ(host_mad(f, m, ORCA_MAD_IFC_F_IGNORE_MKEY, r),
		 ORCA_MAD_IFC_REPLY);
	for (i = 0; i < 8; i++)
		CHECK_EQ(get_be(r + D + 8 * i, 8),
			 i < 4 ? f->cfg.port_guid + i : 0);
	host_pi(f, r);
	CHECK_EQ(r[D + 50], 4);
	fx_free(f);
}

/* The P_Key table through P_KeyTable block 0: entries 0 and 1. */
static void pkeys_of(struct fx *f, uint16_t *k0, uint16_t *k1)
{
	uint8_t m[256], r[256];

	smp(m, 0x81, 0x01, PKT, 0);
	CHECK_EQ(host_mad(f, m, ORCA_MAD_IFC_F_IGNORE_MKEY, r),
		 ORCA_MAD_IFC_REPLY);
	*k0 = get_be(r + D, 2);
	*k1 = get_be(r + D + 2, 2);
}

static uint16_t host_pkey_set(struct fx *f, uint16_t k1, uint8_t *r)
{
	uint8_t m[256];

	smp(m, 0x81, 0x02, PKT, 0);
	put_be(m + D, 0xffff, 2);
	put_be(m + D + 2, k1, 2);
	if (host_mad(f, m, ORCA_MAD_IFC_F_IGNORE_MKEY, r) != ORCA_MAD_IFC_REPLY)
		return 0xffff;
	return get_be(r + 4, 2) & 0x7fff;
}

/*
 * Review finding 1: with the P_Keys and the LID pinned, the host's own
 * Sets of them are refused whole (0x1c), change nothing and are counted,
 * even with IGNORE_MKEY; what is not pinned it still sets.  Without a
 * pin (a physical host) the same Set holds, as it does today.
 */
static void pin_refuses_host_sets(void)
{
	const char *const pinned[] = { "pkey_tbl_len=2",
				       "pkey_table=0xffff,0x8001",
				       "port_pin=pkeys,lid", NULL };
	const char *const open[] = { "pkey_tbl_len=2",
				     "pkey_table=0xffff,0x8001", NULL };
	struct fx *f = dp_up_cfg(pinned);
	uint16_t k0, k1;
	uint8_t r[256];

	CHECK_EQ(host_pkey_set(f, 0x8002, r), 0x1c);
	CHECK_EQ(get_be(r + D + 2, 2), 0x8001);	/* the reply: as it is */
	pkeys_of(f, &k0, &k1);
	CHECK_EQ(k0, 0xffff);
	CHECK_EQ(k1, 0x8001);
	CHECK_EQ(f->dev.cfg.pkey_table[1], 0x8001);	/* the data path's */
	CHECK_EQ(fx_stat(f, "pin_mad_refused"), 1);
	CHECK_EQ(host_pi_set(f, edit_lid, ORCA_MAD_IFC_F_IGNORE_MKEY, 0, r),
		 0x1c);
	CHECK_EQ(f->dev.cfg.lid, 0x11);
	CHECK_EQ(fx_stat(f, "pin_mad_refused"), 2);
	/* NeighborMTU is not pinned */
	CHECK_EQ(host_pi_set(f, edit_mtu, ORCA_MAD_IFC_F_IGNORE_MKEY, 0, r),
		 0);
	CHECK_EQ(r[D + 36] >> 4, 3);
	CHECK_EQ(fx_stat(f, "pin_mad_refused"), 2);
	fx_free(f);

	f = dp_up_cfg(open);
	CHECK_EQ(host_pkey_set(f, 0x8002, r), 0);
	pkeys_of(f, &k0, &k1);
	CHECK_EQ(k1, 0x8002);
	CHECK_EQ(f->dev.cfg.pkey_table[1], 0x8002);
	CHECK_EQ(fx_stat(f, "pin_mad_refused"), 0);
	fx_free(f);
}

/*
 * The firmware answers the subnet's SMPs to a pinned port off the wire:
 * the host's QP0 never holds one (it would read the SM's M_Key there).
 * LID-routed: back to the SLID; DR (C14-9:3 here, C14-13:1 back):
 * ReturnPath[hop_cnt] = 1, hop_ptr = hop_cnt, D set, DLID permissive.
 */
static void fw_answers_the_wire(void)
{
	const char *const sets[] = { "port_pin=all", NULL };
	struct fx *f = dp_up_cfg(sets);
	uint8_t m[256];
	struct orca_pkt *p;
	struct qp0 q;

	qp0_up(f, &q);
	catch_wire(f);
	smp(m, 0x01, 0x01, NI, 0);
	from_wire(f, m);
	CHECK_EQ(n_sent, 1);
	p = &sent[0];
	CHECK_EQ(p->vl, ORCA_VL15);
	CHECK_EQ(p->dlid, SM_LID);
	CHECK_EQ(p->slid, f->cfg.lid);
	CHECK_EQ(p->dqpn, 0);
	CHECK_EQ(p->sqpn, 0);
	CHECK_EQ(p->opcode, IB_UD | IB_SEND_ONLY);
	CHECK_EQ(p->paylen, 256);
	CHECK_EQ(p->payload[3], 0x81);			/* GetResp */
	CHECK_EQ(get_be(p->payload + 8, 8), 0x7a11);	/* TID */
	CHECK_EQ(get_be(p->payload + 4, 2), 0);
	CHECK_EQ(get_be(p->payload + D + 12, 8), f->cfg.node_guid);
	CHECK_EQ(cqes(f, &q), 0);
	CHECK_EQ(fx_stat(f, "pin_smp_answered"), 1);

	/* DR: hop 2 of 2, from switch port 5 */
	smp(m, 0x81, 0x01, NI, 0);
	m[6] = 2;			/* hop_ptr */
	m[7] = 2;			/* hop_cnt */
	m[128 + 1] = 1;			/* InitialPath */
	m[128 + 2] = 7;
	m[192 + 1] = 5;			/* ReturnPath, the switch's note */
	n_sent = 0;
	from_wire(f, m);
	CHECK_EQ(n_sent, 1);
	p = &sent[0];
	CHECK_EQ(p->dlid, 0xffff);
	CHECK_EQ(p->vl, ORCA_VL15);
	CHECK_EQ(p->payload[6], 2);			/* hop_ptr */
	CHECK_EQ(get_be(p->payload + 4, 2), 0x8000);	/* D, status 0 */
	CHECK_EQ(p->payload[192 + 1], 5);
	CHECK_EQ(p->payload[192 + 2], 1);		/* in by port 1 */
	CHECK_EQ(p->payload[D + 36], 1);		/* LocalPortNum */
	/* an intermediate hop is no CA's (C14-9:2): dropped, counted */
	m[6] = 1;
	n_sent = 0;
	from_wire(f, m);
	CHECK_EQ(n_sent, 0);
	CHECK_EQ(fx_stat(f, "pin_smp_dropped"), 1);
	/* a response: for an SM here, and this host may be none */
	smp(m, 0x01, 0x81, NI, 0);
	from_wire(f, m);
	CHECK_EQ(n_sent, 0);
	CHECK_EQ(fx_stat(f, "pin_smp_dropped"), 2);
	/*
	 * an SM's SMInfo sweep: no SM here, answered as ib_mad answers a
	 * request no agent takes (13.4.7 status 0x0c), not left to time out
	 */
	smp(m, 0x01, 0x01, 0x0020, 0);
	from_wire(f, m);
	CHECK_EQ(n_sent, 1);
	CHECK_EQ(sent[0].dlid, SM_LID);
	CHECK_EQ(sent[0].payload[3], 0x81);
	CHECK_EQ(get_be(sent[0].payload + 4, 2), 0x000c);
	CHECK_EQ(get_be(sent[0].payload + 8, 8), 0x7a11);
	CHECK_EQ(cqes(f, &q), 0);
	fx_free(f);
}

/* With the SM allowed, what is for an SM (a GetResp) reaches QP0. */
static void fw_passes_sm_traffic(void)
{
	const char *const sets[] = { "port_pin=pkeys", NULL };
	struct fx *f = dp_up_cfg(sets);
	uint8_t m[256];
	struct qp0 q;

	qp0_up(f, &q);
	catch_wire(f);
	smp(m, 0x01, 0x81, NI, 0);
	from_wire(f, m);
	CHECK_EQ(cqes(f, &q), 1);
	/* and an SMInfo, for the SM the host may run */
	post_recv(f, &q.qp, q.buf + 1024, 40 + 256, q.lk);
	smp(m, 0x01, 0x01, 0x0020, 0);
	from_wire(f, m);
	CHECK_EQ(cqes(f, &q), 1);
	CHECK_EQ(n_sent, 0);
	/* while a request is still the firmware's */
	post_recv(f, &q.qp, q.buf + 1024, 40 + 256, q.lk);
	smp(m, 0x01, 0x01, NI, 0);
	from_wire(f, m);
	CHECK_EQ(n_sent, 1);
	CHECK_EQ(cqes(f, &q), 0);
	fx_free(f);
}

/* Without a pin the host's QP0 takes the subnet's SMPs, as today. */
static void no_pin_delivers(void)
{
	struct fx *f = dp_up();
	uint8_t m[256];
	struct qp0 q;

	qp0_up(f, &q);
	catch_wire(f);
	smp(m, 0x01, 0x01, NI, 0);
	from_wire(f, m);
	CHECK_EQ(n_sent, 0);
	CHECK_EQ(cqes(f, &q), 1);
	CHECK_EQ(fx_stat(f, "pin_smp_answered"), 0);
	fx_free(f);
}

/*
 * port_pin sm: the SM sets the M_Key from the wire; the host's Get does
 * not show it and the host's Set of it is refused; the wire's Sets need
 * it; the host's QP0 sends nothing and it cannot claim IsSM.
 */
static void pin_sm(void)
{
	const char *const sets[] = { "port_pin=sm", NULL };
	struct fx *f = dp_up_cfg(sets);
	struct orca_modify_port_in mp = { .port = 1 };
	uint8_t m[256], r[256];
	struct qp0 q;

	qp0_up(f, &q);
	catch_wire(f);
	/* the SM's PortInfo Set from the wire: its Get, M_Key and protect */
	host_pi(f, r);
	smp(m, 0x01, 0x02, PI, 0);
	memcpy(m + D, r + D, 64);
	m[D + 32] &= 0xf0;
	m[D + 33] &= 0x0f;
	edit_mkey(m + D);
	from_wire(f, m);
	CHECK_EQ(n_sent, 1);
	CHECK_EQ(get_be(sent[0].payload + D, 8), MKEY);
	/* the host sees no key, and cannot set one */
	host_pi(f, r);
	CHECK_EQ(get_be(r + D, 8), 0);
	CHECK_EQ(r[D + 34] >> 6, 2);
	CHECK_EQ(host_pi_set(f, edit_mkey_lease, ORCA_MAD_IFC_F_IGNORE_MKEY, 0,
			     r), 0x1c);
	CHECK_EQ(host_pi_set(f, edit_no_mkey, ORCA_MAD_IFC_F_IGNORE_MKEY, 0, r),
		 0x1c);
	CHECK_EQ(fx_stat(f, "pin_mad_refused"), 2);
	host_pi(f, r);
	CHECK_EQ(r[D + 34] >> 6, 2);
	CHECK_EQ(get_be(r + D + 26, 2), 0);
	/* the wire without the key: dropped, a violation */
	n_sent = 0;
	smp(m, 0x01, 0x01, PI, 0x1234);
	from_wire(f, m);
	CHECK_EQ(n_sent, 0);
	smp(m, 0x01, 0x01, PI, MKEY);
	from_wire(f, m);
	CHECK_EQ(n_sent, 1);
	CHECK_EQ(get_be(sent[0].payload + D + 44, 2), 1);	/* violations */
	/* QP0's sends: completed, never on the wire */
	n_sent = 0;
	smp(gpa(f, q.buf), 0x01, 0x02, PI, 0);
	ud_send_av(f, &q.qp, q.buf, 256, q.lk,
		   &(struct orca_av){ .port = 1, .dlid = htole16(0x33) }, 0, 0,
		   0);
	CHECK_EQ(n_sent, 0);
	CHECK_EQ(fx_stat(f, "pin_qp0_dropped"), 1);
	/* IsSM: refused */
	mp.set_cap = htole32(1U << 1);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_MODIFY_PORT, &mp, sizeof(mp), NULL,
			      0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	CHECK_EQ(fx_stat(f, "pin_cap_refused"), 1);
	/*
	 * The SM hears of each (IBA 14.2.5.1 Notice, from this port's LID
	 * to its SM LID): orca's own notices (IsGeneric 0, security, the
	 * device's VendorID, DeviceID 1 a refused Set with its attribute,
	 * 2 a dropped SMP, 3 IsSM), and trap 256 for the wire's bad key;
	 * the second refused Set while the first is outstanding is counted
	 */
	{
		static const uint16_t want[] = { 1, 256, 2, 3 };
		uint32_t vendor = f->dev.cfg.vendor_id & 0xffffff;
		uint16_t dlid, slid;
		unsigned int i;

		for (i = 0; i < 4; i++) {
			CHECK_EQ(orca_mad_trap_next(f->dev.mad, 0, m, &dlid,
						    &slid), 256);
			CHECK_EQ(dlid, f->dev.cfg.sm_lid);
			CHECK_EQ(slid, f->dev.cfg.lid);
			CHECK_EQ(m[3], 0x05);			/* Trap() */
			CHECK_EQ(get_be(m + D + 4, 2), want[i]);
			if (want[i] == 256) {
				CHECK_EQ(m[D], 0x82);
				continue;
			}
			CHECK_EQ(m[D], 0x02);			/* not generic */
			CHECK_EQ(get_be(m + D, 4) & 0xffffff, vendor);
			if (want[i] == 1)			/* PortInfo */
				CHECK_EQ(get_be(m + D + 10, 2), PI);
		}
		CHECK_EQ(orca_mad_trap_next(f->dev.mad, 0, m, &dlid, &slid), 0);
		CHECK_EQ(f->dev.mad->traps.coalesced, 1);
	}
	fx_free(f);
}

/* A Get the way the SM's would come through the host's driver: a WC. */
static uint8_t wc_pi_get(struct fx *f, uint64_t key, uint8_t *r)
{
	uint8_t m[256];

	smp(m, 0x01, 0x01, PI, key);
	return host_mad(f, m, ORCA_MAD_IFC_F_WC, r);
}

/* Review finding 3: a new host does not take the M_Key's protection. */
static void mkey_survives_a_new_host(void)
{
	struct fx *f = dp_up();
	uint8_t r[256];

	CHECK_EQ(host_pi_set(f, edit_mkey, ORCA_MAD_IFC_F_IGNORE_MKEY, 0, r),
		 0);
	CHECK_EQ(wc_pi_get(f, 0x1234, r), ORCA_MAD_IFC_DROP);
	orca_dev_disconnect(&f->dev);
	orca_dev_connect(&f->dev);
	orca_dev_set_ram(&f->dev, f->ram, RAM_SIZE);
	memset(f->ram, 0, RAM_SIZE);
	fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
	CHECK_EQ(wc_pi_get(f, 0x1234, r), ORCA_MAD_IFC_DROP);
	CHECK_EQ(wc_pi_get(f, MKEY, r), ORCA_MAD_IFC_REPLY);
	CHECK_EQ(get_be(r + D, 8), MKEY);
	CHECK_EQ(r[D + 34] >> 6, 2);
	CHECK_EQ(get_be(r + D + 44, 2), 2);		/* both violations */
	fx_free(f);
}

/*
 * 14.2.4.2: a violation starts the lease (2 s here); a MAD with the key
 * stops it; if it runs out, the protect bits go to 0 and a Get shows the
 * key again.
 */
static void mkey_lease(void)
{
	struct fx *f = dp_up();
	uint8_t r[256];

	CHECK_EQ(host_pi_set(f, edit_mkey_lease, ORCA_MAD_IFC_F_IGNORE_MKEY, 0,
			     r), 0);
	CHECK_EQ(wc_pi_get(f, 0x1234, r), ORCA_MAD_IFC_DROP);
	fx_clock_advance(1000000000ULL);
	CHECK_EQ(wc_pi_get(f, MKEY, r), ORCA_MAD_IFC_REPLY);	/* stops it */
	fx_clock_advance(3000000000ULL);
	CHECK_EQ(wc_pi_get(f, 0x1234, r), ORCA_MAD_IFC_DROP);	/* starts */
	fx_clock_advance(1500000000ULL);
	CHECK_EQ(wc_pi_get(f, 0x1234, r), ORCA_MAD_IFC_DROP);	/* 1.5 s */
	fx_clock_advance(600000000ULL);
	CHECK_EQ(wc_pi_get(f, 0x1234, r), ORCA_MAD_IFC_REPLY);	/* 2.1 s */
	CHECK_EQ(r[D + 34] >> 6, 0);
	CHECK_EQ(get_be(r + D, 8), MKEY);
	fx_free(f);
}

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();
	RUN(cap_mask_default);
	RUN(alias_guids);
	RUN(pin_refuses_host_sets);
	RUN(fw_answers_the_wire);
	RUN(fw_passes_sm_traffic);
	RUN(no_pin_delivers);
	RUN(pin_sm);
	RUN(mkey_survives_a_new_host);
	RUN(mkey_lease);
	return tap_done();
}
