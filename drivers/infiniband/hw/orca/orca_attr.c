// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Translation between ib_core attributes and the device's wire format. */

#include <linux/build_bug.h>
#include <linux/device.h>
#include <linux/limits.h>
#include <rdma/orca-abi.h>

#include "orca_attr.h"

static const struct {
	u32 orca;
	u64 ib;
} orca_dev_cap_map[] = {
	{ ORCA_DEV_CAP_BAD_PKEY_CNTR, IB_DEVICE_BAD_PKEY_CNTR },
	{ ORCA_DEV_CAP_BAD_QKEY_CNTR, IB_DEVICE_BAD_QKEY_CNTR },
	{ ORCA_DEV_CAP_SYS_IMAGE_GUID, IB_DEVICE_SYS_IMAGE_GUID },
	{ ORCA_DEV_CAP_RC_RNR_NAK_GEN, IB_DEVICE_RC_RNR_NAK_GEN },
	{ ORCA_DEV_CAP_PORT_ACTIVE_EVENT, IB_DEVICE_PORT_ACTIVE_EVENT },
	{ ORCA_DEV_CAP_CHANGE_PHY_PORT, IB_DEVICE_CHANGE_PHY_PORT },
	{ ORCA_DEV_CAP_UD_AV_PORT_ENFORCE, IB_DEVICE_UD_AV_PORT_ENFORCE },
	{ ORCA_DEV_CAP_PCI_WRITE_END_PADDING, IB_DEVICE_PCI_WRITE_END_PADDING },
	{ ORCA_DEV_CAP_MEM_WINDOW, IB_DEVICE_MEM_WINDOW },
	{ ORCA_DEV_CAP_MW_TYPE_2B, IB_DEVICE_MEM_WINDOW_TYPE_2B },
	{ ORCA_DEV_CAP_FAST_REG, IB_DEVICE_MEM_MGT_EXTENSIONS },
	{ ORCA_DEV_CAP_ATOMIC_WRITE, IB_DEVICE_ATOMIC_WRITE },
};

static enum ib_atomic_cap orca_atomic_cap_to_ib(u8 cap)
{
	switch (cap) {
	case ORCA_ATOMIC_HCA:
		return IB_ATOMIC_HCA;
	case ORCA_ATOMIC_GLOB:
		return IB_ATOMIC_GLOB;
	default:
		return IB_ATOMIC_NONE;
	}
}

void orca_caps_to_ib_attr(const struct orca_caps *caps,
			  struct ib_device_attr *attr)
{
	u32 dev_caps = le32_to_cpu(caps->dev_caps);
	unsigned int i;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = le64_to_cpu(caps->fw_version);
	attr->sys_image_guid = cpu_to_be64(le64_to_cpu(caps->sys_image_guid));
	attr->max_mr_size = le64_to_cpu(caps->max_mr_size);
	attr->page_size_cap = le64_to_cpu(caps->page_size_cap);
	attr->vendor_id = le32_to_cpu(caps->vendor_id);
	attr->vendor_part_id = le32_to_cpu(caps->vendor_part_id);
	attr->hw_ver = le32_to_cpu(caps->hw_ver);
	attr->max_qp = le32_to_cpu(caps->max_qp);
	attr->max_qp_wr = le32_to_cpu(caps->max_qp_wr);
	for (i = 0; i < ARRAY_SIZE(orca_dev_cap_map); i++)
		if (dev_caps & orca_dev_cap_map[i].orca)
			attr->device_cap_flags |= orca_dev_cap_map[i].ib;
	/* kernel QPs may use ORCA_RESERVED_LKEY: ib_core's local_dma_lkey */
	if (dev_caps & ORCA_DEV_CAP_RESERVED_LKEY)
		attr->kernel_cap_flags |= IBK_LOCAL_DMA_LKEY;
	attr->max_send_sge = le32_to_cpu(caps->max_send_sge);
	attr->max_recv_sge = le32_to_cpu(caps->max_recv_sge);
	attr->max_sge_rd = le32_to_cpu(caps->max_sge_rd);
	attr->max_cq = le32_to_cpu(caps->max_cq);
	attr->max_cqe = le32_to_cpu(caps->max_cqe);
	attr->max_mr = le32_to_cpu(caps->max_mr);
	attr->max_pd = le32_to_cpu(caps->max_pd);
	attr->max_qp_rd_atom = le32_to_cpu(caps->max_qp_rd_atom);
	attr->max_res_rd_atom = le32_to_cpu(caps->max_res_rd_atom);
	attr->max_qp_init_rd_atom = le32_to_cpu(caps->max_qp_init_rd_atom);
	attr->atomic_cap = orca_atomic_cap_to_ib(caps->atomic_cap);
	attr->masked_atomic_cap = IB_ATOMIC_NONE;
	attr->max_mw = le32_to_cpu(caps->max_mw);
	attr->max_ah = le32_to_cpu(caps->max_ah);
	attr->max_srq = le32_to_cpu(caps->max_srq);
	attr->max_srq_wr = le32_to_cpu(caps->max_srq_wr);
	attr->max_srq_sge = le32_to_cpu(caps->max_srq_sge);
	/* no groups, no multicast: the attach limits mean nothing then */
	attr->max_mcast_grp = le32_to_cpu(caps->max_mcast_grp);
	if (attr->max_mcast_grp) {
		attr->max_mcast_qp_attach =
			le32_to_cpu(caps->max_mcast_qp_attach);
		attr->max_total_mcast_qp_attach =
			le32_to_cpu(caps->max_total_mcast_qp_attach);
	}
	if (dev_caps & ORCA_DEV_CAP_FAST_REG)
		attr->max_fast_reg_page_list_len =
			le32_to_cpu(caps->max_fast_reg_page_list_len);
	attr->max_pkeys = le16_to_cpu(caps->max_pkeys);
	attr->local_ca_ack_delay = caps->local_ca_ack_delay;
	/* device memory: orca_dm_probe() sees whether BAR2 holds it */
	attr->max_dm_size = le64_to_cpu(caps->max_dm_size);
	/* a clock (orca_caps_check() took its mask): CQE timestamps */
	if (caps->hca_core_clock && caps->completion_timestamp_mask) {
		attr->hca_core_clock = le64_to_cpu(caps->hca_core_clock);
		attr->timestamp_mask =
			le64_to_cpu(caps->completion_timestamp_mask);
	}

