// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the completer, and what ends a QP.
 *
 * The completer matches RC responses to the WQE in flight: an ACK of its
 * last PSN completes a SEND or WRITE, READ responses are scattered into
 * its SGEs, an atomic ACK returns the original value.  An RNR NAK arms the
 * RNR timer, a sequence NAK rewinds at once, the other NAKs complete the
 * WQE with the remote error the IBTA maps them to.  An error completion
 * moves an RC QP to ERR, which flushes every WQE still queued, and a UC
 * or UD QP to SQE, which flushes its send queue only.
 */
#include "orca_dp.h"

static void cqe_common(struct orca_cqe *cqe, const struct orca_qp *qp,
		       uint32_t idx, uint8_t status, uint8_t opcode)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe->qpn = qp->ctx.qpn;
	cqe->wqe_idx = htole32(idx);
	cqe->status = status;
	cqe->opcode = opcode;
	cqe->pkey_index = qp->ctx.pkey_index;
}

/* A CQE that cannot be posted (CQ overrun) ends the QP too. */
static void post_or_fail(struct orca_dev *dev, struct orca_qp *qp,
			 uint32_t cqn, struct orca_cqe *cqe, bool solicited)
{
	if (!cq_post(dev, cqn, cqe, solicited) &&
	    qp->ctx.state != ORCA_QPS_ERR)
		qp_error(dev, qp, "CQ overrun or unusable");
}

bool recv_cqe(struct orca_dev *dev, struct orca_qp *qp, uint32_t wqe_idx,
	      uint8_t status, uint8_t opcode, uint32_t byte_len,
	      const struct orca_pkt *p)
{
	struct orca_cqe cqe;

	cqe_common(&cqe, qp, wqe_idx, status, opcode);
	cqe.byte_len = htole32(byte_len);
	if (p) {
		/* UD: the sender's QP from the DETH; RC/UC: the connected one */
		cqe.src_qp = (p->hdrs & PKT_DETH) ? htole32(p->sqpn) :
						    qp->ctx.dest_qpn;
		if (p->hdrs & PKT_GRH)
			cqe.flags |= ORCA_CQE_F_GRH;
		cqe.slid = htole16(p->slid);
		cqe.sl = p->sl;
		if (status == ORCA_CQE_SUCCESS && (p->hdrs & PKT_IMM)) {
			cqe.flags |= ORCA_CQE_F_IMM;
			memcpy(&cqe.imm_data, &p->imm, 4);
		}
		if (status == ORCA_CQE_SUCCESS && (p->hdrs & PKT_IETH)) {
			cqe.flags |= ORCA_CQE_F_INV;
			cqe.inv_rkey = htole32(p->inv_rkey);
		}
	}
	if (qp->resp.rwqe_srq)
		cqe.flags |= ORCA_CQE_F_SRQ;
	if (status)
		cqe.vendor_err = 1;
	/* IBTA: a receive is solicited when the message's last packet had SE */
	post_or_fail(dev, qp, le32toh(qp->ctx.recv_cqn), &cqe, p && p->se);
	return true;
}

/* The WQE in flight is done with @status. */
void comp_send_done(struct orca_dev *dev, struct orca_qp *qp, uint8_t status,
		    uint32_t vendor_err)
{
	struct orca_req *r = &qp->req;
	struct orca_cqe cqe;
	uint8_t op = r->wqe.opcode;

	if (!r->busy)
		return;
	r->busy = false;
	r->deadline = 0;
	r->rnr_wait = false;
	qp->sq_una = r->idx + 1;
	if (status || qp->ctx.sq_sig_all ||
	    (r->wqe.flags & ORCA_WQE_F_SIGNALED)) {
		cqe_common(&cqe, qp, r->idx, status, wr_to_cqe_opcode(op));
		cqe.flags = ORCA_CQE_F_SQ;
		cqe.vendor_err = vendor_err;
		if (!status)
			cqe.byte_len = htole32(r->len);
		post_or_fail(dev, qp, le32toh(qp->ctx.send_cqn), &cqe, false);
	}
	if (status && status != ORCA_CQE_WR_FLUSH_ERR) {
		char why[64];

		snprintf(why, sizeof(why), "send WQE %u completed with status %u",
			 r->idx, status);
		/* IBA: a UC or UD send error stops the send queue only */
		if (qp->ctx.qp_type == ORCA_QPT_RC)
			qp_error(dev, qp, why);
		else
			qp_sq_error(dev, qp, why);
	}
}

/*
 * The SRQ WQE a QP took and has not completed (a message in progress):
 * it no longer is in the SRQ, so it completes with WR_FLUSH_ERR on this
 * QP when the QP ends (ERR, RESET, destroy).
 */
void rwqe_flush(struct orca_dev *dev, struct orca_qp *qp)
{
	struct orca_cqe cqe;

	if (!qp->resp.have_rwqe || !qp->resp.rwqe_srq)
		return;
	cqe_common(&cqe, qp, qp->resp.rwqe_idx, ORCA_CQE_WR_FLUSH_ERR,
		   ORCA_CQE_OP_RECV);
	cqe.flags = ORCA_CQE_F_SRQ;
	cq_post(dev, le32toh(qp->ctx.recv_cqn), &cqe, false);
	qp->resp.have_rwqe = false;
}

/*
 * Flush what is queued on an ERR QP: the WQE in flight, every send WQE
 * not taken and every receive WQE, each with WR_FLUSH_ERR whether it was
 * signaled or not.  Called again for WQEs posted while in ERR.  The WQEs
 * still in a QP's SRQ belong to the SRQ: only the one it took is flushed.
 */
