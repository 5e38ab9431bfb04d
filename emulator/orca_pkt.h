/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca device model: the packets the engine sends and receives, and
 * their IBTA wire encoding (orca_pkt.c).
 *
 * Inside the device a packet is a struct orca_pkt: the headers unpacked
 * in host order, and PKT_* saying which ones it carries.  On a fabric
 * (orca_fabric.c) it travels as IBTA bytes: LRH, GRH when PKT_GRH, BTH,
 * the extension headers its opcode implies (IBTA 9.2, table 38), the
 * payload padded to 4 bytes, and the ICRC.  No VCRC: the link layer of
 * the fabric (a SOCK_SEQPACKET message) already delimits and protects
 * the packet.  This file needs nothing of the device, so a fuzzer can
 * take the decoder alone.
 */
#ifndef ORCA_PKT_H
#define ORCA_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* IBTA BTH opcodes (transport in bits 7:5). */
enum {
	IB_RC = 0x00, IB_UC = 0x20, IB_UD = 0x60,
	IB_SEND_FIRST = 0x00, IB_SEND_MIDDLE = 0x01, IB_SEND_LAST = 0x02,
	IB_SEND_LAST_IMM = 0x03, IB_SEND_ONLY = 0x04, IB_SEND_ONLY_IMM = 0x05,
	IB_WRITE_FIRST = 0x06, IB_WRITE_MIDDLE = 0x07, IB_WRITE_LAST = 0x08,
	IB_WRITE_LAST_IMM = 0x09, IB_WRITE_ONLY = 0x0a,
	IB_WRITE_ONLY_IMM = 0x0b, IB_READ_REQ = 0x0c,
	IB_READ_RESP_FIRST = 0x0d, IB_READ_RESP_MIDDLE = 0x0e,
	IB_READ_RESP_LAST = 0x0f, IB_READ_RESP_ONLY = 0x10, IB_ACK = 0x11,
	IB_ATOMIC_ACK = 0x12, IB_CMP_SWAP = 0x13, IB_FETCH_ADD = 0x14,
	IB_SEND_LAST_INV = 0x16, IB_SEND_ONLY_INV = 0x17,	/* RC only */
	IB_ATOMIC_WRITE = 0x1d,					/* RC only */
};

/* AETH syndrome classes (bits 6:5) and NAK codes. */
#define AETH_ACK		0x00
/*
 * An ACK's credit field (bits 4:0): 0x1f, "no credit count" (IBTA
 * 9.7.7.2.1), as rxe sends.  0 would say no receive WQE is free, and a
 * requester doing end-to-end flow control would stop sending SENDs.
 */
#define AETH_ACK_NO_CREDITS	(AETH_ACK | 0x1f)
#define AETH_RNR_NAK		0x20
#define AETH_NAK		0x60
#define AETH_NAK_PSN_SEQ	0
#define AETH_NAK_INV_REQ	1
#define AETH_NAK_REM_ACCESS	2
#define AETH_NAK_REM_OP		3

#define PSN_MASK		0xffffffU
#define ORCA_MAX_PMTU		4096
#define ORCA_VL15		15	/* QP0's virtual lane, never flow-controlled */
#define ORCA_LID_PERMISSIVE	0xffff

/* Which headers a packet carries; the fields are in host order. */
#define PKT_GRH			(1U << 0)
#define PKT_RETH		(1U << 1)
#define PKT_AETH		(1U << 2)
#define PKT_IMM			(1U << 3)
#define PKT_ATOMIC		(1U << 4)
#define PKT_ATOMIC_ACK		(1U << 5)
#define PKT_DETH		(1U << 6)
#define PKT_IETH		(1U << 7)

struct orca_pkt {
	struct orca_pkt *next;		/* link queue */
	uint64_t deliver_at;		/* held by the link until (ns) */
	uint32_t hdrs;			/* PKT_* */
	/* LRH */
	uint16_t dlid, slid;
	uint8_t vl, sl;			/* VL 15: subnet management */
	/* GRH */
	uint8_t sgid[16], dgid[16];
	/* BTH */
	uint8_t opcode;
	bool se, ackreq;
	uint16_t pkey;
	uint32_t dqpn, psn;
	/* DETH */
	uint32_t qkey, sqpn;
	/* RETH */
	uint64_t va;
	uint32_t rkey, dmalen;
	/* AtomicETH */
	uint64_t swap_add, compare;
	/* AETH */
	uint8_t syndrome;
	uint32_t msn;
	/* AtomicAckETH */
	uint64_t orig;
	/* ImmDt, as carried (big-endian value) */
	uint32_t imm;
	/* IETH: the R_Key a SEND_WITH_INV invalidates */
	uint32_t inv_rkey;
	uint32_t paylen;
	/*
	 * The payload where it lies, not copied into payload[]: in the
	 * buffer it was decoded from (ORCA_PKT_BORROW), or in guest memory
	 * for a packet the engine sends (orca_wire.c: encoded, or made its
	 * own, before the engine's round ends); NULL otherwise.  Read it
	 * through orca_pkt_payload().
	 */
	const uint8_t *data;
	uint8_t payload[ORCA_MAX_PMTU];
};

