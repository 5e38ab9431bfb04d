// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs of kernel consumers.  One buffer in the provider's format
 * (orca_hw_io.h): the send queue at offset 0, the receive queue after it,
 * the doorbell record last.  post_send and post_recv write WQEs as the
 * provider does, publish the producer index and kick the device.  Their
 * SGEs carry DMA addresses with ib_core's local_dma_lkey, the reserved
 * lkey, which the device honours on these QPs only
 * (ORCA_QP_CREATE_RESERVED_LKEY).
 */

#include "orca.h"

/* The device rounds the caps up to powers of two, and so do we. */
static u32 orca_pow2_up(u32 v)
{
	return v ? 1U << orca_ilog2_up(v) : 0;
}

static int orca_kwq_init(struct orca_kwq *wq, u32 wr, u8 log_stride)
{
	spin_lock_init(&wq->lock);
	wq->depth = wr;
	wq->log_stride = log_stride;
	wq->head = 0;
	wq->tail = 0;
	wq->wrid = kcalloc(wr ? wr : 1, sizeof(*wq->wrid), GFP_KERNEL);
	return wq->wrid ? 0 : -ENOMEM;
}

/**
 * orca_kqp_create - the rings of a kernel QP, before CREATE_QP
 * @dev: device
 * @qp: the QP
 * @init_attr: as ib_create_qp() gave it
 * @in: the command; its geometry and ring are filled
 * @buf: the ring's page list, freed by the caller after the command
 *
 * Return: 0, -EINVAL for caps no ring can hold, -EOPNOTSUPP on a device
 * without the reserved lkey, or -ENOMEM.
 */
int orca_kqp_create(struct orca_dev *dev, struct orca_qp *qp,
		    struct ib_qp_init_attr *init_attr,
		    struct orca_create_qp_in *in, struct orca_pbl_buf *buf)
{
	const struct ib_qp_cap *cap = &init_attr->cap;
	size_t sq_bytes = 0, rq_bytes = 0, rq_off, db_off;
	u32 swr, rwr, inl, av_sges = 0;
	int err;

	/* no WQE crosses a page of the ring (orca_kbuf_ptr()) */
	BUILD_BUG_ON(BIT(ORCA_SQ_MAX_LOG_STRIDE) > PAGE_SIZE ||
		     BIT(ORCA_RQ_MAX_LOG_STRIDE) > PAGE_SIZE);
	if (!(dev->attr.kernel_cap_flags & IBK_LOCAL_DMA_LKEY))
		return -EOPNOTSUPP;
	if (cap->max_send_wr > dev->attr.max_qp_wr ||
	    cap->max_recv_wr > dev->attr.max_qp_wr ||
	    cap->max_inline_data > le32_to_cpu(dev->caps.max_inline_data))
		return -EINVAL;
	swr = orca_pow2_up(cap->max_send_wr);
	rwr = init_attr->srq ? 0 : orca_pow2_up(cap->max_recv_wr);
	inl = ALIGN(cap->max_inline_data, 16);
	/* kernel AHs: the AV rides in the WQE, two SGEs' worth */
	if (orca_qpt_is_ud(init_attr->qp_type) &&
	    (le32_to_cpu(dev->caps.dev_caps) & ORCA_DEV_CAP_UD_AV)) {
		in->create_flags |= cpu_to_le32(ORCA_QP_CREATE_UD_AV);
		qp->ud_av = true;
		av_sges = sizeof(struct orca_av) / sizeof(struct orca_sge);
	}
	if (swr) {
		in->sq_log_depth = ilog2(swr);
		in->sq_log_stride =
			orca_sq_log_stride(cap->max_send_sge + av_sges,
					   inl + av_sges * sizeof(struct orca_sge));
		if (in->sq_log_stride > ORCA_SQ_MAX_LOG_STRIDE)
			return -EINVAL;
		sq_bytes = (size_t)swr << in->sq_log_stride;
	}
	rq_off = sq_bytes;
	if (rwr) {
		in->rq_log_depth = ilog2(rwr);
		in->rq_log_stride = orca_rq_log_stride(cap->max_recv_sge);
		if (in->rq_log_stride > ORCA_RQ_MAX_LOG_STRIDE)
			return -EINVAL;
		rq_off = ALIGN(sq_bytes, BIT(in->rq_log_stride));
		rq_bytes = (size_t)rwr << in->rq_log_stride;
	}
	db_off = ALIGN(rq_off + rq_bytes, 64);
	if (db_off > U32_MAX - sizeof(struct orca_qp_dbrec))
		return -EINVAL;

