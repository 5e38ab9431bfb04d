/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/* check-layers fixture: the bottom layer. */
int low_fn(void);
