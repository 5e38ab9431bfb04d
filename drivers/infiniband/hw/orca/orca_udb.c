// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * orca: the doorbell: the page users map, the kick rings and the hint,
 * and the kicks the driver rings itself; and what user contexts map
 * (device memory's pages too, orca_dm.c).
 *
 * Producer indices live in doorbell records in user memory; what the
 * device needs besides is a wake-up.  The wake-up is a store to the
 * ivshmem doorbell register in BAR0, so a context that maps BAR0's page
 * posts with no system call.  The store carries no queue and no index:
 * the device re-reads the doorbell records it owns on every kick and
 * treats the kick as a hint, so a user who rings it at will costs the
 * device time and nothing else.
 *
 * But the register is ivshmem's, and takes any peer and vector: a user
 * with the page can fire this guest's own MSI-X vectors (its peer ID is
 * at IVPosition, in the same page) as often as it likes, a storm of
 * orca interrupts.  Only a context opened with CAP_SYS_RAWIO, which may
 * reach raw device registers anyway, gets the page (or every context,
 * with user_doorbell_any=1, where the administrator accepts that).
 *
 * The page is shared by all contexts and must hold nothing but BAR0: the
 * probe maps it only if BAR0 starts a page and the rest of that page can
 * be reserved so that no other BAR is assigned there (vfio's rule for
 * sub-page BARs).  Otherwise, or with user_doorbell=0, the provider kicks
 * through an empty post_send (orca_post_send).
 *
 * Beside it, the doorbell hint (orca_hw.h): a page of host memory the
 * device writes and contexts map read-only, where it says that it is
 * awake and will read the doorbell records again anyway, so a post may
 * skip its kick.  Each kick is a trapped MMIO write (or a system call),
 * and a kick that lands while the device works only costs it time.
 *
 * And a kick ring per context (orca_hw_io.h): a page the context maps
 * writable and the device reads, in which each post names its QP, so
 * the device need not read every doorbell record to find the one that
 * moved.  A context's ring is its own: what it writes there can only
 * make the device look at a QP, or not look at its own.
 */
#include <linux/capability.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <rdma/ib_verbs.h>

#include "orca.h"
#include "orca_com_cmd.h"

static bool user_doorbell = true;
module_param(user_doorbell, bool, 0444);
MODULE_PARM_DESC(user_doorbell,
		 "Map the doorbell page into user contexts when BAR0 has a page to itself (default: true)");

static bool user_doorbell_any;
module_param(user_doorbell_any, bool, 0444);
MODULE_PARM_DESC(user_doorbell_any,
		 "Map the doorbell page into every context, not only those of CAP_SYS_RAWIO processes: any local user can then raise this guest's orca interrupts at will (default: false)");

static bool db_hint = true;
module_param(db_hint, bool, 0444);
MODULE_PARM_DESC(db_hint,
		 "Give the device a doorbell hint page and map it into user contexts, so posts skip kicks while the device is awake (default: true)");

static bool kick_ring = true;
module_param(kick_ring, bool, 0444);
MODULE_PARM_DESC(kick_ring,
		 "Give each user context a kick ring in which its posts name their QPs, so the device reads only the doorbell records that moved (default: true)");

/*
 * What a context maps: BAR0's page, a page of memory, or a range of BAR2
 * (device memory), whose owner hears when no mapping of it is left.
 */
struct orca_user_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	phys_addr_t address;		/* the doorbell page, a BAR2 range */
	struct page *page;		/* the hint, a kick ring: a reference */
	bool writable;			/* a kick ring */
	void (*release)(void *owner);	/* a BAR2 range's */
	void *owner;
};

static struct orca_user_mmap_entry *
to_oentry(struct rdma_user_mmap_entry *rdma_entry)
{
	return container_of(rdma_entry, struct orca_user_mmap_entry,
			    rdma_entry);
}

/* At probe: may userspace have BAR0's page?  Sets dev->udb_ok. */
void orca_udb_probe(struct orca_dev *dev)
{
	struct resource *bar = &dev->pdev->resource[ORCA_BAR_DOORBELL];

	dev->udb_ok = false;
	if (!user_doorbell)
		return;
	if (!PAGE_ALIGNED(bar->start) || !bar->parent) {
		dev_info(&dev->pdev->dev,
			 "BAR0 %pR does not start a page: kicks by system call\n",
			 bar);
		return;
	}
	if (resource_size(bar) < PAGE_SIZE) {
		dev->udb_reserved.name = "orca doorbell page";
		dev->udb_reserved.start = bar->end + 1;
		dev->udb_reserved.end = bar->start + PAGE_SIZE - 1;
		dev->udb_reserved.flags = bar->flags;
		if (request_resource(bar->parent, &dev->udb_reserved)) {
			dev_info(&dev->pdev->dev,
				 "BAR0 %pR shares its page: kicks by system call\n",
				 bar);
			return;
		}
		dev->udb_reserved_held = true;
	}
	dev->udb_ok = true;
}

