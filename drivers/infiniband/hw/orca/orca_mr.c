// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory registration, and the page lists through which the device reaches
 * pinned user memory: memory regions and the queue buffers of CQs and QPs.
 */

#include <rdma/ib_umem.h>
#include <rdma/iter.h>

#include "orca.h"
#include "orca_com_cmd.h"

/* The page sizes a page list may use: the device's, within the header's. */
static unsigned long orca_pgsz_bitmap(struct orca_dev *dev)
{
	return le64_to_cpu(dev->caps.page_size_cap) &
	       GENMASK_ULL(ORCA_PBL_MAX_PAGE_SHIFT, ORCA_PBL_MIN_PAGE_SHIFT);
}

/**
 * orca_pbl_buf_destroy - free a page list's chunks
 * @dev: device
 * @buf: the list; the device no longer reads it (orca_pbl_free() decides)
 */
void orca_pbl_buf_destroy(struct orca_dev *dev, struct orca_pbl_buf *buf)
{
	u32 c;

	for (c = 0; c < buf->nchunks && buf->chunks[c].va; c++)
		dma_free_coherent(&dev->pdev->dev, ORCA_PBL_CHUNK_SIZE,
				  buf->chunks[c].va, buf->chunks[c].dma);
	kvfree(buf->chunks);
	buf->chunks = NULL;
	buf->nchunks = 0;
}

/* @nchunks 4 KiB chunks, each its own order-0 allocation. */
static int orca_pbl_buf_alloc(struct orca_dev *dev, struct orca_pbl_buf *buf,
			      u32 nchunks)
{
	u32 c;

	buf->chunks = kvcalloc(nchunks, sizeof(*buf->chunks), GFP_KERNEL);
	if (!buf->chunks)
		return -ENOMEM;
	buf->nchunks = nchunks;
	for (c = 0; c < nchunks; c++) {
		buf->chunks[c].va = dma_alloc_coherent(&dev->pdev->dev,
						       ORCA_PBL_CHUNK_SIZE,
						       &buf->chunks[c].dma,
						       GFP_KERNEL);
		if (!buf->chunks[c].va) {
			orca_pbl_buf_destroy(dev, buf);
			return -ENOMEM;
		}
	}
	return 0;
}

/* Chain the filled chunks of an @n-entry list and describe it in @pbl. */
static void orca_pbl_link(struct orca_pbl_buf *buf, size_t n,
			  unsigned long pgsz, struct orca_pbl *pbl)
{
	u32 c;

	for (c = 0; c + 1 < buf->nchunks; c++)
		buf->chunks[c].va[ORCA_PBL_CHUNK_PAGES] =
			cpu_to_le64(buf->chunks[c + 1].dma);
	pbl->addr = cpu_to_le64(buf->chunks[0].dma);
	pbl->npages = cpu_to_le32(n);
	pbl->page_shift = order_base_2(pgsz);
	pbl->flags = n > ORCA_PBL_CHUNK_SLOTS ? ORCA_PBL_F_CHAINED : 0;
}

/**
 * orca_pbl_build - the page list of a pinned buffer, for one command
 * @dev: device
 * @umem: the pinned buffer
 * @pgsz_bitmap: page sizes to choose from (within the device's)
 * @iova: the address the device will be given for the buffer's first byte
 * @pbl: filled with the list's address, length, page shift and format
 * @buf: the list; free it with orca_pbl_free() once the command is done
 * @first_off: set to the offset of @iova in the first page
 *
 * A list of up to ORCA_PBL_CHUNK_SLOTS entries is one 4 KiB chunk; a
 * longer one is a chain of them (orca_hw_cmd_mem.h), so that no registration
 * needs more than order-0 pages and a region may be as large as
 * max_mr_size says.
 *
 * Return: 0, -EINVAL if no page size of the device fits or the list would
 * be too long, or -ENOMEM.
 */
int orca_pbl_build(struct orca_dev *dev, struct ib_umem *umem,
		   unsigned long pgsz_bitmap, u64 iova, struct orca_pbl *pbl,
		   struct orca_pbl_buf *buf, u32 *first_off)
{
	struct ib_block_iter biter;
	unsigned long pgsz;
	size_t n, per, i = 0;
	bool chained;
	int err;

	pgsz = ib_umem_find_best_pgsz(umem, orca_pgsz_bitmap(dev) & pgsz_bitmap,
				      iova);
	if (!pgsz)
		return -EINVAL;
	n = ib_umem_num_dma_blocks(umem, pgsz);
	if (!n || n > ORCA_PBL_MAX_PAGES_CHAINED) {
		ibdev_dbg(&dev->ibdev, "%zu pages of %lu bytes: too many\n",
			  n, pgsz);
		return -EINVAL;
	}
	chained = n > ORCA_PBL_CHUNK_SLOTS;
	per = chained ? ORCA_PBL_CHUNK_PAGES : ORCA_PBL_CHUNK_SLOTS;
	err = orca_pbl_buf_alloc(dev, buf, DIV_ROUND_UP(n, per));
	if (err)
		return err;
	rdma_umem_for_each_dma_block(umem, &biter, pgsz) {
		buf->chunks[i / per].va[i % per] =
			cpu_to_le64(rdma_block_iter_dma_address(&biter));
		i++;
	}
	orca_pbl_link(buf, n, pgsz, pbl);
	*first_off = ib_umem_dma_offset(umem, pgsz);
	return 0;
}

