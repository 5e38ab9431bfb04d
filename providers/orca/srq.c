// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * orca libibverbs provider: shared receive queues.
 *
 * One buffer per SRQ: the ring of receive WQEs at offset 0, the doorbell
 * record after it.  Posting writes WQEs, each carrying a free wqe_id, then
 * the producer index (release); no kick, since the device reads the
 * record when a message for one of the SRQ's QPs arrives.  A completion
 * names its WQE by wqe_id: poll_cq finds the wr_id under it and returns
 * the id to the free stack.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "orca.h"

/* Ring, record and id tables for @attr, then the create command. */
static int srq_init(struct orca_srq *srq, const struct ibv_srq_attr *attr,
		    struct ibv_pd *pd, struct orca_ibv_create_srq *cmd)
{
	size_t ring;
	int ret;

	if (!attr->max_wr || attr->max_wr > (1U << 24) ||
	    attr->max_sge > 255)
		return EINVAL;
	srq->depth = 1U << orca_ilog2_up(attr->max_wr);
	srq->log_stride = orca_rq_log_stride(attr->max_sge);
	if (srq->log_stride > ORCA_RQ_MAX_LOG_STRIDE)
		return EINVAL;
	ring = (size_t)srq->depth << srq->log_stride;
	ret = orca_buf_alloc(&srq->buf, ring + sizeof(struct orca_srq_dbrec),
			     pd, ORCA_RES_TYPE_SRQ);
	if (ret)
		return ret;
	srq->dbrec = (struct orca_srq_dbrec *)((uint8_t *)srq->buf.va + ring);
	srq->wrid = calloc(srq->depth, sizeof(*srq->wrid));
	srq->free_ids = calloc(srq->depth, sizeof(*srq->free_ids));
	srq->posted = calloc(srq->depth, sizeof(*srq->posted));
	if (!srq->wrid || !srq->free_ids || !srq->posted) {
		free(srq->wrid);
		free(srq->free_ids);
		free(srq->posted);
		orca_buf_free(&srq->buf);
		return ENOMEM;
	}
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	cmd->buf_va = (uintptr_t)srq->buf.va;
	cmd->buf_len = srq->buf.len;
	cmd->dbrec_off = ring;
	cmd->log_depth = orca_ilog2_up(srq->depth);
	cmd->log_stride = srq->log_stride;
	return 0;
}

/* After create: the kernel's caps are the limits, every id is free. */
static void srq_setup(struct orca_srq *srq, const struct ibv_srq_attr *attr)
{
	uint32_t i;

	srq->max_wr = attr->max_wr < srq->depth ? attr->max_wr : srq->depth;
	srq->max_sge = attr->max_sge;
	for (i = 0; i < srq->max_wr; i++)
		srq->free_ids[i] = srq->max_wr - 1 - i;
	srq->nfree = srq->max_wr;
}

static void srq_fini(struct orca_srq *srq)
{
	pthread_spin_destroy(&srq->lock);
	free(srq->wrid);
	free(srq->free_ids);
	free(srq->posted);
	orca_buf_free(&srq->buf);
}

/*
 * ibv_create_srq_ex() calls this only for what ibv_create_srq() cannot
 * say (a CQ, a type), and orca_create_srq() for the rest; basic SRQs are
 * all the device has.
 */
struct ibv_srq *orca_create_srq_ex(struct ibv_context *context,
				   struct ibv_srq_init_attr_ex *attr)
{
	struct orca_create_srq_ex_resp resp = {};
	struct orca_create_srq_ex cmd = {};
	struct orca_srq *srq;
	int ret;

