// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* check-layers fixture: a source that is in no layer. */
int stray_fn(void)
{
	return 0;
}
