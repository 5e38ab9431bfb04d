// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: IBTA wire encoding of packets (orca_pkt.h).
 *
 *   LRH  8   VL:4 LVer:4 | SL:4 rsv:2 LNH:2 | DLID:16 | rsv:5 PktLen:11 |
 *            SLID:16; LNH 2 = BTH next, 3 = GRH next; PktLen in 4-byte
 *            words from the LRH through the ICRC
 *   GRH  40  IPVer:4 (6) TClass:8 FlowLabel:20 | PayLen:16 (bytes after
 *            the GRH, ICRC included) | NxtHdr:8 (0x1b) | HopLmt:8 |
 *            SGID | DGID
 *   BTH  12  OpCode | SE:1 M:1 PadCnt:2 TVer:4 | P_Key | resv8 | DestQP:24
 *            | A:1 rsv:7 | PSN:24
 *   then, in this order, what the opcode carries: DETH (Q_Key, rsv8,
 *   SrcQP:24), RETH (VA, R_Key, DMA length), AtomicETH (VA, R_Key, swap
 *   or add, compare), AETH (syndrome, MSN:24), AtomicAckETH (original
 *   data), ImmDt, IETH (R_Key); the payload and PadCnt zero bytes; the
 *   ICRC.  Every multi-byte field is big-endian, ImmDt being carried as
 *   the bytes it already is.
 *
 * The ICRC is the CRC-32 of Ethernet (polynomial 0x04c11db7 reflected,
 * initial value all ones, result complemented) over the packet from the
 * first byte of the LRH to the last byte before the ICRC, with the
 * fields a switch or router may change replaced by ones, as IBTA 7.8.1
 * describes: in a local packet the LRH's VL, in a global one the whole
 * LRH (a router builds a new one) and the GRH's TClass, FlowLabel and
 * HopLmt; in both the BTH's resv8 byte.  It is stored least significant
 * byte first, as Ethernet stores its FCS.  Nothing here changes a
 * variant field, so the masking only matters to a peer that does; the
 * decoder still checks the LRH's LVer, LNH and PktLen of a global packet
 * on their own.
 *
 * The decoder trusts nothing: every length is checked before a byte is
 * read, the opcode decides which headers there must be, and a packet
 * whose sizes do not add up exactly is refused.
 */
#include <endian.h>
#include <string.h>
#ifdef __x86_64__
#include <immintrin.h>
#endif

#include "orca_pkt.h"

#define LNH_LOCAL	2
#define LNH_GLOBAL	3
#define GRH_NXTHDR	0x1b
#define GRH_HOPLMT	64

/* ------------------------------------------------------------------ */
/* CRC-32                                                             */
/* ------------------------------------------------------------------ */

/*
 * Every byte on a link between hosts goes through the ICRC twice; a byte
 * at a time it took a third of all CPU time of an ib_write_bw between two
 * guests.  So the bulk is folded 64 bytes a step with carry-less
 * multiplication (Intel's "Fast CRC Computation for Generic Polynomials
 * Using PCLMULQDQ", the bit-reflected form), where the CPU has it; heads,
 * tails and other CPUs take the table a byte at a time.
 */
static uint32_t crc_table[256];
static bool crc_ready, crc_clmul;

static void crc_init(void)
{
	uint32_t i, j, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (j = 0; j < 8; j++)
			c = (c & 1) ? 0xedb88320U ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
#ifdef __x86_64__
	crc_clmul = __builtin_cpu_supports("pclmul") &&
		    __builtin_cpu_supports("sse4.1");
#endif
	crc_ready = true;
}

static uint32_t crc_bytes(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#ifdef __x86_64__
#define CRC_FOLD_MIN	64

/* x's two halves carried 512 (k = 4 lanes) or 128 bits on, plus next */
__attribute__((target("pclmul,sse4.1")))
static inline __m128i crc_fold(__m128i x, __m128i k, __m128i next)
{
	return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00),
					   _mm_clmulepi64_si128(x, k, 0x11)),
			     next);
}

/*
 * The CRC register after @len bytes (at least CRC_FOLD_MIN, a multiple
 * of 16).  The constants are x^n mod P for the folding distances
 * (4 * 128 + 32 +- 32, 128 + 32 +- 32, 64) and, for the Barrett
 * reduction, P and floor(x^64 / P), all bit-reflected.
 */
