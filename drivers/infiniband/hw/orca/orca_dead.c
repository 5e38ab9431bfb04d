// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A dead device is stopped before anything it could write goes back.
 *
 * The driver declares the device dead on a command timeout, a stopped
 * heartbeat, a fatal health word or an impossible event index (orca_com.c).
 * From then on every destroy succeeds without the device, so that ib_core
 * can tear everything down, but a device that is slow rather than dead
 * still runs its data path: a peer's RDMA WRITE still lands in a region
 * whose DEREG_MR never reached it.  Only a function reset the device
 * acknowledges proves it has forgotten every address it was given.
 *
 * So, when the device dies, a work asks for that reset.  Until the device
 * acknowledges it, the user memory (umems) and the page lists of objects
 * released meanwhile are held here; they go back once the acknowledgment
 * comes (the work, or the health poll that watches for a late one), and
 * are leaked if it never does (orca_stop()).
 */

#include <rdma/ib_umem.h>

#include "orca.h"

/*
 * What a dead device could still reach: a user buffer, a page list, a
 * kernel queue buffer or a mapped page (a kick ring).
 */
struct orca_held {
	struct list_head list;
	struct ib_umem *umem;
	struct orca_pbl_buf buf;
	struct orca_kbuf kbuf;
	struct page *page;
	dma_addr_t page_dma;
};

/* Our reference to a page the device was given, and its mapping. */
static void orca_page_free(struct orca_dev *dev, struct page *page,
			   dma_addr_t dma)
{
	dma_unmap_page(&dev->pdev->dev, dma, PAGE_SIZE, DMA_BIDIRECTIONAL);
	put_page(page);
}

static void orca_held_free(struct orca_dev *dev, struct orca_held *held)
{
	if (held->umem)
		ib_umem_release(held->umem);
	orca_pbl_buf_destroy(dev, &held->buf);
	orca_kbuf_free(dev, &held->kbuf);
	if (held->page)
		orca_page_free(dev, held->page, held->page_dma);
}

/*
 * Keep @umem or @buf from going back while the device may still use it.
 * Return: false if the device is alive or stopped (free it now).
 */
static bool orca_hold(struct orca_dev *dev, struct ib_umem *umem,
		      const struct orca_pbl_buf *buf,
		      const struct orca_kbuf *kbuf, struct page *page,
		      dma_addr_t page_dma)
{
	struct orca_held *held;

	if (!orca_com_is_dead(&dev->com))
		return false;
	held = kzalloc_obj(*held, GFP_KERNEL);
	spin_lock(&dev->held_lock);
	if (dev->quiesced) {
		spin_unlock(&dev->held_lock);
		kfree(held);
		return false;
	}
	if (held) {
		held->umem = umem;
		if (buf)
			held->buf = *buf;
		if (kbuf)
			held->kbuf = *kbuf;
		held->page = page;
		held->page_dma = page_dma;
		list_add_tail(&held->list, &dev->held);
	}
	spin_unlock(&dev->held_lock);
	if (!held)
		dev_warn(&dev->pdev->dev,
			 "device dead and not yet stopped: leaking a %s\n",
			 umem ? "user buffer" : buf ? "page list" :
			 kbuf ? "kernel queue buffer" : "kick ring");
	return true;
}

/**
 * orca_pbl_free - free a command's page list once the device cannot read it
 * @dev: device
 * @buf: the list; cleared
 *
 * The device reads the list only while it executes the command, but one
 * that died during the command may read it until it is reset.
 */
void orca_pbl_free(struct orca_dev *dev, struct orca_pbl_buf *buf)
{
	if (buf->chunks && !orca_hold(dev, NULL, buf, NULL, NULL, 0))
		orca_pbl_buf_destroy(dev, buf);
	buf->chunks = NULL;
	buf->nchunks = 0;
}

/**
 * orca_umem_release - unpin user memory once the device cannot reach it
 * @dev: device
 * @umem: the memory of a region or queue the device was told to forget,
 *	  or was never given; NULL is allowed
 */
void orca_umem_release(struct orca_dev *dev, struct ib_umem *umem)
{
	if (umem && !orca_hold(dev, umem, NULL, NULL, NULL, 0))
		ib_umem_release(umem);
}

/**
 * orca_kbuf_release - free a kernel queue buffer once the device cannot
 *		       reach it
 * @dev: device
 * @kbuf: the ring of a kernel CQ or QP the device was told to forget, or
 *	  was never given; cleared
 */
void orca_kbuf_release(struct orca_dev *dev, struct orca_kbuf *kbuf)
{
	if (kbuf->va && !orca_hold(dev, NULL, NULL, kbuf, NULL, 0))
		orca_kbuf_free(dev, kbuf);
	*kbuf = (struct orca_kbuf){};
}

/**
 * orca_page_release - unmap a page the device was given and drop the
 *		       driver's reference, once the device cannot reach it
 * @dev: device
 * @page: the page (a user context's kick ring); mappings keep their own
 *	  references
 * @dma: its mapping
 */
void orca_page_release(struct orca_dev *dev, struct page *page,
		       dma_addr_t dma)
{
	if (!orca_hold(dev, NULL, NULL, NULL, page, dma))
		orca_page_free(dev, page, dma);
}

/*
 * The device acknowledged a reset (@quiesced) and so reaches nothing: give
 * back what it held.  Otherwise (orca_stop() only) give up on it.
 */
static unsigned int orca_held_release(struct orca_dev *dev, bool quiesced)
{
	struct orca_held *held, *tmp;
	unsigned int n = 0;
	LIST_HEAD(list);

	spin_lock(&dev->held_lock);
	if (quiesced)
		WRITE_ONCE(dev->quiesced, true);
	list_splice_init(&dev->held, &list);
	spin_unlock(&dev->held_lock);

	list_for_each_entry_safe(held, tmp, &list, list) {
		if (quiesced)
			orca_held_free(dev, held);
		kfree(held);
		n++;
	}
	if (n && !quiesced)
		dev_warn(&dev->pdev->dev,
			 "leaking %u user buffers and page lists the device may still reach\n",
			 n);
	return n;
}

/**
 * orca_dead_quiesce_work - stop a device that died
 * @work: orca_dev.quiesce_work
 *
 * Queued when the device dies (orca_async_event()), and again by the health
 * poll while the reset is not acknowledged: a device that was stalled
 * performs it first when it wakes.
 */
void orca_dead_quiesce_work(struct work_struct *work)
{
	struct orca_dev *dev = container_of(work, struct orca_dev,
					    quiesce_work);
	unsigned int n;

	if (READ_ONCE(dev->quiesced))
		return;
	if (!dev->reset_requested) {
		dev->reset_requested = true;
		if (orca_com_dev_reset(&dev->com)) {
			dev_err(&dev->pdev->dev,
				"dead device did not acknowledge the reset: holding the memory it may reach\n");
			return;
		}
	} else if (!orca_com_reset_acked(&dev->com)) {
		return;
	}
	n = orca_held_release(dev, true);
	dev_warn(&dev->pdev->dev,
		 "dead device stopped (reset acknowledged): %u held user buffers and page lists released\n",
		 n);
	/* only now may kernel consumers' work complete flushed: say so */
	queue_work(system_dfl_wq, &dev->dead_comp_work);
}

/**
 * orca_dead_stop - the device is being stopped for good
 * @dev: device
 * @quiesced: it acknowledged orca_stop()'s reset
 *
 * The quiesce work is cancelled first: it must not run past this.
 */
void orca_dead_stop(struct orca_dev *dev, bool quiesced)
{
	orca_held_release(dev, quiesced);
}
