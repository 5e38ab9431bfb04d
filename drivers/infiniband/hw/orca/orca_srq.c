// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared receive queues.  The ring of receive WQEs and its doorbell record
 * live in one buffer the provider allocates; the kernel pins it for the
 * device to read and hands the device its page list.  Posting happens in
 * userspace; the device takes WQEs when messages for the SRQ's QPs arrive.
 * A kernel consumer's SRQ has the same ring in driver memory (orca_ksrq.c).
 */

#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

#include "orca.h"
#include "orca_com_cmd.h"

/* The provider's ring for @attr: read and checked. */
static int orca_srq_udata(struct orca_dev *dev, struct ib_udata *udata,
			  const struct ib_srq_attr *attr,
			  struct orca_ibv_create_srq *cmd)
{
	u64 ring_bytes;
	int err;

	if (udata->inlen < sizeof(*cmd))
		return -EINVAL;
	err = ib_copy_from_udata(cmd, udata, sizeof(*cmd));
	if (err)
		return err;
	err = orca_check_udata_in(dev, udata, sizeof(*cmd));
	if (err)
		return err;
	if (memchr_inv(cmd->reserved_90, 0, sizeof(cmd->reserved_90)))
		return -EOPNOTSUPP;
	if (!attr->max_wr || attr->max_wr > dev->attr.max_srq_wr ||
	    attr->max_sge > dev->attr.max_srq_sge)
		return -EINVAL;
	if (cmd->log_depth > 24 || cmd->log_stride > ORCA_RQ_MAX_LOG_STRIDE ||
	    BIT_ULL(cmd->log_depth) < attr->max_wr)
		goto bad;
	ring_bytes = BIT_ULL(cmd->log_depth + cmd->log_stride);
	if (cmd->dbrec_off < ring_bytes || !IS_ALIGNED(cmd->dbrec_off, 8) ||
	    cmd->buf_len < sizeof(struct orca_srq_dbrec) ||
	    cmd->dbrec_off > cmd->buf_len - sizeof(struct orca_srq_dbrec))
		goto bad;
	return 0;
bad:
	ibdev_dbg(&dev->ibdev, "SRQ ring 2^%u x 2^%u, dbrec at %u, buffer %u: inconsistent\n",
		  cmd->log_depth, cmd->log_stride, cmd->dbrec_off, cmd->buf_len);
	return -EINVAL;
}

int orca_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init_attr,
		    struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibsrq->device);
	struct orca_srq *srq = to_osrq(ibsrq);
	struct orca_ibv_create_srq_resp resp = {};
	struct orca_ibv_create_srq cmd = {};
	struct orca_create_srq_in in = {};
	struct orca_pbl_buf buf = {};
	struct orca_srq_attr out;
	int err;

	/* a device without SRQs is asked nothing */
	if (!dev->attr.max_srq || init_attr->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (udata) {
		err = orca_srq_udata(dev, udata, &init_attr->attr, &cmd);
		if (err)
			return err;
		/* the device only reads the ring and the doorbell record */
		srq->umem = orca_umem_ring(dev, cmd.buf_va, cmd.buf_len, 0,
					   &in.ring, &buf);
		if (IS_ERR(srq->umem))
			return PTR_ERR(srq->umem);
		in.log_depth = cmd.log_depth;
		in.log_stride = cmd.log_stride;
		in.dbrec_off = cpu_to_le32(cmd.dbrec_off);
	} else {
		err = orca_ksrq_create(dev, srq, &init_attr->attr, &in, &buf);
		if (err)
			return err;
	}
	in.pdn = cpu_to_le32(to_opd(ibsrq->pd)->pdn);
	in.max_wr = cpu_to_le32(init_attr->attr.max_wr);
	in.max_sge = cpu_to_le32(init_attr->attr.max_sge);
	/* srq_limit is irrelevant for create (ibv_create_srq(3)): unarmed */
	err = orca_cmd_create_srq(&dev->com, &in, &out);
	orca_pbl_free(dev, &buf);
	if (err)
		goto err_release;
	srq->srqn = le32_to_cpu(out.srqn);
	srq->max_wr = le32_to_cpu(out.max_wr);
	srq->max_sge = le32_to_cpu(out.max_sge);
	init_attr->attr.max_wr = srq->max_wr;
	init_attr->attr.max_sge = srq->max_sge;

	if (srq->kernel)
		orca_ksrq_setup(srq);
	err = orca_track(dev, &dev->srqs, srq->srqn, srq, "SRQN");
	if (err)
		goto err_destroy;
	resp.srqn = srq->srqn;
	err = orca_respond(udata, &resp, sizeof(resp));
	if (err)
		goto err_forget;
	return 0;

err_forget:
	orca_retire(dev, &dev->srqs, srq->srqn, srq);
err_destroy:
	orca_cmd_destroy_srq(&dev->com, srq->srqn);
	orca_release_number(dev, &dev->srqs, srq->srqn);
err_release:
	orca_umem_release(dev, srq->umem);
	orca_ksrq_destroy(dev, srq);
	return err;
}

/*
 * Only the limit can change: the device cannot resize an SRQ (no
 * IB_DEVICE_SRQ_RESIZE), and like mlx5 the driver refuses IB_SRQ_MAX_WR
 * with -EINVAL before asking it.
 */
int orca_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibsrq->device);
	struct orca_srq *srq = to_osrq(ibsrq);
	int err;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EOPNOTSUPP;
	if (mask & IB_SRQ_MAX_WR)
		return -EINVAL;
	err = orca_check_udata_in(dev, udata, 0);
	if (err)
		return err;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > srq->max_wr)
		return -EINVAL;
	return orca_cmd_modify_srq(&dev->com, srq->srqn, ORCA_SRQ_LIMIT,
				   attr->srq_limit);
}

/* The limit is the device's: it disarms it when the event fires. */
int orca_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct orca_dev *dev = to_odev(ibsrq->device);
	struct orca_srq *srq = to_osrq(ibsrq);
	struct orca_srq_attr out;
	int err;

	err = orca_cmd_query_srq(&dev->com, srq->srqn, &out);
	if (err)
		return err;
	attr->max_wr = le32_to_cpu(out.max_wr);
	attr->max_sge = le32_to_cpu(out.max_sge);
	attr->srq_limit = le32_to_cpu(out.limit);
	return 0;
}

/* As orca_destroy_cq(): the number retires first. */
int orca_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibsrq->device);
	struct orca_srq *srq = to_osrq(ibsrq);
	int err;

	orca_retire(dev, &dev->srqs, srq->srqn, srq);
	err = orca_cmd_destroy_srq(&dev->com, srq->srqn);
	if (err) {	/* still the device's: nobody else can have it */
		orca_unretire(dev, &dev->srqs, srq->srqn, srq);
		return err;
	}
	orca_release_number(dev, &dev->srqs, srq->srqn);
	orca_umem_release(dev, srq->umem);
	orca_ksrq_destroy(dev, srq);
	return 0;
}
