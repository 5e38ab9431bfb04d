// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the handle tables of PDs, CQs and QPs, and how a
 * free handle is chosen.
 */
#include "orca_res.h"

struct orca_pd *pd_get(struct orca_dev *dev, uint32_t pdn)
{
	if (!pdn || pdn > dev->cfg.max_pd || !dev->pds[pdn].used)
		return NULL;
	return &dev->pds[pdn];
}

struct orca_cq *cq_get(struct orca_dev *dev, uint32_t cqn)
{
	if (!cqn || cqn > dev->cfg.max_cq || !dev->cqs[cqn].used)
		return NULL;
	return &dev->cqs[cqn];
}

/*
 * Round-robin search of a free slot in [lo, hi): handles are not reused
 * immediately, so a stale handle in a buggy driver fails loudly.  With
 * reuse_handles (ctl "reuse-handles 1") the lowest free handle is taken,
 * the way a device with a free list reuses a number at once.
 */
uint32_t rr_next(uint32_t *cursor, uint32_t lo, uint32_t hi,
		 bool (*busy)(struct orca_dev *, uint32_t),
		 struct orca_dev *dev)
{
	uint32_t i, h;

	if (dev->reuse_handles)
		*cursor = lo;
	for (i = 0; i < hi - lo; i++) {
		h = *cursor;
		if (h < lo || h >= hi)
			h = lo;
		*cursor = h + 1;
		if (!busy(dev, h))
			return h;
	}
	return 0;
}

bool qp_busy(struct orca_dev *dev, uint32_t h)
{
	return dev->qps[h] != NULL;
}

uint32_t roundup_pow2(uint32_t v)
{
	uint32_t r = 1;

	if (!v)
		return 0;
	while (r < v)
		r <<= 1;
	return r;
}

/*
 * An address vector a UD send may use (CREATE_AH's, or one a WQE
 * carries): port 1, SL, GRH flag and flow label in range, a source GID
 * the table has, no timeout or P_Key index (those are a QP path's).
 */
bool ud_av_ok(const struct orca_dev *dev, const struct orca_av *av)
{
	return av->port == 1 && av->sl <= 15 && !(av->flags & ~ORCA_AV_F_GRH) &&
	       le32toh(av->flow_label) <= 0xfffff &&
	       (!(av->flags & ORCA_AV_F_GRH) ||
		av->sgid_index < dev->cfg.gid_tbl_len) &&
	       !av->timeout && !av->pkey_index;
}

/* The index of @pkey's partition in the P_Key table, or -1. */
int pkey_index_of(const struct orca_dev *dev, uint16_t pkey)
{
	const struct orca_cfg *g = &dev->cfg;
	unsigned int i;

	if (!(pkey & 0x7fff))
		return -1;
	/* a full member's entry first: it is the one to answer with */
	for (i = 0; i < g->n_pkey_table; i++)
		if (g->pkey_table[i] == (pkey | 0x8000U))
			return i;
	for (i = 0; i < g->n_pkey_table; i++)
		if ((g->pkey_table[i] & 0x7fff) == (pkey & 0x7fff) &&
		    ((g->pkey_table[i] | pkey) & 0x8000))
			return i;
	return -1;
}

uint16_t qp_pkey(struct orca_dev *dev, const struct orca_qp *qp)
{
	uint32_t idx = le16toh(qp->ctx.pkey_index);

	return idx < dev->cfg.n_pkey_table ? dev->cfg.pkey_table[idx] : 0;
}
