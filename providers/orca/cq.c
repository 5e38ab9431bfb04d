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

struct ibv_cq *orca_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector)
{
	struct orca_create_cq_resp resp = {};
	struct orca_create_cq cmd = {};
	unsigned int log_depth;
	size_t ring;
	struct orca_cq *cq;
	int ret;

	if (cqe < 1 || cqe > (1 << 24) - 1) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	/* one more entry than asked for: the device reports 2^n - 1 */
	log_depth = orca_ilog2_up(cqe + 1);
	ring = sizeof(struct orca_cqe) << log_depth;
	ret = orca_buf_alloc(&cq->buf, ring + sizeof(struct orca_cq_dbrec));
	if (ret)
		goto err_free;
	cq->log_depth = log_depth;
	cq->dbrec = (struct orca_cq_dbrec *)((uint8_t *)cq->buf.va + ring);
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);

	cmd.drv_payload.buf_va = (uintptr_t)cq->buf.va;
	cmd.drv_payload.buf_len = cq->buf.len;
	cmd.drv_payload.dbrec_off = ring;
	cmd.drv_payload.log_depth = log_depth;
	ret = ibv_cmd_create_cq(context, cqe, channel, comp_vector,
				&cq->ibv_cq, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_buf;
	cq->cqn = resp.drv_payload.cqn;
	return &cq->ibv_cq;

err_buf:
	pthread_spin_destroy(&cq->lock);
	orca_buf_free(&cq->buf);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}

int orca_destroy_cq(struct ibv_cq *ibcq)
{
	struct orca_cq *cq = to_ocq(ibcq);
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	pthread_spin_destroy(&cq->lock);
	orca_buf_free(&cq->buf);
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
	if (cqe->flags & ORCA_CQE_F_GRH)
		wc->wc_flags |= IBV_WC_GRH;
	if (!qp)	/* destroyed meanwhile: nothing to retire */
		return;
	if (cqe->flags & ORCA_CQE_F_SQ) {
		if (qp->sq.depth)
			wc->wr_id = retire(&qp->sq, idx);
	} else if (qp->rq.depth) {
		wc->wr_id = retire(&qp->rq, idx);
	}
}

int orca_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct orca_context *ctx = to_octx(ibcq->context);
	struct orca_cq *cq = to_ocq(ibcq);
	struct orca_cqe *cqe;
	int n;

	pthread_spin_lock(&cq->lock);
	for (n = 0; n < ne; n++) {
		cqe = next_cqe(cq);
		if (!cqe)
			break;
		fill_wc(ctx, cqe, &wc[n]);
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
