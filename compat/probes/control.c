// SPDX-License-Identifier: GPL-2.0
/* Compiles on every kernel orca builds for: the other probes' answers count */
#include <linux/mm.h>
#include <linux/workqueue.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

const struct ib_device_ops orca_probe_ops = {
	.driver_id = RDMA_DRIVER_UNKNOWN,
};
