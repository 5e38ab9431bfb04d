// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * orca libibverbs provider: QP rings, post_send and post_recv.
 *
 * Each QP has one buffer: the send queue at offset 0, the receive queue
 * after it, the doorbell record last.  Posting writes WQEs, then the
 * producer index (release), then kicks the device with an empty
 * post_send; receives need no kick, since the device reads the receive
 * queue's index when a message arrives.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "orca.h"

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/*
 * The device rounds the caps like this (and checks that we did); @v is
 * at most 2^24, the deepest queue it takes.
 */
static uint32_t pow2_up(uint32_t v)
{
	return v ? 1U << orca_ilog2_up(v) : 0;
}

int orca_qp_rings_init(struct orca_context *ctx, struct orca_qp *qp,
		       struct ibv_qp_init_attr_ex *attr,
		       struct orca_ibv_create_qp *cmd)
{
	struct ibv_qp_cap *cap = &attr->cap;
	struct ibv_pd *pd;
	uint32_t swr, rwr, inl;
	size_t sq_bytes = 0, rq_bytes = 0, rq_off, db_off;
	int ret;

	/* before any arithmetic: 2^31 + 1 WRs would round to 2^32 */
	if (cap->max_send_wr > 1U << 24 || cap->max_recv_wr > 1U << 24 ||
	    cap->max_inline_data > UINT32_MAX - 15)
		return EINVAL;
	swr = pow2_up(cap->max_send_wr);
	rwr = pow2_up(cap->max_recv_wr);
	inl = align_up(cap->max_inline_data, 16);

	if (inl > ctx->max_inline_data)
		inl = ctx->max_inline_data;
	if (attr->srq)
		rwr = 0;
	if (swr) {
		cmd->sq_log_depth = orca_ilog2_up(swr);
		cmd->sq_log_stride = orca_sq_log_stride(cap->max_send_sge, inl);
		if (cmd->sq_log_stride > ORCA_SQ_MAX_LOG_STRIDE)
			return EINVAL;
		sq_bytes = (size_t)swr << cmd->sq_log_stride;
	}
	rq_off = sq_bytes;
	if (rwr) {
		cmd->rq_log_depth = orca_ilog2_up(rwr);
		cmd->rq_log_stride = orca_rq_log_stride(cap->max_recv_sge);
		if (cmd->rq_log_stride > ORCA_RQ_MAX_LOG_STRIDE)
			return EINVAL;
		rq_off = align_up(sq_bytes, 1U << cmd->rq_log_stride);
		rq_bytes = (size_t)rwr << cmd->rq_log_stride;
	}
	db_off = align_up(rq_off + rq_bytes, 64);
	if (db_off + sizeof(struct orca_qp_dbrec) > UINT32_MAX)
		return EINVAL;
	pd = attr->comp_mask & IBV_QP_INIT_ATTR_PD ? attr->pd : NULL;
	ret = orca_buf_alloc(&qp->buf, db_off + sizeof(struct orca_qp_dbrec),
			     pd, ORCA_RES_TYPE_QP);
	if (ret)
		return ret;
	qp->sq.base = qp->buf.va;
	qp->sq.depth = swr;
	qp->sq.log_stride = cmd->sq_log_stride;
	qp->rq.base = (uint8_t *)qp->buf.va + rq_off;
	qp->rq.depth = rwr;
	qp->rq.log_stride = cmd->rq_log_stride;
	qp->dbrec = (struct orca_qp_dbrec *)((uint8_t *)qp->buf.va + db_off);
	qp->sq.wrid = calloc(swr ? swr : 1, sizeof(uint64_t));
	qp->rq.wrid = calloc(rwr ? rwr : 1, sizeof(uint64_t));
	if (!qp->sq.wrid || !qp->rq.wrid) {
		orca_qp_rings_free(qp);
		return ENOMEM;
	}
	pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE);
	/* a thread domain's QP: one thread at a time posts, no lock needed */
	qp->sq.lockless = orca_parent_of(pd) && orca_parent_of(pd)->td;
	qp->rq.lockless = qp->sq.lockless;
	cmd->buf_va = (uintptr_t)qp->buf.va;
	cmd->buf_len = qp->buf.len;
	cmd->rq_off = rq_off;
	cmd->dbrec_off = db_off;
	return 0;
}

