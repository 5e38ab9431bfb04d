// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca-fabric in switch mode (fabric/fabric_switch.h), without sockets:
 * packets in through fab_sw_input(), out of the ports' queues with
 * fab_sw_pop().  The SM here is the test, with SMPs written at IBA vol 1
 * offsets (13.4.2 common header, 14.2.1.2 DR SMP, 14.2.5 attributes,
 * 16.1.3.5 PortCounters); the expectations come from the spec: the DR
 * rules of 14.2.2 (C14-9, C14-13), LID-routed and multicast forwarding
 * of 18.2.4.3, the port states of 7.2.2 and 14.2.5.6, PortStateChange
 * of 14.2.5.4, VL15 of 7.6.5 and 7.9.
 *
 * With the path of orca-fabric, the last case runs it as --sm none and
 * talks to it over its sockets, as emulators do.
 *
 * usage: orca-emu-switch-tests [-v] [ORCA-FABRIC]
 */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fabric/fabric_switch.h"
#include "orca_log.h"
#include "fabric_sock.h"
#include "switch_fixture.h"

#define SW_GUID		0x00ca7a0000f00000ULL
#define GUID(n)		(0x00ca7afffe000000ULL + (n))
#define NPORTS		8
/* the LIDs the tests' SM gives out */
#define SW_LID		4		/* the switch (port 0) */
#define LID_A		2		/* the CA on port 1, the SM's */
#define LID_B		3		/* the CA on port 2 */
#define LID_C		6		/* the CA on port 3 */
#define MLID		0xc001

static struct fab_switch sw;

/* ---- packets ---- */

/* A data packet (VL0, QP 0x20 -> 0x21) of @len bytes to @dlid. */
static size_t data(uint16_t dlid, uint16_t slid, uint32_t len)
{
	static uint8_t pay[ORCA_MAX_PMTU];
	uint32_t i;

	for (i = 0; i < len; i++)
		pay[i] = (uint8_t)(i * 13 + dlid);
	return ud(0, dlid, slid, 0x21, 0x20, 0x11111111, pay, len);
}

static void inject(unsigned int port)
{
	fab_sw_input(&sw, port, wire, wire_len);
}

/* The next packet out of @port, decoded into pout; false if none. */
static bool take(unsigned int port)
{
	return take_from(&sw, port);
}

/* Nothing queued on any port. */
static bool quiet(void)
{
	unsigned int i;

	for (i = 1; i <= NPORTS; i++)
		if (fab_sw_pending(&sw, i))
			return false;
	return true;
}

/* ---- MADs ---- */

static void send_smp(unsigned int port)
{
	smp_wire();
	inject(port);
}

/*
 * The SM on the CA in switch port 1 asks the switch (one hop), and the
 * reply comes back out of port 1 into resp; its status.
 */
static int sm_run(uint8_t method, uint16_t attr, uint32_t mod,
		  const uint8_t *payload)
{
	const uint8_t path[1] = { 1 };

	dr_smp(method, attr, mod, 1, path);
	if (payload)
		memcpy(mad + DATA, payload, 64);
	send_smp(1);
	if (!take(1)) {
		printf("#   no reply to attribute 0x%x\n", attr);
		return -1;
	}
	memcpy(resp, pout.payload, 256);
	CHECK_EQ(get_be(resp + 8, 8), tid);
	return get_be(resp + 4, 2) & 0x7fff;
}

static void sm_get(uint16_t attr, uint32_t mod)
{
	CHECK_EQ(sm_run(1, attr, mod, NULL), 0);
}

static void sm_set(uint16_t attr, uint32_t mod, const uint8_t *d)
{
	CHECK_EQ(sm_run(2, attr, mod, d), 0);
}

/* PortInfo of @port to @state (14.2.5.6: byte 32 bits 3:0), as OpenSM. */
static void sm_port_state(unsigned int port, uint8_t state)
{
	uint8_t pi[64];

	sm_get(0x0015, port);
	memcpy(pi, resp + DATA, 64);
	pi[32] = (pi[32] & 0xf0) | state;
	pi[33] &= 0x0f;			/* PhysState: no change */
	sm_set(0x0015, port, pi);
	CHECK_EQ(resp[DATA + 32] & 0xf, state);
}

static uint8_t port_state(unsigned int port)
{
	sm_get(0x0015, port);
	return resp[DATA + 32] & 0xf;
}

/* SwitchInfo's PortStateChange: writing 1 clears it (14.2.5.4) */
static void clear_psc(void)
{
	uint8_t d[64];

	sm_get(0x0012, 0);
	memcpy(d, resp + DATA, 64);
	d[11] |= 0x04;
	sm_set(0x0012, 0, d);
	CHECK_EQ(resp[DATA + 11] & 0x04, 0);
}

/* ---- the switch ---- */

/* A cable in for @guid; the switch port it got (LINK_UP read). */
static int cable(uint64_t guid)
{
	int port = fab_sw_attach(&sw, guid, guid + 0x1000000);
	struct orca_fab_link l;
	size_t n;

	if (port < 0)
		return port;
	fab_sw_link(&sw, port, true);
	n = fab_sw_pop(&sw, port, msg);
	CHECK_EQ(n, sizeof(l));
	memcpy(&l, msg, sizeof(l));
	CHECK_EQ(l.h.type, ORCA_FAB_LINK_UP);
	CHECK_EQ(l.h.version, ORCA_FAB_VERSION);
	CHECK_EQ(l.port, port);
	return port;
}

static void setup(void)
{
	fab_sw_free(&sw);
	CHECK_EQ(fab_sw_init(&sw, NPORTS, SW_GUID), 0);
	CHECK_EQ(cable(GUID(1)), 1);
	CHECK_EQ(cable(GUID(2)), 2);
	CHECK_EQ(cable(GUID(3)), 3);
}

/*
 * A programmed subnet: LIDs (port 0's by PortInfo), SwitchInfo's
 * LinearFDBTop, one LFT block, ports 1 and 2 ACTIVE, port 3 INIT.
 */
static void program(void)
{
	uint8_t d[64];

	setup();
	sm_get(0x0015, 0);
	memcpy(d, resp + DATA, 64);
	d[32] &= 0xf0;
	d[33] &= 0x0f;
	put_be(d + 16, SW_LID, 2);
	put_be(d + 18, LID_A, 2);
	sm_set(0x0015, 0, d);
	sm_get(0x0012, 0);
	memcpy(d, resp + DATA, 64);
	put_be(d + 6, 0x3f, 2);			/* LinearFDBTop */
	sm_set(0x0012, 0, d);
	memset(d, 0xff, 64);
	d[LID_A] = 1;
	d[LID_B] = 2;
	d[SW_LID] = 0;
	d[LID_C] = 3;
	sm_set(0x0019, 0, d);			/* LIDs 0..63 */
	sm_port_state(1, 3);
	sm_port_state(1, 4);
	sm_port_state(2, 3);
	sm_port_state(2, 4);
	CHECK(quiet());
}

/* ---- the cases ---- */