	/*
	 * What the device may offer but this driver has no verb for stays 0
	 * (memset above), whatever QUERY_CAPS says: ODP, WQs, RSS and raw
	 * packet QPs, tag matching, CQ moderation.  A cap advertised is a
	 * verb that works.
	 */
}

/*
 * Limits on what the device may report.  Counts land in the int fields of
 * struct ib_device_attr; max_qp also sizes the QP mirror, one coherent
 * allocation (at most 4 MiB from the page allocator) indexed by QPN.
 */

/**
 * orca_caps_check - refuse capabilities the driver cannot trust
 * @caps: QUERY_CAPS output
 * @dev: for the log line
 *
 * Return: 0, or -EINVAL after logging the first value out of range.
 */
int orca_caps_check(const struct orca_caps *caps, struct device *dev)
{
	const struct {
		const char *name;
		u32 v, min, max;
	} lim[] = {
		{ "max_qp", le32_to_cpu(caps->max_qp), 1, ORCA_MAX_QP },
		{ "max_qp_wr", le32_to_cpu(caps->max_qp_wr), 1, INT_MAX },
		{ "max_send_sge", le32_to_cpu(caps->max_send_sge), 1, INT_MAX },
		{ "max_recv_sge", le32_to_cpu(caps->max_recv_sge), 1, INT_MAX },
		{ "max_sge_rd", le32_to_cpu(caps->max_sge_rd), 0, INT_MAX },
		{ "max_cq", le32_to_cpu(caps->max_cq), 1, INT_MAX },
		{ "max_cqe", le32_to_cpu(caps->max_cqe), 1, INT_MAX },
		{ "max_mr", le32_to_cpu(caps->max_mr), 0, INT_MAX },
		{ "max_pd", le32_to_cpu(caps->max_pd), 1, INT_MAX },
		{ "max_qp_rd_atom", le32_to_cpu(caps->max_qp_rd_atom), 0,
		  INT_MAX },
		{ "max_qp_init_rd_atom",
		  le32_to_cpu(caps->max_qp_init_rd_atom), 0, INT_MAX },
		{ "max_res_rd_atom", le32_to_cpu(caps->max_res_rd_atom), 0,
		  INT_MAX },
		{ "max_mw", le32_to_cpu(caps->max_mw), 0, INT_MAX },
		{ "max_srq", le32_to_cpu(caps->max_srq), 0, INT_MAX },
		{ "max_srq_wr", le32_to_cpu(caps->max_srq_wr), 0, INT_MAX },
		{ "max_srq_sge", le32_to_cpu(caps->max_srq_sge), 0, INT_MAX },
		{ "max_ah", le32_to_cpu(caps->max_ah), 0, INT_MAX },
		{ "max_mcast_grp", le32_to_cpu(caps->max_mcast_grp), 0,
		  INT_MAX },
		{ "max_mcast_qp_attach",
		  le32_to_cpu(caps->max_mcast_qp_attach), 0, INT_MAX },
		{ "max_total_mcast_qp_attach",
		  le32_to_cpu(caps->max_total_mcast_qp_attach), 0, INT_MAX },
		{ "max_inline_data", le32_to_cpu(caps->max_inline_data), 0,
		  INT_MAX },
		/* the driver runs port 1 */
		{ "phys_port_cnt", caps->phys_port_cnt, 1, 1 },
		{ "num_comp_vectors", caps->num_comp_vectors, 1, U8_MAX },
		/* IBTA: a 5-bit exponent */
		{ "local_ca_ack_delay", caps->local_ca_ack_delay, 0, 31 },
		{ "atomic_cap", caps->atomic_cap, ORCA_ATOMIC_NONE,
		  ORCA_ATOMIC_GLOB },
	};
	const u32 mad_needs = ORCA_DEV_CAP_RESERVED_LKEY | ORCA_DEV_CAP_UD_AV;
	u64 ts_mask = le64_to_cpu(caps->completion_timestamp_mask);
	u64 dm_size = le64_to_cpu(caps->max_dm_size);
	u32 dev_caps = le32_to_cpu(caps->dev_caps);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lim); i++) {
		if (lim[i].v >= lim[i].min && lim[i].v <= lim[i].max)
			continue;
		dev_err(dev, "device reports %s = %u, outside %u..%u: refusing it\n",
			lim[i].name, lim[i].v, lim[i].min, lim[i].max);
		return -EINVAL;
	}
	/*
	 * ib_mad's QPs are kernel QPs (the reserved lkey), and ib_cm and
	 * ib_sa create and destroy their address handles where they may
	 * not sleep: only address vectors in the WQE allow that.
	 */
	if ((dev_caps & ORCA_DEV_CAP_MAD_QPS) &&
	    (dev_caps & mad_needs) != mad_needs) {
		dev_err(dev, "device has MAD QPs without the reserved lkey or address vectors in UD WQEs (dev_caps 0x%x): refusing it\n",
			dev_caps);
		return -EINVAL;
	}
	/* device memory: a window of BAR2 in whole pages */
	if (dm_size > ORCA_DM_MAX_SIZE || dm_size % ORCA_DM_PAGE) {
		dev_err(dev, "device reports max_dm_size %llu, not a multiple of %u up to %u: refusing it\n",
			dm_size, ORCA_DM_PAGE, ORCA_DM_MAX_SIZE);
		return -EINVAL;
	}
	/* a counter's bits are its low ones: timestamps wrap at the mask */
	if (caps->hca_core_clock && ts_mask && (ts_mask & (ts_mask + 1))) {
		dev_err(dev, "device reports completion_timestamp_mask 0x%llx, not 2^n - 1: refusing it\n",
			ts_mask);
		return -EINVAL;
	}
	return 0;
}

