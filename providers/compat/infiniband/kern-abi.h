/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Standalone replacement for rdma-core's libibverbs/kern-abi.h, for building
 * the orca provider against libibverbs 44, 56 or 65 (IBVERBS_PRIVATE_34 and
 * _65; the wrappers and the kernel structs they hold are the same in all
 * three) without the rdma-core source tree.  Only the command wrappers the orca
 * provider hands to ibv_cmd_*() are declared.  In-tree builds never see this
 * file.
 *
 * Wire contract with libibverbs: a request is
 *	[ib_uverbs_cmd_hdr or ex_hdr][kernel core struct][driver payload]
 * and a response is
 *	[kernel core response][driver payload].
 * libibverbs finds the driver payload at cmd + sizeof(wrapper) and at
 * resp + sizeof(core response), so no padding may appear between the parts;
 * every wrapper is size-checked below.
 *
 * Only the named members (core_payload, ibv_cmd, ibv_resp, drv_payload) are
 * provided.  Upstream additionally unions in anonymous copies of the fields
 * (generated kernel-abi/ headers); code that uses the named members only
 * compiles unchanged against both.
 */
#ifndef ORCA_COMPAT_KERN_ABI_H
#define ORCA_COMPAT_KERN_ABI_H

#include <assert.h>
#include <linux/types.h>
#include <rdma/ib_user_verbs.h>

#define IB_USER_VERBS_MIN_ABI_VERSION	3
#define IB_USER_VERBS_MAX_ABI_VERSION	6

struct ex_hdr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex_hdr;
};

#define IBV_ABI_REQ(_enum) _ABI_REQ_STRUCT_##_enum
#define IBV_KABI_REQ(_enum) _KABI_REQ_STRUCT_##_enum
#define IBV_KABI_RESP(_enum) _KABI_RESP_STRUCT_##_enum
#define IBV_ABI_ALIGN(_enum) _ABI_ALIGN_##_enum

#define DECLARE_CMDX(_enum, _name, _kabi, _kabi_resp)                          \
	struct _name {                                                         \
		struct ib_uverbs_cmd_hdr hdr;                                  \
		struct _kabi core_payload;                                     \
	};                                                                     \
	typedef struct _name IBV_ABI_REQ(_enum);                               \
	typedef struct _kabi IBV_KABI_REQ(_enum);                              \
	typedef struct _kabi_resp IBV_KABI_RESP(_enum);                        \
	enum { IBV_ABI_ALIGN(_enum) = 4 };                                     \
	static_assert(sizeof(struct _kabi_resp) % 4 == 0,                      \
		      "Bad resp alignment");                                   \
	static_assert(sizeof(struct _name) ==                                  \
			      sizeof(struct ib_uverbs_cmd_hdr) +               \
				      sizeof(struct _kabi),                    \
		      "Bad size")
