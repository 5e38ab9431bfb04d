// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the requester.
 *
 * It takes the next send WQE when the QP is in RTS and nothing is in
 * flight, copies it out of the ring once and checks it against the QP
 * (opcode for the type, SGE count, inline size, local keys), then sends
 * it as request packets of at most the path MTU, one per engine step.
 * RC keeps at most ORCA_MAX_UNACKED_PSNS of them unacknowledged, asks
 * for an ACK every ORCA_ACK_EVERY packets, and waits for the responder's
 * ACK, READ response or atomic ACK (the completer); UC and UD complete
 * when the last packet is sent.
 */
#include "orca_mad.h"
#include "orca_xport.h"

static bool opcode_ok(uint8_t qp_type, uint8_t op)
{
	switch (op) {
	case ORCA_WR_SEND:
	case ORCA_WR_SEND_WITH_IMM:
		return true;
	case ORCA_WR_RDMA_WRITE:
	case ORCA_WR_RDMA_WRITE_WITH_IMM:
		return qp_type != ORCA_QPT_UD;
	case ORCA_WR_RDMA_READ:
	case ORCA_WR_ATOMIC_CMP_AND_SWP:
	case ORCA_WR_ATOMIC_FETCH_AND_ADD:
	case ORCA_WR_ATOMIC_WRITE:
	case ORCA_WR_SEND_WITH_INV:
		return qp_type == ORCA_QPT_RC;
	case ORCA_WR_BIND_MW:
	case ORCA_WR_REG_MR:
		return qp_type != ORCA_QPT_UD;
	case ORCA_WR_LOCAL_INV:
		return true;
	}
	return false;
}

/* Operations the device performs without a packet. */
static bool is_local(uint8_t op)
{
	return op == ORCA_WR_BIND_MW || op == ORCA_WR_LOCAL_INV ||
	       op == ORCA_WR_REG_MR;
}

static bool is_atomic(uint8_t op)
{
	return op == ORCA_WR_ATOMIC_CMP_AND_SWP ||
	       op == ORCA_WR_ATOMIC_FETCH_AND_ADD;
}

/* The requester's timeout: 4.096 us * 2^timeout; 0 = none. */
static uint64_t ack_timeout_ns(uint8_t t)
{
	return t ? 4096ULL << (t > 31 ? 31 : t) : 0;
}

/*
 * The timer runs from the oldest packet not acknowledged: armed when a
 * WQE's first packet goes, again whenever an ACK moves the window or a
 * retransmission starts (so that one the port cannot send yet still
 * counts against retry_cnt).
 */
void req_arm_timer(struct orca_qp *qp)
{
	uint64_t t = ack_timeout_ns(qp->ctx.timeout);

	qp->req.deadline = t ? dp_now_ns() + t : 0;
}

/*
 * Take WQE sq.ci: copy, check, account.  Returns false if it failed (its
 * error completion is done and the QP is in ERR).
 */