void orca_udb_remove(struct orca_dev *dev)
{
	if (dev->udb_reserved_held)
		release_resource(&dev->udb_reserved);
	dev->udb_reserved_held = false;
	dev->udb_ok = false;
}

/*
 * A zeroed page that the CPU, a user's mapping and the device share with
 * no syncs: only where its DMA mapping needs none.  Under swiotlb bounce
 * buffering (a confidential guest, swiotlb=force) the device would work
 * on a copy of the page, so its feature goes without it (-EOPNOTSUPP;
 * the caller says so once), and posts kick as they do without it.
 */
static int orca_shared_page(struct orca_dev *dev, struct page **pagep,
			    dma_addr_t *dmap)
{
	struct device *d = &dev->pdev->dev;
	struct page *page;
	dma_addr_t dma;

	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!page)
		return -ENOMEM;
	dma = dma_map_page(d, page, 0, PAGE_SIZE, DMA_BIDIRECTIONAL);
	if (dma_mapping_error(d, dma)) {
		__free_page(page);
		return -ENOMEM;
	}
	if (dma_need_sync(d, dma)) {
		dma_unmap_page(d, dma, PAGE_SIZE, DMA_BIDIRECTIONAL);
		__free_page(page);
		return -EOPNOTSUPP;
	}
	*pagep = page;
	*dmap = dma;
	return 0;
}

/*
 * The hint page, before INIT latches its address.  Mapped both ways, as
 * ib_umem maps the rings the device writes and userspace reads.
 */
int orca_db_hint_alloc(struct orca_dev *dev)
{
	void __iomem *reg = dev->regs +
			    offsetof(struct orca_regs, db_hint_base);
	int err;

	/*
	 * A register keeps what the last driver wrote across a function
	 * reset: without a page of ours it must say none, not a page that
	 * an earlier load freed.
	 */
	lo_hi_writeq(0, reg);
	if (!db_hint)
		return 0;
	err = orca_shared_page(dev, &dev->db_hint_page, &dev->db_hint_dma);
	if (err == -EOPNOTSUPP) {
		dev_info_once(&dev->pdev->dev,
			      "the doorbell hint left out: its DMA mapping needs syncs (bounce buffering)\n");
		return 0;
	}
	if (err)
		return err;
	lo_hi_writeq(dev->db_hint_dma, reg);
	return 0;
}

/*
 * Once the device acknowledged a reset, so writes the page no more.  A
 * process that still maps it keeps the page (its own reference) and, with
 * awake cleared, kicks.
 */
void orca_db_hint_free(struct orca_dev *dev)
{
	struct orca_db_hint *hint;

	if (!dev->db_hint_page)
		return;
	dma_unmap_page(&dev->pdev->dev, dev->db_hint_dma, PAGE_SIZE,
		       DMA_BIDIRECTIONAL);
	hint = page_address(dev->db_hint_page);
	WRITE_ONCE(hint->awake, 0);
	__free_page(dev->db_hint_page);
	dev->db_hint_page = NULL;
}

/* Insert an mmap entry for @address or @page; returns it or an ERR_PTR. */
static struct rdma_user_mmap_entry *
orca_mmap_insert(struct orca_ucontext *uctx, phys_addr_t address,
		 struct page *page, bool writable)
{
	struct orca_user_mmap_entry *entry;
	int err;

	entry = kzalloc_obj(*entry, GFP_KERNEL);
	if (!entry)
		return ERR_PTR(-ENOMEM);
	entry->address = address;
	entry->page = page;
	entry->writable = writable;
	err = rdma_user_mmap_entry_insert(&uctx->ibucontext,
					  &entry->rdma_entry, PAGE_SIZE);
	if (err) {
		kfree(entry);
		return ERR_PTR(err);
	}
	if (page)
		get_page(page);
	return &entry->rdma_entry;
}

/**
 * orca_mmap_insert_wc - offer @size bytes of BAR memory to @uctx
 * @uctx: the context that may map them
 * @address: their bus address, page-aligned
 * @size: a multiple of PAGE_SIZE
 * @release: called with @owner once the entry is removed and no mapping
 *	of the range is left, the last moment the context could touch it
 * @owner: the range's owner
 *
 * The range is mapped write-combined, as device memory is.
 *
 * Return: the entry (its key: rdma_user_mmap_get_offset()), or an ERR_PTR;
 * @release is not called then.
 */