static inline const uint8_t *orca_pkt_payload(const struct orca_pkt *p)
{
	return p->data ? p->data : p->payload;
}

/* The payload into payload[]: for a packet that outlives where it lies. */
static inline void orca_pkt_own(struct orca_pkt *p)
{
	if (p->data) {
		memcpy(p->payload, p->data, p->paylen);
		p->data = NULL;
	}
}

/* Longest encoding: LRH, GRH, BTH, RETH + ImmDt or AtomicETH, payload, ICRC. */
#define ORCA_PKT_LRH_LEN	8
#define ORCA_PKT_GRH_LEN	40
#define ORCA_PKT_BTH_LEN	12
#define ORCA_PKT_ICRC_LEN	4
#define ORCA_PKT_WIRE_MAX	(ORCA_PKT_LRH_LEN + ORCA_PKT_GRH_LEN + \
				 ORCA_PKT_BTH_LEN + 28 + ORCA_MAX_PMTU + \
				 ORCA_PKT_ICRC_LEN)

/* Why a packet was refused (orca_pkt_decode()); 0 is a good packet. */
enum orca_pkt_err {
	ORCA_PKT_OK,
	ORCA_PKT_E_SHORT,	/* shorter than its headers or its PktLen */
	ORCA_PKT_E_LEN,		/* PktLen, PayLen, PadCnt disagree */
	ORCA_PKT_E_LRH,		/* LVer, LNH not IBA local/global */
	ORCA_PKT_E_GRH,		/* IPVer, NxtHdr */
	ORCA_PKT_E_BTH,		/* TVer */
	ORCA_PKT_E_OPCODE,	/* not an RC/UC/UD opcode this device knows */
	ORCA_PKT_E_PAYLOAD,	/* payload where none may be, or too long */
	ORCA_PKT_E_ICRC,	/* ICRC mismatch */
	ORCA_PKT_E_NR,
};

/*
 * Which extension headers (PKT_* without PKT_GRH) an opcode carries and
 * whether it has a payload; false for an opcode the device does not know.
 */
bool orca_pkt_opcode_hdrs(uint8_t opcode, uint32_t *hdrs, bool *payload);

/*
 * Encode @p into @buf (at least ORCA_PKT_WIRE_MAX bytes).  Returns the
 * length, or 0 if @p is not a packet its opcode allows (headers other
 * than the opcode's, a payload over ORCA_MAX_PMTU): a bug of the engine,
 * never sent.
 */
size_t orca_pkt_encode(const struct orca_pkt *p, uint8_t *buf);
/*
 * ORCA_PKT_NO_ICRC: the ICRC field is left zero (encode) or not checked
 * (decode): for a link that cannot corrupt a packet, a shared-memory
 * ring between two processes (orca_ring.h); whatever sends it on where
 * it can be corrupted computes it (orca_pkt_icrc()).
 */
#define ORCA_PKT_NO_ICRC	(1U << 0)
/*
 * ORCA_PKT_BORROW (decode): the payload stays in the buffer, p->data
 * points at it (one copy fewer); the buffer must outlive every use of
 * the packet, which is then processed before the buffer is reused.
 */
#define ORCA_PKT_BORROW		(1U << 1)
size_t orca_pkt_encode_flags(const struct orca_pkt *p, uint8_t *buf,
			     unsigned int flags);
/* Its bytes from LRH to ICRC, as the port counters count them. */
size_t orca_pkt_wire_len(const struct orca_pkt *p);

/*
 * Decode @len bytes into @p (every field, next and deliver_at zeroed).
 * Returns ORCA_PKT_OK or why the packet is malformed; @p is then
 * undefined.  Any input is safe: nothing is read outside @buf.
 */
enum orca_pkt_err orca_pkt_decode(const uint8_t *buf, size_t len,
				  struct orca_pkt *p);
enum orca_pkt_err orca_pkt_decode_flags(const uint8_t *buf, size_t len,
					struct orca_pkt *p,
					unsigned int flags);
const char *orca_pkt_strerror(enum orca_pkt_err err);

/* The IBTA ICRC (CRC-32, variant fields masked) of a whole packet. */
uint32_t orca_pkt_icrc(const uint8_t *buf, size_t len);
/* Write the ICRC of the @len-byte packet at @buf into its last 4 bytes. */
void orca_pkt_set_icrc(uint8_t *buf, size_t len);

#endif /* ORCA_PKT_H */
