// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Device memory.  ibv_alloc_dm() maps the pages the kernel hands out
 * (BAR2 of the device, write-combined); ibv_memcpy_to_dm() and
 * ibv_memcpy_from_dm() copy through that mapping, in the 4-byte words
 * device memory is addressed in (offsets and lengths are multiples of 4,
 * within the length allocated); ibv_reg_dm_mr() makes a zero-based region
 * over it for the device.  ibv_import_dm() maps a DM of the same uverbs
 * file in another context.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "orca.h"

struct orca_dm {
	struct verbs_dm vdm;
	uint8_t *map;
	size_t map_length;
	uint64_t length;		/* what was allocated */
};

static struct orca_dm *to_odm(struct ibv_dm *ibdm)
{
	return container_of(ibdm, struct orca_dm, vdm.dm);
}

static bool dm_range_ok(const struct orca_dm *dm, uint64_t off, size_t len)
{
	return !(off % 4) && !(len % 4) && off <= dm->length &&
	       len <= dm->length - off;
}

static int dm_copy_to(struct ibv_dm *ibdm, uint64_t off, const void *src,
		      size_t len)
{
	struct orca_dm *dm = to_odm(ibdm);
	volatile uint32_t *d;
	const uint8_t *s = src;
	size_t i;

	if (!dm_range_ok(dm, off, len))
		return EINVAL;
	d = (volatile uint32_t *)(dm->map + off);
	for (i = 0; i < len / 4; i++) {
		uint32_t w;

		memcpy(&w, s + 4 * i, 4);
		d[i] = w;
	}
	/* out of the write-combining buffers before a post that names it */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return 0;
}

static int dm_copy_from(void *dst, struct ibv_dm *ibdm, uint64_t off,
			size_t len)
{
	struct orca_dm *dm = to_odm(ibdm);
	const volatile uint32_t *s;
	uint8_t *d = dst;
	size_t i;

	if (!dm_range_ok(dm, off, len))
		return EINVAL;
	/* what the device wrote before its completion, seen after it */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	s = (const volatile uint32_t *)(dm->map + off);
	for (i = 0; i < len / 4; i++) {
		uint32_t w = s[i];

		memcpy(d + 4 * i, &w, 4);
	}
	return 0;
}

/* Map what the kernel offers for the DM; 0 or an errno. */
static int dm_map(struct ibv_context *context, struct orca_dm *dm,
		  uint64_t key, uint64_t map_length, uint64_t length)
{
	void *map;

	/* the allocation lies at the mapping's start, within it */
	if (!map_length || map_length < length)
		return EIO;
	map = mmap(NULL, map_length, PROT_READ | PROT_WRITE, MAP_SHARED,
		   context->cmd_fd, key);
	if (map == MAP_FAILED)
		return errno;
	dm->map = map;
	dm->map_length = map_length;
	dm->length = length;
	dm->vdm.dm.memcpy_to_dm = dm_copy_to;
	dm->vdm.dm.memcpy_from_dm = dm_copy_from;
	return 0;
}

struct ibv_dm *orca_alloc_dm(struct ibv_context *context,
			     struct ibv_alloc_dm_attr *attr)
{
	struct orca_ibv_alloc_dm_resp resp = {};
	struct orca_dm *dm;
	int ret;
	DECLARE_COMMAND_BUFFER(cmd, UVERBS_OBJECT_DM, UVERBS_METHOD_DM_ALLOC,
			       1);

	if (attr->comp_mask) {
		errno = EINVAL;
		return NULL;
	}
	dm = calloc(1, sizeof(*dm));
	if (!dm)
		return NULL;
	fill_attr_out_ptr(cmd, ORCA_IBV_ATTR_ALLOC_DM_RESP, &resp);
	ret = ibv_cmd_alloc_dm(context, attr, &dm->vdm, cmd);
	if (ret)
		goto err_free;
	ret = dm_map(context, dm, resp.mmap_key, resp.map_length,
		     attr->length);
	if (ret) {
		ibv_cmd_free_dm(&dm->vdm);
		goto err_free;
	}
	return &dm->vdm.dm;

err_free:
	free(dm);
	errno = ret;
	return NULL;
}

int orca_free_dm(struct ibv_dm *ibdm)
{
	struct orca_dm *dm = to_odm(ibdm);
	int ret;

	ret = ibv_cmd_free_dm(&dm->vdm);
	if (ret)
		return ret;
	/* the pages go back to the device with this, the last mapping */
	munmap(dm->map, dm->map_length);
	free(dm);
	return 0;
}

struct ibv_dm *orca_import_dm(struct ibv_context *context, uint32_t dm_handle)
{
	struct orca_ibv_query_dm_resp resp = {};
	struct orca_dm *dm;
	int ret;
	DECLARE_COMMAND_BUFFER(cmd, UVERBS_OBJECT_DM, ORCA_IBV_METHOD_DM_QUERY,
			       2);

	fill_attr_in_obj(cmd, ORCA_IBV_ATTR_QUERY_DM_HANDLE, dm_handle);
	fill_attr_out_ptr(cmd, ORCA_IBV_ATTR_QUERY_DM_RESP, &resp);
	ret = execute_ioctl(context, cmd);
	if (ret) {
		errno = ret;
		return NULL;
	}
	dm = calloc(1, sizeof(*dm));
	if (!dm)
		return NULL;
	ret = dm_map(context, dm, resp.mmap_key, resp.map_length, resp.length);
	if (ret) {
		free(dm);
		errno = ret;
		return NULL;
	}
	dm->vdm.handle = dm_handle;
	dm->vdm.dm.handle = dm_handle;
	dm->vdm.dm.comp_mask = IBV_DM_MASK_HANDLE;
	dm->vdm.dm.context = context;
	return &dm->vdm.dm;
}

/* ibv_unimport_dm(): this context forgets it; the DM stays. */
void orca_unimport_dm(struct ibv_dm *ibdm)
{
	struct orca_dm *dm = to_odm(ibdm);

	munmap(dm->map, dm->map_length);
	free(dm);
}

struct ibv_mr *orca_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *ibdm,
			      uint64_t dm_offset, size_t length,
			      unsigned int access)
{
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	ret = ibv_cmd_reg_dm_mr(pd, &to_odm(ibdm)->vdm, dm_offset, length,
				access, vmr, NULL);
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}