struct rdma_user_mmap_entry *
orca_mmap_insert_wc(struct orca_ucontext *uctx, phys_addr_t address,
		    size_t size, void (*release)(void *owner), void *owner)
{
	struct orca_user_mmap_entry *entry;
	int err;

	entry = kzalloc_obj(*entry, GFP_KERNEL);
	if (!entry)
		return ERR_PTR(-ENOMEM);
	entry->address = address;
	entry->release = release;
	entry->owner = owner;
	err = rdma_user_mmap_entry_insert(&uctx->ibucontext,
					  &entry->rdma_entry, size);
	if (err) {
		kfree(entry);
		return ERR_PTR(err);
	}
	return &entry->rdma_entry;
}

/*
 * A context gets the doorbell page, if the device has one for users and
 * the caller may ring any vector: an mmap entry and its key in @resp.
 */
int orca_udb_alloc(struct orca_dev *dev, struct orca_ucontext *uctx,
		   struct orca_ibv_alloc_ucontext_resp *resp)
{
	struct rdma_user_mmap_entry *entry;

	if (!dev->udb_ok || (!user_doorbell_any && !capable(CAP_SYS_RAWIO)))
		return 0;
	entry = orca_mmap_insert(uctx, pci_resource_start(dev->pdev,
							  ORCA_BAR_DOORBELL),
				 NULL, false);
	if (IS_ERR(entry))
		return PTR_ERR(entry);
	uctx->udb = entry;
	resp->comp_mask |= ORCA_IBV_ALLOC_UCONTEXT_RESP_USER_DB;
	resp->db_mmap_key = rdma_user_mmap_get_offset(entry);
	resp->db_offset = ORCA_IVSHMEM_DOORBELL;
	resp->db_value = dev->fw_peer_id << 16 | ORCA_FW_VEC_DB;
	return 0;
}

/* ... and the doorbell hint, if the driver gave the device one. */
int orca_db_hint_map(struct orca_dev *dev, struct orca_ucontext *uctx,
		     struct orca_ibv_alloc_ucontext_resp *resp)
{
	struct rdma_user_mmap_entry *entry;

	if (!dev->db_hint_page)
		return 0;
	entry = orca_mmap_insert(uctx, 0, dev->db_hint_page, false);
	if (IS_ERR(entry))
		return PTR_ERR(entry);
	uctx->db_hint = entry;
	resp->comp_mask |= ORCA_IBV_ALLOC_UCONTEXT_RESP_DB_HINT;
	resp->db_hint_mmap_key = rdma_user_mmap_get_offset(entry);
	resp->db_hint_offset = offsetof(struct orca_db_hint, awake);
	return 0;
}

/*
 * A kick ring for a context whose provider announces its posts (and only
 * if the device has them): a zeroed page, mapped for the device both
 * ways (it reads entries and writes cons), given to it by
 * CREATE_KICK_RING and to the context as an mmap entry.  A device out of
 * rings leaves the context without one, and its posts kick as before.
 */
int orca_kick_ring_alloc(struct orca_dev *dev, struct orca_ucontext *uctx,
			 struct orca_ibv_alloc_ucontext_resp *resp)
{
	struct rdma_user_mmap_entry *entry;
	struct page *page;
	dma_addr_t dma;
	u32 ring;
	int err;

	if (!kick_ring ||
	    !(le32_to_cpu(dev->caps.dev_caps) & ORCA_DEV_CAP_KICK_RING))
		return 0;
	err = orca_shared_page(dev, &page, &dma);
	if (err == -EOPNOTSUPP) {
		dev_info_once(&dev->pdev->dev,
			      "kick rings left out: their DMA mapping needs syncs (bounce buffering)\n");
		return 0;
	}
	if (err)
		return err;
	err = orca_cmd_create_kick_ring(&dev->com, dma, &ring);
	if (err) {
		/* a command that timed out may have reached the device */
		orca_page_release(dev, page, dma);
		if (orca_com_is_dead(&dev->com))
			return -EIO;
		ibdev_dbg(&dev->ibdev, "no kick ring for this context: %d\n",
			  err);
		return 0;
	}
	entry = orca_mmap_insert(uctx, 0, page, true);
	if (IS_ERR(entry)) {
		if (orca_cmd_destroy_kick_ring(&dev->com, ring) &&
		    !orca_com_is_dead(&dev->com))
			return PTR_ERR(entry);	/* leaked: the device has it */
		orca_page_release(dev, page, dma);
		return PTR_ERR(entry);
	}
	uctx->kick_entry = entry;
	uctx->kick_page = page;
	uctx->kick_dma = dma;
	uctx->kick_ring = ring;
	resp->comp_mask |= ORCA_IBV_ALLOC_UCONTEXT_RESP_KICK_RING;
	resp->kick_ring_mmap_key = rdma_user_mmap_get_offset(entry);
	resp->kick_ring_entries = ORCA_KICK_RING_ENTRIES;
	return 0;
}

/*
 * The device forgets the ring first; the page goes once it cannot reach
 * it (orca_page_release) and no VMA maps it (their own references).
 */
