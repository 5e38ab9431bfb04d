// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * orca libibverbs provider: the extended post-send API (ibv_qp_ex, the
 * ibv_wr_* calls).  ibv_wr_start() takes the send queue, each ibv_wr_<op>()
 * opens a WQE in the next slot and the ibv_wr_set_*() calls complete it;
 * ibv_wr_complete() publishes the batch (doorbell record, one kick) or,
 * after any error, discards all of it.  Same WQE format as post_send.
 */
#include <errno.h>
#include <string.h>

#include "orca.h"

/* What each QP type can send (anything else: EOPNOTSUPP at create). */
static uint64_t send_ops(const struct orca_context *ctx,
			 enum ibv_qp_type type)
{
	uint64_t ud = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
		      IBV_QP_EX_WITH_LOCAL_INV;
	uint64_t uc = ud | IBV_QP_EX_WITH_RDMA_WRITE |
		      IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_BIND_MW;

	switch (type) {
	case IBV_QPT_RC:
		return uc | IBV_QP_EX_WITH_RDMA_READ |
		       IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
		       IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
		       IBV_QP_EX_WITH_SEND_WITH_INV |
		       (ctx->device_caps & ORCA_IBV_DEVICE_CAP_ATOMIC_WRITE ?
			IBV_QP_EX_WITH_ATOMIC_WRITE : 0);
	case IBV_QPT_UC:
		return uc;
	case IBV_QPT_UD:
		return ud;
	default:
		return 0;
	}
}

int orca_wr_check(const struct orca_context *ctx,
		  const struct ibv_qp_init_attr_ex *attr)
{
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return 0;
	if (!attr->send_ops_flags ||
	    (attr->send_ops_flags & ~send_ops(ctx, attr->qp_type)))
		return EOPNOTSUPP;
	return 0;
}

static struct orca_qp *qpx_to_oqp(struct ibv_qp_ex *qpx)
{
	return container_of(qpx, struct orca_qp, vqp.qp_ex);
}

static void wr_start(struct ibv_qp_ex *qpx)
{
	struct orca_qp *qp = qpx_to_oqp(qpx);

	orca_wq_lock(&qp->sq);
	qp->wr_err = 0;
	qp->wr_start = qp->sq.head;
	qp->wr_cur = NULL;
}

/* Open a WQE of @op in the next slot; NULL (error noted) if there is none. */
static struct orca_send_wqe *wr_open(struct ibv_qp_ex *qpx, uint8_t op)
{
	struct orca_qp *qp = qpx_to_oqp(qpx);
	struct orca_wq *sq = &qp->sq;
	struct orca_send_wqe *w;
	uint32_t slot;

	qp->wr_cur = NULL;
	if (qp->wr_err)
		return NULL;
	if (sq->head - __atomic_load_n(&sq->tail, __ATOMIC_ACQUIRE) >=
	    sq->max_wr) {
		qp->wr_err = ENOMEM;
		return NULL;
	}
	slot = sq->head & (sq->depth - 1);
	w = (struct orca_send_wqe *)(sq->base + ((size_t)slot << sq->log_stride));
	memset(w, 0, sizeof(*w));
	w->opcode = op;
	if ((qpx->wr_flags & IBV_SEND_SIGNALED) || qp->sq_sig_all)
		w->flags |= ORCA_WQE_F_SIGNALED;
	if (qpx->wr_flags & IBV_SEND_SOLICITED)
		w->flags |= ORCA_WQE_F_SOLICITED;
	if (qpx->wr_flags & IBV_SEND_FENCE)
		w->flags |= ORCA_WQE_F_FENCE;
	sq->wrid[slot] = qpx->wr_id;
	sq->head++;
	qp->wr_cur = w;
	return w;
}

static void wr_send(struct ibv_qp_ex *qpx)
{
	wr_open(qpx, ORCA_WR_SEND);
}

static void wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm)
{
	struct orca_send_wqe *w = wr_open(qpx, ORCA_WR_SEND_WITH_IMM);

	if (w)
		w->imm_data = imm;
}

static void wr_rdma(struct ibv_qp_ex *qpx, uint8_t op, uint32_t rkey,
		    uint64_t raddr)
{
	struct orca_send_wqe *w = wr_open(qpx, op);

	if (!w)
		return;
	w->rkey = htole32(rkey);
	w->remote_addr = htole64(raddr);
}

