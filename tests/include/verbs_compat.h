/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Names newer libibverbs headers have and Debian's rdma-core 44 lacks,
 * with the upstream values (ibv_query_qp_data_in_order(3), v47+).
 */
#ifndef ORCA_TESTS_VERBS_COMPAT_H
#define ORCA_TESTS_VERBS_COMPAT_H

#include <infiniband/verbs.h>

#ifndef IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS
#define IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS (1 << 0)
#endif
#ifndef IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG
#define IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG (1 << 0)
#endif
#ifndef IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES
#define IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES (1 << 1)
#endif

#endif /* ORCA_TESTS_VERBS_COMPAT_H */