u32 orca_caps_to_uapi_device_caps(const struct orca_caps *caps)
{
	u32 dev_caps = le32_to_cpu(caps->dev_caps);
	u32 uapi = 0;

	if ((dev_caps & ORCA_DEV_CAP_ECE) && caps->ece_vendor_id)
		uapi |= ORCA_IBV_DEVICE_CAP_ECE;
	if (dev_caps & ORCA_DEV_CAP_PCI_WRITE_END_PADDING)
		uapi |= ORCA_IBV_DEVICE_CAP_PCI_WRITE_END_PADDING;
	if (orca_caps_to_uapi_dio(caps))
		uapi |= ORCA_IBV_DEVICE_CAP_DATA_IN_ORDER;
	if (dev_caps & ORCA_DEV_CAP_ATOMIC_WRITE)
		uapi |= ORCA_IBV_DEVICE_CAP_ATOMIC_WRITE;
	return uapi;
}

u32 orca_caps_to_uapi_dio(const struct orca_caps *caps)
{
	const u8 known = ORCA_DIO_WHOLE_MSG | ORCA_DIO_ALIGNED_128_BYTES;

	BUILD_BUG_ON(ORCA_DIO_WHOLE_MSG != ORCA_IBV_DIO_WHOLE_MSG);
	BUILD_BUG_ON(ORCA_DIO_ALIGNED_128_BYTES !=
		     ORCA_IBV_DIO_ALIGNED_128_BYTES);

	return (u32)(caps->dio_send & known) << ORCA_IBV_DIO_SHIFT_SEND |
	       (u32)(caps->dio_rdma_write & known) <<
			ORCA_IBV_DIO_SHIFT_RDMA_WRITE |
	       (u32)(caps->dio_rdma_read & known) <<
			ORCA_IBV_DIO_SHIFT_RDMA_READ;
}

