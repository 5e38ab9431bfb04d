// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of MAD_IFC: the performance management agent answers from
 * the port's counters, which count every octet from LRH to ICRC of what
 * the port sent and received (IBA 16.1.3.5); the expectations are the
 * IBA's header sizes, not the device's code.  Which MADs are the
 * firmware's, and the command's own checks (the SMA: test_mad_qps.c).
 */
#include <string.h>

#include "be.h"
#include "dp_fixture.h"
#include "orca_log.h"

/* IBA header sizes */
#define LRH	8
#define BTH	12
#define AETH	4
#define ICRC	4

/* PortCountersExtended: Xmit/RcvData (words), Xmit/RcvPkts, unicast. */
static void ext_counters(struct fx *f, uint64_t c[6])
{
	uint8_t m[256];
	unsigned int i;

	CHECK_EQ(fx_pma_get(f, 0x001d, m), ORCA_MAD_IFC_REPLY);
	CHECK_EQ(m[3], 0x81);		/* GetResp */
	CHECK_EQ(get_be(m + 4, 2), 0);	/* status */
	for (i = 0; i < 6; i++)
		c[i] = get_be(m + 72 + 8 * i, 8);
}

/*
 * One RC SEND_ONLY of 100 bytes on loopback: the request (LRH, BTH, 100
 * bytes, ICRC) and its ACK (LRH, BTH, AETH, ICRC) leave the port and come
 * back into it; nothing else moves.
 */
static void pma_counts_the_wire(void)
{
	struct fx *f = dp_up();
	uint64_t src = heap_alloc(PAGE), dst = heap_alloc(PAGE);
	const uint64_t octets = (LRH + BTH + 100 + ICRC) +
				(LRH + BTH + AETH + ICRC);
	uint64_t a0[6], a1[6];
	uint32_t slk, dlk;
	struct ring_qp a, b;
	struct ring_cq cq;
	struct orca_cqe c;
	uint8_t m[256];

	CHECK_EQ(reg_mr(f, f->pdn, src, PAGE, ORCA_ACCESS_LOCAL_WRITE, &slk), 0);
	CHECK_EQ(reg_mr(f, f->pdn, dst, PAGE, ORCA_ACCESS_LOCAL_WRITE, &dlk), 0);
	CHECK(make_cq(f, &cq, 5));
	CHECK(make_qp(f, &a, cq.cqn));
	CHECK(make_qp(f, &b, cq.cqn));
	CHECK(connect_rc(f, &a, b.qpn, 0, 1));
	CHECK(connect_rc(f, &b, a.qpn, 0, 1));
	ext_counters(f, a0);
	post_recv(f, &b, dst, PAGE, dlk);
	post_send(f, &a, ORCA_WR_SEND, src, 100, slk, 0, 0);
	CHECK(poll_cqe(f, &cq, &c) && poll_cqe(f, &cq, &c));
	ext_counters(f, a1);
	CHECK_EQ(octets % 4, 0);
	CHECK_EQ(a1[0] - a0[0], octets / 4);	/* PortXmitData */
	CHECK_EQ(a1[1] - a0[1], octets / 4);	/* PortRcvData */
	CHECK_EQ(a1[2] - a0[2], 2);		/* PortXmitPkts */
	CHECK_EQ(a1[3] - a0[3], 2);		/* PortRcvPkts */
	CHECK_EQ(a1[4] - a0[4], 2);		/* PortUnicastXmitPkts */
	CHECK_EQ(a1[5] - a0[5], 2);		/* PortUnicastRcvPkts */

	/* the 32-bit PortCounters say the same */
	CHECK_EQ(fx_pma_get(f, 0x0012, m), ORCA_MAD_IFC_REPLY);
	CHECK_EQ(get_be(m + 64 + 24, 4), a1[0]);
	CHECK_EQ(get_be(m + 64 + 28, 4), a1[1]);
	CHECK_EQ(get_be(m + 64 + 32, 4), a1[2]);
	CHECK_EQ(get_be(m + 64 + 36, 4), a1[3]);

	/* ClassPortInfo: the extended counters are there */
	CHECK_EQ(fx_pma_get(f, 0x0001, m), ORCA_MAD_IFC_REPLY);
	CHECK(get_be(m + 66, 2) & (1u << 9));
	fx_free(f);
}

/* A packet the port cannot send is a PortXmitDiscard, not PortXmitData. */
static void pma_xmit_discards(void)
{
	struct fx *f = dp_up();
	uint64_t src = heap_alloc(PAGE);
	uint64_t c0[6], c1[6];
	uint8_t m[256];
	struct ring_qp a;
	struct ring_cq cq;
	uint32_t slk;

	CHECK_EQ(reg_mr(f, f->pdn, src, PAGE, ORCA_ACCESS_LOCAL_WRITE, &slk), 0);
	CHECK(make_cq(f, &cq, 5));
	make_qp_type = ORCA_QPT_UC;
	CHECK(make_qp(f, &a, cq.cqn));
	make_qp_type = ORCA_QPT_RC;
	connect_dlid = 0x77;		/* nobody's LID: no route */
	CHECK(connect_uc(f, &a, 0x99));
	connect_dlid = 0;
	ext_counters(f, c0);
	CHECK_EQ(fx_pma_get(f, 0x0012, m), ORCA_MAD_IFC_REPLY);
	CHECK_EQ(get_be(m + 64 + 14, 2), 0);	/* PortXmitDiscards */
	post_send(f, &a, ORCA_WR_SEND, src, 64, slk, 0, 0);
	ext_counters(f, c1);
	CHECK_EQ(c1[0] - c0[0], 0);
	CHECK_EQ(c1[2] - c0[2], 0);
	CHECK_EQ(fx_pma_get(f, 0x0012, m), ORCA_MAD_IFC_REPLY);
	CHECK_EQ(get_be(m + 64 + 14, 2), 1);
	fx_free(f);
}

static void mad_ifc_checks(void)
{
	struct fx *f = dp_up();
	struct orca_mad_ifc_in in = {};
	struct orca_mad_ifc_out out;

	/* an SMP: the device's SMA answers it (test_mad_qps.c) ... */
	in.port = 1;
	in.mad[0] = 1;
	in.mad[1] = 0x81;
	in.mad[2] = 1;
	in.mad[3] = 0x01;
	in.mad[17] = 0x11;		/* NodeInfo */
	CHECK_EQ(fx_cmd(f, ORCA_CMD_MAD_IFC, &in, sizeof(in), &out,
			sizeof(out)), 0);
	CHECK_EQ(out.result, ORCA_MAD_IFC_REPLY);
	/* ... an SMInfo is for the SM on this node, not the SMA */
	in.mad[17] = 0x20;
	CHECK_EQ(fx_cmd(f, ORCA_CMD_MAD_IFC, &in, sizeof(in), &out,
			sizeof(out)), 0);
	CHECK_EQ(out.result, ORCA_MAD_IFC_PASS);
	in.mad[17] = 0x11;
	in.port = 2;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_MAD_IFC, &in, sizeof(in), &out,
			      sizeof(out)),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	in.port = 1;
	in.flags = 0x80;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_MAD_IFC, &in, sizeof(in), &out,
			      sizeof(out)),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS);
	in.flags = 0;
	in.reserved = htole32(1);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_MAD_IFC, &in, sizeof(in), &out,
			      sizeof(out)),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_RESERVED_NZ);
	fx_free(f);
}

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();
	RUN(pma_counts_the_wire);
	RUN(pma_xmit_discards);
	RUN(mad_ifc_checks);
	return tap_done();
}