static bool req_take(struct orca_dev *dev, struct orca_qp *qp)
{
	struct orca_req *r = &qp->req;
	const struct orca_qp_ctx *x = &qp->ctx;
	uint32_t stride = 1U << qp->sq.log_stride, i;
	uint32_t hdr = sizeof(struct orca_send_wqe), body = stride - hdr;
	uint32_t pdn = le32toh(x->pdn);
	const uint8_t *w = sq_wqe(dev, qp, qp->sq.ci);
	uint8_t status = ORCA_CQE_SUCCESS;
	uint32_t need;
	uint64_t len = 0;

	r->busy = true;
	r->sent_all = r->rnr_wait = false;
	r->idx = qp->sq.ci++;
	r->off = r->rd_off = 0;
	r->progress = r->progress_seen = 0;
	r->sent_once = r->probe = false;
	r->deadline = 0;
	r->retry_left = x->retry_cnt;
	r->rnr_left = x->rnr_retry;
	dev->stats.wqes++;
	if (!dev->db_poster)
		dev->db_poster = le32toh(qp->ctx.qpn);
	if (!w) {
		memset(&r->wqe, 0, sizeof(r->wqe));
		comp_send_done(dev, qp, ORCA_CQE_LOC_QP_OP_ERR, 1);
		return false;
	}
	memcpy(&r->wqe, w, sizeof(r->wqe));
	if (!opcode_ok(x->qp_type, r->wqe.opcode) ||
	    (r->wqe.flags & ~(ORCA_WQE_F_SIGNALED | ORCA_WQE_F_SOLICITED |
			      ORCA_WQE_F_FENCE | ORCA_WQE_F_INLINE |
			      ORCA_WQE_F_UD_AV))) {
		status = ORCA_CQE_LOC_QP_OP_ERR;
		goto bad;
	}
	/* the address vector the WQE carries: checked as CREATE_AH does */
	if (r->wqe.flags & ORCA_WQE_F_UD_AV) {
		if (!qp_ud_av(qp) || r->wqe.ud_ah || body < sizeof(r->av)) {
			status = ORCA_CQE_LOC_QP_OP_ERR;
			goto bad;
		}
		memcpy(&r->av, w + hdr, sizeof(r->av));
		if (!ud_av_ok(dev, &r->av)) {
			status = ORCA_CQE_LOC_QP_OP_ERR;
			goto bad;
		}
		hdr += sizeof(r->av);
		body -= sizeof(r->av);
	}
	/* BIND_MW and LOCAL_INV carry no data */
	if (is_local(r->wqe.opcode) &&
	    (r->wqe.num_sge || (r->wqe.flags & ORCA_WQE_F_INLINE))) {
		status = ORCA_CQE_LOC_QP_OP_ERR;
		goto bad;
	}
	if (r->wqe.flags & ORCA_WQE_F_INLINE) {
		len = le32toh(r->wqe.inline_len);
		if (len > le32toh(x->max_inline_data) || len > body ||
		    r->wqe.num_sge || r->wqe.opcode == ORCA_WR_RDMA_READ ||
		    is_atomic(r->wqe.opcode)) {
			status = ORCA_CQE_LOC_QP_OP_ERR;
			goto bad;
		}
		memcpy(r->inl, w + hdr, len);
	} else {
		if (r->wqe.num_sge > le32toh(x->max_send_sge) ||
		    (r->wqe.opcode == ORCA_WR_RDMA_READ &&
		     r->wqe.num_sge > dev->cfg.max_sge_rd) ||
		    r->wqe.num_sge * sizeof(struct orca_sge) > body) {
			status = ORCA_CQE_LOC_QP_OP_ERR;
			goto bad;
		}
		memcpy(r->sge, w + hdr,
		       r->wqe.num_sge * sizeof(struct orca_sge));
		need = r->wqe.opcode == ORCA_WR_RDMA_READ ||
		       is_atomic(r->wqe.opcode) ? MR_LOCAL_WRITE : MR_LOCAL_READ;
		for (i = 0; i < r->wqe.num_sge; i++) {
			uint32_t l = le32toh(r->sge[i].length);

			len += l;
			if (l && !sge_mr(dev, le32toh(r->sge[i].lkey), pdn,
					 qp_rlkey(qp), need,
					 le64toh(r->sge[i].addr), l)) {
				status = ORCA_CQE_LOC_PROT_ERR;
				goto bad;
			}
		}
	}
	/* atomic_cap NONE: the device has no atomics to offer */
	if (is_atomic(r->wqe.opcode) &&
	    (r->wqe.num_sge != 1 || len < 8 ||
	     dev->cfg.atomic_cap == ORCA_ATOMIC_NONE)) {
		status = ORCA_CQE_LOC_QP_OP_ERR;
		goto bad;
	}
	if (is_atomic(r->wqe.opcode))
		len = 8;
	/* its 8 bytes are in the WQE: no SGE, no inline data */
	if (r->wqe.opcode == ORCA_WR_ATOMIC_WRITE) {
		if (r->wqe.num_sge || (r->wqe.flags & ORCA_WQE_F_INLINE) ||
		    !(dev->cfg.dev_caps & ORCA_DEV_CAP_ATOMIC_WRITE)) {
			status = ORCA_CQE_LOC_QP_OP_ERR;
			goto bad;
		}
		len = 8;
	}
	if (x->qp_type == ORCA_QPT_UD &&
	    !(r->wqe.flags & ORCA_WQE_F_UD_AV)) {
		uint32_t ahn = le32toh(r->wqe.ud_ah);

		/* an address handle of this QP's PD */
		if (!ahn || ahn > dev->cfg.max_ah || !dev->ahs[ahn].used ||
		    dev->ahs[ahn].pdn != pdn) {
			status = ORCA_CQE_LOC_QP_OP_ERR;
			goto bad;
		}
	}
	if (len > dev->cfg.max_msg_sz) {
		status = ORCA_CQE_LOC_LEN_ERR;
		goto bad;
	}
	r->len = len;
	r->first_psn = r->psn = r->high_psn = r->una_psn = r->next_psn;
	r->window_wait = false;
	return true;
bad:
	orca_log("QP %u: send WQE %u refused (opcode %u, flags 0x%x): status %u",
		 le32toh(x->qpn), r->idx, r->wqe.opcode, r->wqe.flags, status);
	comp_send_done(dev, qp, status, 2);
	return false;
}

