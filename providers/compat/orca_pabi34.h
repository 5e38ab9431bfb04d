/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The provider is written for PABI 65, rdma-core's newest private ABI and
 * the form of its upstream series.  Three ibv_cmd_*() take one more
 * argument there than in PABI 34 (rdma-core v34..v56), which orca passes as
 * NULL (no fd array, no provider CQ buffer, no driver ioctl chain, as rxe
 * does).  Builds for PABI 34 force-include this header (providers/Makefile,
 * tests/intree_check.sh): it reads driver.h's prototypes first, then makes
 * each of the three calls drop that argument (a macro of a function's own
 * name is not expanded again in its expansion).  And rdma-core 44 lacks
 * ibv_query_qp_data_in_order(3)'s flags (in <infiniband/verbs.h> since v47):
 * ORCA_RDMA_CORE, which both builds pass, says which release it is.
 */
#ifndef ORCA_PABI34_H
#define ORCA_PABI34_H

#include <infiniband/driver.h>

#if IBVERBS_PABI_VERSION != 34
#error "orca_pabi34.h is for PABI 34 builds only"
#endif

#if !defined(ORCA_RDMA_CORE)
#error "orca_pabi34.h needs ORCA_RDMA_CORE (44 or 56)"
#elif ORCA_RDMA_CORE < 47
#define IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS (1 << 0)
#define IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG (1 << 0)
#define IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES (1 << 1)
#endif

#define ibv_cmd_get_context(ctx, cmd, cmd_size, fd_arr, resp, resp_size)      \
	ibv_cmd_get_context(ctx, cmd, cmd_size, resp, resp_size)
#define ibv_cmd_create_cq_ex(ctx, attr, prov_attr, cq, cmd, cmd_size, resp,   \
			     resp_size, flags)                                \
	ibv_cmd_create_cq_ex(ctx, attr, cq, cmd, cmd_size, resp, resp_size,   \
			     flags)
#define ibv_cmd_create_qp_ex2(ctx, qp, attr, cmd, cmd_size, resp, resp_size, \
			      driver)                                         \
	ibv_cmd_create_qp_ex2(ctx, qp, attr, cmd, cmd_size, resp, resp_size)

/* rdma-core 44's takes no driver chain (its code reads no 8th argument) */
#if ORCA_RDMA_CORE == 44
#define ibv_cmd_reg_dmabuf_mr(pd, offset, length, iova, fd, access, vmr,     \
			      driver)                                         \
	ibv_cmd_reg_dmabuf_mr(pd, offset, length, iova, fd, access, vmr)
#endif

#endif
