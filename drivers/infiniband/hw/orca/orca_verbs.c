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
	struct orca_ibv_alloc_ucontext_resp *uc = &dev->ucontext_resp;
	const struct orca_caps *caps = &dev->caps;

	orca_caps_to_ib_attr(caps, &dev->attr);

	memset(uc, 0, sizeof(*uc));
	uc->comp_mask = ORCA_IBV_ALLOC_UCONTEXT_RESP_DATA_IN_ORDER |
			ORCA_IBV_ALLOC_UCONTEXT_RESP_MAX_INLINE_DATA;
	uc->device_caps = orca_caps_to_uapi_device_caps(caps);
	if (uc->device_caps & ORCA_IBV_DEVICE_CAP_ECE) {
		uc->comp_mask |= ORCA_IBV_ALLOC_UCONTEXT_RESP_ECE;
		uc->ece_vendor_id = le32_to_cpu(caps->ece_vendor_id);
		uc->ece_options = le32_to_cpu(caps->ece_options);
	}
	uc->data_in_order_caps = orca_caps_to_uapi_dio(caps);
	uc->max_inline_data = le32_to_cpu(caps->max_inline_data);

	memset(resp, 0, sizeof(*resp));
	resp->comp_mask = ORCA_IBV_QUERY_DEVICE_RESP_TSO_CAPS |
			  ORCA_IBV_QUERY_DEVICE_RESP_PACKET_PACING_CAPS |
			  ORCA_IBV_QUERY_DEVICE_RESP_PCI_ATOMIC_CAPS;
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

/*
 * ib_core asks for every entry when it fills its cache: read the tables
 * once, a mailbox of entries per command, instead of one command each.
 */
int orca_read_port_tables(struct orca_dev *dev)
{
	struct device *d = &dev->pdev->dev;
	struct orca_port_attr pa;
	unsigned int n, i;
	__le16 *pkeys;
	u32 start;
	int err;

	err = orca_cmd_query_port(&dev->com, 1, &pa);
	if (err)
		return err;
	dev->gid_tbl_len = le16_to_cpu(pa.gid_tbl_len);
	dev->pkey_tbl_len = le16_to_cpu(pa.pkey_tbl_len);
	if (!dev->gid_tbl_len || dev->gid_tbl_len > ORCA_MAX_GID_TBL_LEN ||
	    !dev->pkey_tbl_len || dev->pkey_tbl_len > ORCA_MAX_PKEY_TBL_LEN) {
		dev_err(d, "device reports %u GIDs and %u P_Keys, outside 1..%u and 1..%u: refusing it\n",
			dev->gid_tbl_len, dev->pkey_tbl_len,
			ORCA_MAX_GID_TBL_LEN, ORCA_MAX_PKEY_TBL_LEN);
		return -EINVAL;
	}
	dev->gids = kcalloc(dev->gid_tbl_len, sizeof(*dev->gids), GFP_KERNEL);
	dev->pkeys = kcalloc(dev->pkey_tbl_len, sizeof(*dev->pkeys),
			     GFP_KERNEL);
	pkeys = kcalloc(ORCA_PKEYS_PER_CMD, sizeof(*pkeys), GFP_KERNEL);
	if (!dev->gids || !dev->pkeys || !pkeys) {
		err = -ENOMEM;
		goto out;
	}
	for (start = 0; start < dev->gid_tbl_len; start += n) {
		n = min_t(u32, dev->gid_tbl_len - start, ORCA_GIDS_PER_CMD);
		err = orca_cmd_query_gid_table(&dev->com, 1, start, n,
					       dev->gids[start].raw);
		if (err)
			goto out;
	}
	for (start = 0; start < dev->pkey_tbl_len; start += n) {
		n = min_t(u32, dev->pkey_tbl_len - start, ORCA_PKEYS_PER_CMD);
		err = orca_cmd_query_pkey_table(&dev->com, 1, start, n, pkeys);
		if (err)
			goto out;
		for (i = 0; i < n; i++)
			dev->pkeys[start + i] = le16_to_cpu(pkeys[i]);
	}
out:
	kfree(pkeys);
	if (err)
		orca_free_port_tables(dev);
	return err;
}

void orca_free_port_tables(struct orca_dev *dev)
{
	kfree(dev->gids);
	kfree(dev->pkeys);
	dev->gids = NULL;
	dev->pkeys = NULL;
}

int orca_query_gid(struct ib_device *ibdev, u32 port, int index,
		   union ib_gid *gid)
{
	struct orca_dev *dev = to_odev(ibdev);

	if (index < 0 || index >= dev->gid_tbl_len)
		return -EINVAL;
	*gid = dev->gids[index];
	return 0;
}

int orca_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	struct orca_dev *dev = to_odev(ibdev);

	if (index >= dev->pkey_tbl_len)
		return -EINVAL;
	*pkey = dev->pkeys[index];
	return 0;
}

int orca_get_port_immutable(struct ib_device *ibdev, u32 port,
			    struct ib_port_immutable *immutable)
{
	struct orca_dev *dev = to_odev(ibdev);

