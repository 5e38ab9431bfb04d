// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The subnet management agent of a CA (orca_sma.c through
 * orca_mad_process()): SMPs built byte by byte at IBA vol 1 offsets,
 * replies read the same way.  Every attribute's Get; the PortInfo Set
 * rules, each refusal with status 0x1c and nothing applied; the port
 * state machine and the owner's link calls; M_Key protection; DR
 * replies; versions, methods and attributes refused; what is passed up.
 * The switch's attributes: test_sma_switch.c.
 *
 * usage: orca-emu-sma-tests [-v]
 */
#include <stdio.h>
#include <string.h>

#include "orca_log.h"
#include "orca_names.h"	/* ARRAY_SIZE */
#include "sma_fixture.h"

static void ca_setup(void)
{
	CHECK_EQ(orca_mad_node_init(&node, 1, 1), 0);
	node.sys_guid = SYS_GUID;
	node.node_guid = NODE_GUID;
	node.port[1].guid = PORT_GUID;
	node.device_id = 0x0c0a;
	node.revision = 0x00000102;
	node.vendor_id = 0x00ca7a;
	strcpy(node.desc, "orca-host ca0");
	sm_key = 0;
}

static void ca_node_info(void)
{
	ca_setup();
	mad_req(SUBN, GET, 0x0011, 0);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(chg, 0);
	CHECK_EQ(rsp[D + 0], 1);
	CHECK_EQ(rsp[D + 1], 1);
	CHECK_EQ(rsp[D + 2], 1);			/* CA */
	CHECK_EQ(rsp[D + 3], 1);			/* NumPorts */
	CHECK_EQ(R64(D + 4), SYS_GUID);
	CHECK_EQ(R64(D + 12), NODE_GUID);
	CHECK_EQ(R64(D + 20), PORT_GUID);
	CHECK_EQ(R16(D + 28), 64);			/* PartitionCap */
	CHECK_EQ(R16(D + 30), 0x0c0a);
	CHECK_EQ(R32(D + 32), 0x102);
	CHECK_EQ(rsp[D + 36], 1);			/* LocalPortNum */
	CHECK_EQ(get_be(rsp + D + 37, 3), 0x00ca7a);
	/* past NodeInfo's 40 bytes and in the LID-routed reserved parts */
	CHECK_EQ(R64(D + 40), 0);
	CHECK_EQ(R64(24), 0);				/* M_Key echoed: 0 */
	CHECK_EQ(R64(32), 0);
	CHECK_EQ(R64(128), 0);
	CHECK_EQ(R64(248), 0);
}

static void ca_node_desc_guid_info(void)
{
	ca_setup();
	mad_req(SUBN, GET, 0x0010, 0);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK(!memcmp(rsp + D, "orca-host ca0", 14));
	CHECK_EQ(rsp[D + 63], 0);
	mad_req(SUBN, GET, 0x0014, 0);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(R64(D), PORT_GUID);
	CHECK_EQ(R64(D + 8), 0);
	mad_req(SUBN, GET, 0x0014, 1);		/* GUIDCap 1: block 0 only */
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x001c);
	mad_req(SUBN, SET, 0x0014, 0);		/* GUIDInfo is Get only */
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x000c);
}

static void ca_port_info_get(void)
{
	ca_setup();
	pi_get(1, 0);		/* 0: the port it came in on */
	CHECK_EQ(get_be(pi + 20, 4), (1u << 11) | (1u << 25)); /* CapMask */
	CHECK_EQ(pi[28], 1);				/* LocalPortNum */
	CHECK_EQ(pi[29], 0x03);				/* width enabled */
	CHECK_EQ(pi[30], 0x03);				/* supported */
	CHECK_EQ(pi[32], 0x71);		/* speed supported 7, DOWN */
	CHECK_EQ(pi[33], 0x22);		/* Polling, default Polling */
	CHECK_EQ(pi[35] & 0xf, 7);			/* speed enabled */
	CHECK_EQ(pi[36], 0x50);		/* NeighborMTU 4096, SMSL 0 */
	CHECK_EQ(pi[37], 0x10);				/* VLCap VL0 */
	CHECK_EQ(pi[41] & 0xf, 5);			/* MTUCap */
	CHECK_EQ(pi[43] >> 4, 1);			/* OperationalVLs */
	CHECK_EQ(pi[50], 1);				/* GUIDCap */
	CHECK_EQ(pi[52], 18);				/* RespTimeValue */
	CHECK_EQ(get_be(pi + 54, 8) | pi[62] | pi[63], 0); /* reserved */
	pi_get(1, 1);
	CHECK_EQ(pi[28], 1);
	pi_get(1, 0x80000001);	/* bit 31: the SM knows extended speeds */
	mad_req(SUBN, GET, 0x0015, 2);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x001c);
	mad_req(SUBN, GET, 0x0015, 0x101);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x001c);
}

