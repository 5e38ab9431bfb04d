// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the management plane of port 1: the subnet management
 * agent behind MAD_IFC programs the port (LID, SM LID, P_Keys, PortState)
 * and says so with port events; MODIFY_PORT sets the capability bits
 * software owns; QP0 and QP1 exist by their numbers and keep the IBA's
 * special rules (VL15, P_Keys, Q_Keys, 256-byte MADs).  Expectations
 * come from IBA vol. 1 (14.2.5 attribute layouts, 13.5.3 QP0/QP1).
 */
#include <string.h>

#include "be.h"
#include "dp_fixture.h"
#include "orca_log.h"

#define QP1_QKEY	0x80010000U

/* A directed-route SMP of hop 0 (the local SMA) for @attr. */
static void smp(uint8_t *m, uint8_t method, uint16_t attr)
{
	memset(m, 0, 256);
	m[0] = 1;			/* BaseVersion */
	m[1] = 0x81;			/* SubnMgmt, directed route */
	m[2] = 1;			/* ClassVersion */
	m[3] = method;
	m[15] = 0x33;			/* TID */
	put_be(m + 16, attr, 2);
	put_be(m + 32, 0xffff, 2);	/* DrSLID */
	put_be(m + 34, 0xffff, 2);	/* DrDLID */
}

/* MAD_IFC of @mad on port 1; the result, 0xff if the command failed. */
static uint8_t mad_ifc(struct fx *f, const uint8_t *mad, uint8_t *reply)
{
	struct orca_mad_ifc_in in = {};
	struct orca_mad_ifc_out out = {};

	in.port = 1;
	in.flags = ORCA_MAD_IFC_F_IGNORE_MKEY;
	memcpy(in.mad, mad, sizeof(in.mad));
	if (fx_cmd(f, ORCA_CMD_MAD_IFC, &in, sizeof(in), &out, sizeof(out)))
		return 0xff;
	memcpy(reply, out.mad, sizeof(out.mad));
	return out.result;
}

static void port_info_get(struct fx *f, uint8_t *reply)
{
	uint8_t m[256];

	smp(m, 0x01, 0x0015);
	CHECK_EQ(mad_ifc(f, m, reply), ORCA_MAD_IFC_REPLY);
	CHECK_EQ(get_be(reply + 4, 2), 0x8000);	/* D bit, status 0 */
}

/* PortInfo Set from the port's own Get, @edit applied to its data. */
static uint16_t port_info_set(struct fx *f, void (*edit)(uint8_t *d),
			      uint8_t *reply)
{
	uint8_t m[256], cur[256];

	port_info_get(f, cur);
	smp(m, 0x02, 0x0015);
	memcpy(m + 64, cur + 64, 64);
	m[64 + 32] &= 0xf0;		/* PortState: no change */
	m[64 + 33] &= 0x0f;		/* PortPhysicalState: no change */
	edit(m + 64);
	CHECK_EQ(mad_ifc(f, m, reply), ORCA_MAD_IFC_REPLY);
	return get_be(reply + 4, 2) & 0x7fff;
}

static struct orca_port_attr query_port(struct fx *f)
{
	struct orca_query_port_in in = { .port = 1 };
	struct orca_port_attr o = {};

	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_PORT, &in, sizeof(in), &o,
			sizeof(o)), 0);
	return o;
}

/* The port events since the last call: ORCA_PORT_EV_MGMT's changes ORed. */
static unsigned int port_events(struct fx *f, uint8_t ev, uint16_t *changes)
{
	struct orca_eqe e;
	unsigned int i, n = 0;

	for (i = 0; i < f->n_async; i++) {
		if (f->async[i].type != ORCA_EQE_PORT_EVENT ||
		    f->async[i].port.event != ev)
			continue;
		n++;
		if (changes)
			*changes |= le16toh(f->async[i].port.changes);
	}
	f->n_async = 0;
	while (fx_pop(f, &e)) {
		if (e.type != ORCA_EQE_PORT_EVENT || e.port.event != ev)
			continue;
		n++;
		if (changes)
			*changes |= le16toh(e.port.changes);
	}
	return n;
}

static void edit_lid(uint8_t *d)
{
	put_be(d + 16, 0x42, 2);		/* LID */
	put_be(d + 18, 0x07, 2);		/* MasterSMLID */
	d[36] = (d[36] & 0xf0) | 3;	/* MasterSMSL */
}

