// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: memory windows (IBTA 10.6.7, type 1 and type 2).
 *
 * A window is a device object of a PD (ALLOC_MW / DEALLOC_MW, in
 * orca_cmd_mw.c).  A BIND_MW
 * send WQE gives it a range of a region registered with MW_BIND access,
 * remote rights and a new key; a type 2 window is also bound to the QP
 * that executed the bind.  A remote request whose key names a window is
 * checked against the window and then accesses the region under it.
 * Type 2 windows are invalidated by LOCAL_INV, by a SEND_WITH_INV that
 * arrives on the QP they are bound to, by DEALLOC_MW and when that QP is
 * destroyed; type 1 windows by a bind of length 0 (or DEALLOC_MW).  A
 * region with windows bound to it cannot be deregistered or reregistered.
 * Every refusal is logged.
 */
#include "orca_res.h"

#define MW_RIGHTS	(ORCA_ACCESS_REMOTE_WRITE | ORCA_ACCESS_REMOTE_READ | \
			 ORCA_ACCESS_REMOTE_ATOMIC)

/* The window a key's index names (any key byte), or NULL. */
struct orca_mw *mw_get(struct orca_dev *dev, uint32_t key)
{
	uint32_t idx = (key & ~(uint32_t)ORCA_KEY_MW) >> 8;

	if (!(key & ORCA_KEY_MW) || !idx || idx > dev->cfg.max_mw ||
	    !dev->mws[idx].used)
		return NULL;
	return &dev->mws[idx];
}

static uint32_t mw_index(struct orca_dev *dev, const struct orca_mw *mw)
{
	return (uint32_t)(mw - dev->mws);
}

uint32_t mw_rkey(struct orca_dev *dev, const struct orca_mw *mw)
{
	return ORCA_KEY_MW | mw_index(dev, mw) << 8 | mw->key;
}

/* The window no longer grants anything; its key byte stays. */
void mw_unbind(struct orca_dev *dev, struct orca_mw *mw)
{
	struct orca_qp *qp;

	if (!mw->bound)
		return;
	if (mw->length)
		dev->mrs[mw->mr_idx].mw_refs--;
	if (mw->type == ORCA_MW_TYPE_2) {
		qp = qp_get(dev, mw->qpn);
		if (qp)
			qp->mw_refs--;
	}
	mw->bound = false;
	mw->length = 0;
	mw->access = 0;
	mw->qpn = 0;
}

void mw_destroy_all(struct orca_dev *dev)
{
	if (dev->mws)
		memset(dev->mws, 0, (dev->cfg.max_mw + 1) * sizeof(*dev->mws));
	dev->n_mws = 0;
}

void mw_qp_gone(struct orca_dev *dev, struct orca_qp *qp)
{
	uint32_t qpn = le32toh(qp->ctx.qpn), i;

	for (i = 1; qp->mw_refs && i <= dev->cfg.max_mw; i++) {
		struct orca_mw *mw = &dev->mws[i];

		if (mw->used && mw->bound && mw->type == ORCA_MW_TYPE_2 &&
		    mw->qpn == qpn) {
			orca_log("QP %u destroyed: type 2 window 0x%x invalidated",
				 qpn, mw_rkey(dev, mw));
			mw_unbind(dev, mw);
		}
	}
}

static uint8_t bind_err(struct orca_qp *qp, uint32_t key, const char *why)
{
	orca_log("QP %u: BIND_MW of key 0x%x refused: %s",
		 le32toh(qp->ctx.qpn), key, why);
	return ORCA_CQE_MW_BIND_ERR;
}

/*
 * IBTA 10.6.7.2: the window, the region and the QP share a PD (C10-72),
 * the region allows MW_BIND (C10-73), remote write or atomic rights need
 * a region with local write (C10-74), the range lies inside the region
 * (C10-75); a type 2 window must be free (o10-37.2.30) and the length
 * not 0 (o10-37.2.40).  Zero-based windows are not supported.
 */
