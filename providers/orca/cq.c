// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * orca libibverbs provider: completion queues.
 *
 * A CQE is ours when its owner byte matches the pass we are on
 * (orca_hw_io.h); the device wrote it whole before that byte.  After a
 * poll we publish how far we read, so that the device sees the space.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "orca.h"

/* Ring and doorbell record for @cqe entries, then the create command. */
static int cq_init(struct orca_context *ctx, struct orca_cq *cq, int cqe,
		   struct ibv_pd *parent, struct orca_ibv_create_cq *drv)
{
	size_t ring;
	int ret;

	(void)ctx;
	if (cqe < 1 || cqe > (1 << 24) - 1)
		return EINVAL;
	/* one more entry than asked for: the device reports 2^n - 1 */
	cq->log_depth = orca_ilog2_up(cqe + 1);
	ring = sizeof(struct orca_cqe) << cq->log_depth;
	ret = orca_buf_alloc(&cq->buf, ring + sizeof(struct orca_cq_dbrec),
			     parent, ORCA_RES_TYPE_CQ);
	if (ret)
		return ret;
	cq->dbrec = (struct orca_cq_dbrec *)((uint8_t *)cq->buf.va + ring);
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	drv->buf_va = (uintptr_t)cq->buf.va;
	drv->buf_len = cq->buf.len;
	drv->dbrec_off = ring;
	drv->log_depth = cq->log_depth;
	return 0;
}

static void cq_fini(struct orca_cq *cq)
{
	pthread_spin_destroy(&cq->lock);
	orca_buf_free(&cq->buf);
}

struct ibv_cq *orca_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector)
{
	struct orca_create_cq_resp resp = {};
	struct orca_create_cq cmd = {};
	struct orca_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	ret = cq_init(to_octx(context), cq, cqe, NULL, &cmd.drv_payload);
	if (ret)
		goto err_free;
	ret = ibv_cmd_create_cq(context, cqe, channel, comp_vector,
				&cq->vcq.cq, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_fini;
	cq->cqn = resp.drv_payload.cqn;
	return &cq->vcq.cq;

err_fini:
	cq_fini(cq);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}

int orca_destroy_cq(struct ibv_cq *ibcq)
{
	struct orca_cq *cq = to_ocq(ibcq);
	int ret;

	/* ib_core's answer, also once the device is gone (orca_qp_refs_get) */
	if (__atomic_load_n(&cq->qp_refs, __ATOMIC_ACQUIRE))
		return EBUSY;
	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	cq_fini(cq);
	free(cq);
	return 0;
}

static struct orca_cqe *next_cqe(struct orca_cq *cq)
{
	struct orca_cqe *cqe = (struct orca_cqe *)cq->buf.va +
			       (cq->ci & ((1U << cq->log_depth) - 1));
	uint8_t owner = __atomic_load_n(&cqe->owner, __ATOMIC_ACQUIRE);

	return owner == 1 + ((cq->ci >> cq->log_depth) & 1) ? cqe : NULL;
}

/* Retire the WQE a CQE names (and, on the SQ, the unsignaled ones before). */
static uint64_t retire(struct orca_wq *wq, uint32_t idx)
{
	uint64_t wr_id = wq->wrid[idx & (wq->depth - 1)];

	__atomic_store_n(&wq->tail, idx + 1, __ATOMIC_RELEASE);
	return wr_id;
}

static void fill_wc(struct orca_context *ctx, const struct orca_cqe *cqe,
		    struct ibv_wc *wc)
{
	uint32_t qpn = le32toh(cqe->qpn), idx = le32toh(cqe->wqe_idx);
	struct orca_qp *qp = orca_qp_lookup(ctx, qpn);

