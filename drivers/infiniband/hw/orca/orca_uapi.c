// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The driver's own ioctl attributes and methods (orca-abi.h): what
 * ibv_import_device() and ibv_import_pd() need to rebuild a context, and
 * a PD of it, on the same uverbs file in another provider context; the
 * device's clocks for ibv_query_rt_values_ex(); where device memory is
 * mapped (ibv_alloc_dm(), ibv_import_dm()).
 */

#include <rdma/ib_verbs.h>
#include <rdma/orca-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "orca.h"
#include "orca_com_cmd.h"

#define UVERBS_MODULE_NAME orca_ib
#include <rdma/uverbs_named_ioctl.h>

/**
 * orca_query_ucontext - a context's alloc_ucontext answer, again
 * @ibucontext: the context of the uverbs file
 * @attrs: UVERBS_METHOD_QUERY_CONTEXT's attributes
 *
 * The doorbell page and its hint are mapped as often as asked, so the
 * importer gets their keys; the kick ring is left out (orca-abi.h).
 *
 * Return: 0, or the error of copying the answer out.
 */
int orca_query_ucontext(struct ib_ucontext *ibucontext,
			struct uverbs_attr_bundle *attrs)
{
	struct orca_ucontext *uctx = container_of(ibucontext,
						  struct orca_ucontext,
						  ibucontext);
	struct orca_ibv_alloc_ucontext_resp resp = uctx->resp;

	resp.comp_mask &= ~ORCA_IBV_ALLOC_UCONTEXT_RESP_KICK_RING;
	resp.kick_ring_mmap_key = 0;
	resp.kick_ring_entries = 0;
	return uverbs_copy_to_struct_or_zero(attrs,
					     ORCA_IBV_ATTR_QUERY_CONTEXT_RESP,
					     &resp, sizeof(resp));
}

/*
 * uverbs has looked the handle up (a PD of this context, or the call
 * failed before it came here): that is the whole answer.
 */
static int UVERBS_HANDLER(ORCA_IBV_METHOD_PD_QUERY)(struct uverbs_attr_bundle *attrs)
{
	return 0;
}

DECLARE_UVERBS_NAMED_METHOD(ORCA_IBV_METHOD_PD_QUERY,
			    UVERBS_ATTR_IDR(ORCA_IBV_ATTR_QUERY_PD_HANDLE,
					    UVERBS_OBJECT_PD,
					    UVERBS_ACCESS_READ,
					    UA_MANDATORY));

ADD_UVERBS_METHODS(orca_pd, UVERBS_OBJECT_PD,
		   &UVERBS_METHOD(ORCA_IBV_METHOD_PD_QUERY));

/*
 * The clock lives in the device, so each read is a command: no mapped
 * counter here to read without one.
 */
static int UVERBS_HANDLER(ORCA_IBV_METHOD_QUERY_CLOCK)(struct uverbs_attr_bundle *attrs)
{
	struct orca_ibv_query_clock_resp resp = {};
	struct orca_query_clock_out out;
	struct ib_ucontext *ibucontext;
	struct orca_dev *dev;
	int err;

	ibucontext = ib_uverbs_get_ucontext(attrs);
	if (IS_ERR(ibucontext))
		return PTR_ERR(ibucontext);
	dev = to_odev(ibucontext->device);
	if (!dev->attr.hca_core_clock)
		return -EOPNOTSUPP;
	err = orca_cmd_query_clock(&dev->com, &out);
	if (err)
		return err;
	resp.free_running = le64_to_cpu(out.free_running) &
			    dev->attr.timestamp_mask;
	resp.real_time_ns = le64_to_cpu(out.real_time);
	return uverbs_copy_to_struct_or_zero(attrs,
					     ORCA_IBV_ATTR_QUERY_CLOCK_RESP,
					     &resp, sizeof(resp));
}

DECLARE_UVERBS_NAMED_METHOD(ORCA_IBV_METHOD_QUERY_CLOCK,
			    UVERBS_ATTR_PTR_OUT(ORCA_IBV_ATTR_QUERY_CLOCK_RESP,
						UVERBS_ATTR_STRUCT(struct orca_ibv_query_clock_resp,
								   real_time_ns),
						UA_MANDATORY));

ADD_UVERBS_METHODS(orca_device, UVERBS_OBJECT_DEVICE,
		   &UVERBS_METHOD(ORCA_IBV_METHOD_QUERY_CLOCK));

/*
 * ibv_import_dm(): where a DM of the context is mapped, and its length.
 * uverbs looked the handle up.
 */
static int UVERBS_HANDLER(ORCA_IBV_METHOD_DM_QUERY)(struct uverbs_attr_bundle *attrs)
{
	struct ib_dm *ibdm = uverbs_attr_get_obj(attrs,
						 ORCA_IBV_ATTR_QUERY_DM_HANDLE);
	struct orca_dm *dm = to_odm(ibdm);
	struct orca_ibv_query_dm_resp resp = {
		.mmap_key = rdma_user_mmap_get_offset(dm->entry),
		.map_length = dm->size,
		.length = ibdm->length,
	};

	return uverbs_copy_to_struct_or_zero(attrs, ORCA_IBV_ATTR_QUERY_DM_RESP,
					     &resp, sizeof(resp));
}

DECLARE_UVERBS_NAMED_METHOD(ORCA_IBV_METHOD_DM_QUERY,
			    UVERBS_ATTR_IDR(ORCA_IBV_ATTR_QUERY_DM_HANDLE,
					    UVERBS_OBJECT_DM,
					    UVERBS_ACCESS_READ,
					    UA_MANDATORY),
			    UVERBS_ATTR_PTR_OUT(ORCA_IBV_ATTR_QUERY_DM_RESP,
						UVERBS_ATTR_STRUCT(struct orca_ibv_query_dm_resp,
								   length),
						UA_MANDATORY));

ADD_UVERBS_METHODS(orca_dm, UVERBS_OBJECT_DM,
		   &UVERBS_METHOD(ORCA_IBV_METHOD_DM_QUERY));

/* where the provider maps a new DM: it cannot use one without */
ADD_UVERBS_ATTRIBUTES_SIMPLE(orca_dm_alloc_attrs, UVERBS_OBJECT_DM,
			     UVERBS_METHOD_DM_ALLOC,
			     UVERBS_ATTR_PTR_OUT(ORCA_IBV_ATTR_ALLOC_DM_RESP,
						 UVERBS_ATTR_STRUCT(struct orca_ibv_alloc_dm_resp,
								    map_length),
						 UA_MANDATORY));

/* the response, at least up to device_caps */
#define ORCA_UCTX_RESP_ATTR \
	UVERBS_ATTR_STRUCT(struct orca_ibv_alloc_ucontext_resp, device_caps)

ADD_UVERBS_ATTRIBUTES_SIMPLE(orca_query_context, UVERBS_OBJECT_DEVICE,
			     UVERBS_METHOD_QUERY_CONTEXT,
			     UVERBS_ATTR_PTR_OUT(ORCA_IBV_ATTR_QUERY_CONTEXT_RESP,
						 ORCA_UCTX_RESP_ATTR,
						 UA_MANDATORY));

const struct uapi_definition orca_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &orca_query_context),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DEVICE, &orca_device),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_PD, &orca_pd),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DM, &orca_dm),
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_DM, &orca_dm_alloc_attrs),
	{}
};
