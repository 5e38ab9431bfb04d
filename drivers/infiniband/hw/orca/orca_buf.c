// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory the device reads or writes that the driver allocates: page lists
 * (of pinned user buffers and of kernel queues), and the queue buffers of
 * kernel consumers.  The bottom of the driver's memory: it frees only what
 * its callers say the device can no longer reach (orca_dead.c decides).
 */

#include <rdma/ib_umem.h>
#include <rdma/iter.h>

#include "orca.h"

/* The page sizes a page list may use: the device's, within the header's. */
unsigned long orca_pgsz_bitmap(struct orca_dev *dev)
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

/* @n pieces of @piece bytes, each its own coherent allocation. */
static int orca_kbuf_pieces(struct orca_dev *dev, struct orca_kbuf *kbuf,
			    u32 n, size_t piece)
{
	u32 i;

	kbuf->va = kcalloc(n, sizeof(*kbuf->va), GFP_KERNEL);
	kbuf->dma = kcalloc(n, sizeof(*kbuf->dma), GFP_KERNEL);
	kbuf->n = n;
	kbuf->piece = piece;
	if (!kbuf->va || !kbuf->dma)
		goto err;
	for (i = 0; i < n; i++) {
		kbuf->va[i] = dma_alloc_coherent(&dev->pdev->dev, piece,
						 &kbuf->dma[i], GFP_KERNEL);
		if (!kbuf->va[i])
			goto err;
	}
	return 0;
err:
	orca_kbuf_free(dev, kbuf);
	return -ENOMEM;
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
 * CQEs need only the barriers the ring protocol has anyway; a page at a
 * time (no high-order allocation, however deep the ring: IPoIB asks for
 * 8192 UD WQEs), listed page by page as a user ring is.
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
	err = orca_kbuf_pieces(dev, kbuf, n, PAGE_SIZE);
	if (err)
		return err;
	per = n > ORCA_PBL_CHUNK_SLOTS ? ORCA_PBL_CHUNK_PAGES :
					 ORCA_PBL_CHUNK_SLOTS;
	err = orca_pbl_buf_alloc(dev, buf, DIV_ROUND_UP(n, per));
	if (err) {
		orca_kbuf_free(dev, kbuf);
		return err;
	}
	for (i = 0; i < n; i++)
		buf->chunks[i / per].va[i % per] = cpu_to_le64(kbuf->dma[i]);
	orca_pbl_link(buf, n, PAGE_SIZE, pbl);
	return 0;
}

/**
 * orca_kbuf_alloc_one - a buffer the device reads in one piece
 * @dev: device
 * @kbuf: filled (one piece: va[0], dma[0]); free it with
 *	  orca_kbuf_release() once the device forgot it
 * @len: bytes, rounded up to whole pages
 *
 * For a fast registration's page list, which a REG_MR WQE names by one
 * address.
 *
 * Return: 0 or -ENOMEM.
 */
int orca_kbuf_alloc_one(struct orca_dev *dev, struct orca_kbuf *kbuf,
			size_t len)
{
	return orca_kbuf_pieces(dev, kbuf, 1, PAGE_ALIGN(len));
}

/**
 * orca_kbuf_free - free a kernel queue buffer now
 * @dev: device
 * @kbuf: the buffer, which the device cannot reach (see orca_kbuf_release());
 *	  cleared
 */
void orca_kbuf_free(struct orca_dev *dev, struct orca_kbuf *kbuf)
{
	u32 i;

	for (i = 0; kbuf->va && kbuf->dma && i < kbuf->n && kbuf->va[i]; i++)
		dma_free_coherent(&dev->pdev->dev, kbuf->piece, kbuf->va[i],
				  kbuf->dma[i]);
	kfree(kbuf->va);
	kfree(kbuf->dma);
	*kbuf = (struct orca_kbuf){};
}
