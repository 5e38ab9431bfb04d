// SPDX-License-Identifier: GPL-2.0
/* ib_umem_get() became ib_umem_get_va() (7.2) */
#include <rdma/ib_umem.h>

struct ib_umem *orca_probe(struct ib_device *dev, unsigned long va, size_t len);
struct ib_umem *orca_probe(struct ib_device *dev, unsigned long va, size_t len)
{
	return ib_umem_get_va(dev, va, len, 0);
}
