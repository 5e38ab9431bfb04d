// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Driver details of the resource tracker (rdma res show qp|cq|mr -dd):
 * the objects as the device knows them.  Everything comes from what the
 * driver kept at create time and from the QP state mirror; no firmware
 * command is sent.  Names that ib_core prints itself (pdn, cqn, lqpn,
 * state) are not repeated: the device's numbers carry a "dev_" prefix.
 */

#include <rdma/restrack.h>
#include <uapi/rdma/rdma_netlink.h>

#include "orca.h"
#include "orca_attr.h"

static const char *const orca_qps_names[] = {
	[ORCA_QPS_RESET] = "RESET",
	[ORCA_QPS_INIT] = "INIT",
	[ORCA_QPS_RTR] = "RTR",
	[ORCA_QPS_RTS] = "RTS",
	[ORCA_QPS_SQD] = "SQD",
	[ORCA_QPS_SQE] = "SQE",
	[ORCA_QPS_ERR] = "ERR",
};

/* A queue of 2^log_depth entries; 0 (no queue) stays 0. */
static u32 orca_log_to_entries(u8 log)
{
	return log ? BIT(log) : 0;
}

static int orca_put_pbl_info(struct sk_buff *msg,
			     const struct orca_pbl_info *info)
{
	if (rdma_nl_put_driver_u32(msg, "pages", READ_ONCE(info->npages)) ||
	    rdma_nl_put_driver_u32(msg, "page_shift",
				   READ_ONCE(info->page_shift)))
		return -EMSGSIZE;
	return 0;
}

static int orca_put_qp(struct sk_buff *msg, struct orca_dev *dev,
		       struct orca_qp *qp)
{
	struct ib_qp *ibqp = &qp->ibqp;
	struct orca_qp_ctx mirror;
	u32 dev_qpn;

	mutex_lock(&qp->lock);
	dev_qpn = le32_to_cpu(qp->ctx.qpn);
	mutex_unlock(&qp->lock);

	if (rdma_nl_put_driver_u32(msg, "dev_qpn", dev_qpn) ||
	    rdma_nl_put_driver_u32(msg, "dev_pdn", to_opd(ibqp->pd)->pdn) ||
	    rdma_nl_put_driver_u32(msg, "send_cqn",
				   to_ocq(ibqp->send_cq)->cqn) ||
	    rdma_nl_put_driver_u32(msg, "recv_cqn",
				   to_ocq(ibqp->recv_cq)->cqn) ||
	    rdma_nl_put_driver_u32(msg, "sq_depth",
				   orca_log_to_entries(qp->sq_log_depth)) ||
	    rdma_nl_put_driver_u32(msg, "sq_stride",
				   orca_log_to_entries(qp->sq_log_stride)) ||
	    rdma_nl_put_driver_u32(msg, "rq_depth",
				   orca_log_to_entries(qp->rq_log_depth)) ||
	    rdma_nl_put_driver_u32(msg, "rq_stride",
				   orca_log_to_entries(qp->rq_log_stride)) ||
	    rdma_nl_put_driver_u32(msg, "rq_off", qp->rq_off) ||
	    rdma_nl_put_driver_u32(msg, "dbrec_off", qp->dbrec_off) ||
	    orca_put_pbl_info(msg, &qp->ring))
		return -EMSGSIZE;

	/* where the device says the QP is; nothing if the entry is unusable */
	if (!orca_read_mirror(dev, ibqp->qp_num, &mirror) ||
	    mirror.state >= ARRAY_SIZE(orca_qps_names))
		return 0;
	if (rdma_nl_put_driver_string(msg, "mirror_state",
				      orca_qps_names[mirror.state]) ||
	    rdma_nl_put_driver_u32(msg, "sq_draining", mirror.sq_draining))
		return -EMSGSIZE;
	return 0;
}

int orca_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct orca_dev *dev = to_odev(ibqp->device);
	struct nlattr *table;

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (orca_put_qp(msg, dev, to_oqp(ibqp))) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

/*
 * The QP's device context (struct orca_qp_ctx, little endian) as the last
 * MODIFY_QP returned it, with the mirror's state fields, which are newer.
 */
int orca_fill_res_qp_entry_raw(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct orca_dev *dev = to_odev(ibqp->device);
	struct orca_qp *qp = to_oqp(ibqp);
	struct orca_qp_ctx ctx;

	mutex_lock(&qp->lock);
	ctx = qp->ctx;
	mutex_unlock(&qp->lock);
	orca_read_mirror(dev, ibqp->qp_num, &ctx);
	return nla_put(msg, RDMA_NLDEV_ATTR_RES_RAW, sizeof(ctx), &ctx);
}

int orca_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct orca_cq *cq = to_ocq(ibcq);
	struct nlattr *table;

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "dev_cqn", cq->cqn) ||
	    rdma_nl_put_driver_u32(msg, "cq_depth",
				   orca_log_to_entries(READ_ONCE(cq->log_depth))) ||
	    rdma_nl_put_driver_u32(msg, "cqe_stride", sizeof(struct orca_cqe)) ||
	    rdma_nl_put_driver_u32(msg, "dbrec_off", READ_ONCE(cq->dbrec_off)) ||
	    rdma_nl_put_driver_u32(msg, "comp_vector", cq->comp_vector) ||
	    orca_put_pbl_info(msg, &cq->ring)) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

/*
 * No key and no address: ib_core calls this for any user who asks, and
 * lkey = index << 8 | key byte = rkey (orca_hw_cmd_mem.h), so the index
 * and key would give every local user another process's rkey.  ib_core
 * shows the keys to CAP_NET_ADMIN itself; the raw entry below, which it
 * serves to CAP_NET_ADMIN only, has the rest.
 */
int orca_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct orca_mr *mr = to_omr(ibmr);
	struct nlattr *table;

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "dev_pdn",
				   to_opd(READ_ONCE(ibmr->pd))->pdn) ||
	    rdma_nl_put_driver_u32(msg, "first_off",
				   READ_ONCE(mr->first_off)) ||
	    orca_put_pbl_info(msg, &mr->pbl)) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

/*
 * The region as the device knows it, in the form REREG_MR names one
 * (struct orca_rereg_mr_in, little endian): key, iova, length, PD,
 * rights, the page list's geometry (the list itself went back after the
 * command: its address is 0) and the offset into its first page.
 */
int orca_fill_res_mr_entry_raw(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct orca_mr *mr = to_omr(ibmr);
	struct orca_rereg_mr_in raw = {};

	raw.lkey = cpu_to_le32(ibmr->lkey);
	raw.mr.iova = cpu_to_le64(READ_ONCE(ibmr->iova));
	raw.mr.length = cpu_to_le64(READ_ONCE(ibmr->length));
	raw.mr.pdn = cpu_to_le32(to_opd(READ_ONCE(ibmr->pd))->pdn);
	raw.mr.access = cpu_to_le32(orca_mr_access_from_ib(READ_ONCE(mr->access)));
	raw.mr.pbl.npages = cpu_to_le32(READ_ONCE(mr->pbl.npages));
	raw.mr.pbl.page_shift = READ_ONCE(mr->pbl.page_shift);
	raw.mr.first_off = cpu_to_le32(READ_ONCE(mr->first_off));
	return nla_put(msg, RDMA_NLDEV_ATTR_RES_RAW, sizeof(raw), &raw);
}
