// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the completer.
 *
 * The completer matches RC responses to the WQE in flight: an ACK of its
 * last PSN completes a SEND or WRITE, READ responses are scattered into
 * its SGEs, an atomic ACK returns the original value.  An RNR NAK arms the
 * RNR timer, a sequence NAK rewinds at once, the other NAKs complete the
 * WQE with the remote error the IBTA maps them to (orca_cqe.c writes the
 * CQEs and ends the QP).
 */
#include "orca_xport.h"

static uint64_t rnr_delay_ns(uint8_t t)
{
	/* IBTA 9.7.5.2.8: encoded RNR NAK timer values, in microseconds */
	static const uint32_t us[32] = {
		655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640,
		960, 1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480,
		30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680,
		491520,
	};

	return us[t & 31] * 1000ULL;
}

static bool is_send_or_write(uint8_t wop)
{
	return wop == ORCA_WR_SEND || wop == ORCA_WR_SEND_WITH_IMM ||
	       wop == ORCA_WR_SEND_WITH_INV || wop == ORCA_WR_RDMA_WRITE ||
	       wop == ORCA_WR_RDMA_WRITE_WITH_IMM;
}

/*
 * Send the WQE in flight again: a SEND or WRITE from the first packet
 * not acknowledged (as rxe's req_retry(): what the responder has
 * acknowledged it keeps), anything else from its first packet.
 */
static void rewind_wqe(struct orca_dev *dev, struct orca_qp *qp)
{
	struct orca_req *r = &qp->req;
	uint32_t n = (r->una_psn - r->first_psn) & PSN_MASK;

	if (!is_send_or_write(r->wqe.opcode) ||
	    (uint64_t)n * pmtu_bytes(qp->ctx.path_mtu) >= r->len)
		n = 0;
	r->off = (uint64_t)n * pmtu_bytes(qp->ctx.path_mtu);
	r->rd_off = 0;
	r->psn = (r->first_psn + n) & PSN_MASK;
	r->sent_all = false;
	req_arm_timer(qp);
	dev->stats.retries++;
}

/*
 * A sequence NAK names the PSN the responder expects: a SEND or WRITE
 * goes on from that packet (the responder has every one before it), and
 * the retry count starts over when that is further than before.  Any
 * other WQE, or a PSN outside what was sent, starts again from the top.
 */
static void resume_wqe(struct orca_dev *dev, struct orca_qp *qp,
		       uint32_t psn)
{
	struct orca_req *r = &qp->req;
	uint32_t mtu = pmtu_bytes(qp->ctx.path_mtu);
	uint32_t n = (psn - r->first_psn) & PSN_MASK;
	uint8_t op = r->wqe.opcode;

	if (op == ORCA_WR_RDMA_READ || op == ORCA_WR_ATOMIC_CMP_AND_SWP ||
	    op == ORCA_WR_ATOMIC_FETCH_AND_ADD || op == ORCA_WR_ATOMIC_WRITE ||
	    !n ||
	    psn_before(r->psn, psn) || (uint64_t)n * mtu >= r->len) {
		rewind_wqe(dev, qp);
		return;
	}
	if (n > r->progress)
		r->progress = n;
	/* a sequence NAK acknowledges every packet before it */
	if (psn_before(r->una_psn, psn))
		r->una_psn = psn;
	r->off = (uint64_t)n * mtu;
	r->psn = psn;
	r->sent_all = false;
	req_arm_timer(qp);
	dev->stats.retries++;
}

/*
 * The retransmit timer expired.  Progress since the last expiry (a
 * sequence NAK further on, READ responses that arrived) resets the retry
 * count; a READ asks again for what has not arrived, anything else is
 * sent again from its first packet.  False: retries exhausted.
 */