static void edit_mcast_lid(uint8_t *d)
{
	put_be(d + 16, 0xc001, 2);	/* a multicast LID: invalid */
}

static void edit_down(uint8_t *d)
{
	d[32] = (d[32] & 0xf0) | 1;	/* PortState DOWN */
}

static void edit_armed(uint8_t *d)
{
	d[32] = (d[32] & 0xf0) | 3;
}

static void edit_active(uint8_t *d)
{
	d[32] = (d[32] & 0xf0) | 4;
}

static void edit_rereg(uint8_t *d)
{
	d[51] |= 0x80;			/* ClientReregister */
}

/*
 * NodeInfo and PortInfo as IBA 14.2.5.3 / 14.2.5.6 lay them out, from
 * the port's configuration; a PortInfo Set programs the port.
 */
static void sma_programs_port(void)
{
	struct fx *f = dp_up();
	struct orca_port_attr pa;
	uint8_t m[256], r[256];
	uint16_t chg = 0;

	smp(m, 0x01, 0x0011);
	CHECK_EQ(mad_ifc(f, m, r), ORCA_MAD_IFC_REPLY);
	CHECK_EQ(r[3], 0x81);			/* GetResp */
	CHECK_EQ(get_be(r + 4, 2), 0x8000);
	CHECK_EQ(get_be(r + 8, 8), 0x33);		/* TID kept */
	CHECK_EQ(r[64 + 2], 1);			/* NodeType CA */
	CHECK_EQ(r[64 + 3], 1);			/* NumPorts */
	CHECK_EQ(get_be(r + 64 + 12, 8), f->cfg.node_guid);
	CHECK_EQ(get_be(r + 64 + 20, 8), f->cfg.port_guid);
	CHECK_EQ(r[64 + 36], 1);		/* LocalPortNum */
	CHECK_EQ(get_be(r + 64 + 37, 3), 0x00ca7a);	/* VendorID */

	port_info_get(f, r);
	CHECK_EQ(get_be(r + 64 + 16, 2), f->cfg.lid);
	CHECK_EQ(get_be(r + 64 + 18, 2), f->cfg.sm_lid);
	CHECK_EQ(r[64 + 32] & 0xf, 4);		/* ACTIVE */
	CHECK_EQ(r[64 + 33] >> 4, 5);		/* LinkUp */
	CHECK_EQ(r[64 + 28], 1);		/* LocalPortNum */
	port_events(f, ORCA_PORT_EV_MGMT, NULL);

	/* a new LID and SM: the reply, QUERY_PORT and one event say so */
	CHECK_EQ(port_info_set(f, edit_lid, r), 0);
	CHECK_EQ(get_be(r + 64 + 16, 2), 0x42);
	CHECK_EQ(get_be(r + 64 + 18, 2), 0x07);
	pa = query_port(f);
	CHECK_EQ(le16toh(pa.lid), 0x42);
	CHECK_EQ(le16toh(pa.sm_lid), 0x07);
	CHECK_EQ(pa.sm_sl, 3);
	CHECK_EQ(port_events(f, ORCA_PORT_EV_MGMT, &chg), 1);
	CHECK_EQ(chg, ORCA_PORT_CHG_LID | ORCA_PORT_CHG_SM);
	/* the same Set again changes nothing: no event */
	CHECK_EQ(port_info_set(f, edit_lid, r), 0);
	CHECK_EQ(port_events(f, ORCA_PORT_EV_MGMT, NULL), 0);
	/* a multicast LID is refused (status 0x1c) and changes nothing */
	CHECK_EQ(port_info_set(f, edit_mcast_lid, r), 0x1c);
	CHECK_EQ(le16toh(query_port(f).lid), 0x42);
	/* ClientReregister is an event of its own */
	chg = 0;
	CHECK_EQ(port_info_set(f, edit_rereg, r), 0);
	CHECK_EQ(port_events(f, ORCA_PORT_EV_MGMT, &chg), 1);
	CHECK_EQ(chg, ORCA_PORT_CHG_REREG);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/*
 * IBA 7.2: DOWN retrains the link (the cable is there) to INIT; the SM
 * takes it to ARMED, then ACTIVE, and only entering and leaving ACTIVE
 * are PORT_EVENTs.  An ARMED port sends no data but takes it, and that
 * makes it ACTIVE (7.2.5).
 */
static void port_state_machine(void)
{
	struct fx *f = dp_up();
	uint8_t r[256];

	port_events(f, ORCA_PORT_EV_ACTIVE, NULL);
	CHECK_EQ(port_info_set(f, edit_down, r), 0);
	CHECK_EQ(query_port(f).state, ORCA_PORT_INIT);
	CHECK_EQ(query_port(f).phys_state, 5);	/* LinkUp in INIT */
	CHECK_EQ(port_events(f, ORCA_PORT_EV_DOWN, NULL), 1);
	/* ACTIVE straight from INIT is not a transition IBA has */
	CHECK_EQ(port_info_set(f, edit_active, r), 0x1c);
	CHECK_EQ(query_port(f).state, ORCA_PORT_INIT);
	CHECK_EQ(port_info_set(f, edit_armed, r), 0);
	CHECK_EQ(query_port(f).state, ORCA_PORT_ARMED);
	CHECK_EQ(port_events(f, ORCA_PORT_EV_ACTIVE, NULL), 0);
	CHECK_EQ(port_info_set(f, edit_active, r), 0);
	CHECK_EQ(query_port(f).state, ORCA_PORT_ACTIVE);
	CHECK_EQ(port_events(f, ORCA_PORT_EV_ACTIVE, NULL), 1);

	/* ARMED: data received makes the port ACTIVE */
	CHECK_EQ(port_info_set(f, edit_down, r), 0);
	CHECK_EQ(port_info_set(f, edit_armed, r), 0);
	{
		struct orca_pkt *p = pkt_alloc(&f->dev);

		CHECK(p);
		p->opcode = IB_UD | IB_SEND_ONLY;
		p->hdrs = PKT_DETH;
		p->dlid = f->cfg.lid;
		p->dqpn = 77;			/* nobody: dropped after */
		p->pkey = 0xffff;
		p->paylen = 4;
		wire_rx(&f->dev, p);
	}
	CHECK_EQ(query_port(f).state, ORCA_PORT_ACTIVE);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/* MODIFY_PORT: software's capability bits, nothing else. */
static void modify_port(void)
{
	struct fx *f = dp_up();
	struct orca_modify_port_in in = { .port = 1 };
	uint32_t before = le32toh(query_port(f).port_cap_flags);
	uint8_t r[256];

	in.set_cap = htole32(1U << 1 | 1U << 16);	/* IsSM, IsCM */
	CHECK_EQ(fx_cmd(f, ORCA_CMD_MODIFY_PORT, &in, sizeof(in), NULL, 0), 0);
	CHECK_EQ(le32toh(query_port(f).port_cap_flags),
		 before | 1U << 1 | 1U << 16);
	port_info_get(f, r);
	CHECK_EQ(get_be(r + 64 + 20, 4), before | 1U << 1 | 1U << 16);
	in.set_cap = 0;
	in.clr_cap = htole32(1U << 1);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_MODIFY_PORT, &in, sizeof(in), NULL, 0), 0);
	CHECK_EQ(le32toh(query_port(f).port_cap_flags), before | 1U << 16);
	/* IsSM is software's; a PortInfo bit the device owns is not */
	in.clr_cap = 0;
	in.set_cap = htole32(1U << 11);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_MODIFY_PORT, &in, sizeof(in),
			      NULL, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	in.set_cap = 0;
	in.port = 2;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_MODIFY_PORT, &in, sizeof(in),
			      NULL, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	/* the bits are the host software's: a new host starts without them */
	f->regs->dev_ctl = htole32(ORCA_DEV_CTL_RESET);
	orca_dev_tick(&f->dev);
	CHECK_EQ(le32toh(f->regs->dev_sts), ORCA_DEV_STS_RESET_DONE);
	f->regs->dev_ctl = 0;
	fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
	CHECK_EQ(le32toh(query_port(f).port_cap_flags), before);
	fx_free(f);
}

