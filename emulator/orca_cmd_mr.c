// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the memory region commands REG_MR, ALLOC_MR, REREG_MR
 * and DEREG_MR, and device memory: ALLOC_DM, DEALLOC_DM and REG_DM_MR
 * (the regions themselves: orca_mem.c).
 */
#include "orca_cmd.h"

#define ACCESS_ALL	(ORCA_ACCESS_LOCAL_WRITE | ORCA_ACCESS_REMOTE_WRITE | \
			 ORCA_ACCESS_REMOTE_READ | ORCA_ACCESS_REMOTE_ATOMIC | \
			 ORCA_ACCESS_MW_BIND | ORCA_ACCESS_RELAXED_ORDERING)

/* @mr into a free slot under a new key byte (key_byte_next()). */
static void mr_insert(struct orca_dev *dev, struct orca_mr *mr,
		      struct orca_reg_mr_out *o)
{
	uint32_t idx = 0, i;

	/* round robin, so a stale index is not reused at once */
	for (i = 0; i < dev->cfg.max_mr; i++) {
		idx = (dev->next_mr + i) % dev->cfg.max_mr + 1;
		if (!dev->mrs[idx].used)
			break;
	}
	dev->next_mr = dev->reuse_handles ? 0 : idx % dev->cfg.max_mr;
	mr->key = key_byte_next(dev, dev->mrs[idx].key);
	dev->mrs[idx] = *mr;
	dev->n_mrs++;
	dev->pds[mr->pdn].mr_refs++;
	o->lkey = htole32(idx << 8 | mr->key);
	o->rkey = o->lkey;
}

/* A region's PD and rights, whatever its memory. */
static int mr_rights(struct orca_dev *dev, struct cmd *c, uint32_t pdn,
		     uint32_t access)
{
	if (!pdn || pdn > dev->cfg.max_pd || !dev->pds[pdn].used)
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no PD %u", pdn);
	if (access & (uint32_t)~ACCESS_ALL)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS,
			    "unknown access bits 0x%x",
			    access & (uint32_t)~ACCESS_ALL);
	/* IBTA: remote write or atomic needs local write */
	if ((access & (ORCA_ACCESS_REMOTE_WRITE | ORCA_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & ORCA_ACCESS_LOCAL_WRITE))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS,
			    "remote write/atomic without local write");
	return ORCA_STATUS_OK;
}

/* Check a region's description and copy its page list into @mr. */
static int mr_parse(struct orca_dev *dev, struct cmd *c,
		    const struct orca_reg_mr_in *in, struct orca_mr *mr)
{
	uint64_t iova = le64toh(in->iova), len = le64toh(in->length);
	uint32_t pdn = le32toh(in->pdn), access = le32toh(in->access);
	uint32_t first_off = le32toh(in->first_off);
	char why[160];
	int ret;

	CHECK_RESERVED(c, in->reserved);
	ret = mr_rights(dev, c, pdn, access);
	if (ret)
		return ret;
	/* first_off + len sizes the page list check: it must not wrap */
	if (!len || len > dev->cfg.max_mr_size || iova + len < iova ||
	    len > UINT64_MAX - first_off)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "length %llu (max_mr_size %llu)",
			    (unsigned long long)len,
			    (unsigned long long)dev->cfg.max_mr_size);
	if (in->pbl.page_shift < ORCA_PBL_MIN_PAGE_SHIFT ||
	    in->pbl.page_shift > ORCA_PBL_MAX_PAGE_SHIFT ||
	    first_off >> in->pbl.page_shift)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_PAGE_LIST,
			    "first_off %u, page shift %u", first_off,
			    in->pbl.page_shift);
	*mr = (struct orca_mr){ .used = true, .valid = true, .pdn = pdn,
				.access = access, .iova = iova, .length = len,
				.first_off = first_off };
	if (!pages_copy_in(dev, &in->pbl, &mr->pages, first_off + len, why,
			   sizeof(why)))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_PAGE_LIST,
			    "MR page list: %s", why);
	return ORCA_STATUS_OK;
}

int cmd_reg_mr(struct orca_dev *dev, struct cmd *c)
{
	struct orca_reg_mr_out *o = c->out;
	struct orca_mr new;
	int ret;

	if (dev->n_mrs >= dev->cfg.max_mr)
		return fail(c, ORCA_STATUS_NO_RESOURCES, ORCA_SYND_LIMIT,
			    "max_mr %llu reached",
			    (unsigned long long)dev->cfg.max_mr);
	ret = mr_parse(dev, c, c->in, &new);
	if (ret)
		return ret;
	mr_insert(dev, &new, o);
	return ORCA_STATUS_OK;
}