/*
 * Gather @len bytes at message offset @off from the WQE (inline data or
 * SGEs, whose regions are checked again: a region may be gone since).
 */
static bool req_gather(struct orca_dev *dev, struct orca_qp *qp, uint64_t off,
		       uint8_t *buf, uint32_t len)
{
	struct orca_req *r = &qp->req;

	if (r->wqe.flags & ORCA_WQE_F_INLINE) {
		memcpy(buf, r->inl + off, len);
		return true;
	}
	return sge_copy(dev, r->sge, r->wqe.num_sge, le32toh(qp->ctx.pdn),
			qp_rlkey(qp), MR_LOCAL_READ, off, buf, len, false, 0);
}

/*
 * @len bytes of the WQE's data from byte @off as @p's payload: where they
 * lie in guest memory when in one piece (the link encodes the packet, or
 * makes the payload its own, before the engine's round ends), else
 * gathered into p->payload.
 */
static bool req_payload(struct orca_dev *dev, struct orca_qp *qp,
			uint64_t off, struct orca_pkt *p, uint32_t len)
{
	struct orca_req *r = &qp->req;

	if (!(r->wqe.flags & ORCA_WQE_F_INLINE)) {
		p->data = sge_borrow(dev, r->sge, r->wqe.num_sge,
				     le32toh(qp->ctx.pdn), qp_rlkey(qp),
				     MR_LOCAL_READ, off, len);
		if (p->data)
			return true;
	}
	return req_gather(dev, qp, off, p->payload, len);
}

static uint8_t transport(const struct orca_qp *qp)
{
	return qp->ctx.qp_type == ORCA_QPT_UC ? IB_UC : IB_RC;
}

/*
 * QP0 and QP1 (IBA 13.5.3, 14.2.2): QP0 sends on VL15 with the default
 * P_Key, and from the permissive LID while the port has no LID or the
 * packet is a directed-route SMP; QP1 sends with the P_Key the WQE's
 * index names.  False: that index is not in the table.
 */
static bool ud_special_address(struct orca_dev *dev, const struct orca_qp *qp,
			       uint16_t pkey_index, struct orca_pkt *p)
{
	const struct orca_cfg *g = &dev->cfg;

	switch (le32toh(qp->ctx.qpn)) {
	case 0:
		p->vl = ORCA_VL15;
		p->pkey = 0xffff;
		if (!g->lid || p->dlid == ORCA_LID_PERMISSIVE)
			p->slid = ORCA_LID_PERMISSIVE;
		return true;
	case 1:
		if (pkey_index >= g->n_pkey_table ||
		    !(g->pkey_table[pkey_index] & 0x7fff))
			return false;
		p->pkey = g->pkey_table[pkey_index];
		return true;
	}
	return true;
}

/*
 * UD: one SEND_ONLY from the address handle, with a DETH.  A message over
 * the port's MTU is not sent at all and still completes successfully
 * (IBTA C10-93.1.1: a UD requester does not report it).
 */
