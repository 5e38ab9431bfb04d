// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the responder.
 *
 * Request packets are taken in PSN order.  An RC responder re-acknowledges
 * duplicates (replaying READ and atomic results), NAKs the first packet
 * past a gap once, NAKs with RNR when a message needs a receive WQE and
 * none is posted, and answers access, length and protocol violations with
 * the NAK class the IBTA gives them; those and its own receive WQE's
 * errors move the QP to ERR.  A UC responder drops instead of NAKing.
 */
#include "orca_xport.h"

/*
 * The receive WQE in progress is done (its CQE written).  An SRQ's WQE
 * left the SRQ when it was taken; the QP's own queue advances now.
 */
static void rwqe_retire(struct orca_qp *qp)
{
	if (!qp->resp.rwqe_srq)
		qp->rq.ci++;
	qp->resp.have_rwqe = false;
}

/* The receive WQE failed: its CQE carries @status, then as resp_fail(). */
static void rwqe_fail(struct orca_dev *dev, struct orca_qp *qp,
		      const struct orca_pkt *p, uint8_t status, uint8_t code,
		      const char *why)
{
	struct orca_resp *s = &qp->resp;

	recv_cqe(dev, qp, s->rwqe_idx, status, ORCA_CQE_OP_RECV, 0, p);
	rwqe_retire(qp);
	if (!is_rc(qp)) {
		qp_error(dev, qp, why);
		return;
	}
	resp_fail(dev, qp, p, code, why);
}

/*
 * Take the next receive WQE, from the QP's SRQ or its own queue; false if
 * there is none (RC: RNR NAK; UC: the message is dropped; UD: the packet)
 * or it is bad (the QP ends).
 */
static bool take_rwqe(struct orca_dev *dev, struct orca_qp *qp,
		      const struct orca_pkt *p)
{
	switch (qp->ctx.srqn ? srq_take(dev, qp) : rq_take(dev, qp)) {
	case RWQE_OK:
		return true;
	case RWQE_NONE:
		if (is_rc(qp)) {
			dev->stats.rnr_naks++;
			send_aeth(dev, qp, IB_ACK,
				  AETH_RNR_NAK | (qp->ctx.min_rnr_timer & 0x1f),
				  p->psn, 0);
		} else if (qp->ctx.qp_type == ORCA_QPT_UD) {
			dev->stats.pkts_dropped++;
		} else {
			resp_fail(dev, qp, p, 0, "no receive WQE");
		}
		return false;
	case RWQE_BAD_INDEX:
		qp_error(dev, qp, qp->ctx.srqn ?
			 "SRQ producer index past its depth" :
			 "RQ producer index past its depth");
		return false;
	case RWQE_MALFORMED:
		rwqe_fail(dev, qp, p, ORCA_CQE_LOC_QP_OP_ERR,
			  AETH_NAK_REM_OP, "malformed receive WQE");
		return false;
	}
	return false;
}

/* Scatter into the receive WQE at its current offset. */
static bool rwqe_scatter(struct orca_dev *dev, struct orca_qp *qp,
			 const struct orca_pkt *p, const uint8_t *buf,
			 uint32_t len)
{
	struct orca_resp *s = &qp->resp;
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < s->rnum_sge; i++)
		total += le32toh(s->rsge[i].length);
	if (s->roff + len > total) {
		rwqe_fail(dev, qp, p, ORCA_CQE_LOC_LEN_ERR, AETH_NAK_INV_REQ,
			  "message longer than the receive WQE");
		return false;
	}
	if (!sge_copy(dev, s->rsge, s->rnum_sge, s->rpdn, qp_rlkey(qp),
		      MR_LOCAL_WRITE, s->roff, (uint8_t *)buf, len, true,
		      dev->cfg.dio_send)) {
		rwqe_fail(dev, qp, p, ORCA_CQE_LOC_PROT_ERR, AETH_NAK_REM_OP,
			  "receive WQE's key refused");
		return false;
	}
	s->roff += len;
	return true;
}

