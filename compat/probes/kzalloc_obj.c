// SPDX-License-Identifier: GPL-2.0
/* kzalloc_obj(): a typed allocation of one object (7.x) */
#include <linux/slab.h>

struct orca_probe {
	int a;
};

struct orca_probe *orca_probe_alloc(void);
struct orca_probe *orca_probe_alloc(void)
{
	struct orca_probe *p = kzalloc_obj(*p, GFP_KERNEL);

	return p;
}