uint8_t mw_bind(struct orca_dev *dev, struct orca_qp *qp,
		const struct orca_bind_wqe *b)
{
	uint32_t key = le32toh(b->rkey), access = le32toh(b->access);
	uint32_t lkey = le32toh(b->mr_lkey), pdn = le32toh(qp->ctx.pdn);
	uint64_t addr = le64toh(b->addr), len = le64toh(b->length);
	struct orca_mw *mw = mw_get(dev, key);
	struct orca_mr *mr = NULL;

	if (!mw)
		return bind_err(qp, key, "no such window");
	if (b->reserved0 || b->reserved1 || b->reserved2 ||
	    !all_zero(b->reserved3, sizeof(b->reserved3)))
		return bind_err(qp, key, "reserved bytes not zero");
	if (access & ~(MW_RIGHTS | ORCA_ACCESS_LOCAL_WRITE))
		return bind_err(qp, key, "access bits a window cannot have");
	if (mw->pdn != pdn)
		return bind_err(qp, key, "window of another PD than the QP's");
	if (mw->type == ORCA_MW_TYPE_2) {
		if (mw->bound)
			return bind_err(qp, key, "type 2 window still bound");
		if (!len)
			return bind_err(qp, key, "type 2 bind of length 0");
	}
	if (len) {
		mr = mr_check(dev, lkey, pdn, 0, addr, len);
		if (!mr)
			return bind_err(qp, key,
					"region key, PD or range refused");
		if (!(mr->access & ORCA_ACCESS_MW_BIND))
			return bind_err(qp, key, "region without MW_BIND");
		if ((access & (ORCA_ACCESS_REMOTE_WRITE |
			       ORCA_ACCESS_REMOTE_ATOMIC)) &&
		    !(mr->access & ORCA_ACCESS_LOCAL_WRITE))
			return bind_err(qp, key,
					"remote write/atomic on a region without local write");
	}
	/* a type 1 window may be bound again: the old binding ends */
	mw_unbind(dev, mw);
	mw->key = key & 0xff;
	if (!len)
		return ORCA_CQE_SUCCESS;	/* type 1: bound to nothing */
	mw->bound = true;
	mw->access = access & MW_RIGHTS;
	mw->addr = addr;
	mw->length = len;
	mw->mr_idx = (uint32_t)(mr - dev->mrs);
	mw->mr_key = mr->key;
	mr->mw_refs++;
	if (mw->type == ORCA_MW_TYPE_2) {
		mw->qpn = le32toh(qp->ctx.qpn);
		qp->mw_refs++;
	}
	return ORCA_CQE_SUCCESS;
}

/* The window @key names exactly (index and key byte), bound, or NULL. */
static struct orca_mw *mw_bound(struct orca_dev *dev, uint32_t key)
{
	struct orca_mw *mw = mw_get(dev, key);

	if (!mw || mw->key != (key & 0xff) || !mw->bound)
		return NULL;
	return mw;
}

/*
 * LOCAL_INV: a type 2 window of the QP's PD, bound under @key, or a valid
 * fast-register region of its PD (orca_mem.c); a region of REG_MR (the
 * command) ends with DEREG_MR only, a type 1 window with a bind of length
 * 0.  Refusals complete with LOC_QP_OP_ERR, as rxe does.
 */
uint8_t local_inv(struct orca_dev *dev, struct orca_qp *qp, uint32_t key)
{
	struct orca_mw *mw = mw_bound(dev, key);
	const char *why = NULL;

	if (!(key & ORCA_KEY_MW))
		mr_invalidate(dev, qp, key, &why);
	else if (!mw)
		why = "no window bound under this key";
	else if (mw->type != ORCA_MW_TYPE_2)
		why = "a type 1 window";
	else if (mw->pdn != le32toh(qp->ctx.pdn))
		why = "window of another PD than the QP's";
	if (why) {
		orca_log("QP %u: LOCAL_INV of key 0x%x refused: %s",
			 le32toh(qp->ctx.qpn), key, why);
		return ORCA_CQE_LOC_QP_OP_ERR;
	}
	if (mw)
		mw_unbind(dev, mw);
	return ORCA_CQE_SUCCESS;
}

/*
 * SEND_WITH_INV: a type 2 window bound to this QP under @key, or a valid
 * fast-register region of its PD.
 */
bool remote_inv(struct orca_dev *dev, struct orca_qp *qp, uint32_t key)
{
	struct orca_mw *mw = mw_bound(dev, key);
	const char *why;

	if (!(key & ORCA_KEY_MW)) {
		if (!mr_invalidate(dev, qp, key, &why))
			return false;
		dev->stats.mr_remote_invalidations++;
		return true;
	}
	if (!mw || mw->type != ORCA_MW_TYPE_2 ||
	    mw->qpn != le32toh(qp->ctx.qpn) ||
	    mw->pdn != le32toh(qp->ctx.pdn))
		return false;
	mw_unbind(dev, mw);
	return true;
}

struct orca_mr *rkey_check(struct orca_dev *dev, const struct orca_qp *qp,
			   uint32_t key, uint32_t need, uint64_t va,
			   uint64_t len)
{
	uint32_t pdn = le32toh(qp->ctx.pdn);
	struct orca_mw *mw;
	struct orca_mr *mr;

	if (!(key & ORCA_KEY_MW))
		return mr_check(dev, key, pdn, need, va, len);
	mw = mw_bound(dev, key);
	if (!mw || mw->pdn != pdn || (need & ~mw->access) ||
	    (mw->type == ORCA_MW_TYPE_2 && mw->qpn != le32toh(qp->ctx.qpn)))
		return NULL;
	if (len && (va < mw->addr || va - mw->addr > mw->length ||
		    len > mw->length - (va - mw->addr)))
		return NULL;
	/* the region under it: still registered, MW_BIND, same PD */
	mr = &dev->mrs[mw->mr_idx];
	if (!mr->used || mr->key != mw->mr_key || mr->pdn != pdn ||
	    !(mr->access & ORCA_ACCESS_MW_BIND))
		return NULL;
	return mr;
}