/* After create: the caps the kernel reports are the limits we enforce. */
void orca_qp_rings_setup(struct orca_qp *qp,
			 const struct ibv_qp_init_attr_ex *attr)
{
	qp->sq.max_wr = attr->cap.max_send_wr;
	qp->sq.max_sge = attr->cap.max_send_sge;
	qp->rq.max_wr = attr->cap.max_recv_wr;
	qp->rq.max_sge = attr->cap.max_recv_sge;
	qp->max_inline = attr->cap.max_inline_data;
	qp->sq_sig_all = attr->sq_sig_all;
}

void orca_qp_rings_free(struct orca_qp *qp)
{
	free(qp->sq.wrid);
	free(qp->rq.wrid);
	qp->sq.wrid = qp->rq.wrid = NULL;
	orca_buf_free(&qp->buf);
}

/* RESET: the device starts over at index 0, and so do we. */
void orca_qp_reset_rings(struct orca_qp *qp)
{
	orca_wq_lock(&qp->sq);
	orca_wq_lock(&qp->rq);
	qp->sq.head = qp->sq.tail = 0;
	qp->rq.head = qp->rq.tail = 0;
	if (qp->dbrec) {
		__atomic_store_n(&qp->dbrec->sq_pi, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&qp->dbrec->rq_pi, 0, __ATOMIC_RELEASE);
	}
	orca_wq_unlock(&qp->rq);
	orca_wq_unlock(&qp->sq);
}

/*
 * A QP keeps pointers to its CQs and SRQ (poll reads them, RESET and
 * destroy clean them), so those must outlive it.  ib_core refuses to
 * destroy them first (its usecnt: EBUSY), but once the device is gone
 * (disassociated) every destroy succeeds, and a CQ freed before its QP
 * would be touched afterwards.  So the provider counts too.
 */
static void qp_refs_add(struct ibv_qp *ibqp, unsigned int n)
{
	__atomic_add_fetch(&to_ocq(ibqp->send_cq)->qp_refs, n,
			   __ATOMIC_RELAXED);
	__atomic_add_fetch(&to_ocq(ibqp->recv_cq)->qp_refs, n,
			   __ATOMIC_RELAXED);
	if (ibqp->srq)
		__atomic_add_fetch(&to_osrq(ibqp->srq)->qp_refs, n,
				   __ATOMIC_RELAXED);
}

void orca_qp_refs_get(struct ibv_qp *ibqp)
{
	qp_refs_add(ibqp, 1);
}

void orca_qp_refs_put(struct ibv_qp *ibqp)
{
	qp_refs_add(ibqp, -1U);
}

