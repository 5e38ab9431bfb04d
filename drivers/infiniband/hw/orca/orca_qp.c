// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs: create with the user's send and receive rings (or, for a
 * kernel consumer, rings of the driver: orca_kqp.c), modify and query
 * through the device (or its state mirror), destroy, and the kick that
 * wakes the device after work was posted.
 */

#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>

#include "orca.h"
#include "orca_attr.h"
#include "orca_com_cmd.h"

int orca_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		   struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibqp->device);
	struct orca_qp *qp = to_oqp(ibqp);
	struct orca_ibv_create_qp_resp resp = {};
	struct orca_ibv_create_qp cmd = {};
	struct orca_create_qp_in in = {};
	struct orca_pbl_buf buf = {};
	struct orca_qp_ctx ctx;
	int qpt, err;
	u32 qpn;

	qpt = orca_qpt_from_ib(init_attr->qp_type);
	if (qpt < 0)
		return qpt;
	/* QP0 and QP1 are ib_mad's: kernel QPs of a device that has them */
	if (qpt == ORCA_QPT_SMI || qpt == ORCA_QPT_GSI) {
		if (udata || init_attr->port_num != 1 ||
		    !(le32_to_cpu(dev->caps.dev_caps) & ORCA_DEV_CAP_MAD_QPS))
			return -EOPNOTSUPP;
		qp->port = init_attr->port_num;
	}
	if (init_attr->create_flags & ~IB_QP_CREATE_PCI_WRITE_END_PADDING)
		return -EOPNOTSUPP;
	if (udata) {
		if (udata->inlen < sizeof(cmd))
			return -EINVAL;
		err = ib_copy_from_udata(&cmd, udata, sizeof(cmd));
		if (err)
			return err;
		err = orca_check_udata_in(dev, udata, sizeof(cmd));
		if (err)
			return err;
		/* the device checks the geometry against caps and buffer */
		if (cmd.rq_off >= cmd.buf_len || cmd.dbrec_off >= cmd.buf_len)
			return -EINVAL;
	} else if (init_attr->srq && !to_osrq(init_attr->srq)->kernel) {
		return -EINVAL;		/* a user SRQ for a kernel QP */
	}

	in.qp_type = qpt;
	in.sq_sig_all = init_attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	in.pdn = cpu_to_le32(to_opd(ibqp->pd)->pdn);
	in.send_cqn = cpu_to_le32(to_ocq(init_attr->send_cq)->cqn);
	in.recv_cqn = cpu_to_le32(to_ocq(init_attr->recv_cq)->cqn);
	in.max_send_wr = cpu_to_le32(init_attr->cap.max_send_wr);
	in.max_send_sge = cpu_to_le32(init_attr->cap.max_send_sge);
	/* with an SRQ the receive caps are ignored: it has no RQ (IBTA) */
	if (init_attr->srq) {
		in.srqn = cpu_to_le32(to_osrq(init_attr->srq)->srqn);
	} else {
		in.max_recv_wr = cpu_to_le32(init_attr->cap.max_recv_wr);
		in.max_recv_sge = cpu_to_le32(init_attr->cap.max_recv_sge);
	}
	in.max_inline_data = cpu_to_le32(init_attr->cap.max_inline_data);
	if (init_attr->create_flags & IB_QP_CREATE_PCI_WRITE_END_PADDING)
		in.create_flags |=
			cpu_to_le32(ORCA_QP_CREATE_PCI_WRITE_END_PADDING);
	if (udata) {
		struct orca_ucontext *uctx =
			rdma_udata_to_drv_context(udata, struct orca_ucontext,
						  ibucontext);

		/* its context names every post in the ring (orca_udb.c) */
		if (uctx->kick_page) {
			in.create_flags |=
				cpu_to_le32(ORCA_QP_CREATE_KICK_RING);
			in.kick_ring = cpu_to_le16(uctx->kick_ring);
		}
		in.sq_log_depth = cmd.sq_log_depth;
		in.sq_log_stride = cmd.sq_log_stride;
		in.rq_log_depth = cmd.rq_log_depth;
		in.rq_log_stride = cmd.rq_log_stride;
		in.rq_off = cpu_to_le32(cmd.rq_off);
		in.dbrec_off = cpu_to_le32(cmd.dbrec_off);
		/* the device only reads the queues and the doorbell record */
		qp->umem = orca_umem_ring(dev, cmd.buf_va, cmd.buf_len, 0,
					  &in.ring, &buf);
		if (IS_ERR(qp->umem))
			return PTR_ERR(qp->umem);
	} else {
		err = orca_kqp_create(dev, qp, init_attr, &in, &buf);
		if (err)
			return err;
	}
	err = orca_cmd_create_qp(&dev->com, &in, &ctx);
	orca_pbl_free(dev, &buf);
	if (err)
		goto err_release;

	qpn = le32_to_cpu(ctx.qpn);
	mutex_init(&qp->lock);
	qp->state = IB_QPS_RESET;
	qp->ctx = ctx;
	orca_pbl_info_set(&qp->ring, &in.ring);
	qp->rq_off = le32_to_cpu(in.rq_off);
	qp->dbrec_off = le32_to_cpu(in.dbrec_off);
	qp->sq_log_depth = in.sq_log_depth;
	qp->sq_log_stride = in.sq_log_stride;
	qp->rq_log_depth = in.rq_log_depth;
	qp->rq_log_stride = in.rq_log_stride;
	ibqp->qp_num = qpn;
	init_attr->cap.max_send_wr = le32_to_cpu(ctx.max_send_wr);
	init_attr->cap.max_recv_wr = le32_to_cpu(ctx.max_recv_wr);
	init_attr->cap.max_send_sge = le32_to_cpu(ctx.max_send_sge);
	init_attr->cap.max_recv_sge = le32_to_cpu(ctx.max_recv_sge);
	init_attr->cap.max_inline_data = le32_to_cpu(ctx.max_inline_data);

	err = orca_track(dev, &dev->qps, qpn, qp, "QPN");
	if (err)
		goto err_destroy;
	if (qp->kernel) {	/* no udata to answer */
		orca_kqp_setup(qp, init_attr);
		return 0;
	}

	if (orca_udata_ece(udata)) {
		resp.comp_mask |= ORCA_IBV_CREATE_QP_RESP_ECE_OPTIONS;
		resp.ece_options = le32_to_cpu(ctx.ece_options);
	}
	err = orca_respond(udata, &resp, sizeof(resp));
	if (err)
		goto err_forget;
	return 0;