__attribute__((target("pclmul,sse4.1")))
static uint32_t crc_clmul_fold(uint32_t crc, const uint8_t *p, size_t len)
{
	const __m128i k4 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);
	const __m128i k1 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);
	const __m128i k64 = _mm_set_epi64x(0, 0x163cd6124);
	const __m128i pmu = _mm_set_epi64x(0x1f7011641, 0x1db710641);
	const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
	const __m128i *v = (const __m128i *)p;
	__m128i x0, x1, x2, x3, t;

	x0 = _mm_xor_si128(_mm_loadu_si128(v), _mm_cvtsi32_si128((int)crc));
	x1 = _mm_loadu_si128(v + 1);
	x2 = _mm_loadu_si128(v + 2);
	x3 = _mm_loadu_si128(v + 3);
	for (v += 4, len -= 64; len >= 64; v += 4, len -= 64) {
		x0 = crc_fold(x0, k4, _mm_loadu_si128(v));
		x1 = crc_fold(x1, k4, _mm_loadu_si128(v + 1));
		x2 = crc_fold(x2, k4, _mm_loadu_si128(v + 2));
		x3 = crc_fold(x3, k4, _mm_loadu_si128(v + 3));
	}
	x0 = crc_fold(crc_fold(crc_fold(x0, k1, x1), k1, x2), k1, x3);
	for (; len >= 16; v++, len -= 16)
		x0 = crc_fold(x0, k1, _mm_loadu_si128(v));
	/* 128 bits to 64, to 32, then Barrett */
	x0 = _mm_xor_si128(_mm_clmulepi64_si128(x0, k1, 0x10),
			   _mm_srli_si128(x0, 8));
	t = _mm_srli_si128(x0, 4);
	x0 = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x0, low32),
						k64, 0x00), t);
	t = _mm_clmulepi64_si128(_mm_and_si128(x0, low32), pmu, 0x10);
	t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), pmu, 0x00);
	return (uint32_t)_mm_extract_epi32(_mm_xor_si128(t, x0), 1);
}
#endif

static uint32_t crc_add(uint32_t crc, const uint8_t *p, size_t len)
{
#ifdef __x86_64__
	if (crc_clmul && len >= CRC_FOLD_MIN) {
		size_t bulk = len & ~(size_t)15;

		crc = crc_clmul_fold(crc, p, bulk);
		p += bulk;
		len -= bulk;
	}
#endif
	return crc_bytes(crc, p, len);
}

uint32_t orca_pkt_icrc(const uint8_t *buf, size_t len)
{
	uint8_t mask[ORCA_PKT_LRH_LEN + ORCA_PKT_GRH_LEN + ORCA_PKT_BTH_LEN];
	size_t hdr = ORCA_PKT_LRH_LEN + ORCA_PKT_BTH_LEN;
	bool grh;

	if (!crc_ready)
		crc_init();
	if (len < hdr)
		return ~crc_add(~0U, buf, len);
	grh = (buf[1] & 3) == LNH_GLOBAL && len >= hdr + ORCA_PKT_GRH_LEN;
	if (grh)
		hdr += ORCA_PKT_GRH_LEN;
	memcpy(mask, buf, hdr);
	mask[0] |= 0xf0;				/* VL */
	if (grh) {
		uint8_t *g = mask + ORCA_PKT_LRH_LEN;

		memset(mask, 0xff, ORCA_PKT_LRH_LEN);	/* the LRH */
		g[0] |= 0x0f;				/* TClass, */
		memset(g + 1, 0xff, 3);			/* FlowLabel */
		g[7] = 0xff;				/* HopLmt */
	}
	mask[hdr - ORCA_PKT_BTH_LEN + 4] = 0xff;	/* BTH resv8 */
	return ~crc_add(crc_add(~0U, mask, hdr), buf + hdr, len - hdr);
}

/* ------------------------------------------------------------------ */
/* Opcodes                                                            */
/* ------------------------------------------------------------------ */

#define P	(1U << 31)	/* has a payload */

