// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the memory window commands ALLOC_MW and DEALLOC_MW
 * (binding and invalidation: orca_mw.c).
 */
#include "orca_cmd.h"

static bool mw_busy(struct orca_dev *dev, uint32_t h)
{
	return dev->mws[h].used;
}

int cmd_alloc_mw(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_alloc_mw_in *in = c->in;
	struct orca_mw_handle *o = c->out;
	uint32_t pdn = le32toh(in->pdn), idx;
	struct orca_mw *mw;
	uint8_t key;

	CHECK_RESERVED(c, in->reserved);
	if (!dev->cfg.max_mw)
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_NONE,
			    "memory windows disabled (max_mw 0)");
	if (!pd_get(dev, pdn))
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no PD %u", pdn);
	if (in->type != ORCA_MW_TYPE_1 && in->type != ORCA_MW_TYPE_2)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_INVALID_ATTR,
			    "memory window type %u", in->type);
	if (in->type == ORCA_MW_TYPE_2 &&
	    !(dev->cfg.dev_caps & ORCA_DEV_CAP_MW_TYPE_2B))
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_NONE,
			    "type 2 memory windows disabled");
	if (dev->n_mws >= dev->cfg.max_mw)
		return fail(c, ORCA_STATUS_NO_RESOURCES, ORCA_SYND_LIMIT,
			    "max_mw %llu reached",
			    (unsigned long long)dev->cfg.max_mw);
	idx = rr_next(&dev->next_mwn, 1, dev->cfg.max_mw + 1, mw_busy, dev);
	mw = &dev->mws[idx];
	key = key_byte_next(dev, mw->key);
	*mw = (struct orca_mw){ .used = true, .type = in->type, .key = key,
				.pdn = pdn };
	dev->n_mws++;
	dev->pds[pdn].mw_refs++;
	o->rkey = htole32(mw_rkey(dev, mw));
	return ORCA_STATUS_OK;
}

int cmd_dealloc_mw(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_mw_handle *in = c->in;
	uint32_t key = le32toh(in->rkey);
	struct orca_mw *mw;

	CHECK_RESERVED(c, in->reserved);
	mw = mw_get(dev, key);
	if (!mw)
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no memory window with key 0x%x", key);
	mw_unbind(dev, mw);
	dev->pds[mw->pdn].mw_refs--;
	mw->used = false;
	dev->n_mws--;
	return ORCA_STATUS_OK;
}
