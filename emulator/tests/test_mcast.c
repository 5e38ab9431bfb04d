// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the port's multicast groups, from the interface
 * (orca_hw_cmd_qp.h, struct orca_mcast_in) and IBA vol 1 (10.5.2.4,
 * 11.4.2.4), not from the device's code: ATTACH_MCAST and DETACH_MCAST,
 * their checks and three limits, a group as an (MGID, MLID) pair that
 * lives while a QP is attached, DESTROY_QP and RESET detaching; and a
 * UD packet to an MLID with DestQP 0xffffff delivered to every attached
 * QP, each with its own receive WQE, P_Key and Q_Key, the sending
 * device's own QPs too (loopback, no fabric).
 *
 * usage: orca-emu-mcast-tests [-v]
 */
#include <string.h>

#include "be.h"
#include "dp_fixture.h"
#include "orca_log.h"

#define QKEY		0x1234
#define MLID_A		0xc001
#define MLID_B		0xc002
#define PAYLOAD		64		/* a multiple of 4: no pad */
#define GRH		40

static const uint8_t mgid_a[16] = { 0xff, 0x12, 0x40, 0x1b, [15] = 0x0a };
static const uint8_t mgid_b[16] = { 0xff, 0x12, 0x40, 0x1b, [15] = 0x0b };

static struct orca_mcast_in mcast_in(uint32_t qpn, uint16_t mlid,
				     const uint8_t *mgid)
{
	struct orca_mcast_in in;

	memset(&in, 0, sizeof(in));
	in.qpn = htole32(qpn);
	in.mlid = htole16(mlid);
	memcpy(in.mgid, mgid, 16);
	return in;
}

static int mcast_op(struct fx *f, uint16_t op, uint32_t qpn, uint16_t mlid,
		    const uint8_t *mgid)
{
	struct orca_mcast_in in = mcast_in(qpn, mlid, mgid);

	return fx_cmd(f, op, &in, sizeof(in), NULL, 0);
}

#define attach(f, qpn, mlid, mgid)					\
	mcast_op(f, ORCA_CMD_ATTACH_MCAST, qpn, mlid, mgid)
#define detach(f, qpn, mlid, mgid)					\
	mcast_op(f, ORCA_CMD_DETACH_MCAST, qpn, mlid, mgid)

static int destroy(struct fx *f, uint32_t qpn)
{
	struct orca_qp_handle h = { .qpn = htole32(qpn) };

	return fx_cmd(f, ORCA_CMD_DESTROY_QP, &h, sizeof(h), NULL, 0);
}

/* @n UD QPs in RESET on a new CQ. */
static void ud_qps(struct fx *f, struct ring_qp *q, unsigned int n)
{
	struct ring_cq cq;

	CHECK(make_cq(f, &cq, 4));
	while (n--)
		CHECK(make_qp_srq(f, q++, cq.cqn, ORCA_QPT_UD, 0));
}

/* The groups and the attachments the device's stats count. */
#define EXPECT_GROUPS(f, groups, attached)				\
	do {								\
		CHECK_EQ(fx_stat(f, "mcast_groups"), (groups));		\
		CHECK_EQ(fx_stat(f, "mcast_attached"), (attached));	\
	} while (0)

/* A sender and three members on one device. */
#define N_MEMBERS	3

struct member {
	struct ring_qp qp;
	struct ring_cq cq;		/* its own: no order between QPs */
	uint64_t buf;			/* receive buffer, a page */
};

struct scene {
	struct fx *f;
	struct member s;		/* the sender (a member too, maybe) */
	struct member m[N_MEMBERS];
	uint64_t src;			/* the sender's payload */
	uint32_t lk;			/* one region over all the buffers */
	struct orca_cqe own[8];		/* receive CQEs on the sender's CQ */
	unsigned int n_own;
	struct orca_cqe last;		/* the copy expect_copy() took */
	uint32_t qkey;			/* the Q_Key send_to() sends with */
	uint8_t seq;			/* pattern of the last payload sent */
};