static void link_up_psc(void)
{
	uint8_t d[64];

	fab_sw_free(&sw);
	CHECK_EQ(fab_sw_init(&sw, NPORTS, SW_GUID), 0);
	CHECK(!sw.node.sw.port_state_change);
	CHECK_EQ(cable(GUID(1)), 1);
	/* 14.2.5.4: Down -> Init sets PortStateChange */
	CHECK(sw.node.sw.port_state_change);
	CHECK_EQ(sw.node.port[1].state, 2);
	CHECK_EQ(sw.node.port[1].phys_state, 5);
	CHECK_EQ(sw.node.port[2].state, 1);
	sm_get(0x0012, 0);
	CHECK_EQ(resp[DATA + 11] & 0x04, 0x04);
	/* the SM clears it by writing 1 */
	memcpy(d, resp + DATA, 64);
	d[11] |= 0x04;
	sm_set(0x0012, 0, d);
	CHECK_EQ(resp[DATA + 11] & 0x04, 0);
	/* stable port numbers: a GUID keeps its port, new ones the lowest */
	CHECK_EQ(cable(GUID(2)), 2);
	CHECK_EQ(cable(GUID(3)), 3);
	fab_sw_detach(&sw, 2);
	CHECK(sw.node.sw.port_state_change);
	CHECK_EQ(sw.node.port[2].state, 1);
	CHECK_EQ(sw.node.port[2].phys_state, 2);
	CHECK_EQ(cable(GUID(4)), 4);
	CHECK_EQ(cable(GUID(2)), 2);
	/* one GUID connected twice: refused */
	CHECK_EQ(fab_sw_attach(&sw, GUID(2), 0), -1);
	CHECK_EQ(cable(GUID(5)), 5);
	CHECK_EQ(cable(GUID(6)), 6);
	CHECK_EQ(cable(GUID(7)), 7);
	CHECK_EQ(cable(GUID(8)), 8);
	/* more GUIDs than ports */
	CHECK_EQ(fab_sw_attach(&sw, GUID(9), 0), -1);
	fab_sw_detach(&sw, 8);
	CHECK_EQ(fab_sw_attach(&sw, GUID(9), 0), -1);
	CHECK(quiet());
}

static void dr_hop1_node_info(void)
{
	const uint8_t path[1] = { 1 };
	unsigned int i;

	setup();
	/* port 3 is INIT: SMPs pass */
	dr_smp(1, 0x0011, 0, 1, path);
	send_smp(3);
	CHECK(!fab_sw_pending(&sw, 1) && !fab_sw_pending(&sw, 2));
	CHECK(take(3));
	/* the reply: VL15, QP0 to QP0, permissive DLID (DR) */
	CHECK_EQ(pout.vl, 15);
	CHECK_EQ(pout.dlid, 0xffff);
	CHECK_EQ(pout.dqpn, 0);
	CHECK_EQ(pout.sqpn, 0);
	CHECK_EQ(pout.qkey, 0);
	CHECK_EQ(pout.pkey, 0xffff);
	CHECK_EQ(pout.paylen, 256);
	memcpy(resp, pout.payload, 256);
	CHECK_EQ(resp[1], 0x81);
	CHECK_EQ(resp[3], 0x81);			/* GetResp */
	CHECK_EQ(get_be(resp + 4, 2), 0x8000);		/* D, status 0 */
	CHECK_EQ(get_be(resp + 8, 8), tid);
	/* C14-13:1: the responder sends with hop_ptr hop_cnt */
	CHECK_EQ(resp[HOP_PTR], 1);
	CHECK_EQ(resp[HOP_CNT], 1);
	CHECK_EQ(resp[RET_PATH + 1], 3);		/* C14-9:3 */
	CHECK_EQ(resp[INIT_PATH + 1], 1);
	/* NodeInfo (14.2.5.3) */
	CHECK_EQ(resp[DATA + 0], 1);
	CHECK_EQ(resp[DATA + 1], 1);
	CHECK_EQ(resp[DATA + 2], 2);			/* switch */
	CHECK_EQ(resp[DATA + 3], NPORTS);
	CHECK_EQ(get_be(resp + DATA + 4, 8), SW_GUID);	/* SysImageGUID */
	CHECK_EQ(get_be(resp + DATA + 12, 8), SW_GUID);	/* NodeGUID */
	CHECK_EQ(get_be(resp + DATA + 20, 8), SW_GUID);	/* PortGUID */
	CHECK_EQ(resp[DATA + 36], 3);			/* LocalPortNum */
	CHECK(quiet());
	/* NodeDescription */
	sm_get(0x0010, 0);
	CHECK(!memcmp(resp + DATA, "orca-fabric", 12));
	for (i = 12; i < 64; i++)
		CHECK_EQ(resp[DATA + i], 0);
	/* PortInfo of the ports: LocalPortNum is the arrival port */
	sm_get(0x0015, 2);
	CHECK_EQ(resp[DATA + 28], 1);
	CHECK_EQ(resp[DATA + 32] & 0xf, 2);		/* INIT */
	CHECK_EQ(resp[DATA + 33] >> 4, 5);		/* LinkUp */
	sm_get(0x0015, 5);
	CHECK_EQ(resp[DATA + 32] & 0xf, 1);		/* DOWN */
	CHECK_EQ(resp[DATA + 33] >> 4, 2);		/* Polling */
}

static void dr_hop2_through(void)
{
	const uint8_t path[2] = { 1, 2 }, p3[2] = { 1, 3 };
	uint8_t sent[256];

	setup();
	/* SM at port 1 to the CA at port 2: out by InitialPath[2] */
	dr_smp(1, 0x0011, 0, 2, path);
	memcpy(sent, mad, 256);
	send_smp(1);
	CHECK(!fab_sw_pending(&sw, 1) && !fab_sw_pending(&sw, 3));
	CHECK(take(2));
	CHECK_EQ(pout.vl, 15);
	CHECK_EQ(pout.dlid, 0xffff);
	CHECK_EQ(pout.slid, 0xffff);
	CHECK_EQ(pout.dqpn, 0);
	/* C14-9:2: ReturnPath[1] = ingress port, hop_ptr 1 -> 2 */
	CHECK_EQ(pout.payload[HOP_PTR], 2);
	CHECK_EQ(pout.payload[RET_PATH + 1], 1);
	sent[HOP_PTR] = 2;
	sent[RET_PATH + 1] = 1;
	CHECK(!memcmp(pout.payload, sent, 256));	/* nothing else */
	CHECK(quiet());

	/*
	 * The CA's SMA answers (C14-9:3, C14-13:1): ReturnPath[2] = its
	 * port 1, D set, sent with hop_ptr 3 - 1 = 2.
	 */
	memcpy(mad, sent, 256);
	mad[3] = 0x81;
	mad[4] = 0x80;
	mad[RET_PATH + 2] = 1;
	mad[HOP_PTR] = 2;
	mad[DATA + 2] = 1;				/* a CA */
	memcpy(sent, mad, 256);
	send_smp(2);
	CHECK(take(1));
	/* C14-13:2: hop_ptr 2 -> 1, out of ReturnPath[1] */
	sent[HOP_PTR] = 1;
	CHECK(!memcmp(pout.payload, sent, 256));
	CHECK_EQ(pout.vl, 15);
	CHECK(quiet());
	/* and through an INIT port, 3 */
	dr_smp(1, 0x0011, 0, 2, p3);
	send_smp(1);
	CHECK(take(3));
	CHECK_EQ(pout.payload[HOP_PTR], 2);
	CHECK(quiet());
}

