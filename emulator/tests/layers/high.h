/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/* check-layers fixture: the top layer. */
int high_fn(void);
int high_twice(void);