void orca_kick_ring_free(struct orca_dev *dev, struct orca_ucontext *uctx)
{
	int err;

	if (!uctx->kick_page)
		return;
	rdma_user_mmap_entry_remove(uctx->kick_entry);
	err = orca_cmd_destroy_kick_ring(&dev->com, uctx->kick_ring);
	if (err && !orca_com_is_dead(&dev->com))
		/* the device refused to forget it: it may still read it */
		ibdev_warn(&dev->ibdev,
			   "kick ring %u not destroyed (%d): page leaked\n",
			   uctx->kick_ring, err);
	else
		orca_page_release(dev, uctx->kick_page, uctx->kick_dma);
	uctx->kick_entry = NULL;
	uctx->kick_page = NULL;
}

/* The entries go once no VMA maps them any more (orca_mmap_free). */
void orca_udb_free(struct orca_ucontext *uctx)
{
	if (uctx->udb)
		rdma_user_mmap_entry_remove(uctx->udb);
	if (uctx->db_hint)
		rdma_user_mmap_entry_remove(uctx->db_hint);
	uctx->udb = NULL;
	uctx->db_hint = NULL;
}

int orca_mmap(struct ib_ucontext *ibucontext, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	int err;

	rdma_entry = rdma_user_mmap_entry_get(ibucontext, vma);
	if (!rdma_entry) {
		ibdev_dbg(ibucontext->device, "no mmap entry at page %#lx\n",
			  vma->vm_pgoff);
		return -EINVAL;
	}
	if (vma->vm_flags & VM_EXEC) {
		ibdev_dbg(ibucontext->device,
			  "mapped pages are not executable\n");
		err = -EPERM;
		goto out;
	}
	if (to_oentry(rdma_entry)->page && to_oentry(rdma_entry)->writable) {
		/* a kick ring: the context's to write */
		vm_flags_clear(vma, VM_MAYEXEC);
		err = vm_insert_page(vma, vma->vm_start,
				     to_oentry(rdma_entry)->page);
		goto out;
	}
	if (to_oentry(rdma_entry)->page) {
		/* the hint is the device's to write */
		if (vma->vm_flags & VM_WRITE) {
			ibdev_dbg(ibucontext->device,
				  "the doorbell hint is read-only\n");
			err = -EPERM;
			goto out;
		}
		vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);
		err = vm_insert_page(vma, vma->vm_start,
				     to_oentry(rdma_entry)->page);
		goto out;
	}
	vm_flags_clear(vma, VM_MAYEXEC);
	/* ib_core zaps the mapping when the device goes away */
	if (to_oentry(rdma_entry)->release)	/* device memory */
		err = rdma_user_mmap_io(ibucontext, vma,
					PHYS_PFN(to_oentry(rdma_entry)->address),
					rdma_entry->npages << PAGE_SHIFT,
					pgprot_writecombine(vma->vm_page_prot),
					rdma_entry);
	else
		err = rdma_user_mmap_io(ibucontext, vma,
					PHYS_PFN(to_oentry(rdma_entry)->address),
					PAGE_SIZE,
					pgprot_noncached(vma->vm_page_prot),
					rdma_entry);
out:
	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

void orca_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct orca_user_mmap_entry *entry = to_oentry(rdma_entry);

	if (entry->page)
		put_page(entry->page);
	if (entry->release)
		entry->release(entry->owner);
	kfree(entry);
}

/*
 * Userspace posts into its rings and publishes the producer index in the
 * QP's doorbell record; an empty post_send / post_recv (what libibverbs
 * sends for a list of no WRs) is its way to wake the device.  The kick
 * names no QP: the device re-reads every doorbell record it owns, so a
 * kick is only a hint and a spurious one costs nothing.  A dead device
 * is not kicked: a user QP's WQEs are flushed in user space.
 */
void orca_kick(struct orca_dev *dev)
{
	if (!orca_com_is_dead(&dev->com))
		dev->com.ops->ring(&dev->com, ORCA_FW_VEC_DB);
}

/**
 * orca_kick_kernel - wake the device after a kernel consumer posted
 * @dev: device
 *
 * On a stopped dead device the driver flushes what was posted, and says
 * so (orca_dead_comp_work()); until it is stopped the WQEs wait.
 */
void orca_kick_kernel(struct orca_dev *dev)
{
	if (!orca_com_is_dead(&dev->com)) {
		/*
		 * Counted (hw_counters/kernel_kicks) so that the device's
		 * count of kicks can be told from user space's, and before
		 * the ring, so that no reader sees the kick uncounted.
		 */
		orca_com_count(&dev->com, ORCA_STAT_KERNEL_KICKS);
		dev->com.ops->ring(&dev->com, ORCA_FW_VEC_DB);
	} else if (orca_dead_stopped(dev)) {
		queue_work(system_dfl_wq, &dev->dead_comp_work);
	}
}