static void member_up(struct scene *t, struct member *m, uint64_t buf,
		      uint32_t qkey, uint16_t pkey_index)
{
	m->buf = buf;
	CHECK(make_cq(t->f, &m->cq, 4));
	CHECK(make_qp_srq(t->f, &m->qp, m->cq.cqn, ORCA_QPT_UD, 0));
	ud_pkey_index = pkey_index;
	ud_rts_qkey(t->f, &m->qp, qkey);
	ud_pkey_index = 0;
}

/*
 * A device up with @sets, the sender and the members in RTS, member i
 * with Q_Key @qkeys[i] and P_Key index @pkix[i] (NULL: QKEY and 0).
 */
static void scene_up(struct scene *t, const char *const *sets,
		     const uint32_t *qkeys, const uint16_t *pkix)
{
	uint64_t region;
	unsigned int i;

	memset(t, 0, sizeof(*t));
	t->f = dp_up_cfg(sets);
	region = heap_alloc((2 + N_MEMBERS) * PAGE);
	CHECK_EQ(reg_mr(t->f, t->f->pdn, region, (2 + N_MEMBERS) * PAGE,
			ORCA_ACCESS_LOCAL_WRITE, &t->lk), 0);
	t->src = region;
	t->qkey = QKEY;
	make_qp_flags = ORCA_QP_CREATE_UD_AV;
	member_up(t, &t->s, region + PAGE, QKEY, 0);
	for (i = 0; i < N_MEMBERS; i++)
		member_up(t, &t->m[i], region + (2 + i) * PAGE,
			  qkeys ? qkeys[i] : QKEY, pkix ? pkix[i] : 0);
	make_qp_flags = 0;
}

static void scene_down(struct scene *t)
{
	CHECK(canaries_ok(t->f));
	fx_free(t->f);
}

/* Post a receive WQE on @m (room for the GRH and the payload). */
static void arm(struct scene *t, struct member *m)
{
	memset(gpa(t->f, m->buf), 0, GRH + PAYLOAD);
	post_recv(t->f, &m->qp, m->buf, GRH + PAYLOAD, t->lk);
}

/* A receive WQE on each member and on the sender. */
static void arm_all(struct scene *t)
{
	unsigned int i;

	for (i = 0; i < N_MEMBERS; i++)
		arm(t, &t->m[i]);
	arm(t, &t->s);
}

/*
 * The sender's UD SEND of a new payload to @dlid and @dqpn, with a GRH
 * to @dgid unless NULL: its one send CQE is a success; receive CQEs on
 * its CQ (its own copies) are kept for next_rx().
 */
static void send_to(struct scene *t, uint16_t dlid, const uint8_t *dgid,
		    uint32_t dqpn)
{
	struct orca_av av = { .port = 1, .dlid = htole16(dlid) };
	uint8_t *b = gpa(t->f, t->src);
	unsigned int i, sq = 0;
	struct orca_cqe c;

	if (dgid) {
		av.flags = ORCA_AV_F_GRH;
		av.hop_limit = 64;
		memcpy(av.dgid, dgid, 16);
	}
	t->seq++;
	for (i = 0; i < PAYLOAD; i++)
		b[i] = t->seq * 31 + i;
	ud_send_av(t->f, &t->s.qp, t->src, PAYLOAD, t->lk, &av, dqpn,
		   t->qkey, 0);
	while (poll_cqe(t->f, &t->s.cq, &c)) {
		if (c.flags & ORCA_CQE_F_SQ) {
			sq++;
			CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
		} else if (t->n_own < 8) {
			t->own[t->n_own++] = c;
		}
	}
	CHECK_EQ(sq, 1);
}

static void send_mcast(struct scene *t, uint16_t mlid, const uint8_t *mgid)
{
	send_to(t, mlid, mgid, ORCA_MCAST_QPN);
}

/* The next receive CQE of @m, false if none. */
static bool next_rx(struct scene *t, struct member *m, struct orca_cqe *c)
{
	if (m != &t->s)
		return poll_cqe(t->f, &m->cq, c);
	if (!t->n_own)
		return false;
	*c = t->own[0];
	memmove(t->own, t->own + 1, --t->n_own * sizeof(*c));
	return true;
}