err_forget:
	orca_retire(dev, &dev->qps, qpn, qp);
err_destroy:
	orca_cmd_destroy_qp(&dev->com, qpn);
	orca_release_number(dev, &dev->qps, qpn);
	mutex_destroy(&qp->lock);
err_release:
	orca_umem_release(dev, qp->umem);
	orca_kqp_destroy(dev, qp);
	return err;
}

/*
 * Where the QP is now: the device may have moved it (ERR, SQE) since the
 * last command; the mirror has that before any event reports it.
 */
static enum ib_qp_state orca_qp_state(struct orca_dev *dev, struct orca_qp *qp)
{
	struct orca_qp_ctx ctx;

	/* a dead device's mirror is stale: ERR may be recorded here only */
	if (!orca_com_is_dead(&dev->com) &&
	    orca_read_mirror(dev, qp->ibqp.qp_num, &ctx) &&
	    ctx.state <= ORCA_QPS_ERR)
		WRITE_ONCE(qp->state, orca_qps_to_ib(ctx.state));
	return READ_ONCE(qp->state);
}

static int orca_modify_qp_udata(struct orca_dev *dev, struct ib_udata *udata,
				struct orca_modify_qp_in *in)
{
	struct orca_ibv_modify_qp ucmd = {};
	int err;

	if (!udata || !udata->inlen)
		return 0;
	err = ib_copy_from_udata(&ucmd, udata, min(sizeof(ucmd), udata->inlen));
	if (err)
		return err;
	err = orca_check_udata_in(dev, udata, sizeof(ucmd));
	if (err)
		return err;
	if ((ucmd.comp_mask & ORCA_IBV_MODIFY_QP_ECE_OPTIONS) &&
	    !orca_udata_ece(udata))
		return -EOPNOTSUPP;
	return orca_ece_to_modify_in(&dev->caps, &ucmd, in);
}

