// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Address handles: device objects, so that a UD send WQE names its
 * destination by a handle the device checks against the QP's PD.  A
 * kernel consumer's are not: ib_cm and ib_sa create and destroy them
 * where they may not sleep, so they are driver memory only, and kernel
 * UD QPs carry the address vector in each WQE (ORCA_WQE_F_UD_AV), which
 * the device checks as it checks CREATE_AH.
 */

#include <rdma/uverbs_ioctl.h>

#include "orca.h"
#include "orca_attr.h"
#include "orca_com_cmd.h"

int orca_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		   struct ib_udata *udata)
{
	struct orca_dev *dev = to_odev(ibah->device);
	struct orca_ibv_create_ah_resp resp = {};
	struct orca_av av = {};
	struct orca_ah *ah = to_oah(ibah);
	int err;

	if (!udata && (le32_to_cpu(dev->caps.dev_caps) & ORCA_DEV_CAP_UD_AV)) {
		orca_av_from_ib(init_attr->ah_attr, &ah->av);
		ah->in_wqe = true;
		return 0;
	}
	/* a firmware command sleeps; a device with max_ah 0 has no AHs */
	if (!(init_attr->flags & RDMA_CREATE_AH_SLEEPABLE) || !dev->attr.max_ah)
		return -EOPNOTSUPP;
	err = orca_check_udata_in(dev, udata, 0);
	if (err)
		return err;
	orca_av_from_ib(init_attr->ah_attr, &av);
	err = orca_cmd_create_ah(&dev->com, to_opd(ibah->pd)->pdn, &av,
				 &ah->ahn);
	if (err)
		return err;
	ah->av = av;
	resp.ahn = ah->ahn;
	err = orca_respond(udata, &resp, sizeof(resp));
	if (err) {
		orca_cmd_destroy_ah(&dev->com, ah->ahn);
		return err;
	}
	return 0;
}

/* ib_mad matches a response to its request by the request's address. */
int orca_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *ah_attr)
{
	memset(ah_attr, 0, sizeof(*ah_attr));
	orca_av_to_ib(&to_oah(ibah)->av, ah_attr);
	return 0;
}

int orca_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct orca_dev *dev = to_odev(ibah->device);

	if (to_oah(ibah)->in_wqe)
		return 0;
	if (!(flags & RDMA_DESTROY_AH_SLEEPABLE))
		return -EOPNOTSUPP;
	return orca_cmd_destroy_ah(&dev->com, to_oah(ibah)->ahn);
}
