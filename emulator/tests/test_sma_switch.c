// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The subnet management agent of a switch (orca_sma.c through
 * orca_mad_process()): NodeInfo and PortInfo of ports 0..N, the subnet
 * fields kept by port 0, SwitchInfo and its PortStateChange bit, the
 * linear and multicast forwarding tables, P_Key, SL2VL and VL
 * arbitration tables per port; bytes at IBA vol 1 offsets.
 *
 * usage: orca-emu-sma-switch-tests [-v]
 */
#include <stdio.h>
#include <string.h>

#include "orca_log.h"
#include "sma_fixture.h"

/* A switch with 8 external ports; port 0's GUID is what NodeInfo says. */
static void switch_setup(void)
{
	unsigned int i;

	CHECK_EQ(orca_mad_node_init(&node, 2, 8), 0);
	node.node_guid = NODE_GUID;
	node.sys_guid = NODE_GUID;
	for (i = 0; i <= 8; i++)
		node.port[i].guid = NODE_GUID + 0x100 + i;
	strcpy(node.desc, "orca-fabric");
	sm_key = 0;
}

static void switch_node(void)
{
	switch_setup();
	mad_req(DR, GET, 0x0011, 0);
	CHECK_EQ(mad_run(3), ORCA_MAD_REPLY);
	check_resp(0x8000);
	CHECK_EQ(rsp[D + 2], 2);			/* switch */
	CHECK_EQ(rsp[D + 3], 8);			/* external ports */
	CHECK_EQ(R64(D + 20), NODE_GUID + 0x100);	/* port 0's GUID */
	CHECK_EQ(rsp[D + 36], 3);			/* LocalPortNum */
	mad_req(SUBN, GET, 0x0014, 0);
	CHECK_EQ(mad_run(5), ORCA_MAD_REPLY);
	CHECK_EQ(R64(D), NODE_GUID + 0x100);
	mad_req(SUBN, GET, 0x0011, 0);
	CHECK_EQ(mad_run(9), ORCA_MAD_DROP);		/* no port 9 */
	CHECK_EQ(mad_run(0), ORCA_MAD_REPLY);		/* the SMA's own */
}