/**
 * orca_qp_dispatch_event - tell a QP's consumer of an affiliated event
 * @qp: the QP
 * @type: the event
 */
void orca_qp_dispatch_event(struct orca_qp *qp, enum ib_event_type type)
{
	struct ib_event ibev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ibev, qp->ibqp.qp_context);
}

int orca_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibqp->device);
	struct orca_qp *qp = to_oqp(ibqp);
	struct orca_ibv_modify_qp_resp resp = {};
	enum ib_qp_state cur, next;
	struct orca_modify_qp_in in = {};
	bool last_wqe = false;
	struct orca_qp_ctx ctx;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	err = orca_modify_qp_udata(dev, udata, &in);
	if (err)
		return err;
	err = orca_qp_attr_to_modify_in(attr, mask, &in);
	if (err)
		return err;
	in.qpn = cpu_to_le32(ibqp->qp_num);
	/*
	 * ib_mad gives QP0 and QP1 no port (IBA: theirs is fixed); the
	 * device's UD rules want it at INIT, so it is the one they have.
	 */
	if (qp->port && (mask & IB_QP_STATE) && attr->qp_state == IB_QPS_INIT) {
		in.attr_mask |= cpu_to_le32(ORCA_QP_PORT);
		in.ctx.port = qp->port;
	}

	mutex_lock(&qp->lock);
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : orca_qp_state(dev, qp);
	next = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask)) {
		ibdev_dbg(&dev->ibdev,
			  "QP %u: invalid modify %d -> %d, mask 0x%x\n",
			  ibqp->qp_num, cur, next, mask);
		err = -EINVAL;
		goto out;
	}

	err = orca_cmd_modify_qp(&dev->com, &in, &ctx);
	if (err && qp->kernel && (next == IB_QPS_ERR || next == IB_QPS_RESET) &&
	    orca_com_is_dead(&dev->com)) {
		/*
		 * A dead device's QPs are in error (IBA: catastrophic
		 * error), and ib_drain_qp() and the consumers' teardown go
		 * on from there, to ERR and to RESET: the state is recorded
		 * here, and poll_cq flushes what the QP has outstanding (as
		 * mlx5 does in internal error).
		 */
		ibdev_dbg(&dev->ibdev, "QP %u: to %s on a dead device\n",
			  ibqp->qp_num, next == IB_QPS_ERR ? "ERR" : "RESET");
		ctx = qp->ctx;
		ctx.state = next == IB_QPS_ERR ? ORCA_QPS_ERR : ORCA_QPS_RESET;
		/* IBA 11.6.3.4: what the device would say of an SRQ QP */
		last_wqe = next == IB_QPS_ERR && cur != IB_QPS_ERR &&
			   ibqp->srq;
		err = 0;
	}
	if (err)
		goto out;
	qp->ctx = ctx;
	WRITE_ONCE(qp->state, orca_qps_to_ib(ctx.state));
	if (qp->kernel && ctx.state == ORCA_QPS_RESET)
		orca_kqp_reset(qp);

	if (orca_udata_ece(udata)) {
		resp.comp_mask = ORCA_IBV_MODIFY_QP_RESP_ECE_OPTIONS |
				 ORCA_IBV_MODIFY_QP_RESP_ECE_NEGOTIATED;
		resp.ece_options = le32_to_cpu(ctx.ece_options);
		/* the device checked cur: the transition really happened */
		resp.ece_negotiated = (in.flags & cpu_to_le32(ORCA_MODIFY_F_ECE)) &&
				      ((cur == IB_QPS_INIT && next == IB_QPS_RTR) ||
				       (cur == IB_QPS_RTR && next == IB_QPS_RTS));
	}
	/* the state changed on the device: a copy failure cannot undo it */
	err = orca_respond(udata, &resp, sizeof(resp));
out:
	mutex_unlock(&qp->lock);
	/* a handler may query or modify the QP: not under its lock */
	if (last_wqe)
		orca_qp_dispatch_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
	return err;
}