/* A UD SEND of @len bytes at @buf to @dlid, its address in the WQE. */
static void send_av(struct fx *f, struct ring_qp *q, uint64_t buf,
		    uint32_t len, uint32_t lk, uint16_t dlid, uint32_t dqpn,
		    uint32_t qkey, uint16_t pkey_index)
{
	struct orca_av av = { .port = 1, .dlid = htole16(dlid) };

	ud_send_av(f, q, buf, len, lk, &av, dqpn, qkey, pkey_index);
}

/* The next CQE of @cq, or a zeroed one with status 0xff if none. */
static struct orca_cqe next_cqe(struct fx *f, struct ring_cq *cq)
{
	struct orca_cqe c = {};

	if (!poll_cqe(f, cq, &c))
		c.status = 0xff;
	return c;
}

/*
 * QP0 and QP1 by number (IBA 13.5.3): one of each; QP1 takes a MAD with
 * Q_Key 0x80010000 in any partition of the table, QP0 only on VL15 (the
 * device's own QP0 sends), and neither takes anything but 256 bytes.
 */
static void special_qps(void)
{
	const char *const sets[] = { "pkey_tbl_len=2",
				     "pkey_table=0xffff,0x8001", NULL };
	struct fx *f = dp_up_cfg(sets);
	uint64_t buf = heap_alloc(PAGE);
	uint8_t *b = gpa(f, buf);
	struct ring_qp q0, q1, q0b, u;
	struct ring_cq cq;
	struct orca_cqe c;
	uint32_t lk;
	unsigned int i;

	CHECK_EQ(reg_mr(f, f->pdn, buf, PAGE, ORCA_ACCESS_LOCAL_WRITE, &lk), 0);
	for (i = 0; i < 256; i++)
		b[i] = i;
	CHECK(make_cq(f, &cq, 5));
	make_qp_flags = ORCA_QP_CREATE_UD_AV;
	make_qp_type = ORCA_QPT_SMI;
	CHECK(make_qp(f, &q0, cq.cqn));
	CHECK_EQ(q0.qpn, 0);
	CHECK(!make_qp(f, &q0b, cq.cqn));	/* one QP0 */
	CHECK_EQ(f->status, ORCA_STATUS_BAD_RESOURCE);
	make_qp_type = ORCA_QPT_GSI;
	CHECK(make_qp(f, &q1, cq.cqn));
	CHECK_EQ(q1.qpn, 1);
	make_qp_type = ORCA_QPT_UD;
	CHECK(make_qp(f, &u, cq.cqn));
	CHECK(u.qpn >= 2);
	make_qp_type = ORCA_QPT_RC;
	make_qp_flags = 0;
	ud_rts_qkey(f, &q0, 0);
	ud_rts_qkey(f, &q1, QP1_QKEY);
	ud_rts_qkey(f, &u, QP1_QKEY);

	/* QP1 to QP1 in partition 1 (0x8001): delivered, index 1 */
	post_recv(f, &q1, buf + 1024, 40 + 256, lk);
	send_av(f, &q1, buf, 256, lk, f->cfg.lid, 1, 0x80000000U, 1);
	c = next_cqe(f, &cq);
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(c.flags & ORCA_CQE_F_SQ);
	c = next_cqe(f, &cq);
	CHECK_EQ(le32toh(c.qpn), 1);
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK_EQ(le32toh(c.byte_len), 40 + 256);
	CHECK_EQ(le32toh(c.src_qp), 1);
	CHECK_EQ(le16toh(c.pkey_index), 1);
	CHECK(!memcmp(gpa(f, buf + 1024 + 40), b, 256));
	/* a P_Key index the table has not: the send fails */
	send_av(f, &q1, buf, 256, lk, f->cfg.lid, 1, 0x80000000U, 9);
	c = next_cqe(f, &cq);
	CHECK_EQ(c.status, ORCA_CQE_LOC_QP_OP_ERR);

	/* QP0 to QP0 (LID-routed to itself): VL15, no Q_Key check */
	post_recv(f, &q0, buf + 2048, 40 + 256, lk);
	send_av(f, &q0, buf, 256, lk, f->cfg.lid, 0, 0x1234, 0);
	c = next_cqe(f, &cq);
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	c = next_cqe(f, &cq);
	CHECK_EQ(le32toh(c.qpn), 0);
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK_EQ(le32toh(c.src_qp), 0);
	CHECK(!memcmp(gpa(f, buf + 2048 + 40), b, 256));

	/* not VL15 to QP0, not a MAD to QP1: dropped, no CQE */
	post_recv(f, &q0, buf + 2048, 40 + 256, lk);
	post_recv(f, &q1, buf + 1024, 40 + 256, lk);
	send_av(f, &u, buf, 256, lk, f->cfg.lid, 0, QP1_QKEY, 0);
	CHECK_EQ(next_cqe(f, &cq).status, ORCA_CQE_SUCCESS);	/* u's send */
	send_av(f, &u, buf, 100, lk, f->cfg.lid, 1, QP1_QKEY, 0);
	CHECK_EQ(next_cqe(f, &cq).status, ORCA_CQE_SUCCESS);
	/* a wrong Q_Key to QP1 */
	send_av(f, &u, buf, 256, lk, f->cfg.lid, 1, 0x1234, 0);
	CHECK_EQ(next_cqe(f, &cq).status, ORCA_CQE_SUCCESS);
	CHECK_EQ(next_cqe(f, &cq).status, 0xff);
	/* a proper MAD from an ordinary UD QP to QP1 is taken */
	send_av(f, &u, buf, 256, lk, f->cfg.lid, 1, QP1_QKEY, 0);
	CHECK_EQ(next_cqe(f, &cq).status, ORCA_CQE_SUCCESS);
	c = next_cqe(f, &cq);
	CHECK_EQ(le32toh(c.qpn), 1);
	CHECK_EQ(le32toh(c.src_qp), u.qpn);
	CHECK_EQ(le16toh(c.pkey_index), 0);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/*
 * QP0 sends from the permissive LID while the port has no LID (IBA
 * 14.2.2.1, before the SM), and a directed-route SMP (DLID 0xffff) never
 * loops back: without a fabric it leaves and is lost, counted.
 */
static void qp0_permissive(void)
{
	struct fx *f = dp_up();
	uint64_t buf = heap_alloc(PAGE);
	struct ring_qp q0;
	struct ring_cq cq;
	uint32_t lk;
	uint64_t rx;

	CHECK_EQ(reg_mr(f, f->pdn, buf, PAGE, ORCA_ACCESS_LOCAL_WRITE, &lk), 0);
	CHECK(make_cq(f, &cq, 5));
	make_qp_flags = ORCA_QP_CREATE_UD_AV;
	make_qp_type = ORCA_QPT_SMI;
	CHECK(make_qp(f, &q0, cq.cqn));
	make_qp_type = ORCA_QPT_RC;
	make_qp_flags = 0;
	ud_rts_qkey(f, &q0, 0);
	post_recv(f, &q0, buf + 1024, 40 + 256, lk);
	rx = f->dev.stats.rx_pkts;
	send_av(f, &q0, buf, 256, lk, 0xffff, 0, 0, 0);
	CHECK_EQ(next_cqe(f, &cq).status, ORCA_CQE_SUCCESS);
	CHECK_EQ(next_cqe(f, &cq).status, 0xff);
	CHECK_EQ(f->dev.stats.rx_pkts, rx);
	CHECK(f->dev.stats.port_xmit_discards >= 1);
	fx_free(f);
}

/* Without the capability there are no QP0/QP1 and no MODIFY_PORT. */
static void without_cap(void)
{
	const char *const sets[] = { "dev_caps=0x1fcff", NULL };
	struct fx *f = dp_up_cfg(sets);
	struct orca_modify_port_in in = { .port = 1 };
	struct ring_qp q0;
	struct ring_cq cq;
	uint8_t m[256], r[256];

	CHECK(make_cq(f, &cq, 5));
	make_qp_type = ORCA_QPT_SMI;
	CHECK(!make_qp(f, &q0, cq.cqn));
	CHECK_EQ(f->status, ORCA_STATUS_UNSUPPORTED);
	make_qp_type = ORCA_QPT_RC;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_MODIFY_PORT, &in, sizeof(in),
			      NULL, 0),
		    ORCA_STATUS_UNSUPPORTED, ORCA_SYND_NONE);
	smp(m, 0x01, 0x0011);
	CHECK_EQ(mad_ifc(f, m, r), ORCA_MAD_IFC_PASS);
	fx_free(f);
}

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();
	RUN(sma_programs_port);
	RUN(port_state_machine);
	RUN(modify_port);
	RUN(special_qps);
	RUN(qp0_permissive);
	RUN(without_cap);
	return tap_done();
}