/* Per low five bits of an RC opcode: its headers, P if it has data. */
static const uint32_t rc_ops[32] = {
	[IB_SEND_FIRST]		= P,
	[IB_SEND_MIDDLE]	= P,
	[IB_SEND_LAST]		= P,
	[IB_SEND_LAST_IMM]	= P | PKT_IMM,
	[IB_SEND_ONLY]		= P,
	[IB_SEND_ONLY_IMM]	= P | PKT_IMM,
	[IB_WRITE_FIRST]	= P | PKT_RETH,
	[IB_WRITE_MIDDLE]	= P,
	[IB_WRITE_LAST]		= P,
	[IB_WRITE_LAST_IMM]	= P | PKT_IMM,
	[IB_WRITE_ONLY]		= P | PKT_RETH,
	[IB_WRITE_ONLY_IMM]	= P | PKT_RETH | PKT_IMM,
	[IB_READ_REQ]		= PKT_RETH,
	[IB_READ_RESP_FIRST]	= P | PKT_AETH,
	[IB_READ_RESP_MIDDLE]	= P,
	[IB_READ_RESP_LAST]	= P | PKT_AETH,
	[IB_READ_RESP_ONLY]	= P | PKT_AETH,
	[IB_ACK]		= PKT_AETH,
	[IB_ATOMIC_ACK]		= PKT_AETH | PKT_ATOMIC_ACK,
	[IB_CMP_SWAP]		= PKT_ATOMIC,
	[IB_FETCH_ADD]		= PKT_ATOMIC,
	[IB_SEND_LAST_INV]	= P | PKT_IETH,
	[IB_SEND_ONLY_INV]	= P | PKT_IETH,
	/* IBA 1.5: a RETH and 8 bytes of payload */
	[IB_ATOMIC_WRITE]	= P | PKT_RETH,
};

/* An RC opcode is known if it has a payload or a header. */
static bool rc_known(uint8_t op)
{
	return op < 32 && rc_ops[op];
}

bool orca_pkt_opcode_hdrs(uint8_t opcode, uint32_t *hdrs, bool *payload)
{
	uint8_t op = opcode & 0x1f;
	uint32_t e;

	switch (opcode & 0xe0) {
	case IB_RC:
		if (!rc_known(op))
			return false;
		e = rc_ops[op];
		break;
	case IB_UC:
		/* SENDs and WRITEs, no invalidate */
		if (op > IB_WRITE_ONLY_IMM)
			return false;
		e = rc_ops[op];
		break;
	case IB_UD:
		if (op != IB_SEND_ONLY && op != IB_SEND_ONLY_IMM)
			return false;
		e = rc_ops[op] | PKT_DETH;
		break;
	default:
		return false;
	}
	*hdrs = e & ~P;
	*payload = e & P;
	return true;
}

/* Bytes of the extension headers in @hdrs. */
static size_t ext_len(uint32_t hdrs)
{
	return (hdrs & PKT_DETH ? 8 : 0) + (hdrs & PKT_RETH ? 16 : 0) +
	       (hdrs & PKT_ATOMIC ? 28 : 0) + (hdrs & PKT_AETH ? 4 : 0) +
	       (hdrs & PKT_ATOMIC_ACK ? 8 : 0) + (hdrs & PKT_IMM ? 4 : 0) +
	       (hdrs & PKT_IETH ? 4 : 0);
}

/* ------------------------------------------------------------------ */
/* Encoding                                                           */
/* ------------------------------------------------------------------ */

static uint8_t *put16(uint8_t *b, uint16_t v)
{
	v = htobe16(v);
	memcpy(b, &v, 2);
	return b + 2;
}

static uint8_t *put32(uint8_t *b, uint32_t v)
{
	v = htobe32(v);
	memcpy(b, &v, 4);
	return b + 4;
}

static uint8_t *put64(uint8_t *b, uint64_t v)
{
	v = htobe64(v);
	memcpy(b, &v, 8);
	return b + 8;
}

/* A 24-bit field after an 8-bit one. */
static uint8_t *put8_24(uint8_t *b, uint8_t hi, uint32_t lo)
{
	return put32(b, (uint32_t)hi << 24 | (lo & 0xffffff));
}

size_t orca_pkt_wire_len(const struct orca_pkt *p)
{
	return ORCA_PKT_LRH_LEN + (p->hdrs & PKT_GRH ? ORCA_PKT_GRH_LEN : 0) +
	       ORCA_PKT_BTH_LEN + ext_len(p->hdrs) + p->paylen +
	       (-p->paylen & 3) + ORCA_PKT_ICRC_LEN;
}

size_t orca_pkt_encode(const struct orca_pkt *p, uint8_t *buf)
{
	return orca_pkt_encode_flags(p, buf, 0);
}

void orca_pkt_set_icrc(uint8_t *buf, size_t len)
{
	uint32_t icrc;

	if (len < ORCA_PKT_ICRC_LEN)
		return;
	icrc = htole32(orca_pkt_icrc(buf, len - ORCA_PKT_ICRC_LEN));
	memcpy(buf + len - ORCA_PKT_ICRC_LEN, &icrc, 4);
}