int orca_qp_table_insert(struct orca_context *ctx, struct orca_qp *qp)
{
	uint32_t qpn = qp->vqp.qp.qp_num, l1 = qpn >> ORCA_QP_TABLE_SHIFT;
	struct orca_qp **l2;

	if (l1 >= ORCA_QP_TABLE_L1)
		return EINVAL;
	pthread_mutex_lock(&ctx->qp_table_lock);
	l2 = ctx->qp_table[l1];
	if (!l2) {
		l2 = calloc(1U << ORCA_QP_TABLE_SHIFT, sizeof(*l2));
		if (!l2) {
			pthread_mutex_unlock(&ctx->qp_table_lock);
			return ENOMEM;
		}
		__atomic_store_n(&ctx->qp_table[l1], l2, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&l2[qpn & ((1U << ORCA_QP_TABLE_SHIFT) - 1)], qp,
			 __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ctx->qp_table_lock);
	return 0;
}

void orca_qp_table_remove(struct orca_context *ctx, struct orca_qp *qp)
{
	uint32_t qpn = qp->vqp.qp.qp_num, l1 = qpn >> ORCA_QP_TABLE_SHIFT;

	if (l1 >= ORCA_QP_TABLE_L1 || !ctx->qp_table[l1])
		return;
	pthread_mutex_lock(&ctx->qp_table_lock);
	__atomic_store_n(&ctx->qp_table[l1][qpn &
					    ((1U << ORCA_QP_TABLE_SHIFT) - 1)],
			 NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ctx->qp_table_lock);
}

struct orca_qp *orca_qp_lookup(struct orca_context *ctx, uint32_t qpn)
{
	uint32_t l1 = qpn >> ORCA_QP_TABLE_SHIFT;
	struct orca_qp **l2;

	if (l1 >= ORCA_QP_TABLE_L1)
		return NULL;
	l2 = __atomic_load_n(&ctx->qp_table[l1], __ATOMIC_ACQUIRE);
	if (!l2)
		return NULL;
	return __atomic_load_n(&l2[qpn & ((1U << ORCA_QP_TABLE_SHIFT) - 1)],
			       __ATOMIC_ACQUIRE);
}

/* The device's opcode for a libibverbs one on this QP type, or 0. */
static uint8_t wr_opcode(enum ibv_qp_type type, enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND:
		return ORCA_WR_SEND;
	case IBV_WR_SEND_WITH_IMM:
		return ORCA_WR_SEND_WITH_IMM;
	case IBV_WR_RDMA_WRITE:
		return type == IBV_QPT_UD ? 0 : ORCA_WR_RDMA_WRITE;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return type == IBV_QPT_UD ? 0 : ORCA_WR_RDMA_WRITE_WITH_IMM;
	case IBV_WR_RDMA_READ:
		return type == IBV_QPT_RC ? ORCA_WR_RDMA_READ : 0;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return type == IBV_QPT_RC ? ORCA_WR_ATOMIC_CMP_AND_SWP : 0;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return type == IBV_QPT_RC ? ORCA_WR_ATOMIC_FETCH_AND_ADD : 0;
	case IBV_WR_SEND_WITH_INV:
		return type == IBV_QPT_RC ? ORCA_WR_SEND_WITH_INV : 0;
	case IBV_WR_LOCAL_INV:
		return ORCA_WR_LOCAL_INV;
	case IBV_WR_BIND_MW:
		return type == IBV_QPT_UD ? 0 : ORCA_WR_BIND_MW;
	default:
		return 0;
	}
}

/* A window's rights (only remote ones mean anything; LOCAL_WRITE passes). */
int orca_mw_access(unsigned int ibv_access, uint32_t *access)
{
	if (ibv_access & ~(unsigned int)(IBV_ACCESS_LOCAL_WRITE |
					 IBV_ACCESS_REMOTE_WRITE |
					 IBV_ACCESS_REMOTE_READ |
					 IBV_ACCESS_REMOTE_ATOMIC))
		return EINVAL;	/* zero-based windows, MW_BIND, ... */
	*access = 0;
	if (ibv_access & IBV_ACCESS_LOCAL_WRITE)
		*access |= ORCA_ACCESS_LOCAL_WRITE;
	if (ibv_access & IBV_ACCESS_REMOTE_WRITE)
		*access |= ORCA_ACCESS_REMOTE_WRITE;
	if (ibv_access & IBV_ACCESS_REMOTE_READ)
		*access |= ORCA_ACCESS_REMOTE_READ;
	if (ibv_access & IBV_ACCESS_REMOTE_ATOMIC)
		*access |= ORCA_ACCESS_REMOTE_ATOMIC;
	return 0;
}

/* The BIND_MW body; opcode and flags are already in place. */
void orca_bind_wqe_fill(struct orca_bind_wqe *b, uint32_t rkey,
			const struct ibv_mw_bind_info *bi, uint32_t access)
{
	b->rkey = htole32(rkey);
	b->mr_lkey = htole32(bi->mr ? bi->mr->lkey : 0);
	b->addr = htole64(bi->addr);
	b->length = htole64(bi->length);
	b->access = htole32(access);
}

