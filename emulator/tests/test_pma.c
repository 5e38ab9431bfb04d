// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The performance management agent (orca_pma.c through
 * orca_mad_process()): ClassPortInfo; PortCounters from the owner's raw
 * totals, data in 4-byte words, every field saturating at its width;
 * a Set's CounterSelect clearing exactly the selected counters;
 * PortCountersExtended; PortSelect of a CA and of a switch, and 0xff.
 * MADs and replies at IBA vol 1 16.1 offsets.
 *
 * usage: orca-emu-pma-tests [-v]
 */
#include <stdio.h>
#include <string.h>

#include "orca_log.h"
#include "mad_fixture.h"

#define PERF	0x04
#define GET	0x01
#define SET	0x02
#define D	64		/* PMA data */

static struct orca_pma_counters raw[ORCA_MAD_MAX_PORTS + 1];

static void read_raw(void *ctx, unsigned int port,
		     struct orca_pma_counters *out)
{
	CHECK(ctx == raw);
	CHECK(port <= ORCA_MAD_MAX_PORTS);
	*out = raw[port];
}

static void setup(uint8_t type, uint8_t ports)
{
	CHECK_EQ(orca_mad_node_init(&node, type, ports), 0);
	node.pma_read = read_raw;
	node.pma_ctx = raw;
	memset(raw, 0, sizeof(raw));
}

/*
 * PortCounters fields (IBA table 247): offset in the data, width in
 * bits, the owner's counter behind it, CounterSelect bit = index.
 */
static const struct {
	unsigned int off, bits, counter;
} pc[16] = {
	{ 4, 16, ORCA_PMA_SYMBOL_ERRORS },
	{ 6, 8, ORCA_PMA_LINK_ERROR_RECOVERY },
	{ 7, 8, ORCA_PMA_LINK_DOWNED },
	{ 8, 16, ORCA_PMA_RCV_ERRORS },
	{ 10, 16, ORCA_PMA_RCV_REMPHYS_ERRORS },
	{ 12, 16, ORCA_PMA_RCV_SWITCH_RELAY_ERRORS },
	{ 14, 16, ORCA_PMA_XMIT_DISCARDS },
	{ 16, 8, ORCA_PMA_XMIT_CONSTRAINT_ERRORS },
	{ 17, 8, ORCA_PMA_RCV_CONSTRAINT_ERRORS },
	{ 19, 4, ORCA_PMA_LOCAL_LINK_INTEGRITY_ERRORS },	/* 7:4 */
	{ 19, 0, ORCA_PMA_EXCESSIVE_BUFFER_OVERRUNS },	/* 3:0 */
	{ 22, 16, ORCA_PMA_VL15_DROPPED },
	{ 24, 32, ORCA_PMA_XMIT_BYTES },
	{ 28, 32, ORCA_PMA_RCV_BYTES },
	{ 32, 32, ORCA_PMA_XMIT_PKTS },
	{ 36, 32, ORCA_PMA_RCV_PKTS },
};

/* Field @i of a PortCounters reply. */
static uint64_t pc_field(unsigned int i)
{
	const uint8_t *p = rsp + D + pc[i].off;

	switch (pc[i].bits) {
	case 4:
		return *p >> 4;
	case 0:
		return *p & 0xf;
	default:
		return get_be(p, pc[i].bits / 8);
	}
}

static uint64_t pc_max(unsigned int i)
{
	return pc[i].bits ? (1ull << pc[i].bits) - 1 : 0xf;
}

static enum orca_mad_result counters(uint8_t method, uint16_t attr,
				     uint8_t port_select, uint16_t select)
{
	mad_req(PERF, method, attr, 0);
	W8(D + 1, port_select);
	W16(D + 2, select);
	return mad_run(1);
}

static void class_port_info(void)
{
	unsigned int i;

	setup(1, 1);
	mad_req(PERF, GET, 0x0001, 0);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(rsp[D], 1);
	CHECK_EQ(rsp[D + 1], 1);
	CHECK_EQ(R16(D + 2), 1u << 9 | 1u << 8);	/* ext width, all ports */
	CHECK_EQ(R32(D + 4) & 0x1f, 18);
	for (i = 8; i < 192; i++)
		CHECK_EQ(rsp[D + i], 0);
	for (i = 24; i < 64; i++)			/* reserved */
		CHECK_EQ(rsp[i], 0);
	mad_req(PERF, SET, 0x0001, 0);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x000c);
}

