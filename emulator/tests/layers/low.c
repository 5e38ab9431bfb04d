// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* check-layers fixture: the bottom layer, wrongly reaching up. */
#include "high.h"
#include "low.h"

int low_fn(void)
{
	return high_fn() + 1;	/* an upward call */
}
