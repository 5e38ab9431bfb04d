/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Found only where the kernel has no <rdma/iter.h> (-idirafter): before
 * 7.1 (and Debian's 6.1.176), the block iterator was in <rdma/ib_verbs.h>.
 */
#include <rdma/ib_verbs.h>