/*
 * @m received exactly one copy of the last send: a normal UD receive
 * from the sender's QPN and LID, with a GRH to @mgid in the buffer if
 * not NULL, without one if NULL.
 */
#define EXPECT_COPY(t, m, mgid)	expect_copy(t, m, mgid, __LINE__)

static void expect_copy(struct scene *t, struct member *m,
			const uint8_t *mgid, int line)
{
	const uint8_t *b = gpa(t->f, m->buf);
	int before = tap_case_failures;
	struct orca_cqe c;
	uint8_t gid[16];

	CHECK(next_rx(t, m, &c));
	t->last = c;
	CHECK_EQ(le32toh(c.qpn), m->qp.qpn);
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK_EQ(c.opcode, ORCA_CQE_OP_RECV);
	CHECK(!(c.flags & ORCA_CQE_F_SQ));
	CHECK_EQ(le32toh(c.byte_len), GRH + PAYLOAD);
	CHECK_EQ(le32toh(c.src_qp), t->s.qp.qpn);
	CHECK_EQ(le16toh(c.slid), t->f->cfg.lid);
	CHECK_EQ(le16toh(c.pkey_index), 0);
	CHECK(!memcmp(b + GRH, gpa(t->f, t->src), PAYLOAD));
	CHECK_EQ(!!(c.flags & ORCA_CQE_F_GRH), !!mgid);
	if (mgid) {
		orca_gid_entry(&t->f->cfg, 0, gid);
		CHECK_EQ(b[0] >> 4, 6);		/* IPVer */
		CHECK_EQ(b[6], 0x1b);		/* NxtHdr: IBA transport */
		CHECK(!memcmp(b + 8, gid, 16));	/* SGID: the sender's */
		CHECK(!memcmp(b + 24, mgid, 16));	/* DGID: the group */
	}
	CHECK(!next_rx(t, m, &c));		/* one copy, no more */
	if (tap_case_failures != before)
		printf("#   (the copy expected at line %d)\n", line);
}

#define EXPECT_NONE(t, m)						\
	do {								\
		struct orca_cqe _c;					\
		CHECK(!next_rx(t, m, &_c));				\
	} while (0)

/* PortCountersExtended: Xmit/RcvPkts, Unicast.., Multicast Xmit/RcvPkts. */
static void pkt_counters(struct fx *f, uint64_t c[6])
{
	uint8_t m[256];
	unsigned int i;

	CHECK_EQ(fx_pma_get(f, 0x001d, m), ORCA_MAD_IFC_REPLY);
	CHECK_EQ(get_be(m + 4, 2), 0);		/* status */
	for (i = 0; i < 6; i++)
		c[i] = get_be(m + 64 + 24 + 8 * i, 8);
}

/*
 * Both commands check their input alike: the QP (none, 0, 1: BAD_RESOURCE;
 * not UD: BAD_PARAM / QP_TYPE), the MLID's range, the MGID's first byte,
 * the reserved bytes; and a refused ATTACH attaches nothing.
 */