static enum ib_port_state orca_port_state_to_ib(u8 state)
{
	switch (state) {
	case ORCA_PORT_DOWN:
		return IB_PORT_DOWN;
	case ORCA_PORT_INIT:
		return IB_PORT_INIT;
	case ORCA_PORT_ARMED:
		return IB_PORT_ARMED;
	case ORCA_PORT_ACTIVE:
		return IB_PORT_ACTIVE;
	default:
		return IB_PORT_NOP;
	}
}

static enum ib_mtu orca_mtu_to_ib(u8 mtu)
{
	return mtu >= IB_MTU_256 && mtu <= IB_MTU_4096 ? mtu : IB_MTU_256;
}

void orca_port_to_ib_attr(const struct orca_port_attr *port,
			  struct ib_port_attr *attr)
{
	attr->subnet_prefix = le64_to_cpu(port->subnet_prefix);
	attr->state = orca_port_state_to_ib(port->state);
	attr->phys_state = port->phys_state;
	attr->max_mtu = orca_mtu_to_ib(port->max_mtu);
	attr->active_mtu = orca_mtu_to_ib(port->active_mtu);
	attr->phys_mtu = ib_mtu_enum_to_int(attr->max_mtu);
	attr->gid_tbl_len = le16_to_cpu(port->gid_tbl_len);
	attr->pkey_tbl_len = le16_to_cpu(port->pkey_tbl_len);
	attr->port_cap_flags = le32_to_cpu(port->port_cap_flags);
	attr->max_msg_sz = le32_to_cpu(port->max_msg_sz);
	attr->bad_pkey_cntr = le32_to_cpu(port->bad_pkey_cntr);
	attr->qkey_viol_cntr = le32_to_cpu(port->qkey_viol_cntr);
	attr->lid = le16_to_cpu(port->lid);
	attr->sm_lid = le16_to_cpu(port->sm_lid);
	attr->lmc = port->lmc;
	attr->sm_sl = port->sm_sl;
	attr->max_vl_num = port->max_vl_num;
	attr->active_width = port->active_width;
	attr->active_speed = port->active_speed;
}

/**
 * orca_port_mirror_read - consistent copy of a port mirror entry
 * @m: the entry, in memory the device writes
 * @port: the port it must describe (1-based)
 * @attr: the attributes, on success
 *
 * Copies the entry between two equal, even readings of its sequence
 * number, as for the QP mirror.  An entry that is being written for too
 * long, was never written (seq 0) or names another port is not used.
 *
 * Return: true if @attr holds the device's current attributes.
 */
bool orca_port_mirror_read(const struct orca_port_mirror *m, u8 port,
			   struct orca_port_attr *attr)
{
	struct orca_port_mirror snap;
	unsigned int tries;
	u32 seq;

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
		if (!seq || snap.port != port)
			return false;
		*attr = snap.attr;
		return true;
	}
	return false;
}

enum ib_qp_state orca_qps_to_ib(u8 state)
{
	static const enum ib_qp_state map[] = {
		[ORCA_QPS_RESET] = IB_QPS_RESET,
		[ORCA_QPS_INIT] = IB_QPS_INIT,
		[ORCA_QPS_RTR] = IB_QPS_RTR,
		[ORCA_QPS_RTS] = IB_QPS_RTS,
		[ORCA_QPS_SQD] = IB_QPS_SQD,
		[ORCA_QPS_SQE] = IB_QPS_SQE,
		[ORCA_QPS_ERR] = IB_QPS_ERR,
	};

	/* a state the driver does not know is treated as an error state */
	return state < ARRAY_SIZE(map) ? map[state] : IB_QPS_ERR;
}

/**
 * orca_cqe_to_ib_wc - a CQE's status and opcode as ib_core's
 * @status: the CQE's ORCA_CQE_* status
 * @opcode: its ORCA_CQE_OP_* opcode
 * @sq: a send queue entry (ORCA_CQE_F_SQ)
 * @wc: status and opcode are set
 *
 * Tables, not casts: the device's values are its wire format, and
 * ib_core's enums are not an ABI (they gained values after 6.1).  A
 * value the device may not write completes the WR with IB_WC_GENERAL_ERR
 * (an opcode it does not know as the queue's basic one).
 *
 * Return: false if @status or @opcode is not a CQE value.
 */
