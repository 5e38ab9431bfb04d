// SPDX-License-Identifier: GPL-2.0
/* ib_device_ops.create_cq takes the uverbs_attr_bundle, not the udata (6.11) */
#include <rdma/ib_verbs.h>

static int orca_probe_create_cq(struct ib_cq *cq,
				const struct ib_cq_init_attr *attr,
				struct uverbs_attr_bundle *attrs)
{
	return 0;
}

const struct ib_device_ops orca_probe_ops = {
	.create_cq = orca_probe_create_cq,
};