static void command_checks(void)
{
	static const uint16_t ops[] = { ORCA_CMD_ATTACH_MCAST,
					ORCA_CMD_DETACH_MCAST };
	static const uint16_t bad_mlids[] = { 0x0001, 0xbfff, 0xffff };
	struct fx *f = dp_up();
	struct ring_qp u, rc, uc, gsi;
	struct orca_mcast_in in;
	struct ring_cq cq;
	unsigned int i, k;

	CHECK(make_cq(f, &cq, 4));
	CHECK(make_qp_srq(f, &u, cq.cqn, ORCA_QPT_UD, 0));
	CHECK(make_qp_srq(f, &rc, cq.cqn, ORCA_QPT_RC, 0));
	CHECK(make_qp_srq(f, &uc, cq.cqn, ORCA_QPT_UC, 0));
	make_qp_flags = ORCA_QP_CREATE_UD_AV;
	CHECK(make_qp_srq(f, &gsi, cq.cqn, ORCA_QPT_GSI, 0));
	make_qp_flags = 0;
	CHECK_EQ(gsi.qpn, 1);

	for (k = 0; k < 2; k++) {
		uint16_t op = ops[k];

		/* no such QP; QP0 (none) and QP1 (there) are not for groups */
		CHECK_EQ(mcast_op(f, op, 0, MLID_A, mgid_a),
			 ORCA_STATUS_BAD_RESOURCE);
		CHECK_EQ(mcast_op(f, op, 1, MLID_A, mgid_a),
			 ORCA_STATUS_BAD_RESOURCE);
		CHECK_EQ(mcast_op(f, op, u.qpn + 100, MLID_A, mgid_a),
			 ORCA_STATUS_BAD_RESOURCE);
		/* connected QPs */
		EXPECT_FAIL(f, mcast_op(f, op, rc.qpn, MLID_A, mgid_a),
			    ORCA_STATUS_BAD_PARAM, ORCA_SYND_QP_TYPE);
		EXPECT_FAIL(f, mcast_op(f, op, uc.qpn, MLID_A, mgid_a),
			    ORCA_STATUS_BAD_PARAM, ORCA_SYND_QP_TYPE);
		/* a unicast LID, below the range, the permissive LID */
		for (i = 0; i < 3; i++)
			CHECK_EQ(mcast_op(f, op, u.qpn, bad_mlids[i], mgid_a),
				 ORCA_STATUS_BAD_PARAM);
		/* a unicast GID, then either reserved byte */
		for (i = 0; i < 3; i++) {
			in = mcast_in(u.qpn, MLID_A, mgid_a);
			if (i)
				in.reserved[i - 1] = 1;
			else
				in.mgid[0] = 0xfe;
			CHECK_EQ(fx_cmd(f, op, &in, sizeof(in), NULL, 0),
				 ORCA_STATUS_BAD_PARAM);
		}
		EXPECT_GROUPS(f, 0, 0);
	}

	/* the ends of the MLID range are fine; detaching twice is not */
	CHECK_EQ(attach(f, u.qpn, 0xc000, mgid_a), 0);
	CHECK_EQ(attach(f, u.qpn, 0xfffe, mgid_a), 0);
	EXPECT_GROUPS(f, 2, 2);
	CHECK_EQ(detach(f, u.qpn, 0xc000, mgid_a), 0);
	CHECK_EQ(detach(f, u.qpn, 0xc000, mgid_a), ORCA_STATUS_BAD_PARAM);
	/* a group u was never in, and one with its MGID but not its MLID */
	CHECK_EQ(detach(f, u.qpn, MLID_B, mgid_b), ORCA_STATUS_BAD_PARAM);
	CHECK_EQ(detach(f, u.qpn, 0xfffd, mgid_a), ORCA_STATUS_BAD_PARAM);
	EXPECT_GROUPS(f, 1, 1);
	CHECK_EQ(detach(f, u.qpn, 0xfffe, mgid_a), 0);
	EXPECT_GROUPS(f, 0, 0);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/*
 * A limit of 0: max_mcast_grp 0 is no multicast, neither command; no
 * QP in a group, or none in all, refuses every ATTACH and makes no group.
 */
static void zero_limits(void)
{
	static const char *const sets[][2] = {
		{ "max_mcast_grp=0" }, { "max_mcast_qp_attach=0" },
		{ "max_total_mcast_qp_attach=0" },
	};
	struct ring_qp u;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct fx *f = dp_up_cfg(sets[i]);
		int st = i ? ORCA_STATUS_NO_RESOURCES : ORCA_STATUS_UNSUPPORTED;
		int before = tap_case_failures;

		ud_qps(f, &u, 1);
		CHECK_EQ(attach(f, u.qpn, MLID_A, mgid_a), st);
		CHECK_EQ(detach(f, u.qpn, MLID_A, mgid_a),
			 i ? ORCA_STATUS_BAD_PARAM : ORCA_STATUS_UNSUPPORTED);
		EXPECT_GROUPS(f, 0, 0);
		if (tap_case_failures != before)
			printf("#   (with %s)\n", sets[i][0]);
		fx_free(f);
	}
}

/*
 * Two groups, two QPs in a group, three attachments in all; a twice
 * attached QP counts once; (MGID, MLID) pairs are the groups; what a
 * detach, a DESTROY_QP or a RESET frees is free again.
 */