bool comp_timeout(struct orca_dev *dev, struct orca_qp *qp)
{
	struct orca_req *r = &qp->req;
	uint32_t mtu = pmtu_bytes(qp->ctx.path_mtu);

	if (r->progress != r->progress_seen) {
		r->progress_seen = r->progress;
		r->retry_left = qp->ctx.retry_cnt;
	}
	if (!r->retry_left)
		return false;
	r->retry_left--;
	if (r->wqe.opcode == ORCA_WR_RDMA_READ && r->rd_off &&
	    r->rd_off % mtu == 0) {
		r->psn = (r->first_psn + r->rd_off / mtu) & PSN_MASK;
		r->sent_all = false;
		req_arm_timer(qp);
		dev->stats.retries++;
		return true;
	}
	rewind_wqe(dev, qp);
	r->probe = qp->ctx.qp_type == ORCA_QPT_RC;
	return true;
}

/*
 * An ACK of a SEND or WRITE: of its last packet, once that was sent, it
 * completes the WQE (also while the WQE is being sent again: the
 * responder had it all and only its ACK was lost); of an earlier packet
 * (one that asked, every ORCA_ACK_EVERY, or the answer to a probe) it
 * says the responder has everything up to it: the window moves, the
 * timer starts again for what is still out, and sending goes on after
 * it if it was behind.
 */
static void rx_ack(struct orca_dev *dev, struct orca_qp *qp,
		   const struct orca_pkt *p)
{
	struct orca_req *r = &qp->req;
	uint32_t mtu = pmtu_bytes(qp->ctx.path_mtu);
	uint32_t n = ((p->psn - r->first_psn) & PSN_MASK) + 1;
	uint32_t next = (p->psn + 1) & PSN_MASK;

	if (!is_send_or_write(r->wqe.opcode))
		return;
	if (r->sent_once && p->psn == r->last_psn) {
		comp_send_done(dev, qp, ORCA_CQE_SUCCESS, 0);
		return;
	}
	if ((uint64_t)n * mtu >= r->len)
		return;
	if (n > r->progress)
		r->progress = n;
	if (psn_before(r->una_psn, next)) {
		r->una_psn = next;
		req_arm_timer(qp);
	}
	if (psn_before(r->psn, next)) {
		r->psn = next;
		r->off = (uint64_t)n * mtu;
		r->sent_all = false;
	}
}

static void rx_nak(struct orca_dev *dev, struct orca_qp *qp,
		   const struct orca_pkt *p)
{
	struct orca_req *r = &qp->req;
	uint8_t code = p->syndrome & 0x1f;

	if ((p->syndrome & 0x60) == AETH_RNR_NAK) {
		if (r->rnr_wait)
			return;
		if (!r->rnr_left) {
			comp_send_done(dev, qp, ORCA_CQE_RNR_RETRY_EXC_ERR, code);
			return;
		}
		if (r->rnr_left != 7)	/* 7: retry for ever */
			r->rnr_left--;
		rewind_wqe(dev, qp);
		r->rnr_wait = true;
		r->deadline = dp_now_ns() + rnr_delay_ns(code);
		return;
	}
	switch (code) {
	case AETH_NAK_PSN_SEQ:
		/* an RNR NAK for the same message came first: it decides */
		if (!r->rnr_wait)
			resume_wqe(dev, qp, p->psn);
		return;
	case AETH_NAK_INV_REQ:
		comp_send_done(dev, qp, ORCA_CQE_REM_INV_REQ_ERR, code);
		return;
	case AETH_NAK_REM_ACCESS:
		comp_send_done(dev, qp, ORCA_CQE_REM_ACCESS_ERR, code);
		return;
	default:
		comp_send_done(dev, qp, ORCA_CQE_REM_OP_ERR, code);
		return;
	}
}

