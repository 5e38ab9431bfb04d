// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libFuzzer harness: orca-fabric's switch (fabric/fabric_switch.h) as
 * hostile ports drive it: the DR SMP rules, LID-routed and multicast
 * forwarding, port 0's SMA/PMA and the egress queues.  A switch with 4
 * ports; the input is steps, each an op byte and a port byte:
 *
 *   op 0      raw bytes into the port: a length byte, then that many
 *             (times 8) bytes (the decoder refuses most)
 *   op 1      a DR SMP (VL15, QP0, class 0x81, valid ICRC) into the
 *             port, its MAD from the input: hop fields, D bit, paths
 *             and attribute as the fuzzer likes
 *   op 2      a LID-routed packet into the port: VL, DLID, QPN, Q_Key,
 *             then a 256-byte payload (an SMP or a PMA MAD to port 0)
 *   op 3      link of the port up or down (bit 0 of the next byte),
 *             or the cable out (bit 1)
 *   op 4      a port GUID attaches (next byte: which of 8)
 *   other     every queue of the port is drained and checked
 *
 * What comes out must be a LINK_UP for that port or a PKT that decodes
 * (ICRC right), on VL15 only through a port at least INIT and data only
 * through an ACTIVE one, a DR SMP with hop_cnt <= 63; nothing is queued
 * to a port without a cable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/fabric_switch.h"
#include "fuzz_input.h"

#define PORTS	4

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fab_switch sw;
static struct orca_pkt pkt, out;
static uint8_t wire[ORCA_PKT_WIRE_MAX], msg[ORCA_FAB_MSG_MAX];

static void inject_pkt(unsigned int port, uint8_t vl, uint16_t dlid,
		       uint32_t dqpn, uint32_t qkey, const uint8_t *mad)
{
	size_t len;

	memset(&pkt, 0, offsetof(struct orca_pkt, payload));
	pkt.hdrs = PKT_DETH;
	pkt.vl = vl & 15;
	pkt.dlid = dlid;
	pkt.slid = 0xffff;
	pkt.opcode = IB_UD | IB_SEND_ONLY;
	pkt.pkey = 0xffff;
	pkt.dqpn = dqpn & 0xffffff;
	pkt.qkey = qkey;
	pkt.paylen = 256;
	memcpy(pkt.payload, mad, 256);
	len = orca_pkt_encode(&pkt, wire);
	FZ_ASSERT(len, "a UD MAD does not encode");
	fab_sw_input(&sw, port, wire, len);
}

static void drain(unsigned int port)
{
	const struct orca_mad_port *mp = &sw.node.port[port];
	size_t n;

	while ((n = fab_sw_pop(&sw, port, msg))) {
		FZ_ASSERT(sw.port[port].connected, "port %u has no cable",
			  port);
		if (msg[0] == ORCA_FAB_LINK_UP) {
			FZ_ASSERT(n == sizeof(struct orca_fab_link) &&
				  msg[8] == port, "bad LINK_UP");
			continue;
		}
		FZ_ASSERT(msg[0] == ORCA_FAB_PKT && n > 8, "message type %u",
			  msg[0]);
		FZ_ASSERT(orca_pkt_decode(msg + 8, n - 8, &out) ==
			  ORCA_PKT_OK, "the switch sent a bad packet");
		if (out.vl == ORCA_VL15)
			FZ_ASSERT(mp->state >= ORCA_MAD_PORT_INIT,
				  "VL15 out of a DOWN port");
		else
			FZ_ASSERT(mp->state == ORCA_MAD_PORT_ACTIVE,
				  "data out of port %u in state %u", port,
				  mp->state);
		if (out.vl == ORCA_VL15 && out.paylen == 256 &&
		    out.payload[1] == ORCA_MGMT_SUBN_DR)
			FZ_ASSERT(out.payload[7] <= 63, "hop_cnt %u",
				  out.payload[7]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz z = { data, size };
	uint8_t mad[256], raw[255 * 8];
	unsigned int i, steps = 0;

	fab_sw_free(&sw);
	if (fab_sw_init(&sw, PORTS, 0x00ca7a0000f00000ULL))
		abort();
	while (z.n && steps++ < 256) {
		uint8_t op = fz_u8(&z);
		/* ports 0 and 5 do not exist */
		unsigned int port = fz_u8(&z) % (PORTS + 2);
		uint8_t b, len;

		switch (op) {
		case 0:
			len = fz_u8(&z);
			fz_bytes(&z, raw, len * 8u);
			fab_sw_input(&sw, port, raw, len * 8u);
			break;
		case 1:
			fz_bytes(&z, mad, sizeof(mad));
			mad[0] = 1;
			mad[1] = ORCA_MGMT_SUBN_DR;
			mad[2] = 1;
			inject_pkt(port, ORCA_VL15, 0xffff, 0, 0, mad);
			break;
		case 2: {
			uint8_t vl = fz_u8(&z);
			uint16_t dlid = fz_u16(&z);
			uint32_t qpn = fz_u8(&z) & 3, qkey = fz_u32(&z);

			fz_bytes(&z, mad, sizeof(mad));
			inject_pkt(port, vl, dlid, qpn, qkey, mad);
			break;
		}
		case 3:
			b = fz_u8(&z);
			if (b & 2)
				fab_sw_detach(&sw, port);
			else if (port >= 1 && port <= PORTS &&
				 sw.port[port].connected)
				fab_sw_link(&sw, port, b & 1);
			break;
		case 4:
			fab_sw_attach(&sw, 0x1000 + (fz_u8(&z) & 7), 1);
			break;
		default:
			if (port >= 1 && port <= PORTS)
				drain(port);
			break;
		}
		for (i = 1; i <= PORTS; i++)
			FZ_ASSERT(sw.port[i].connected ||
				  !fab_sw_pending(&sw, i),
				  "port %u: queued without a cable", i);
	}
	for (i = 1; i <= PORTS; i++)
		drain(i);
	return 0;
}