static void dr_bad(void)
{
	const uint8_t to9[2] = { 1, 9 }, to5[2] = { 1, 5 }, to0[2] = { 1, 0 };
	const uint8_t ok[2] = { 1, 2 };
	uint64_t before;

	setup();
	before = sw.drops[FAB_SW_DROP_DR];
	/* no port 9 on an 8-port switch; port 0 is no way out */
	dr_smp(1, 0x0011, 0, 2, to9);
	send_smp(1);
	dr_smp(1, 0x0011, 0, 2, to0);
	send_smp(1);
	CHECK(quiet());
	CHECK_EQ(sw.drops[FAB_SW_DROP_DR], before + 2);
	/* port 5 has no link: not even SMPs go there */
	dr_smp(1, 0x0011, 0, 2, to5);
	send_smp(1);
	CHECK(quiet());
	CHECK_EQ(sw.drops[FAB_SW_DROP_EGRESS], 1);
	/* C14-6: hop_cnt 64 */
	dr_smp(1, 0x0011, 0, 2, ok);
	mad[HOP_CNT] = 64;
	send_smp(1);
	/* C14-9:5: hop_ptr past hop_cnt + 1; C14-9:1 hop_ptr 0 */
	dr_smp(1, 0x0011, 0, 2, ok);
	mad[HOP_PTR] = 4;
	send_smp(1);
	dr_smp(1, 0x0011, 0, 2, ok);
	mad[HOP_PTR] = 0;
	send_smp(1);
	/* C14-13:3: the way back ending at a switch (no SM here) */
	dr_smp(0x81, 0x0011, 0, 2, ok);
	mad[4] = 0x80;
	mad[HOP_PTR] = 1;
	send_smp(1);
	/* C14-13:5 */
	dr_smp(0x81, 0x0011, 0, 2, ok);
	mad[4] = 0x80;
	mad[HOP_PTR] = 3;
	send_smp(1);
	CHECK(quiet());
	CHECK_EQ(sw.drops[FAB_SW_DROP_DR], before + 2 + 4);
	CHECK_EQ(sw.drops[FAB_SW_DROP_DR_LID], 1);	/* hop_ptr 0 */
	/* a DR SMP not on VL15 is no SMP */
	dr_smp(1, 0x0011, 0, 1, ok);
	ud(0, 0xffff, 0xffff, 0, 0, 0, mad, 256);
	inject(1);
	/* a DR SMP with a bad ICRC */
	dr_smp(1, 0x0011, 0, 1, ok);
	ud(15, 0xffff, 0xffff, 0, 0, 0, mad, 256);
	wire[wire_len - 1] ^= 1;
	inject(1);
	CHECK(quiet());
	CHECK_EQ(sw.drops[FAB_SW_DROP_MALFORMED], 1);
	/* a DOWN ingress port takes nothing, VL15 or not */
	dr_smp(1, 0x0011, 0, 1, ok);
	ud(15, 0xffff, 0xffff, 0, 0, 0, mad, 256);
	fab_sw_input(&sw, 7, wire, wire_len);
	CHECK(quiet());
}

static void lft_forwarding(void)
{
	program();
	sm_get(0x0012, 0);
	CHECK_EQ(get_be(resp + DATA + 6, 2), 0x3f);
	/* 18.2.4.3.3: out by LFT[DLID] */
	data(LID_B, LID_A, 100);
	inject(1);
	CHECK(take(2));
	CHECK(same_bytes());
	data(LID_A, LID_B, 4096);
	inject(2);
	CHECK(take(1));
	CHECK(same_bytes());
	CHECK(quiet());
	/* past LinearFDBTop; an LFT entry 0xff; DLID 0 */
	data(0x40, LID_A, 8);
	inject(1);
	data(7, LID_A, 8);
	inject(1);
	data(0, LID_A, 8);
	inject(1);
	/* out by the port it came in by */
	data(LID_A, LID_A, 8);
	inject(1);
	CHECK(quiet());
	CHECK_EQ(sw.drops[FAB_SW_DROP_NO_ROUTE], 4);
	CHECK_EQ(sw.port[1].pma.c[ORCA_PMA_RCV_SWITCH_RELAY_ERRORS], 4);
	/* a new LFT block moves LID_B to port 3 (INIT: data stays) */
	{
		uint8_t d[64];

		sm_get(0x0019, 0);
		memcpy(d, resp + DATA, 64);
		CHECK_EQ(d[LID_B], 2);
		d[LID_B] = 3;
		sm_set(0x0019, 0, d);
	}
	data(LID_B, LID_A, 8);
	inject(1);
	CHECK(quiet());
	/* and LinearFDBTop lowered below it drops it at the switch */
	{
		uint8_t d[64];

		sm_get(0x0012, 0);
		memcpy(d, resp + DATA, 64);
		put_be(d + 6, LID_A, 2);
		sm_set(0x0012, 0, d);
	}
	data(LID_B, LID_A, 8);
	inject(1);
	CHECK(quiet());
	CHECK_EQ(sw.drops[FAB_SW_DROP_NO_ROUTE], 5);
}

/*
 * A packet from a ring without its ICRC (fab_sw_input_flags) leaves by
 * a port without a ring with its ICRC computed, byte for byte the packet
 * as it would have been sent with it; a bad one without the flag is
 * still refused.
 */
static void no_icrc_forwarding(void)
{
	uint64_t malformed;

	program();
	data(LID_B, LID_A, 4096);
	/* the ICRC as the sender would have left it out */
	memset(wire + wire_len - ORCA_PKT_ICRC_LEN, 0, ORCA_PKT_ICRC_LEN);
	fab_sw_input_flags(&sw, 1, wire, wire_len, ORCA_PKT_NO_ICRC);
	CHECK(take(2));			/* decoding checks the ICRC */
	CHECK_EQ(msg[2], 0);		/* and it goes with no flag */
	CHECK_EQ(out_len, wire_len);
	CHECK(!memcmp(msg + 8, wire, wire_len - ORCA_PKT_ICRC_LEN));
	orca_pkt_set_icrc(wire, wire_len);
	CHECK(same_bytes());
	/* without the flag the zero ICRC is a bad packet */
	malformed = sw.drops[FAB_SW_DROP_MALFORMED];
	memset(wire + wire_len - ORCA_PKT_ICRC_LEN, 0, ORCA_PKT_ICRC_LEN);
	inject(1);
	CHECK(quiet());
	CHECK_EQ(sw.drops[FAB_SW_DROP_MALFORMED], malformed + 1);
}

