// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libFuzzer harness: the packet decoder as a hostile fabric peer drives
 * it.  The first byte picks the mode:
 *
 *   even  the rest is a packet off the wire: decoding must not read
 *         outside it (ASan) and, if it accepts it, encoding the result
 *         must give a packet that decodes to the same thing;
 *   odd   the rest fills a struct orca_pkt's fields for a known opcode:
 *         encode, decode, and every field must come back.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "orca_pkt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct orca_pkt a, b;
static uint8_t wire[ORCA_PKT_WIRE_MAX];

static bool same(const struct orca_pkt *x, const struct orca_pkt *y)
{
	return !memcmp(x, y, offsetof(struct orca_pkt, payload)) &&
	       !memcmp(x->payload, y->payload, x->paylen);
}

static struct orca_pkt c;

static void from_wire(const uint8_t *data, size_t size)
{
	enum orca_pkt_err err;
	size_t n;

	/*
	 * Without the ICRC check and borrowing the payload: the same
	 * headers, the payload where it lies in the input
	 */
	err = orca_pkt_decode_flags(data, size, &c,
				    ORCA_PKT_NO_ICRC | ORCA_PKT_BORROW);
	FZ_ASSERT(err == ORCA_PKT_OK || err != ORCA_PKT_E_ICRC,
		  "an ICRC refused without the check");
	if (orca_pkt_decode(data, size, &a) != ORCA_PKT_OK)
		return;
	FZ_ASSERT(err == ORCA_PKT_OK, "a good packet refused without the check");
	FZ_ASSERT(!memcmp(&c, &a, offsetof(struct orca_pkt, data)),
		  "the headers differ without the check");
	FZ_ASSERT(c.data >= data && c.data + c.paylen <= data + size &&
		  !memcmp(c.data, a.payload, a.paylen),
		  "the borrowed payload is not the packet's");
	n = orca_pkt_encode(&a, wire);
	FZ_ASSERT(n, "a decoded packet does not encode");
	FZ_ASSERT(n == size, "re-encoding changed the length");
	FZ_ASSERT(orca_pkt_decode(wire, n, &b) == ORCA_PKT_OK,
		  "a re-encoded packet does not decode");
	FZ_ASSERT(same(&a, &b), "re-encoding changed a field");
}

static void from_fields(struct fz *z)
{
	static const uint8_t transports[] = { IB_RC, IB_UC, IB_UD };
	uint32_t hdrs;
	bool payload;
	size_t n;

	memset(&a, 0, sizeof(a));
	a.opcode = transports[fz_u8(z) % 3] | (fz_u8(z) & 0x1f);
	if (!orca_pkt_opcode_hdrs(a.opcode, &hdrs, &payload))
		return;
	a.hdrs = hdrs | (fz_u8(z) & 1 ? PKT_GRH : 0);
	a.dlid = fz_u16(z);
	a.slid = fz_u16(z);
	a.sl = fz_u8(z) & 0xf;
	if (a.hdrs & PKT_GRH) {
		fz_bytes(z, a.sgid, 16);
		fz_bytes(z, a.dgid, 16);
	}
	a.se = fz_u8(z) & 1;
	a.ackreq = fz_u8(z) & 1;
	a.pkey = fz_u16(z);
	a.dqpn = fz_u32(z) & 0xffffff;
	a.psn = fz_u32(z) & 0xffffff;
	if (hdrs & PKT_DETH) {
		a.qkey = fz_u32(z);
		a.sqpn = fz_u32(z) & 0xffffff;
	}
	if (hdrs & (PKT_RETH | PKT_ATOMIC)) {
		a.va = fz_u64(z);
		a.rkey = fz_u32(z);
	}
	if (hdrs & PKT_RETH)
		a.dmalen = fz_u32(z);
	if (hdrs & PKT_ATOMIC) {
		a.swap_add = fz_u64(z);
		a.compare = fz_u64(z);
	}
	if (hdrs & PKT_AETH) {
		a.syndrome = fz_u8(z);
		a.msn = fz_u32(z) & 0xffffff;
	}
	if (hdrs & PKT_ATOMIC_ACK)
		a.orig = fz_u64(z);
	if (hdrs & PKT_IMM)
		a.imm = fz_u32(z);
	if (hdrs & PKT_IETH)
		a.inv_rkey = fz_u32(z);
	if (payload) {
		a.paylen = fz_u16(z) % (ORCA_MAX_PMTU + 1);
		fz_bytes(z, a.payload, a.paylen);
	}
	n = orca_pkt_encode(&a, wire);
	FZ_ASSERT(n, "a well-formed packet does not encode");
	FZ_ASSERT(orca_pkt_decode(wire, n, &b) == ORCA_PKT_OK,
		  "an encoded packet does not decode");
	FZ_ASSERT(same(&a, &b), "a field did not come back");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz z = { .p = data + 1, .n = size ? size - 1 : 0 };

	if (!size)
		return 0;
	if (data[0] & 1)
		from_fields(&z);
	else
		from_wire(data + 1, size - 1);
	return 0;
}
