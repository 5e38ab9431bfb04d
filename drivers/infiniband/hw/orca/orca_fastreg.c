// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Fast registration for kernel consumers (IB_DEVICE_MEM_MGT_EXTENSIONS):
 * ALLOC_MR makes a free region of the PD on the device; map_mr_sg
 * writes its page list into a coherent buffer of the driver's; an
 * IB_WR_REG_MR becomes a REG_MR WQE that names the list, which the
 * device reads when it executes the WQE, in QP order, and copies.  So
 * the list may be rewritten for the next registration as soon as the
 * consumer has invalidated the last one (LOCAL_INV, or the peer's
 * SEND_WITH_INV), as the verbs require anyway.
 */

#include "orca.h"
#include "orca_attr.h"
#include "orca_com_cmd.h"

/**
 * orca_alloc_mr - a region for fast registration
 * @ibpd: protection domain
 * @type: IB_MR_TYPE_MEM_REG only (no SG_GAPS, no integrity)
 * @max_num_sg: pages the page list holds, up to max_fast_reg_page_list_len
 *
 * Return: the region, free until a REG_MR, or ERR_PTR(-EOPNOTSUPP) on a
 * device without fast registration, ERR_PTR(-EINVAL) for another type or
 * too many pages, ERR_PTR(-ENOMEM) or the command's error.
 */
struct ib_mr *orca_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			    u32 max_num_sg)
{
	struct orca_dev *dev = to_odev(ibpd->device);
	struct orca_mr *mr;
	u32 key;
	int err;

	if (!dev->attr.max_fast_reg_page_list_len)
		return ERR_PTR(-EOPNOTSUPP);
	if (type != IB_MR_TYPE_MEM_REG || !max_num_sg ||
	    max_num_sg > dev->attr.max_fast_reg_page_list_len)
		return ERR_PTR(-EINVAL);
	mr = kzalloc_obj(*mr, GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = orca_kbuf_alloc_one(dev, &mr->pl,
				  (size_t)max_num_sg * sizeof(__le64));
	if (err)
		goto err_free;
	err = orca_cmd_alloc_mr(&dev->com, to_opd(ibpd)->pdn, max_num_sg,
				&key);
	if (err)
		goto err_pl;
	mr->max_pages = max_num_sg;
	mr->fast = true;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	return &mr->ibmr;

err_pl:
	/* the device never had it */
	orca_kbuf_free(dev, &mr->pl);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/* The region is gone from the device: its page list may go too. */
void orca_fastreg_release(struct orca_dev *dev, struct orca_mr *mr)
{
	orca_kbuf_release(dev, &mr->pl);
}

static int orca_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct orca_mr *mr = to_omr(ibmr);
	__le64 *pl = mr->pl.va[0];

	if (mr->npages == mr->max_pages)
		return -ENOMEM;
	pl[mr->npages++] = cpu_to_le64(addr);
	return 0;
}

int orca_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset)
{
	to_omr(ibmr)->npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, orca_set_page);
}

/**
 * orca_fastreg_wqe - the REG_MR WQE of an IB_WR_REG_MR
 * @qp: a kernel RC or UC QP created for fast registration
 * @wr: the work request (struct ib_reg_wr)
 * @flags: the WQE flags its send_flags ask for (orca_kwqe_flags())
 * @w: the WQE slot; every field is written
 *
 * Return: 0, or -EINVAL for a QP or a mapping the device cannot take.
 */
int orca_fastreg_wqe(struct orca_qp *qp, const struct ib_send_wr *wr,
		     u8 flags, struct orca_reg_wqe *w)
{
	const struct ib_reg_wr *reg = reg_wr(wr);
	struct orca_mr *mr = to_omr(reg->mr);
	unsigned int shift;

	if (!qp->fast_reg || !mr->fast || !mr->npages ||
	    !is_power_of_2(reg->mr->page_size))
		return -EINVAL;
	shift = ilog2(reg->mr->page_size);
	if (shift < ORCA_PBL_MIN_PAGE_SHIFT || shift > ORCA_PBL_MAX_PAGE_SHIFT)
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->opcode = ORCA_WR_REG_MR;
	/* a registration sends nothing a peer could be solicited by */
	w->flags = flags & ~ORCA_WQE_F_SOLICITED;
	w->page_shift = shift;
	w->access = cpu_to_le32(orca_mr_access_from_ib(reg->access));
	w->key = cpu_to_le32(reg->key);
	w->npages = cpu_to_le32(mr->npages);
	w->iova = cpu_to_le64(reg->mr->iova);
	w->length = cpu_to_le64(reg->mr->length);
	w->pbl = cpu_to_le64(mr->pl.dma[0]);
	return 0;
}
