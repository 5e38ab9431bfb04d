// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory registration: memory regions (of user memory, or of a dma-buf's
 * pages), and the pinned user buffers of CQs and QPs (their page lists are
 * built in orca_buf.c).
 */

#include <rdma/ib_umem.h>

#include "orca.h"
#include "orca_attr.h"
#include "orca_com_cmd.h"

/**
 * orca_umem_ring - pin a queue buffer and build its page list
 * @dev: device
 * @va: user address, page-aligned
 * @len: bytes
 * @access: IB_ACCESS_LOCAL_WRITE if the device writes the buffer
 * @pbl: filled for the create command
 * @buf: the list, freed by the caller after the command
 *
 * Return: the pinned buffer or an ERR_PTR.
 */
struct ib_umem *orca_umem_ring(struct orca_dev *dev, u64 va, u32 len,
			       int access, struct orca_pbl *pbl,
			       struct orca_pbl_buf *buf)
{
	struct ib_umem *umem;
	u32 first_off;
	int err;

	if (!len || !PAGE_ALIGNED(va) || !PAGE_ALIGNED(len)) {
		ibdev_dbg(&dev->ibdev, "queue buffer 0x%llx + %u not page-aligned\n",
			  va, len);
		return ERR_PTR(-EINVAL);
	}
	umem = ib_umem_get_va(&dev->ibdev, va, len, access);
	if (IS_ERR(umem))
		return umem;
	/*
	 * Queue entries sit at fixed offsets from the first page: no page
	 * larger than va's alignment (a transparent huge page could begin
	 * before the buffer).
	 */
	/* (__ffs(0) is undefined; address 0 is aligned to any size) */
	err = orca_pbl_build(dev, umem, va ? GENMASK(__ffs(va), 0) : ~0UL, va,
			     pbl, buf, &first_off);
	if (!err && first_off) {	/* cannot happen: see above */
		orca_pbl_free(dev, buf);
		err = -EINVAL;
	}
	if (err) {
		orca_umem_release(dev, umem);
		return ERR_PTR(err);
	}
	return umem;
}

/*
 * What a new region may be: the rights the device has, the size it takes.
 * Optional access bits are hints: relaxed ordering stays, the rest go.
 */
static int orca_mr_args_ok(struct orca_dev *dev, int *access, u64 length,
			   struct ib_dmah *dmah, struct ib_udata *udata)
{
	int err;

	/* the device has no DMA handles (TPH steering tags) */
	if (dmah) {
		ibdev_dbg(&dev->ibdev, "MR with a DMA handle not supported\n");
		return -EOPNOTSUPP;
	}
	*access &= ~IB_ACCESS_OPTIONAL | IB_ACCESS_RELAXED_ORDERING;
	if (*access & ~(ORCA_MR_ACCESS | IB_ACCESS_RELAXED_ORDERING)) {
		ibdev_dbg(&dev->ibdev, "MR access 0x%x not supported\n",
			  *access);
		return -EOPNOTSUPP;
	}
	err = orca_check_udata_in(dev, udata, 0);
	if (err)
		return err;
	if (!length || length > le64_to_cpu(dev->caps.max_mr_size))
		return -EINVAL;
	return 0;
}

/* REG_MR of @mr->umem, pinned, at @virt_addr; frees nothing on failure. */
static int orca_mr_register(struct orca_dev *dev, struct ib_pd *ibpd,
			    struct orca_mr *mr, u64 virt_addr, u64 length,
			    int access)
{
	struct orca_reg_mr_in in = {};
	struct orca_pbl_buf buf = {};
	u32 lkey, rkey, first_off;
	int err;

	err = orca_pbl_build(dev, mr->umem, ~0UL, virt_addr, &in.pbl, &buf,
			     &first_off);
	if (err)
		return err;
	in.iova = cpu_to_le64(virt_addr);
	in.length = cpu_to_le64(length);
	in.pdn = cpu_to_le32(to_opd(ibpd)->pdn);
	in.access = cpu_to_le32(orca_mr_access_from_ib(access));
	in.first_off = cpu_to_le32(first_off);
	err = orca_cmd_reg_mr(&dev->com, &in, &lkey, &rkey);
	orca_pbl_free(dev, &buf);
	if (err)
		return err;
	mr->ibmr.lkey = lkey;
	mr->ibmr.rkey = rkey;
	orca_pbl_info_set(&mr->pbl, &in.pbl);
	mr->first_off = first_off;
	mr->ibmr.length = length;
	mr->ibmr.iova = virt_addr;
	return 0;
}

