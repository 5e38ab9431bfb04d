// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: page lists, memory regions and keys (the commands:
 * orca_cmd_mr.c).
 *
 * A page list is copied out of guest memory when the command that names
 * it runs, and every entry is checked to be aligned guest RAM then; the
 * device translates through its copy only, so it never touches guest
 * memory outside what the driver registered or gave it for a queue.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "orca_res.h"

void pages_free(struct orca_pages *pg)
{
	free(pg->addr);
	memset(pg, 0, sizeof(*pg));
}

/* A direct list: one array of @n entries at @list. */
static bool pages_read_direct(struct orca_dev *dev, uint64_t list, uint32_t n,
			      uint64_t *out, char *why, size_t whylen)
{
	if ((list & 7) || !dma_ok(dev, list, (uint64_t)n * 8)) {
		snprintf(why, whylen, "page list at 0x%llx x %u not in host memory",
			 (unsigned long long)list, n);
		return false;
	}
	if (dma_read(dev, list, out, (size_t)n * 8)) {
		snprintf(why, whylen, "page list unreadable");
		return false;
	}
	return true;
}

/*
 * A chained list: 4 KiB chunks of ORCA_PBL_CHUNK_PAGES entries, each
 * naming the next in its last slot.  Every chunk address is checked
 * before it is read; @n bounds the walk, so a chain that loops ends.
 */
static bool pages_read_chained(struct orca_dev *dev, uint64_t chunk,
			       uint32_t n, uint64_t *out, char *why,
			       size_t whylen)
{
	uint64_t slots[ORCA_PBL_CHUNK_SLOTS];
	uint32_t done = 0, take;

	while (done < n) {
		if ((chunk & (ORCA_PBL_CHUNK_SIZE - 1)) ||
		    !dma_ok(dev, chunk, ORCA_PBL_CHUNK_SIZE)) {
			snprintf(why, whylen, "page list chunk at 0x%llx (entry %u) is not an aligned 4 KiB of host memory",
				 (unsigned long long)chunk, done);
			return false;
		}
		if (dma_read(dev, chunk, slots, sizeof(slots))) {
			snprintf(why, whylen, "page list chunk unreadable");
			return false;
		}
		take = n - done < ORCA_PBL_CHUNK_PAGES ? n - done :
							 ORCA_PBL_CHUNK_PAGES;
		memcpy(out + done, slots, (size_t)take * 8);
		done += take;
		chunk = le64toh(slots[ORCA_PBL_CHUNK_PAGES]);
	}
	return true;
}

/*
 * Copy and check the page list @pbl describes; it must cover at least
 * @min_bytes.  On failure, *why says what is wrong and @pg is empty.
 */
bool pages_copy_in(struct orca_dev *dev, const struct orca_pbl *pbl,
		   struct orca_pages *pg, uint64_t min_bytes, char *why,
		   size_t whylen)
{
	uint32_t n = le32toh(pbl->npages), i;
	unsigned int shift = pbl->page_shift;
	uint64_t list = le64toh(pbl->addr), psize;
	bool chained = pbl->flags & ORCA_PBL_F_CHAINED;
	bool read;

	memset(pg, 0, sizeof(*pg));
	if (!all_zero(pbl->reserved, sizeof(pbl->reserved)) ||
	    (pbl->flags & ~ORCA_PBL_F_CHAINED)) {
		snprintf(why, whylen, "page list flags 0x%x or reserved bytes not zero",
			 pbl->flags);
		return false;
	}
	if (!n || n > (chained ? ORCA_PBL_MAX_PAGES_CHAINED : ORCA_PBL_MAX_PAGES) ||
	    shift < ORCA_PBL_MIN_PAGE_SHIFT || shift > ORCA_PBL_MAX_PAGE_SHIFT) {
		snprintf(why, whylen, "%s page list of %u pages of 2^%u bytes",
			 chained ? "chained" : "direct", n, shift);
		return false;
	}
	psize = 1ULL << shift;
	if ((uint64_t)n << shift < min_bytes) {
		snprintf(why, whylen, "%u pages of 2^%u bytes hold less than %llu bytes",
			 n, shift, (unsigned long long)min_bytes);
		return false;
	}
	pg->addr = malloc((size_t)n * 8);
	if (!pg->addr) {
		snprintf(why, whylen, "out of host memory");
		return false;
	}
	read = chained ? pages_read_chained(dev, list, n, pg->addr, why, whylen) :
			 pages_read_direct(dev, list, n, pg->addr, why, whylen);
	if (!read) {
		pages_free(pg);
		return false;
	}
	for (i = 0; i < n; i++) {
		uint64_t a = le64toh(pg->addr[i]);

		if ((a & (psize - 1)) || !dma_ok(dev, a, psize)) {
			snprintf(why, whylen, "page %u at 0x%llx is not an aligned 2^%u-byte page of host memory",
				 i, (unsigned long long)a, shift);
			pages_free(pg);
			return false;
		}
		pg->addr[i] = a;
	}
	pg->n = n;
	pg->shift = shift;
	return true;
}

