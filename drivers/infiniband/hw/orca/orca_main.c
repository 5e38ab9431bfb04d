// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * orca PCI driver: binds the HCA function, brings up its firmware command
 * queue and registers the ib_device.
 */

#include <linux/delay.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/orca-abi.h>

#include "orca.h"
#include "orca_attr.h"
#include "orca_com_cmd.h"

MODULE_AUTHOR("orca developers <orca-dev@lists.orca.invalid>");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("orca RDMA host channel adapter driver");
MODULE_VERSION("0.1.0");

#define ORCA_CMD_TIMEOUT_MIN_MS	100
#define ORCA_CMD_TIMEOUT_MAX_MS	600000

static unsigned int cmd_timeout_ms = 30000;

/* 0 would declare the device dead before it could answer anything. */
static int orca_set_cmd_timeout(const char *val, const struct kernel_param *kp)
{
	return orca_param_set_uint_range(val, kp, ORCA_CMD_TIMEOUT_MIN_MS,
					 ORCA_CMD_TIMEOUT_MAX_MS);
}

static const struct kernel_param_ops orca_cmd_timeout_ops = {
	.set = orca_set_cmd_timeout,
	.get = param_get_uint,
};

module_param_cb(cmd_timeout_ms, &orca_cmd_timeout_ops, &cmd_timeout_ms, 0444);
MODULE_PARM_DESC(cmd_timeout_ms,
		 "Firmware command timeout in ms, 100..600000 (default 30000)");

static bool fw_recovery = true;
module_param(fw_recovery, bool, 0644);
MODULE_PARM_DESC(fw_recovery,
		 "Re-create a dead device once its firmware boots again (default true)");

#define ORCA_REGS_OFF(field)	offsetof(struct orca_regs, field)

/*
 * One per PCI function.  Each firmware incarnation gets its own orca_dev
 * (and ib_device): a firmware that boots again after a fatal error knows
 * nothing of the old one's queues and objects, so recovery unregisters
 * the old device (ib_core disassociates its users) and probes anew.
 */
struct orca_pci {
	struct pci_dev *pdev;
	struct mutex lock;		/* dev, removing */
	struct orca_dev *dev;		/* NULL once a re-probe failed */
	bool removing;
	struct work_struct recover_work;
};