static void msg_done(struct orca_dev *dev, struct orca_qp *qp,
		     const struct orca_pkt *p, bool last)
{
	struct orca_resp *s = &qp->resp;

	s->epsn = (s->epsn + 1) & PSN_MASK;
	if (last) {
		s->in_op = OP_NONE;
		s->msn++;
	}
	if (is_rc(qp) && p->ackreq)
		send_aeth(dev, qp, IB_ACK, AETH_ACK_NO_CREDITS, p->psn, 0);
}

static void rx_send(struct orca_dev *dev, struct orca_qp *qp,
		    const struct orca_pkt *p, uint8_t op)
{
	struct orca_resp *s = &qp->resp;
	bool first = op_first(op), last = op_last(op);

	if (first && !s->have_rwqe && !take_rwqe(dev, qp, p))
		return;
	if (!s->have_rwqe) {
		resp_fail(dev, qp, p, AETH_NAK_INV_REQ, "SEND without a start");
		return;
	}
	if (!rwqe_scatter(dev, qp, p, orca_pkt_payload(p), p->paylen))
		return;
	if (first && !last)
		s->in_op = OP_SEND;
	/*
	 * SEND_WITH_INV (RC; the IETH on the last packet): the key must name
	 * a type 2 window bound to this QP or a valid fast-register region
	 * of its PD; then it no longer grants access when the receive
	 * completes.  Otherwise the receive and the request
	 * fail as rxe fails them: NAK invalid request, REM_INV_REQ_ERR.
	 */
	if (last && (p->hdrs & PKT_IETH) &&
	    (!is_rc(qp) || !remote_inv(dev, qp, p->inv_rkey))) {
		char why[128];

		snprintf(why, sizeof(why),
			 "SEND_WITH_INV of key 0x%x, neither a type 2 window bound to this QP nor a fast-register region of its PD",
			 p->inv_rkey);
		rwqe_fail(dev, qp, p, ORCA_CQE_REM_INV_REQ_ERR,
			  AETH_NAK_INV_REQ, why);
		return;
	}
	if (last) {
		recv_cqe(dev, qp, s->rwqe_idx, ORCA_CQE_SUCCESS,
			 ORCA_CQE_OP_RECV, s->roff, p);
		rwqe_retire(qp);
	}
	msg_done(dev, qp, p, last);
}

static void rx_write(struct orca_dev *dev, struct orca_qp *qp,
		     const struct orca_pkt *p, uint8_t op)
{
	struct orca_resp *s = &qp->resp;
	bool first = op_first(op), last = op_last(op);
	bool imm = op == IB_WRITE_LAST_IMM || op == IB_WRITE_ONLY_IMM;
	struct orca_mr *mr;

	if (first) {
		if (!qp_allows(qp, ORCA_ACCESS_REMOTE_WRITE)) {
			resp_fail(dev, qp, p, AETH_NAK_INV_REQ,
				  "RDMA WRITE not enabled on the QP");
			return;
		}
		/* IBA 9.4.4, as for a READ (orca_rdatom.c) */
		if (p->dmalen > 0x80000000U) {
			resp_fail(dev, qp, p, AETH_NAK_INV_REQ,
				  "RDMA WRITE of more than 2^31 bytes");
			return;
		}
		if (p->dmalen && !rkey_check(dev, qp, p->rkey, MR_REMOTE_WRITE,
					     p->va, p->dmalen)) {
			resp_fail(dev, qp, p, AETH_NAK_REM_ACCESS,
				  "RDMA WRITE rkey refused");
			return;
		}
		s->wva = p->va;
		s->wrkey = p->rkey;
		s->wleft = s->wlen = p->dmalen;
	}
	if (p->paylen > s->wleft || (last && p->paylen != s->wleft)) {
		resp_fail(dev, qp, p, AETH_NAK_INV_REQ,
			  "RDMA WRITE payload does not match its length");
		return;
	}
	/*
	 * The receive WQE first: an RNR NAK must leave nothing half done.
	 * UC: one an abandoned SEND still holds is the next in order; an SRQ
	 * must not give out another (the held one would be lost).
	 */
	if (imm && last && !s->have_rwqe && !take_rwqe(dev, qp, p))
		return;
	if (p->paylen) {
		mr = rkey_check(dev, qp, s->wrkey, MR_REMOTE_WRITE, s->wva,
				p->paylen);
		if (!mr) {
			resp_fail(dev, qp, p, AETH_NAK_REM_ACCESS,
				  "RDMA WRITE region gone");
			return;
		}
		mr_write(dev, mr, s->wva, orca_pkt_payload(p), p->paylen,
			 dev->cfg.dio_rdma_write);
	}
	s->wva += p->paylen;
	s->wleft -= p->paylen;
	if (first && !last)
		s->in_op = OP_WRITE;
	if (imm && last) {
		recv_cqe(dev, qp, s->rwqe_idx, ORCA_CQE_SUCCESS,
			 ORCA_CQE_OP_RECV_RDMA_WITH_IMM, s->wlen, p);
		rwqe_retire(qp);
	}
	msg_done(dev, qp, p, last);
}