/* Never crosses a page: callers split at page boundaries. */
void *pages_ptr(struct orca_dev *dev, const struct orca_pages *pg,
		uint64_t off, uint32_t len)
{
	uint64_t page = off >> pg->shift, in = off & ((1ULL << pg->shift) - 1);
	uint64_t gpa, foff;

	if (!pg->n || page >= pg->n || in + len > (1ULL << pg->shift))
		return NULL;
	gpa = pg->addr[page] + in;
	/* checked when the list was copied; the map cannot shrink */
	if (!orca_memmap_translate(&dev->map, gpa, len, &foff))
		return NULL;
	if (len && gpa + len > dev->stats.dma_high)
		dev->stats.dma_high = gpa + len;
	return dev->ram + foff;
}

/* ------------------------------------------------------------------ */
/* Memory regions                                                     */
/* ------------------------------------------------------------------ */

uint8_t key_byte_next(struct orca_dev *dev, uint8_t last)
{
	uint64_t x = dev->key_rng;

	/* xorshift64, seeded at init from getrandom() */
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	dev->key_rng = x;
	return (uint8_t)(last + 1 + x % 255);
}

struct orca_mr *mr_get(struct orca_dev *dev, uint32_t key)
{
	uint32_t idx = key >> 8;

	if (!idx || idx > dev->cfg.max_mr || !dev->mrs[idx].used ||
	    dev->mrs[idx].key != (key & 0xff))
		return NULL;
	return &dev->mrs[idx];
}

/*
 * The region @key names, if it belongs to @pdn, allows @need and holds
 * [va, va + len).  A zero-length access needs only the key and PD.
 */
struct orca_mr *mr_check(struct orca_dev *dev, uint32_t key, uint32_t pdn,
			 uint32_t need, uint64_t va, uint64_t len)
{
	struct orca_mr *mr = mr_get(dev, key);

	/* a fast-register region grants nothing while free */
	if (!mr || !mr->valid || mr->pdn != pdn ||
	    (mr->access & need) != need)
		return NULL;
	if (len && (va < mr->iova || va - mr->iova > mr->length ||
		    len > mr->length - (va - mr->iova)))
		return NULL;
	return mr;
}

/*
 * What ORCA_RESERVED_LKEY names on a QP created for it: guest memory at
 * its DMA addresses, for the QP's local accesses only.  Never in the
 * region table, so no command can change or destroy it.
 */
static const struct orca_mr phys_mr = {
	.used = true,
	.access = ORCA_ACCESS_LOCAL_WRITE,
	.length = UINT64_MAX,
	.pages.shift = 12,	/* the steps mr_write() and mr_read() take */
	.phys = true,
};

const struct orca_mr *sge_mr(struct orca_dev *dev, uint32_t key, uint32_t pdn,
			     bool rlkey, uint32_t need, uint64_t va,
			     uint64_t len)
{
	if (key != ORCA_RESERVED_LKEY || !rlkey)
		return mr_check(dev, key, pdn, need, va, len);
	if ((need & ~(uint32_t)MR_LOCAL_WRITE) || !dma_ok(dev, va, len))
		return NULL;
	return &phys_mr;
}

