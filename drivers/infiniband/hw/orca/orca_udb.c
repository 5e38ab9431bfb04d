// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * orca: the user doorbell page.
 *
 * Producer indices live in doorbell records in user memory; what the
 * device needs besides is a wake-up.  The wake-up is a store to the
 * ivshmem doorbell register in BAR0, so a context that maps BAR0's page
 * posts with no system call.  The store carries no queue and no index:
 * the device re-reads the doorbell records it owns on every kick and
 * treats the kick as a hint, so a user who rings it at will (or rings
 * another vector) costs the device time and nothing else.
 *
 * The page is shared by all contexts and must hold nothing but BAR0: the
 * probe maps it only if BAR0 starts a page and the rest of that page can
 * be reserved so that no other BAR is assigned there (vfio's rule for
 * sub-page BARs).  Otherwise, or with user_doorbell=0, the provider kicks
 * through an empty post_send (orca_post_send).
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <rdma/ib_verbs.h>

#include "orca.h"

static bool user_doorbell = true;
module_param(user_doorbell, bool, 0444);
MODULE_PARM_DESC(user_doorbell,
		 "Map the doorbell page into user contexts when BAR0 has a page to itself (default: true)");

struct orca_user_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	phys_addr_t address;
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

/* A context gets the page: an mmap entry and its key in @resp. */
int orca_udb_alloc(struct orca_dev *dev, struct orca_ucontext *uctx,
		   struct orca_ibv_alloc_ucontext_resp *resp)
{
	struct orca_user_mmap_entry *entry;
	int err;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	entry->address = pci_resource_start(dev->pdev, ORCA_BAR_DOORBELL);
	err = rdma_user_mmap_entry_insert(&uctx->ibucontext,
					  &entry->rdma_entry, PAGE_SIZE);
	if (err) {
		kfree(entry);
		return err;
	}
	uctx->udb = &entry->rdma_entry;
	resp->comp_mask |= ORCA_IBV_ALLOC_UCONTEXT_RESP_USER_DB;
	resp->db_mmap_key = rdma_user_mmap_get_offset(uctx->udb);
	resp->db_offset = ORCA_IVSHMEM_DOORBELL;
	resp->db_value = dev->fw_peer_id << 16 | ORCA_FW_VEC_DB;
	return 0;
}

/* The entry goes once no VMA maps it any more (orca_mmap_free). */
void orca_udb_free(struct orca_ucontext *uctx)
{
	if (uctx->udb)
		rdma_user_mmap_entry_remove(uctx->udb);
	uctx->udb = NULL;
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
			  "the doorbell page is not executable\n");
		err = -EPERM;
		goto out;
	}
	/* ib_core zaps the mapping when the device goes away */
	err = rdma_user_mmap_io(ibucontext, vma,
				PHYS_PFN(to_oentry(rdma_entry)->address),
				PAGE_SIZE, pgprot_noncached(vma->vm_page_prot),
				rdma_entry);
out:
	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

void orca_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	kfree(to_oentry(rdma_entry));
}