/* RC: a request the responder has seen before. */
static void rx_duplicate(struct orca_dev *dev, struct orca_qp *qp,
			 const struct orca_pkt *p)
{
	struct orca_resp *s = &qp->resp;
	uint8_t op = p->opcode & 0x1f;

	if (op == IB_READ_REQ || op == IB_CMP_SWAP || op == IB_FETCH_ADD ||
	    op == IB_ATOMIC_WRITE) {
		resp_rd_duplicate(dev, qp, p);
		return;
	}
	if (p->ackreq)
		send_aeth(dev, qp, IB_ACK, AETH_ACK_NO_CREDITS, s->epsn - 1, 0);
}

/*
 * UD: a whole message per packet.  Q_Key checked, no RNR (a message
 * without a receive WQE is dropped), the GRH (when the packet has one)
 * in the first 40 bytes of the buffer and the payload always after them.
 */
static void rx_ud(struct orca_dev *dev, struct orca_qp *qp,
		  const struct orca_pkt *p)
{
	struct orca_resp *s = &qp->resp;
	uint8_t op = p->opcode & 0x1f, grh[40];

	if ((op != IB_SEND_ONLY && op != IB_SEND_ONLY_IMM) ||
	    !(p->hdrs & PKT_DETH)) {
		dev->stats.pkts_dropped++;
		return;
	}
	/* QP0 has no Q_Key to check (IBA 13.5.3.2) */
	if (qp->ctx.qpn && p->qkey != le32toh(qp->ctx.qkey)) {
		dev->stats.pkts_dropped++;
		port_count_violation(dev, false, p);
		return;
	}
	if (!take_rwqe(dev, qp, p))
		return;
	if (p->hdrs & PKT_GRH) {
		uint32_t vtf = htobe32(6U << 28);
		uint16_t len = htobe16(p->paylen);

		memset(grh, 0, sizeof(grh));
		memcpy(grh, &vtf, 4);
		memcpy(grh + 4, &len, 2);
		grh[6] = 0x1b;		/* next header: IBA transport */
		grh[7] = 64;		/* hop limit */
		memcpy(grh + 8, p->sgid, 16);
		memcpy(grh + 24, p->dgid, 16);
		if (!rwqe_scatter(dev, qp, p, grh, sizeof(grh)))
			return;
	} else {
		/* the GRH's room is used whether or not a GRH arrived */
		uint64_t total = 0;
		uint32_t i;

		for (i = 0; i < s->rnum_sge; i++)
			total += le32toh(s->rsge[i].length);
		if (total < 40) {
			rwqe_fail(dev, qp, p, ORCA_CQE_LOC_LEN_ERR, 0,
				  "UD receive WQE shorter than the GRH");
			return;
		}
		s->roff = 40;
	}
	if (!rwqe_scatter(dev, qp, p, orca_pkt_payload(p), p->paylen))
		return;
	recv_cqe(dev, qp, s->rwqe_idx, ORCA_CQE_SUCCESS, ORCA_CQE_OP_RECV,
		 s->roff, p);
	rwqe_retire(qp);
}