void *mr_ptr(struct orca_dev *dev, const struct orca_mr *mr, uint64_t va,
	     uint32_t len)
{
	if (mr->phys)
		return dma_ptr(dev, va, len);
	if (mr->dm)
		return dm_ptr(dev, mr->dm_off + (va - mr->iova), len);
	return pages_ptr(dev, &mr->pages, va - mr->iova + mr->first_off, len);
}

/*
 * Ascending stores, 8 bytes at a time where aligned, so that a reader who
 * sees the last byte of a message sees all of it (x86 keeps one thread's
 * ordinary stores in order; memcpy may not use ordinary stores).  The
 * bulk goes in aligned 16-byte SSE2 stores, ordinary stores too (volatile:
 * the compiler keeps them one each and in order), 64 bytes a round: 8
 * bytes a store cost the placement of a 4 KiB packet three times what
 * memcpy costs.  The last 8 to 23 bytes still go 8 bytes at a time, so
 * the store of the last byte is never wider than 8.
 */
/* One 8-byte store of @src's next 8 bytes at @dst, 8-aligned. */
static inline void store8(uint8_t *dst, const uint8_t *src)
{
	uint64_t v;

	memcpy(&v, src, 8);
	__atomic_store_n((uint64_t *)dst, v, __ATOMIC_RELAXED);
}