static void lid_routed_smp(void)
{
	program();
	/* NodeInfo LID-routed (class 0x01) to the switch's LID */
	mad_hdr(0x01, 1, 0x0011, 0);
	ud(15, SW_LID, LID_A, 0, 0, 0, mad, 256);
	inject(1);
	CHECK(take(1));
	CHECK_EQ(pout.vl, 15);
	CHECK_EQ(pout.dlid, LID_A);
	CHECK_EQ(pout.slid, SW_LID);
	CHECK_EQ(pout.dqpn, 0);
	CHECK_EQ(pout.sqpn, 0);
	CHECK_EQ(pout.payload[1], 0x01);
	CHECK_EQ(pout.payload[3], 0x81);
	CHECK_EQ(get_be(pout.payload + 4, 2), 0);	/* no D bit */
	CHECK_EQ(pout.payload[DATA + 2], 2);
	CHECK_EQ(pout.payload[DATA + 36], 1);
	CHECK(quiet());
	/* an SMP on a data VL, or to QP1, is not taken */
	ud(0, SW_LID, LID_A, 0, 0, 0, mad, 256);
	inject(1);
	ud(15, SW_LID, LID_A, 1, 0, 0x80010000, mad, 256);
	inject(1);
	CHECK(quiet());
	/* LID-routed SMPs pass the switch to a CA, VL15 kept */
	ud(15, LID_B, LID_A, 0, 0, 0, mad, 256);
	inject(1);
	CHECK(take(2));
	CHECK(same_bytes());
}

static void mcast(void)
{
	uint8_t d[64];

	program();
	sm_port_state(3, 3);
	sm_port_state(3, 4);
	/* 14.2.5.12: block 0 position 0, MLID 0xc001 = entry 1: ports 1-3 */
	memset(d, 0, sizeof(d));
	put_be(d + 2, 0x000e, 2);
	sm_set(0x001b, 0, d);
	data(MLID, LID_A, 256);
	inject(1);
	CHECK(take(2));
	CHECK(same_bytes());
	CHECK(take(3));
	CHECK(same_bytes());
	CHECK(quiet());
	data(MLID, LID_C, 64);
	inject(3);
	CHECK(take(1));
	CHECK(take(2));
	CHECK(quiet());
	/* an MLID with no ports; one past MulticastFDBCap (1024) */
	data(0xc002, LID_A, 64);
	inject(1);
	data(0xc000 + 1024, LID_A, 64);
	inject(1);
	CHECK(quiet());
	CHECK_EQ(sw.drops[FAB_SW_DROP_MCAST], 1);
	CHECK_EQ(sw.port[2].pma.c[ORCA_PMA_MCAST_XMIT_PKTS], 2);
}

static void init_port_rules(void)
{
	uint64_t disc;

	program();
	/* port 3 INIT: VL15 goes through it, both ways */
	CHECK_EQ(port_state(3), 2);
	mad_hdr(0x01, 1, 0x0011, 0);
	ud(15, LID_C, LID_A, 0, 0, 0, mad, 256);
	inject(1);
	CHECK(take(3));
	CHECK(same_bytes());
	ud(15, LID_A, LID_C, 0, 0, 0, mad, 256);
	inject(3);
	CHECK(take(1));
	/* data to it is discarded at the egress port */
	disc = sw.port[3].pma.c[ORCA_PMA_XMIT_DISCARDS];
	data(LID_C, LID_A, 64);
	inject(1);
	CHECK(quiet());
	CHECK_EQ(sw.port[3].pma.c[ORCA_PMA_XMIT_DISCARDS], disc + 1);
	/* data from it is not taken in */
	data(LID_A, LID_C, 64);
	inject(3);
	CHECK(quiet());
	CHECK_EQ(sw.drops[FAB_SW_DROP_INGRESS], 1);
	CHECK_EQ(port_state(3), 2);
}

static void armed_to_active(void)
{
	program();
	sm_port_state(3, 3);
	clear_psc();
	/* ARMED sends no data */
	data(LID_C, LID_A, 64);
	inject(1);
	CHECK(quiet());
	/* but data it receives goes through, and makes it ACTIVE */
	data(LID_A, LID_C, 64);
	inject(3);
	CHECK(take(1));
	CHECK(same_bytes());
	CHECK_EQ(port_state(3), 4);
	/* 14.2.5.4: only transitions to and from Down set PortStateChange */
	sm_get(0x0012, 0);
	CHECK_EQ(resp[DATA + 11] & 0x04, 0);
	data(LID_C, LID_A, 64);
	inject(1);
	CHECK(take(3));
	CHECK(same_bytes());
	/* VL15 does not activate an ARMED port */
	sm_port_state(3, 1);		/* DOWN: retrains to INIT */
	CHECK_EQ(port_state(3), 2);
	CHECK_EQ(fab_sw_pop(&sw, 3, msg), sizeof(struct orca_fab_link));
	CHECK_EQ(msg[0], ORCA_FAB_LINK_UP);
	sm_port_state(3, 3);
	mad_hdr(0x01, 1, 0x0011, 0);
	ud(15, LID_A, LID_C, 0, 0, 0, mad, 256);
	inject(3);
	CHECK(take(1));
	CHECK_EQ(port_state(3), 3);
	CHECK(quiet());
}

/* PortCounters (16.1.3.5) of switch port @port via QP1, LID-routed. */
static void pma(uint8_t method, unsigned int port, uint16_t select)
{
	mad_hdr(0x04, method, 0x0012, 0);
	mad[DATA + 1] = port;
	put_be(mad + DATA + 2, select, 2);
	ud(0, SW_LID, LID_A, 1, 0x33, 0x80010000, mad, 256);
	inject(1);
	CHECK(take(1));
	CHECK_EQ(pout.vl, 0);
	CHECK_EQ(pout.dlid, LID_A);
	CHECK_EQ(pout.slid, SW_LID);
	CHECK_EQ(pout.dqpn, 0x33);
	CHECK_EQ(pout.sqpn, 1);
	CHECK_EQ(pout.qkey, 0x80010000);
	memcpy(resp, pout.payload, 256);
	CHECK_EQ(resp[3], 0x81);
	CHECK_EQ(get_be(resp + 4, 2), 0);
}

static void pma_counters(void)
{
	static const uint32_t sizes[] = { 0, 1, 100, 256, 1000, 4096 };
	uint64_t bytes = 0;
	unsigned int i;

	program();
	pma(2, 2, 0xffff);				/* clear them all */
	for (i = 0; i < 6; i++) {
		data(LID_B, LID_A, sizes[i]);
		inject(1);
		CHECK(take(2));
		/* 7.7.8: LRH 8 + BTH 12 + DETH 8 + payload (padded) + ICRC 4 */
		CHECK_EQ(wire_len, 32 + ((sizes[i] + 3) & ~3u));
		bytes += wire_len;
	}
	/* one dropped on the way out is no transmitted data */
	data(LID_C, LID_A, 64);
	inject(1);
	pma(1, 2, 0);
	/* PortXmitData, PortRcvData are in 4-byte words */
	CHECK_EQ(get_be(resp + DATA + 24, 4), bytes / 4);
	CHECK_EQ(get_be(resp + DATA + 28, 4), 0);
	CHECK_EQ(get_be(resp + DATA + 32, 4), 6);
	CHECK_EQ(get_be(resp + DATA + 36, 4), 0);
	pma(1, 3, 0);
	CHECK_EQ(get_be(resp + DATA + 14, 2), 1);	/* PortXmitDiscards */
	CHECK_EQ(get_be(resp + DATA + 24, 4), 0);
	/* and the same bytes came in on port 1 */
	pma(1, 1, 0);
	CHECK(get_be(resp + DATA + 28, 4) >= bytes / 4);
	/* QP1 with another Q_Key than 0x80010000 is not the PMA's */
	mad_hdr(0x04, 1, 0x0012, 0);
	mad[DATA + 1] = 2;
	ud(0, SW_LID, LID_A, 1, 0x33, 0x1234, mad, 256);
	inject(1);
	CHECK(quiet());
	CHECK_EQ(sw.drops[FAB_SW_DROP_PORT0], 1);
}