static const struct pci_device_id orca_pci_tbl[] = {
	{ PCI_DEVICE(ORCA_PCI_VENDOR_ID, ORCA_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, orca_pci_tbl);

static u32 orca_pci_read32(struct orca_com *com, u32 off)
{
	return readl(com_to_odev(com)->regs + off);
}

static u64 orca_pci_read64(struct orca_com *com, u32 off)
{
	return lo_hi_readq(com_to_odev(com)->regs + off);
}

static void orca_pci_write32(struct orca_com *com, u32 off, u32 val)
{
	writel(val, com_to_odev(com)->regs + off);
}

static void orca_pci_write64(struct orca_com *com, u32 off, u64 val)
{
	lo_hi_writeq(val, com_to_odev(com)->regs + off);
}

static void orca_pci_ring(struct orca_com *com, u32 vec)
{
	struct orca_dev *dev = com_to_odev(com);

	writel(dev->fw_peer_id << 16 | vec,
	       dev->doorbell + ORCA_IVSHMEM_DOORBELL);
}

static const struct orca_com_ops orca_pci_com_ops = {
	.read32 = orca_pci_read32,
	.read64 = orca_pci_read64,
	.write32 = orca_pci_write32,
	.write64 = orca_pci_write64,
	.ring = orca_pci_ring,
};

static irqreturn_t orca_eq_irq(int irq, void *data)
{
	orca_com_process_eq(&((struct orca_dev *)data)->com);
	return IRQ_HANDLED;
}

static void orca_set_registered(struct orca_dev *dev, bool registered)
{
	unsigned long flags;

	spin_lock_irqsave(&dev->com.eq_lock, flags);
	dev->ib_registered = registered;
	spin_unlock_irqrestore(&dev->com.eq_lock, flags);
}

static const struct ib_device_ops orca_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = ORCA_UVERBS_ABI_VERSION,

	.alloc_dm = orca_alloc_dm,
	.alloc_hw_port_stats = orca_alloc_hw_port_stats,
	.alloc_mw = orca_alloc_mw,
	.alloc_pd = orca_alloc_pd,
	.alloc_ucontext = orca_alloc_ucontext,
	.create_ah = orca_create_ah,
	.create_user_ah = orca_create_ah,
	.create_cq = orca_create_cq,
	.create_qp = orca_create_qp,
	.create_srq = orca_create_srq,
	.dealloc_dm = orca_dealloc_dm,
	.dealloc_mw = orca_dealloc_mw,
	.dealloc_pd = orca_dealloc_pd,
	.dealloc_ucontext = orca_dealloc_ucontext,
	.disassociate_ucontext = orca_disassociate_ucontext,
	.dereg_mr = orca_dereg_mr,
	.destroy_ah = orca_destroy_ah,
	.destroy_cq = orca_destroy_cq,
	.destroy_qp = orca_destroy_qp,
	.destroy_srq = orca_destroy_srq,
	.fill_res_cq_entry = orca_fill_res_cq_entry,
	.fill_res_mr_entry = orca_fill_res_mr_entry,
	.fill_res_mr_entry_raw = orca_fill_res_mr_entry_raw,
	.fill_res_qp_entry = orca_fill_res_qp_entry,
	.fill_res_qp_entry_raw = orca_fill_res_qp_entry_raw,
	.get_dev_fw_str = orca_get_dev_fw_str,
	.get_dma_mr = orca_get_dma_mr,
	.get_hw_stats = orca_get_hw_stats,
	.get_port_immutable = orca_get_port_immutable,
	.mmap = orca_mmap,
	.mmap_free = orca_mmap_free,
	.modify_qp = orca_modify_qp,
	.modify_srq = orca_modify_srq,
	.alloc_mr = orca_alloc_mr,
	.map_mr_sg = orca_map_mr_sg,
	.attach_mcast = orca_attach_mcast,
	.detach_mcast = orca_detach_mcast,
	.poll_cq = orca_poll_cq,
	.post_srq_recv = orca_post_srq_recv,
	.modify_device = orca_modify_device,
	.modify_port = orca_modify_port,
	.process_mad = orca_process_mad,
	.query_ah = orca_query_ah,
	.post_recv = orca_post_recv,
	.post_send = orca_post_send,
	.query_device = orca_query_device,
	.query_gid = orca_query_gid,
	.query_pkey = orca_query_pkey,
	.query_port = orca_query_port,
	.query_qp = orca_query_qp,
	.query_srq = orca_query_srq,
	.query_ucontext = orca_query_ucontext,
	.reg_dm_mr = orca_reg_dm_mr,
	.reg_user_mr = orca_reg_user_mr,
	.reg_user_mr_dmabuf = orca_reg_user_mr_dmabuf,
	.req_notify_cq = orca_req_notify_cq,
	.resize_user_cq = orca_resize_cq,
	.rereg_user_mr = orca_rereg_user_mr,

	INIT_RDMA_OBJ_SIZE(ib_ah, orca_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, orca_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, orca_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, orca_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, orca_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, orca_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, orca_ucontext, ibucontext),
};

/* A device whose heartbeat does not move has no firmware behind it. */
static int orca_wait_heartbeat(struct orca_dev *dev)
{
	u64 hb = lo_hi_readq(dev->regs + ORCA_REGS_OFF(heartbeat));
	unsigned int waited;

	for (waited = 0; waited < 5 * ORCA_HEARTBEAT_PERIOD_MS; waited += 20) {
		msleep(20);
		if (lo_hi_readq(dev->regs + ORCA_REGS_OFF(heartbeat)) != hb)
			return 0;
	}
	dev_err(&dev->pdev->dev, "firmware heartbeat does not advance\n");
	return -ENODEV;
}

static int orca_check_device(struct orca_dev *dev)
{
	struct device *d = &dev->pdev->dev;
	u64 magic = lo_hi_readq(dev->regs + ORCA_REGS_OFF(magic));
	u32 ver;

	if (magic != ORCA_MAGIC) {
		dev_info(d, "no orca firmware behind this ivshmem function\n");
		return -ENODEV;
	}
	ver = readl(dev->regs + ORCA_REGS_OFF(if_version));
	if (ver != ORCA_IF_VERSION) {
		dev_err(d, "interface version %u, driver speaks %u\n", ver,
			ORCA_IF_VERSION);
		return -ENODEV;
	}
	if (readl(dev->regs + ORCA_REGS_OFF(health)) != ORCA_HEALTH_OK) {
		dev_err(d, "firmware reports fatal health, syndrome 0x%x\n",
			readl(dev->regs + ORCA_REGS_OFF(fatal_syndrome)));
		return -EIO;
	}
	dev->fw_peer_id = readl(dev->regs + ORCA_REGS_OFF(fw_peer_id));
	return orca_wait_heartbeat(dev);
}

static size_t orca_port_mirror_size(struct orca_dev *dev)
{
	return dev->caps.phys_port_cnt * sizeof(*dev->port_mirror);
}

/*
 * Has a new firmware incarnation booted behind a dead device?  It shows a
 * complete register block, healthy, with another host generation.
 */
static bool orca_fw_rebooted(struct orca_dev *dev)
{
	return lo_hi_readq(dev->regs + ORCA_REGS_OFF(magic)) == ORCA_MAGIC &&
	       readl(dev->regs + ORCA_REGS_OFF(if_version)) == ORCA_IF_VERSION &&
	       readl(dev->regs + ORCA_REGS_OFF(health)) == ORCA_HEALTH_OK &&
	       lo_hi_readq(dev->regs + ORCA_REGS_OFF(generation)) !=
	       dev->com.fw_generation;
}

/*
 * A device that dies while nobody waits for a command (heartbeat stops,
 * health turns fatal, another firmware appears) is noticed here, and
 * its users get IB_EVENT_DEVICE_FATAL without having to call a verb.
 */
static void orca_health_work(struct work_struct *work)
{
	struct orca_dev *dev = container_of(to_delayed_work(work),
					    struct orca_dev, health_work);

	orca_com_check_health(&dev->com);
	/* a stalled device performs the reset it was asked for when it wakes */
	if (orca_com_is_dead(&dev->com) && !READ_ONCE(dev->quiesced))
		queue_work(system_long_wq, &dev->quiesce_work);
	/* a dead device keeps watching for its firmware to come back */
	if (orca_com_is_dead(&dev->com) && orca_fw_rebooted(dev)) {
		if (READ_ONCE(fw_recovery)) {
			queue_work(system_long_wq, &dev->opci->recover_work);
			return;
		}
		if (!dev->fw_back_noted)
			dev_info(&dev->pdev->dev,
				 "firmware is back; fw_recovery=0: PCI remove and rescan to use it\n");
		dev->fw_back_noted = true;
	}
	schedule_delayed_work(&dev->health_work,
			      msecs_to_jiffies(ORCA_HEALTH_POLL_MS));
}

static int orca_alloc_mirror(struct orca_dev *dev)
{
	/* orca_caps_check() bounded max_qp: this fits one allocation */
	dev->mirror_entries = le32_to_cpu(dev->caps.max_qp) + ORCA_QPN_BASE;
	dev->mirror = dma_alloc_coherent(&dev->pdev->dev,
					 dev->mirror_entries *
					 sizeof(*dev->mirror),
					 &dev->mirror_dma, GFP_KERNEL);
	if (!dev->mirror)
		return -ENOMEM;
	lo_hi_writeq(dev->mirror_dma,
		     dev->regs + ORCA_REGS_OFF(qp_mirror_base));
	writel(dev->mirror_entries,
	       dev->regs + ORCA_REGS_OFF(qp_mirror_entries));

	/* the port mirror: query_port without a command */
	dev->port_mirror = dma_alloc_coherent(&dev->pdev->dev,
					      orca_port_mirror_size(dev),
					      &dev->port_mirror_dma,
					      GFP_KERNEL);
	if (!dev->port_mirror)
		return -ENOMEM;
	lo_hi_writeq(dev->port_mirror_dma,
		     dev->regs + ORCA_REGS_OFF(port_mirror_base));
	return 0;
}

/*
 * Enable the queues, then QUERY_CAPS and INIT (polled), then interrupts.
 * The device has been reset; on failure the caller must reset it again
 * (orca_stop) before the queues are freed.
 */
static int orca_bring_up(struct orca_dev *dev)
{
	struct device *d = &dev->pdev->dev;
	u64 fw;
	int err;

	orca_ceq_program(dev);
	orca_com_program_queues(&dev->com);
	err = orca_cmd_query_caps(&dev->com, &dev->caps);
	if (err) {
		dev_err(d, "QUERY_CAPS failed: %d\n", err);
		return err;
	}
	err = orca_caps_check(&dev->caps, d);
	if (err)
		return err;
	orca_cache_device_attr(dev);
	orca_dm_probe(dev);
	err = orca_alloc_mirror(dev);
	if (err)
		return err;
	err = orca_db_hint_alloc(dev);
	if (err)
		return err;
	err = orca_cmd_init(&dev->com, ORCA_INIT_F_EQ_IRQ);
	if (err) {
		dev_err(d, "INIT failed: %d\n", err);
		return err;
	}
	orca_com_set_event_mode(&dev->com, true);
	err = orca_read_port_tables(dev);
	if (err)
		return err;

	fw = le64_to_cpu(dev->caps.fw_version);
	dev_info(d, "firmware %u.%u.%u, %u QPs, node GUID %016llx\n",
		 ORCA_FW_VERSION_MAJOR(fw), ORCA_FW_VERSION_MINOR(fw),
		 ORCA_FW_VERSION_SUB(fw), le32_to_cpu(dev->caps.max_qp),
		 le64_to_cpu(dev->caps.node_guid));
	return 0;
}

/*
 * Stop a device whose queues were enabled, and give back what it used.
 * No DMA memory is freed unless the device acknowledged the reset: a
 * device that is slow rather than dead still has those addresses, and
 * clearing bus mastering alone is not enough to stop it.
 */
static void orca_stop(struct orca_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;
	bool quiesced;

	cancel_delayed_work_sync(&dev->health_work);
	free_irq(pci_irq_vector(pdev, ORCA_MSIX_COMP), dev);
	free_irq(pci_irq_vector(pdev, ORCA_MSIX_EQ), dev);
	orca_com_set_event_mode(&dev->com, false);
	/* only the EQ (IRQ, or a waiter, and there is none) schedules it */
	cancel_work_sync(&dev->resync_work);
	cancel_work_sync(&dev->port_work);
	cancel_work_sync(&dev->quiesce_work);
	cancel_work_sync(&dev->dead_comp_work);
	quiesced = !orca_com_dev_reset(&dev->com);
	pci_free_irq_vectors(pdev);
	pci_clear_master(pdev);
	orca_free_port_tables(dev);
	orca_dead_stop(dev, quiesced);
	orca_ceq_free(dev, quiesced);
	if (!quiesced) {
		if (dev->mirror)
			dev_warn(&pdev->dev, "leaking the QP and port mirrors and the doorbell hint too\n");
		orca_com_leak_dma(&dev->com);
		return;
	}
	if (dev->mirror)
		dma_free_coherent(&pdev->dev,
				  dev->mirror_entries * sizeof(*dev->mirror),
				  dev->mirror, dev->mirror_dma);
	if (dev->port_mirror)
		dma_free_coherent(&pdev->dev, orca_port_mirror_size(dev),
				  dev->port_mirror, dev->port_mirror_dma);
	orca_db_hint_free(dev);
	orca_com_destroy(&dev->com);
}

static int orca_register(struct orca_dev *dev)
{
	struct ib_device *ibdev = &dev->ibdev;
	int err;

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = dev->caps.phys_port_cnt;
	/*
	 * One completion EQ on one MSI-X vector, whatever the device could
	 * offer: a vector advertised is an interrupt of its own.
	 */
	ibdev->num_comp_vectors = 1;
	ibdev->node_guid = cpu_to_be64(le64_to_cpu(dev->caps.node_guid));
	ibdev->dev.parent = &dev->pdev->dev;
	strscpy(ibdev->node_desc, "orca HCA", sizeof(ibdev->node_desc));
	/* the empty post_send / post_recv is how userspace kicks the device */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV);
	if (dev->attr.kernel_cap_flags & IBK_LOCAL_DMA_LKEY)
		ibdev->local_dma_lkey = ORCA_RESERVED_LKEY;
	ib_set_device_ops(ibdev, &orca_dev_ops);
	ibdev->driver_def = orca_uapi_defs;

	err = ib_register_device(ibdev, "orca%d", &dev->pdev->dev);
	if (err)
		return err;
	orca_set_registered(dev, true);
	return 0;
}

