// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues.  The ring and its doorbell record live in one buffer
 * the provider allocates; the kernel pins it for the device to write and
 * hands the device its page list.  Polling happens in userspace.  A kernel
 * consumer's CQ has the same ring in driver memory (orca_kcq.c).
 */

#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

#include "orca.h"
#include "orca_com_cmd.h"

/* The provider's ring for @cqe entries: read and checked. */
static int orca_cq_udata(struct orca_dev *dev, struct ib_udata *udata,
			 unsigned int cqe, struct orca_ibv_create_cq *cmd)
{
	u64 ring_bytes;
	int err;

	/* a kernel CQ is not resized; it is created by orca_kcq_create() */
	if (!udata)
		return -EOPNOTSUPP;
	if (udata->inlen < sizeof(*cmd))
		return -EINVAL;
	err = ib_copy_from_udata(cmd, udata, sizeof(*cmd));
	if (err)
		return err;
	err = orca_check_udata_in(dev, udata, sizeof(*cmd));
	if (err)
		return err;
	if (memchr_inv(cmd->reserved_a0, 0, sizeof(cmd->reserved_a0)))
		return -EOPNOTSUPP;
	if (!cqe || cqe > (unsigned int)dev->attr.max_cqe)
		return -EINVAL;
	ring_bytes = (u64)sizeof(struct orca_cqe) << min(cmd->log_depth, 32U);
	if (cmd->log_depth > 24 || BIT_ULL(cmd->log_depth) <= cqe ||
	    cmd->dbrec_off < ring_bytes || !IS_ALIGNED(cmd->dbrec_off, 8) ||
	    cmd->buf_len < sizeof(struct orca_cq_dbrec) ||
	    cmd->dbrec_off > cmd->buf_len - sizeof(struct orca_cq_dbrec)) {
		ibdev_dbg(&dev->ibdev, "CQ ring 2^%u, dbrec at %u, buffer %u: inconsistent\n",
			  cmd->log_depth, cmd->dbrec_off, cmd->buf_len);
		return -EINVAL;
	}
	return 0;
}

int orca_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct uverbs_attr_bundle *attrs)
{
	struct ib_udata *udata = attrs ? &attrs->driver_udata : NULL;
	struct orca_dev *dev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);
	struct orca_ibv_create_cq_resp resp = {};
	struct orca_ibv_create_cq cmd = {};
	struct orca_create_cq_in in = {};
	struct orca_pbl_buf buf = {};
	u32 cqe;
	int err;

	/*
	 * Timestamps are for the provider to read (ibv_wc_read_completion_ts
	 * and _wallclock_ns): a kernel CQ's poller has no field for them.
	 */
	if (attr->flags & ~IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION)
		return -EOPNOTSUPP;
	if (attr->flags & IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION) {
		if (!udata || !dev->attr.hca_core_clock)
			return -EOPNOTSUPP;
		in.flags = ORCA_CQ_CREATE_TIMESTAMP;
	}
	if (udata) {
		err = orca_cq_udata(dev, udata, attr->cqe, &cmd);
		if (err)
			return err;
		cq->umem = orca_umem_ring(dev, cmd.buf_va, cmd.buf_len,
					  IB_ACCESS_LOCAL_WRITE, &in.ring,
					  &buf);
		if (IS_ERR(cq->umem))
			return PTR_ERR(cq->umem);
		in.log_depth = cmd.log_depth;
		in.dbrec_off = cpu_to_le32(cmd.dbrec_off);
		cq->dbrec_off = cmd.dbrec_off;
		cq->log_depth = cmd.log_depth;
	} else {
		if (attr->cqe < 1 || attr->cqe > dev->attr.max_cqe)
			return -EINVAL;
		err = orca_kcq_create(dev, cq, attr->cqe, &in, &buf);
		if (err)
			return err;
	}
	mutex_init(&cq->resize_lock);
	in.cqe = cpu_to_le32(attr->cqe);
	in.comp_vector = cpu_to_le32(attr->comp_vector);
	err = orca_cmd_create_cq(&dev->com, &in, &cq->cqn, &cqe);
	orca_pbl_free(dev, &buf);
	if (err)
		goto err_release;
	ibcq->cqe = cqe;
	orca_pbl_info_set(&cq->ring, &in.ring);
	cq->comp_vector = attr->comp_vector;

	err = orca_track(dev, &dev->cqs, cq->cqn, cq, "CQN");
	if (err)
		goto err_destroy;
	resp.cqn = cq->cqn;
	err = orca_respond(udata, &resp, sizeof(resp));
	if (err)
		goto err_forget;
	return 0;