bool sq_flush(struct orca_dev *dev, struct orca_qp *qp)
{
	struct orca_cqe cqe;
	bool did = false, ok;
	uint32_t pi;

	if (qp->req.busy) {
		comp_send_done(dev, qp, ORCA_CQE_WR_FLUSH_ERR, 0);
		did = true;
	}
	if (!qp->sq.present)
		return did;
	pi = qp_sq_pi(dev, qp, &ok);
	if (pi - qp->sq.ci > (1U << qp->sq.log_depth))
		pi = qp->sq.ci;		/* garbage: nothing to flush */
	for (; ok && qp->sq.ci != pi; qp->sq.ci++) {
		const struct orca_send_wqe *w = sq_wqe(dev, qp, qp->sq.ci);

		cqe_common(&cqe, qp, qp->sq.ci, ORCA_CQE_WR_FLUSH_ERR,
			   wr_to_cqe_opcode(w ? w->opcode : 0));
		cqe.flags = ORCA_CQE_F_SQ;
		cq_post(dev, le32toh(qp->ctx.send_cqn), &cqe, false);
		qp->sq_una = qp->sq.ci + 1;
		did = true;
	}
	return did;
}

bool qp_flush(struct orca_dev *dev, struct orca_qp *qp)
{
	struct orca_cqe cqe;
	bool did, ok;
	uint32_t pi;

	did = sq_flush(dev, qp);
	if (qp->resp.have_rwqe && qp->resp.rwqe_srq) {
		rwqe_flush(dev, qp);
		did = true;
	}
	if (qp->rq.present) {
		pi = qp_rq_pi(dev, qp, &ok);
		if (pi - qp->rq.ci > (1U << qp->rq.log_depth))
			pi = qp->rq.ci;
		for (; ok && qp->rq.ci != pi; qp->rq.ci++) {
			cqe_common(&cqe, qp, qp->rq.ci, ORCA_CQE_WR_FLUSH_ERR,
				   ORCA_CQE_OP_RECV);
			cq_post(dev, le32toh(qp->ctx.recv_cqn), &cqe, false);
			did = true;
		}
		qp->resp.have_rwqe = false;
	}
	return did;
}

/* The device moves the QP to ERR: mirror first, then flush. */
void qp_error(struct orca_dev *dev, struct orca_qp *qp, const char *why)
{
	if (qp->ctx.state == ORCA_QPS_ERR || qp->ctx.state == ORCA_QPS_RESET)
		return;
	orca_log("QP %u: %s -> ERR: %s", le32toh(qp->ctx.qpn),
		 orca_qps_name(qp->ctx.state), why);
	if (qp->ctx.sq_draining) {
		qp->ctx.sq_draining = 0;
		dev->n_draining--;
	}
	qp->ctx.state = ORCA_QPS_ERR;
	rd_res_stop(qp);
	mirror_write(dev, le32toh(qp->ctx.qpn), &qp->ctx);
	qp_err_entered(dev, qp);
}

/*
 * A UC or UD send WQE completed in error (IBA ch. 10, Send Queue Error):
 * the QP goes to SQE, mirror first, and its send queue is flushed, now
 * and for what is posted until SQE -> RTS.  The receive side (RQ, SRQ)
 * goes on as before.  Only from RTS and SQD: a QP the CQE's own overrun
 * moved to ERR stays there.
 */
void qp_sq_error(struct orca_dev *dev, struct orca_qp *qp, const char *why)
{
	uint32_t qpn = le32toh(qp->ctx.qpn);

	if (qp->ctx.state != ORCA_QPS_RTS && qp->ctx.state != ORCA_QPS_SQD)
		return;
	orca_log("QP %u: %s -> SQE: %s", qpn, orca_qps_name(qp->ctx.state),
		 why);
	if (qp->ctx.sq_draining) {
		qp->ctx.sq_draining = 0;
		dev->n_draining--;
	}
	qp->ctx.state = ORCA_QPS_SQE;
	/* the event, as the sq-error hook's, carries the state to the driver */
	post_qp_event(dev, qpn, ORCA_QP_EV_SQ_ERROR, ORCA_QPS_SQE,
		      mirror_write(dev, qpn, &qp->ctx));
	sq_flush(dev, qp);
}

/*
 * A QP has just entered ERR (mirror written): flush it, and if it takes
 * receives from an SRQ, tell the consumer that its last WQE is done
 * (IBTA 11.6.3.4, Last WQE Reached: after the WQE it was working on, if
 * any, completed in error), so that it may destroy the QP.
 */
void qp_err_entered(struct orca_dev *dev, struct orca_qp *qp)
{
	uint32_t qpn = le32toh(qp->ctx.qpn);

	qp_flush(dev, qp);
	if (qp->ctx.srqn)
		post_qp_event(dev, qpn, ORCA_QP_EV_LAST_WQE_REACHED,
			      ORCA_QPS_ERR, dev->mirror_seq[qpn]);
}

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
	    op == ORCA_WR_ATOMIC_FETCH_AND_ADD || !n ||
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
			MR_LOCAL_WRITE, off, (uint8_t *)buf, len, true,
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
		if (wop != ORCA_WR_RDMA_READ ||
		    p->psn != ((r->first_psn + r->rd_off / mtu) & PSN_MASK) ||
		    p->paylen > r->len - r->rd_off) {
			dev->stats.pkts_dropped++;
			return;
		}
		if (!read_scatter(dev, qp, r->rd_off, p->payload, p->paylen)) {
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