static void limits(void)
{
	const char *const sets[] = { "max_mcast_grp=2",
				     "max_mcast_qp_attach=2",
				     "max_total_mcast_qp_attach=3", NULL };
	struct fx *f = dp_up_cfg(sets);
	struct ring_qp q[4];
	uint32_t a, b, c, d;

	ud_qps(f, q, 4);
	a = q[0].qpn, b = q[1].qpn, c = q[2].qpn, d = q[3].qpn;

	/* group A (mgid_a, MLID_A) full at two */
	CHECK_EQ(attach(f, a, MLID_A, mgid_a), 0);
	CHECK_EQ(attach(f, b, MLID_A, mgid_a), 0);
	CHECK_EQ(attach(f, c, MLID_A, mgid_a),
		 ORCA_STATUS_NO_RESOURCES);
	CHECK_EQ(attach(f, a, MLID_A, mgid_a), 0);	/* already in */
	EXPECT_GROUPS(f, 1, 2);
	/* group B (mgid_b, MLID_B): the third attachment is the last */
	CHECK_EQ(attach(f, c, MLID_B, mgid_b), 0);
	EXPECT_GROUPS(f, 2, 3);
	CHECK_EQ(attach(f, d, MLID_B, mgid_b),
		 ORCA_STATUS_NO_RESOURCES);
	/* b leaves: one attachment free, no group */
	CHECK_EQ(detach(f, b, MLID_A, mgid_a), 0);
	EXPECT_GROUPS(f, 2, 2);
	CHECK_EQ(attach(f, d, MLID_B, mgid_a),	/* a third pair */
		 ORCA_STATUS_NO_RESOURCES);
	CHECK_EQ(attach(f, d, MLID_B, mgid_b), 0);
	EXPECT_GROUPS(f, 2, 3);
	/* A has room for one more QP, the device has not */
	CHECK_EQ(attach(f, b, MLID_A, mgid_a),
		 ORCA_STATUS_NO_RESOURCES);
	CHECK_EQ(detach(f, d, MLID_A, mgid_a), ORCA_STATUS_BAD_PARAM);
	EXPECT_GROUPS(f, 2, 3);

	/* a was A's only QP: destroying it frees a group and an attachment */
	CHECK_EQ(destroy(f, a), 0);
	EXPECT_GROUPS(f, 1, 2);
	CHECK_EQ(attach(f, a, MLID_A, mgid_a), ORCA_STATUS_BAD_RESOURCE);
	CHECK_EQ(attach(f, b, MLID_B, mgid_a), 0);
	EXPECT_GROUPS(f, 2, 3);

	/* RESET drops every group: the limits start over */
	fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
	EXPECT_GROUPS(f, 0, 0);
	ud_qps(f, q, 3);
	CHECK_EQ(attach(f, q[0].qpn, MLID_A, mgid_a), 0);
	CHECK_EQ(attach(f, q[1].qpn, MLID_A, mgid_a), 0);
	CHECK_EQ(attach(f, q[2].qpn, MLID_B, mgid_b), 0);
	EXPECT_GROUPS(f, 2, 3);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/*
 * With a GRH the MGID picks the group: two groups on one MLID, a copy
 * to each QP of the one addressed, with the GRH in its buffer.  The port
 * counts one multicast packet out and one in, however many copies.
 */
static void deliver_grh(void)
{
	struct scene t;
	uint64_t p0[6], p1[6];
	long long copies;

	scene_up(&t, NULL, NULL, NULL);
	CHECK_EQ(attach(t.f, t.m[0].qp.qpn, MLID_A, mgid_a), 0);
	CHECK_EQ(attach(t.f, t.m[1].qp.qpn, MLID_A, mgid_a), 0);
	CHECK_EQ(attach(t.f, t.m[2].qp.qpn, MLID_A, mgid_b), 0);
	EXPECT_GROUPS(t.f, 2, 3);
	arm_all(&t);

	copies = fx_stat(t.f, "mcast_copies");
	pkt_counters(t.f, p0);
	send_mcast(&t, MLID_A, mgid_a);
	EXPECT_COPY(&t, &t.m[0], mgid_a);
	EXPECT_COPY(&t, &t.m[1], mgid_a);
	EXPECT_NONE(&t, &t.m[2]);
	EXPECT_NONE(&t, &t.s);
	CHECK_EQ(fx_stat(t.f, "mcast_copies"), copies + 2);
	pkt_counters(t.f, p1);
	CHECK_EQ(p1[0] - p0[0], 1);		/* PortXmitPkts */
	CHECK_EQ(p1[1] - p0[1], 1);		/* PortRcvPkts */
	CHECK_EQ(p1[2] - p0[2], 0);		/* PortUnicastXmitPkts */
	CHECK_EQ(p1[3] - p0[3], 0);		/* PortUnicastRcvPkts */
	CHECK_EQ(p1[4] - p0[4], 1);		/* PortMulticastXmitPkts */
	CHECK_EQ(p1[5] - p0[5], 1);		/* PortMulticastRcvPkts */
	CHECK_EQ(fx_stat(t.f, "port_mcast_xmit_pkts"), p1[4]);
	CHECK_EQ(fx_stat(t.f, "port_mcast_rcv_pkts"), p1[5]);

	/* the other group on the same MLID */
	arm(&t, &t.m[0]);
	arm(&t, &t.m[1]);
	send_mcast(&t, MLID_A, mgid_b);
	EXPECT_COPY(&t, &t.m[2], mgid_b);
	EXPECT_NONE(&t, &t.m[0]);
	EXPECT_NONE(&t, &t.m[1]);
	CHECK_EQ(fx_stat(t.f, "mcast_copies"), copies + 3);
	/* unicast from the same QP counts as unicast */
	send_to(&t, t.f->cfg.lid, NULL, t.m[0].qp.qpn);
	EXPECT_COPY(&t, &t.m[0], NULL);
	pkt_counters(t.f, p0);
	CHECK_EQ(p0[2] - p1[2], 1);
	CHECK_EQ(p0[3] - p1[3], 1);
	CHECK_EQ(p0[4] - p1[4], 1);		/* mgid_b's packet only */
	CHECK_EQ(p0[5] - p1[5], 1);
	scene_down(&t);
}

/*
 * Without a GRH every group of the MLID: one copy to each QP, also to a
 * QP in two of them, and to the sending QP itself (no loopback block).
 */
static void deliver_no_grh(void)
{
	struct scene t;
	long long copies;
	unsigned int i;

	scene_up(&t, NULL, NULL, NULL);
	CHECK_EQ(attach(t.f, t.m[0].qp.qpn, MLID_A, mgid_a), 0);
	CHECK_EQ(attach(t.f, t.m[1].qp.qpn, MLID_A, mgid_a), 0);
	CHECK_EQ(attach(t.f, t.m[1].qp.qpn, MLID_A, mgid_b), 0);
	CHECK_EQ(attach(t.f, t.m[2].qp.qpn, MLID_A, mgid_b), 0);
	CHECK_EQ(attach(t.f, t.s.qp.qpn, MLID_A, mgid_a), 0);
	EXPECT_GROUPS(t.f, 2, 5);
	arm_all(&t);
	arm_all(&t);			/* room for a second copy */

	copies = fx_stat(t.f, "mcast_copies");
	send_mcast(&t, MLID_A, NULL);
	for (i = 0; i < N_MEMBERS; i++)
		EXPECT_COPY(&t, &t.m[i], NULL);
	EXPECT_COPY(&t, &t.s, NULL);
	CHECK_EQ(fx_stat(t.f, "mcast_copies"), copies + 4);

	/* with a GRH to mgid_a: m1 once, m2 not, the sender again */
	send_mcast(&t, MLID_A, mgid_a);
	EXPECT_COPY(&t, &t.m[0], mgid_a);
	EXPECT_COPY(&t, &t.m[1], mgid_a);
	EXPECT_NONE(&t, &t.m[2]);
	EXPECT_COPY(&t, &t.s, mgid_a);
	scene_down(&t);
}

/*
 * Each member checks its own keys: a Q_Key of its own (a violation,
 * counted) or another partition (a P_Key violation) gets nothing, and
 * takes no WQE; the others still get their copies.
 */
static void deliver_keys(void)
{
	const char *const sets[] = { "pkey_tbl_len=2",
				     "pkey_table=0xffff,0x8001", NULL };
	const uint32_t qkeys[N_MEMBERS] = { QKEY, QKEY + 1, QKEY };
	const uint16_t pkix[N_MEMBERS] = { 0, 0, 1 };
	long long qviol, pviol;
	struct scene t;
	unsigned int i;

	scene_up(&t, sets, qkeys, pkix);
	for (i = 0; i < N_MEMBERS; i++) {
		CHECK_EQ(attach(t.f, t.m[i].qp.qpn, MLID_A, mgid_a), 0);
		arm(&t, &t.m[i]);
	}
	qviol = fx_stat(t.f, "qkey_viol_cntr");
	pviol = fx_stat(t.f, "bad_pkey_cntr");
	send_mcast(&t, MLID_A, mgid_a);
	EXPECT_COPY(&t, &t.m[0], mgid_a);
	EXPECT_NONE(&t, &t.m[1]);
	EXPECT_NONE(&t, &t.m[2]);
	CHECK_EQ(fx_stat(t.f, "qkey_viol_cntr"), qviol + 1);
	CHECK_EQ(fx_stat(t.f, "bad_pkey_cntr"), pviol + 1);

	/* m1 takes its first WQE when the Q_Key is its own */
	CHECK_EQ(attach(t.f, t.m[1].qp.qpn, MLID_B, mgid_b), 0);
	t.qkey = QKEY + 1;
	send_mcast(&t, MLID_B, mgid_b);
	EXPECT_COPY(&t, &t.m[1], mgid_b);
	CHECK_EQ(le32toh(t.last.wqe_idx), 0);
	EXPECT_NONE(&t, &t.m[0]);
	CHECK_EQ(fx_stat(t.f, "qkey_viol_cntr"), qviol + 1);
	scene_down(&t);
}

/*
 * Attaching twice attaches once: one copy, one detach removes it (a
 * second is BAD_PARAM).  After a detach nothing more arrives there,
 * while the others still receive; the last detach ends the group.
 */
static void detach_and_twice(void)
{
	struct scene t;

	scene_up(&t, NULL, NULL, NULL);
	CHECK_EQ(attach(t.f, t.m[0].qp.qpn, MLID_A, mgid_a), 0);
	CHECK_EQ(attach(t.f, t.m[0].qp.qpn, MLID_A, mgid_a), 0);
	CHECK_EQ(attach(t.f, t.m[1].qp.qpn, MLID_A, mgid_a), 0);
	EXPECT_GROUPS(t.f, 1, 2);
	arm(&t, &t.m[0]);
	arm(&t, &t.m[0]);
	arm(&t, &t.m[1]);
	arm(&t, &t.m[1]);
	send_mcast(&t, MLID_A, mgid_a);
	EXPECT_COPY(&t, &t.m[0], mgid_a);	/* and no second one */
	EXPECT_COPY(&t, &t.m[1], mgid_a);

	CHECK_EQ(detach(t.f, t.m[1].qp.qpn, MLID_A, mgid_a), 0);
	EXPECT_GROUPS(t.f, 1, 1);
	send_mcast(&t, MLID_A, mgid_a);
	EXPECT_COPY(&t, &t.m[0], mgid_a);
	EXPECT_NONE(&t, &t.m[1]);

	/* one detach of the twice attached QP: the group is gone */
	arm(&t, &t.m[0]);
	CHECK_EQ(detach(t.f, t.m[0].qp.qpn, MLID_A, mgid_a), 0);
	EXPECT_GROUPS(t.f, 0, 0);
	CHECK_EQ(detach(t.f, t.m[0].qp.qpn, MLID_A, mgid_a),
		 ORCA_STATUS_BAD_PARAM);
	send_mcast(&t, MLID_A, mgid_a);
	send_mcast(&t, MLID_A, NULL);
	EXPECT_NONE(&t, &t.m[0]);
	EXPECT_NONE(&t, &t.m[1]);
	/* and the WQEs were left where they were: a unicast takes m1's */
	send_to(&t, t.f->cfg.lid, NULL, t.m[1].qp.qpn);
	EXPECT_COPY(&t, &t.m[1], NULL);
	scene_down(&t);
}

/* DESTROY_QP detaches: the others keep receiving, the group ends last. */
static void destroy_detaches(void)
{
	struct scene t;
	long long copies;
	unsigned int i;

	scene_up(&t, NULL, NULL, NULL);
	for (i = 0; i < N_MEMBERS; i++)
		CHECK_EQ(attach(t.f, t.m[i].qp.qpn, MLID_A, mgid_a), 0);
	CHECK_EQ(attach(t.f, t.m[1].qp.qpn, MLID_B, mgid_b), 0);
	arm_all(&t);
	EXPECT_GROUPS(t.f, 2, 4);
	CHECK_EQ(destroy(t.f, t.m[1].qp.qpn), 0);
	EXPECT_GROUPS(t.f, 1, 2);
	send_mcast(&t, MLID_A, mgid_a);
	EXPECT_COPY(&t, &t.m[0], mgid_a);
	EXPECT_COPY(&t, &t.m[2], mgid_a);
	EXPECT_NONE(&t, &t.m[1]);		/* its CQ lives on */

	CHECK_EQ(destroy(t.f, t.m[0].qp.qpn), 0);
	CHECK_EQ(destroy(t.f, t.m[2].qp.qpn), 0);
	EXPECT_GROUPS(t.f, 0, 0);
	copies = fx_stat(t.f, "mcast_copies");
	send_mcast(&t, MLID_A, mgid_a);
	send_mcast(&t, MLID_B, NULL);
	for (i = 0; i < N_MEMBERS; i++)
		EXPECT_NONE(&t, &t.m[i]);
	EXPECT_NONE(&t, &t.s);
	CHECK_EQ(fx_stat(t.f, "mcast_copies"), copies);
	scene_down(&t);
}

/*
 * Delivered to nobody: a DestQP other than 0xffffff to the MLID (even a
 * member's QPN), an MLID nobody joined, an MGID nobody joined on a
 * joined MLID.  The receive WQEs stay for the packet that is theirs.
 */
static void delivered_to_nobody(void)
{
	struct scene t;
	long long copies;

	scene_up(&t, NULL, NULL, NULL);
	CHECK_EQ(attach(t.f, t.m[0].qp.qpn, MLID_A, mgid_a), 0);
	CHECK_EQ(attach(t.f, t.m[1].qp.qpn, MLID_A, mgid_a), 0);
	arm_all(&t);
	copies = fx_stat(t.f, "mcast_copies");

	send_to(&t, MLID_A, mgid_a, t.m[0].qp.qpn);
	send_to(&t, MLID_A, NULL, t.m[1].qp.qpn);
	send_to(&t, MLID_A, NULL, 0xfffffe);
	send_mcast(&t, MLID_B, NULL);
	send_mcast(&t, MLID_B, mgid_a);
	send_mcast(&t, MLID_A, mgid_b);
	EXPECT_NONE(&t, &t.m[0]);
	EXPECT_NONE(&t, &t.m[1]);
	EXPECT_NONE(&t, &t.m[2]);
	EXPECT_NONE(&t, &t.s);
	CHECK_EQ(fx_stat(t.f, "mcast_copies"), copies);

	send_mcast(&t, MLID_A, mgid_a);
	EXPECT_COPY(&t, &t.m[0], mgid_a);
	CHECK_EQ(le32toh(t.last.wqe_idx), 0);	/* the first WQE */
	EXPECT_COPY(&t, &t.m[1], mgid_a);
	CHECK_EQ(le32toh(t.last.wqe_idx), 0);
	EXPECT_NONE(&t, &t.m[2]);
	CHECK_EQ(fx_stat(t.f, "mcast_copies"), copies + 2);
	scene_down(&t);
}

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();
	RUN(command_checks);
	RUN(zero_limits);
	RUN(limits);
	RUN(deliver_grh);
	RUN(deliver_no_grh);
	RUN(deliver_keys);
	RUN(detach_and_twice);
	RUN(destroy_detaches);
	RUN(delivered_to_nobody);
	return tap_done();
}