/**
 * orca_kbuf_alloc - a kernel consumer's queue buffer and its page list
 * @dev: device
 * @kbuf: filled; free it with orca_kbuf_release() once the device forgot it
 * @len: bytes, rounded up to whole pages
 * @pbl: filled for the create command
 * @buf: the list, freed by the caller after the command
 *
 * Coherent memory, so that the CPU's stores to WQEs and the device's to
 * CQEs need only the barriers the ring protocol has anyway; one
 * allocation, listed page by page as a user ring is.
 *
 * Return: 0, -EINVAL (a size no page list can describe) or -ENOMEM.
 */
int orca_kbuf_alloc(struct orca_dev *dev, struct orca_kbuf *kbuf, size_t len,
		    struct orca_pbl *pbl, struct orca_pbl_buf *buf)
{
	size_t n = PAGE_ALIGN(len) >> PAGE_SHIFT, per, i;
	int err;

	if (!n || n > ORCA_PBL_MAX_PAGES_CHAINED ||
	    !(orca_pgsz_bitmap(dev) & PAGE_SIZE))
		return -EINVAL;
	kbuf->len = n << PAGE_SHIFT;
	kbuf->va = dma_alloc_coherent(&dev->pdev->dev, kbuf->len, &kbuf->dma,
				      GFP_KERNEL);
	if (!kbuf->va)
		return -ENOMEM;
	per = n > ORCA_PBL_CHUNK_SLOTS ? ORCA_PBL_CHUNK_PAGES :
					 ORCA_PBL_CHUNK_SLOTS;
	err = orca_pbl_buf_alloc(dev, buf, DIV_ROUND_UP(n, per));
	if (err) {
		orca_kbuf_free(dev, kbuf);
		return err;
	}
	for (i = 0; i < n; i++)
		buf->chunks[i / per].va[i % per] =
			cpu_to_le64(kbuf->dma + (i << PAGE_SHIFT));
	orca_pbl_link(buf, n, PAGE_SIZE, pbl);
	return 0;
}

/**
 * orca_kbuf_free - free a kernel queue buffer now
 * @dev: device
 * @kbuf: the buffer, which the device cannot reach (see orca_kbuf_release());
 *	  cleared
 */
void orca_kbuf_free(struct orca_dev *dev, struct orca_kbuf *kbuf)
{
	if (kbuf->va)
		dma_free_coherent(&dev->pdev->dev, kbuf->len, kbuf->va,
				  kbuf->dma);
	*kbuf = (struct orca_kbuf){};
}

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
	umem = ib_umem_get(&dev->ibdev, va, len, access);
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

u32 orca_access_from_ib(int access)
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

#define ORCA_MR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
			 IB_ACCESS_MW_BIND)

struct ib_mr *orca_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			       u64 virt_addr, int access_flags,
			       struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibpd->device);
	struct orca_reg_mr_in in = {};
	struct orca_pbl_buf buf = {};
	struct orca_mr *mr;
	u32 lkey, rkey, first_off;
	int access = access_flags, err;

	/* optional bits are hints: keep relaxed ordering, drop the rest */
	access &= ~IB_ACCESS_OPTIONAL | IB_ACCESS_RELAXED_ORDERING;
	if (access & ~(ORCA_MR_ACCESS | IB_ACCESS_RELAXED_ORDERING)) {
		ibdev_dbg(&dev->ibdev, "MR access 0x%x not supported\n",
			  access_flags);
		return ERR_PTR(-EOPNOTSUPP);
	}
	err = orca_check_udata_in(dev, udata, 0);
	if (err)
		return ERR_PTR(err);
	if (!length || length > le64_to_cpu(dev->caps.max_mr_size))
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = ib_umem_get(ibpd->device, start, length,
			       access & ~IB_ACCESS_RELAXED_ORDERING);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		goto err_free;
	}
	err = orca_pbl_build(dev, mr->umem, ~0UL, virt_addr, &in.pbl, &buf,
			     &first_off);
	if (err)
		goto err_release;
	in.iova = cpu_to_le64(virt_addr);
	in.length = cpu_to_le64(length);
	in.pdn = cpu_to_le32(to_opd(ibpd)->pdn);
	in.access = cpu_to_le32(orca_access_from_ib(access));
	in.first_off = cpu_to_le32(first_off);
	err = orca_cmd_reg_mr(&dev->com, &in, &lkey, &rkey);
	orca_pbl_free(dev, &buf);
	if (err)
		goto err_release;
	mr->ibmr.lkey = lkey;
	mr->ibmr.rkey = rkey;
	mr->start = start;
	mr->access = access_flags;
	orca_pbl_info_set(&mr->pbl, &in.pbl);
	mr->first_off = first_off;
	mr->ibmr.length = length;
	mr->ibmr.iova = virt_addr;
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
		umem = ib_umem_get(ibmr->device, start, length,
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
		in.access = cpu_to_le32(orca_access_from_ib(access));
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
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
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