	err = orca_kwq_init(&qp->sq, swr, in->sq_log_stride);
	if (!err)
		err = orca_kwq_init(&qp->rq, rwr, in->rq_log_stride);
	if (!err)
		err = orca_kbuf_alloc(dev, &qp->kbuf,
				      db_off + sizeof(struct orca_qp_dbrec),
				      &in->ring, buf);
	if (err) {
		kfree(qp->sq.wrid);
		kfree(qp->rq.wrid);
		return err;
	}
	qp->kernel = true;
	qp->sq.kbuf = &qp->kbuf;
	qp->sq.off = 0;
	qp->rq.kbuf = &qp->kbuf;
	qp->rq.off = rq_off;
	qp->dbrec = orca_kbuf_ptr(&qp->kbuf, db_off);
	in->rq_off = cpu_to_le32(rq_off);
	in->dbrec_off = cpu_to_le32(db_off);
	in->create_flags |= cpu_to_le32(ORCA_QP_CREATE_RESERVED_LKEY);
	/* IB_WR_REG_MR on the connected types, where ULPs use it */
	if ((init_attr->qp_type == IB_QPT_RC ||
	     init_attr->qp_type == IB_QPT_UC) &&
	    dev->attr.max_fast_reg_page_list_len) {
		in->create_flags |= cpu_to_le32(ORCA_QP_CREATE_FAST_REG);
		qp->fast_reg = true;
	}
	qp->rq_off = rq_off;
	qp->dbrec_off = db_off;
	INIT_LIST_HEAD(&qp->sq_node);
	INIT_LIST_HEAD(&qp->rq_node);
	return 0;
}

/* After CREATE_QP: the caps the device applied are the limits posts keep. */
void orca_kqp_setup(struct orca_qp *qp, const struct ib_qp_init_attr *attr)
{
	qp->sq.max_wr = attr->cap.max_send_wr;
	qp->sq.max_sge = attr->cap.max_send_sge;
	qp->rq.max_wr = attr->cap.max_recv_wr;
	qp->rq.max_sge = attr->cap.max_recv_sge;
	qp->max_inline = attr->cap.max_inline_data;
	qp->sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	orca_kcq_attach(qp);
}

/* The device destroyed the QP (or never created it). */
void orca_kqp_destroy(struct orca_dev *dev, struct orca_qp *qp)
{
	orca_kbuf_release(dev, &qp->kbuf);
	kfree(qp->sq.wrid);
	kfree(qp->rq.wrid);
	qp->sq.wrid = NULL;
	qp->rq.wrid = NULL;
	qp->dbrec = NULL;
}

/*
 * RESET: the device starts over at index 0, and so do we, with none of
 * the old WQEs' CQEs left to name those indices.
 */
void orca_kqp_reset(struct orca_qp *qp)
{
	unsigned long flags;

	orca_kcq_reset(qp);
	spin_lock_irqsave(&qp->sq.lock, flags);
	/* the same class as the SQ's: always taken after it */
	spin_lock_nested(&qp->rq.lock, SINGLE_DEPTH_NESTING);
	qp->sq.head = 0;
	qp->sq.tail = 0;
	qp->rq.head = 0;
	qp->rq.tail = 0;
	WRITE_ONCE(qp->dbrec->sq_pi, 0);
	WRITE_ONCE(qp->dbrec->rq_pi, 0);
	spin_unlock(&qp->rq.lock);
	spin_unlock_irqrestore(&qp->sq.lock, flags);
}

static u8 orca_wr_opcode(enum ib_qp_type type, enum ib_wr_opcode op)
{
	if (orca_qpt_is_ud(type))
		type = IB_QPT_UD;
	switch (op) {
	case IB_WR_SEND:
		return ORCA_WR_SEND;
	case IB_WR_SEND_WITH_IMM:
		return ORCA_WR_SEND_WITH_IMM;
	case IB_WR_RDMA_WRITE:
		return type == IB_QPT_UD ? 0 : ORCA_WR_RDMA_WRITE;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return type == IB_QPT_UD ? 0 : ORCA_WR_RDMA_WRITE_WITH_IMM;
	case IB_WR_RDMA_READ:
		return type == IB_QPT_RC ? ORCA_WR_RDMA_READ : 0;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return type == IB_QPT_RC ? ORCA_WR_ATOMIC_CMP_AND_SWP : 0;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return type == IB_QPT_RC ? ORCA_WR_ATOMIC_FETCH_AND_ADD : 0;
	case IB_WR_SEND_WITH_INV:
		return type == IB_QPT_RC ? ORCA_WR_SEND_WITH_INV : 0;
	case IB_WR_LOCAL_INV:
		return type == IB_QPT_UD ? 0 : ORCA_WR_LOCAL_INV;
	default:
		return 0;
	}
}

