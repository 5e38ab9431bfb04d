// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* check-layers fixture: the top layer, calling down (allowed). */
#include "high.h"
#include "low.h"

int high_fn(void)
{
	return 1;
}

int high_twice(void)
{
	return 2 * low_fn();	/* with low_fn() -> high_fn(): a cycle */
}