/* BIND_MW and LOCAL_INV: no data, the same for every QP type. */
static int build_local_wqe(const struct ibv_send_wr *wr, uint8_t op,
			   struct orca_send_wqe *w)
{
	uint32_t access;

	if (op == ORCA_WR_LOCAL_INV) {
		w->rkey = htole32(wr->invalidate_rkey);
		return 0;
	}
	if (!wr->bind_mw.mw ||
	    (!wr->bind_mw.bind_info.mr && wr->bind_mw.bind_info.length) ||
	    orca_mw_access(wr->bind_mw.bind_info.mw_access_flags, &access))
		return EINVAL;
	orca_bind_wqe_fill((struct orca_bind_wqe *)w, wr->bind_mw.rkey,
			   &wr->bind_mw.bind_info, access);
	return 0;
}

static int build_send_wqe(struct orca_qp *qp, const struct ibv_send_wr *wr,
			  uint8_t *slot)
{
	struct orca_send_wqe *w = (struct orca_send_wqe *)slot;
	uint8_t op = wr_opcode(qp->vqp.qp.qp_type, wr->opcode);
	struct orca_sge *sge = (struct orca_sge *)(w + 1);
	uint32_t len = 0;
	int i;

	if (!op || wr->num_sge < 0)
		return EINVAL;
	memset(w, 0, sizeof(*w));
	w->opcode = op;
	if ((wr->send_flags & IBV_SEND_SIGNALED) || qp->sq_sig_all)
		w->flags |= ORCA_WQE_F_SIGNALED;
	if (wr->send_flags & IBV_SEND_SOLICITED)
		w->flags |= ORCA_WQE_F_SOLICITED;
	if (wr->send_flags & IBV_SEND_FENCE)
		w->flags |= ORCA_WQE_F_FENCE;
	if (op == ORCA_WR_BIND_MW || op == ORCA_WR_LOCAL_INV)
		return build_local_wqe(wr, op, w);
	if (qp->vqp.qp.qp_type == IBV_QPT_UD && !wr->wr.ud.ah)
		return EINVAL;
	if (op == ORCA_WR_SEND_WITH_INV)
		w->rkey = htole32(wr->invalidate_rkey);
	if (op == ORCA_WR_SEND_WITH_IMM || op == ORCA_WR_RDMA_WRITE_WITH_IMM)
		w->imm_data = wr->imm_data;
	if (qp->vqp.qp.qp_type == IBV_QPT_UD) {
		w->ud_ah = htole32(to_oah(wr->wr.ud.ah)->ahn);
		w->ud_remote_qpn = htole32(wr->wr.ud.remote_qpn);
		w->ud_remote_qkey = htole32(wr->wr.ud.remote_qkey);
	}
	switch (op) {
	case ORCA_WR_RDMA_WRITE:
	case ORCA_WR_RDMA_WRITE_WITH_IMM:
	case ORCA_WR_RDMA_READ:
		w->remote_addr = htole64(wr->wr.rdma.remote_addr);
		w->rkey = htole32(wr->wr.rdma.rkey);
		break;
	case ORCA_WR_ATOMIC_CMP_AND_SWP:
	case ORCA_WR_ATOMIC_FETCH_AND_ADD:
		w->remote_addr = htole64(wr->wr.atomic.remote_addr);
		w->rkey = htole32(wr->wr.atomic.rkey);
		w->compare_add = htole64(wr->wr.atomic.compare_add);
		w->swap = htole64(wr->wr.atomic.swap);
		if (wr->num_sge != 1 || wr->sg_list[0].length < 8)
			return EINVAL;
		break;
	}
	if (wr->send_flags & IBV_SEND_INLINE) {
		uint8_t *dst = (uint8_t *)(w + 1);

		if (op == ORCA_WR_RDMA_READ || op == ORCA_WR_ATOMIC_CMP_AND_SWP ||
		    op == ORCA_WR_ATOMIC_FETCH_AND_ADD)
			return EINVAL;
		/* element by element: the 32-bit sum could wrap around */
		for (i = 0; i < wr->num_sge; i++) {
			if (wr->sg_list[i].length > qp->max_inline - len)
				return EINVAL;
			len += wr->sg_list[i].length;
		}
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(dst, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			dst += wr->sg_list[i].length;
		}
		w->flags |= ORCA_WQE_F_INLINE;
		w->inline_len = htole32(len);
		return 0;
	}
	if ((uint32_t)wr->num_sge > qp->sq.max_sge)
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++) {
		sge[i].addr = htole64(wr->sg_list[i].addr);
		sge[i].length = htole32(wr->sg_list[i].length);
		sge[i].lkey = htole32(wr->sg_list[i].lkey);
	}
	w->num_sge = wr->num_sge;
	return 0;
}

