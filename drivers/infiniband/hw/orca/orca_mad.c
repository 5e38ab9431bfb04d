// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Management datagrams: process_mad(), which ib_core calls for the port
 * counters in sysfs, for every MAD QP0 and QP1 receive and for every
 * directed-route SMP that ends at this port.  As mthca and mlx4 do, what
 * the device's firmware agents answer (the SMA's Gets and Sets, the
 * PMA's) goes to it through MAD_IFC; the rest (SMInfo, which the SM on
 * this node answers, responses, traps, SA, CM and vendor classes) is
 * handed up untouched, for ib_mad to give to its agents.
 */

#include <rdma/ib_mad.h>
#include <rdma/ib_smi.h>

#include "orca.h"
#include "orca_com_cmd.h"

/* Is @in for the firmware's agents?  (mthca_process_mad()'s filter) */
static bool orca_mad_for_fw(struct orca_dev *dev, const struct ib_mad *in)
{
	u8 method = in->mad_hdr.method;

	switch (in->mad_hdr.mgmt_class) {
	case IB_MGMT_CLASS_SUBN_LID_ROUTED:
	case IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE:
		if (!(le32_to_cpu(dev->caps.dev_caps) & ORCA_DEV_CAP_MAD_QPS))
			return false;
		if (method != IB_MGMT_METHOD_GET &&
		    method != IB_MGMT_METHOD_SET &&
		    method != IB_MGMT_METHOD_TRAP_REPRESS)
			return false;
		return in->mad_hdr.attr_id != IB_SMP_ATTR_SM_INFO;
	case IB_MGMT_CLASS_PERF_MGMT:
		return method == IB_MGMT_METHOD_GET ||
		       method == IB_MGMT_METHOD_SET;
	default:
		return false;
	}
}

/*
 * NodeDescription is the host's to set (sysfs node_desc, ib_core's
 * modify_device): the reply carries ib_core's copy, as mthca's does.
 */
static void orca_node_desc_override(struct ib_device *ibdev,
				    struct ib_mad *out)
{
	struct orca_dev *dev = to_odev(ibdev);
	unsigned long flags;

	if ((out->mad_hdr.mgmt_class == IB_MGMT_CLASS_SUBN_LID_ROUTED ||
	     out->mad_hdr.mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE) &&
	    out->mad_hdr.method == IB_MGMT_METHOD_GET_RESP &&
	    out->mad_hdr.attr_id == IB_SMP_ATTR_NODE_DESC) {
		spin_lock_irqsave(&dev->node_desc_lock, flags);
		memcpy(((struct ib_smp *)out)->data, ibdev->node_desc,
		       IB_DEVICE_NODE_DESC_MAX);
		spin_unlock_irqrestore(&dev->node_desc_lock, flags);
	}
}

int orca_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		     const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		     const struct ib_mad *in, struct ib_mad *out,
		     size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	struct orca_dev *dev = to_odev(ibdev);
	struct orca_mad_ifc_out *resp;
	struct orca_mad_ifc_in *req;
	int ret = IB_MAD_RESULT_FAILURE;

	if (!orca_mad_for_fw(dev, in))
		return IB_MAD_RESULT_SUCCESS;
	if (*out_mad_size < sizeof(*out))
		return IB_MAD_RESULT_FAILURE;
	req = kzalloc_obj(*req, GFP_KERNEL);
	resp = kzalloc_obj(*resp, GFP_KERNEL);
	if (!req || !resp)
		goto out;
	req->port = port_num;
	/* without a work completion it came from inside: no M_Key check */
	if ((mad_flags & IB_MAD_IGNORE_MKEY) || !in_wc)
		req->flags |= ORCA_MAD_IFC_F_IGNORE_MKEY;
	if (in_wc) {
		req->flags |= ORCA_MAD_IFC_F_WC;
		req->sl = in_wc->sl;
		req->path_bits = in_wc->dlid_path_bits;
		req->slid = cpu_to_le16(ib_lid_cpu16(in_wc->slid));
		req->pkey_index = cpu_to_le16(in_wc->pkey_index);
		req->src_qpn = cpu_to_le32(in_wc->src_qp);
	}
	if (in_grh) {
		req->flags |= ORCA_MAD_IFC_F_GRH;
		memcpy(req->grh, in_grh, sizeof(req->grh));
	}
	memcpy(req->mad, in, sizeof(req->mad));
	if (orca_cmd_mad_ifc(&dev->com, req, resp))
		goto out;
	switch (resp->result) {
	case ORCA_MAD_IFC_REPLY:
		memcpy(out, resp->mad, sizeof(*out));
		*out_mad_size = sizeof(*out);
		orca_node_desc_override(ibdev, out);
		ret = IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
		break;
	case ORCA_MAD_IFC_PASS:
		ret = IB_MAD_RESULT_SUCCESS;
		break;
	case ORCA_MAD_IFC_DROP:
		/* a TrapRepress is consumed; an M_Key violation just dropped */
		if (in->mad_hdr.method == IB_MGMT_METHOD_TRAP_REPRESS)
			ret = IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_CONSUMED;
		break;
	default:
		dev_err_ratelimited(&dev->pdev->dev,
				    "MAD_IFC answered with result %u: MAD dropped\n",
				    resp->result);
		break;
	}
out:
	kfree(req);
	kfree(resp);
	return ret;
}