bool orca_cqe_to_ib_wc(u8 status, u8 opcode, bool sq, struct ib_wc *wc)
{
	static const enum ib_wc_status st[] = {
		[ORCA_CQE_SUCCESS] = IB_WC_SUCCESS,
		[ORCA_CQE_LOC_LEN_ERR] = IB_WC_LOC_LEN_ERR,
		[ORCA_CQE_LOC_QP_OP_ERR] = IB_WC_LOC_QP_OP_ERR,
		[ORCA_CQE_LOC_PROT_ERR] = IB_WC_LOC_PROT_ERR,
		[ORCA_CQE_WR_FLUSH_ERR] = IB_WC_WR_FLUSH_ERR,
		[ORCA_CQE_MW_BIND_ERR] = IB_WC_MW_BIND_ERR,
		[ORCA_CQE_BAD_RESP_ERR] = IB_WC_BAD_RESP_ERR,
		[ORCA_CQE_LOC_ACCESS_ERR] = IB_WC_LOC_ACCESS_ERR,
		[ORCA_CQE_REM_INV_REQ_ERR] = IB_WC_REM_INV_REQ_ERR,
		[ORCA_CQE_REM_ACCESS_ERR] = IB_WC_REM_ACCESS_ERR,
		[ORCA_CQE_REM_OP_ERR] = IB_WC_REM_OP_ERR,
		[ORCA_CQE_RETRY_EXC_ERR] = IB_WC_RETRY_EXC_ERR,
		[ORCA_CQE_RNR_RETRY_EXC_ERR] = IB_WC_RNR_RETRY_EXC_ERR,
		[ORCA_CQE_FATAL_ERR] = IB_WC_FATAL_ERR,
		[ORCA_CQE_GENERAL_ERR] = IB_WC_GENERAL_ERR,
	};
	/* the table's holes: values no CQE has */
	static const unsigned long st_valid =
		BIT(ORCA_CQE_SUCCESS) | BIT(ORCA_CQE_LOC_LEN_ERR) |
		BIT(ORCA_CQE_LOC_QP_OP_ERR) | BIT(ORCA_CQE_LOC_PROT_ERR) |
		BIT(ORCA_CQE_WR_FLUSH_ERR) | BIT(ORCA_CQE_MW_BIND_ERR) |
		BIT(ORCA_CQE_BAD_RESP_ERR) | BIT(ORCA_CQE_LOC_ACCESS_ERR) |
		BIT(ORCA_CQE_REM_INV_REQ_ERR) | BIT(ORCA_CQE_REM_ACCESS_ERR) |
		BIT(ORCA_CQE_REM_OP_ERR) | BIT(ORCA_CQE_RETRY_EXC_ERR) |
		BIT(ORCA_CQE_RNR_RETRY_EXC_ERR) | BIT(ORCA_CQE_FATAL_ERR) |
		BIT(ORCA_CQE_GENERAL_ERR);
	bool ok = true;

	if (status < ARRAY_SIZE(st) && (st_valid & BIT(status))) {
		wc->status = st[status];
	} else {
		wc->status = IB_WC_GENERAL_ERR;
		ok = false;
	}
	switch (opcode) {
	case ORCA_CQE_OP_SEND:
		wc->opcode = IB_WC_SEND;
		break;
	case ORCA_CQE_OP_RDMA_WRITE:
		wc->opcode = IB_WC_RDMA_WRITE;
		break;
	case ORCA_CQE_OP_RDMA_READ:
		wc->opcode = IB_WC_RDMA_READ;
		break;
	case ORCA_CQE_OP_COMP_SWAP:
		wc->opcode = IB_WC_COMP_SWAP;
		break;
	case ORCA_CQE_OP_FETCH_ADD:
		wc->opcode = IB_WC_FETCH_ADD;
		break;
	case ORCA_CQE_OP_BIND_MW:
		wc->opcode = IB_WC_BIND_MW;
		break;
	case ORCA_CQE_OP_LOCAL_INV:
		wc->opcode = IB_WC_LOCAL_INV;
		break;
	case ORCA_CQE_OP_REG_MR:
		wc->opcode = IB_WC_REG_MR;
		break;
	case ORCA_CQE_OP_RECV:
		wc->opcode = IB_WC_RECV;
		break;
	case ORCA_CQE_OP_RECV_RDMA_WITH_IMM:
		wc->opcode = IB_WC_RECV_RDMA_WITH_IMM;
		break;
	default:
		wc->opcode = sq ? IB_WC_SEND : IB_WC_RECV;
		wc->status = IB_WC_GENERAL_ERR;
		ok = false;
	}
	return ok;
}

