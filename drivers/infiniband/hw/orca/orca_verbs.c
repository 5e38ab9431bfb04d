// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ib_device_ops: every verb is answered by the device's firmware. */

#include <rdma/ib_user_verbs.h>
#include <rdma/orca-abi.h>
#include <rdma/uverbs_ioctl.h>

#include <linux/module.h>

#include "orca.h"
#include "orca_attr.h"
#include "orca_com_cmd.h"

/* Input the driver does not understand must be zero. */
static int orca_check_udata_in(struct orca_dev *dev, struct ib_udata *udata,
			       size_t known)
{
	if (!udata || udata->inlen <= known)
		return 0;
	if (!ib_is_udata_cleared(udata, known, udata->inlen - known)) {
		ibdev_dbg(&dev->ibdev, "unknown non-zero udata input\n");
		return -EOPNOTSUPP;
	}
	return 0;
}

static int orca_respond(struct ib_udata *udata, void *resp, size_t len)
{
	if (!udata || !udata->outlen)
		return 0;
	return ib_copy_to_udata(udata, resp, min(len, udata->outlen));
}

/* Called once, after QUERY_CAPS. */
void orca_cache_device_attr(struct orca_dev *dev)
{
	struct orca_ibv_ex_query_device_resp *resp = &dev->query_device_resp;
	const struct orca_caps *caps = &dev->caps;

	orca_caps_to_ib_attr(caps, &dev->attr);

	memset(resp, 0, sizeof(*resp));
	resp->comp_mask = ORCA_IBV_QUERY_DEVICE_RESP_V1;
	resp->device_caps = orca_caps_to_uapi_device_caps(caps);
	resp->ece_vendor_id = le32_to_cpu(caps->ece_vendor_id);
	resp->ece_options = le32_to_cpu(caps->ece_options);
	resp->data_in_order_caps = orca_caps_to_uapi_dio(caps);
	resp->max_inline_data = le32_to_cpu(caps->max_inline_data);
	resp->max_tso = le32_to_cpu(caps->max_tso);
	resp->tso_supported_qpts = le32_to_cpu(caps->tso_qpts);
	resp->qp_rate_limit_min = le32_to_cpu(caps->qp_rate_limit_min);
	resp->qp_rate_limit_max = le32_to_cpu(caps->qp_rate_limit_max);
	resp->packet_pacing_supported_qpts = le32_to_cpu(caps->pacing_qpts);
	resp->pci_atomic_fetch_add = le16_to_cpu(caps->pci_atomic_fetch_add);
	resp->pci_atomic_swap = le16_to_cpu(caps->pci_atomic_swap);
	resp->pci_atomic_compare_swap =
		le16_to_cpu(caps->pci_atomic_compare_swap);
}

int orca_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		      struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibdev);
	int err;

	err = orca_check_udata_in(dev, udata, 0);
	if (err)
		return err;
	*attr = dev->attr;
	return orca_respond(udata, &dev->query_device_resp,
			    sizeof(dev->query_device_resp));
}

int orca_query_port(struct ib_device *ibdev, u32 port,
		    struct ib_port_attr *attr)
{
	struct orca_dev *dev = to_odev(ibdev);
	struct orca_port_attr pa;
	int err;

	err = orca_cmd_query_port(&dev->com, port, &pa);
	if (err)
		return err;
	orca_port_to_ib_attr(&pa, attr);
	return 0;
}

int orca_query_gid(struct ib_device *ibdev, u32 port, int index,
		   union ib_gid *gid)
{
	struct orca_dev *dev = to_odev(ibdev);
	struct orca_port_attr pa;
	int err;

	err = orca_cmd_query_port(&dev->com, port, &pa);
	if (err)
		return err;
	if (index < 0 || index >= le16_to_cpu(pa.gid_tbl_len))
		return -EINVAL;
	/* the GID table holds the port's default GID only */
	gid->global.subnet_prefix = cpu_to_be64(le64_to_cpu(pa.subnet_prefix));
	gid->global.interface_id = cpu_to_be64(le64_to_cpu(pa.port_guid));
	return 0;
}

int orca_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	struct orca_dev *dev = to_odev(ibdev);
	struct orca_port_attr pa;
	int err;

	err = orca_cmd_query_port(&dev->com, port, &pa);
	if (err)
		return err;
	if (index >= le16_to_cpu(pa.pkey_tbl_len))
		return -EINVAL;
	*pkey = le16_to_cpu(pa.pkey);
	return 0;
}

int orca_get_port_immutable(struct ib_device *ibdev, u32 port,
			    struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr;
	int err;

	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	/* no MAD agent: the port needs neither SMI nor GSI QPs */
	immutable->core_cap_flags = RDMA_CORE_CAP_PROT_IB;
	return 0;
}

