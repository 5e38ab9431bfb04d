// SPDX-License-Identifier: GPL-2.0
/* ib_device_ops.resize_cq became resize_user_cq, with an unsigned size (7.1) */
#include <rdma/ib_verbs.h>

static int orca_probe_resize(struct ib_cq *cq, unsigned int cqe,
			     struct ib_udata *udata)
{
	return 0;
}

const struct ib_device_ops orca_probe_ops = {
	.resize_user_cq = orca_probe_resize,
};