size_t orca_pkt_encode_flags(const struct orca_pkt *p, uint8_t *buf,
			     unsigned int flags)
{
	uint32_t ext, icrc;
	bool payload;
	uint8_t *b = buf, pad;
	size_t len;

	if (!orca_pkt_opcode_hdrs(p->opcode, &ext, &payload) ||
	    (p->hdrs & ~PKT_GRH) != ext || p->paylen > ORCA_MAX_PMTU ||
	    (!payload && p->paylen))
		return 0;
	pad = -p->paylen & 3;
	len = ORCA_PKT_LRH_LEN + (p->hdrs & PKT_GRH ? ORCA_PKT_GRH_LEN : 0) +
	      ORCA_PKT_BTH_LEN + ext_len(ext) + p->paylen + pad +
	      ORCA_PKT_ICRC_LEN;

	/* LRH: VL, LVer 0 */
	*b++ = (p->vl & 0xf) << 4;
	*b++ = (p->sl & 0xf) << 4 |
	       (p->hdrs & PKT_GRH ? LNH_GLOBAL : LNH_LOCAL);
	b = put16(b, p->dlid);
	b = put16(b, len / 4);
	b = put16(b, p->slid);
	if (p->hdrs & PKT_GRH) {
		b = put32(b, 6U << 28);	/* IPVer 6, TClass, flow 0 */
		b = put16(b, len - ORCA_PKT_LRH_LEN - ORCA_PKT_GRH_LEN);
		*b++ = GRH_NXTHDR;
		*b++ = GRH_HOPLMT;
		memcpy(b, p->sgid, 16);
		memcpy(b + 16, p->dgid, 16);
		b += 32;
	}
	/* BTH: M set (migrated, the only path state the device has), TVer 0 */
	*b++ = p->opcode;
	*b++ = (p->se ? 0x80 : 0) | 0x40 | pad << 4;
	b = put16(b, p->pkey);
	b = put8_24(b, 0, p->dqpn);
	b = put8_24(b, p->ackreq ? 0x80 : 0, p->psn);
	if (ext & PKT_DETH) {
		b = put32(b, p->qkey);
		b = put8_24(b, 0, p->sqpn);
	}
	if (ext & (PKT_RETH | PKT_ATOMIC)) {
		b = put64(b, p->va);
		b = put32(b, p->rkey);
	}
	if (ext & PKT_RETH)
		b = put32(b, p->dmalen);
	if (ext & PKT_ATOMIC) {
		b = put64(b, p->swap_add);
		b = put64(b, p->compare);
	}
	if (ext & PKT_AETH)
		b = put8_24(b, p->syndrome, p->msn);
	if (ext & PKT_ATOMIC_ACK)
		b = put64(b, p->orig);
	if (ext & PKT_IMM) {
		memcpy(b, &p->imm, 4);
		b += 4;
	}
	if (ext & PKT_IETH)
		b = put32(b, p->inv_rkey);
	memcpy(b, orca_pkt_payload(p), p->paylen);
	b += p->paylen;
	memset(b, 0, pad);
	b += pad;
	icrc = flags & ORCA_PKT_NO_ICRC ? 0 :
	       htole32(orca_pkt_icrc(buf, b - buf));
	memcpy(b, &icrc, 4);
	return len;
}

/* ------------------------------------------------------------------ */
/* Decoding                                                           */
/* ------------------------------------------------------------------ */

static uint16_t get16(const uint8_t *b)
{
	uint16_t v;

	memcpy(&v, b, 2);
	return be16toh(v);
}

static uint32_t get32(const uint8_t *b)
{
	uint32_t v;

	memcpy(&v, b, 4);
	return be32toh(v);
}

static uint64_t get64(const uint8_t *b)
{
	uint64_t v;

	memcpy(&v, b, 8);
	return be64toh(v);
}

enum orca_pkt_err orca_pkt_decode(const uint8_t *buf, size_t len,
				  struct orca_pkt *p)
{
	return orca_pkt_decode_flags(buf, len, p, 0);
}