static void ca_port_info_set(void)
{
	ca_setup();
	node.port[1].vl_cap = 4;
	pi_get_nop(1, 1);
	put_be(pi + 0, 0, 8);
	put_be(pi + 8, 0xfe80000000000000ULL, 8);
	put_be(pi + 16, 0x0012, 2);			/* LID */
	put_be(pi + 18, 0x0001, 2);			/* MasterSMLID */
	put_be(pi + 20, 0xffffffff, 4);		/* CapabilityMask: RO */
	put_be(pi + 26, 0x0102, 2);			/* M_KeyLeasePeriod */
	pi[28] = 9;					/* LocalPortNum: RO */
	pi[29] = 0x02;					/* 4x only */
	pi[34] = 0x03;					/* LMC 3 */
	pi[35] = 0x01;					/* SDR only */
	pi[36] = 0x43;					/* MTU 2048, SMSL 3 */
	pi[38] = 0x07;					/* VLHighLimit */
	pi[42] = 0x5f;				/* VLStall 2, HOQLife 31 */
	pi[43] = 0x30;					/* OpVLs VL0-3 */
	put_be(pi + 44, 7, 2);
	put_be(pi + 46, 8, 2);
	put_be(pi + 48, 9, 2);
	pi[51] = 0x92;				/* ClientRereg, timeout 18 */
	CHECK_EQ(pi_set(1, 1), ORCA_MAD_REPLY);
	check_resp(0);
	/* the lease period is part of the M_Key's protection (14.2.4.2) */
	CHECK_EQ(chg, ORCA_MAD_CHG_GID | ORCA_MAD_CHG_LID | ORCA_MAD_CHG_SM |
		      ORCA_MAD_CHG_REREG | ORCA_MAD_CHG_PORT | ORCA_MAD_CHG_MKEY);
	/* the reply is the port after the Set, ClientReregister echoed */
	CHECK_EQ(R64(D + 8), 0xfe80000000000000ULL);
	CHECK_EQ(R16(D + 16), 0x12);
	CHECK_EQ(R16(D + 18), 1);
	CHECK_EQ(R32(D + 20), (1u << 11) | (1u << 25));
	CHECK_EQ(R16(D + 26), 0x0102);
	CHECK_EQ(rsp[D + 28], 1);
	CHECK_EQ(rsp[D + 29], 0x02);
	CHECK_EQ(rsp[D + 34], 0x03);
	CHECK_EQ(rsp[D + 35] & 0xf, 1);
	CHECK_EQ(rsp[D + 36], 0x43);
	CHECK_EQ(rsp[D + 38], 7);
	CHECK_EQ(rsp[D + 42], 0x5f);
	CHECK_EQ(rsp[D + 43], 0x30);
	CHECK_EQ(R16(D + 44), 7);
	CHECK_EQ(R16(D + 46), 8);
	CHECK_EQ(R16(D + 48), 9);
	CHECK_EQ(rsp[D + 51], 0x92);
	/* the owner's view */
	CHECK_EQ(node.port[1].lid, 0x12);
	CHECK_EQ(node.port[1].sm_sl, 3);
	/* a Get afterwards: ClientReregister is not a state */
	pi_get_nop(1, 1);
	CHECK_EQ(pi[51], 0x12);
	/* the same Set again changes nothing */
	CHECK_EQ(pi_set(1, 1), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(chg, 0);
	/* violation counters: a Set of 0 clears them */
	put_be(pi + 44, 0, 6);
	CHECK_EQ(pi_set(1, 1), ORCA_MAD_REPLY);
	CHECK_EQ(R16(D + 44) | R16(D + 46) | R16(D + 48), 0);
	/* enabled 0 is no change; all-ones is all supported */
	pi[29] = 0;
	pi[35] &= 0xf0;
	CHECK_EQ(pi_set(1, 1), ORCA_MAD_REPLY);
	CHECK_EQ(rsp[D + 29], 0x02);
	CHECK_EQ(rsp[D + 35] & 0xf, 1);
	pi[29] = 0xff;
	pi[35] |= 0x0f;
	CHECK_EQ(pi_set(1, 1), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(rsp[D + 29], 0x03);
	CHECK_EQ(rsp[D + 35] & 0xf, 7);
	/* OperationalVLs 0 is no change */
	pi[43] = 0x00;
	CHECK_EQ(pi_set(1, 1), ORCA_MAD_REPLY);
	CHECK_EQ(rsp[D + 43] >> 4, 3);
	/* M_Key and its protect bits are stored and reported as such */
	put_be(pi, 0x1234, 8);
	CHECK_EQ(pi_set(1, 1), ORCA_MAD_REPLY);
	CHECK_EQ(chg, ORCA_MAD_CHG_MKEY);
	CHECK_EQ(R64(D), 0x1234);
}

static void ca_port_info_refused(void)
{
	ca_setup();
	node.port[1].vl_cap = 3;
	node.port[1].mtu_cap = 4;
	node.port[1].neighbor_mtu = 4;
	pi_assign(1, 1, 5);
	REFUSED(1, 1, { 17, 0xff, 0x00 });	/* LID 0 */
	REFUSED(1, 1, { 16, 0xff, 0xc0 });	/* LID 0xc005: multicast */
	REFUSED(1, 1, { 16, 0xff, 0xff }, { 17, 0xff, 0xff });
	REFUSED(1, 1, { 19, 0xff, 0x00 });	/* MasterSMLID 0 */
	REFUSED(1, 1, { 18, 0xff, 0xff });	/* MasterSMLID 0xff01 */
	REFUSED(1, 1, { 29, 0xff, 0x08 });	/* width 12x unsupported */
	REFUSED(1, 1, { 29, 0xff, 0x10 });	/* width: no such bit */
	REFUSED(1, 1, { 35, 0x0f, 0x08 });	/* speed 8 unsupported */
	REFUSED(1, 1, { 33, 0x0f, 0x03 });	/* LinkDownDefault 3 */
	REFUSED(1, 1, { 36, 0xf0, 0x50 });	/* NeighborMTU 4096 > cap */
	REFUSED(1, 1, { 36, 0xf0, 0x00 });	/* NeighborMTU 0 */
	REFUSED(1, 1, { 43, 0xf0, 0x40 });	/* OpVLs VL0-7 > VLCap */
	REFUSED(1, 1, { 32, 0x0f, 0x02 });	/* PortState INIT */
	REFUSED(1, 1, { 32, 0x0f, 0x03 });	/* ARMED from DOWN */
	REFUSED(1, 1, { 32, 0x0f, 0x04 });	/* ACTIVE from DOWN */
	REFUSED(1, 1, { 32, 0x0f, 0x05 });	/* PortState 5 */
	REFUSED(1, 1, { 33, 0xf0, 0x10 });	/* PhysState Sleep */
	REFUSED(1, 1, { 33, 0xf0, 0x50 });	/* PhysState LinkUp */
	/* a valid change beside a refused one is not applied either */
	REFUSED(1, 1, { 36, 0xf0, 0x30 }, { 43, 0xf0, 0x40 });
	orca_mad_link(&node, 1, true);
	REFUSED(1, 1, { 32, 0x0f, 0x04 });	/* ACTIVE from INIT */
	/* ARMED with a PhysState */
	REFUSED(1, 1, { 32, 0x0f, 0x03 }, { 33, 0xf0, 0x20 });
}

/* PortState of port 1, and PhysState, as Get reports them. */
static void check_state(uint8_t state, uint8_t phys)
{
	pi_get(1, 1);
	CHECK_EQ(pi[32] & 0xf, state);
	CHECK_EQ(pi[33] >> 4, phys);
}

static void set_state(uint8_t state, uint8_t phys, uint16_t status)
{
	pi_get_nop(1, 1);
	pi[32] = (pi[32] & 0xf0) | state;
	pi[33] = (pi[33] & 0x0f) | phys << 4;
	CHECK_EQ(pi_set(1, 1), ORCA_MAD_REPLY);
	check_resp(status);
}

static void ca_state_machine(void)
{
	ca_setup();
	pi_assign(1, 1, 0x10);
	check_state(1, 2);				/* DOWN, Polling */
	CHECK_EQ(orca_mad_link(&node, 1, true), ORCA_MAD_CHG_STATE);
	check_state(2, 5);				/* INIT, LinkUp */
	pi_get(1, 1);
	CHECK_EQ(pi[31], 0x02);				/* 4x active */
	CHECK_EQ(pi[35] >> 4, 4);			/* QDR active */
	CHECK_EQ(orca_mad_link(&node, 1, true), 0);
	set_state(3, 0, 0);
	CHECK_EQ(chg, ORCA_MAD_CHG_STATE);
	check_state(3, 5);
	set_state(3, 0, 0);				/* ARMED again */
	CHECK_EQ(chg, 0);
	set_state(4, 0, 0);
	CHECK_EQ(chg, ORCA_MAD_CHG_STATE);
	check_state(4, 5);
	CHECK_EQ(node.port[1].state, 4);
	set_state(4, 0, 0);				/* ACTIVE again: fine */
	CHECK_EQ(chg, 0);
	set_state(3, 0, 0x001c);			/* ARMED from ACTIVE */
	check_state(4, 5);
	/* DOWN from ACTIVE: down, and the owner must retrain the link */
	set_state(1, 0, 0);
	CHECK_EQ(chg, ORCA_MAD_CHG_STATE | ORCA_MAD_CHG_RETRAIN);
	CHECK_EQ(rsp[D + 32] & 0xf, 1);
	check_state(1, 2);
	orca_mad_link(&node, 1, true);
	check_state(2, 5);
	/* the cable goes */
	CHECK_EQ(orca_mad_link(&node, 1, false), ORCA_MAD_CHG_STATE);
	check_state(1, 2);
	/* Disabled: no training until the SM says Polling */
	set_state(0, 3, 0);
	check_state(1, 3);
	CHECK_EQ(orca_mad_link(&node, 1, true), 0);
	check_state(1, 3);
	set_state(1, 2, 0);
	CHECK_EQ(chg, ORCA_MAD_CHG_STATE | ORCA_MAD_CHG_RETRAIN);
	check_state(1, 2);
	orca_mad_link(&node, 1, true);
	check_state(2, 5);
	/* a PhysState Polling with PortState 0 takes an up link down too */
	set_state(0, 2, 0);
	check_state(1, 2);
}

static void ca_capability_mask(void)
{
	ca_setup();
	orca_mad_port_cap(&node, 1, 1u << 1 | 1u << 16, 1u << 11);
	pi_get(1, 1);
	CHECK_EQ(get_be(pi + 20, 4), (1u << 1) | (1u << 16) | (1u << 25));
	orca_mad_port_cap(&node, 2, 1u << 1, 0);	/* no such port */
	orca_mad_port_cap(&node, 1, 0, 1u << 1);
	pi_get(1, 1);
	CHECK_EQ(get_be(pi + 20, 4), (1u << 16) | (1u << 25));
}

/* Set M_Key @key with protect bits @prot through a Set that may. */
static void mkey_arm(uint64_t key, uint8_t prot)
{
	pi_assign(1, 1, 3);
	put_be(pi, key, 8);
	pi[34] = prot << 6;
	CHECK_EQ(pi_set(1, 1), ORCA_MAD_REPLY);
	check_resp(0);
	sm_key = key;
}

static enum orca_mad_result mkey_try(uint8_t method, uint64_t key,
				     uint32_t flags)
{
	if (method == SET) {
		pi_get_nop(1, 1);
		mad_req(SUBN, SET, 0x0015, 1);
		memcpy(req + D, pi, 64);
		W16(D + 26, 0x77);		/* M_KeyLeasePeriod */
	} else {
		mad_req(SUBN, method, 0x0015, 1);
	}
	W64(24, key);
	return mad_run_flags(1, flags);
}

static uint16_t mkey_violations(void)
{
	return node.port[1].mkey_violations;
}

static void ca_mkey(void)
{
	unsigned int prot, i;

	ca_setup();
	/* key 0: anything goes */
	CHECK_EQ(mkey_try(GET, 0x99, 0), ORCA_MAD_REPLY);
	for (prot = 0; prot < 4; prot++) {
		ca_setup();
		mkey_arm(0xabcd, prot);
		CHECK_EQ(mkey_try(GET, 0xabcd, 0), ORCA_MAD_REPLY);
		CHECK_EQ(R64(D), 0xabcd);
		CHECK_EQ(rsp[D + 34] >> 6, prot);
		/* a wrong key: Get fails at protect >= 2 only */
		CHECK_EQ(mkey_try(GET, 0x99, 0),
			 prot >= 2 ? ORCA_MAD_DROP : ORCA_MAD_REPLY);
		if (prot < 2)
			CHECK_EQ(R64(D), prot == 1 ? 0 : 0xabcd);
		CHECK_EQ(mkey_violations(), prot >= 2 ? 1 : 0);
		/* Set with a wrong key: always dropped, nothing applied */
		CHECK_EQ(mkey_try(SET, 0x99, 0), ORCA_MAD_DROP);
		CHECK_EQ(node.port[1].mkey_lease, 0);
		CHECK_EQ(mkey_violations(), prot >= 2 ? 2 : 1);
		mad_req(SUBN, 0x07, 0x0002, 0);		/* TrapRepress */
		W64(24, 0x99);
		CHECK_EQ(mad_run(1), ORCA_MAD_DROP);
		CHECK_EQ(mkey_violations(), prot >= 2 ? 3 : 2);
		W64(24, 0xabcd);
		CHECK_EQ(mad_run(1), ORCA_MAD_DROP);	/* consumed */
		CHECK_EQ(mkey_violations(), prot >= 2 ? 3 : 2);
		/* the right key, or the kernel's ignore flag, may Set */
		CHECK_EQ(mkey_try(SET, 0xabcd, 0), ORCA_MAD_REPLY);
		check_resp(0);
		CHECK_EQ(R16(D + 26), 0x77);
		CHECK_EQ(R64(D), 0xabcd);
		CHECK_EQ(mkey_try(SET, 0x99, ORCA_MAD_IGNORE_MKEY),
			 ORCA_MAD_REPLY);
		check_resp(0);
	}
	/* the counter saturates */
	ca_setup();
	mkey_arm(0xabcd, 3);
	for (i = 0; i < 0x10002; i++)
		mkey_try(GET, 0x1, 0);
	CHECK_EQ(mkey_violations(), 0xffff);
	CHECK_EQ(mkey_try(GET, 0xabcd, 0), ORCA_MAD_REPLY);
	CHECK_EQ(R16(D + 44), 0xffff);
	/* no key check before the SMP is known to be the SMA's */
	mad_req(SUBN, GET, 0x0020, 0);
	W64(24, 0x1);
	CHECK_EQ(mad_run(1), ORCA_MAD_PASS);
}

static void ca_tables(void)
{
	unsigned int i;

	ca_setup();
	mad_req(SUBN, GET, 0x0016, 0);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(R16(D), 0xffff);
	CHECK_EQ(R16(D + 2), 0);
	mad_req(SUBN, SET, 0x0016, 1);
	for (i = 0; i < 32; i++)
		W16(D + 2 * i, 0x8000 | i);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(chg, ORCA_MAD_CHG_PKEY);
	CHECK_EQ(R16(D + 62), 0x801f);
	CHECK_EQ(node.port[1].pkeys[33], 0x8001);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	CHECK_EQ(chg, 0);				/* same again */
	mad_req(SUBN, GET, 0x0016, 2);		/* PartitionCap 64 */
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x001c);
	mad_req(SUBN, SET, 0x0016, 2);
	W16(D, 0x1234);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x001c);
	CHECK_EQ(chg, 0);
	/* a last block only partly in PartitionCap */
	node.partition_cap = 40;
	mad_req(SUBN, GET, 0x0016, 1);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(R16(D + 14), 0x8007);
	CHECK_EQ(R16(D + 16), 0);

	/* SL to VL: 16 4-bit entries, modifier ignored on a CA */
	mad_req(SUBN, SET, 0x0017, 0);
	W64(D, 0x0123456701234567ULL);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(chg, ORCA_MAD_CHG_QOS);
	mad_req(SUBN, GET, 0x0017, 0);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	CHECK_EQ(R64(D), 0x0123456701234567ULL);
	CHECK_EQ(R64(D + 8), 0);

	/* VL arbitration: none with VL0 alone; blocks 1..4 otherwise */
	mad_req(SUBN, GET, 0x0018, 1 << 16);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x000c);
	node.port[1].vl_cap = 4;
	for (i = 1; i <= 4; i++) {
		mad_req(SUBN, SET, 0x0018, i << 16);
		W8(D, 0xf0 | i);		/* reserved bits read as 0 */
		W8(D + 1, 0x40 + i);
		W8(D + 63, i);
		CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
		check_resp(0);
	}
	for (i = 1; i <= 4; i++) {
		mad_req(SUBN, GET, 0x0018, i << 16);
		CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
		check_resp(0);
		CHECK_EQ(rsp[D], i);
		CHECK_EQ(rsp[D + 1], 0x40 + i);
		CHECK_EQ(rsp[D + 63], i);
	}
	mad_req(SUBN, GET, 0x0018, 0);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x001c);
	mad_req(SUBN, SET, 0x0018, 5 << 16);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x001c);
}

