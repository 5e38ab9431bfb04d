// SPDX-License-Identifier: GPL-2.0
/* IB_DEVICE_ATOMIC_WRITE, the IBA 1.5 ATOMIC WRITE capability (6.2) */
#include <rdma/ib_verbs.h>

u64 orca_probe(void);
u64 orca_probe(void)
{
	return IB_DEVICE_ATOMIC_WRITE;
}
