// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The fabric's packets as IBTA bytes (orca_pkt.c) and back: every opcode
 * of every transport round trips, with and without a GRH; one packet byte
 * by byte against the IBTA layout; any single-bit change outside the
 * ICRC's variant fields, any truncation and any extension refused;
 * malformed packets refused even with a right ICRC.
 *
 * usage: orca-emu-pkt-tests [-v]
 */
#include <endian.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "orca_log.h"
#include "orca_names.h"	/* ARRAY_SIZE */
#include "orca_pkt.h"
#include "tap.h"

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A packet of @opcode with every field its headers have set at random. */
static void random_pkt(struct orca_pkt *p, uint8_t opcode, bool grh,
		       uint32_t paylen)
{
	uint32_t hdrs, i;
	bool payload;

	memset(p, 0, sizeof(*p));
	CHECK(orca_pkt_opcode_hdrs(opcode, &hdrs, &payload));
	p->opcode = opcode;
	p->hdrs = hdrs | (grh ? PKT_GRH : 0);
	p->dlid = rnd();
	p->slid = rnd();
	p->sl = rnd() & 0xf;
	p->vl = rnd() & 0xf;
	if (grh) {
		for (i = 0; i < 16; i++) {
			p->sgid[i] = rnd();
			p->dgid[i] = rnd();
		}
	}
	p->se = rnd() & 1;
	p->ackreq = rnd() & 1;
	p->pkey = rnd();
	p->dqpn = rnd() & 0xffffff;
	p->psn = rnd() & 0xffffff;
	if (hdrs & PKT_DETH) {
		p->qkey = rnd();
		p->sqpn = rnd() & 0xffffff;
	}
	if (hdrs & (PKT_RETH | PKT_ATOMIC)) {
		p->va = rnd();
		p->rkey = rnd();
	}
	if (hdrs & PKT_RETH)
		p->dmalen = rnd();
	if (hdrs & PKT_ATOMIC) {
		p->swap_add = rnd();
		p->compare = rnd();
	}
	if (hdrs & PKT_AETH) {
		p->syndrome = rnd();
		p->msn = rnd() & 0xffffff;
	}
	if (hdrs & PKT_ATOMIC_ACK)
		p->orig = rnd();
	if (hdrs & PKT_IMM)
		p->imm = rnd();
	if (hdrs & PKT_IETH)
		p->inv_rkey = rnd();
	p->paylen = payload ? paylen : 0;
	for (i = 0; i < p->paylen; i++)
		p->payload[i] = rnd();
}

static bool pkt_same(const struct orca_pkt *a, const struct orca_pkt *b)
{
	return !memcmp(a, b, offsetof(struct orca_pkt, payload)) &&
	       !memcmp(a->payload, b->payload, a->paylen);
}

static const uint8_t transports[] = { IB_RC, IB_UC, IB_UD };

static const uint32_t paylens[] = { 0, 1, 2, 3, 4, 5, 255, 256, 1024,
				    4095, ORCA_MAX_PMTU };

/* Every opcode of every transport, with and without a GRH, round trips. */
static void pkt_round_trip(void)
{
	static struct orca_pkt a, b;
	static uint8_t wire[ORCA_PKT_WIRE_MAX];
	unsigned int t, op, g, l, n = 0, known = 0;
	uint32_t hdrs;
	bool payload;
	size_t len;

	for (t = 0; t < ARRAY_SIZE(transports); t++) {
		for (op = 0; op < 32; op++) {
			uint8_t opcode = transports[t] | op;

			if (!orca_pkt_opcode_hdrs(opcode, &hdrs, &payload))
				continue;
			known++;
			for (g = 0; g < 2; g++) {
				for (l = 0; l < ARRAY_SIZE(paylens); l++) {
					if (!payload && paylens[l])
						break;
					random_pkt(&a, opcode, g, paylens[l]);
					len = orca_pkt_encode(&a, wire);
					CHECK(len);
					CHECK_EQ(len % 4, 0);
					CHECK(len <= ORCA_PKT_WIRE_MAX);
					CHECK_EQ(orca_pkt_decode(wire, len, &b),
						 ORCA_PKT_OK);
					CHECK(pkt_same(&a, &b));
					n++;
				}
			}
		}
	}
	/* RC 0x00-0x14, 0x16, 0x17, 0x1d; UC 0x00-0x0b; UD 0x04, 0x05 */
	CHECK_EQ(known, 24 + 12 + 2);
	printf("# %u opcodes, %u packets round-tripped\n", known, n);
}