static void port_counters_values(void)
{
	unsigned int i;

	setup(1, 1);
	for (i = 0; i < 16; i++)
		raw[1].c[pc[i].counter] = i + 1;
	raw[1].c[ORCA_PMA_XMIT_BYTES] = 4000;
	raw[1].c[ORCA_PMA_RCV_BYTES] = 4003;	/* words round down */
	CHECK_EQ(counters(GET, 0x0012, 1, 0), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(chg, 0);
	CHECK_EQ(rsp[D + 1], 1);			/* PortSelect */
	for (i = 0; i < 12; i++)
		CHECK_EQ(pc_field(i), i + 1);
	CHECK_EQ(pc_field(12), 1000);
	CHECK_EQ(pc_field(13), 1000);
	CHECK_EQ(pc_field(14), 15);
	CHECK_EQ(pc_field(15), 16);
	CHECK_EQ(rsp[D + 18] | rsp[D + 20] | rsp[D + 21], 0); /* reserved */
	CHECK_EQ(R32(D + 40), 0);			/* PortXmitWait */
	for (i = 44; i < 192; i++)
		CHECK_EQ(rsp[D + i], 0);
	/* no counters from the owner: zeros */
	node.pma_read = NULL;
	CHECK_EQ(counters(GET, 0x0012, 1, 0), ORCA_MAD_REPLY);
	CHECK_EQ(R32(D + 24), 0);
}

static void port_counters_saturate(void)
{
	unsigned int i;

	setup(1, 1);
	for (i = 0; i < 16; i++)
		raw[1].c[pc[i].counter] = pc_max(i) + 1;
	raw[1].c[ORCA_PMA_XMIT_BYTES] = (1ull << 34) + 4;	/* 2^32 + 1 words */
	raw[1].c[ORCA_PMA_RCV_BYTES] = (1ull << 34) - 4;	/* 2^32 - 1 */
	CHECK_EQ(counters(GET, 0x0012, 1, 0), ORCA_MAD_REPLY);
	check_resp(0);
	for (i = 0; i < 16; i++)
		CHECK_EQ(pc_field(i), pc_max(i));
	CHECK_EQ(R32(D + 24), 0xffffffff);
	CHECK_EQ(R32(D + 28), 0xffffffff);
	/* one below the top is not saturated */
	for (i = 0; i < 16; i++)
		raw[1].c[pc[i].counter] = pc_max(i) - 1;
	raw[1].c[ORCA_PMA_XMIT_BYTES] = (1ull << 34) - 8;
	raw[1].c[ORCA_PMA_RCV_BYTES] = UINT64_MAX;
	CHECK_EQ(counters(GET, 0x0012, 1, 0), ORCA_MAD_REPLY);
	for (i = 0; i < 12; i++)
		CHECK_EQ(pc_field(i), pc_max(i) - 1);
	CHECK_EQ(R32(D + 24), 0xfffffffe);
	CHECK_EQ(R32(D + 28), 0xffffffff);
	/* the extended counters are 64-bit: no saturation */
	CHECK_EQ(counters(GET, 0x001d, 1, 0), ORCA_MAD_REPLY);
	CHECK_EQ(R64(D + 8), (1ull << 32) - 2);
	CHECK_EQ(R64(D + 16), UINT64_MAX / 4);
}

static void port_counters_clear(void)
{
	unsigned int i, j;

	for (i = 0; i < 16; i++) {
		setup(1, 1);
		for (j = 0; j < 16; j++)
			raw[1].c[pc[j].counter] = 1 + j;
		raw[1].c[ORCA_PMA_UCAST_XMIT_PKTS] = 99;
		CHECK_EQ(counters(SET, 0x0012, 1, 1u << i), ORCA_MAD_REPLY);
		check_resp(0);
		CHECK_EQ(chg, ORCA_MAD_CHG_COUNTERS);
		/* the reply is after the clear: exactly field i is 0 */
		for (j = 0; j < 16; j++)
			CHECK_EQ(pc_field(j),
				 j == i ? 0 : j == 12 || j == 13 ? (1 + j) / 4 :
				 1 + j);
		/* the owner counts on; the cleared one from 0 */
		for (j = 0; j < 16; j++)
			raw[1].c[pc[j].counter] += 4;
		CHECK_EQ(counters(GET, 0x0012, 1, 0), ORCA_MAD_REPLY);
		CHECK_EQ(pc_field(i), i == 12 || i == 13 ? 1 : 4);
		/* other counters the select does not name stay */
		CHECK_EQ(counters(GET, 0x001d, 1, 0), ORCA_MAD_REPLY);
		CHECK_EQ(R64(D + 40), 99);
	}
	/* a Set with no select clears nothing */
	setup(1, 1);
	raw[1].c[ORCA_PMA_SYMBOL_ERRORS] = 3;
	CHECK_EQ(counters(SET, 0x0012, 1, 0), ORCA_MAD_REPLY);
	CHECK_EQ(chg, 0);
	CHECK_EQ(R16(D + 4), 3);
	/* an owner that restarts its totals below the base */
	CHECK_EQ(counters(SET, 0x0012, 1, 0xffff), ORCA_MAD_REPLY);
	CHECK_EQ(R16(D + 4), 0);
	raw[1].c[ORCA_PMA_SYMBOL_ERRORS] = 2;
	CHECK_EQ(counters(GET, 0x0012, 1, 0), ORCA_MAD_REPLY);
	CHECK_EQ(R16(D + 4), 2);
}

static void port_counters_ext(void)
{
	static const unsigned int ext[8] = {
		ORCA_PMA_XMIT_BYTES, ORCA_PMA_RCV_BYTES, ORCA_PMA_XMIT_PKTS,
		ORCA_PMA_RCV_PKTS, ORCA_PMA_UCAST_XMIT_PKTS,
		ORCA_PMA_UCAST_RCV_PKTS, ORCA_PMA_MCAST_XMIT_PKTS,
		ORCA_PMA_MCAST_RCV_PKTS,
	};
	unsigned int i, j;

	setup(1, 1);
	for (i = 0; i < 8; i++)
		raw[1].c[ext[i]] = 0x100000000ULL * (i + 1) + 4 * i;
	CHECK_EQ(counters(GET, 0x001d, 1, 0), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(rsp[D + 1], 1);
	CHECK_EQ(R16(D + 2) | R32(D + 4), 0);
	CHECK_EQ(R64(D + 8), 0x40000000ULL);		/* in words */
	CHECK_EQ(R64(D + 16), 0x80000001ULL);
	for (i = 2; i < 8; i++)
		CHECK_EQ(R64(D + 8 + 8 * i), 0x100000000ULL * (i + 1) + 4 * i);
	for (i = 72; i < 192; i++)
		CHECK_EQ(rsp[D + i], 0);
	for (i = 0; i < 8; i++) {
		setup(1, 1);
		for (j = 0; j < 8; j++)
			raw[1].c[ext[j]] = 400;
		CHECK_EQ(counters(SET, 0x001d, 1, 1u << i), ORCA_MAD_REPLY);
		check_resp(0);
		for (j = 0; j < 8; j++)
			CHECK_EQ(R64(D + 8 + 8 * j),
				 j == i ? 0 : j < 2 ? 100 : 400);
	}
	/* one base for both: clearing XmitData here clears it there */
	CHECK_EQ(counters(GET, 0x0012, 1, 0), ORCA_MAD_REPLY);
	CHECK_EQ(R32(D + 24), 100);
	CHECK_EQ(R32(D + 36), 400);
}

static void port_select(void)
{
	unsigned int p;

	setup(1, 1);
	raw[1].c[ORCA_PMA_XMIT_PKTS] = 5;
	CHECK_EQ(counters(GET, 0x0012, 0, 0), ORCA_MAD_REPLY);
	check_resp(0x001c);
	CHECK_EQ(counters(GET, 0x0012, 2, 0), ORCA_MAD_REPLY);
	check_resp(0x001c);
	CHECK_EQ(counters(SET, 0x001d, 2, 0xff), ORCA_MAD_REPLY);
	check_resp(0x001c);
	CHECK_EQ(chg, 0);
	CHECK_EQ(counters(GET, 0x0012, 0xff, 0), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(rsp[D + 1], 0xff);
	CHECK_EQ(R32(D + 32), 5);

	/* a switch: 0..N each, 0xff the sum of the external ports */
	setup(2, 4);
	for (p = 0; p <= 4; p++) {
		raw[p].c[ORCA_PMA_XMIT_PKTS] = 10 * p + 1;
		raw[p].c[ORCA_PMA_SYMBOL_ERRORS] = 0x8000;
		raw[p].c[ORCA_PMA_MCAST_RCV_PKTS] = UINT64_MAX / 2;
	}
	for (p = 0; p <= 4; p++) {
		CHECK_EQ(counters(GET, 0x0012, p, 0), ORCA_MAD_REPLY);
		check_resp(0);
		CHECK_EQ(R32(D + 32), 10 * p + 1);
	}
	CHECK_EQ(counters(GET, 0x0012, 5, 0), ORCA_MAD_REPLY);
	check_resp(0x001c);
	CHECK_EQ(counters(GET, 0x0012, 0xff, 0), ORCA_MAD_REPLY);
	check_resp(0);
	CHECK_EQ(R32(D + 32), 11 + 21 + 31 + 41);
	CHECK_EQ(R16(D + 4), 0xffff);		/* the sum saturates */
	CHECK_EQ(counters(GET, 0x001d, 0xff, 0), ORCA_MAD_REPLY);
	CHECK_EQ(R64(D + 64), UINT64_MAX);
	/* a Set on 0xff clears every port; on one port, that port */
	CHECK_EQ(counters(SET, 0x0012, 3, 0x4000), ORCA_MAD_REPLY);
	CHECK_EQ(R32(D + 32), 0);
	CHECK_EQ(counters(GET, 0x0012, 2, 0), ORCA_MAD_REPLY);
	CHECK_EQ(R32(D + 32), 21);
	CHECK_EQ(counters(SET, 0x0012, 0xff, 0x4000), ORCA_MAD_REPLY);
	CHECK_EQ(R32(D + 32), 0);
	for (p = 1; p <= 4; p++) {
		CHECK_EQ(counters(GET, 0x0012, p, 0), ORCA_MAD_REPLY);
		CHECK_EQ(R32(D + 32), 0);
	}
	CHECK_EQ(counters(GET, 0x0012, 0, 0), ORCA_MAD_REPLY);
	CHECK_EQ(R32(D + 32), 1);		/* port 0 is not external */
}

static void pma_refusals(void)
{
	setup(1, 1);
	mad_req(PERF, GET, 0x0010, 0);		/* PortSamplesControl */
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x000c);
	mad_req(PERF, 0x03, 0x0012, 0);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	check_resp(0x0008);
	mad_req(PERF, 0x07, 0x0012, 0);		/* TrapRepress */
	CHECK_EQ(mad_run(1), ORCA_MAD_DROP);
	mad_req(PERF, GET, 0x0012, 0);
	req[2] = 2;
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	CHECK_EQ(STATUS(), 0x0004);
	/* reserved header bytes of the request are not echoed */
	mad_req(PERF, GET, 0x0001, 0);
	memset(req + 24, 0x5a, 40);
	CHECK_EQ(mad_run(1), ORCA_MAD_REPLY);
	CHECK_EQ(R64(24) | R64(56), 0);
	CHECK_EQ(mad_run(2), ORCA_MAD_DROP);		/* no port 2 */
}

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	RUN(class_port_info);
	RUN(port_counters_values);
	RUN(port_counters_saturate);
	RUN(port_counters_clear);
	RUN(port_counters_ext);
	RUN(port_select);
	RUN(pma_refusals);
	return tap_done();
}