static int orca_map_bars(struct orca_dev *dev)
{
	struct pci_dev *pdev = dev->pdev;

	if (pci_resource_len(pdev, ORCA_BAR_REGS) < sizeof(struct orca_regs))
		return -ENODEV;
	dev->doorbell = pci_iomap(pdev, ORCA_BAR_DOORBELL, 0);
	dev->regs = pci_iomap(pdev, ORCA_BAR_REGS, sizeof(struct orca_regs));
	if (!dev->doorbell || !dev->regs) {
		if (dev->doorbell)
			pci_iounmap(pdev, dev->doorbell);
		if (dev->regs)
			pci_iounmap(pdev, dev->regs);
		return -ENOMEM;
	}
	return 0;
}

static void orca_unmap_bars(struct orca_dev *dev)
{
	pci_iounmap(dev->pdev, dev->regs);
	pci_iounmap(dev->pdev, dev->doorbell);
}

/* Probe one firmware incarnation: a new ib_device on @opci's function. */
static int orca_dev_create(struct orca_pci *opci)
{
	struct pci_dev *pdev = opci->pdev;
	struct orca_dev *dev;
	int err;

	dev = ib_alloc_device(orca_dev, ibdev);
	if (!dev)
		return -ENOMEM;
	dev->pdev = pdev;
	dev->opci = opci;
	xa_init_flags(&dev->qps, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->cqs, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&dev->srqs, XA_FLAGS_LOCK_IRQ);
	init_waitqueue_head(&dev->retired_wq);
	INIT_WORK(&dev->resync_work, orca_resync_work);
	INIT_WORK(&dev->port_work, orca_port_work);
	spin_lock_init(&dev->port_lock);
	spin_lock_init(&dev->node_desc_lock);
	INIT_DELAYED_WORK(&dev->health_work, orca_health_work);
	INIT_WORK(&dev->quiesce_work, orca_dead_quiesce_work);
	INIT_WORK(&dev->dead_comp_work, orca_dead_comp_work);
	mutex_init(&dev->counters_lock);
	INIT_LIST_HEAD(&dev->held);
	spin_lock_init(&dev->held_lock);

	err = orca_map_bars(dev);
	if (err)
		goto err_dealloc;
	err = orca_check_device(dev);
	if (err)
		goto err_unmap;

	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		goto err_unmap;
	/* QEMU delivers MSI-X through the bus-master address space */
	pci_set_master(pdev);

	err = orca_com_init(&dev->com, &pdev->dev, &orca_pci_com_ops,
			    orca_async_event, cmd_timeout_ms);
	if (err)
		goto err_clear_master;
	dev->com.overflow_fn = orca_events_lost;
	err = orca_ceq_alloc(dev);
	if (err)
		goto err_com;

	err = pci_alloc_irq_vectors(pdev, ORCA_NUM_MSIX, ORCA_NUM_MSIX,
				    PCI_IRQ_MSIX);
	if (err < 0)
		goto err_com;
	err = request_irq(pci_irq_vector(pdev, ORCA_MSIX_EQ), orca_eq_irq, 0,
			  DRV_MODULE_NAME, dev);
	if (err)
		goto err_vectors;
	err = request_irq(pci_irq_vector(pdev, ORCA_MSIX_COMP), orca_ceq_irq, 0,
			  DRV_MODULE_NAME "-comp", dev);
	if (err)
		goto err_irq_eq;

	/* whatever a previous driver left running stops here */
	err = orca_com_dev_reset(&dev->com);
	if (err)
		goto err_irq;
	err = orca_bring_up(dev);
	if (err)
		goto err_stop;
	orca_debugfs_add(dev);
	orca_udb_probe(dev);
	err = orca_register(dev);
	if (err)
		goto err_udb;
	opci->dev = dev;
	schedule_delayed_work(&dev->health_work,
			      msecs_to_jiffies(ORCA_HEALTH_POLL_MS));
	return 0;

err_udb:
	orca_udb_remove(dev);
	orca_debugfs_remove(dev);
err_stop:
	orca_stop(dev);
	goto err_unmap;
err_irq:
	free_irq(pci_irq_vector(pdev, ORCA_MSIX_COMP), dev);
err_irq_eq:
	free_irq(pci_irq_vector(pdev, ORCA_MSIX_EQ), dev);
err_vectors:
	pci_free_irq_vectors(pdev);
err_com:
	/* the device was never given these addresses */
	orca_ceq_free(dev, true);
	orca_com_destroy(&dev->com);
err_clear_master:
	pci_clear_master(pdev);
err_unmap:
	orca_unmap_bars(dev);
err_dealloc:
	mutex_destroy(&dev->counters_lock);
	ib_dealloc_device(&dev->ibdev);
	return err;
}