void orca_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	u64 fw = le64_to_cpu(to_odev(ibdev)->caps.fw_version);

	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.%u.%u",
		 ORCA_FW_VERSION_MAJOR(fw), ORCA_FW_VERSION_MINOR(fw),
		 ORCA_FW_VERSION_SUB(fw));
}

int orca_alloc_ucontext(struct ib_ucontext *ibucontext,
			struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibucontext->device);
	const struct orca_ibv_ex_query_device_resp *qd =
		&dev->query_device_resp;
	struct orca_ibv_alloc_ucontext_resp resp = {};
	int err;

	err = orca_check_udata_in(dev, udata, 0);
	if (err)
		return err;
	if (orca_com_is_dead(&dev->com))
		return -EIO;

	resp.device_caps = qd->device_caps;
	if (resp.device_caps & ORCA_IBV_DEVICE_CAP_ECE) {
		resp.ece_vendor_id = qd->ece_vendor_id;
		resp.ece_options = qd->ece_options;
	}
	resp.data_in_order_caps = qd->data_in_order_caps;
	resp.max_inline_data = qd->max_inline_data;
	resp.fw_version = dev->attr.fw_ver;
	return orca_respond(udata, &resp, sizeof(resp));
}

void orca_dealloc_ucontext(struct ib_ucontext *ibucontext)
{
}

int orca_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibpd->device);
	int err;

	err = orca_check_udata_in(dev, udata, 0);
	if (err)
		return err;
	return orca_cmd_alloc_pd(&dev->com, &to_opd(ibpd)->pdn);
}

int orca_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibpd->device);

	return orca_cmd_dealloc_pd(&dev->com, to_opd(ibpd)->pdn);
}

int orca_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);
	u32 cqe;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	err = orca_check_udata_in(dev, udata, 0);
	if (err)
		return err;

	err = orca_cmd_create_cq(&dev->com, attr->cqe, attr->comp_vector,
				 &cq->cqn, &cqe);
	if (err)
		return err;
	ibcq->cqe = cqe;

	err = xa_insert_irq(&dev->cqs, cq->cqn, cq, GFP_KERNEL);
	if (err) {
		ibdev_err(&dev->ibdev, "device reused live CQN %u\n", cq->cqn);
		orca_cmd_destroy_cq(&dev->com, cq->cqn);
		return -EIO;
	}
	return 0;
}

/* After this no event handler can still be looking at the object. */
static void orca_forget(struct orca_dev *dev, struct xarray *xa, u32 index)
{
	unsigned long flags;

	xa_erase_irq(xa, index);
	spin_lock_irqsave(&dev->com.eq_lock, flags);
	spin_unlock_irqrestore(&dev->com.eq_lock, flags);
}

int orca_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);
	int err;

	err = orca_cmd_destroy_cq(&dev->com, cq->cqn);
	if (err)
		return err;
	orca_forget(dev, &dev->cqs, cq->cqn);
	return 0;
}

int orca_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		   struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibqp->device);
	struct orca_qp *qp = to_oqp(ibqp);
	struct orca_ibv_create_qp_resp resp = {};
	struct orca_create_qp_in in = {};
	struct orca_qp_ctx ctx;
	int qpt, err;
	u32 qpn;

	qpt = orca_qpt_from_ib(init_attr->qp_type);
	if (qpt < 0)
		return qpt;
	if (init_attr->srq ||
	    init_attr->create_flags & ~IB_QP_CREATE_PCI_WRITE_END_PADDING)
		return -EOPNOTSUPP;
	err = orca_check_udata_in(dev, udata, 0);
	if (err)
		return err;

	in.qp_type = qpt;
	in.sq_sig_all = init_attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	in.pdn = cpu_to_le32(to_opd(ibqp->pd)->pdn);
	in.send_cqn = cpu_to_le32(to_ocq(init_attr->send_cq)->cqn);
	in.recv_cqn = cpu_to_le32(to_ocq(init_attr->recv_cq)->cqn);
	in.max_send_wr = cpu_to_le32(init_attr->cap.max_send_wr);
	in.max_recv_wr = cpu_to_le32(init_attr->cap.max_recv_wr);
	in.max_send_sge = cpu_to_le32(init_attr->cap.max_send_sge);
	in.max_recv_sge = cpu_to_le32(init_attr->cap.max_recv_sge);
	in.max_inline_data = cpu_to_le32(init_attr->cap.max_inline_data);
	if (init_attr->create_flags & IB_QP_CREATE_PCI_WRITE_END_PADDING)
		in.create_flags |=
			cpu_to_le32(ORCA_QP_CREATE_PCI_WRITE_END_PADDING);

	err = orca_cmd_create_qp(&dev->com, &in, &ctx);
	if (err)
		return err;

	qpn = le32_to_cpu(ctx.qpn);
	mutex_init(&qp->lock);
	qp->state = IB_QPS_RESET;
	qp->ctx = ctx;
	ibqp->qp_num = qpn;
	init_attr->cap.max_send_wr = le32_to_cpu(ctx.max_send_wr);
	init_attr->cap.max_recv_wr = le32_to_cpu(ctx.max_recv_wr);
	init_attr->cap.max_send_sge = le32_to_cpu(ctx.max_send_sge);
	init_attr->cap.max_recv_sge = le32_to_cpu(ctx.max_recv_sge);
	init_attr->cap.max_inline_data = le32_to_cpu(ctx.max_inline_data);

	err = xa_insert_irq(&dev->qps, qpn, qp, GFP_KERNEL);
	if (err) {
		ibdev_err(&dev->ibdev, "device reused live QPN %u\n", qpn);
		err = -EIO;
		goto err_destroy;
	}

	if (orca_has_ece(dev)) {
		resp.comp_mask |= ORCA_IBV_CREATE_QP_ECE;
		resp.ece_options = le32_to_cpu(ctx.ece_options);
	}
	resp.qpn = qpn;
	err = orca_respond(udata, &resp, sizeof(resp));
	if (err)
		goto err_forget;
	return 0;