/* Scatter READ response data (or an atomic's result) into the WQE. */
static bool read_scatter(struct orca_dev *dev, struct orca_qp *qp,
			 uint64_t off, const uint8_t *buf, uint32_t len)
{
	struct orca_req *r = &qp->req;

	return sge_copy(dev, r->sge, r->wqe.num_sge, le32toh(qp->ctx.pdn),
			qp_rlkey(qp), MR_LOCAL_WRITE, off, (uint8_t *)buf, len, true,
			r->wqe.opcode == ORCA_WR_RDMA_READ ?
			dev->cfg.dio_rdma_read : ORCA_DIO_WHOLE_MSG);
}

void comp_rx(struct orca_dev *dev, struct orca_qp *qp, struct orca_pkt *p)
{
	struct orca_req *r = &qp->req;
	uint8_t op = p->opcode & 0x1f, wop = r->wqe.opcode;
	uint32_t mtu = pmtu_bytes(qp->ctx.path_mtu);

	if (qp->ctx.qp_type != ORCA_QPT_RC || !r->busy ||
	    (qp->ctx.state != ORCA_QPS_RTS && qp->ctx.state != ORCA_QPS_SQD &&
	     qp->ctx.state != ORCA_QPS_SQE)) {
		dev->stats.pkts_dropped++;
		return;
	}
	/* only responses to what was sent of the WQE in flight count */
	if (psn_before(p->psn, r->first_psn) ||
	    !psn_before(p->psn, r->high_psn)) {
		dev->stats.pkts_dropped++;
		return;
	}
	if (op == IB_ACK && (p->syndrome & 0x60) != AETH_ACK) {
		rx_nak(dev, qp, p);
		return;
	}
	if (r->rnr_wait)
		return;

	switch (op) {
	case IB_ACK:
		rx_ack(dev, qp, p);
		return;
	case IB_READ_RESP_FIRST:
	case IB_READ_RESP_MIDDLE:
	case IB_READ_RESP_LAST:
	case IB_READ_RESP_ONLY:
		/* an ATOMIC WRITE's answer: a READ response of no data */
		if (wop == ORCA_WR_ATOMIC_WRITE) {
			if (op != IB_READ_RESP_ONLY || p->paylen ||
			    p->psn != r->first_psn) {
				dev->stats.pkts_dropped++;
				return;
			}
			comp_send_done(dev, qp, ORCA_CQE_SUCCESS, 0);
			return;
		}
		if (wop != ORCA_WR_RDMA_READ ||
		    p->psn != ((r->first_psn + r->rd_off / mtu) & PSN_MASK) ||
		    p->paylen > r->len - r->rd_off) {
			dev->stats.pkts_dropped++;
			return;
		}
		if (!read_scatter(dev, qp, r->rd_off, orca_pkt_payload(p),
				  p->paylen)) {
			comp_send_done(dev, qp, ORCA_CQE_LOC_PROT_ERR, 4);
			return;
		}
		r->rd_off += p->paylen;
		r->progress++;
		/* the responder is answering: time the rest from now */
		req_arm_timer(qp);
		if (op == IB_READ_RESP_LAST || op == IB_READ_RESP_ONLY) {
			if (r->rd_off != r->len)
				comp_send_done(dev, qp, ORCA_CQE_BAD_RESP_ERR, 5);
			else
				comp_send_done(dev, qp, ORCA_CQE_SUCCESS, 0);
		}
		return;
	case IB_ATOMIC_ACK:
		if (wop != ORCA_WR_ATOMIC_CMP_AND_SWP &&
		    wop != ORCA_WR_ATOMIC_FETCH_AND_ADD) {
			dev->stats.pkts_dropped++;
			return;
		}
		/* the original value, native-endian as rxe returns it */
		if (!read_scatter(dev, qp, 0, (const uint8_t *)&p->orig, 8)) {
			comp_send_done(dev, qp, ORCA_CQE_LOC_PROT_ERR, 4);
			return;
		}
		comp_send_done(dev, qp, ORCA_CQE_SUCCESS, 0);
		return;
	}
	dev->stats.pkts_dropped++;
}