u8 orca_qps_from_ib(enum ib_qp_state state)
{
	static const u8 map[] = {
		[IB_QPS_RESET] = ORCA_QPS_RESET,
		[IB_QPS_INIT] = ORCA_QPS_INIT,
		[IB_QPS_RTR] = ORCA_QPS_RTR,
		[IB_QPS_RTS] = ORCA_QPS_RTS,
		[IB_QPS_SQD] = ORCA_QPS_SQD,
		[IB_QPS_SQE] = ORCA_QPS_SQE,
		[IB_QPS_ERR] = ORCA_QPS_ERR,
	};

	return (unsigned int)state < ARRAY_SIZE(map) ? map[state] :
						       ORCA_QPS_ERR;
}

int orca_qpt_from_ib(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_RC:
		return ORCA_QPT_RC;
	case IB_QPT_UC:
		return ORCA_QPT_UC;
	case IB_QPT_UD:
		return ORCA_QPT_UD;
	case IB_QPT_SMI:
		return ORCA_QPT_SMI;
	case IB_QPT_GSI:
		return ORCA_QPT_GSI;
	default:
		return -EOPNOTSUPP;
	}
}

static u32 orca_qp_access_from_ib(int flags)
{
	u32 access = 0;

	/* IBTA QP access rights are the remote ones only */
	if (flags & IB_ACCESS_REMOTE_WRITE)
		access |= ORCA_ACCESS_REMOTE_WRITE;
	if (flags & IB_ACCESS_REMOTE_READ)
		access |= ORCA_ACCESS_REMOTE_READ;
	if (flags & IB_ACCESS_REMOTE_ATOMIC)
		access |= ORCA_ACCESS_REMOTE_ATOMIC;
	return access;
}

static int orca_access_to_ib(u32 access)
{
	int flags = 0;

	if (access & ORCA_ACCESS_REMOTE_WRITE)
		flags |= IB_ACCESS_REMOTE_WRITE;
	if (access & ORCA_ACCESS_REMOTE_READ)
		flags |= IB_ACCESS_REMOTE_READ;
	if (access & ORCA_ACCESS_REMOTE_ATOMIC)
		flags |= IB_ACCESS_REMOTE_ATOMIC;
	return flags;
}

/**
 * orca_mr_access_from_ib - a region's or window's rights as the device's
 * @access: IB_ACCESS_* of a registration
 *
 * Return: ORCA_ACCESS_* (orca_hw_io.h).
 */
u32 orca_mr_access_from_ib(int access)
{
	u32 a = 0;

	if (access & IB_ACCESS_LOCAL_WRITE)
		a |= ORCA_ACCESS_LOCAL_WRITE;
	if (access & IB_ACCESS_REMOTE_WRITE)
		a |= ORCA_ACCESS_REMOTE_WRITE;
	if (access & IB_ACCESS_REMOTE_READ)
		a |= ORCA_ACCESS_REMOTE_READ;
	if (access & IB_ACCESS_REMOTE_ATOMIC)
		a |= ORCA_ACCESS_REMOTE_ATOMIC;
	if (access & IB_ACCESS_MW_BIND)
		a |= ORCA_ACCESS_MW_BIND;
	if (access & IB_ACCESS_RELAXED_ORDERING)
		a |= ORCA_ACCESS_RELAXED_ORDERING;
	return a;
}

void orca_av_from_ib(const struct rdma_ah_attr *ah, struct orca_av *av)
{
	av->dlid = cpu_to_le16(rdma_ah_get_dlid(ah));
	av->sl = rdma_ah_get_sl(ah);
	av->src_path_bits = rdma_ah_get_path_bits(ah);
	av->static_rate = rdma_ah_get_static_rate(ah);
	av->port = rdma_ah_get_port_num(ah);
	if (rdma_ah_get_ah_flags(ah) & IB_AH_GRH) {
		const struct ib_global_route *grh = rdma_ah_read_grh(ah);

		av->flags |= ORCA_AV_F_GRH;
		memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
		av->flow_label = cpu_to_le32(grh->flow_label);
		av->sgid_index = grh->sgid_index;
		av->hop_limit = grh->hop_limit;
		av->traffic_class = grh->traffic_class;
	}
}

