// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues of kernel consumers: the provider's ring (receive
 * WQEs, then the doorbell record) in coherent memory the driver
 * allocates.  Each posted WQE carries a free id (its wqe_id); the CQE
 * that completes it names the id, under which its wr_id waits, and the id
 * is free again.  No kick: the device reads the record when a message for
 * one of the SRQ's QPs arrives.
 */

#include "orca.h"

int orca_ksrq_create(struct orca_dev *dev, struct orca_srq *srq,
		     const struct ib_srq_attr *attr,
		     struct orca_create_srq_in *in, struct orca_pbl_buf *buf)
{
	size_t ring;
	int err;

	if (!attr->max_wr || attr->max_wr > dev->attr.max_srq_wr ||
	    attr->max_sge > dev->attr.max_srq_sge)
		return -EINVAL;
	srq->depth = 1U << orca_ilog2_up(attr->max_wr);
	srq->log_stride = orca_rq_log_stride(attr->max_sge);
	if (srq->log_stride > ORCA_RQ_MAX_LOG_STRIDE)
		return -EINVAL;
	ring = (size_t)srq->depth << srq->log_stride;
	srq->wrid = kcalloc(srq->depth, sizeof(*srq->wrid), GFP_KERNEL);
	srq->free_ids = kcalloc(srq->depth, sizeof(*srq->free_ids),
				GFP_KERNEL);
	srq->posted = bitmap_zalloc(srq->depth, GFP_KERNEL);
	err = srq->wrid && srq->free_ids && srq->posted ? 0 : -ENOMEM;
	if (!err)
		err = orca_kbuf_alloc(dev, &srq->kbuf,
				      ring + sizeof(*srq->dbrec), &in->ring,
				      buf);
	if (err) {
		kfree(srq->wrid);
		kfree(srq->free_ids);
		bitmap_free(srq->posted);
		return err;
	}
	spin_lock_init(&srq->lock);
	srq->kernel = true;
	srq->dbrec = orca_kbuf_ptr(&srq->kbuf, ring);
	in->log_depth = ilog2(srq->depth);
	in->log_stride = srq->log_stride;
	in->dbrec_off = cpu_to_le32(ring);
	return 0;
}

/* After CREATE_SRQ: every id is free; max_wr WQEs may be posted at once. */
void orca_ksrq_setup(struct orca_srq *srq)
{
	u32 i;

	srq->head = 0;
	srq->nfree = min(srq->max_wr, srq->depth);
	for (i = 0; i < srq->nfree; i++)
		srq->free_ids[i] = srq->nfree - 1 - i;
}

/* The device destroyed the SRQ (or never created it). */
void orca_ksrq_destroy(struct orca_dev *dev, struct orca_srq *srq)
{
	orca_kbuf_release(dev, &srq->kbuf);
	kfree(srq->wrid);
	kfree(srq->free_ids);
	bitmap_free(srq->posted);
	srq->wrid = NULL;
	srq->free_ids = NULL;
	srq->posted = NULL;
	srq->dbrec = NULL;
}

/*
 * The CQE of the WQE posted under @id: its wr_id; the id is free again.
 * An id the device should not have named gives 0 and a log line.
 */
u64 orca_ksrq_complete(struct orca_dev *dev, struct orca_srq *srq, u32 id)
{
	unsigned long flags;
	u64 wr_id = 0;

	spin_lock_irqsave(&srq->lock, flags);
	if (id < srq->depth && test_and_clear_bit(id, srq->posted)) {
		wr_id = srq->wrid[id];
		srq->free_ids[srq->nfree++] = id;
	} else {
		dev_err_ratelimited(&dev->pdev->dev,
				    "SRQ %u: CQE names WQE id %u, which is not posted\n",
				    srq->srqn, id);
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	return wr_id;
}

int orca_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr)
{
	struct orca_srq *srq = to_osrq(ibsrq);
	unsigned long flags;
	u32 start, id;
	int err = 0, i;

	/* a user SRQ is posted to in user space */
	if (!srq->kernel) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	spin_lock_irqsave(&srq->lock, flags);
	start = srq->head;
	for (; wr; wr = wr->next) {
		struct orca_recv_wqe *w =
			orca_kbuf_ptr(&srq->kbuf,
				      (size_t)(srq->head & (srq->depth - 1)) <<
				      srq->log_stride);
		struct orca_sge *sge = (struct orca_sge *)(w + 1);

		if (!srq->nfree) {
			err = -ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || (u32)wr->num_sge > srq->max_sge) {
			err = -EINVAL;
			break;
		}
		id = srq->free_ids[--srq->nfree];
		memset(w, 0, sizeof(*w));
		w->num_sge = cpu_to_le32(wr->num_sge);
		w->wqe_id = cpu_to_le32(id);
		for (i = 0; i < wr->num_sge; i++) {
			sge[i].addr = cpu_to_le64(wr->sg_list[i].addr);
			sge[i].length = cpu_to_le32(wr->sg_list[i].length);
			sge[i].lkey = cpu_to_le32(wr->sg_list[i].lkey);
		}
		srq->wrid[id] = wr->wr_id;
		__set_bit(id, srq->posted);
		srq->head++;
	}
	if (srq->head != start) {
		dma_wmb();	/* the WQEs before the index that names them */
		WRITE_ONCE(srq->dbrec->pi, cpu_to_le32(srq->head));
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}
