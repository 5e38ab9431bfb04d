/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * orca libibverbs provider.
 *
 * Control path only: every verb is a uverbs command (ibv_cmd_*) carried to
 * the orca kernel driver; the driver-specific payloads are declared in
 * <rdma/orca-abi.h>.  ECE and data-in-order are answered from state the
 * kernel reported at alloc_ucontext / create_qp / modify_qp time, without a
 * system call.  The data path (post_send/post_recv/poll_cq/req_notify_cq) is
 * not implemented yet; libibverbs' defaults return an error.
 *
 * Device-specific extras (ORCA_IBV_DEVICE_CAP_*, ECE vendor and
 * options, data-in-order caps, max_inline_data) are reported by the kernel in
 * struct orca_ibv_alloc_ucontext_resp and surface through the standard verbs
 * (ibv_query_device_ex fw_ver/device_cap_flags_ex, ibv_query_ece,
 * ibv_query_qp_data_in_order); there is no orcadv library.
 */
#ifndef __ORCA_H__
#define __ORCA_H__

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/driver.h>

#include "orca-abi.h"

#ifndef offsetofend
#define offsetofend(_type, _member)                                            \
	(offsetof(_type, _member) + sizeof(((_type *)0)->_member))
#endif

/*
 * Not in libibverbs 44's <infiniband/verbs.h>; values as in upstream
 * rdma-core (v47+) and ibv_query_qp_data_in_order(3).
 */
#ifndef IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS
#define IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS (1 << 0)
#endif
#ifndef IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG
#define IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG (1 << 0)
#endif
#ifndef IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES
#define IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES (1 << 1)
#endif

struct orca_device {
	struct verbs_device ibv_dev;
};

struct orca_context {
	struct verbs_context ibv_ctx;
	uint32_t device_caps;		/* ORCA_IBV_DEVICE_CAP_* */
	uint32_t ece_vendor_id;
	uint32_t ece_options;		/* ECE options the device supports */
	uint32_t dio_caps;		/* ORCA_IBV_DIO_* bytes, see shifts */
	uint32_t max_inline_data;
	/*
	 * Attributes only the driver part of the extended query_device
	 * response carries.  They are constant, so the provider asks for
	 * them once per context and later queries skip that payload.
	 */
	uint32_t extras;		/* ORCA_IBV_QUERY_DEVICE_RESP_* */
	struct ibv_tso_caps tso_caps;
	struct ibv_packet_pacing_caps packet_pacing_caps;
	struct ibv_pci_atomic_caps pci_atomic_caps;
};

struct orca_qp {
	struct verbs_qp vqp;
	uint32_t ece_supported;		/* options the device offers this QP */
	uint32_t ece_current;		/* options in force (query_ece) */
	uint32_t ece_pending;		/* requested by set_ece */
	/*
	 * ece_pending is sent with every modify_qp until the INIT->RTR or
	 * RTR->RTS transition that negotiates it succeeds.
	 */
	bool ece_pending_valid;
};

static inline struct orca_device *to_odev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct orca_device, ibv_dev.device);
}

static inline struct orca_context *to_octx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct orca_context, ibv_ctx.context);
}

static inline struct orca_qp *to_oqp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct orca_qp, vqp.qp);
}

void orca_cache_device_extras(struct orca_context *ctx);
int orca_query_device_ex(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);
int orca_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *attr);

struct ibv_pd *orca_alloc_pd(struct ibv_context *context);
int orca_dealloc_pd(struct ibv_pd *pd);

struct ibv_cq *orca_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector);
int orca_destroy_cq(struct ibv_cq *cq);

struct ibv_qp *orca_create_qp(struct ibv_pd *pd,
			      struct ibv_qp_init_attr *attr);
struct ibv_qp *orca_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr);
int orca_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		   int attr_mask);
int orca_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		  struct ibv_qp_init_attr *init_attr);
int orca_destroy_qp(struct ibv_qp *qp);

int orca_set_ece(struct ibv_qp *qp, struct ibv_ece *ece);
int orca_query_ece(struct ibv_qp *qp, struct ibv_ece *ece);
int orca_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op,
				uint32_t flags);

#endif /* __ORCA_H__ */
