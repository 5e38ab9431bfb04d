// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the memory region commands REG_MR, ALLOC_MR, REREG_MR
 * and DEREG_MR (the regions themselves: orca_mem.c).
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

/* Check a region's description and copy its page list into @mr. */
static int mr_parse(struct orca_dev *dev, struct cmd *c,
		    const struct orca_reg_mr_in *in, struct orca_mr *mr)
{
	uint64_t iova = le64toh(in->iova), len = le64toh(in->length);
	uint32_t pdn = le32toh(in->pdn), access = le32toh(in->access);
	uint32_t first_off = le32toh(in->first_off);
	char why[160];

	CHECK_RESERVED(c, in->reserved);
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
	pages_free(&mr->pages);
	mr->used = false;
	dev->n_mrs--;
	return ORCA_STATUS_OK;
}