/*
 * The device writes every state change of a QP into its mirror entry
 * before it reports the change, so the mirror and the context the last
 * MODIFY_QP returned describe the QP without a command.  Returns false
 * if the entry is not (or not yet) usable.
 */
bool orca_read_mirror(struct orca_dev *dev, u32 qpn, struct orca_qp_ctx *ctx)
{
	const struct orca_qp_mirror *m;
	struct orca_qp_mirror snap;
	unsigned int tries;
	u32 seq;

	if (qpn >= dev->mirror_entries)
		return false;
	m = &dev->mirror[qpn];
	for (tries = 0; tries < 100; tries++) {
		seq = le32_to_cpu(READ_ONCE(m->seq));
		if (seq & 1) {
			cpu_relax();
			continue;
		}
		dma_rmb();
		memcpy(&snap, m, sizeof(snap));
		dma_rmb();
		if (le32_to_cpu(READ_ONCE(m->seq)) != seq)
			continue;
		if (!seq || le32_to_cpu(snap.qpn) != qpn)
			return false;
		if (snap.state > ORCA_QPS_ERR ||
		    snap.path_mig_state > ORCA_MIG_ARMED) {
			dev_warn_ratelimited(&dev->pdev->dev,
					     "QP %u mirror entry has state %u, path migration state %u: not used\n",
					     qpn, snap.state,
					     snap.path_mig_state);
			return false;
		}
		ctx->state = snap.state;
		ctx->sq_draining = snap.sq_draining;
		ctx->path_mig_state = snap.path_mig_state;
		return true;
	}
	return false;
}

int orca_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init_attr)
{
	struct orca_dev *dev = to_odev(ibqp->device);
	struct orca_qp *qp = to_oqp(ibqp);
	struct orca_qp_ctx ctx;
	int err = 0;

	mutex_lock(&qp->lock);
	ctx = qp->ctx;
	if (READ_ONCE(dev->query_qp_fw) ||
	    !orca_read_mirror(dev, ibqp->qp_num, &ctx)) {
		err = orca_cmd_query_qp(&dev->com, ibqp->qp_num, &ctx);
		if (!err)
			qp->ctx = ctx;
	} else if (orca_com_is_dead(&dev->com)) {
		err = -EIO;
	}
	if (!err)
		WRITE_ONCE(qp->state, orca_qps_to_ib(ctx.state));
	mutex_unlock(&qp->lock);
	if (err)
		return err;

	memset(init_attr, 0, sizeof(*init_attr));
	orca_qp_ctx_to_ib(&ctx, attr, init_attr);
	init_attr->qp_type = ibqp->qp_type;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->srq = ibqp->srq;
	return 0;
}

/*
 * As orca_destroy_cq(): the number retires first, and is free again only
 * once no CQE of the QP is left in a kernel CQ's ring (or its SRQ's ids).
 */
int orca_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibqp->device);
	struct orca_qp *qp = to_oqp(ibqp);
	int err;

	orca_retire(dev, &dev->qps, ibqp->qp_num, qp);
	err = orca_cmd_destroy_qp(&dev->com, ibqp->qp_num);
	if (err) {
		orca_unretire(dev, &dev->qps, ibqp->qp_num, qp);
		return err;
	}
	if (qp->kernel)
		orca_kcq_disown(qp);
	orca_release_number(dev, &dev->qps, ibqp->qp_num);
	orca_umem_release(dev, qp->umem);
	orca_kqp_destroy(dev, qp);
	mutex_destroy(&qp->lock);
	return 0;
}

int orca_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr)
{
	struct orca_dev *dev = to_odev(ibqp->device);

	if (to_oqp(ibqp)->kernel)
		return orca_kqp_post_send(dev, to_oqp(ibqp), wr, bad_wr);
	/* a user QP's WQEs are in its rings: a WR here is no kick */
	if (wr) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	orca_kick(dev);
	return 0;
}

int orca_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr)
{
	struct orca_dev *dev = to_odev(ibqp->device);

	if (to_oqp(ibqp)->kernel)
		return orca_kqp_post_recv(dev, to_oqp(ibqp), wr, bad_wr);
	if (wr) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	orca_kick(dev);
	return 0;
}