static void wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t raddr)
{
	wr_rdma(qpx, ORCA_WR_RDMA_WRITE, rkey, raddr);
}

static void wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t raddr, __be32 imm)
{
	struct orca_qp *qp = qpx_to_oqp(qpx);

	wr_rdma(qpx, ORCA_WR_RDMA_WRITE_WITH_IMM, rkey, raddr);
	if (qp->wr_cur)
		qp->wr_cur->imm_data = imm;
}

static void wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t raddr)
{
	wr_rdma(qpx, ORCA_WR_RDMA_READ, rkey, raddr);
}

static void wr_atomic(struct ibv_qp_ex *qpx, uint8_t op, uint32_t rkey,
		      uint64_t raddr, uint64_t compare_add, uint64_t swap)
{
	struct orca_send_wqe *w = wr_open(qpx, op);

	if (!w)
		return;
	w->rkey = htole32(rkey);
	w->remote_addr = htole64(raddr);
	w->compare_add = htole64(compare_add);
	w->swap = htole64(swap);
}

static void wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t raddr, uint64_t compare, uint64_t swap)
{
	wr_atomic(qpx, ORCA_WR_ATOMIC_CMP_AND_SWP, rkey, raddr, compare, swap);
}

static void wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t raddr, uint64_t add)
{
	wr_atomic(qpx, ORCA_WR_ATOMIC_FETCH_AND_ADD, rkey, raddr, add, 0);
}

/*
 * ibv_wr_atomic_write(): the 8 bytes at @atomic_wr go in the WQE as they
 * are (no byte order: they are data, not a number); no SGE follows.
 */
static void wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			    uint64_t raddr, const void *atomic_wr)
{
	struct orca_send_wqe *w = wr_open(qpx, ORCA_WR_ATOMIC_WRITE);

	if (!w)
		return;
	w->rkey = htole32(rkey);
	w->remote_addr = htole64(raddr);
	memcpy(&w->compare_add, atomic_wr, sizeof(w->compare_add));
}

/* ibv_wr_bind_mw(): any window type; mw->rkey is the consumer's to set. */
static void wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw, uint32_t rkey,
		       const struct ibv_mw_bind_info *bind_info)
{
	struct orca_qp *qp = qpx_to_oqp(qpx);
	struct orca_send_wqe *w;
	uint32_t access;

	if (!qp->wr_err &&
	    (!mw || (!bind_info->mr && bind_info->length) ||
	     orca_mw_access(bind_info->mw_access_flags, &access)))
		qp->wr_err = EINVAL;
	w = wr_open(qpx, ORCA_WR_BIND_MW);
	if (!w)
		return;
	orca_bind_wqe_fill((struct orca_bind_wqe *)w, rkey, bind_info, access);
	qp->wr_cur = NULL;	/* no SGEs, no inline data */
}

static void wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct orca_qp *qp = qpx_to_oqp(qpx);
	struct orca_send_wqe *w = wr_open(qpx, ORCA_WR_LOCAL_INV);

	if (!w)
		return;
	w->rkey = htole32(invalidate_rkey);
	qp->wr_cur = NULL;
}

static void wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct orca_send_wqe *w = wr_open(qpx, ORCA_WR_SEND_WITH_INV);

	if (w)
		w->rkey = htole32(invalidate_rkey);
}

static void wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
			   uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct orca_qp *qp = qpx_to_oqp(qpx);
	struct orca_send_wqe *w = qp->wr_cur;

	if (!w)
		return;
	if (!ah) {
		qp->wr_err = EINVAL;
		return;
	}
	w->ud_ah = htole32(to_oah(ah)->ahn);
	w->ud_remote_qpn = htole32(remote_qpn);
	w->ud_remote_qkey = htole32(remote_qkey);
}

static void wr_set_sge_list(struct ibv_qp_ex *qpx, size_t n,
			    const struct ibv_sge *list)
{
	struct orca_qp *qp = qpx_to_oqp(qpx);
	struct orca_send_wqe *w = qp->wr_cur;
	struct orca_sge *sge;
	size_t i;

	if (!w)
		return;
	if (n > qp->sq.max_sge || w->opcode == ORCA_WR_ATOMIC_WRITE ||
	    ((w->opcode == ORCA_WR_ATOMIC_CMP_AND_SWP ||
	      w->opcode == ORCA_WR_ATOMIC_FETCH_AND_ADD) &&
	     (n != 1 || list[0].length < 8))) {
		qp->wr_err = EINVAL;
		return;
	}
	sge = (struct orca_sge *)(w + 1);
	for (i = 0; i < n; i++) {
		sge[i].addr = htole64(list[i].addr);
		sge[i].length = htole32(list[i].length);
		sge[i].lkey = htole32(list[i].lkey);
	}
	w->num_sge = n;
}