/* A PortCounters Get of port 2 to QP1 with P_Key @pkey: re-encoded. */
static void pma_with_pkey(uint16_t pkey)
{
	mad_hdr(0x04, 1, 0x0012, 0);
	mad[DATA + 1] = 2;
	ud(0, SW_LID, LID_A, 1, 0x33, 0x80010000, mad, 256);
	pin.pkey = pkey;
	wire_len = orca_pkt_encode(&pin, wire);
	inject(1);
}

/*
 * Review finding 7: the switch's PMA (QP1 of port 0) takes a request
 * only in a partition of port 0's table, as a CA's QP1 does (IBA 10.9.3),
 * and answers in it: with the default table (0xffff) a limited member
 * 0x7fff is answered with 0x7fff, 0x8005 (another partition) dropped
 * and counted.
 */
static void pma_pkeys(void)
{
	program();
	pma_with_pkey(0x7fff);
	CHECK(take(1));
	CHECK_EQ(pout.pkey, 0x7fff);
	CHECK_EQ(pout.payload[3], 0x81);
	pma_with_pkey(0x8005);
	CHECK(quiet());
	CHECK_EQ(sw.drops[FAB_SW_DROP_PKEY], 1);
	CHECK(!strcmp(fab_sw_drop_name(FAB_SW_DROP_PKEY), "port0_pkey"));
}

/* ---- partition enforcement (IBA 10.9.4, 14.2.5.6 byte 43) ---- */

/* @len bytes of data from @slid to @dlid with P_Key @pkey, on @vl. */
static void data_pkey(uint16_t dlid, uint16_t slid, uint16_t pkey, uint8_t vl)
{
	data(dlid, slid, 64);
	pin.pkey = pkey;
	pin.vl = vl;
	wire_len = orca_pkt_encode(&pin, wire);
	CHECK(wire_len > 0);
}

/* The SM: external @port's P_Key table block 0 to @keys, then @bits. */
static void sm_partitions(unsigned int port, const uint16_t *keys,
			  unsigned int n, uint8_t bits)
{
	uint8_t d[64] = { 0 };
	unsigned int i;

	for (i = 0; i < n; i++)
		put_be(d + 2 * i, keys[i], 2);
	sm_set(0x0016, port << 16, d);
	sm_get(0x0015, port);
	memcpy(d, resp + DATA, 64);
	d[32] &= 0xf0;				/* PortState: no change */
	d[33] &= 0x0f;				/* PhysState: no change */
	d[43] = (d[43] & 0xf0) | bits;
	sm_set(0x0015, port, d);
	/* the switch has partition enforcement, no raw packet filter */
	CHECK_EQ(resp[DATA + 43] & 0x0f, bits & 0x0c);
}

/*
 * The SM puts the CA on port 1 in partition 0x8001, the one on port 2 in
 * 0x8002, both full members of the default, and turns inbound and
 * outbound enforcement on in both switch ports (what OpenSM does from
 * partitions.conf); port 3 enforces nothing.  The CA on port 2 then
 * sends with P_Keys it took itself.
 */
static void partitions(void)
{
	static const uint16_t a[] = { 0xffff, 0x8001 }, b[] = { 0xffff, 0x8002 };
	uint8_t d[64] = { 0 };

	program();
	sm_port_state(3, 3);
	sm_port_state(3, 4);
	sm_get(0x0012, 0);
	CHECK_EQ(get_be(resp + DATA + 14, 2), FAB_SW_ENFORCE_CAP);
	CHECK_EQ(resp[DATA + 16], 0xc0);
	sm_partitions(1, a, 2, 0x0c);
	sm_partitions(2, b, 2, 0x0c);
	/* FilterRaw asked for: the switch has none, the port says so */
	sm_partitions(3, a, 1, 0x03);

	/* the default partition passes, either membership */
	data_pkey(LID_A, LID_B, 0x7fff, 0);
	inject(2);
	CHECK(take(1));
	CHECK(same_bytes());
	data_pkey(LID_B, LID_A, 0xffff, 0);
	inject(1);
	CHECK(take(2));
	/* port 2 took 0x8001: stopped where it comes in */
	data_pkey(LID_A, LID_B, 0x8001, 0);
	inject(2);
	data_pkey(LID_A, LID_B, 0x0001, 0);	/* limited: same partition */
	inject(2);
	CHECK(quiet());
	CHECK_EQ(sw.port[2].pma.c[ORCA_PMA_RCV_CONSTRAINT_ERRORS], 2);
	CHECK_EQ(sw.drops[FAB_SW_DROP_PART_IN], 2);
	/* 0x8001 from port 1 to port 2: stopped where it would go out */
	data_pkey(LID_B, LID_A, 0x8001, 0);
	inject(1);
	CHECK(quiet());
	CHECK_EQ(sw.port[2].pma.c[ORCA_PMA_XMIT_CONSTRAINT_ERRORS], 1);
	CHECK_EQ(sw.port[1].pma.c[ORCA_PMA_RCV_CONSTRAINT_ERRORS], 0);
	CHECK_EQ(sw.drops[FAB_SW_DROP_PART_OUT], 1);
	/* ... and to port 3, which does not enforce, it goes */
	data_pkey(LID_C, LID_A, 0x8001, 0);
	inject(1);
	CHECK(take(3));
	CHECK(same_bytes());
	/* P_Key 0 (invalid) matches no entry, an empty one included */
	data_pkey(LID_B, LID_A, 0x0000, 0);
	inject(1);
	CHECK(quiet());
	CHECK_EQ(sw.port[1].pma.c[ORCA_PMA_RCV_CONSTRAINT_ERRORS], 1);
	/* SMPs (VL15) are not partitioned */
	mad_hdr(0x01, 1, 0x0011, 0);
	ud(15, LID_A, LID_B, 0, 0, 0, mad, 256);
	pin.pkey = 0x8001;
	wire_len = orca_pkt_encode(&pin, wire);
	inject(2);
	CHECK(take(1));
	CHECK(same_bytes());
	/* multicast: each egress port judges its copy */
	put_be(d + 2, 0x000e, 2);		/* MLID 0xc001: ports 1-3 */
	sm_set(0x001b, 0, d);
	data_pkey(MLID, LID_A, 0x8001, 0);
	inject(1);
	CHECK(take(3));
	CHECK(quiet());
	CHECK_EQ(sw.port[2].pma.c[ORCA_PMA_XMIT_CONSTRAINT_ERRORS], 2);
	/* the PMA reports them (PortCounters bytes 16, 17) */
	pma(1, 2, 0);
	CHECK_EQ(resp[DATA + 16], 2);		/* PortXmitConstraintErrors */
	CHECK_EQ(resp[DATA + 17], 2);		/* PortRcvConstraintErrors */
	/* enforcement off (OpenSM part_enforce off): 0x8001 goes through */
	sm_partitions(2, b, 2, 0);
	data_pkey(LID_A, LID_B, 0x8001, 0);
	inject(2);
	CHECK(take(1));
	data_pkey(LID_B, LID_A, 0x8001, 0);
	inject(1);
	CHECK(take(2));
	CHECK(!strcmp(fab_sw_drop_name(FAB_SW_DROP_PART_IN), "partition_in"));
	CHECK(!strcmp(fab_sw_drop_name(FAB_SW_DROP_PART_OUT), "partition_out"));
}