static bool req_ud(struct orca_dev *dev, struct orca_qp *qp)
{
	struct orca_req *r = &qp->req;
	const struct orca_av *av = r->wqe.flags & ORCA_WQE_F_UD_AV ? &r->av :
				   &dev->ahs[le32toh(r->wqe.ud_ah)].av;
	uint32_t qkey = le32toh(r->wqe.ud_remote_qkey);
	struct orca_pkt *p;

	if (r->len > pmtu_bytes(dev->cfg.active_mtu)) {
		r->sent_all = true;
		comp_send_done(dev, qp, ORCA_CQE_SUCCESS, 0);
		return true;
	}
	/*
	 * A full egress queue holds the send back, it does not lose it;
	 * QP0's SMPs (VL15) go before the data queued there, never behind.
	 */
	if (le32toh(qp->ctx.qpn) != 0 && !port_room(dev))
		return false;
	/*
	 * A host the policy says is no SM (cfg port_pin sm) sends no SMP:
	 * dropped at the port, as a fabric drops a VF's, and counted
	 */
	if (le32toh(qp->ctx.qpn) == 0 && (dev->cfg.port_pin & ORCA_PIN_SM)) {
		if (dev->mad)
			orca_mad_trap(dev->mad, 1, ORCA_VTRAP_PIN_QP0, NULL, 0);
		if (!(dev->pin.qp0_dropped++ & 0x3ff))
			orca_log("port 1: host policy (port_pin sm): QP0 sends dropped (%llu so far)",
				 (unsigned long long)dev->pin.qp0_dropped);
		r->sent_all = true;
		comp_send_done(dev, qp, ORCA_CQE_SUCCESS, 0);
		return true;
	}
	p = pkt_alloc(dev);
	if (!p)
		return false;
	if (!req_payload(dev, qp, 0, p, r->len)) {
		pkt_free(dev, p);
		comp_send_done(dev, qp, ORCA_CQE_LOC_PROT_ERR, 3);
		return true;
	}
	p->paylen = r->len;
	av_address(dev, av, p);
	p->pkey = qp_pkey(dev, qp);
	if (!ud_special_address(dev, qp, le16toh(r->wqe.ud_pkey_index), p)) {
		pkt_free(dev, p);
		comp_send_done(dev, qp, ORCA_CQE_LOC_QP_OP_ERR, 4);
		return true;
	}
	p->dqpn = le32toh(r->wqe.ud_remote_qpn);
	p->hdrs |= PKT_DETH;
	/* IBTA: a Q_Key with its high bit set means the QP's own */
	p->qkey = (qkey & 0x80000000U) ? le32toh(qp->ctx.qkey) : qkey;
	p->sqpn = le32toh(qp->ctx.qpn);
	p->opcode = IB_UD | (r->wqe.opcode == ORCA_WR_SEND_WITH_IMM ?
			     IB_SEND_ONLY_IMM : IB_SEND_ONLY);
	if (r->wqe.opcode == ORCA_WR_SEND_WITH_IMM) {
		p->hdrs |= PKT_IMM;
		memcpy(&p->imm, &r->wqe.imm_data, 4);
	}
	p->se = !!(r->wqe.flags & ORCA_WQE_F_SOLICITED);
	p->psn = r->psn;
	r->psn = r->next_psn = (r->psn + 1) & PSN_MASK;
	r->sent_all = true;
	port_xmit(dev, p);
	comp_send_done(dev, qp, ORCA_CQE_SUCCESS, 0);
	return true;
}

/*
 * RC SEND and WRITE: room in the send window for one more packet?  A
 * READ, an atomic or an ATOMIC WRITE is one request packet.
 */
static bool req_window_open(struct orca_dev *dev, struct orca_qp *qp)
{
	struct orca_req *r = &qp->req;
	uint8_t op = r->wqe.opcode;

	if (qp->ctx.qp_type != ORCA_QPT_RC || op == ORCA_WR_RDMA_READ ||
	    is_atomic(op) || op == ORCA_WR_ATOMIC_WRITE ||
	    psn_before(r->psn, r->una_psn) ||
	    ((r->psn - r->una_psn) & PSN_MASK) <
	    port_window(dev, le16toh(qp->ctx.av.dlid))) {
		r->window_wait = false;
		return true;
	}
	/* an ACK (or the timer) opens it again: count the stop once */
	if (!r->window_wait) {
		r->window_wait = true;
		dev->stats.window_waits++;
	}
	return false;
}