err_forget:
	orca_forget(dev, &dev->qps, qpn);
err_destroy:
	orca_cmd_destroy_qp(&dev->com, qpn);
	mutex_destroy(&qp->lock);
	return err;
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
	return orca_ece_to_modify_in(&dev->caps, &ucmd, in);
}

int orca_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibqp->device);
	struct orca_qp *qp = to_oqp(ibqp);
	struct orca_ibv_modify_qp_resp resp = {};
	enum ib_qp_state cur, next;
	struct orca_modify_qp_in in = {};
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

	mutex_lock(&qp->lock);
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : qp->state;
	next = mask & IB_QP_STATE ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask)) {
		ibdev_dbg(&dev->ibdev,
			  "QP %u: invalid modify %d -> %d, mask 0x%x\n",
			  ibqp->qp_num, cur, next, mask);
		err = -EINVAL;
		goto out;
	}

	err = orca_cmd_modify_qp(&dev->com, &in, &ctx);
	if (err)
		goto out;
	qp->ctx = ctx;
	qp->state = orca_qps_to_ib(ctx.state);

	if (orca_has_ece(dev)) {
		resp.comp_mask = ORCA_IBV_MODIFY_QP_ECE;
		resp.ece_options = le32_to_cpu(ctx.ece_options);
	}
	/* the state changed on the device: a copy failure cannot undo it */
	err = orca_respond(udata, &resp, sizeof(resp));
out:
	mutex_unlock(&qp->lock);
	return err;
}

static bool query_qp_fw;
module_param(query_qp_fw, bool, 0644);
MODULE_PARM_DESC(query_qp_fw,
		 "Answer query_qp with a QUERY_QP command instead of the QP state mirror (default false)");

/*
 * The device writes every state change of a QP into its mirror entry
 * before it reports the change, so the mirror and the context the last
 * MODIFY_QP returned describe the QP without a command.  Returns false
 * if the entry is not (or not yet) usable.
 */
static bool orca_read_mirror(struct orca_dev *dev, u32 qpn,
			     struct orca_qp_ctx *ctx)
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
	if (READ_ONCE(query_qp_fw) ||
	    !orca_read_mirror(dev, ibqp->qp_num, &ctx)) {
		err = orca_cmd_query_qp(&dev->com, ibqp->qp_num, &ctx);
		if (!err)
			qp->ctx = ctx;
	} else if (orca_com_is_dead(&dev->com)) {
		err = -EIO;
	}
	if (!err)
		qp->state = orca_qps_to_ib(ctx.state);
	mutex_unlock(&qp->lock);
	if (err)
		return err;

	memset(init_attr, 0, sizeof(*init_attr));
	orca_qp_ctx_to_ib(&ctx, attr, init_attr);
	init_attr->qp_type = ibqp->qp_type;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	return 0;
}

int orca_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibqp->device);
	struct orca_qp *qp = to_oqp(ibqp);
	int err;

	err = orca_cmd_destroy_qp(&dev->com, ibqp->qp_num);
	if (err)
		return err;
	orca_forget(dev, &dev->qps, ibqp->qp_num);
	mutex_destroy(&qp->lock);
	return 0;
}