	memset(wc, 0, sizeof(*wc));
	wc->qp_num = qpn;
	wc->status = cqe->status;
	wc->opcode = cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = le32toh(cqe->byte_len);
	wc->src_qp = le32toh(cqe->src_qp);
	wc->slid = le16toh(cqe->slid);
	wc->pkey_index = le16toh(cqe->pkey_index);
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;
	if (cqe->flags & ORCA_CQE_F_IMM) {
		wc->wc_flags |= IBV_WC_WITH_IMM;
		wc->imm_data = cqe->imm_data;
	}
	if (cqe->flags & ORCA_CQE_F_INV) {
		wc->wc_flags |= IBV_WC_WITH_INV;
		wc->invalidated_rkey = le32toh(cqe->inv_rkey);
	}
	if (cqe->flags & ORCA_CQE_F_GRH)
		wc->wc_flags |= IBV_WC_GRH;
	if (!qp)	/* destroyed meanwhile: nothing to retire */
		return;
	if (cqe->flags & ORCA_CQE_F_SRQ) {
		if (qp->vqp.qp.srq)
			wc->wr_id = orca_srq_complete(to_osrq(qp->vqp.qp.srq),
						      idx);
	} else if (cqe->flags & ORCA_CQE_F_SQ) {
		if (qp->sq.depth)
			wc->wr_id = retire(&qp->sq, idx);
	} else if (qp->rq.depth) {
		wc->wr_id = retire(&qp->rq, idx);
	}
}

/* libibverbs hands us every async event the application reads. */
void orca_async_event(struct ibv_context *context,
		      struct ibv_async_event *event)
{
	if (event->event_type == IBV_EVENT_DEVICE_FATAL)
		__atomic_store_n(&to_octx(context)->fatal, true,
				 __ATOMIC_RELEASE);
}

/* @wq's oldest outstanding WQE as a flush CQE in cq->flush_cqe, if any. */
static struct orca_cqe *flush_one(struct orca_cq *cq, struct orca_qp *qp,
				  struct orca_wq *wq, uint8_t flags)
{
	struct orca_cqe *cqe = &cq->flush_cqe;

	if (!wq->depth || wq->tail == __atomic_load_n(&wq->head,
						      __ATOMIC_ACQUIRE))
		return NULL;
	memset(cqe, 0, sizeof(*cqe));
	cqe->qpn = htole32(qp->vqp.qp.qp_num);
	cqe->wqe_idx = htole32(wq->tail);
	cqe->status = IBV_WC_WR_FLUSH_ERR;
	cqe->flags = flags;
	return cqe;
}

/*
 * After IBV_EVENT_DEVICE_FATAL the device writes no CQE again.  As mlx5
 * does in its internal-error state, once the ring is empty every WQE
 * still outstanding on a QP of this CQ completes with
 * IBV_WC_WR_FLUSH_ERR, oldest first, as the device would have flushed
 * it; an SRQ's WQEs are not a QP's to flush.  Called with cq->lock held,
 * which keeps this CQ's QPs in the table (orca_qp_clean_cqs()); the
 * table lock keeps the others from being freed while we look at them.
 */
static struct orca_cqe *flush_cqe(struct orca_context *ctx, struct orca_cq *cq)
{
	struct orca_cqe *cqe = NULL;
	struct orca_qp **l2, *qp;
	unsigned int l1, i;

	pthread_mutex_lock(&ctx->qp_table_lock);
	for (l1 = 0; l1 < ORCA_QP_TABLE_L1 && !cqe; l1++) {
		l2 = ctx->qp_table[l1];
		for (i = 0; l2 && i < (1U << ORCA_QP_TABLE_SHIFT) && !cqe; i++) {
			qp = l2[i];
			if (!qp)
				continue;
			if (qp->vqp.qp.send_cq == &cq->vcq.cq)
				cqe = flush_one(cq, qp, &qp->sq, ORCA_CQE_F_SQ);
			if (!cqe && qp->vqp.qp.recv_cq == &cq->vcq.cq &&
			    !qp->vqp.qp.srq)
				cqe = flush_one(cq, qp, &qp->rq, 0);
		}
	}
	pthread_mutex_unlock(&ctx->qp_table_lock);
	return cqe;
}

/* The next CQE of the ring, or (*made_up) a flush CQE after a fatal. */
static struct orca_cqe *poll_next(struct orca_context *ctx, struct orca_cq *cq,
				  bool *made_up)
{
	struct orca_cqe *cqe = next_cqe(cq);

	*made_up = !cqe && __atomic_load_n(&ctx->fatal, __ATOMIC_ACQUIRE);
	return *made_up ? flush_cqe(ctx, cq) : cqe;
}

int orca_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct orca_context *ctx = to_octx(ibcq->context);
	struct orca_cq *cq = to_ocq(ibcq);
	struct orca_cqe *cqe;
	bool made_up;
	int n;

	pthread_spin_lock(&cq->lock);
	for (n = 0; n < ne; n++) {
		cqe = poll_next(ctx, cq, &made_up);
		if (!cqe)
			break;
		fill_wc(ctx, cqe, &wc[n]);
		if (!made_up)
			cq->ci++;
	}
	if (n)
		__atomic_store_n(&cq->dbrec->ci, htole32(cq->ci),
				 __ATOMIC_RELEASE);
	pthread_spin_unlock(&cq->lock);
	return n;
}