/* One request packet of the WQE in flight. */
static bool req_packet(struct orca_dev *dev, struct orca_qp *qp)
{
	struct orca_req *r = &qp->req;
	uint32_t mtu = pmtu_bytes(qp->ctx.path_mtu);
	uint64_t npkts;
	uint8_t op = r->wqe.opcode;
	bool first = !r->off, last;
	struct orca_pkt *p;
	uint32_t chunk;

	if (!req_window_open(dev, qp) || !port_room(dev))
		return false;
	p = pkt_alloc(dev);
	if (!p)
		return false;	/* host out of memory: try again later */
	qp_address(dev, qp, p);
	p->psn = r->psn;

	switch (op) {
	case ORCA_WR_RDMA_READ:
		/* again after a loss: only what has not arrived (rd_off) */
		p->opcode = IB_READ_REQ;
		p->hdrs |= PKT_RETH;
		p->va = le64toh(r->wqe.remote_addr) + r->rd_off;
		p->rkey = le32toh(r->wqe.rkey);
		p->dmalen = r->len - r->rd_off;
		/* 64-bit: dmalen + mtu - 1 must not wrap */
		npkts = p->dmalen ? ((uint64_t)p->dmalen + mtu - 1) / mtu : 1;
		r->last_psn = (r->psn + npkts - 1) & PSN_MASK;
		r->psn = (r->last_psn + 1) & PSN_MASK;
		r->sent_all = true;
		break;
	case ORCA_WR_ATOMIC_CMP_AND_SWP:
	case ORCA_WR_ATOMIC_FETCH_AND_ADD:
		p->opcode = op == ORCA_WR_ATOMIC_CMP_AND_SWP ? IB_CMP_SWAP :
							      IB_FETCH_ADD;
		p->hdrs |= PKT_ATOMIC;
		p->va = le64toh(r->wqe.remote_addr);
		p->rkey = le32toh(r->wqe.rkey);
		p->swap_add = le64toh(op == ORCA_WR_ATOMIC_CMP_AND_SWP ?
				      r->wqe.swap : r->wqe.compare_add);
		p->compare = le64toh(r->wqe.compare_add);
		r->last_psn = r->psn;
		r->psn = (r->psn + 1) & PSN_MASK;
		r->sent_all = true;
		break;
	case ORCA_WR_ATOMIC_WRITE:
		p->opcode = IB_ATOMIC_WRITE;
		p->hdrs |= PKT_RETH;
		p->va = le64toh(r->wqe.remote_addr);
		p->rkey = le32toh(r->wqe.rkey);
		p->dmalen = 8;
		/* the bytes as the consumer gave them: no byte order */
		memcpy(p->payload, &r->wqe.compare_add, 8);
		p->paylen = 8;
		r->last_psn = r->psn;
		r->psn = (r->psn + 1) & PSN_MASK;
		r->sent_all = true;
		break;
	default:
		chunk = r->len - r->off < mtu ? r->len - r->off : mtu;
		last = r->off + chunk == r->len;
		if (!req_payload(dev, qp, r->off, p, chunk)) {
			pkt_free(dev, p);
			comp_send_done(dev, qp, ORCA_CQE_LOC_PROT_ERR, 3);
			return true;
		}
		p->paylen = chunk;
		if (op == ORCA_WR_SEND_WITH_INV) {
			p->opcode = first && last ? IB_SEND_ONLY_INV :
				    first ? IB_SEND_FIRST :
				    last ? IB_SEND_LAST_INV : IB_SEND_MIDDLE;
			if (last) {
				p->hdrs |= PKT_IETH;
				p->inv_rkey = le32toh(r->wqe.rkey);
			}
		} else if (op == ORCA_WR_SEND || op == ORCA_WR_SEND_WITH_IMM) {
			bool imm = op == ORCA_WR_SEND_WITH_IMM;

			p->opcode = first && last ?
				(imm ? IB_SEND_ONLY_IMM : IB_SEND_ONLY) :
				first ? IB_SEND_FIRST :
				last ? (imm ? IB_SEND_LAST_IMM : IB_SEND_LAST) :
				IB_SEND_MIDDLE;
		} else {
			bool imm = op == ORCA_WR_RDMA_WRITE_WITH_IMM;

			p->opcode = first && last ?
				(imm ? IB_WRITE_ONLY_IMM : IB_WRITE_ONLY) :
				first ? IB_WRITE_FIRST :
				last ? (imm ? IB_WRITE_LAST_IMM : IB_WRITE_LAST) :
				IB_WRITE_MIDDLE;
			if (first) {
				p->hdrs |= PKT_RETH;
				p->va = le64toh(r->wqe.remote_addr);
				p->rkey = le32toh(r->wqe.rkey);
				p->dmalen = r->len;
			}
		}
		if (last && (op == ORCA_WR_SEND_WITH_IMM ||
			     op == ORCA_WR_RDMA_WRITE_WITH_IMM)) {
			p->hdrs |= PKT_IMM;
			memcpy(&p->imm, &r->wqe.imm_data, 4);
		}
		if (last) {
			p->se = !!(r->wqe.flags & ORCA_WQE_F_SOLICITED);
			r->last_psn = r->psn;
			r->sent_all = true;
		}
		r->off += chunk;
		r->psn = (r->psn + 1) & PSN_MASK;
		break;
	}
	p->opcode |= transport(qp);
	/*
	 * After a timeout, the first packet asks where the responder is;
	 * RC asks every ORCA_ACK_EVERY packets, so that the window moves.
	 */
	p->ackreq = r->sent_all || r->probe ||
		    (qp->ctx.qp_type == ORCA_QPT_RC &&
		     ((p->psn - r->first_psn + 1) & PSN_MASK) %
		     ORCA_ACK_EVERY == 0);
	r->probe = false;
	if (psn_before(r->high_psn, r->psn))
		r->high_psn = r->psn;
	port_xmit(dev, p);

	if (qp->ctx.qp_type == ORCA_QPT_RC && !r->deadline)
		req_arm_timer(qp);
	if (r->sent_all) {
		r->sent_once = true;
		r->next_psn = r->psn;
		if (qp->ctx.qp_type != ORCA_QPT_RC)
			comp_send_done(dev, qp, ORCA_CQE_SUCCESS, 0);
	}
	return true;
}

