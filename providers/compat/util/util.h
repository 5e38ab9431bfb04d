/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Standalone replacement for what the orca provider uses of rdma-core's
 * util/util.h (in-tree builds use the real one).
 */
#ifndef ORCA_COMPAT_UTIL_H
#define ORCA_COMPAT_UTIL_H

#include <stddef.h>

/* the offset of the first byte after MEMBER in TYPE */
#define offsetofend(_type, _member)                                            \
	(offsetof(_type, _member) + sizeof(((_type *)0)->_member))

#endif