/*
 * ALLOC_MR: a free region for fast registration, no pages yet (the
 * REG_MR WQE gives them, orca_mem.c).
 */
int cmd_alloc_mr(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_alloc_mr_in *in = c->in;
	uint32_t pdn = le32toh(in->pdn), n = le32toh(in->max_pages);
	struct orca_mr new;

	CHECK_RESERVED(c, in->reserved);
	if (!(dev->cfg.dev_caps & ORCA_DEV_CAP_FAST_REG))
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_NONE,
			    "fast registration disabled");
	if (dev->n_mrs >= dev->cfg.max_mr)
		return fail(c, ORCA_STATUS_NO_RESOURCES, ORCA_SYND_LIMIT,
			    "max_mr %llu reached",
			    (unsigned long long)dev->cfg.max_mr);
	if (!pdn || pdn > dev->cfg.max_pd || !dev->pds[pdn].used)
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no PD %u", pdn);
	if (!n || n > dev->cfg.max_fast_reg_page_list_len)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "max_pages %u (max_fast_reg_page_list_len %llu)", n,
			    (unsigned long long)dev->cfg.max_fast_reg_page_list_len);
	new = (struct orca_mr){ .used = true, .fast = true, .pdn = pdn,
				.max_pages = n };
	mr_insert(dev, &new, c->out);
	return ORCA_STATUS_OK;
}

/*
 * REREG_MR: the region named by lkey takes the new description whole;
 * its keys stay.  One thread runs commands and transfers, so no packet
 * sees half of it.
 */
int cmd_rereg_mr(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_rereg_mr_in *in = c->in;
	uint32_t key = le32toh(in->lkey);
	struct orca_mr *mr, new;
	int ret;

	CHECK_RESERVED(c, in->reserved);
	mr = mr_get(dev, key);
	if (!mr)
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no MR with key 0x%x", key);
	if (mr->mw_refs)
		return fail(c, ORCA_STATUS_BAD_RES_STATE, ORCA_SYND_IN_USE,
			    "MR 0x%x has %u memory windows bound", key,
			    mr->mw_refs);
	if (mr->fast)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_HANDLE,
			    "MR 0x%x is for fast registration", key);
	if (mr->dm)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_HANDLE,
			    "MR 0x%x is over device memory", key);
	ret = mr_parse(dev, c, &in->mr, &new);
	if (ret)
		return ret;
	new.key = mr->key;
	dev->pds[mr->pdn].mr_refs--;
	dev->pds[new.pdn].mr_refs++;
	pages_free(&mr->pages);
	*mr = new;
	return ORCA_STATUS_OK;
}

/*
 * DEREG_MR.  A fast-register region is named by its index alone: the
 * consumer changes its key byte before a REG_MR WQE that may never run.
 */
int cmd_dereg_mr(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_mr_handle *in = c->in;
	uint32_t key = le32toh(in->lkey), idx = key >> 8;
	struct orca_mr *mr;

	CHECK_RESERVED(c, in->reserved);
	mr = mr_get(dev, key);
	if (!mr && idx && idx <= dev->cfg.max_mr && dev->mrs[idx].used &&
	    dev->mrs[idx].fast)
		mr = &dev->mrs[idx];
	if (!mr)
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no MR with key 0x%x", key);
	/* IBTA 10.6.7.2.2: not while windows are bound to it */
	if (mr->mw_refs)
		return fail(c, ORCA_STATUS_BAD_RES_STATE, ORCA_SYND_IN_USE,
			    "MR 0x%x has %u memory windows bound", key,
			    mr->mw_refs);
	dev->pds[mr->pdn].mr_refs--;
	if (mr->dm)
		dev->dms[mr->dm].mr_refs--;
	pages_free(&mr->pages);
	mr->used = false;
	dev->n_mrs--;
	return ORCA_STATUS_OK;
}

/* ------------------------------------------------------------------ */
/* Device memory                                                      */
/* ------------------------------------------------------------------ */

static struct orca_dm *dm_get(struct orca_dev *dev, uint32_t handle)
{
	if (!handle || handle > ORCA_DM_PAGES || !dev->dms[handle].used)
		return NULL;
	return &dev->dms[handle];
}

/*
 * The first run of @npages free pages of the window that starts at a
 * multiple of @align pages, or -1.
 */
