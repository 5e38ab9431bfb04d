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

/*
 * @len bytes for the device, from the allocator of @pd if it is a parent
 * domain that has one (and does not answer IBV_ALLOCATOR_USE_DEFAULT),
 * asked with @type (ORCA_RES_TYPE_*); else ours.  Theirs is theirs to
 * keep out of fork() children: it may be a huge page, which madvise
 * takes only whole.
 */
int orca_buf_alloc(struct orca_buf *buf, size_t len, struct ibv_pd *pd,
		   uint64_t type)
{
	struct orca_pd *parent = orca_parent_of(pd);
	size_t page = sysconf(_SC_PAGESIZE);
	void *va;
	int ret;

	len = (len + page - 1) & ~(page - 1);
	buf->parent = NULL;
	buf->type = type;
	if (parent && parent->alloc) {
		va = parent->alloc(&parent->ibv_pd, parent->pd_context, len,
				   page, type);
		if (!va)
			return ENOMEM;
		if (va != IBV_ALLOCATOR_USE_DEFAULT) {
			memset(va, 0, len);
			atomic_fetch_add(&parent->refs, 1);
			buf->parent = parent;
			buf->va = va;
			buf->len = len;
			return 0;
		}
	}
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
	struct orca_pd *parent = buf->parent;

	if (!buf->va)
		return;
	if (parent) {
		parent->free(&parent->ibv_pd, parent->pd_context, buf->va,
			     buf->type);
		atomic_fetch_sub(&parent->refs, 1);
		buf->parent = NULL;
	} else {
		ibv_dofork_range(buf->va, buf->len);
		free(buf->va);
	}
	buf->va = NULL;
}