void orca_av_to_ib(const struct orca_av *av, struct rdma_ah_attr *ah)
{
	ah->type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(ah, le16_to_cpu(av->dlid));
	rdma_ah_set_sl(ah, av->sl);
	rdma_ah_set_path_bits(ah, av->src_path_bits);
	rdma_ah_set_static_rate(ah, av->static_rate);
	rdma_ah_set_port_num(ah, av->port);
	if (av->flags & ORCA_AV_F_GRH) {
		union ib_gid dgid;

		memcpy(dgid.raw, av->dgid, sizeof(dgid.raw));
		rdma_ah_set_grh(ah, &dgid, le32_to_cpu(av->flow_label),
				av->sgid_index, av->hop_limit,
				av->traffic_class);
	}
}

/**
 * orca_qp_attr_to_modify_in - encode a modify_qp request for the device
 * @attr: ib_core attributes
 * @mask: IB_QP_* attribute mask, standard bits only
 * @in: MODIFY_QP input; qpn and ECE are the caller's
 *
 * Return: 0, or -EOPNOTSUPP for attributes the device does not know.
 */
int orca_qp_attr_to_modify_in(const struct ib_qp_attr *attr, int mask,
			      struct orca_modify_qp_in *in)
{
	struct orca_qp_ctx *ctx = &in->ctx;

	/* the device's mask bits are the IBTA attribute order */
	BUILD_BUG_ON(ORCA_QP_STATE != IB_QP_STATE);
	BUILD_BUG_ON(ORCA_QP_CUR_STATE != IB_QP_CUR_STATE);
	BUILD_BUG_ON(ORCA_QP_AV != IB_QP_AV);
	BUILD_BUG_ON(ORCA_QP_ALT_PATH != IB_QP_ALT_PATH);
	BUILD_BUG_ON(ORCA_QP_PATH_MIG_STATE != IB_QP_PATH_MIG_STATE);
	BUILD_BUG_ON(ORCA_QP_DEST_QPN != IB_QP_DEST_QPN);
	BUILD_BUG_ON(ORCA_QP_ATTR_ALL != IB_QP_ATTR_STANDARD_BITS);

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	in->attr_mask = cpu_to_le32(mask);

	if (mask & IB_QP_STATE)
		ctx->state = orca_qps_from_ib(attr->qp_state);
	if (mask & IB_QP_CUR_STATE)
		in->cur_state = orca_qps_from_ib(attr->cur_qp_state);
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		ctx->en_sqd_async_notify = !!attr->en_sqd_async_notify;
	if (mask & IB_QP_ACCESS_FLAGS)
		ctx->access_flags =
			cpu_to_le32(orca_qp_access_from_ib(attr->qp_access_flags));
	if (mask & IB_QP_PKEY_INDEX)
		ctx->pkey_index = cpu_to_le16(attr->pkey_index);
	if (mask & IB_QP_PORT)
		ctx->port = attr->port_num;
	if (mask & IB_QP_QKEY)
		ctx->qkey = cpu_to_le32(attr->qkey);
	if (mask & IB_QP_AV)
		orca_av_from_ib(&attr->ah_attr, &ctx->av);
	if (mask & IB_QP_PATH_MTU)
		ctx->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		ctx->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		ctx->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		ctx->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		ctx->rq_psn = cpu_to_le32(attr->rq_psn);
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		ctx->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_ALT_PATH) {
		orca_av_from_ib(&attr->alt_ah_attr, &ctx->alt_av);
		ctx->alt_av.port = attr->alt_port_num;
		ctx->alt_av.timeout = attr->alt_timeout;
		ctx->alt_av.pkey_index = attr->alt_pkey_index;
	}
	if (mask & IB_QP_MIN_RNR_TIMER)
		ctx->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_SQ_PSN)
		ctx->sq_psn = cpu_to_le32(attr->sq_psn);
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		ctx->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_PATH_MIG_STATE)
		ctx->path_mig_state = attr->path_mig_state;
	if (mask & IB_QP_CAP) {
		ctx->max_send_wr = cpu_to_le32(attr->cap.max_send_wr);
		ctx->max_recv_wr = cpu_to_le32(attr->cap.max_recv_wr);
		ctx->max_send_sge = cpu_to_le32(attr->cap.max_send_sge);
		ctx->max_recv_sge = cpu_to_le32(attr->cap.max_recv_sge);
		ctx->max_inline_data = cpu_to_le32(attr->cap.max_inline_data);
	}
	if (mask & IB_QP_DEST_QPN)
		ctx->dest_qpn = cpu_to_le32(attr->dest_qp_num);
	return 0;
}

