// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * orca libibverbs provider: device matching, context setup, ops table.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "orca.h"

#define ORCA_KDRIVER_NAME "orca"

static const struct verbs_context_ops orca_ctx_ops;

static void orca_free_context(struct ibv_context *ibctx)
{
	struct orca_context *ctx = to_octx(ibctx);
	unsigned int i;

	if (ctx->db_page)
		munmap(ctx->db_page, sysconf(_SC_PAGESIZE));
	if (ctx->db_hint_page)
		munmap(ctx->db_hint_page, sysconf(_SC_PAGESIZE));
	if (ctx->kick)
		munmap(ctx->kick, sysconf(_SC_PAGESIZE));
	for (i = 0; i < ORCA_QP_TABLE_L1; i++)
		free(ctx->qp_table[i]);
	pthread_mutex_destroy(&ctx->qp_table_lock);
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

/*
 * mmap() one page of the uverbs file at @key with @prot; returns the
 * 32-bit word at @offset in it (the page in *@page), or NULL.
 */
static void *orca_map_word(struct orca_context *ctx, uint64_t key,
			   uint32_t offset, int prot, void **page)
{
	long size = sysconf(_SC_PAGESIZE);
	void *p;

	if (size <= 0 || offset > (unsigned long)size - 4 || offset % 4)
		return NULL;
	p = mmap(NULL, size, prot, MAP_SHARED, ctx->ibv_ctx.context.cmd_fd,
		 key);
	if (p == MAP_FAILED)
		return NULL;
	*page = p;
	return (uint8_t *)p + offset;
}

/*
 * Map the doorbell page and the doorbell hint.  Failing the first, kicks
 * stay system calls; failing the second, every post kicks: slower, never
 * wrong.
 */
static void orca_map_doorbell(struct orca_context *ctx,
			      const struct orca_ibv_alloc_ucontext_resp *resp)
{
	if (resp->comp_mask & ORCA_IBV_ALLOC_UCONTEXT_RESP_USER_DB) {
		ctx->db = orca_map_word(ctx, resp->db_mmap_key,
					resp->db_offset, PROT_WRITE,
					&ctx->db_page);
		ctx->db_value = htole32(resp->db_value);
	}
	if (resp->comp_mask & ORCA_IBV_ALLOC_UCONTEXT_RESP_DB_HINT)
		ctx->db_hint = orca_map_word(ctx, resp->db_hint_mmap_key,
					     resp->db_hint_offset, PROT_READ,
					     &ctx->db_hint_page);
}

/*
 * Map the kick ring.  The kernel created this context's QPs to be named
 * there, so a context that cannot map it cannot post: it fails.
 */
static int orca_map_kick_ring(struct orca_context *ctx,
			      const struct orca_ibv_alloc_ucontext_resp *resp)
{
	long size = sysconf(_SC_PAGESIZE);
	void *p;

	if (!(resp->comp_mask & ORCA_IBV_ALLOC_UCONTEXT_RESP_KICK_RING))
		return 0;
	if (size <= 0 || !resp->kick_ring_entries ||
	    offsetof(struct orca_kick_ring, e) +
	    (uint64_t)resp->kick_ring_entries * sizeof(struct orca_kick_entry) >
	    (unsigned long)size)
		return EINVAL;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 ctx->ibv_ctx.context.cmd_fd, resp->kick_ring_mmap_key);
	if (p == MAP_FAILED)
		return errno;
	ctx->kick = p;
	ctx->kick_entries = resp->kick_ring_entries;
	return 0;
}

/*
 * What the kernel answered for the context (alloc_ucontext, or
 * QUERY_CONTEXT for an imported one): capabilities, the doorbell page,
 * the kick ring.  Each field counts only if the kernel says it filled
 * it.  On failure the context is as before (nothing mapped).
 */