err_forget:
	orca_retire(dev, &dev->cqs, cq->cqn, cq);
	orca_ceq_sync(dev);	/* no handler still running on it */
err_destroy:
	if (!orca_cmd_destroy_cq(&dev->com, cq->cqn))
		orca_ceq_drain(dev);
	orca_release_number(dev, &dev->cqs, cq->cqn);
err_release:
	orca_umem_release(dev, cq->umem);
	orca_kcq_destroy(dev, cq);
	mutex_destroy(&cq->resize_lock);
	return err;
}

/*
 * The number retires before DESTROY (no handler looks the CQ up from
 * then on) and is free again only once the completion EQ holds no entry
 * of it: a CQ that gets the number from the device meanwhile waits in
 * orca_track(), so no event of this CQ reaches it.
 */
int orca_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);
	int err;

	orca_retire(dev, &dev->cqs, cq->cqn, cq);
	orca_ceq_sync(dev);
	err = orca_cmd_destroy_cq(&dev->com, cq->cqn);
	if (err) {	/* still the device's: nobody else can have it */
		orca_unretire(dev, &dev->cqs, cq->cqn, cq);
		return err;
	}
	orca_ceq_drain(dev);
	orca_release_number(dev, &dev->cqs, cq->cqn);
	orca_umem_release(dev, cq->umem);
	orca_kcq_destroy(dev, cq);
	mutex_destroy(&cq->resize_lock);
	return 0;
}

/*
 * The provider hands a new ring; the device copies the unread CQEs to its
 * start (or refuses a ring too small for them: -EINVAL) and from then on
 * writes only there, so the old ring can go.
 */
int orca_resize_cq(struct ib_cq *ibcq, unsigned int cqe,
		   struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);
	struct orca_ibv_create_cq cmd = {};
	struct orca_create_cq_in in = {};
	struct orca_pbl_buf buf = {};
	struct ib_umem *umem;
	u32 actual;
	int err;

	err = orca_cq_udata(dev, udata, cqe, &cmd);
	if (err)
		return err;
	umem = orca_umem_ring(dev, cmd.buf_va, cmd.buf_len,
			      IB_ACCESS_LOCAL_WRITE, &in.ring, &buf);
	if (IS_ERR(umem))
		return PTR_ERR(umem);
	in.cqe = cpu_to_le32(cqe);
	in.log_depth = cmd.log_depth;
	in.dbrec_off = cpu_to_le32(cmd.dbrec_off);
	mutex_lock(&cq->resize_lock);
	err = orca_cmd_resize_cq(&dev->com, cq->cqn, &in, &actual);
	orca_pbl_free(dev, &buf);
	if (err) {
		mutex_unlock(&cq->resize_lock);
		orca_umem_release(dev, umem);
		return err;
	}
	/* the device writes only to the new ring now */
	swap(cq->umem, umem);
	ibcq->cqe = actual;
	orca_pbl_info_set(&cq->ring, &in.ring);
	WRITE_ONCE(cq->dbrec_off, cmd.dbrec_off);
	WRITE_ONCE(cq->log_depth, cmd.log_depth);
	mutex_unlock(&cq->resize_lock);
	orca_umem_release(dev, umem);
	return 0;
}