	if (!check_comp_mask(attr->comp_mask, IBV_SRQ_INIT_ATTR_TYPE |
					      IBV_SRQ_INIT_ATTR_PD |
					      IBV_SRQ_INIT_ATTR_CQ) ||
	    ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
	     attr->srq_type != IBV_SRQT_BASIC)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* a PD or CQ of another context: its handle means nothing here */
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != context ||
	    ((attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) && attr->cq &&
	     attr->cq->context != context)) {
		errno = EINVAL;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	ret = srq_init(srq, &attr->attr, attr->pd, &cmd.drv_payload);
	if (ret)
		goto err_free;
	ret = ibv_cmd_create_srq_ex(context, &srq->vsrq, attr, &cmd.ibv_cmd,
				    sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_fini;
	srq_setup(srq, &attr->attr);
	return &srq->vsrq.srq;

err_fini:
	srq_fini(srq);
err_free:
	free(srq);
	errno = ret;
	return NULL;
}

/* The same command: a basic SRQ on a PD (as orca_create_qp()). */
struct ibv_srq *orca_create_srq(struct ibv_pd *pd,
				struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex attr_ex = {
		.srq_context = attr->srq_context,
		.attr = attr->attr,
		.comp_mask = IBV_SRQ_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ibv_srq *srq;

	srq = orca_create_srq_ex(pd->context, &attr_ex);
	if (srq)
		attr->attr = attr_ex.attr;	/* report the applied sizes */
	return srq;
}

/* The limit, in the device; the kernel refuses a new size (EINVAL). */
int orca_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		    int attr_mask)
{
	struct ibv_modify_srq cmd;

	return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

int orca_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd;

	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

int orca_destroy_srq(struct ibv_srq *ibsrq)
{
	struct orca_srq *srq = to_osrq(ibsrq);
	int ret;

	/* ib_core's answer, also once the device is gone (orca_qp_refs_get) */
	if (__atomic_load_n(&srq->qp_refs, __ATOMIC_ACQUIRE))
		return EBUSY;
	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;
	srq_fini(srq);
	free(srq);
	return 0;
}

/*
 * Stops at the first WR that cannot be posted (no free WQE: ENOMEM; too
 * many SGEs: EINVAL) and returns it in *bad_wr; the ones before it are
 * posted.
 */
int orca_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct orca_srq *srq = to_osrq(ibsrq);
	uint32_t start;
	int ret = 0, i;

	pthread_spin_lock(&srq->lock);
	start = srq->head;
	for (; wr; wr = wr->next) {
		uint8_t *e = (uint8_t *)srq->buf.va +
			     ((size_t)(srq->head & (srq->depth - 1))
			      << srq->log_stride);
		struct orca_recv_wqe *w = (struct orca_recv_wqe *)e;
		struct orca_sge *sge = (struct orca_sge *)(w + 1);
		uint32_t id;

		if (!srq->nfree) {
			ret = ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > srq->max_sge) {
			ret = EINVAL;
			break;
		}
		id = srq->free_ids[--srq->nfree];
		memset(w, 0, sizeof(*w));
		w->num_sge = htole32(wr->num_sge);
		w->wqe_id = htole32(id);
		for (i = 0; i < wr->num_sge; i++) {
			sge[i].addr = htole64(wr->sg_list[i].addr);
			sge[i].length = htole32(wr->sg_list[i].length);
			sge[i].lkey = htole32(wr->sg_list[i].lkey);
		}
		srq->wrid[id] = wr->wr_id;
		srq->posted[id] = true;
		srq->head++;
	}
	if (srq->head != start)
		__atomic_store_n(&srq->dbrec->pi, htole32(srq->head),
				 __ATOMIC_RELEASE);
	pthread_spin_unlock(&srq->lock);
	if (ret)
		*bad_wr = wr;
	return ret;
}

/* A completion named WQE @wqe_id: its wr_id, and the id is free again. */
uint64_t orca_srq_complete(struct orca_srq *srq, uint32_t wqe_id)
{
	uint64_t wr_id = 0;

	pthread_spin_lock(&srq->lock);
	/* an id the device made up, or one already back, is ignored */
	if (wqe_id < srq->max_wr && srq->posted[wqe_id]) {
		wr_id = srq->wrid[wqe_id];
		srq->posted[wqe_id] = false;
		srq->free_ids[srq->nfree++] = wqe_id;
	}
	pthread_spin_unlock(&srq->lock);
	return wr_id;
}
