/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The switch tests' SM and hosts (test_switch.c, test_topo.c): packets
 * built into wire, SMPs at IBA vol 1 offsets (13.4.2 common header,
 * 14.2.1.2 DR SMP), what a switch port sends decoded into pout.
 */
#ifndef ORCA_EMU_TESTS_SWITCH_FIXTURE_H
#define ORCA_EMU_TESTS_SWITCH_FIXTURE_H

#include <string.h>

#include "fabric/fabric_switch.h"
#include "be.h"
#include "tap.h"

/* 14.2.1.2: the DR SMP's fields */
#define HOP_PTR		6
#define HOP_CNT		7
#define DR_SLID		32
#define DR_DLID		34
#define DATA		64
#define INIT_PATH	128
#define RET_PATH	192

static struct orca_pkt pin, pout;
static uint8_t wire[ORCA_PKT_WIRE_MAX], msg[ORCA_FAB_MSG_MAX];
static size_t wire_len, out_len;	/* the last sent / received */
static uint8_t mad[256], resp[256];
static uint64_t tid = 0x1000;

/* A UD SEND_ONLY on @vl with @len bytes of @payload, into wire. */
static size_t ud(uint8_t vl, uint16_t dlid, uint16_t slid, uint32_t dqpn,
		 uint32_t sqpn, uint32_t qkey, const uint8_t *payload,
		 uint32_t len)
{
	memset(&pin, 0, sizeof(pin));
	pin.hdrs = PKT_DETH;
	pin.vl = vl;
	pin.dlid = dlid;
	pin.slid = slid;
	pin.opcode = IB_UD | IB_SEND_ONLY;
	pin.pkey = 0xffff;
	pin.dqpn = dqpn;
	pin.sqpn = sqpn;
	pin.qkey = qkey;
	pin.psn = 77;
	pin.paylen = len;
	memcpy(pin.payload, payload, len);
	wire_len = orca_pkt_encode(&pin, wire);
	CHECK(wire_len > 0);
	return wire_len;
}

/* The SMP in mad as a QP0 packet (VL15, permissive LIDs), into wire. */
static size_t smp_wire(void)
{
	return ud(15, 0xffff, 0xffff, 0, 0, 0, mad, 256);
}

/* The next packet out of @sw port @port, decoded into pout; false if none. */
static bool take_from(struct fab_switch *sw, unsigned int port)
{
	size_t n = fab_sw_pop(sw, port, msg);

	if (!n)
		return false;
	CHECK_EQ(msg[0], ORCA_FAB_PKT);
	CHECK_EQ(msg[1], ORCA_FAB_VERSION);
	out_len = n - sizeof(struct orca_fab_hdr);
	/* decoding checks the ICRC too */
	CHECK_EQ(orca_pkt_decode(msg + 8, out_len, &pout), ORCA_PKT_OK);
	return msg[0] == ORCA_FAB_PKT;
}

/* Did the last packet taken leave exactly as it came in? */
static bool same_bytes(void)
{
	return out_len == wire_len && !memcmp(msg + 8, wire, wire_len);
}

static void mad_hdr(uint8_t class, uint8_t method, uint16_t attr,
		    uint32_t mod)
{
	memset(mad, 0, sizeof(mad));
	mad[0] = 1;
	mad[1] = class;
	mad[2] = 1;
	mad[3] = method;
	put_be(mad + 8, ++tid, 8);
	put_be(mad + 16, attr, 2);
	put_be(mad + 20, mod, 4);
}

/*
 * A pure DR SMP as the SM's node sends it (C14-9:1): hop_ptr already
 * 1, DrSLID = DrDLID = permissive, InitialPath[1..] = @path.
 */
static void dr_smp(uint8_t method, uint16_t attr, uint32_t mod,
		   uint8_t hop_cnt, const uint8_t *path)
{
	mad_hdr(0x81, method, attr, mod);
	mad[HOP_PTR] = 1;
	mad[HOP_CNT] = hop_cnt;
	put_be(mad + DR_SLID, 0xffff, 2);
	put_be(mad + DR_DLID, 0xffff, 2);
	memcpy(mad + INIT_PATH + 1, path, hop_cnt);
}

#endif /* ORCA_EMU_TESTS_SWITCH_FIXTURE_H */