/*
 * Name @qpn in the context's kick ring (orca_hw_io.h), once its doorbell
 * record is stored: reserve an entry (a locked instruction, a full
 * fence), then write the QPN and, last, the entry's sequence number.  A
 * ring that looks full is told so instead, and the device reads every
 * record.
 */
static void orca_kick_announce(struct orca_context *ctx, uint32_t qpn)
{
	struct orca_kick_ring *r = ctx->kick;
	struct orca_kick_entry *e;
	uint32_t old, i;

	old = __atomic_load_n(&r->prod, __ATOMIC_RELAXED);
	do {
		i = le32toh(old);
	} while (!__atomic_compare_exchange_n(&r->prod, &old, htole32(i + 1),
					      false, __ATOMIC_SEQ_CST,
					      __ATOMIC_RELAXED));
	if (i - le32toh(__atomic_load_n(&r->cons, __ATOMIC_RELAXED)) >=
	    ctx->kick_entries) {
		__atomic_store_n(&r->overflow, htole32(1), __ATOMIC_RELAXED);
		return;
	}
	e = &r->e[i % ctx->kick_entries];
	__atomic_store_n(&e->qpn, htole32(qpn), __ATOMIC_RELAXED);
	__atomic_store_n(&e->seq, htole32(i + 1), __ATOMIC_RELEASE);
}

/*
 * Wake the device, unless the doorbell hint says it is awake: the fence
 * orders our doorbell record before the hint's read, as the device orders
 * clearing the hint before its last read of the records (orca_hw.h), so
 * either it sees our record or we see it asleep.  With the doorbell page
 * mapped, a kick is one store to it.  Otherwise an empty
 * POST_SEND, which the kernel turns into the same store (rxe's
 * post_send_db does the same), built by hand because the command carries
 * no WR.  A lost kick only delays the work until the device's next scan
 * of the doorbell records.
 */
void orca_qp_kick(struct orca_qp *qp)
{
	struct orca_context *ctx = to_octx(qp->vqp.qp.context);
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_post_send cmd;
	} req = {};
	struct ib_uverbs_post_send_resp resp;

	if (ctx->kick)
		orca_kick_announce(ctx, qp->vqp.qp.qp_num);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (ctx->db_hint && __atomic_load_n(ctx->db_hint, __ATOMIC_RELAXED))
		return;
	if (ctx->db) {
		__atomic_store_n(ctx->db, ctx->db_value, __ATOMIC_RELAXED);
		return;
	}
	req.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	req.hdr.in_words = sizeof(req) / 4;
	req.hdr.out_words = sizeof(resp) / 4;
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.qp_handle = qp->vqp.qp.handle;
	req.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	/*
	 * Refused only once the device is gone: nothing will complete the
	 * WQEs then, and the context has IBV_EVENT_DEVICE_FATAL.
	 */
	if (write(qp->vqp.qp.context->cmd_fd, &req, sizeof(req)) !=
	    sizeof(req))
		return;
}

