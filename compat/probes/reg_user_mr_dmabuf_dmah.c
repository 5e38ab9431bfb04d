// SPDX-License-Identifier: GPL-2.0
/* ib_device_ops.reg_user_mr_dmabuf takes a DMA handle too (6.17) */
#include <rdma/ib_verbs.h>

static struct ib_mr *orca_probe_reg_user_mr_dmabuf(struct ib_pd *pd,
						   u64 offset, u64 length,
						   u64 virt_addr, int fd,
						   int access,
						   struct ib_dmah *dmah,
						   struct uverbs_attr_bundle *attrs)
{
	return NULL;
}

const struct ib_device_ops orca_probe_ops = {
	.reg_user_mr_dmabuf = orca_probe_reg_user_mr_dmabuf,
};
