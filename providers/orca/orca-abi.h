/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
#ifndef __ORCA_ABI_H__
#define __ORCA_ABI_H__

#include <infiniband/kern-abi.h>
#include <rdma/orca-abi.h>
#include <kernel-abi/orca-abi.h>

DECLARE_DRV_CMD(orca_alloc_ucontext, IB_USER_VERBS_CMD_GET_CONTEXT,
		orca_ibv_alloc_ucontext_cmd, orca_ibv_alloc_ucontext_resp);
DECLARE_DRV_CMD(orca_query_device_ex, IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
		empty, orca_ibv_ex_query_device_resp);
DECLARE_DRV_CMD(orca_create_ah, IB_USER_VERBS_CMD_CREATE_AH,
		empty, orca_ibv_create_ah_resp);
DECLARE_DRV_CMD(orca_create_cq, IB_USER_VERBS_CMD_CREATE_CQ,
		orca_ibv_create_cq, orca_ibv_create_cq_resp);
DECLARE_DRV_CMD(orca_resize_cq, IB_USER_VERBS_CMD_RESIZE_CQ,
		orca_ibv_create_cq, empty);
DECLARE_DRV_CMD(orca_create_cq_ex, IB_USER_VERBS_EX_CMD_CREATE_CQ,
		orca_ibv_create_cq, orca_ibv_create_cq_resp);
DECLARE_DRV_CMD(orca_create_qp_ex, IB_USER_VERBS_EX_CMD_CREATE_QP,
		orca_ibv_create_qp, orca_ibv_create_qp_resp);
DECLARE_DRV_CMD(orca_modify_qp_ex, IB_USER_VERBS_EX_CMD_MODIFY_QP,
		orca_ibv_modify_qp, orca_ibv_modify_qp_resp);
DECLARE_DRV_CMD(orca_create_srq_ex, IB_USER_VERBS_CMD_CREATE_XSRQ,
		orca_ibv_create_srq, orca_ibv_create_srq_resp);

#endif /* __ORCA_ABI_H__ */
