// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ib_device_ops: every verb is answered by the device's firmware. */

#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/orca-abi.h>
#include <rdma/uverbs_ioctl.h>

#include <linux/module.h>

#include "orca.h"
#include "orca_attr.h"
#include "orca_com_cmd.h"

/* Input the driver does not understand must be zero. */
int orca_check_udata_in(struct orca_dev *dev, struct ib_udata *udata,
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

int orca_respond(struct ib_udata *udata, void *resp, size_t len)
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
	/* no raw packet QPs, no rate limits: no TSO or pacing caps either */
	resp->comp_mask = ORCA_IBV_QUERY_DEVICE_RESP_PCI_ATOMIC_CAPS;
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

/*
 * A port's attributes from the port mirror, which the device updates on
 * every change before announcing it; by QUERY_PORT when there is no
 * usable entry (or debugfs query_port_fw asks for the command).
 */
int orca_port_attr_get(struct orca_dev *dev, u32 port,
		       struct orca_port_attr *pa)
{
	if (!READ_ONCE(dev->query_port_fw) && dev->port_mirror &&
	    port >= 1 && port <= dev->caps.phys_port_cnt &&
	    orca_port_mirror_read(&dev->port_mirror[port - 1], port, pa))
		return orca_com_is_dead(&dev->com) ? -EIO : 0;
	return orca_cmd_query_port(&dev->com, port, pa);
}

int orca_query_port(struct ib_device *ibdev, u32 port,
		    struct ib_port_attr *attr)
{
	struct orca_dev *dev = to_odev(ibdev);
	struct orca_port_attr pa;
	int err;

	err = orca_port_attr_get(dev, port, &pa);
	if (err)
		return err;
	orca_port_to_ib_attr(&pa, attr);
	return 0;
}

/*
 * Port 1's tables into @gids and @pkeys (gid_tbl_len and pkey_tbl_len
 * entries), a mailbox of entries per command: ib_core asks for every
 * entry when it fills its cache, one command each would be slow.
 */
static int orca_fetch_port_tables(struct orca_dev *dev, union ib_gid *gids,
				  u16 *pkeys)
{
	unsigned int n, i;
	__le16 *buf;
	u32 start;
	int err = 0;

	buf = kcalloc(ORCA_PKEYS_PER_CMD, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (start = 0; start < dev->gid_tbl_len; start += n) {
		n = min_t(u32, dev->gid_tbl_len - start, ORCA_GIDS_PER_CMD);
		err = orca_cmd_query_gid_table(&dev->com, 1, start, n,
					       gids[start].raw);
		if (err)
			goto out;
	}
	for (start = 0; start < dev->pkey_tbl_len; start += n) {
		n = min_t(u32, dev->pkey_tbl_len - start, ORCA_PKEYS_PER_CMD);
		err = orca_cmd_query_pkey_table(&dev->com, 1, start, n, buf);
		if (err)
			goto out;
		for (i = 0; i < n; i++)
			pkeys[start + i] = le16_to_cpu(buf[i]);
	}
out:
	kfree(buf);
	return err;
}

int orca_read_port_tables(struct orca_dev *dev)
{
	struct device *d = &dev->pdev->dev;
	struct orca_port_attr pa;
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
	if (!dev->gids || !dev->pkeys)
		err = -ENOMEM;
	else
		err = orca_fetch_port_tables(dev, dev->gids, dev->pkeys);
	if (err)
		orca_free_port_tables(dev);
	return err;
}

/* The SM changed the tables: read them again, then swap the contents. */
int orca_refresh_port_tables(struct orca_dev *dev)
{
	union ib_gid *gids;
	unsigned long flags;
	unsigned int i;
	u16 *pkeys;
	int err = -ENOMEM;

	gids = kcalloc(dev->gid_tbl_len, sizeof(*gids), GFP_KERNEL);
	pkeys = kcalloc(dev->pkey_tbl_len, sizeof(*pkeys), GFP_KERNEL);
	if (gids && pkeys)
		err = orca_fetch_port_tables(dev, gids, pkeys);
	if (!err) {
		spin_lock_irqsave(&dev->port_lock, flags);
		memcpy(dev->gids, gids, dev->gid_tbl_len * sizeof(*gids));
		spin_unlock_irqrestore(&dev->port_lock, flags);
		/* a P_Key is read whole (query_pkey): no lock needed */
		for (i = 0; i < dev->pkey_tbl_len; i++)
			WRITE_ONCE(dev->pkeys[i], pkeys[i]);
	}
	kfree(gids);
	kfree(pkeys);
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
	unsigned long flags;

	if (index < 0 || index >= dev->gid_tbl_len)
		return -EINVAL;
	spin_lock_irqsave(&dev->port_lock, flags);
	*gid = dev->gids[index];
	spin_unlock_irqrestore(&dev->port_lock, flags);
	return 0;
}

int orca_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	struct orca_dev *dev = to_odev(ibdev);

	if (index >= dev->pkey_tbl_len)
		return -EINVAL;
	*pkey = READ_ONCE(dev->pkeys[index]);
	return 0;
}

/*
 * NodeDescription, which process_mad() answers with (sysfs node_desc);
 * under the lock, so that no reply carries half of each (as mlx4's
 * sm_lock).
 */
int orca_modify_device(struct ib_device *ibdev, int mask,
		       struct ib_device_modify *props)
{
	struct orca_dev *dev = to_odev(ibdev);
	unsigned long flags;

	if (mask & ~IB_DEVICE_MODIFY_NODE_DESC)
		return -EOPNOTSUPP;
	if (mask & IB_DEVICE_MODIFY_NODE_DESC) {
		spin_lock_irqsave(&dev->node_desc_lock, flags);
		memcpy(ibdev->node_desc, props->node_desc,
		       IB_DEVICE_NODE_DESC_MAX);
		spin_unlock_irqrestore(&dev->node_desc_lock, flags);
	}
	return 0;
}

/*
 * IsSM (ib_umad's issm device), IsCM (ib_cm) and the other capability
 * bits software owns are the device's PortInfo bits, which the SM reads.
 */
int orca_modify_port(struct ib_device *ibdev, u32 port, int mask,
		     struct ib_port_modify *props)
{
	struct orca_dev *dev = to_odev(ibdev);
	struct orca_modify_port_in in = { .port = port };

	if (!(le32_to_cpu(dev->caps.dev_caps) & ORCA_DEV_CAP_MAD_QPS))
		return -EOPNOTSUPP;
	/* the port's link is the subnet manager's to take down */
	if (mask & IB_PORT_SHUTDOWN)
		return -EOPNOTSUPP;
	in.set_cap = cpu_to_le32(props->set_port_cap_mask);
	in.clr_cap = cpu_to_le32(props->clr_port_cap_mask);
	if (mask & IB_PORT_RESET_QKEY_CNTR)
		in.flags |= ORCA_MODIFY_PORT_F_RESET_QKEY_CNTR;
	/* IB_PORT_INIT_TYPE: no InitType support, mlx4 ignores it too */
	return orca_cmd_modify_port(&dev->com, &in);
}

int orca_get_port_immutable(struct ib_device *ibdev, u32 port,
			    struct ib_port_immutable *immutable)
{
	struct orca_dev *dev = to_odev(ibdev);

	immutable->pkey_tbl_len = dev->pkey_tbl_len;
	immutable->gid_tbl_len = dev->gid_tbl_len;
	/* QP0, QP1 and the firmware's agents: ib_mad and its clients */
	if (le32_to_cpu(dev->caps.dev_caps) & ORCA_DEV_CAP_MAD_QPS) {
		immutable->core_cap_flags = RDMA_CORE_PORT_IBA_IB;
		immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	} else {
		immutable->core_cap_flags = RDMA_CORE_CAP_PROT_IB;
	}
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
	if (cmd.comp_mask & ~(ORCA_IBV_ALLOC_UCONTEXT_CMD_ECE |
			      ORCA_IBV_ALLOC_UCONTEXT_CMD_USER_DB |
			      ORCA_IBV_ALLOC_UCONTEXT_CMD_DB_HINT |
			      ORCA_IBV_ALLOC_UCONTEXT_CMD_KICK_RING) ||
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
	/* only for a provider that asked and has room for the answer */
	if ((cmd.comp_mask & ORCA_IBV_ALLOC_UCONTEXT_CMD_USER_DB) &&
	    udata->outlen >= offsetofend(typeof(resp), db_value)) {
		err = orca_udb_alloc(dev, uctx, &resp);
		if (err)
			return err;
	}
	if ((cmd.comp_mask & ORCA_IBV_ALLOC_UCONTEXT_CMD_DB_HINT) &&
	    udata->outlen >= offsetofend(typeof(resp), db_hint_offset)) {
		err = orca_db_hint_map(dev, uctx, &resp);
		if (err) {
			orca_udb_free(uctx);
			return err;
		}
	}
	/* a provider that announces its posts gets a ring to name them in */
	if ((cmd.comp_mask & ORCA_IBV_ALLOC_UCONTEXT_CMD_KICK_RING) &&
	    udata->outlen >= offsetofend(typeof(resp), kick_ring_entries)) {
		err = orca_kick_ring_alloc(dev, uctx, &resp);
		if (err) {
			orca_udb_free(uctx);
			return err;
		}
	}
	uctx->resp = resp;
	err = orca_respond(udata, &resp, sizeof(resp));
	if (err) {
		orca_kick_ring_free(dev, uctx);
		orca_udb_free(uctx);
	}
	return err;
}

void orca_dealloc_ucontext(struct ib_ucontext *ibucontext)
{
	struct orca_ucontext *uctx = container_of(ibucontext,
						  struct orca_ucontext,
						  ibucontext);

	orca_kick_ring_free(to_odev(ibucontext->device), uctx);
	orca_udb_free(uctx);
}

/*
 * The device is going away (PCI remove, rmmod) while user contexts are
 * open.  Implementing this lets ib_core disassociate them instead of
 * waiting for every process to close its context: it destroys their
 * objects through the usual destroy verbs and reports
 * IB_EVENT_DEVICE_FATAL.  Queues are user memory, and ib_core itself
 * zaps the one page orca maps (the doorbell page, rdma_user_mmap_io), so
 * there is nothing more to do here.
 */
void orca_disassociate_ucontext(struct ib_ucontext *ibucontext)
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

/*
 * The tables of numbers (QPN, CQN, SRQN -> object) are where the event
 * handlers and poll_cq look objects up.  A number lives there in three
 * states: free, live (the object), and retiring (a reserved entry, which
 * xa_load() reads as NULL): from the start of its destroy until the
 * driver has cleaned up after the device.  A device may hand the number
 * out again as soon as its DESTROY completes, but a CQE or event of the
 * old object can still be in a ring then; so the new object waits until
 * the old one's number is free before it goes in (orca_track()).
 */

/* A reserved entry at @index: its destroy has not finished. */
static bool orca_number_retiring(struct xarray *xa, u32 index)
{
	XA_STATE(xas, xa, index);
	bool retiring;

	xa_lock_irq(xa);
	retiring = xa_is_zero(xas_load(&xas));
	xa_unlock_irq(xa);
	return retiring;
}

/**
 * orca_track - put a new object into the table of its number
 * @dev: device
 * @xa: the table
 * @index: the number the device gave the object
 * @obj: the object
 * @what: the number's name, for the log
 *
 * Waits while an object destroyed before it still retires the number.
 * A number the device hands out while it is still live is the device's
 * fault, not the caller's.
 *
 * Return: 0, -ENOMEM, or -EIO for a live number.
 */
int orca_track(struct orca_dev *dev, struct xarray *xa, u32 index, void *obj,
	       const char *what)
{
	int err;

	/* -EBUSY with nothing to load: a reserved entry, still retiring */
	while ((err = xa_insert_irq(xa, index, obj, GFP_KERNEL)) == -EBUSY &&
	       !xa_load(xa, index))
		wait_event(dev->retired_wq, !orca_number_retiring(xa, index));
	if (err == -EBUSY) {
		ibdev_err(&dev->ibdev, "device reused live %s %u\n", what,
			  index);
		return -EIO;
	}
	return err;
}

/**
 * orca_retire - a destroy begins: the object's number is no longer looked up
 * @dev: device
 * @xa: the table
 * @index: the number
 * @obj: the object now in the table
 *
 * The entry becomes a reserved one, in place (no allocation).  After
 * this no event handler can still be looking at the object, and no new
 * object gets the number until orca_release_number().
 */
void orca_retire(struct orca_dev *dev, struct xarray *xa, u32 index,
		 void *obj)
{
	unsigned long flags;

	xa_cmpxchg_irq(xa, index, obj, XA_ZERO_ENTRY, 0);
	spin_lock_irqsave(&dev->com.eq_lock, flags);
	spin_unlock_irqrestore(&dev->com.eq_lock, flags);
}

/**
 * orca_unretire - a destroy the device refused: the object is still its own
 * @dev: device
 * @xa: the table
 * @index: the number, retired by orca_retire()
 * @obj: the object, which goes back into the reserved entry
 */
void orca_unretire(struct orca_dev *dev, struct xarray *xa, u32 index,
		   void *obj)
{
	xa_cmpxchg_irq(xa, index, XA_ZERO_ENTRY, obj, 0);
	wake_up_all(&dev->retired_wq);
}

/**
 * orca_release_number - the destroyed object left nothing behind: its
 *			 number is free for the next object the device gives it
 * @dev: device
 * @xa: the table
 * @index: the number; if it is not retiring (the object never went in),
 *	   nothing changes
 */
void orca_release_number(struct orca_dev *dev, struct xarray *xa, u32 index)
{
	xa_cmpxchg_irq(xa, index, XA_ZERO_ENTRY, NULL, 0);
	wake_up_all(&dev->retired_wq);
}

/*
 * Port 1's hw_counters (rdma statistic): first the driver's transport
 * counters, then the device's own (QUERY_COUNTERS), each named for the
 * field of struct orca_query_counters_out it shows.
 */
#define ORCA_DEV_STAT(_field)						\
	[ORCA_STAT_NUM + offsetof(struct orca_query_counters_out, _field) / \
	 sizeof(__le64)].name = "dev_" #_field

#define ORCA_DEV_STAT_NUM \
	(sizeof(struct orca_query_counters_out) / sizeof(__le64))

static const struct rdma_stat_desc orca_port_stat_descs[] = {
	[ORCA_STAT_CMDS].name = "fw_cmds",
	[ORCA_STAT_CMD_ERRORS].name = "fw_cmd_errors",
	[ORCA_STAT_TIMEOUTS].name = "fw_cmd_timeouts",
	[ORCA_STAT_MISSED_IRQS].name = "fw_missed_irqs",
	[ORCA_STAT_STALE_COMPLETIONS].name = "fw_stale_completions",
	[ORCA_STAT_ASYNC_EVENTS].name = "async_events",
	[ORCA_STAT_LOST_EVENTS].name = "async_events_lost",
	[ORCA_STAT_KERNEL_KICKS].name = "kernel_kicks",
	ORCA_DEV_STAT(cmds),
	ORCA_DEV_STAT(cmd_errors),
	ORCA_DEV_STAT(async_events),
	ORCA_DEV_STAT(async_events_lost),
	ORCA_DEV_STAT(comp_events),
	ORCA_DEV_STAT(comp_events_lost),
	ORCA_DEV_STAT(doorbells),
	ORCA_DEV_STAT(send_wqes),
	ORCA_DEV_STAT(tx_packets),
	ORCA_DEV_STAT(tx_bytes),
	ORCA_DEV_STAT(rx_packets),
	ORCA_DEV_STAT(rx_bytes),
	ORCA_DEV_STAT(dropped_packets),
	ORCA_DEV_STAT(cqes),
	ORCA_DEV_STAT(cqe_errors),
	ORCA_DEV_STAT(naks_sent),
	ORCA_DEV_STAT(rnr_naks_sent),
	ORCA_DEV_STAT(retransmits),
	ORCA_DEV_STAT(cq_overruns),
	ORCA_DEV_STAT(dma_faults),
};

static_assert(ARRAY_SIZE(orca_port_stat_descs) ==
	      ORCA_STAT_NUM + ORCA_DEV_STAT_NUM);

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
	struct orca_query_counters_out out;
	const __le64 *dev_stat;
	unsigned int i;

	for (i = 0; i < ORCA_STAT_NUM; i++)
		stats->value[i] = orca_com_stat(&dev->com, i);

	/*
	 * A device that cannot answer shows what it said last.  sysfs and
	 * rdma statistic read through different rdma_hw_stats, each with its
	 * own lock: the last answer has one of its own.
	 */
	mutex_lock(&dev->counters_lock);
	if (!orca_cmd_query_counters(&dev->com, &out))
		dev->counters = out;
	dev_stat = (const __le64 *)&dev->counters;
	for (i = 0; i < ORCA_DEV_STAT_NUM; i++)
		stats->value[ORCA_STAT_NUM + i] = le64_to_cpu(dev_stat[i]);
	mutex_unlock(&dev->counters_lock);
	return ORCA_STAT_NUM + ORCA_DEV_STAT_NUM;
}