static void switch_port_info(void)
{
	switch_setup();
	pi_get(2, 0);
	CHECK_EQ(pi[28], 2);
	CHECK_EQ(pi[32] & 0xf, 4);			/* port 0 ACTIVE */
	CHECK_EQ(pi[33] >> 4, 5);
	pi_assign(2, 0, 0x20);
	CHECK_EQ(chg, ORCA_MAD_CHG_LID | ORCA_MAD_CHG_SM);
	pi_get(2, 8);
	CHECK_EQ(pi[32] & 0xf, 1);
	CHECK_EQ(get_be(pi + 16, 2), 0x20);		/* port 0's LID */
	mad_req(SUBN, GET, 0x0015, 9);
	CHECK_EQ(mad_run(2), ORCA_MAD_REPLY);
	check_resp(0x001c);
	/* an external port's Set leaves the subnet fields alone */
	pi_get_nop(2, 4);
	put_be(pi + 16, 0, 2);
	pi[36] = 0x4f;
	CHECK_EQ(pi_set(2, 4), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(chg, ORCA_MAD_CHG_PORT);
	CHECK_EQ(node.port[4].neighbor_mtu, 4);
	CHECK_EQ(node.port[0].lid, 0x20);
	CHECK_EQ(node.port[0].sm_sl, 0);
	/* port 0 only stays where it is */
	REFUSED(2, 0, { 32, 0x0f, 0x01 });
	REFUSED(2, 0, { 33, 0xf0, 0x20 });
	/* the owner's links, and the SM through port 0 */
	orca_mad_link(&node, 4, true);
	CHECK_EQ(orca_mad_link(&node, 0, false), 0);
	pi_get(0, 4);
	CHECK_EQ(pi[32] & 0xf, 2);
	CHECK_EQ(pi[33] >> 4, 5);
	pi_get_nop(0, 4);
	pi[32] |= 3;
	CHECK_EQ(pi_set(0, 4), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(node.port[4].state, 3);
}

static uint8_t switch_psc(void)
{
	mad_req(SUBN, GET, 0x0012, 0);
	CHECK_EQ(mad_run(0), ORCA_MAD_REPLY);
	check_resp(0);
	return rsp[D + 11] & 0x04;
}

static void switch_info(void)
{
	switch_setup();
	mad_req(SUBN, GET, 0x0012, 0);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(R16(D), 0xc000);			/* LinearFDBCap */
	CHECK_EQ(R16(D + 2), 0);			/* RandomFDBCap */
	CHECK_EQ(R16(D + 4), 1024);			/* MulticastFDBCap */
	CHECK_EQ(R16(D + 6), 0);			/* LinearFDBTop */
	CHECK_EQ(rsp[D + 11], 0);
	CHECK_EQ(R64(D + 12) | R32(D + 20), 0);
	CHECK_EQ(switch_psc(), 0);
	orca_mad_link(&node, 1, true);
	CHECK_EQ(switch_psc(), 0x04);
	mad_req(SUBN, SET, 0x0012, 0);
	W16(D + 6, 0x0040);
	W8(D + 11, 0x98);		/* LifeTime 19, PSC not written */
	CHECK_EQ(mad_run(0), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(chg, ORCA_MAD_CHG_FWD);
	CHECK_EQ(R16(D + 6), 0x40);
	CHECK_EQ(rsp[D + 11], 0x9c);
	W8(D + 11, 0x9c);		/* writing it as 1 clears it */
	CHECK_EQ(mad_run(0), ORCA_MAD_REPLY);
	CHECK_EQ(rsp[D + 11], 0x98);
	CHECK_EQ(switch_psc(), 0);
	/* ARMED/ACTIVE by the SM do not set it; a link going down does */
	pi_get_nop(0, 1);
	pi[32] |= 3;
	CHECK_EQ(pi_set(0, 1), ORCA_MAD_REPLY);
	CHECK_EQ(switch_psc(), 0);
	orca_mad_link(&node, 1, false);
	CHECK_EQ(switch_psc(), 0x04);
	mad_req(SUBN, SET, 0x0012, 0);
	W16(D + 6, 0xc000);			/* past LinearFDBCap */
	CHECK_EQ(mad_run(0), ORCA_MAD_REPLY);
	check_resp(0x001c);
	CHECK_EQ(R16(D + 6), 0x40);
	CHECK_EQ(chg, 0);
}

static void switch_forwarding(void)
{
	unsigned int i;

	switch_setup();
	mad_req(SUBN, GET, 0x0019, 767);
	CHECK_EQ(mad_run(0), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(R64(D), 0xffffffffffffffffULL);	/* no port yet */
	mad_req(SUBN, SET, 0x0019, 1);
	for (i = 0; i < 64; i++)
		W8(D + i, i % 9);
	CHECK_EQ(mad_run(0), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(chg, ORCA_MAD_CHG_FWD);
	CHECK_EQ(node.sw.lft[64 + 10], 1);
	mad_req(SUBN, GET, 0x0019, 1);
	CHECK_EQ(mad_run(0), ORCA_MAD_REPLY);
	CHECK_EQ(rsp[D + 63], 0);
	CHECK_EQ(rsp[D + 62], 8);
	mad_req(SUBN, GET, 0x0019, 768);
	CHECK_EQ(mad_run(0), ORCA_MAD_REPLY);
	check_resp(0x001c);

	/* MFT: position 0 is ports 0-15 */
	mad_req(SUBN, SET, 0x001b, 3);
	W16(D, 0x0106);
	W16(D + 62, 0x01fe);
	CHECK_EQ(mad_run(0), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(node.sw.mft[0][96], 0x0106);
	mad_req(SUBN, GET, 0x001b, 3);
	CHECK_EQ(mad_run(0), ORCA_MAD_REPLY);
	CHECK_EQ(R16(D + 62), 0x01fe);
	mad_req(SUBN, GET, 0x001b, 1u << 28 | 3);	/* 8 ports: no 16 */
	CHECK_EQ(mad_run(0), ORCA_MAD_REPLY);
	check_resp(0x001c);
	mad_req(SUBN, GET, 0x001b, 32);			/* 32 blocks */
	CHECK_EQ(mad_run(0), ORCA_MAD_REPLY);
	check_resp(0x001c);
	node.num_ports = 32;
	mad_req(SUBN, SET, 0x001b, 2u << 28 | 31);
	W16(D + 2, 1);					/* port 32 */
	CHECK_EQ(mad_run(0), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(node.sw.mft[2][993], 1);
}

static void switch_tables(void)
{
	switch_setup();
	mad_req(SUBN, GET, 0x0016, 0);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(R16(D), 0xffff);
	mad_req(SUBN, GET, 0x0016, 1 << 16);	/* no enforcement */
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x001c);
	mad_req(SUBN, SET, 0x0017, 3 << 8 | 5);
	W64(D, 0x1111111111111111ULL);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(node.port[3].sl2vl[5][7], 0x11);
	mad_req(SUBN, GET, 0x0017, 5 << 8 | 3);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	CHECK_EQ(R64(D), 0);
	mad_req(SUBN, GET, 0x0017, 9 << 8 | 3);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x001c);
	mad_req(SUBN, GET, 0x0017, 3 << 8 | 9);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x001c);
	node.port[6].vl_cap = 4;
	mad_req(SUBN, SET, 0x0018, 3 << 16 | 6);
	W8(D + 2, 0x03);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(node.port[6].vl_arb[2][2], 3);
	mad_req(SUBN, GET, 0x0018, 3 << 16 | 9);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x001c);
}

/*
 * Partition enforcement (IBA 14.2.5.4 SwitchInfo bytes 14-16, 14.2.5.6
 * PortInfo byte 43, 14.2.5.7 P_KeyTable with the port in 23:16): the
 * switch says what it has, an external port keeps only those bits (port
 * 0 none), and each external port has PartitionEnforcementCap entries.
 */
static void switch_enforcement(void)
{
	unsigned int i;

	switch_setup();
	/* without the capability: no tables, no bits, whatever the mask */
	node.sw.enforce_mask = 0x0c;
	mad_req(SUBN, GET, 0x0012, 0);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	CHECK_EQ(rsp[D + 16], 0);
	mad_req(SUBN, GET, 0x0016, 3 << 16);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x001c);
	pi_get_nop(0, 3);
	pi[43] |= 0x0f;
	CHECK_EQ(pi_set(0, 3), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(rsp[D + 43] & 0x0f, 0);

	node.sw.enforce_cap = 40;
	node.sw.enforce_mask = 0x0c;
	mad_req(SUBN, GET, 0x0012, 0);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	CHECK_EQ(R16(D + 14), 40);			/* PartitionEnforcementCap */
	CHECK_EQ(rsp[D + 16], 0xc0);			/* In, Out; no FilterRaw */
	/* the bits an external port keeps are the switch's */
	pi_get_nop(0, 3);
	pi[43] |= 0x0f;
	CHECK_EQ(pi_set(0, 3), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(rsp[D + 43] & 0x0f, 0x0c);
	CHECK_EQ(node.port[3].enforcement, 0x0c);
	pi_get_nop(0, 0);
	pi[43] |= 0x0f;
	CHECK_EQ(pi_set(0, 0), ORCA_MAD_REPLY);
	CHECK_EQ(rsp[D + 43] & 0x0f, 0);		/* port 0: reserved */
	/* port 3's own table: 32 + 8 entries */
	mad_req(SUBN, SET, 0x0016, 3 << 16 | 0);
	for (i = 0; i < 32; i++)
		W16(D + 2 * i, 0x8000 | (i + 1));
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(chg, ORCA_MAD_CHG_PKEY);
	CHECK_EQ(node.port[3].pkeys[31], 0x8020);
	CHECK_EQ(node.port[0].pkeys[0], 0xffff);	/* port 0's unchanged */
	mad_req(SUBN, SET, 0x0016, 3 << 16 | 1);
	for (i = 0; i < 32; i++)
		W16(D + 2 * i, 0x7000 | i);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(node.port[3].pkeys[39], 0x7007);
	CHECK_EQ(R16(D + 16), 0);			/* entry 40: none kept */
	mad_req(SUBN, GET, 0x0016, 3 << 16 | 1);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(R16(D + 14), 0x7007);
	CHECK_EQ(R16(D + 16), 0);
	mad_req(SUBN, GET, 0x0016, 3 << 16 | 2);	/* past 40 */
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x001c);
	mad_req(SUBN, GET, 0x0016, 9 << 16);		/* no port 9 */
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x001c);
}

/* The next trap the node sends at @now into rsp; its number, or -1. */
static int trap_out(uint64_t now, uint16_t *dlid, uint16_t *slid)
{
	if (!orca_mad_trap_next(&node, now, rsp, dlid, slid))
		return -1;
	return (int)R16(64 + 4);
}

/*
 * Traps (IBA 14.2.5.1 Notice, 14.3.1): PortStateChange going to 1 is
 * trap 128, a failed M_Key check trap 256; each is a SubnTrap() from the
 * node's LID to the SM LID, sent again each interval until the SM's
 * TrapRepress of its TID, one per number at a time.
 */
static void switch_traps(void)
{
	uint16_t dlid, slid;
	uint64_t tid;

	switch_setup();
	/* no SM LID yet: nothing raised, counted */
	orca_mad_link(&node, 1, true);
	CHECK_EQ(trap_out(0, &dlid, &slid), -1);
	CHECK_EQ(node.traps.no_sm, 1);
	pi_assign(2, 0, 0x20);				/* LID 0x20, SM LID 1 */
	CHECK_EQ(switch_psc(), 0x04);
	mad_req(SUBN, SET, 0x0012, 0);
	W8(D + 11, 0x04);				/* PSC cleared */
	CHECK_EQ(mad_run(0), ORCA_MAD_REPLY);
	CHECK_EQ(switch_psc(), 0);

	/* trap 128 */
	orca_mad_link(&node, 2, true);
	CHECK_EQ(trap_out(5000, &dlid, &slid), 128);
	CHECK_EQ(dlid, 1);
	CHECK_EQ(slid, 0x20);
	CHECK_EQ(rsp[0], 1);
	CHECK_EQ(rsp[1], 0x01);				/* LID-routed */
	CHECK_EQ(rsp[2], 1);
	CHECK_EQ(rsp[3], 0x05);				/* Trap() */
	CHECK_EQ(R16(16), 0x0002);			/* Notice */
	CHECK_EQ(rsp[64], 0x81);			/* generic, urgent */
	CHECK_EQ(R32(64) & 0xffffff, 2);		/* producer: switch */
	CHECK_EQ(R16(64 + 6), 0x20);			/* IssuerLID */
	CHECK_EQ(R16(64 + 8), 0x8001);			/* toggle, count 1 */
	CHECK_EQ(R16(64 + 10), 0x20);			/* LIDADDR */
	tid = R64(8);
	CHECK(tid != 0);
	/* not again before the interval (SubnetTimeOut 0: a second) */
	CHECK_EQ(trap_out(5999, &dlid, &slid), -1);
	/* another link change: PSC is 1 still, no new trap */
	orca_mad_link(&node, 3, true);
	CHECK_EQ(trap_out(5999, &dlid, &slid), -1);
	CHECK_EQ(trap_out(6000, &dlid, &slid), 128);
	CHECK_EQ(R64(8), tid);				/* the same trap */
	CHECK_EQ(node.traps.sent, 1);
	CHECK_EQ(node.traps.resent, 1);
	/* a TrapRepress of another TID represses nothing; of its TID it */
	mad_req(SUBN, 0x07, 0x0002, 0);
	W64(8, tid + 1);
	CHECK_EQ(mad_run(1), ORCA_MAD_DROP);
	CHECK_EQ(trap_out(7000, &dlid, &slid), 128);
	W64(8, tid);
	CHECK_EQ(mad_run(1), ORCA_MAD_DROP);		/* no reply to it */
	CHECK_EQ(node.traps.repressed, 1);
	CHECK_EQ(trap_out(100000, &dlid, &slid), -1);

	/* trap 256: a Set with the wrong M_Key, DR from 2 hops away */
	node.port[0].mkey = 0x1122334455667788ULL;
	node.port[0].mkey_protect = 1;
	mad_req(DR, SET, 0x0015, 0);
	W64(24, 0x99);
	W8(7, 2);					/* hop count */
	W16(32, 0xffff);				/* DrSLID */
	W8(192 + 1, 5);
	W8(192 + 2, 7);				/* ReturnPath */
	in_slid = 0x33;
	CHECK_EQ(mad_run(1), ORCA_MAD_DROP);
	in_slid = 0;
	CHECK_EQ(trap_out(200000, &dlid, &slid), 256);
	CHECK_EQ(rsp[64], 0x82);			/* security */
	CHECK_EQ(R64(24), 0x1122334455667788ULL);	/* the port's M_Key */
	CHECK_EQ(R16(74 + 2), 0x33);			/* LIDADDR */
	CHECK_EQ(R16(74 + 4), 0xffff);			/* DrSLID */
	CHECK_EQ(rsp[74 + 6], 0x02);			/* Set */
	CHECK_EQ(R16(74 + 8), 0x0015);
	CHECK_EQ(R64(74 + 14), 0x99);			/* the key it had */
	CHECK_EQ(rsp[74 + 23], 0x82);			/* DRNotice, 2 hops */
	CHECK_EQ(rsp[74 + 24], 0);			/* ReturnPath[0] */
	CHECK_EQ(rsp[74 + 25], 5);
	CHECK_EQ(rsp[74 + 26], 7);
	/* a second violation while it is outstanding: counted, not sent */
	CHECK_EQ(mad_run(1), ORCA_MAD_DROP);
	CHECK_EQ(node.traps.coalesced, 1);
	/* given up after ORCA_MAD_TRAP_TRIES sends */
	for (tid = 1; tid < 8; tid++)
		CHECK_EQ(trap_out(200000 + 1000 * tid, &dlid, &slid), 256);
	CHECK_EQ(trap_out(210000, &dlid, &slid), -1);
	CHECK_EQ(node.traps.unanswered, 1);
}

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	RUN(switch_node);
	RUN(switch_port_info);
	RUN(switch_info);
	RUN(switch_forwarding);
	RUN(switch_tables);
	RUN(switch_enforcement);
	RUN(switch_traps);
	return tap_done();
}