struct ib_mr *orca_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			       u64 virt_addr, int access_flags,
			       struct ib_dmah *dmah, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibpd->device);
	int access = access_flags, err;
	struct orca_mr *mr;

	err = orca_mr_args_ok(dev, &access, length, dmah, udata);
	if (err)
		return ERR_PTR(err);
	mr = kzalloc_obj(*mr, GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = ib_umem_get_va(ibpd->device, start, length,
				  access & ~IB_ACCESS_RELAXED_ORDERING);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		goto err_free;
	}
	err = orca_mr_register(dev, ibpd, mr, virt_addr, length, access);
	if (err)
		goto err_release;
	mr->start = start;
	mr->access = access_flags;
	return &mr->ibmr;

err_release:
	orca_umem_release(dev, mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/*
 * A region of @length bytes from @offset of the dma-buf @fd: its pages,
 * pinned for as long as the region lives (the device cannot take a
 * move_notify), mapped for this device and described like any others.
 */
struct ib_mr *orca_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
				      u64 length, u64 virt_addr, int fd,
				      int access_flags, struct ib_dmah *dmah,
				      struct uverbs_attr_bundle *attrs)
{
	struct orca_dev *dev = to_odev(ibpd->device);
	struct ib_umem_dmabuf *umem_dmabuf;
	int access = access_flags, err;
	struct orca_mr *mr;

	err = orca_mr_args_ok(dev, &access, length, dmah,
			      attrs ? &attrs->driver_udata : NULL);
	if (err)
		return ERR_PTR(err);
	mr = kzalloc_obj(*mr, GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	umem_dmabuf = ib_umem_dmabuf_get_pinned(ibpd->device, offset, length,
						fd,
						access & ~IB_ACCESS_RELAXED_ORDERING);
	if (IS_ERR(umem_dmabuf)) {
		err = PTR_ERR(umem_dmabuf);
		ibdev_dbg(&dev->ibdev, "dma-buf fd %d, %llu bytes at %llu: %d\n",
			  fd, length, offset, err);
		goto err_free;
	}
	mr->umem = &umem_dmabuf->umem;
	err = orca_mr_register(dev, ibpd, mr, virt_addr, length, access);
	if (err)
		goto err_release;
	mr->access = access_flags;
	return &mr->ibmr;

err_release:
	orca_umem_release(dev, mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/*
 * Re-registration in place: the device gives the region a new
 * description under the same keys (the keys a peer already holds stay
 * valid, as rdma-core's tests expect).  Translation, PD and access keep
 * their old values unless their flag says otherwise; the pages are pinned
 * again when the translation changes or the region becomes writable.
 */
struct ib_mr *orca_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				 u64 length, u64 virt_addr, int access,
				 struct ib_pd *pd, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibmr->device);
	struct orca_mr *mr = to_omr(ibmr);
	struct orca_reg_mr_in in = {};
	struct orca_pbl_buf buf = {};
	struct ib_umem *umem = mr->umem;
	u32 first_off;
	int err;

	if (flags & ~(IB_MR_REREG_TRANS | IB_MR_REREG_PD | IB_MR_REREG_ACCESS))
		return ERR_PTR(-EOPNOTSUPP);
	/* a dma-buf's pages have no user address to pin again */
	if (mr->umem && mr->umem->is_dmabuf)
		return ERR_PTR(-EOPNOTSUPP);
	err = orca_check_udata_in(dev, udata, 0);
	if (err)
		return ERR_PTR(err);
	if (!(flags & IB_MR_REREG_TRANS)) {
		start = mr->start;
		length = ibmr->length;
		virt_addr = ibmr->iova;
	}
	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;
	if (!(flags & IB_MR_REREG_PD))
		pd = ibmr->pd;
	access &= ~IB_ACCESS_OPTIONAL | IB_ACCESS_RELAXED_ORDERING;
	if (access & ~(ORCA_MR_ACCESS | IB_ACCESS_RELAXED_ORDERING))
		return ERR_PTR(-EOPNOTSUPP);
	if (!length || length > le64_to_cpu(dev->caps.max_mr_size))
		return ERR_PTR(-EINVAL);

	if ((flags & IB_MR_REREG_TRANS) ||
	    ((access & IB_ACCESS_LOCAL_WRITE) && !umem->writable)) {
		umem = ib_umem_get_va(ibmr->device, start, length,
				      access & ~IB_ACCESS_RELAXED_ORDERING);
		if (IS_ERR(umem))
			return ERR_CAST(umem);
	}
	err = orca_pbl_build(dev, umem, ~0UL, virt_addr, &in.pbl, &buf,
			     &first_off);
	if (!err) {
		in.iova = cpu_to_le64(virt_addr);
		in.length = cpu_to_le64(length);
		in.pdn = cpu_to_le32(to_opd(pd)->pdn);
		in.access = cpu_to_le32(orca_mr_access_from_ib(access));
		in.first_off = cpu_to_le32(first_off);
		err = orca_cmd_rereg_mr(&dev->com, ibmr->lkey, &in);
		orca_pbl_free(dev, &buf);
	}
	if (err) {
		if (umem != mr->umem)
			orca_umem_release(dev, umem);
		return ERR_PTR(err);
	}
	if (umem != mr->umem) {
		orca_umem_release(dev, mr->umem);
		mr->umem = umem;
	}
	mr->start = start;
	mr->access = access;
	orca_pbl_info_set(&mr->pbl, &in.pbl);
	WRITE_ONCE(mr->first_off, first_off);
	/* ib_core updates the PD, iova and length of the ib_mr */
	return NULL;
}

/*
 * A region with memory windows bound to it is not deregistered: the
 * device answers BAD_RES_STATE and the verb fails with -EBUSY (IBTA
 * 10.6.7.2.2; rxe refuses it too, with -EINVAL).  ib_dereg_mr_user() has
 * already taken the region out of restrack by then, so `rdma res` no
 * longer lists a region that still exists (rxe's too): ib_core's order.
 */
/**
 * orca_get_dma_mr - the region of kernel consumers' DMA addresses
 * @ibpd: protection domain
 * @access: IB_ACCESS_* flags; only local access is offered
 *
 * No device object: its lkey is ORCA_RESERVED_LKEY, which the device
 * honours on kernel QPs only (ORCA_QP_CREATE_RESERVED_LKEY), for local
 * access.  A remote key to all of memory is not offered.
 *
 * Return: the region, or ERR_PTR(-EOPNOTSUPP) / ERR_PTR(-ENOMEM).
 */
struct ib_mr *orca_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct orca_dev *dev = to_odev(ibpd->device);
	struct orca_mr *mr;