	immutable->pkey_tbl_len = dev->pkey_tbl_len;
	immutable->gid_tbl_len = dev->gid_tbl_len;
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
	struct orca_ucontext *uctx = container_of(ibucontext,
						  struct orca_ucontext,
						  ibucontext);
	struct orca_ibv_alloc_ucontext_resp resp = dev->ucontext_resp;
	struct orca_ibv_alloc_ucontext_cmd cmd = {};
	int err;

	if (udata->inlen) {
		err = ib_copy_from_udata(&cmd, udata,
					 min(sizeof(cmd), udata->inlen));
		if (err)
			return err;
	}
	err = orca_check_udata_in(dev, udata, sizeof(cmd));
	if (err)
		return err;
	if (cmd.comp_mask & ~ORCA_IBV_ALLOC_UCONTEXT_CMD_ECE ||
	    memchr_inv(cmd.reserved_20, 0, sizeof(cmd.reserved_20))) {
		ibdev_dbg(&dev->ibdev, "unknown alloc_ucontext request 0x%x\n",
			  cmd.comp_mask);
		return -EOPNOTSUPP;
	}
	if (orca_com_is_dead(&dev->com))
		return -EIO;

	/* a provider that does not speak ECE never sees it */
	uctx->ece = orca_has_ece(dev) &&
		    (cmd.comp_mask & ORCA_IBV_ALLOC_UCONTEXT_CMD_ECE);
	if (!uctx->ece) {
		resp.comp_mask &= ~ORCA_IBV_ALLOC_UCONTEXT_RESP_ECE;
		resp.device_caps &= ~ORCA_IBV_DEVICE_CAP_ECE;
		resp.ece_vendor_id = 0;
		resp.ece_options = 0;
	}
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

/*
 * The number leaves the table before the device may reuse it: a create
 * that gets it back right after DESTROY must find it free.
 */
int orca_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibcq->device);
	struct orca_cq *cq = to_ocq(ibcq);
	int err;

	orca_forget(dev, &dev->cqs, cq->cqn);
	err = orca_cmd_destroy_cq(&dev->com, cq->cqn);
	if (err)	/* still the device's: nobody else can have it */
		WARN_ON(xa_insert_irq(&dev->cqs, cq->cqn, cq, GFP_KERNEL));
	return err;
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

	if (orca_udata_ece(udata)) {
		resp.comp_mask |= ORCA_IBV_CREATE_QP_RESP_ECE_OPTIONS;
		resp.ece_options = le32_to_cpu(ctx.ece_options);
	}
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

/*
 * Where the QP is now: the device may have moved it (ERR, SQE) since the
 * last command; the mirror has that before any event reports it.
 */
static enum ib_qp_state orca_qp_state(struct orca_dev *dev, struct orca_qp *qp)
{
	struct orca_qp_ctx ctx;

	if (orca_read_mirror(dev, qp->ibqp.qp_num, &ctx) &&
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
	if (err)
		goto out;
	qp->ctx = ctx;
	WRITE_ONCE(qp->state, orca_qps_to_ib(ctx.state));

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
	return 0;
}

/* As orca_destroy_cq(): forget the number first. */
int orca_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibqp->device);
	struct orca_qp *qp = to_oqp(ibqp);
	int err;

	orca_forget(dev, &dev->qps, ibqp->qp_num);
	err = orca_cmd_destroy_qp(&dev->com, ibqp->qp_num);
	if (err) {
		WARN_ON(xa_insert_irq(&dev->qps, ibqp->qp_num, qp, GFP_KERNEL));
		return err;
	}
	mutex_destroy(&qp->lock);
	return 0;
}

/* Transport counters, as port 1's hw_counters (rdma statistic). */
static const struct rdma_stat_desc orca_port_stat_descs[] = {
	[ORCA_STAT_CMDS].name = "fw_cmds",
	[ORCA_STAT_CMD_ERRORS].name = "fw_cmd_errors",
	[ORCA_STAT_TIMEOUTS].name = "fw_cmd_timeouts",
	[ORCA_STAT_MISSED_IRQS].name = "fw_missed_irqs",
	[ORCA_STAT_STALE_COMPLETIONS].name = "fw_stale_completions",
	[ORCA_STAT_ASYNC_EVENTS].name = "async_events",
	[ORCA_STAT_LOST_EVENTS].name = "async_events_lost",
};

static_assert(ARRAY_SIZE(orca_port_stat_descs) == ORCA_STAT_NUM);

struct rdma_hw_stats *orca_alloc_hw_port_stats(struct ib_device *ibdev,
					       u32 port_num)
{
	return rdma_alloc_hw_stats_struct(orca_port_stat_descs,
					  ARRAY_SIZE(orca_port_stat_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int orca_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		      u32 port, int index)
{
	struct orca_dev *dev = to_odev(ibdev);
	int i;

	for (i = 0; i < ORCA_STAT_NUM; i++)
		stats->value[i] = orca_com_stat(&dev->com, i);
	return ORCA_STAT_NUM;
}
