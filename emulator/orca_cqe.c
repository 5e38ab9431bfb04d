// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: completions, and what ends a QP.
 *
 * Every CQE of the transport is written here: a receive's, a send WQE's
 * (when the completer or the requester is done with it), and the
 * WR_FLUSH_ERR of every WQE still queued when a QP ends.  An error
 * completion moves an RC QP to ERR, which flushes every WQE still
 * queued, and a UC or UD QP to SQE, which flushes its send queue only.
 * A MODIFY_QP to RESET or ERR comes here for the same work.
 */
#include "orca_xport.h"

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
		/* which of the port's 2^LMC LIDs it was sent to */
		if (p->dlid >= dev->cfg.lid &&
		    p->dlid - dev->cfg.lid < (1U << dev->cfg.lmc))
			cqe.dlid_path_bits = p->dlid - dev->cfg.lid;
		/*
		 * QP1 answers in the partition the request came in (port_rx()
		 * took it only if the table has it); QP0 has no P_Key
		 */
		if (le32toh(qp->ctx.qpn) == 1)
			cqe.pkey_index = htole16(pkey_index_of(dev, p->pkey));
		if (le32toh(qp->ctx.qpn) == 0)
			cqe.pkey_index = 0;
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

/* RESET: the queues start over at index 0 (the provider's too). */
void dp_qp_reset(struct orca_qp *qp)
{
	qp->sq.ci = qp->rq.ci = 0;
	qp->sq_una = 0;
	memset(&qp->req, 0, sizeof(qp->req));
	memset(&qp->resp, 0, sizeof(qp->resp));
	rd_res_clear(qp);
}

/* After a MODIFY_QP moved the QP from @old to its current state. */
void dp_qp_state(struct orca_dev *dev, struct orca_qp *qp, unsigned int old)
{
	unsigned int st = qp->ctx.state;

	if (st == ORCA_QPS_RESET) {
		rwqe_flush(dev, qp);
		dp_qp_reset(qp);
		return;
	}
	if (st == ORCA_QPS_ERR) {
		rd_res_stop(qp);
		if (old != ORCA_QPS_ERR)
			qp_err_entered(dev, qp);
		else
			qp_flush(dev, qp);
		return;
	}
	if (old == ORCA_QPS_INIT && st == ORCA_QPS_RTR)
		qp->resp.epsn = le32toh(qp->ctx.rq_psn) & PSN_MASK;
	if (old == ORCA_QPS_RTR && st == ORCA_QPS_RTS)
		qp->req.next_psn = le32toh(qp->ctx.sq_psn) & PSN_MASK;
}