/*
 * Traps from port 0 (IBA 14.2.5.1, 14.3.1), LID-routed to the SM (the CA
 * on port 1) on VL15 by the LFT when the loop ticks: 259 for a packet a
 * port's partitions stopped, once however many follow until the SM's
 * TrapRepress; 128 when PortStateChange goes to 1.
 */
static void traps(void)
{
	static const uint16_t b[] = { 0xffff, 0x8002 };
	uint64_t tid;
	unsigned int i;

	program();
	clear_psc();
	fab_sw_tick(&sw, 1000);
	CHECK(quiet());
	sm_partitions(2, b, 2, 0x0c);
	for (i = 0; i < 5; i++) {
		data_pkey(LID_A, LID_B, 0x8001, 0);
		inject(2);
	}
	CHECK(quiet());				/* nothing until the tick */
	fab_sw_tick(&sw, 2000);
	CHECK(take(1));
	CHECK(quiet());				/* one trap for the five */
	CHECK_EQ(pout.vl, 15);
	CHECK_EQ(pout.dlid, LID_A);
	CHECK_EQ(pout.slid, SW_LID);
	CHECK_EQ(pout.dqpn, 0);
	CHECK_EQ(pout.sqpn, 0);
	memcpy(resp, pout.payload, 256);
	CHECK_EQ(resp[1], 0x01);
	CHECK_EQ(resp[3], 0x05);
	CHECK_EQ(get_be(resp + 16, 2), 0x0002);
	CHECK_EQ(resp[DATA], 0x82);			/* security */
	CHECK_EQ(resp[DATA + 3], 2);			/* a switch */
	CHECK_EQ(get_be(resp + DATA + 4, 2), 259);
	CHECK_EQ(get_be(resp + DATA + 6, 2), SW_LID);
	/* DataDetails at Notice byte 10 */
	CHECK_EQ(get_be(resp + DATA + 12, 2), LID_B);	/* LID1: source */
	CHECK_EQ(get_be(resp + DATA + 14, 2), LID_A);	/* LID2 */
	CHECK_EQ(get_be(resp + DATA + 16, 2), 0x8001);
	CHECK_EQ(get_be(resp + DATA + 18, 4) & 0xffffff, 0x20);	/* QP1 */
	CHECK_EQ(get_be(resp + DATA + 22, 4), 0x21);		/* QP2 */
	CHECK_EQ(get_be(resp + DATA + 58, 2), SW_LID);
	CHECK_EQ(resp[DATA + 60], 2);			/* the port */
	CHECK_EQ(sw.node.traps.coalesced, 4);
	tid = get_be(resp + 8, 8);
	/* unanswered: again a second later, not before */
	fab_sw_tick(&sw, 2999);
	CHECK(quiet());
	fab_sw_tick(&sw, 3000);
	CHECK(take(1));
	CHECK_EQ(get_be(pout.payload + 8, 8), tid);
	/* the SM's TrapRepress (LID-routed, its TID): no answer, no more */
	mad_hdr(0x01, 0x07, 0x0002, 0);
	put_be(mad + 8, tid, 8);
	ud(15, SW_LID, LID_A, 0, 0, 0, mad, 256);
	inject(1);
	fab_sw_tick(&sw, 9000);
	CHECK(quiet());
	CHECK_EQ(sw.node.traps.repressed, 1);
	/* trap 128: port 3's link goes down */
	fab_sw_link(&sw, 3, false);
	fab_sw_tick(&sw, 10000);
	CHECK(take(1));
	CHECK_EQ(get_be(pout.payload + DATA + 4, 2), 128);
	CHECK_EQ(get_be(pout.payload + DATA + 10, 2), SW_LID);
}

static void vl15_priority(void)
{
	unsigned int i, n;

	program();
	/* three data packets wait at port 2, then an SMP comes */
	for (i = 0; i < 3; i++) {
		data(LID_B, LID_A, 16 + i);
		inject(1);
	}
	mad_hdr(0x01, 1, 0x0011, 0);
	ud(15, LID_B, LID_A, 0, 0, 0, mad, 256);
	inject(1);
	CHECK(take(2));
	CHECK_EQ(pout.vl, 15);
	for (i = 0; i < 3; i++) {
		CHECK(take(2));
		CHECK_EQ(pout.vl, 0);
		CHECK_EQ(pout.paylen, 16 + i);
	}
	CHECK(quiet());
	/* the VL15 queue is small and drops when full */
	for (i = 0; i < FAB_SW_VL15_QUEUE + 2; i++)
		inject(1);
	CHECK_EQ(sw.port[2].pma.c[ORCA_PMA_VL15_DROPPED], 2);
	/* data still gets in beside a full VL15 queue */
	data(LID_B, LID_A, 8);
	inject(1);
	for (n = 0; take(2); n++)
		;
	CHECK_EQ(n, FAB_SW_VL15_QUEUE + 1);
	/* and a full data queue leaves room for SMPs */
	for (i = 0; i < FAB_SW_DATA_QUEUE + 1; i++) {
		data(LID_B, LID_A, 8);
		inject(1);
	}
	CHECK_EQ(sw.drops[FAB_SW_DROP_QUEUE], 3);
	mad_hdr(0x01, 1, 0x0011, 0);
	ud(15, LID_B, LID_A, 0, 0, 0, mad, 256);
	inject(1);
	CHECK(take(2));
	CHECK_EQ(pout.vl, 15);
	for (n = 0; take(2); n++)
		;
	CHECK_EQ(n, FAB_SW_DATA_QUEUE);
}

static void link_down(void)
{
	program();
	/* a port whose link went down: nothing for it, its queue lost */
	data(LID_B, LID_A, 8);
	inject(1);
	fab_sw_link(&sw, 2, false);
	CHECK(!fab_sw_pending(&sw, 2));
	CHECK_EQ(port_state(2), 1);
	data(LID_B, LID_A, 8);
	inject(1);
	CHECK(quiet());
	/* back up: INIT, and LINK_UP to it; the SM must activate it */
	fab_sw_link(&sw, 2, true);
	CHECK_EQ(fab_sw_pop(&sw, 2, msg), sizeof(struct orca_fab_link));
	CHECK_EQ(msg[0], ORCA_FAB_LINK_UP);
	CHECK_EQ(msg[8], 2);
	CHECK_EQ(port_state(2), 2);
	sm_get(0x0012, 0);
	CHECK_EQ(resp[DATA + 11] & 0x04, 0x04);
}

/* ---- a whole subnet: an SM's sweep through the switch ---- */

/*
 * The CAs in switch ports 1 (the SM's) and 2, each with the library's
 * SMA for its one port, and what their ib_mad does with a DR SMP that
 * reaches them from the wire (C14-9:3, C14-13:1 at a CA): the way back
 * noted, the SMA's reply sent back with hop_ptr hop_cnt.
 */