int orca_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct orca_qp *qp = to_oqp(ibqp);
	struct orca_wq *sq = &qp->sq;
	bool posted;
	uint32_t start;
	int ret = 0;

	/* IBTA: no sends before RTS (ERR accepts them, to flush them) */
	if (ibqp->state == IBV_QPS_RESET || ibqp->state == IBV_QPS_INIT ||
	    ibqp->state == IBV_QPS_RTR || !sq->depth) {
		*bad_wr = wr;
		return EINVAL;
	}
	orca_wq_lock(sq);
	start = sq->head;
	posted = false;
	for (; wr; wr = wr->next) {
		uint32_t slot = sq->head & (sq->depth - 1);

		if (sq->head - __atomic_load_n(&sq->tail, __ATOMIC_ACQUIRE) >=
		    sq->max_wr) {
			ret = ENOMEM;
			break;
		}
		ret = build_send_wqe(qp, wr, sq->base +
				     ((size_t)slot << sq->log_stride));
		if (ret)
			break;
		sq->wrid[slot] = wr->wr_id;
		sq->head++;
	}
	if (sq->head != start) {
		__atomic_store_n(&qp->dbrec->sq_pi, htole32(sq->head),
				 __ATOMIC_RELEASE);
		posted = true;
	}
	orca_wq_unlock(sq);
	/* the record is published: the kick (perhaps a system call) needs no lock */
	if (posted)
		orca_qp_kick(qp);
	if (ret)
		*bad_wr = wr;
	return ret;
}

int orca_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr)
{
	struct orca_qp *qp = to_oqp(ibqp);
	struct orca_wq *rq = &qp->rq;
	bool kick = false;
	uint32_t start;
	int ret = 0, i;

	if (ibqp->state == IBV_QPS_RESET || !rq->depth) {
		*bad_wr = wr;
		return EINVAL;
	}
	orca_wq_lock(rq);
	start = rq->head;
	for (; wr; wr = wr->next) {
		uint32_t slot = rq->head & (rq->depth - 1);
		uint8_t *e = rq->base + ((size_t)slot << rq->log_stride);
		struct orca_recv_wqe *w = (struct orca_recv_wqe *)e;
		struct orca_sge *sge = (struct orca_sge *)(w + 1);

		if (rq->head - __atomic_load_n(&rq->tail, __ATOMIC_ACQUIRE) >=
		    rq->max_wr) {
			ret = ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > rq->max_sge) {
			ret = EINVAL;
			break;
		}
		memset(w, 0, sizeof(*w));
		w->num_sge = htole32(wr->num_sge);
		for (i = 0; i < wr->num_sge; i++) {
			sge[i].addr = htole64(wr->sg_list[i].addr);
			sge[i].length = htole32(wr->sg_list[i].length);
			sge[i].lkey = htole32(wr->sg_list[i].lkey);
		}
		rq->wrid[slot] = wr->wr_id;
		rq->head++;
	}
	if (rq->head != start) {
		__atomic_store_n(&qp->dbrec->rq_pi, htole32(rq->head),
				 __ATOMIC_RELEASE);
		/* in ERR nothing arrives: the device must be told to flush */
		kick = ibqp->state == IBV_QPS_ERR;
	}
	orca_wq_unlock(rq);
	if (kick)
		orca_qp_kick(qp);
	if (ret)
		*bad_wr = wr;
	return ret;
}

/*
 * ibv_bind_mw(): a type 1 window is bound by a BIND_MW WQE on @qp under
 * the next key byte (libibverbs checked the type and the PDs); mw->rkey
 * takes the new key once the WQE is posted, and the consumer undoes that
 * if the bind completes in error.
 */
int orca_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {}, *bad;
	int ret;

	if (mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	wr.wr_id = mw_bind->wr_id;
	wr.send_flags = mw_bind->send_flags;
	wr.opcode = IBV_WR_BIND_MW;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	ret = orca_post_send(qp, &wr, &bad);
	if (ret)
		return ret;
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}