/* The exact bytes of one packet, against the IBTA layout. */
static void pkt_layout(void)
{
	static struct orca_pkt a;
	static uint8_t w[ORCA_PKT_WIRE_MAX];
	size_t len;

	memset(&a, 0, sizeof(a));
	a.opcode = IB_RC | IB_WRITE_ONLY_IMM;
	a.hdrs = PKT_RETH | PKT_IMM;
	a.dlid = 0x1234;
	a.slid = 0x0002;
	a.sl = 3;
	a.se = true;
	a.ackreq = true;
	a.pkey = 0xffff;
	a.dqpn = 0xabcdef;
	a.psn = 0x123456;
	a.va = 0x1122334455667788ULL;
	a.rkey = 0xdeadbeef;
	a.dmalen = 5;
	memcpy(&a.imm, "\x01\x02\x03\x04", 4);
	a.paylen = 5;
	memcpy(a.payload, "hello", 5);
	len = orca_pkt_encode(&a, w);
	/* 8 + 12 + 16 + 4 + 5 + 3 pad + 4 */
	CHECK_EQ(len, 52);
	CHECK_EQ(w[0], 0x00);			/* VL 0, LVer 0 */
	CHECK_EQ(w[1], 0x32);			/* SL 3, LNH local */
	CHECK_EQ(w[2] << 8 | w[3], 0x1234);	/* DLID */
	CHECK_EQ(w[4] << 8 | w[5], 13);		/* PktLen, words */
	CHECK_EQ(w[6] << 8 | w[7], 2);		/* SLID */
	CHECK_EQ(w[8], 0x0b);			/* RC WRITE_ONLY_IMM */
	CHECK_EQ(w[9], 0x80 | 0x40 | 3 << 4);	/* SE, M, PadCnt 3 */
	CHECK_EQ(w[10] << 8 | w[11], 0xffff);	/* P_Key */
	CHECK_EQ(w[13] << 16 | w[14] << 8 | w[15], 0xabcdef);
	CHECK_EQ(w[16], 0x80);			/* AckReq */
	CHECK_EQ(w[17] << 16 | w[18] << 8 | w[19], 0x123456);
	CHECK_EQ(w[20], 0x11);			/* RETH VA, big-endian */
	CHECK_EQ(w[27], 0x88);
	CHECK_EQ(w[28], 0xde);			/* R_Key */
	CHECK_EQ(w[35], 5);			/* DMA length */
	CHECK(!memcmp(w + 36, "\x01\x02\x03\x04", 4));	/* ImmDt */
	CHECK(!memcmp(w + 40, "hello\0\0\0", 8));
	/* the ICRC is over everything before it */
	CHECK_EQ(w[48] | w[49] << 8 | w[50] << 16 | (uint32_t)w[51] << 24,
		 orca_pkt_icrc(w, 48));
}

/* Rewrite the ICRC after a deliberate change. */
static void refresh_icrc(uint8_t *w, size_t len)
{
	uint32_t c = htole32(orca_pkt_icrc(w, len - 4));

	memcpy(w + len - 4, &c, 4);
}

/*
 * Is bit @bit of byte @i a field the ICRC leaves out (IBTA 7.8.1) and
 * the decoder does not check on its own?
 */