static struct orca_mad_node ca[NPORTS + 1];

static void ca_init(unsigned int i)
{
	CHECK_EQ(orca_mad_node_init(&ca[i], 1, 1), 0);
	ca[i].node_guid = GUID(i) + 0x1000000;
	ca[i].sys_guid = ca[i].node_guid;
	ca[i].port[1].guid = GUID(i);
	orca_mad_link(&ca[i], 1, true);		/* on LINK_UP */
}

/* The CA in switch port @i takes pout (a DR SMP) and answers into it. */
static void ca_answer(unsigned int i)
{
	struct orca_mad_in in = { .mad = pout.payload, .port = 1 };
	uint8_t *m = pout.payload, out[256];
	uint8_t hop_cnt = m[HOP_CNT];
	uint32_t chg;

	CHECK_EQ(pout.vl, 15);
	CHECK_EQ(m[HOP_PTR], hop_cnt);
	CHECK(!(m[4] & 0x80));
	m[RET_PATH + hop_cnt] = 1;
	m[HOP_PTR] = hop_cnt + 1;
	CHECK_EQ(orca_mad_process(&ca[i], &in, out, &chg), ORCA_MAD_REPLY);
	out[HOP_PTR] = hop_cnt;
	ud(15, 0xffff, 0xffff, 0, 0, 0, out, 256);
	inject(i);
}

/*
 * The SM's DR SMP along @path (hop 1 is the SM's CA port, so path[0]
 * is 1); CAs on the way answer; the reply back at the SM's CA is in
 * resp.  Its status, or -1 if no reply came.
 */
static int sm_dr(uint8_t method, uint16_t attr, uint32_t mod,
		 uint8_t hop_cnt, const uint8_t *path, const uint8_t *d)
{
	unsigned int port, rounds;

	dr_smp(method, attr, mod, hop_cnt, path);
	if (d)
		memcpy(mad + DATA, d, 64);
	send_smp(1);
	for (rounds = 0; rounds < 4; rounds++) {
		if (take(1)) {
			/* C14-13:3 at the SM's node: hop_ptr 1 -> 0 */
			CHECK_EQ(pout.payload[HOP_PTR], 1);
			CHECK_EQ(get_be(pout.payload + 8, 8), tid);
			memcpy(resp, pout.payload, 256);
			return get_be(resp + 4, 2) & 0x7fff;
		}
		for (port = 2; port <= NPORTS; port++)
			if (take(port))
				ca_answer(port);
	}
	return -1;
}

/* OpenSM's read, edit, write of a PortInfo at the end of @path. */
static void sm_port_info(uint8_t hop_cnt, const uint8_t *path,
			 unsigned int port, int lid, int state)
{
	uint8_t pi[64];

	CHECK_EQ(sm_dr(1, 0x0015, port, hop_cnt, path, NULL), 0);
	memcpy(pi, resp + DATA, 64);
	pi[32] &= 0xf0;
	pi[33] &= 0x0f;
	if (lid >= 0) {
		put_be(pi + 16, lid, 2);
		put_be(pi + 18, LID_A, 2);		/* MasterSMLID */
	}
	if (state >= 0)
		pi[32] |= state;
	CHECK_EQ(sm_dr(2, 0x0015, port, hop_cnt, path, pi), 0);
	if (lid >= 0)
		CHECK_EQ(get_be(resp + DATA + 16, 2), lid);
	if (state >= 0)
		CHECK_EQ(resp[DATA + 32] & 0xf, state);
}

static void sm_sweep(void)
{
	const uint8_t to_sw[1] = { 1 };
	uint8_t to_ca[2] = { 1, 0 }, d[64], local;
	unsigned int p, found = 0, i;

	fab_sw_free(&sw);
	CHECK_EQ(fab_sw_init(&sw, NPORTS, SW_GUID), 0);
	CHECK_EQ(cable(GUID(1)), 1);
	CHECK_EQ(cable(GUID(2)), 2);
	ca_init(1);
	ca_init(2);

	/* hop 1: the switch, its SwitchInfo and ports (osm_state_mgr) */
	CHECK_EQ(sm_dr(1, 0x0011, 0, 1, to_sw, NULL), 0);
	CHECK_EQ(resp[DATA + 2], 2);
	local = resp[DATA + 36];
	CHECK_EQ(local, 1);
	CHECK_EQ(sm_dr(1, 0x0012, 0, 1, to_sw, NULL), 0);
	CHECK_EQ(get_be(resp + DATA, 2), 0xc000);	/* LinearFDBCap */
	for (p = 0; p <= NPORTS; p++) {
		CHECK_EQ(sm_dr(1, 0x0015, p, 1, to_sw, NULL), 0);
		if (!p || p == local || (resp[DATA + 32] & 0xf) < 2)
			continue;
		/* hop 2 through every live port but the one it came in by */
		to_ca[1] = p;
		CHECK_EQ(sm_dr(1, 0x0011, 0, 2, to_ca, NULL), 0);
		CHECK_EQ(resp[DATA + 2], 1);			/* a CA */
		CHECK_EQ(get_be(resp + DATA + 20, 8), GUID(p));
		CHECK_EQ(resp[DATA + 36], 1);
		found++;
	}
	CHECK_EQ(found, 1);

	/* LIDs: the switch's port 0, the CA beyond it, the SM's own */
	sm_port_info(1, to_sw, 0, SW_LID, -1);
	to_ca[1] = 2;
	sm_port_info(2, to_ca, 1, LID_B, -1);
	ca[1].port[1].lid = LID_A;
	/* routing: SwitchInfo, then the LFT */
	CHECK_EQ(sm_dr(1, 0x0012, 0, 1, to_sw, NULL), 0);
	memcpy(d, resp + DATA, 64);
	put_be(d + 6, 0x3f, 2);
	d[11] |= 0x04;				/* PortStateChange cleared */
	CHECK_EQ(sm_dr(2, 0x0012, 0, 1, to_sw, d), 0);
	memset(d, 0xff, 64);
	d[SW_LID] = 0;
	d[LID_A] = 1;
	d[LID_B] = 2;
	CHECK_EQ(sm_dr(2, 0x0019, 0, 1, to_sw, d), 0);
	/* osm_link_mgr: ARMED, then ACTIVE, both ends of both links */
	for (i = 3; i <= 4; i++) {
		sm_port_info(1, to_sw, 1, -1, i);
		sm_port_info(1, to_sw, 2, -1, i);
		sm_port_info(2, to_ca, 1, -1, i);
		ca[1].port[1].state = i;
	}
	CHECK(quiet());

	/* the subnet is up: data from A to B and back by the LFT */
	data(LID_B, LID_A, 512);
	inject(1);
	CHECK(take(2));
	CHECK(same_bytes());
	data(LID_A, LID_B, 512);
	inject(2);
	CHECK(take(1));
	CHECK(same_bytes());
	/* a light sweep sees no change; the switch answers its LID too */
	CHECK_EQ(sm_dr(1, 0x0012, 0, 1, to_sw, NULL), 0);
	CHECK_EQ(resp[DATA + 11] & 0x04, 0);
	mad_hdr(0x01, 1, 0x0011, 0);
	ud(15, SW_LID, LID_A, 0, 0, 0, mad, 256);
	inject(1);
	CHECK(take(1));
	CHECK_EQ(pout.slid, SW_LID);
	CHECK_EQ(pout.payload[DATA + 36], 1);
	/* B's cable out: PortStateChange for the next light sweep */
	fab_sw_detach(&sw, 2);
	CHECK_EQ(sm_dr(1, 0x0012, 0, 1, to_sw, NULL), 0);
	CHECK_EQ(resp[DATA + 11] & 0x04, 0x04);
	data(LID_B, LID_A, 512);
	inject(1);
	CHECK(quiet());
}