static int64_t dm_find(struct orca_dev *dev, uint32_t npages, uint32_t align)
{
	uint32_t window = dev->cfg.max_dm_size / ORCA_DM_PAGE, h, p, k;
	bool used[ORCA_DM_PAGES] = { false };

	for (h = 1; h <= ORCA_DM_PAGES; h++)
		for (k = 0; dev->dms[h].used && k < dev->dms[h].npages; k++)
			used[dev->dms[h].first + k] = true;
	for (p = 0; npages <= window && p <= window - npages; p += align) {
		for (k = 0; k < npages && !used[p + k]; k++)
			;
		if (k == npages)
			return p;
	}
	return -1;
}

int cmd_alloc_dm(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_alloc_dm_in *in = c->in;
	struct orca_alloc_dm_out *o = c->out;
	uint64_t len = le64toh(in->length), size = dev->cfg.max_dm_size;
	uint32_t npages, align = 1, h;
	int64_t first;

	CHECK_RESERVED(c, in->reserved);
	if (!size)
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_NONE,
			    "no device memory (max_dm_size 0)");
	if (!len || len > size)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "device memory of %llu bytes (max_dm_size %llu)",
			    (unsigned long long)len, (unsigned long long)size);
	if (in->log_align >= 64 || (1ULL << in->log_align) > size)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "alignment 2^%u beyond the %llu-byte window",
			    in->log_align, (unsigned long long)size);
	if ((1ULL << in->log_align) > ORCA_DM_PAGE)
		align = (1ULL << in->log_align) / ORCA_DM_PAGE;
	npages = (len + ORCA_DM_PAGE - 1) / ORCA_DM_PAGE;
	first = dm_find(dev, npages, align);
	/* each allocation holds a page at least: a free slot is there */
	for (h = 1; h <= ORCA_DM_PAGES && dev->dms[h].used; h++)
		;
	if (first < 0 || h > ORCA_DM_PAGES)
		return fail(c, ORCA_STATUS_NO_RESOURCES, ORCA_SYND_LIMIT,
			    "no %u free pages of device memory in a row",
			    npages);
	/* nothing of the pages' last owner for the next */
	memset(dev->dm_base + first * ORCA_DM_PAGE, 0,
	       (size_t)npages * ORCA_DM_PAGE);
	dev->dms[h] = (struct orca_dm){ .used = true, .first = first,
					.npages = npages, .length = len };
	o->dm_handle = htole32(h);
	o->bar_offset = htole64(ORCA_DM_BAR_OFFSET + first * ORCA_DM_PAGE);
	return ORCA_STATUS_OK;
}

int cmd_dealloc_dm(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_dm_handle *in = c->in;
	uint32_t h = le32toh(in->dm_handle);
	struct orca_dm *dm;

	CHECK_RESERVED(c, in->reserved);
	dm = dm_get(dev, h);
	if (!dm)
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no device memory %u", h);
	if (dm->mr_refs)
		return fail(c, ORCA_STATUS_BAD_RES_STATE, ORCA_SYND_IN_USE,
			    "device memory %u has %u regions", h, dm->mr_refs);
	*dm = (struct orca_dm){ 0 };
	return ORCA_STATUS_OK;
}

int cmd_reg_dm_mr(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_reg_dm_mr_in *in = c->in;
	uint64_t iova = le64toh(in->iova), len = le64toh(in->length);
	uint64_t off = le64toh(in->dm_offset);
	uint32_t pdn = le32toh(in->pdn), access = le32toh(in->access);
	uint32_t h = le32toh(in->dm_handle);
	struct orca_dm *dm;
	struct orca_mr new;
	int ret;

	CHECK_RESERVED(c, in->reserved);
	if (dev->n_mrs >= dev->cfg.max_mr)
		return fail(c, ORCA_STATUS_NO_RESOURCES, ORCA_SYND_LIMIT,
			    "max_mr %llu reached",
			    (unsigned long long)dev->cfg.max_mr);
	ret = mr_rights(dev, c, pdn, access);
	if (ret)
		return ret;
	dm = dm_get(dev, h);
	if (!dm)
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no device memory %u", h);
	if (off > dm->length || len > dm->length - off || iova + len < iova)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "%llu bytes at %llu of device memory %u (%llu bytes)",
			    (unsigned long long)len, (unsigned long long)off, h,
			    (unsigned long long)dm->length);
	new = (struct orca_mr){ .used = true, .valid = true, .pdn = pdn,
				.access = access, .iova = iova, .length = len,
				.dm = h,
				.dm_off = (uint64_t)dm->first * ORCA_DM_PAGE +
					  off,
				.pages.shift = 12 };
	mr_insert(dev, &new, c->out);
	dm->mr_refs++;
	return ORCA_STATUS_OK;
}