/*
 * Arm for the next (solicited) completion: a store into the doorbell
 * record, no system call.  The device reads the word after every CQE and
 * fires once per sequence number, which counts the events received.
 */
int orca_arm_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct orca_cq *cq = to_ocq(ibcq);
	uint32_t arm = ORCA_CQ_ARM_NEXT;

	if (solicited_only)
		arm |= ORCA_CQ_ARM_SOLICITED;
	pthread_spin_lock(&cq->lock);
	arm |= cq->arm_sn << ORCA_CQ_ARM_SN_SHIFT;
	/* after the consumer's reads, before any later wait */
	__atomic_store_n(&cq->dbrec->arm, htole32(arm), __ATOMIC_SEQ_CST);
	pthread_spin_unlock(&cq->lock);
	return 0;
}

/* libibverbs got an event for this CQ: the next arm is a new one. */
void orca_cq_event(struct ibv_cq *ibcq)
{
	struct orca_cq *cq = to_ocq(ibcq);

	pthread_spin_lock(&cq->lock);
	cq->arm_sn++;
	pthread_spin_unlock(&cq->lock);
}

/*
 * ibv_cq_ex: start_poll takes the lock and looks at the first CQE,
 * next_poll consumes it and looks at the next, end_poll consumes the
 * one looked at and publishes the consumer index.
 */
static struct orca_cq *cqx_to_ocq(struct ibv_cq_ex *cqx)
{
	return container_of(cqx, struct orca_cq, vcq.cq_ex);
}

static int ex_load(struct orca_cq *cq)
{
	struct orca_context *ctx = to_octx(cq->vcq.cq.context);
	bool made_up;
	struct orca_cqe *cqe = poll_next(ctx, cq, &made_up);

	/* only a CQE of the ring is consumed from it */
	cq->ex_cur = cqe && !made_up;
	if (!cqe)
		return ENOENT;
	fill_wc(ctx, cqe, &cq->ex_wc);
	cq->ex_timestamp = le64toh(cqe->timestamp);
	cq->ex_real_time = le64toh(cqe->real_time);
	cq->vcq.cq_ex.status = cq->ex_wc.status;
	cq->vcq.cq_ex.wr_id = cq->ex_wc.wr_id;
	return 0;
}

static int ex_start_poll(struct ibv_cq_ex *cqx, struct ibv_poll_cq_attr *attr)
{
	struct orca_cq *cq = cqx_to_ocq(cqx);
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	ret = ex_load(cq);
	if (ret)
		pthread_spin_unlock(&cq->lock);
	return ret;
}

static int ex_next_poll(struct ibv_cq_ex *cqx)
{
	struct orca_cq *cq = cqx_to_ocq(cqx);

	if (cq->ex_cur)
		cq->ci++;
	return ex_load(cq);
}

static void ex_end_poll(struct ibv_cq_ex *cqx)
{
	struct orca_cq *cq = cqx_to_ocq(cqx);

	if (cq->ex_cur)
		cq->ci++;
	cq->ex_cur = false;
	__atomic_store_n(&cq->dbrec->ci, htole32(cq->ci), __ATOMIC_RELEASE);
	pthread_spin_unlock(&cq->lock);
}

static enum ibv_wc_opcode ex_opcode(struct ibv_cq_ex *cqx)
{
	return cqx_to_ocq(cqx)->ex_wc.opcode;
}

static uint32_t ex_vendor_err(struct ibv_cq_ex *cqx)
{
	return cqx_to_ocq(cqx)->ex_wc.vendor_err;
}

static uint32_t ex_byte_len(struct ibv_cq_ex *cqx)
{
	return cqx_to_ocq(cqx)->ex_wc.byte_len;
}

static __be32 ex_imm_data(struct ibv_cq_ex *cqx)
{
	return cqx_to_ocq(cqx)->ex_wc.imm_data;
}

static uint32_t ex_qp_num(struct ibv_cq_ex *cqx)
{
	return cqx_to_ocq(cqx)->ex_wc.qp_num;
}

static uint32_t ex_src_qp(struct ibv_cq_ex *cqx)
{
	return cqx_to_ocq(cqx)->ex_wc.src_qp;
}

static unsigned int ex_wc_flags(struct ibv_cq_ex *cqx)
{
	return cqx_to_ocq(cqx)->ex_wc.wc_flags;
}