static bool variant_bit(const uint8_t *w, size_t i, unsigned int bit)
{
	bool grh = (w[1] & 3) == 3;
	size_t bth = grh ? 48 : 8;

	if (i == 0 && bit >= 4)
		return true;			/* VL */
	/* a global packet's LRH but LVer, LNH and PktLen */
	if (grh && i < 8 && i != 0 && !(i == 1 && bit < 2) &&
	    !(i == 4 && bit < 3) && i != 5)
		return true;
	if (grh && i == 8 && bit < 4)
		return true;			/* TClass high nibble */
	if (grh && (i == 9 || i == 10 || i == 11 || i == 15))
		return true;		/* TClass, FlowLabel, HopLmt */
	return i == bth + 4;			/* BTH resv8 */
}

/*
 * Any single bit flipped outside the variant fields, any truncation and
 * any extension is refused; variant fields may change.
 */
static void pkt_corrupt(void)
{
	static struct orca_pkt a, b;
	static uint8_t w[ORCA_PKT_WIRE_MAX], c[ORCA_PKT_WIRE_MAX + 8];
	unsigned int g, bit, refused = 0, tries = 0;
	size_t len, i;

	for (g = 0; g < 2; g++) {
		random_pkt(&a, IB_RC | IB_SEND_ONLY_IMM, g, 37);
		len = orca_pkt_encode(&a, w);
		for (i = 0; i < len; i++) {
			for (bit = 0; bit < 8; bit++) {
				memcpy(c, w, len);
				c[i] ^= 1U << bit;
				tries++;
				if (variant_bit(w, i, bit)) {
					CHECK_EQ(orca_pkt_decode(c, len, &b),
						 ORCA_PKT_OK);
					continue;
				}
				CHECK(orca_pkt_decode(c, len, &b) !=
				      ORCA_PKT_OK);
				refused++;
			}
		}
		for (i = 0; i < len; i++)
			CHECK(orca_pkt_decode(w, i, &b) != ORCA_PKT_OK);
		memcpy(c, w, len);
		memset(c + len, 0, 8);
		CHECK(orca_pkt_decode(c, len + 4, &b) != ORCA_PKT_OK);
		CHECK(orca_pkt_decode(c, len + 8, &b) != ORCA_PKT_OK);
		/* a corrupted ICRC alone */
		memcpy(c, w, len);
		c[len - 1] ^= 0x40;
		CHECK_EQ(orca_pkt_decode(c, len, &b), ORCA_PKT_E_ICRC);
	}
	/*
	 * Local: VL and resv8.  Global: the LRH's 47 bits but LVer, LNH and
	 * PktLen, TClass, FlowLabel, HopLmt and resv8.
	 */
	CHECK_EQ(tries - refused, 12 + 47 + 36 + 8);
	printf("# %u single-bit changes, %u refused\n", tries, refused);
}

/* CRC-32 (IEEE 802.3, reflected) a bit at a time: the reference. */
static uint32_t crc32_bitwise(const uint8_t *p, size_t len)
{
	uint32_t crc = ~0U;
	unsigned int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320U & -(crc & 1));
	}
	return ~crc;
}

/*
 * The ICRC against a bit-at-a-time CRC-32 over the same bytes with the
 * variant fields of a local packet (VL, resv8) as ones: the check value
 * of "123456789", then every length to 600 bytes at every alignment and
 * a full 4 KiB payload.  A wrong table would still round trip.
 */
static void pkt_icrc_reference(void)
{
	static uint8_t buf[4096 + 64 + 8], ref[sizeof(buf)];
	unsigned int bad = 0, n = 0;
	size_t len, off, i;

	CHECK_EQ(orca_pkt_icrc((const uint8_t *)"123456789", 9), 0xcbf43926);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)rnd();
	for (off = 0; off < 8; off++)
		for (i = 0; i <= 601; i++) {
			uint8_t *w = buf + off;

			len = i <= 600 ? i : 4096 + 64;
			w[1] = (w[1] & ~3) | 2;		/* LNH: local */
			memcpy(ref, w, len);
			if (len >= 20) {		/* LRH and BTH */
				ref[0] |= 0xf0;		/* VL */
				ref[12] = 0xff;		/* BTH resv8 */
			}
			bad += orca_pkt_icrc(w, len) != crc32_bitwise(ref, len);
			n++;
		}
	CHECK_EQ(bad, 0);
	printf("# %u lengths and alignments against the bitwise CRC-32\n", n);
}