/* Inline data: the bytes of the SGEs, which are kernel virtual addresses. */
static int orca_kwqe_inline(struct orca_qp *qp, const struct ib_send_wr *wr,
			    struct orca_send_wqe *w, u8 *dst)
{
	u32 len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		if (wr->sg_list[i].length > qp->max_inline - len)
			return -EINVAL;
		len += wr->sg_list[i].length;
	}
	for (i = 0; i < wr->num_sge; i++) {
		memcpy(dst, (void *)(uintptr_t)wr->sg_list[i].addr,
		       wr->sg_list[i].length);
		dst += wr->sg_list[i].length;
	}
	w->flags |= ORCA_WQE_F_INLINE;
	w->inline_len = cpu_to_le32(len);
	return 0;
}

/* The WQE flags a work request's send_flags ask for. */
u8 orca_kwqe_flags(const struct orca_qp *qp, const struct ib_send_wr *wr)
{
	u8 flags = 0;

	if ((wr->send_flags & IB_SEND_SIGNALED) || qp->sig_all)
		flags |= ORCA_WQE_F_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		flags |= ORCA_WQE_F_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		flags |= ORCA_WQE_F_FENCE;
	return flags;
}

static int orca_kwqe_send(struct orca_qp *qp, const struct ib_send_wr *wr,
			  struct orca_send_wqe *w)
{
	enum ib_qp_type type = qp->ibqp.qp_type;
	u8 *body = (u8 *)(w + 1);
	u8 op = orca_wr_opcode(type, wr->opcode);
	struct orca_sge *sge;
	int i;

	if (!op || wr->num_sge < 0)
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->opcode = op;
	w->flags = orca_kwqe_flags(qp, wr);
	switch (op) {
	case ORCA_WR_LOCAL_INV:
		w->rkey = cpu_to_le32(wr->ex.invalidate_rkey);
		return 0;
	case ORCA_WR_SEND_WITH_INV:
		w->rkey = cpu_to_le32(wr->ex.invalidate_rkey);
		break;
	case ORCA_WR_SEND_WITH_IMM:
	case ORCA_WR_RDMA_WRITE_WITH_IMM:
		w->imm_data = wr->ex.imm_data;
		break;
	}
	switch (op) {
	case ORCA_WR_RDMA_WRITE:
	case ORCA_WR_RDMA_WRITE_WITH_IMM:
	case ORCA_WR_RDMA_READ:
		w->remote_addr = cpu_to_le64(rdma_wr(wr)->remote_addr);
		w->rkey = cpu_to_le32(rdma_wr(wr)->rkey);
		break;
	case ORCA_WR_ATOMIC_CMP_AND_SWP:
	case ORCA_WR_ATOMIC_FETCH_AND_ADD:
		if (wr->num_sge != 1 || wr->sg_list[0].length < 8)
			return -EINVAL;
		w->remote_addr = cpu_to_le64(atomic_wr(wr)->remote_addr);
		w->rkey = cpu_to_le32(atomic_wr(wr)->rkey);
		w->compare_add = cpu_to_le64(atomic_wr(wr)->compare_add);
		w->swap = cpu_to_le64(atomic_wr(wr)->swap);
		break;
	}
	if (orca_qpt_is_ud(type)) {
		const struct orca_ah *ah;

		if (!ud_wr(wr)->ah)
			return -EINVAL;
		ah = to_oah(ud_wr(wr)->ah);
		if (ah->in_wqe) {
			if (!qp->ud_av)
				return -EINVAL;
			w->flags |= ORCA_WQE_F_UD_AV;
			memcpy(body, &ah->av, sizeof(ah->av));
			body += sizeof(ah->av);
		} else {
			w->ud_ah = cpu_to_le32(ah->ahn);
		}
		w->ud_remote_qpn = cpu_to_le32(ud_wr(wr)->remote_qpn);
		w->ud_remote_qkey = cpu_to_le32(ud_wr(wr)->remote_qkey);
		/* ib_mad answers a GMP in the partition it came in */
		if (type == IB_QPT_GSI)
			w->ud_pkey_index = cpu_to_le16(ud_wr(wr)->pkey_index);
	}
	if (wr->send_flags & IB_SEND_INLINE) {
		if (op == ORCA_WR_RDMA_READ || op == ORCA_WR_ATOMIC_CMP_AND_SWP ||
		    op == ORCA_WR_ATOMIC_FETCH_AND_ADD)
			return -EINVAL;
		return orca_kwqe_inline(qp, wr, w, body);
	}
	sge = (struct orca_sge *)body;
	if ((u32)wr->num_sge > qp->sq.max_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++) {
		sge[i].addr = cpu_to_le64(wr->sg_list[i].addr);
		sge[i].length = cpu_to_le32(wr->sg_list[i].length);
		sge[i].lkey = cpu_to_le32(wr->sg_list[i].lkey);
	}
	w->num_sge = wr->num_sge;
	return 0;
}