static void dr_replies(void)
{
	unsigned int i;

	ca_setup();
	mad_req(DR, GET, 0x0011, 0);
	W8(6, 3);				/* hop_ptr: hop_cnt + 1 */
	W8(7, 2);				/* hop_cnt */
	W16(32, 0xffff);
	W16(34, 0xffff);
	W8(40, 0x55);				/* reserved: not echoed */
	for (i = 128; i < 256; i++)
		W8(i, i);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x8000);			/* D: the way back */
	CHECK_EQ(rsp[6], 3);
	CHECK_EQ(rsp[7], 2);
	CHECK_EQ(R16(32), 0xffff);
	CHECK_EQ(R16(34), 0xffff);
	CHECK_EQ(rsp[40], 0);
	CHECK(!memcmp(rsp + 128, req + 128, 128));
	CHECK_EQ(R64(D + 12), NODE_GUID);
	/* errors carry the D bit too */
	mad_req(DR, GET, 0x0015, 7);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x801c);
	req[2] = 2;
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	CHECK_EQ(STATUS(), 0x8004);
}

static void refusals(void)
{
	static const uint16_t unsup[] = { 0x0002, 0x0012, 0x0019, 0x001b,
					  0x0030, 0xff90, 0x0000 };
	unsigned int i;

	ca_setup();
	mad_req(SUBN, GET, 0x0011, 0);
	req[0] = 2;				/* BaseVersion */
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	CHECK_EQ(STATUS(), 0x0004);
	CHECK_EQ(rsp[3], 0x81);
	mad_req(SUBN, GET, 0x0011, 0);
	req[2] = 0x80;				/* ClassVersion */
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	CHECK_EQ(STATUS(), 0x0004);
	for (i = 0; i < ARRAY_SIZE(unsup); i++) {
		mad_req(SUBN, GET, unsup[i], 0);
		CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
		check_resp(0x000c);
	}
	mad_req(SUBN, SET, 0x0011, 0);		/* read-only attributes */
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x000c);
	mad_req(SUBN, SET, 0x0010, 0);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x000c);
	mad_req(SUBN, 0x03, 0x0011, 0);		/* Send */
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x0008);
	mad_req(SUBN, 0x06, 0x0011, 0);		/* Report */
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x0008);
}