/*
 * Malformed packets with a correct ICRC: what the decoder refuses on its
 * own, whatever the sender computed.
 */
static void pkt_malformed(void)
{
	static struct orca_pkt a, b;
	static uint8_t w[ORCA_PKT_WIRE_MAX];
	static const uint8_t bad_ops[] = {
		IB_RC | 0x15, IB_RC | 0x18, IB_RC | 0x1f, IB_UC | 0x0c,
		IB_UC | IB_SEND_ONLY_INV, IB_UD | IB_SEND_FIRST,
		IB_UD | IB_ACK, 0x40, 0x80, 0xa0, 0xe0,
	};
	size_t len, i;

	for (i = 0; i < ARRAY_SIZE(bad_ops); i++) {
		random_pkt(&a, IB_RC | IB_SEND_ONLY, false, 8);
		len = orca_pkt_encode(&a, w);
		w[8] = bad_ops[i];
		refresh_icrc(w, len);
		CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_OPCODE);
	}
	/* LNH 0 and 1 (raw packets) */
	random_pkt(&a, IB_RC | IB_SEND_ONLY, false, 8);
	len = orca_pkt_encode(&a, w);
	w[1] &= ~3;
	refresh_icrc(w, len);
	CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_LRH);
	/* LVer, TVer */
	len = orca_pkt_encode(&a, w);
	w[0] |= 1;
	refresh_icrc(w, len);
	CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_LRH);
	len = orca_pkt_encode(&a, w);
	w[9] |= 1;
	refresh_icrc(w, len);
	CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_BTH);
	/* PktLen that does not match the message */
	len = orca_pkt_encode(&a, w);
	w[5]++;
	refresh_icrc(w, len);
	CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_LEN);
	/* a payload on an ACK */
	random_pkt(&a, IB_RC | IB_SEND_ONLY, false, 8);
	len = orca_pkt_encode(&a, w);
	w[8] = IB_RC | IB_ACK;
	refresh_icrc(w, len);
	CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_PAYLOAD);
	/* an atomic request cut short by its own PktLen */
	random_pkt(&a, IB_RC | IB_SEND_ONLY, false, 8);
	len = orca_pkt_encode(&a, w);
	w[8] = IB_RC | IB_CMP_SWAP;
	refresh_icrc(w, len);
	CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_SHORT);
	/* PadCnt larger than what follows the headers */
	random_pkt(&a, IB_RC | IB_ACK, false, 0);
	len = orca_pkt_encode(&a, w);
	w[9] |= 3 << 4;
	refresh_icrc(w, len);
	CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_LEN);
	/* GRH: IPVer, NxtHdr, PayLen */
	random_pkt(&a, IB_UD | IB_SEND_ONLY, true, 8);
	len = orca_pkt_encode(&a, w);
	w[8] = 0x40;
	refresh_icrc(w, len);
	CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_GRH);
	len = orca_pkt_encode(&a, w);
	w[14] = 0x11;
	refresh_icrc(w, len);
	CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_GRH);
	len = orca_pkt_encode(&a, w);
	w[13]++;
	refresh_icrc(w, len);
	CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_LEN);
	/* a payload over 4096 bytes */
	random_pkt(&a, IB_RC | IB_SEND_ONLY, false, ORCA_MAX_PMTU);
	a.paylen = ORCA_MAX_PMTU + 4;
	CHECK_EQ(orca_pkt_encode(&a, w), 0);
	/* the encoder refuses headers the opcode does not have */
	random_pkt(&a, IB_RC | IB_SEND_ONLY, false, 8);
	a.hdrs |= PKT_RETH;
	CHECK_EQ(orca_pkt_encode(&a, w), 0);
	random_pkt(&a, IB_RC | IB_ACK, false, 0);
	a.paylen = 4;
	CHECK_EQ(orca_pkt_encode(&a, w), 0);
	for (i = 0; i <= ORCA_PKT_E_NR; i++)
		CHECK(orca_pkt_strerror(i) != NULL);
}