static int orca_context_setup(struct orca_context *ctx,
			      const struct orca_ibv_alloc_ucontext_resp *resp)
{
	int ret;

	ctx->device_caps = resp->device_caps;
	if (resp->comp_mask & ORCA_IBV_ALLOC_UCONTEXT_RESP_ECE) {
		ctx->ece_vendor_id = resp->ece_vendor_id;
		ctx->ece_options = resp->ece_options;
	} else {
		ctx->device_caps &= ~ORCA_IBV_DEVICE_CAP_ECE;
	}
	if (resp->comp_mask & ORCA_IBV_ALLOC_UCONTEXT_RESP_DATA_IN_ORDER)
		ctx->dio_caps = resp->data_in_order_caps;
	else
		ctx->device_caps &= ~ORCA_IBV_DEVICE_CAP_DATA_IN_ORDER;
	if (resp->comp_mask & ORCA_IBV_ALLOC_UCONTEXT_RESP_MAX_INLINE_DATA)
		ctx->max_inline_data = resp->max_inline_data;
	orca_map_doorbell(ctx, resp);
	ret = orca_map_kick_ring(ctx, resp);
	if (ret) {
		if (ctx->db_page)
			munmap(ctx->db_page, sysconf(_SC_PAGESIZE));
		if (ctx->db_hint_page)
			munmap(ctx->db_hint_page, sysconf(_SC_PAGESIZE));
		ctx->db_page = ctx->db_hint_page = NULL;
		return ret;
	}
	pthread_mutex_init(&ctx->qp_table_lock, NULL);
	verbs_set_ops(&ctx->ibv_ctx, &orca_ctx_ops);
	orca_cache_device_extras(ctx);
	return 0;
}

static struct verbs_context *orca_alloc_context(struct ibv_device *ibdev,
						int cmd_fd,
						void *private_data)
{
	struct orca_alloc_ucontext_resp resp = {};
	struct orca_alloc_ucontext cmd = {};
	struct orca_context *ctx;
	int ret;

	(void)private_data;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	/* what this provider implements beyond the basics */
	cmd.drv_payload.comp_mask = ORCA_IBV_ALLOC_UCONTEXT_CMD_ECE |
				    ORCA_IBV_ALLOC_UCONTEXT_CMD_USER_DB |
				    ORCA_IBV_ALLOC_UCONTEXT_CMD_DB_HINT |
				    ORCA_IBV_ALLOC_UCONTEXT_CMD_KICK_RING;
	ret = ibv_cmd_get_context(&ctx->ibv_ctx, &cmd.ibv_cmd, sizeof(cmd),
				  NULL, &resp.ibv_resp, sizeof(resp));
	if (!ret)
		ret = orca_context_setup(ctx, &resp.drv_payload);
	if (ret) {
		errno = ret;
		verbs_uninit_context(&ctx->ibv_ctx);
		free(ctx);
		return NULL;
	}
	return &ctx->ibv_ctx;
}

/*
 * ibv_import_device(): a second context on a uverbs file whose kernel
 * context another one made (possibly in another process).  The kernel
 * answers what it answered then, without the kick ring (orca-abi.h):
 * this context kicks through the doorbell page.
 */
static struct verbs_context *orca_import_context(struct ibv_device *ibdev,
						 int cmd_fd)
{
	struct orca_ibv_alloc_ucontext_resp resp = {};
	struct orca_context *ctx;
	int ret;
	DECLARE_COMMAND_BUFFER(cmd, UVERBS_OBJECT_DEVICE,
			       UVERBS_METHOD_QUERY_CONTEXT, 1);

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;
	fill_attr_out_ptr(cmd, ORCA_IBV_ATTR_QUERY_CONTEXT_RESP, &resp);
	ret = ibv_cmd_query_context(&ctx->ibv_ctx.context, cmd);
	if (!ret) {
		/* the kick ring is the first context's, whatever is said */
		resp.comp_mask &= ~ORCA_IBV_ALLOC_UCONTEXT_RESP_KICK_RING;
		ret = orca_context_setup(ctx, &resp);
	}
	if (ret) {
		errno = ret;
		verbs_uninit_context(&ctx->ibv_ctx);
		free(ctx);
		return NULL;
	}
	return &ctx->ibv_ctx;
}

static struct verbs_device *orca_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct orca_device *dev;

	(void)sysfs_dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	return &dev->ibv_dev;
}

static void orca_uninit_device(struct verbs_device *vdev)
{
	free(container_of(vdev, struct orca_device, ibv_dev));
}

/*
 * Look for a "DRIVER=<name>" line in a uevent file.  Returns 1 if the
 * driver is orca, 0 if it is another driver, -1 if no driver is named.
 */
static int orca_uevent_driver_is_orca(const char *uevent)
{
	static const char key[] = "DRIVER=";
	const char *line = uevent;

	while (line && *line) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);

		if (len >= sizeof(key) - 1 &&
		    !strncmp(line, key, sizeof(key) - 1)) {
			const char *drv = line + sizeof(key) - 1;
			size_t drv_len = len - (sizeof(key) - 1);

			return drv_len == strlen(ORCA_KDRIVER_NAME) &&
			       !strncmp(drv, ORCA_KDRIVER_NAME, drv_len);
		}
		line = eol ? eol + 1 : NULL;
	}
	return -1;
}

