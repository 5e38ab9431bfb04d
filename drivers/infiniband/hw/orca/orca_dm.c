// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device memory (ibv_alloc_dm): pages of BAR2 that the device owns and
 * gives out (ALLOC_DM), mapped write-combined into the context that
 * allocated them, which copies in and out of them itself, and the
 * regions over them (REG_DM_MR) through which the device reads and
 * writes them like any memory.
 *
 * A DM may go (dealloc_dm) while its pages are still mapped: ib_core
 * only drops the mmap entry then.  The pages go back to the device once
 * no mapping of them is left (orca_dm_release(), from orca_mmap_free()),
 * so that they never reach their next owner while the last can still
 * touch them.
 */

#include <rdma/uverbs_ioctl.h>

#include "orca.h"
#include "orca_attr.h"
#include "orca_com_cmd.h"

/**
 * orca_dm_probe - offer device memory only where it can be mapped
 * @dev: the device, its caps read
 *
 * The window lies in BAR2 (ORCA_DM_BAR_OFFSET, max_dm_size bytes); a
 * BAR2 shorter than that has none to map.
 */
void orca_dm_probe(struct orca_dev *dev)
{
	resource_size_t len = pci_resource_len(dev->pdev, ORCA_BAR_REGS);

	if (dev->attr.max_dm_size &&
	    len < ORCA_DM_BAR_OFFSET + dev->attr.max_dm_size) {
		dev_warn(&dev->pdev->dev, "BAR2 of %pa bytes cannot hold %llu bytes of device memory at %#x: none offered\n",
			 &len, dev->attr.max_dm_size, ORCA_DM_BAR_OFFSET);
		dev->attr.max_dm_size = 0;
	}
}

/* The last mapping is gone: the pages are the device's again. */
static void orca_dm_release(void *owner)
{
	struct orca_dm *dm = owner;
	int err;

	err = orca_cmd_dealloc_dm(&dm->dev->com, dm->handle);
	if (err && !orca_com_is_dead(&dm->dev->com))
		ibdev_warn(&dm->dev->ibdev, "device memory %u not given back (%d): its pages stay allocated\n",
			   dm->handle, err);
	kfree(dm);
}

struct ib_dm *orca_alloc_dm(struct ib_device *ibdev,
			    struct ib_ucontext *ibucontext,
			    struct ib_dm_alloc_attr *attr,
			    struct uverbs_attr_bundle *attrs)
{
	struct orca_ucontext *uctx = container_of(ibucontext,
						  struct orca_ucontext,
						  ibucontext);
	struct orca_dev *dev = to_odev(ibdev);
	struct orca_ibv_alloc_dm_resp resp = {};
	u64 window = dev->attr.max_dm_size;
	struct orca_dm *dm;
	u8 log_align;
	int err;

	if (!window || attr->flags)
		return ERR_PTR(-EOPNOTSUPP);
	if (!attr->length || attr->length > window || attr->alignment >= 64)
		return ERR_PTR(-EINVAL);
	dm = kzalloc_obj(*dm, GFP_KERNEL);
	if (!dm)
		return ERR_PTR(-ENOMEM);
	dm->dev = dev;
	/* whole pages of this kernel's, so that a mapping shows only them */
	dm->size = PAGE_ALIGN(attr->length);
	if (dm->size > window) {
		err = -EINVAL;
		goto err_free;
	}
	log_align = max_t(u32, attr->alignment, PAGE_SHIFT);
	err = orca_cmd_alloc_dm(&dev->com, dm->size, log_align, &dm->handle,
				&dm->bar_offset);
	if (err)
		goto err_free;
	if (!IS_ALIGNED(dm->bar_offset, PAGE_SIZE) ||
	    dm->bar_offset < ORCA_DM_BAR_OFFSET ||
	    dm->bar_offset - ORCA_DM_BAR_OFFSET > window - dm->size) {
		ibdev_err(ibdev, "device memory %u at BAR2 %#llx, %llu bytes: outside the window; not mapped\n",
			  dm->handle, dm->bar_offset, dm->size);
		orca_cmd_dealloc_dm(&dev->com, dm->handle);
		err = -EIO;
		goto err_free;
	}
	dm->entry = orca_mmap_insert_wc(uctx,
					pci_resource_start(dev->pdev,
							   ORCA_BAR_REGS) +
					dm->bar_offset,
					dm->size, orca_dm_release, dm);
	if (IS_ERR(dm->entry)) {
		err = PTR_ERR(dm->entry);
		orca_cmd_dealloc_dm(&dev->com, dm->handle);
		goto err_free;
	}
	resp.mmap_key = rdma_user_mmap_get_offset(dm->entry);
	resp.map_length = dm->size;
	err = uverbs_copy_to_struct_or_zero(attrs, ORCA_IBV_ATTR_ALLOC_DM_RESP,
					    &resp, sizeof(resp));
	if (err) {
		/* nothing maps it yet: this frees it */
		rdma_user_mmap_entry_remove(dm->entry);
		return ERR_PTR(err);
	}
	return &dm->ibdm;

err_free:
	kfree(dm);
	return ERR_PTR(err);
}

int orca_dealloc_dm(struct ib_dm *ibdm, struct uverbs_attr_bundle *attrs)
{
	rdma_user_mmap_entry_remove(to_odm(ibdm)->entry);
	return 0;
}

/*
 * A region over device memory: zero-based (ib_core insists), its first
 * byte at attr->offset of the DM, which ib_core has bounded by the DM's
 * length.
 */
struct ib_mr *orca_reg_dm_mr(struct ib_pd *ibpd, struct ib_dm *ibdm,
			     struct ib_dm_mr_attr *attr,
			     struct uverbs_attr_bundle *attrs)
{
	struct orca_dev *dev = to_odev(ibpd->device);
	int access = attr->access_flags & ~IB_ZERO_BASED & ~IB_ACCESS_OPTIONAL;
	struct orca_reg_dm_mr_in in = {};
	struct orca_mr *mr;
	u32 lkey, rkey;
	int err;

	if (access & ~ORCA_MR_ACCESS) {
		ibdev_dbg(&dev->ibdev, "device memory MR access 0x%x not supported\n",
			  attr->access_flags);
		return ERR_PTR(-EOPNOTSUPP);
	}
	mr = kzalloc_obj(*mr, GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	in.length = cpu_to_le64(attr->length);
	in.dm_offset = cpu_to_le64(attr->offset);
	in.pdn = cpu_to_le32(to_opd(ibpd)->pdn);
	in.access = cpu_to_le32(orca_mr_access_from_ib(access));
	in.dm_handle = cpu_to_le32(to_odm(ibdm)->handle);
	err = orca_cmd_reg_dm_mr(&dev->com, &in, &lkey, &rkey);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	mr->ibmr.lkey = lkey;
	mr->ibmr.rkey = rkey;
	mr->ibmr.length = attr->length;
	mr->ibmr.iova = 0;
	mr->access = attr->access_flags;
	return &mr->ibmr;
}