static uint32_t ex_slid(struct ibv_cq_ex *cqx)
{
	return cqx_to_ocq(cqx)->ex_wc.slid;
}

static uint8_t ex_sl(struct ibv_cq_ex *cqx)
{
	return cqx_to_ocq(cqx)->ex_wc.sl;
}

static uint8_t ex_dlid_path_bits(struct ibv_cq_ex *cqx)
{
	return cqx_to_ocq(cqx)->ex_wc.dlid_path_bits;
}

static uint64_t ex_completion_ts(struct ibv_cq_ex *cqx)
{
	return cqx_to_ocq(cqx)->ex_timestamp;
}

static uint64_t ex_completion_wallclock_ns(struct ibv_cq_ex *cqx)
{
	return cqx_to_ocq(cqx)->ex_real_time;
}

/*
 * What the device completes.  Both timestamps come in the CQE of a CQ
 * created with IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION, which libibverbs
 * asks for either; the kernel refuses it without a device clock.
 */
#define ORCA_WC_EX_FLAGS	(IBV_WC_STANDARD_FLAGS |			\
				 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |		\
				 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)

struct ibv_cq_ex *orca_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr)
{
	struct orca_create_cq_ex_resp resp = {};
	struct orca_create_cq_ex cmd = {};
	struct ibv_cq_ex *cqx;
	struct orca_cq *cq;
	int ret;

	struct ibv_pd *parent = NULL;