/*
 * Called by libibverbs for every uverbs device after the table match.  The
 * kernel driver has no RDMA_DRIVER_ID yet (driver_id stays 0) and Debian's
 * udev rule renames ib devices (e.g. ibp0s4), so the device is recognised by
 * the kernel driver bound to its parent: <ibdev>/device/uevent DRIVER=orca.
 * If the parent names no driver, fall back to the name table ("orca*").
 */
static bool orca_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	char uevent[4096];
	int len, ret;

	len = ibv_read_ibdev_sysfs_file(uevent, sizeof(uevent), sysfs_dev,
					"device/uevent");
	if (len > 0) {
		ret = orca_uevent_driver_is_orca(uevent);
		if (ret >= 0)
			return ret;
	}
	return sysfs_dev->match != NULL;
}

static const struct verbs_match_ent orca_match_table[] = {
	VERBS_NAME_MATCH("orca", NULL),
	{},
};

static const struct verbs_device_ops orca_dev_ops = {
	.name = "orca",
	.match_min_abi_version = ORCA_UVERBS_ABI_VERSION,
	.match_max_abi_version = ORCA_UVERBS_ABI_VERSION,
	.match_table = orca_match_table,
	.match_device = orca_match_device,
	.alloc_device = orca_alloc_device,
	.uninit_device = orca_uninit_device,
	.alloc_context = orca_alloc_context,
	.import_context = orca_import_context,
};

static const struct verbs_context_ops orca_ctx_ops = {
	.alloc_dm = orca_alloc_dm,
	.alloc_mw = orca_alloc_mw,
	.alloc_parent_domain = orca_alloc_parent_domain,
	.alloc_pd = orca_alloc_pd,
	.alloc_td = orca_alloc_td,
	.async_event = orca_async_event,
	/* the kernel asks the device: nothing of the group is in userspace */
	.attach_mcast = ibv_cmd_attach_mcast,
	.bind_mw = orca_bind_mw,
	.create_ah = orca_create_ah,
	.create_cq = orca_create_cq,
	.create_cq_ex = orca_create_cq_ex,
	.create_qp = orca_create_qp,
	.create_qp_ex = orca_create_qp_ex,
	.create_srq = orca_create_srq,
	.create_srq_ex = orca_create_srq_ex,
	.cq_event = orca_cq_event,
	.dealloc_mw = orca_dealloc_mw,
	.dealloc_pd = orca_dealloc_pd,
	.dealloc_td = orca_dealloc_td,
	.dereg_mr = orca_dereg_mr,
	.destroy_ah = orca_destroy_ah,
	.destroy_cq = orca_destroy_cq,
	.destroy_qp = orca_destroy_qp,
	.destroy_srq = orca_destroy_srq,
	.detach_mcast = ibv_cmd_detach_mcast,
	.free_context = orca_free_context,
	.free_dm = orca_free_dm,
	.import_dm = orca_import_dm,
	.import_mr = orca_import_mr,
	.import_pd = orca_import_pd,
	.modify_qp = orca_modify_qp,
	.modify_srq = orca_modify_srq,
	.poll_cq = orca_poll_cq,
	.post_recv = orca_post_recv,
	.post_send = orca_post_send,
	.post_srq_recv = orca_post_srq_recv,
	.query_device_ex = orca_query_device_ex,
	.query_ece = orca_query_ece,
	.query_port = orca_query_port,
	.query_qp = orca_query_qp,
	.query_qp_data_in_order = orca_query_qp_data_in_order,
	.query_rt_values = orca_query_rt_values,
	.query_srq = orca_query_srq,
	.reg_dm_mr = orca_reg_dm_mr,
	.reg_dmabuf_mr = orca_reg_dmabuf_mr,
	.reg_mr = orca_reg_mr,
	.req_notify_cq = orca_arm_cq,
	.rereg_mr = orca_rereg_mr,
	.resize_cq = orca_resize_cq,
	.set_ece = orca_set_ece,
	.unimport_dm = orca_unimport_dm,
	.unimport_mr = orca_unimport_mr,
	.unimport_pd = orca_unimport_pd,
};

PROVIDER_DRIVER(orca, orca_dev_ops);