static void wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr,
		       uint32_t length)
{
	struct ibv_sge sge = { addr, length, lkey };

	wr_set_sge_list(qpx, 1, &sge);
}

static void wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t n,
				    const struct ibv_data_buf *list)
{
	struct orca_qp *qp = qpx_to_oqp(qpx);
	struct orca_send_wqe *w = qp->wr_cur;
	uint8_t *dst;
	size_t i, len = 0;

	if (!w)
		return;
	if (w->opcode == ORCA_WR_RDMA_READ ||
	    w->opcode == ORCA_WR_ATOMIC_CMP_AND_SWP ||
	    w->opcode == ORCA_WR_ATOMIC_FETCH_AND_ADD ||
	    w->opcode == ORCA_WR_ATOMIC_WRITE) {
		qp->wr_err = EINVAL;
		return;
	}
	/* element by element: a sum could wrap around past max_inline */
	for (i = 0; i < n; i++) {
		if (list[i].length > qp->max_inline - len) {
			qp->wr_err = EINVAL;
			return;
		}
		len += list[i].length;
	}
	dst = (uint8_t *)(w + 1);
	for (i = 0; i < n; i++) {
		memcpy(dst, list[i].addr, list[i].length);
		dst += list[i].length;
	}
	w->flags |= ORCA_WQE_F_INLINE;
	w->inline_len = htole32(len);
}

static void wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
			       size_t length)
{
	struct ibv_data_buf buf = { addr, length };

	wr_set_inline_data_list(qpx, 1, &buf);
}

static int wr_complete(struct ibv_qp_ex *qpx)
{
	struct orca_qp *qp = qpx_to_oqp(qpx);
	enum ibv_qp_state st = qp->vqp.qp.state;
	int err = qp->wr_err;
	bool kick = false;

	/* IBTA: no sends before RTS */
	if (!err && (st == IBV_QPS_RESET || st == IBV_QPS_INIT ||
		     st == IBV_QPS_RTR))
		err = EINVAL;
	if (err) {
		qp->sq.head = qp->wr_start;	/* nothing of the batch */
	} else if (qp->sq.head != qp->wr_start) {
		__atomic_store_n(&qp->dbrec->sq_pi, htole32(qp->sq.head),
				 __ATOMIC_RELEASE);
		kick = true;
	}
	qp->wr_cur = NULL;
	orca_wq_unlock(&qp->sq);
	/* the record is published: the kick needs no lock */
	if (kick)
		orca_qp_kick(qp);
	return err;
}

static void wr_abort(struct ibv_qp_ex *qpx)
{
	struct orca_qp *qp = qpx_to_oqp(qpx);

	qp->sq.head = qp->wr_start;
	qp->wr_cur = NULL;
	orca_wq_unlock(&qp->sq);
}

/* After create: the QP answers ibv_qp_to_qp_ex() with these. */
void orca_wr_setup(struct orca_qp *qp, const struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return;
	qp->vqp.comp_mask |= VERBS_QP_EX;
	qpx->wr_start = wr_start;
	qpx->wr_complete = wr_complete;
	qpx->wr_abort = wr_abort;
	qpx->wr_send = wr_send;
	qpx->wr_send_imm = wr_send_imm;
	qpx->wr_rdma_write = wr_rdma_write;
	qpx->wr_rdma_write_imm = wr_rdma_write_imm;
	qpx->wr_rdma_read = wr_rdma_read;
	qpx->wr_atomic_cmp_swp = wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = wr_atomic_fetch_add;
	qpx->wr_atomic_write = wr_atomic_write;
	qpx->wr_bind_mw = wr_bind_mw;
	qpx->wr_local_inv = wr_local_inv;
	qpx->wr_send_inv = wr_send_inv;
	qpx->wr_set_ud_addr = wr_set_ud_addr;
	qpx->wr_set_sge = wr_set_sge;
	qpx->wr_set_sge_list = wr_set_sge_list;
	qpx->wr_set_inline_data = wr_set_inline_data;
	qpx->wr_set_inline_data_list = wr_set_inline_data_list;
}