	if (!(dev->attr.kernel_cap_flags & IBK_LOCAL_DMA_LKEY) ||
	    (access & ~IB_ACCESS_LOCAL_WRITE))
		return ERR_PTR(-EOPNOTSUPP);
	mr = kzalloc_obj(*mr, GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->dma_mr = true;
	mr->access = access;
	mr->ibmr.lkey = ORCA_RESERVED_LKEY;
	return &mr->ibmr;
}

int orca_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibmr->device);
	struct orca_mr *mr = to_omr(ibmr);
	int err;

	if (mr->dma_mr) {	/* nothing of it is on the device */
		kfree(mr);
		return 0;
	}

	/* the device answers only once it holds no reference to the pages */
	err = orca_cmd_dereg_mr(&dev->com, ibmr->lkey);
	if (err)
		return err;
	if (mr->fast)
		orca_fastreg_release(dev, mr);
	orca_umem_release(dev, mr->umem);
	kfree(mr);
	return 0;
}

/*
 * Memory windows are device objects of a PD: ALLOC_MW returns the key
 * that names the window; binding happens in the data path (a BIND_MW
 * WQE), so the kernel keeps nothing but the key.  A device without
 * windows (max_mw 0) or without type 2 windows refuses without a command.
 */
int orca_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibmw->device);
	u8 type;
	int err;

	switch (ibmw->type) {
	case IB_MW_TYPE_1:
		type = ORCA_MW_TYPE_1;
		break;
	case IB_MW_TYPE_2:
		type = ORCA_MW_TYPE_2;
		if (!(dev->attr.device_cap_flags &
		      IB_DEVICE_MEM_WINDOW_TYPE_2B))
			return -EOPNOTSUPP;
		break;
	default:
		return -EINVAL;
	}
	if (!dev->attr.max_mw ||
	    !(dev->attr.device_cap_flags & IB_DEVICE_MEM_WINDOW))
		return -EOPNOTSUPP;
	err = orca_check_udata_in(dev, udata, 0);
	if (err)
		return err;
	return orca_cmd_alloc_mw(&dev->com, to_opd(ibmw->pd)->pdn, type,
				 &ibmw->rkey);
}

/* A bound window is invalidated by the device before it goes. */
int orca_dealloc_mw(struct ib_mw *ibmw)
{
	struct orca_dev *dev = to_odev(ibmw->device);

	return orca_cmd_dealloc_mw(&dev->com, ibmw->rkey);
}