int orca_kqp_post_send(struct orca_dev *dev, struct orca_qp *qp,
		       const struct ib_send_wr *wr,
		       const struct ib_send_wr **bad_wr)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct orca_kwq *sq = &qp->sq;
	unsigned long flags;
	void *wqe;
	bool posted;
	u32 start;
	int err = 0;

	/* IBTA: no sends before RTS (ERR takes them, to flush them) */
	if (state == IB_QPS_RESET || state == IB_QPS_INIT ||
	    state == IB_QPS_RTR || !sq->depth) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&sq->lock, flags);
	start = sq->head;
	for (; wr; wr = wr->next) {
		u32 slot = sq->head & (sq->depth - 1);

		/* pairs with orca_kwq_retire(): the slot was read */
		if (sq->head - smp_load_acquire(&sq->tail) >= sq->max_wr) {
			err = -ENOMEM;
			break;
		}
		wqe = orca_kbuf_ptr(sq->kbuf,
				    sq->off + ((size_t)slot << sq->log_stride));
		if (wr->opcode == IB_WR_REG_MR)
			err = orca_fastreg_wqe(qp, wr,
					       orca_kwqe_flags(qp, wr), wqe);
		else
			err = orca_kwqe_send(qp, wr, wqe);
		if (err)
			break;
		sq->wrid[slot] = wr->wr_id;
		sq->head++;
	}
	posted = sq->head != start;
	if (posted) {
		dma_wmb();	/* the WQEs before the index that names them */
		WRITE_ONCE(qp->dbrec->sq_pi, cpu_to_le32(sq->head));
	}
	spin_unlock_irqrestore(&sq->lock, flags);
	/* the index is published: the kick needs no lock */
	if (posted)
		orca_kick_kernel(dev);
	if (err)
		*bad_wr = wr;
	return err;
}

int orca_kqp_post_recv(struct orca_dev *dev, struct orca_qp *qp,
		       const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct orca_kwq *rq = &qp->rq;
	unsigned long flags;
	bool posted;
	u32 start;
	int err = 0, i;

	if (state == IB_QPS_RESET || !rq->depth) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&rq->lock, flags);
	start = rq->head;
	for (; wr; wr = wr->next) {
		u32 slot = rq->head & (rq->depth - 1);
		struct orca_recv_wqe *w =
			orca_kbuf_ptr(rq->kbuf, rq->off +
				      ((size_t)slot << rq->log_stride));
		struct orca_sge *sge = (struct orca_sge *)(w + 1);

		/* pairs with orca_kwq_retire() */
		if (rq->head - smp_load_acquire(&rq->tail) >= rq->max_wr) {
			err = -ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || (u32)wr->num_sge > rq->max_sge) {
			err = -EINVAL;
			break;
		}
		memset(w, 0, sizeof(*w));
		w->num_sge = cpu_to_le32(wr->num_sge);
		for (i = 0; i < wr->num_sge; i++) {
			sge[i].addr = cpu_to_le64(wr->sg_list[i].addr);
			sge[i].length = cpu_to_le32(wr->sg_list[i].length);
			sge[i].lkey = cpu_to_le32(wr->sg_list[i].lkey);
		}
		rq->wrid[slot] = wr->wr_id;
		rq->head++;
	}
	posted = rq->head != start;
	if (posted) {
		dma_wmb();
		WRITE_ONCE(qp->dbrec->rq_pi, cpu_to_le32(rq->head));
	}
	spin_unlock_irqrestore(&rq->lock, flags);
	/*
	 * in ERR nothing arrives: the device must be told to flush them (a
	 * dead device's are flushed by the driver: orca_kick_kernel())
	 */
	if (posted && (state == IB_QPS_ERR || orca_com_is_dead(&dev->com)))
		orca_kick_kernel(dev);
	if (err)
		*bad_wr = wr;
	return err;
}