static void passed_up(void)
{
	static const uint8_t classes[] = { 0x00, 0x02, 0x03, 0x05, 0x06,
					   0x07, 0x09, 0x0a, 0x10, 0x30,
					   0x83, 0xff };
	static const uint8_t methods[] = { 0x81, 0x86, 0x05, 0x82 };
	unsigned int i;

	ca_setup();
	for (i = 0; i < sizeof(classes); i++) {
		mad_req(classes[i], GET, 0x0011, 0);
		CHECK_EQ(mad_run(1), ORCA_MAD_PASS);
		CHECK_EQ(chg, 0);
	}
	for (i = 0; i < sizeof(methods); i++) {
		mad_req(SUBN, methods[i], 0x0011, 0);
		CHECK_EQ(mad_run(1), ORCA_MAD_PASS);
		mad_req(DR, methods[i], 0x0015, 0);
		CHECK_EQ(mad_run(1), ORCA_MAD_PASS);
		mad_req(0x04, methods[i], 0x0012, 0);
		CHECK_EQ(mad_run(1), ORCA_MAD_PASS);
	}
	/* SMInfo: the SM's on this node, whatever the method */
	mad_req(SUBN, GET, 0x0020, 0);
	CHECK_EQ(mad_run(1), ORCA_MAD_PASS);
	mad_req(DR, SET, 0x0020, 0);
	CHECK_EQ(mad_run(1), ORCA_MAD_PASS);
	/* a port the CA does not have */
	mad_req(SUBN, GET, 0x0011, 0);
	CHECK_EQ(mad_run(0), ORCA_MAD_DROP);
	CHECK_EQ(mad_run(2), ORCA_MAD_DROP);
}

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	RUN(ca_node_info);
	RUN(ca_node_desc_guid_info);
	RUN(ca_port_info_get);
	RUN(ca_port_info_set);
	RUN(ca_port_info_refused);
	RUN(ca_state_machine);
	RUN(ca_capability_mask);
	RUN(ca_mkey);
	RUN(ca_tables);
	RUN(dr_replies);
	RUN(refusals);
	RUN(passed_up);
	return tap_done();
}