static void copy_ascending(uint8_t *dst, const uint8_t *src, uint32_t len)
{
	while (len && ((uintptr_t)dst & 7)) {
		__atomic_store_n(dst++, *src++, __ATOMIC_RELAXED);
		len--;
	}
#ifdef __SSE2__
	if (len >= 64 + 8 + 8) {
		if ((uintptr_t)dst & 8) {
			store8(dst, src);
			dst += 8;
			src += 8;
			len -= 8;
		}
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		while (len >= 64 + 8) {
			const __m128i *s = (const __m128i *)src;
			volatile __m128i *d = (volatile __m128i *)dst;
			__m128i a = _mm_loadu_si128(s), b = _mm_loadu_si128(s + 1);
			__m128i c = _mm_loadu_si128(s + 2), e = _mm_loadu_si128(s + 3);

			d[0] = a;
			d[1] = b;
			d[2] = c;
			d[3] = e;
			dst += 64;
			src += 64;
			len -= 64;
		}
		while (len >= 16 + 8) {
			*(volatile __m128i *)dst =
				_mm_loadu_si128((const __m128i *)src);
			dst += 16;
			src += 16;
			len -= 16;
		}
		/* the compiler moves no store across them (no code either) */
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	}
#endif
	while (len >= 8) {
		store8(dst, src);
		dst += 8;
		src += 8;
		len -= 8;
	}
	while (len--)
		__atomic_store_n(dst++, *src++, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static void mr_write_ascending(struct orca_dev *dev,
			       const struct orca_mr *mr, uint64_t va,
			       const void *src, uint32_t len)
{
	uint64_t off = va - mr->iova + mr->first_off;
	uint64_t psize = 1ULL << mr->pages.shift;
	const uint8_t *s = src;

	while (len) {
		uint32_t chunk = psize - (off & (psize - 1));
		uint8_t *p;

		if (chunk > len)
			chunk = len;
		p = mr_ptr(dev, mr, va, chunk);
		if (!p)		/* mr_check() covered the range */
			return;
		copy_ascending(p, s, chunk);
		dev->stats.dma_writes++;
		off += chunk;
		va += chunk;
		s += chunk;
		len -= chunk;
	}
}

/*
 * Where a message's guarantee is less than WHOLE_MSG, or the region gave
 * it up (relaxed ordering), the device uses its freedom: a payload's last
 * 128-byte aligned block goes first, then the rest, so a reader who polls
 * the last byte for a whole message is caught.  Each block is still
 * written whole and ascending (what ALIGNED_128_BYTES promises).  Two
 * ascending runs, not one per block: placement is the device's largest
 * cost, and perftest asks for relaxed ordering.
 */
void mr_write(struct orca_dev *dev, const struct orca_mr *mr, uint64_t va,
	      const void *src, uint32_t len, uint8_t dio)
{
	uint64_t last = (va + len - 1) & ~(uint64_t)(ORCA_DIO_BLOCK - 1);
	const uint8_t *s = src;

	/* a slow device, so that a reader can watch (ctl place-delay) */
	if (dev->place_delay_us)
		usleep(dev->place_delay_us);
	if (!len || last <= va || ((dio & ORCA_DIO_WHOLE_MSG) &&
				   !(mr->access & ORCA_ACCESS_RELAXED_ORDERING))) {
		mr_write_ascending(dev, mr, va, s, len);
		return;
	}
	mr_write_ascending(dev, mr, last, s + (last - va), va + len - last);
	if (dev->place_delay_us)
		usleep(dev->place_delay_us);
	mr_write_ascending(dev, mr, va, s, last - va);
	dev->stats.dio_scrambled++;
}

void mr_read(struct orca_dev *dev, const struct orca_mr *mr, uint64_t va,
	     void *dst, uint32_t len)
{
	uint64_t off = va - mr->iova + mr->first_off;
	uint64_t psize = 1ULL << mr->pages.shift;
	uint8_t *d = dst;

	while (len) {
		uint32_t chunk = psize - (off & (psize - 1));
		uint8_t *p;

		if (chunk > len)
			chunk = len;
		p = mr_ptr(dev, mr, va, chunk);
		if (!p) {
			memset(d, 0, len);
			return;
		}
		memcpy(d, p, chunk);
		off += chunk;
		va += chunk;
		d += chunk;
		len -= chunk;
	}
}

/*
 * Copy @len bytes between @buf and byte @off of the scatter list
 * @sge[0..@n): into guest memory when @to_guest, out of it otherwise.
 * Each region is checked again for @pdn and @need (it may be gone since
 * the WQE was taken).  False if a key is refused or the list is short.
 */
bool sge_copy(struct orca_dev *dev, const struct orca_sge *sge, uint32_t n,
	      uint32_t pdn, bool rlkey, uint32_t need, uint64_t off,
	      uint8_t *buf, uint32_t len, bool to_guest, uint8_t dio)
{
	uint32_t i;

	for (i = 0; i < n && len; i++) {
		uint64_t l = le32toh(sge[i].length), a;
		const struct orca_mr *mr;
		uint32_t chunk;

		if (off >= l) {
			off -= l;
			continue;
		}
		chunk = l - off < len ? l - off : len;
		a = le64toh(sge[i].addr) + off;
		mr = sge_mr(dev, le32toh(sge[i].lkey), pdn, rlkey, need, a,
			    chunk);
		if (!mr)
			return false;
		if (to_guest)
			mr_write(dev, mr, a, buf, chunk, dio);
		else
			mr_read(dev, mr, a, buf, chunk);
		buf += chunk;
		len -= chunk;
		off = 0;
	}
	return !len;
}

const uint8_t *sge_borrow(struct orca_dev *dev, const struct orca_sge *sge,
			  uint32_t n, uint32_t pdn, bool rlkey, uint32_t need,
			  uint64_t off, uint32_t len)
{
	const struct orca_mr *mr;
	uint32_t i;
	uint64_t a;

	for (i = 0; i < n; i++) {
		uint64_t l = le32toh(sge[i].length);

		if (off < l)
			break;
		off -= l;
	}
	if (i == n || !len || len > le32toh(sge[i].length) - off)
		return NULL;
	a = le64toh(sge[i].addr) + off;
	mr = sge_mr(dev, le32toh(sge[i].lkey), pdn, rlkey, need, a, len);
	return mr ? mr_ptr(dev, mr, a, len) : NULL;
}

/* ------------------------------------------------------------------ */
/* Fast registration (IBA 10.6.3.5)                                   */
/* ------------------------------------------------------------------ */

#define FAST_REG_ACCESS	(ORCA_ACCESS_LOCAL_WRITE | ORCA_ACCESS_REMOTE_WRITE | \
			 ORCA_ACCESS_REMOTE_READ | ORCA_ACCESS_REMOTE_ATOMIC | \
			 ORCA_ACCESS_RELAXED_ORDERING)

static uint8_t fast_reg_err(struct orca_qp *qp, uint32_t key, const char *why)
{
	orca_log("QP %u: REG_MR of key 0x%x refused: %s",
		 le32toh(qp->ctx.qpn), key, why);
	return ORCA_CQE_MW_BIND_ERR;
}

uint8_t mr_fast_reg(struct orca_dev *dev, struct orca_qp *qp,
		    const struct orca_reg_wqe *w)
{
	uint32_t key = le32toh(w->key), idx = key >> 8;
	uint32_t access = le32toh(w->access), n = le32toh(w->npages);
	uint64_t iova = le64toh(w->iova), len = le64toh(w->length);
	unsigned int shift = w->page_shift;
	struct orca_pbl pbl = { .addr = w->pbl, .npages = w->npages,
				.page_shift = w->page_shift };
	struct orca_pages pg;
	struct orca_mr *mr;
	uint64_t first_off;
	char why[160];

	if (!(le32toh(qp->ctx.create_flags) & ORCA_QP_CREATE_FAST_REG))
		return fast_reg_err(qp, key, "QP not created for fast registration");
	if ((key & ORCA_KEY_MW) || !idx || idx > dev->cfg.max_mr ||
	    !dev->mrs[idx].used || !dev->mrs[idx].fast)
		return fast_reg_err(qp, key, "no fast-register region at this index");
	mr = &dev->mrs[idx];
	if (mr->valid)
		return fast_reg_err(qp, key, "region not free (invalidate it first)");
	if (mr->pdn != le32toh(qp->ctx.pdn))
		return fast_reg_err(qp, key, "region of another PD than the QP's");
	if ((access & ~(uint32_t)FAST_REG_ACCESS) ||
	    ((access & (ORCA_ACCESS_REMOTE_WRITE | ORCA_ACCESS_REMOTE_ATOMIC)) &&
	     !(access & ORCA_ACCESS_LOCAL_WRITE)))
		return fast_reg_err(qp, key, "access rights");
	if (!n || n > mr->max_pages || shift < ORCA_PBL_MIN_PAGE_SHIFT ||
	    shift > ORCA_PBL_MAX_PAGE_SHIFT)
		return fast_reg_err(qp, key, "page count or size");
	first_off = iova & ((1ULL << shift) - 1);
	if (!len || iova + len < iova || len > dev->cfg.max_mr_size)
		return fast_reg_err(qp, key, "length");
	if (!pages_copy_in(dev, &pbl, &pg, first_off + len, why, sizeof(why)))
		return fast_reg_err(qp, key, why);
	pages_free(&mr->pages);
	mr->pages = pg;
	mr->key = key & 0xff;
	mr->access = access;
	mr->iova = iova;
	mr->length = len;
	mr->first_off = first_off;
	mr->valid = true;
	dev->stats.fast_regs++;
	return ORCA_CQE_SUCCESS;
}

bool mr_invalidate(struct orca_dev *dev, struct orca_qp *qp, uint32_t key,
		   const char **why)
{
	struct orca_mr *mr = mr_get(dev, key);

	if (!mr || !mr->fast || !mr->valid)
		*why = "no valid fast-register region under this key";
	else if (mr->pdn != le32toh(qp->ctx.pdn))
		*why = "region of another PD than the QP's";
	else if (mr->mw_refs)
		*why = "memory windows are bound to the region";
	else
		*why = NULL;
	if (*why)
		return false;
	mr->valid = false;
	dev->stats.mr_invalidations++;
	return true;
}

void *dm_ptr(struct orca_dev *dev, uint64_t off, uint64_t len)
{
	uint64_t size = dev->cfg.max_dm_size;

	if (off > size || len > size - off)
		return NULL;
	return dev->dm_base + off;
}

void dm_destroy_all(struct orca_dev *dev)
{
	memset(dev->dms, 0, sizeof(dev->dms));
}

void mr_destroy_all(struct orca_dev *dev)
{
	uint32_t i;

	for (i = 0; dev->mrs && i <= dev->cfg.max_mr; i++)
		if (dev->mrs[i].used)
			pages_free(&dev->mrs[i].pages);
	if (dev->mrs)
		memset(dev->mrs, 0, (dev->cfg.max_mr + 1) * sizeof(*dev->mrs));
	dev->n_mrs = 0;
}