void resp_rx(struct orca_dev *dev, struct orca_qp *qp, struct orca_pkt *p)
{
	struct orca_resp *s = &qp->resp;
	uint8_t st = qp->ctx.state, op = p->opcode & 0x1f;
	uint8_t want = qp->ctx.qp_type == ORCA_QPT_UC ? IB_UC : IB_RC;

	if (qp->ctx.qp_type == ORCA_QPT_UD)
		want = IB_UD;
	if ((st != ORCA_QPS_RTR && st != ORCA_QPS_RTS && st != ORCA_QPS_SQD &&
	     st != ORCA_QPS_SQE) || (p->opcode & 0xe0) != want) {
		dev->stats.pkts_dropped++;
		return;
	}
	if (qp->ctx.qp_type == ORCA_QPT_UD) {
		rx_ud(dev, qp, p);
		return;
	}
	if (p->psn != s->epsn) {
		if (!is_rc(qp)) {
			/* UC: packets were lost; resync on a new message */
			if (!op_first(op)) {
				s->drop_msg = true;
				dev->stats.pkts_dropped++;
				return;
			}
			s->epsn = p->psn;
		} else if (psn_before(p->psn, s->epsn)) {
			rx_duplicate(dev, qp, p);
			return;
		} else {
			if (!s->nak_sent)
				send_aeth(dev, qp, IB_ACK,
					  AETH_NAK | AETH_NAK_PSN_SEQ,
					  s->epsn, 0);
			s->nak_sent = true;
			return;
		}
	}
	s->nak_sent = false;
	if (op_first(op) || op == IB_READ_REQ || op == IB_CMP_SWAP ||
	    op == IB_FETCH_ADD || op == IB_ATOMIC_WRITE) {
		if (s->in_op != OP_NONE) {
			if (is_rc(qp)) {
				resp_fail(dev, qp, p, AETH_NAK_INV_REQ,
					  "new request inside a message");
				return;
			}
			s->in_op = OP_NONE;	/* UC: abandon the old one */
		}
		s->drop_msg = false;
		/*
		 * UC: the receive WQE an abandoned message held (taken, not
		 * completed; from an SRQ it is this QP's) takes the new one
		 * from its start.
		 */
		if (op_first(op) && s->have_rwqe)
			s->roff = 0;
	} else if (s->drop_msg) {
		s->epsn = (s->epsn + 1) & PSN_MASK;
		dev->stats.pkts_dropped++;
		return;
	} else if (s->in_op != op_class(op)) {
		resp_fail(dev, qp, p, AETH_NAK_INV_REQ,
			  "packet out of its message's sequence");
		return;
	}

	switch (op_class(op)) {
	case OP_SEND:
		rx_send(dev, qp, p, op);
		return;
	case OP_WRITE:
		rx_write(dev, qp, p, op);
		return;
	}
	if (!is_rc(qp)) {
		dev->stats.pkts_dropped++;
		return;
	}
	if (op == IB_READ_REQ)
		resp_read(dev, qp, p);
	else if (op == IB_CMP_SWAP || op == IB_FETCH_ADD)
		resp_atomic(dev, qp, p, op);
	else if (op == IB_ATOMIC_WRITE)
		resp_atomic_write(dev, qp, p);
	else
		resp_fail(dev, qp, p, AETH_NAK_INV_REQ, "unknown opcode");
}