/**
 * orca_ece_to_modify_in - pass a provider's ECE request to the device
 * @caps: device capabilities
 * @ucmd: the provider's modify_qp payload
 * @in: MODIFY_QP input
 *
 * The device negotiates the request on INIT->RTR and RTR->RTS and returns
 * the options it accepted.
 *
 * Return: 0, or -EOPNOTSUPP for request bits the driver does not know or
 * for ECE on a device without it.
 */
int orca_ece_to_modify_in(const struct orca_caps *caps,
			  const struct orca_ibv_modify_qp *ucmd,
			  struct orca_modify_qp_in *in)
{
	/* the options the provider lets through are the device's names */
	BUILD_BUG_ON(ORCA_ECE_OPT_ALL != ORCA_IBV_ECE_OPT_ALL);
	if (ucmd->comp_mask & ~ORCA_IBV_MODIFY_QP_ECE_OPTIONS)
		return -EOPNOTSUPP;
	if (!(ucmd->comp_mask & ORCA_IBV_MODIFY_QP_ECE_OPTIONS))
		return 0;
	if (!(orca_caps_to_uapi_device_caps(caps) & ORCA_IBV_DEVICE_CAP_ECE))
		return -EOPNOTSUPP;
	in->flags |= cpu_to_le32(ORCA_MODIFY_F_ECE);
	in->ece_options = cpu_to_le32(ucmd->ece_options);
	return 0;
}

/**
 * orca_qp_ctx_to_ib - decode a QP context as applied by the device
 * @ctx: QP context from MODIFY_QP or QUERY_QP
 * @attr: filled completely (every attribute, whatever the mask)
 * @init_attr: capacities, signalling and create flags; the CQ/SRQ
 *	pointers are the caller's
 */
void orca_qp_ctx_to_ib(const struct orca_qp_ctx *ctx, struct ib_qp_attr *attr,
		       struct ib_qp_init_attr *init_attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = orca_qps_to_ib(ctx->state);
	attr->cur_qp_state = attr->qp_state;
	attr->path_mtu = orca_mtu_to_ib(ctx->path_mtu);
	attr->path_mig_state = ctx->path_mig_state;
	attr->qkey = le32_to_cpu(ctx->qkey);
	attr->rq_psn = le32_to_cpu(ctx->rq_psn);
	attr->sq_psn = le32_to_cpu(ctx->sq_psn);
	attr->dest_qp_num = le32_to_cpu(ctx->dest_qpn);
	attr->qp_access_flags = orca_access_to_ib(le32_to_cpu(ctx->access_flags));
	attr->cap.max_send_wr = le32_to_cpu(ctx->max_send_wr);
	attr->cap.max_recv_wr = le32_to_cpu(ctx->max_recv_wr);
	attr->cap.max_send_sge = le32_to_cpu(ctx->max_send_sge);
	attr->cap.max_recv_sge = le32_to_cpu(ctx->max_recv_sge);
	attr->cap.max_inline_data = le32_to_cpu(ctx->max_inline_data);
	orca_av_to_ib(&ctx->av, &attr->ah_attr);
	orca_av_to_ib(&ctx->alt_av, &attr->alt_ah_attr);
	attr->pkey_index = le16_to_cpu(ctx->pkey_index);
	attr->alt_pkey_index = ctx->alt_av.pkey_index;
	attr->en_sqd_async_notify = ctx->en_sqd_async_notify;
	attr->sq_draining = ctx->sq_draining;
	attr->max_rd_atomic = ctx->max_rd_atomic;
	attr->max_dest_rd_atomic = ctx->max_dest_rd_atomic;
	attr->min_rnr_timer = ctx->min_rnr_timer;
	attr->port_num = ctx->port;
	attr->timeout = ctx->timeout;
	attr->retry_cnt = ctx->retry_cnt;
	attr->rnr_retry = ctx->rnr_retry;
	attr->alt_port_num = ctx->alt_av.port;
	attr->alt_timeout = ctx->alt_av.timeout;

	init_attr->cap = attr->cap;
	init_attr->sq_sig_type = ctx->sq_sig_all ? IB_SIGNAL_ALL_WR :
						   IB_SIGNAL_REQ_WR;
	init_attr->create_flags = 0;
	if (le32_to_cpu(ctx->create_flags) &
	    ORCA_QP_CREATE_PCI_WRITE_END_PADDING)
		init_attr->create_flags |= IB_QP_CREATE_PCI_WRITE_END_PADDING;
}
