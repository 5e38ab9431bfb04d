// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * orca libibverbs provider: queue buffers (page-aligned, zeroed, kept out
 * of fork() children because the device writes them).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "orca.h"

int orca_buf_alloc(struct orca_buf *buf, size_t len)
{
	size_t page = sysconf(_SC_PAGESIZE);
	int ret;

	len = (len + page - 1) & ~(page - 1);
	ret = posix_memalign(&buf->va, page, len);
	if (ret)
		return ret;
	memset(buf->va, 0, len);
	ret = ibv_dontfork_range(buf->va, len);
	if (ret) {
		free(buf->va);
		buf->va = NULL;
		return ret;
	}
	buf->len = len;
	return 0;
}

void orca_buf_free(struct orca_buf *buf)
{
	if (!buf->va)
		return;
	ibv_dofork_range(buf->va, buf->len);
	free(buf->va);
	buf->va = NULL;
}
