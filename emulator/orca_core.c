// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model core: DMA into guest memory, MSI-X, the QP state
 * mirror, QPs by number.
 *
 * Everything the guest controls (register values, queue entries, mailbox
 * contents) is copied into device memory before it is interpreted, and
 * every guest address goes through dma_ok() before it is touched, so no
 * guest input can make the device read or write outside the host memory
 * mapping or act on a value that changes under its feet.
 */
#include <errno.h>
#include <string.h>

#include "orca_core.h"

/*
 * Is [addr, addr + len) guest RAM, all in one region of the guest's
 * memory map?  Overflow-safe.
 */
bool dma_ok(const struct orca_dev *dev, uint64_t addr, uint64_t len)
{
	uint64_t off;

	return dev->ram && orca_memmap_translate(&dev->map, addr, len, &off);
}

/* Where [addr, addr + len) is in the RAM file; NULL (counted) if not RAM. */
static uint8_t *dma_xlate(struct orca_dev *dev, uint64_t addr, uint64_t len)
{
	uint64_t off;

	if (!dev->ram || !orca_memmap_translate(&dev->map, addr, len, &off)) {
		dev->stats.bad_addr++;
		return NULL;
	}
	if (len && addr + len > dev->stats.dma_high)
		dev->stats.dma_high = addr + len;
	return dev->ram + off;
}

int dma_read(struct orca_dev *dev, uint64_t addr, void *buf,
	     size_t len)
{
	uint8_t *p = dma_xlate(dev, addr, len);

	if (!p)
		return -EFAULT;
	memcpy(buf, p, len);
	return 0;
}

int dma_write(struct orca_dev *dev, uint64_t addr, const void *buf,
	      size_t len)
{
	uint8_t *p = dma_xlate(dev, addr, len);

	if (!p)
		return -EFAULT;
	memcpy(p, buf, len);
	return 0;
}

void *dma_ptr(struct orca_dev *dev, uint64_t addr, size_t len)
{
	return dma_xlate(dev, addr, len);
}

/* A ring of 2^log_depth 64-byte entries at base: aligned and in memory. */
bool ring_ok(const struct orca_dev *dev, uint64_t base,
	     unsigned int log_depth)
{
	return !(base & 63) && dma_ok(dev, base, 64ULL << log_depth);
}

void flush_irq(struct orca_dev *dev)
{
	if (dev->comp_irq_pending && !dev->comp_irq_held) {
		dev->comp_irq_pending = false;
		dev->stats.irqs++;
		if (dev->raise_irq)
			dev->raise_irq(dev->irq_priv, ORCA_MSIX_COMP);
	}
	if (!dev->irq_pending)
		return;
	dev->irq_pending = false;
	dev->stats.irqs++;
	if (dev->raise_irq)
		dev->raise_irq(dev->irq_priv, ORCA_MSIX_EQ);
}

/*
 * Publish a QP's state in the host mirror: seq odd, fields, seq even
 * (release).  Returns the new even seq, or 0 when no mirror entry exists.
 */
uint32_t mirror_write(struct orca_dev *dev, uint32_t qpn,
		      const struct orca_qp_ctx *ctx)
{
	struct orca_qp_mirror *m;
	uint32_t seq;

	if (!dev->armed || !dev->mirror_entries || qpn >= dev->mirror_entries ||
	    qpn >= dev->cfg.max_qp + ORCA_QPN_BASE)
		return 0;
	m = dma_ptr(dev, dev->mirror_base + (uint64_t)qpn * sizeof(*m),
		    sizeof(*m));
	if (!m)
		return 0;	/* cannot happen: INIT checked the range */
	seq = dev->mirror_seq[qpn];
	__atomic_store_n(&m->seq, htole32(seq + 1), __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	m->state = ctx ? ctx->state : ORCA_QPS_RESET;
	m->sq_draining = ctx ? ctx->sq_draining : 0;
	m->path_mig_state = ctx ? ctx->path_mig_state : ORCA_MIG_MIGRATED;
	m->reserved = 0;
	m->qpn = htole32(qpn);
	m->reserved2 = 0;
	seq += 2;
	__atomic_store_n(&m->seq, htole32(seq), __ATOMIC_RELEASE);
	dev->mirror_seq[qpn] = seq;
	dev->stats.mirror_writes++;
	dev->stats.dma_writes++;
	return seq;
}

struct orca_qp *qp_get(struct orca_dev *dev, uint32_t qpn)
{
	/* QPN 0 and 1 are QP0 and QP1, when they exist */
	if (qpn >= dev->cfg.max_qp + ORCA_QPN_BASE)
		return NULL;
	return dev->qps[qpn];
}