/*
 * ORCA_PKT_NO_ICRC: the field left zero, the rest as with it; decoding
 * with the flag takes it, without refuses it, and orca_pkt_set_icrc()
 * makes it the packet encoded with its ICRC.
 */
static void pkt_no_icrc(void)
{
	static uint8_t with[ORCA_PKT_WIRE_MAX], without[ORCA_PKT_WIRE_MAX];
	struct orca_pkt p, d;
	size_t n, m;

	random_pkt(&p, IB_RC | IB_WRITE_FIRST, true, 4096);
	n = orca_pkt_encode(&p, with);
	m = orca_pkt_encode_flags(&p, without, ORCA_PKT_NO_ICRC);
	CHECK(n > 0);
	CHECK_EQ(m, n);
	CHECK(!memcmp(with, without, n - ORCA_PKT_ICRC_LEN));
	CHECK(!memcmp(without + n - ORCA_PKT_ICRC_LEN, "\0\0\0\0", 4));
	CHECK(memcmp(with + n - ORCA_PKT_ICRC_LEN, "\0\0\0\0", 4));
	CHECK_EQ(orca_pkt_decode_flags(without, m, &d, ORCA_PKT_NO_ICRC),
		 ORCA_PKT_OK);
	CHECK_EQ(d.paylen, p.paylen);
	CHECK(!memcmp(d.payload, p.payload, p.paylen));
	CHECK_EQ(orca_pkt_decode(without, m, &d), ORCA_PKT_E_ICRC);
	orca_pkt_set_icrc(without, m);
	CHECK(!memcmp(with, without, n));
	CHECK_EQ(orca_pkt_decode(without, m, &d), ORCA_PKT_OK);
}

/*
 * ORCA_PKT_BORROW: the payload is not copied; data points at it in the
 * buffer, and the headers are decoded as ever.
 */
static void pkt_borrow(void)
{
	static uint8_t wire[ORCA_PKT_WIRE_MAX];
	static struct orca_pkt p, d, e;
	size_t n;

	random_pkt(&p, IB_RC | IB_SEND_FIRST, false, 4096);
	n = orca_pkt_encode(&p, wire);
	CHECK(n > 0);
	memset(d.payload, 0xee, sizeof(d.payload));
	CHECK_EQ(orca_pkt_decode_flags(wire, n, &d, ORCA_PKT_BORROW),
		 ORCA_PKT_OK);
	CHECK_EQ(orca_pkt_decode(wire, n, &e), ORCA_PKT_OK);
	CHECK(d.data >= wire && d.data + d.paylen <= wire + n);
	CHECK_EQ(d.paylen, 4096);
	CHECK(!memcmp(d.data, p.payload, d.paylen));
	CHECK(orca_pkt_payload(&d) == d.data);
	CHECK_EQ(d.payload[0], 0xee);		/* not copied */
	CHECK(!e.data);
	CHECK(orca_pkt_payload(&e) == e.payload);
	CHECK_EQ(d.psn, e.psn);
	CHECK_EQ(d.dqpn, e.dqpn);
	CHECK_EQ(d.pkey, e.pkey);
}

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	RUN(pkt_round_trip);
	RUN(pkt_layout);
	RUN(pkt_corrupt);
	RUN(pkt_icrc_reference);
	RUN(pkt_malformed);
	RUN(pkt_no_icrc);
	RUN(pkt_borrow);
	return tap_done();
}