#define DECLARE_CMD(_enum, _name, _kabi)                                       \
	DECLARE_CMDX(_enum, _name, _kabi, _kabi##_resp)

#define DECLARE_CMD_EXX(_enum, _name, _kabi, _kabi_resp)                       \
	struct _name {                                                         \
		struct ex_hdr hdr;                                             \
		struct _kabi core_payload;                                     \
	};                                                                     \
	typedef struct _name IBV_ABI_REQ(_enum);                               \
	typedef struct _kabi IBV_KABI_REQ(_enum);                              \
	typedef struct _kabi_resp IBV_KABI_RESP(_enum);                        \
	enum { IBV_ABI_ALIGN(_enum) = 8 };                                     \
	static_assert(sizeof(struct _kabi) % 8 == 0, "Bad req alignment");     \
	static_assert(sizeof(struct _kabi_resp) % 8 == 0,                      \
		      "Bad resp alignment");                                   \
	static_assert(sizeof(struct _name) ==                                  \
			      sizeof(struct ex_hdr) + sizeof(struct _kabi),    \
		      "Bad size")
#define DECLARE_CMD_EX(_enum, _name, _kabi)                                    \
	DECLARE_CMD_EXX(_enum, _name, _kabi, _kabi##_resp)

/* A direction without driver data (GNU C: sizeof == 0) */
struct empty {};

DECLARE_CMD(IB_USER_VERBS_CMD_ALLOC_PD, ibv_alloc_pd, ib_uverbs_alloc_pd);
DECLARE_CMD(IB_USER_VERBS_CMD_ALLOC_MW, ibv_alloc_mw, ib_uverbs_alloc_mw);
DECLARE_CMD(IB_USER_VERBS_CMD_CREATE_CQ, ibv_create_cq, ib_uverbs_create_cq);
DECLARE_CMD(IB_USER_VERBS_CMD_CREATE_QP, ibv_create_qp, ib_uverbs_create_qp);
DECLARE_CMD(IB_USER_VERBS_CMD_GET_CONTEXT, ibv_get_context,
	    ib_uverbs_get_context);
DECLARE_CMDX(IB_USER_VERBS_CMD_MODIFY_QP, ibv_modify_qp, ib_uverbs_modify_qp,
	     empty);
DECLARE_CMD(IB_USER_VERBS_CMD_QUERY_PORT, ibv_query_port,
	    ib_uverbs_query_port);
DECLARE_CMD(IB_USER_VERBS_CMD_QUERY_QP, ibv_query_qp, ib_uverbs_query_qp);
DECLARE_CMD(IB_USER_VERBS_CMD_REG_MR, ibv_reg_mr, ib_uverbs_reg_mr);
DECLARE_CMD(IB_USER_VERBS_CMD_REREG_MR, ibv_rereg_mr, ib_uverbs_rereg_mr);
DECLARE_CMD(IB_USER_VERBS_CMD_RESIZE_CQ, ibv_resize_cq, ib_uverbs_resize_cq);
DECLARE_CMD(IB_USER_VERBS_CMD_CREATE_AH, ibv_create_ah, ib_uverbs_create_ah);
DECLARE_CMD(IB_USER_VERBS_CMD_CREATE_SRQ, ibv_create_srq,
	    ib_uverbs_create_srq);
DECLARE_CMDX(IB_USER_VERBS_CMD_CREATE_XSRQ, ibv_create_xsrq,
	     ib_uverbs_create_xsrq, ib_uverbs_create_srq_resp);
DECLARE_CMDX(IB_USER_VERBS_CMD_MODIFY_SRQ, ibv_modify_srq,
	     ib_uverbs_modify_srq, empty);
DECLARE_CMD(IB_USER_VERBS_CMD_QUERY_SRQ, ibv_query_srq, ib_uverbs_query_srq);

DECLARE_CMD_EX(IB_USER_VERBS_EX_CMD_CREATE_CQ, ibv_create_cq_ex,
	       ib_uverbs_ex_create_cq);
DECLARE_CMD_EX(IB_USER_VERBS_EX_CMD_CREATE_QP, ibv_create_qp_ex,
	       ib_uverbs_ex_create_qp);
DECLARE_CMD_EX(IB_USER_VERBS_EX_CMD_MODIFY_QP, ibv_modify_qp_ex,
	       ib_uverbs_ex_modify_qp);
DECLARE_CMD_EX(IB_USER_VERBS_EX_CMD_QUERY_DEVICE, ibv_query_device_ex,
	       ib_uverbs_ex_query_device);

/*
 * Driver command = generic wrapper + driver payload; driver response = kernel
 * core response + driver payload.  Same spelling and member names as
 * upstream's DECLARE_DRV_CMD.
 */
#define DECLARE_DRV_CMD(_name, _enum, _kabi_req, _kabi_resp)                   \
	struct _name {                                                         \
		IBV_ABI_REQ(_enum) ibv_cmd;                                    \
		struct _kabi_req drv_payload;                                  \
	};                                                                     \
	struct _name##_resp {                                                  \
		IBV_KABI_RESP(_enum) ibv_resp;                                 \
		struct _kabi_resp drv_payload;                                 \
	};                                                                     \
	static_assert(sizeof(IBV_KABI_REQ(_enum)) %                            \
			      __alignof__(struct _kabi_req) == 0,              \
		      "Bad kabi req struct length");                           \
	static_assert(sizeof(struct _name) ==                                  \
			      sizeof(IBV_ABI_REQ(_enum)) +                     \
				      sizeof(struct _kabi_req),                \
		      "Bad req size");                                         \
	static_assert(sizeof(struct _name) % IBV_ABI_ALIGN(_enum) == 0,        \
		      "Bad kabi req alignment");                               \
	static_assert(sizeof(IBV_KABI_RESP(_enum)) %                           \
			      __alignof__(struct _kabi_resp) == 0,             \
		      "Bad kabi resp struct length");                          \
	static_assert(sizeof(struct _name##_resp) ==                           \
			      sizeof(IBV_KABI_RESP(_enum)) +                   \
				      sizeof(struct _kabi_resp),               \
		      "Bad resp size");                                        \
	static_assert(sizeof(struct _name##_resp) % IBV_ABI_ALIGN(_enum) == 0, \
		      "Bad kabi resp alignment")

/*
 * Sizes measured for libibverbs 44 (x86_64); see provider-abi.md 1.3.  The
 * same against 56's and 65's own headers (tests/intree_check.sh).
 */
static_assert(sizeof(struct ex_hdr) == 24, "ex_hdr");
static_assert(sizeof(struct ibv_get_context) == 16, "ibv_get_context");
static_assert(sizeof(struct ibv_query_port) == 24, "ibv_query_port");
static_assert(sizeof(struct ibv_alloc_pd) == 16, "ibv_alloc_pd");
static_assert(sizeof(struct ib_uverbs_alloc_pd_resp) == 4, "alloc_pd_resp");
static_assert(sizeof(struct ibv_create_cq) == 40, "ibv_create_cq");
static_assert(sizeof(struct ib_uverbs_create_cq_resp) == 8, "create_cq_resp");
static_assert(sizeof(struct ibv_create_qp) == 64, "ibv_create_qp");
static_assert(sizeof(struct ibv_create_qp_ex) == 88, "ibv_create_qp_ex");
static_assert(sizeof(struct ib_uverbs_ex_create_qp_resp) == 40,
	      "ex_create_qp_resp");
static_assert(sizeof(struct ibv_modify_qp) == 120, "ibv_modify_qp");
static_assert(sizeof(struct ibv_modify_qp_ex) == 144, "ibv_modify_qp_ex");
static_assert(sizeof(struct ib_uverbs_ex_modify_qp_resp) == 8,
	      "ex_modify_qp_resp");
static_assert(sizeof(struct ibv_query_qp) == 24, "ibv_query_qp");
static_assert(sizeof(struct ibv_create_srq) == 40, "ibv_create_srq");
static_assert(sizeof(struct ibv_create_xsrq) == 56, "ibv_create_xsrq");
static_assert(sizeof(struct ib_uverbs_create_srq_resp) == 16,
	      "create_srq_resp");
static_assert(sizeof(struct ibv_modify_srq) == 24, "ibv_modify_srq");
static_assert(sizeof(struct ibv_query_srq) == 24, "ibv_query_srq");
static_assert(sizeof(struct ib_uverbs_ex_query_device_resp) == 304,
	      "ex_query_device_resp");

#endif /* ORCA_COMPAT_KERN_ABI_H */