/* Unregister (disassociating every user), stop, free one incarnation. */
static void orca_dev_destroy(struct orca_dev *dev)
{
	/* a dead device is stopped before its users' memory goes back */
	if (orca_com_is_dead(&dev->com)) {
		queue_work(system_long_wq, &dev->quiesce_work);
		flush_work(&dev->quiesce_work);
	}
	orca_set_registered(dev, false);
	ib_unregister_device(&dev->ibdev);
	orca_udb_remove(dev);
	orca_debugfs_remove(dev);
	orca_stop(dev);
	orca_unmap_bars(dev);
	WARN_ON(!xa_empty(&dev->qps) || !xa_empty(&dev->cqs) ||
		!xa_empty(&dev->srqs));
	mutex_destroy(&dev->counters_lock);
	ib_dealloc_device(&dev->ibdev);
}

/*
 * The dead device's firmware booted again (orca_health_work saw it):
 * replace the device.  Its users were told IB_EVENT_DEVICE_FATAL when it
 * died; unregistering disassociates them, and they open the new one.
 */
static void orca_recover_work(struct work_struct *work)
{
	struct orca_pci *opci = container_of(work, struct orca_pci,
					     recover_work);
	struct device *d = &opci->pdev->dev;
	int err;

	mutex_lock(&opci->lock);
	if (opci->removing || !opci->dev)
		goto out;
	dev_warn(d, "firmware booted again (generation %llu): re-creating %s\n",
		 lo_hi_readq(opci->dev->regs + ORCA_REGS_OFF(generation)),
		 dev_name(&opci->dev->ibdev.dev));
	orca_dev_destroy(opci->dev);
	opci->dev = NULL;
	err = orca_dev_create(opci);
	if (err)
		dev_err(d, "recovery failed (%d): PCI remove and rescan to retry\n",
			err);
	else
		dev_info(d, "recovered as %s\n", dev_name(&opci->dev->ibdev.dev));
out:
	mutex_unlock(&opci->lock);
}