	/* no flow tags, tag matching, CVLAN, ... */
	if ((attr->wc_flags & ~(uint64_t)ORCA_WC_EX_FLAGS) ||
	    !check_comp_mask(attr->comp_mask, IBV_CQ_INIT_ATTR_MASK_FLAGS |
					      IBV_CQ_INIT_ATTR_MASK_PD) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (attr->flags & ~IBV_CREATE_CQ_ATTR_SINGLE_THREADED))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* its buffer from a parent domain's allocator: one of this context */
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) {
		parent = attr->parent_domain;
		if (!parent || parent->context != context ||
		    !orca_parent_of(parent)) {
			errno = EINVAL;
			return NULL;
		}
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	ret = cq_init(to_octx(context), cq, attr->cqe, parent, &cmd.drv_payload);
	if (ret)
		goto err_free;
	ret = ibv_cmd_create_cq_ex(context, attr, NULL,
				   &cq->vcq, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp),
				   0);
	if (ret)
		goto err_fini;
	cq->cqn = resp.drv_payload.cqn;
	cqx = &cq->vcq.cq_ex;
	cqx->start_poll = ex_start_poll;
	cqx->next_poll = ex_next_poll;
	cqx->end_poll = ex_end_poll;
	cqx->read_opcode = ex_opcode;
	cqx->read_vendor_err = ex_vendor_err;
	cqx->read_wc_flags = ex_wc_flags;
	if (attr->wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		cqx->read_byte_len = ex_byte_len;
	if (attr->wc_flags & IBV_WC_EX_WITH_IMM)
		cqx->read_imm_data = ex_imm_data;
	if (attr->wc_flags & IBV_WC_EX_WITH_QP_NUM)
		cqx->read_qp_num = ex_qp_num;
	if (attr->wc_flags & IBV_WC_EX_WITH_SRC_QP)
		cqx->read_src_qp = ex_src_qp;
	if (attr->wc_flags & IBV_WC_EX_WITH_SLID)
		cqx->read_slid = ex_slid;
	if (attr->wc_flags & IBV_WC_EX_WITH_SL)
		cqx->read_sl = ex_sl;
	if (attr->wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		cqx->read_dlid_path_bits = ex_dlid_path_bits;
	if (attr->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
		cqx->read_completion_ts = ex_completion_ts;
	if (attr->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
		cqx->read_completion_wallclock_ns = ex_completion_wallclock_ns;
	return cqx;

err_fini:
	cq_fini(cq);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}

/*
 * Drop @qpn's completions that nobody polled yet from @cq (the caller
 * holds its lock); the SRQ WQEs they name become free.  Entries of other
 * QPs move up over the dropped ones, keeping order; the device only
 * appends after the last valid entry, which is not touched.
 */
static void cq_clean_locked(struct orca_cq *cq, uint32_t qpn,
			    struct orca_srq *srq)
{
	uint32_t depth = 1U << cq->log_depth, pi, i, nfreed = 0;
	struct orca_cqe *src, *dst;

	for (pi = cq->ci; pi - cq->ci < depth; pi++) {
		struct orca_cqe *c = (struct orca_cqe *)cq->buf.va +
				     (pi & (depth - 1));

		if (__atomic_load_n(&c->owner, __ATOMIC_ACQUIRE) !=
		    1 + ((pi >> cq->log_depth) & 1))
			break;
	}
	for (i = pi; i-- != cq->ci;) {
		src = (struct orca_cqe *)cq->buf.va + (i & (depth - 1));
		if (le32toh(src->qpn) == qpn) {
			/* a dropped SRQ completion gives its WQE back */
			if ((src->flags & ORCA_CQE_F_SRQ) && srq)
				orca_srq_complete(srq, le32toh(src->wqe_idx));
			nfreed++;
		} else if (nfreed) {
			/* same pass (owner) as the slot it lands in */
			dst = (struct orca_cqe *)cq->buf.va +
			      ((i + nfreed) & (depth - 1));
			memcpy(dst, src, offsetof(struct orca_cqe, owner));
		}
	}
	if (nfreed) {
		cq->ci += nfreed;
		__atomic_store_n(&cq->dbrec->ci, htole32(cq->ci),
				 __ATOMIC_RELEASE);
	}
}

/*
 * A QP went to RESET (@forget false) or is destroyed (@forget true):
 * drop its completions from both its CQs, or its next life, or the next
 * QP with its number, would retire their WQEs (mlx5 does the same).  Both
 * CQ locks are held, the lower CQN first, so that no poller is between
 * its QPN lookup and its use of the QP; a destroyed QP leaves the QPN
 * table under them, and can then be freed.
 */
void orca_qp_clean_cqs(struct orca_qp *qp, bool forget)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;
	struct orca_cq *rcq = ibqp->recv_cq ? to_ocq(ibqp->recv_cq) : NULL;
	struct orca_cq *scq = ibqp->send_cq ? to_ocq(ibqp->send_cq) : NULL;
	struct orca_srq *srq = ibqp->srq ? to_osrq(ibqp->srq) : NULL;
	struct orca_cq *first = rcq, *second = scq;

	if (first == second)
		second = NULL;
	if (!first) {
		first = second;
		second = NULL;
	} else if (second && second->cqn < first->cqn) {
		first = scq;
		second = rcq;
	}
	if (first)
		pthread_spin_lock(&first->lock);
	if (second)
		pthread_spin_lock(&second->lock);
	if (first)
		cq_clean_locked(first, ibqp->qp_num, srq);
	if (second)
		cq_clean_locked(second, ibqp->qp_num, srq);
	if (forget)
		orca_qp_table_remove(to_octx(ibqp->context), qp);
	if (second)
		pthread_spin_unlock(&second->lock);
	if (first)
		pthread_spin_unlock(&first->lock);
}

/*
 * A new ring: the device copies the unread completions to its start (or
 * refuses, EINVAL, if they do not fit), and we read from index 0 there.
 */
int orca_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct orca_cq *cq = to_ocq(ibcq);
	struct orca_resize_cq_resp resp = {};
	struct orca_resize_cq cmd = {};
	struct orca_buf nb, old;
	unsigned int log_depth;
	size_t ring;
	int ret;

	if (cqe < 1 || cqe > (1 << 24) - 1)
		return EINVAL;
	log_depth = orca_ilog2_up(cqe + 1);
	ring = sizeof(struct orca_cqe) << log_depth;
	/* from where the first one came */
	ret = orca_buf_alloc(&nb, ring + sizeof(struct orca_cq_dbrec),
			     cq->buf.parent ? &cq->buf.parent->ibv_pd : NULL,
			     ORCA_RES_TYPE_CQ);
	if (ret)
		return ret;
	pthread_spin_lock(&cq->lock);
	cmd.drv_payload.buf_va = (uintptr_t)nb.va;
	cmd.drv_payload.buf_len = nb.len;
	cmd.drv_payload.dbrec_off = ring;
	cmd.drv_payload.log_depth = log_depth;
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (ret) {
		pthread_spin_unlock(&cq->lock);
		orca_buf_free(&nb);
		return ret;
	}
	old = cq->buf;
	((struct orca_cq_dbrec *)((uint8_t *)nb.va + ring))->arm =
		cq->dbrec->arm;
	cq->buf = nb;
	cq->log_depth = log_depth;
	cq->dbrec = (struct orca_cq_dbrec *)((uint8_t *)nb.va + ring);
	cq->ci = 0;
	pthread_spin_unlock(&cq->lock);
	orca_buf_free(&old);
	return 0;
}
