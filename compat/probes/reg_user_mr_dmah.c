// SPDX-License-Identifier: GPL-2.0
/* ib_device_ops.reg_user_mr takes a DMA handle before the udata (6.17) */
#include <rdma/ib_verbs.h>

static struct ib_mr *orca_probe_reg_user_mr(struct ib_pd *pd, u64 start,
					    u64 length, u64 virt_addr,
					    int access, struct ib_dmah *dmah,
					    struct ib_udata *udata)
{
	return NULL;
}

const struct ib_device_ops orca_probe_ops = {
	.reg_user_mr = orca_probe_reg_user_mr,
};
