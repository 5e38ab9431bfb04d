/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca device model, layer 3: the transport.  It sees packets and
 * resources only, and sends through the port's operations (port_xmit(),
 * port_room()).
 *
 *   orca_xport.c   routing headers from an AV or a QP's path, CQE opcodes
 *   orca_cqe.c     CQEs; what ends a QP (ERR, SQE) and flushes it
 *   orca_ack.c     the responder's ACKs and NAKs, violations that end it
 *   orca_req.c     requester: send WQEs -> request packets
 *   orca_comp.c    completer: responses -> CQEs; NAKs, retries, timers
 *   orca_rdatom.c  responder: READs and atomics, answered in order from
 *                  a ring that also answers their duplicates
 *   orca_resp.c    responder: request packets -> memory, RQ, ACK/NAK
 *
 * Each file calls only those above it in this list.  One thread runs
 * commands and the engine, never in the middle of a packet, so a
 * DESTROY, DEREG or reset never races with a transfer.
 */
#ifndef ORCA_XPORT_H
#define ORCA_XPORT_H

#include "orca_fabric_proto.h"
#include "orca_res.h"

/*
 * The send window (rxe: RXE_MAX_UNACKED_PSNS): an RC requester has at
 * most this many request packets of its WQE sent and not acknowledged,
 * and sends on as ACKs come.  Half of what the switch holds for a port,
 * so that one QP's burst fits there with room for the ACKs and READ
 * responses that go the same way: without a bound a long message
 * overflows the queues and loses its tail, which only the retransmit
 * timer notices.
 */
#define ORCA_MAX_UNACKED_PSNS	(ORCA_FAB_PORT_QUEUE / 2)
/*
 * The window toward a port at the other end of a direct link (lossless,
 * nothing in between: orca_fabric_direct.c): as many packets as its ring
 * holds, so that a stream stops for the ring, not for every ACK.
 */
#define ORCA_DIRECT_UNACKED_PSNS	256
/*
 * AckReq on every ORCA_ACK_EVERY-th packet of a message and on its last
 * (the responder ACKs what asks for it, nothing else).  Any window's
 * worth of PSNs in a row holds two of them, so a full window always waits
 * for an ACK it asked for (or for the timer, if that packet was lost),
 * and the window moves twice per round trip.
 */
#define ORCA_ACK_EVERY		(ORCA_MAX_UNACKED_PSNS / 2)

static inline bool qp_allows(const struct orca_qp *qp, uint32_t access)
{
	return le32toh(qp->ctx.access_flags) & access;
}

static inline bool psn_before(uint32_t a, uint32_t b)
{
	return ((a - b) & PSN_MASK) > (PSN_MASK >> 1);
}

static inline uint32_t pmtu_bytes(uint8_t mtu)
{
	return mtu >= 1 && mtu <= 5 ? 128U << mtu : 256;
}

/* What a request opcode is part of (responder). */
enum { OP_NONE, OP_SEND, OP_WRITE };

static inline bool op_first(uint8_t op)
{
	return op == IB_SEND_FIRST || op == IB_SEND_ONLY ||
	       op == IB_SEND_ONLY_IMM || op == IB_SEND_ONLY_INV ||
	       op == IB_WRITE_FIRST ||
	       op == IB_WRITE_ONLY || op == IB_WRITE_ONLY_IMM;
}

static inline bool op_last(uint8_t op)
{
	return op == IB_SEND_LAST || op == IB_SEND_LAST_IMM ||
	       op == IB_SEND_ONLY || op == IB_SEND_ONLY_IMM ||
	       op == IB_SEND_LAST_INV || op == IB_SEND_ONLY_INV ||
	       op == IB_WRITE_LAST || op == IB_WRITE_LAST_IMM ||
	       op == IB_WRITE_ONLY || op == IB_WRITE_ONLY_IMM;
}

static inline int op_class(uint8_t op)
{
	if (op <= IB_SEND_ONLY_IMM || op == IB_SEND_LAST_INV ||
	    op == IB_SEND_ONLY_INV)
		return OP_SEND;
	if (op <= IB_WRITE_ONLY_IMM)
		return OP_WRITE;
	return OP_NONE;
}

static inline bool is_rc(const struct orca_qp *qp)
{
	return qp->ctx.qp_type == ORCA_QPT_RC;
}

/* orca_xport.c */
/* Routing headers (LRH, GRH) from an address vector. */
void av_address(struct orca_dev *dev, const struct orca_av *av,
		struct orca_pkt *p);
void qp_address(struct orca_dev *dev, struct orca_qp *qp, struct orca_pkt *p);
uint8_t wr_to_cqe_opcode(uint8_t wr_opcode);

/* orca_cqe.c */
bool recv_cqe(struct orca_dev *dev, struct orca_qp *qp, uint32_t wqe_idx,
	      uint8_t status, uint8_t opcode, uint32_t byte_len,
	      const struct orca_pkt *p);
void comp_send_done(struct orca_dev *dev, struct orca_qp *qp, uint8_t status,
		    uint32_t vendor_err);
void rwqe_flush(struct orca_dev *dev, struct orca_qp *qp);
/* The WQE in flight and every queued send WQE: WR_FLUSH_ERR. */
bool sq_flush(struct orca_dev *dev, struct orca_qp *qp);
bool qp_flush(struct orca_dev *dev, struct orca_qp *qp);
void qp_error(struct orca_dev *dev, struct orca_qp *qp, const char *why);
void qp_sq_error(struct orca_dev *dev, struct orca_qp *qp, const char *why);
void qp_err_entered(struct orca_dev *dev, struct orca_qp *qp);
void dp_qp_reset(struct orca_qp *qp);
void dp_qp_state(struct orca_dev *dev, struct orca_qp *qp,
		 unsigned int old_state);

/* orca_ack.c */
void send_aeth(struct orca_dev *dev, struct orca_qp *qp, uint8_t op,
	       uint8_t syndrome, uint32_t psn, uint64_t orig);
/* A violation: RC NAKs @code and the QP ends; UC drops the message. */
void resp_fail(struct orca_dev *dev, struct orca_qp *qp,
	       const struct orca_pkt *p, uint8_t code, const char *why);

/* orca_req.c */
bool req_step(struct orca_dev *dev, struct orca_qp *qp);
/* (Re)start the retransmit timer of the RC WQE in flight (if it has one). */
void req_arm_timer(struct orca_qp *qp);

/* orca_comp.c */
bool comp_timeout(struct orca_dev *dev, struct orca_qp *qp);
void comp_rx(struct orca_dev *dev, struct orca_qp *qp, struct orca_pkt *p);

/* orca_rdatom.c */
void resp_read(struct orca_dev *dev, struct orca_qp *qp,
	       const struct orca_pkt *p);
void resp_atomic(struct orca_dev *dev, struct orca_qp *qp,
		 const struct orca_pkt *p, uint8_t op);
void resp_atomic_write(struct orca_dev *dev, struct orca_qp *qp,
		       const struct orca_pkt *p);
void resp_rd_duplicate(struct orca_dev *dev, struct orca_qp *qp,
		       const struct orca_pkt *p);
/* One READ response or atomic ACK; false if none was due. */
bool resp_step(struct orca_dev *dev, struct orca_qp *qp);

/* orca_resp.c */
void resp_rx(struct orca_dev *dev, struct orca_qp *qp, struct orca_pkt *p);

#endif /* ORCA_XPORT_H */