static int orca_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct orca_pci *opci;
	int err;

	opci = kzalloc_obj(*opci, GFP_KERNEL);
	if (!opci)
		return -ENOMEM;
	opci->pdev = pdev;
	mutex_init(&opci->lock);
	INIT_WORK(&opci->recover_work, orca_recover_work);
	pci_set_drvdata(pdev, opci);

	err = pci_enable_device_mem(pdev);
	if (err)
		goto err_free;
	err = pci_request_selected_regions(pdev, BIT(ORCA_BAR_DOORBELL) |
					   BIT(ORCA_BAR_REGS), DRV_MODULE_NAME);
	if (err)
		goto err_disable;
	err = orca_dev_create(opci);
	if (err)
		goto err_release;
	return 0;

err_release:
	pci_release_selected_regions(pdev, BIT(ORCA_BAR_DOORBELL) |
				     BIT(ORCA_BAR_REGS));
err_disable:
	pci_disable_device(pdev);
err_free:
	mutex_destroy(&opci->lock);
	kfree(opci);
	return err;
}

static void orca_remove(struct pci_dev *pdev)
{
	struct orca_pci *opci = pci_get_drvdata(pdev);
	struct orca_dev *dev;

	/* a recovery in progress finishes first; none starts after this */
	mutex_lock(&opci->lock);
	opci->removing = true;
	dev = opci->dev;
	opci->dev = NULL;
	mutex_unlock(&opci->lock);
	/* destroying cancels the health work, the only one to queue it */
	if (dev)
		orca_dev_destroy(dev);
	cancel_work_sync(&opci->recover_work);
	pci_release_selected_regions(pdev, BIT(ORCA_BAR_DOORBELL) |
				     BIT(ORCA_BAR_REGS));
	pci_disable_device(pdev);
	mutex_destroy(&opci->lock);
	kfree(opci);
}

static struct pci_driver orca_pci_driver = {
	.name = DRV_MODULE_NAME,
	.id_table = orca_pci_tbl,
	.probe = orca_probe,
	.remove = orca_remove,
};

static int __init orca_init(void)
{
	int err;

	orca_debugfs_init();
	err = pci_register_driver(&orca_pci_driver);
	if (err)
		orca_debugfs_cleanup();
	return err;
}

static void __exit orca_exit(void)
{
	pci_unregister_driver(&orca_pci_driver);
	orca_debugfs_cleanup();
}

module_init(orca_init);
module_exit(orca_exit);