/*
 * BIND_MW, REG_MR and LOCAL_INV: done when taken.  One WQE is in flight
 * at a time, so every WQE before it has completed (a fence changes
 * nothing).
 */
static void req_local(struct orca_dev *dev, struct orca_qp *qp)
{
	struct orca_req *r = &qp->req;
	struct orca_bind_wqe b;
	struct orca_reg_wqe g;
	uint8_t status;

	r->sent_all = true;
	if (r->wqe.opcode == ORCA_WR_BIND_MW) {
		memcpy(&b, &r->wqe, sizeof(b));
		status = mw_bind(dev, qp, &b);
	} else if (r->wqe.opcode == ORCA_WR_REG_MR) {
		memcpy(&g, &r->wqe, sizeof(g));
		status = mr_fast_reg(dev, qp, &g);
	} else {
		status = local_inv(dev, qp, le32toh(r->wqe.rkey));
	}
	comp_send_done(dev, qp, status, status ? 6 : 0);
}

/* One step of the requester; true if it did something. */
bool req_step(struct orca_dev *dev, struct orca_qp *qp)
{
	struct orca_req *r = &qp->req;
	uint8_t st = qp->ctx.state;
	uint32_t pi;
	bool ok;

	if (!qp->sq.present)
		return false;
	if (!r->busy) {
		/* SQD and SQE take nothing new */
		if (st != ORCA_QPS_RTS)
			return false;
		pi = qp_sq_pi(dev, qp, &ok);
		if (!ok || pi == qp->sq.ci)
			return false;
		if (pi - qp->sq.ci > (1U << qp->sq.log_depth)) {
			orca_log("QP %u: SQ producer index %u is %u past the consumer (depth %u)",
				 le32toh(qp->ctx.qpn), pi, pi - qp->sq.ci,
				 1U << qp->sq.log_depth);
			qp_error(dev, qp, "SQ overrun");
			return true;
		}
		/* FENCE waits for nothing here: one WQE is in flight at most */
		if (!req_take(dev, qp))
			return true;
		if (is_local(r->wqe.opcode)) {
			req_local(dev, qp);
			return true;
		}
	}
	if (r->sent_all || r->rnr_wait ||
	    (st != ORCA_QPS_RTS && st != ORCA_QPS_SQD))
		return false;
	if (qp->ctx.qp_type == ORCA_QPT_UD)
		return req_ud(dev, qp);
	return req_packet(dev, qp);
}