enum orca_pkt_err orca_pkt_decode_flags(const uint8_t *buf, size_t len,
					struct orca_pkt *p,
					unsigned int flags)
{
	size_t off = ORCA_PKT_LRH_LEN, need, body;
	uint32_t ext, icrc;
	const uint8_t *b;
	bool payload;
	uint8_t pad;

	memset(p, 0, offsetof(struct orca_pkt, payload));
	if (len < ORCA_PKT_LRH_LEN + ORCA_PKT_BTH_LEN + ORCA_PKT_ICRC_LEN)
		return ORCA_PKT_E_SHORT;
	/* LRH */
	if (buf[0] & 0x0f)
		return ORCA_PKT_E_LRH;
	if ((buf[1] & 3) != LNH_LOCAL && (buf[1] & 3) != LNH_GLOBAL)
		return ORCA_PKT_E_LRH;
	if (len & 3 || (get16(buf + 4) & 0x7ff) * 4U != len)
		return ORCA_PKT_E_LEN;
	p->vl = buf[0] >> 4;
	p->sl = buf[1] >> 4;
	p->dlid = get16(buf + 2);
	p->slid = get16(buf + 6);
	/* GRH */
	if ((buf[1] & 3) == LNH_GLOBAL) {
		b = buf + off;
		if (len < off + ORCA_PKT_GRH_LEN + ORCA_PKT_BTH_LEN +
			  ORCA_PKT_ICRC_LEN)
			return ORCA_PKT_E_SHORT;
		if (b[0] >> 4 != 6 || b[6] != GRH_NXTHDR)
			return ORCA_PKT_E_GRH;
		if (get16(b + 4) != len - off - ORCA_PKT_GRH_LEN)
			return ORCA_PKT_E_LEN;
		p->hdrs |= PKT_GRH;
		memcpy(p->sgid, b + 8, 16);
		memcpy(p->dgid, b + 24, 16);
		off += ORCA_PKT_GRH_LEN;
	}
	/* BTH */
	b = buf + off;
	if (b[1] & 0x0f)
		return ORCA_PKT_E_BTH;
	p->opcode = b[0];
	if (!orca_pkt_opcode_hdrs(p->opcode, &ext, &payload))
		return ORCA_PKT_E_OPCODE;
	p->se = b[1] & 0x80;
	pad = (b[1] >> 4) & 3;
	p->pkey = get16(b + 2);
	p->dqpn = get32(b + 4) & 0xffffff;
	p->ackreq = b[8] & 0x80;
	p->psn = get32(b + 8) & 0xffffff;
	off += ORCA_PKT_BTH_LEN;
	/* what the opcode says must follow, then at least the ICRC */
	need = off + ext_len(ext) + ORCA_PKT_ICRC_LEN;
	if (len < need)
		return ORCA_PKT_E_SHORT;
	body = len - need;
	if (pad > body)
		return ORCA_PKT_E_LEN;
	if ((!payload && body) || body - pad > ORCA_MAX_PMTU)
		return ORCA_PKT_E_PAYLOAD;
	if (!(flags & ORCA_PKT_NO_ICRC)) {
		icrc = htole32(orca_pkt_icrc(buf, len - ORCA_PKT_ICRC_LEN));
		if (memcmp(&icrc, buf + len - ORCA_PKT_ICRC_LEN, 4))
			return ORCA_PKT_E_ICRC;
	}

	p->hdrs |= ext;
	b = buf + off;
	if (ext & PKT_DETH) {
		p->qkey = get32(b);
		p->sqpn = get32(b + 4) & 0xffffff;
		b += 8;
	}
	if (ext & (PKT_RETH | PKT_ATOMIC)) {
		p->va = get64(b);
		p->rkey = get32(b + 8);
		b += 12;
	}
	if (ext & PKT_RETH) {
		p->dmalen = get32(b);
		b += 4;
	}
	if (ext & PKT_ATOMIC) {
		p->swap_add = get64(b);
		p->compare = get64(b + 8);
		b += 16;
	}
	if (ext & PKT_AETH) {
		p->syndrome = b[0];
		p->msn = get32(b) & 0xffffff;
		b += 4;
	}
	if (ext & PKT_ATOMIC_ACK) {
		p->orig = get64(b);
		b += 8;
	}
	if (ext & PKT_IMM) {
		memcpy(&p->imm, b, 4);
		b += 4;
	}
	if (ext & PKT_IETH) {
		p->inv_rkey = get32(b);
		b += 4;
	}
	p->paylen = body - pad;
	if (flags & ORCA_PKT_BORROW)
		p->data = b;
	else
		memcpy(p->payload, b, p->paylen);
	return ORCA_PKT_OK;
}

const char *orca_pkt_strerror(enum orca_pkt_err err)
{
	static const char *const names[ORCA_PKT_E_NR] = {
		[ORCA_PKT_OK]		= "ok",
		[ORCA_PKT_E_SHORT]	= "truncated",
		[ORCA_PKT_E_LEN]	= "inconsistent length",
		[ORCA_PKT_E_LRH]	= "bad LRH",
		[ORCA_PKT_E_GRH]	= "bad GRH",
		[ORCA_PKT_E_BTH]	= "bad BTH",
		[ORCA_PKT_E_OPCODE]	= "unknown opcode",
		[ORCA_PKT_E_PAYLOAD]	= "bad payload length",
		[ORCA_PKT_E_ICRC]	= "ICRC mismatch",
	};

	return err < ORCA_PKT_E_NR ? names[err] : "?";
}