/* ---- orca-fabric --sm none as a process ---- */

static const char *fab_bin;
static char dir[64], sock_path[96], ctl_path[96];

static void hdr(struct orca_fab_hdr *h, uint8_t type)
{
	memset(h, 0, sizeof(*h));
	h->type = type;
	h->version = ORCA_FAB_VERSION;
}

/* A new connection saying HELLO for @guid; the switch port or -1. */
static int hello(int *fd, uint64_t guid)
{
	return fab_hello(sock_path, fd, guid, guid + 0x1000000);
}

/* The value of "key=value" in a fresh stats line, as a string. */
static const char *stat_str(const char *key)
{
	static char val[64];
	const char *line = ctl_line(ctl_path, "stats");
	char pat[64];
	const char *at;

	snprintf(pat, sizeof(pat), " %s=", key);
	at = strstr(line, pat);
	if (!at)
		return "";
	snprintf(val, sizeof(val), "%s", at + strlen(pat));
	val[strcspn(val, " \n")] = '\0';
	return val;
}

static long long stat_of(const char *key)
{
	const char *v = stat_str(key);

	return *v ? strtoll(v, NULL, 0) : -1;
}

static bool fabric_up(pid_t *pid)
{
	int i;

	snprintf(dir, sizeof(dir), "/tmp/orca-sw-test.XXXXXX");
	if (!mkdtemp(dir))
		return false;
	snprintf(sock_path, sizeof(sock_path), "%s/fabric.sock", dir);
	snprintf(ctl_path, sizeof(ctl_path), "%s/fabric.ctl", dir);
	*pid = fork();
	if (*pid < 0)
		return false;
	if (!*pid) {
		execl(fab_bin, "orca-fabric", "--socket", sock_path, "--ctl",
		      ctl_path, "--sm", "none", "--ports", "2", "--guid",
		      "0x00ca7a0000f00000", (char *)NULL);
		_exit(127);
	}
	/*
	 * Up when its ctl socket answers: the file appears at bind(), and a
	 * connect() before the listen() after it is refused.
	 */
	for (i = 0; i < 10000 && !*stat_str("mode"); i++)
		usleep(1000);
	return *stat_str("mode");
}

static void fabric_process(void)
{
	const uint8_t path[1] = { 1 };
	struct orca_fab_hdr h;
	int a, b, c, status;
	ssize_t n;
	pid_t pid = -1;

	CHECK(fabric_up(&pid));
	if (pid <= 0)
		return;
	CHECK(!strcmp(stat_str("mode"), "switch"));
	CHECK_EQ(hello(&a, GUID(1)), 1);
	CHECK_EQ(hello(&b, GUID(2)), 2);
	/* two ports only: a third GUID is refused and closed */
	CHECK_EQ(hello(&c, GUID(3)), -1);
	if (c >= 0) {
		CHECK_EQ(recv_msg(c, msg, sizeof(msg)), 0);
		close(c);
	}
	CHECK_EQ(stat_of("p1_guid"), (long long)GUID(1));
	CHECK_EQ(stat_of("switch_ports"), 2);

	/* a DR NodeInfo at hop 1 over the socket */
	dr_smp(1, 0x0011, 0, 1, path);
	ud(15, 0xffff, 0xffff, 0, 0, 0, mad, 256);
	hdr(&h, ORCA_FAB_PKT);
	memcpy(msg, &h, sizeof(h));
	memcpy(msg + sizeof(h), wire, wire_len);
	CHECK_EQ(send(b, msg, sizeof(h) + wire_len, 0),
		 (ssize_t)(sizeof(h) + wire_len));
	n = recv_msg(b, msg, sizeof(msg));
	CHECK_EQ(n, (ssize_t)(sizeof(h) + wire_len));
	if (n > 8) {
		CHECK_EQ(msg[0], ORCA_FAB_PKT);
		CHECK_EQ(orca_pkt_decode(msg + 8, n - 8, &pout), ORCA_PKT_OK);
		CHECK_EQ(pout.payload[DATA + 36], 2);
		CHECK_EQ(get_be(pout.payload + DATA + 12, 8), SW_GUID);
	}
	CHECK_EQ(stat_of("p0_rcv_pkts"), 1);
	CHECK_EQ(stat_of("p2_xmit_pkts"), 1);
	CHECK(!strcmp(stat_str("p2_state"), "init"));
	CHECK(!strcmp(stat_str("p1_phys"), "linkup"));

	/* PORT_DOWN, PORT_UP: down, then LINK_UP again */
	hdr(&h, ORCA_FAB_PORT_DOWN);
	CHECK_EQ(send(b, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	CHECK(!strcmp(stat_str("p2_phys"), "polling"));
	CHECK(!strcmp(stat_str("p2_state"), "down"));
	hdr(&h, ORCA_FAB_PORT_UP);
	CHECK_EQ(send(b, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	CHECK_EQ(recv_msg(b, msg, sizeof(msg)),
		 (ssize_t)sizeof(struct orca_fab_link));
	CHECK_EQ(msg[0], ORCA_FAB_LINK_UP);
	CHECK_EQ(msg[8], 2);

	/* a port GUID keeps its switch port across reconnects */
	close(a);
	CHECK_EQ(hello(&c, GUID(3)), -1);	/* port 1 is GUID(1)'s */
	if (c >= 0)
		close(c);
	CHECK_EQ(hello(&a, GUID(1)), 1);
	CHECK_EQ(stat_of("p1_connects"), 2);
	close(a);
	close(b);

	kill(pid, SIGTERM);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(access(sock_path, F_OK) && access(ctl_path, F_OK));
	rmdir(dir);
}

int main(int argc, char **argv)
{
	bool verbose = argc > 1 && !strcmp(argv[1], "-v");

	if (argc > 1 + verbose)
		fab_bin = argv[1 + verbose];
	orca_log_set_quiet(!verbose);
	RUN(link_up_psc);
	RUN(dr_hop1_node_info);
	RUN(dr_hop2_through);
	RUN(dr_bad);
	RUN(lft_forwarding);
	RUN(no_icrc_forwarding);
	RUN(lid_routed_smp);
	RUN(mcast);
	RUN(init_port_rules);
	RUN(armed_to_active);
	RUN(pma_counters);
	RUN(pma_pkeys);
	RUN(partitions);
	RUN(traps);
	RUN(vl15_priority);
	RUN(link_down);
	RUN(sm_sweep);
	fab_sw_free(&sw);
	if (fab_bin)
		RUN(fabric_process);
	return tap_done();
}
