/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One typed wrapper per firmware command. */
#ifndef _ORCA_COM_CMD_H_
#define _ORCA_COM_CMD_H_

#include "orca_com.h"

int orca_cmd_init(struct orca_com *com, u32 flags);
int orca_cmd_query_caps(struct orca_com *com, struct orca_caps *caps);
int orca_cmd_query_clock(struct orca_com *com,
			 struct orca_query_clock_out *out);
int orca_cmd_query_port(struct orca_com *com, u8 port,
			struct orca_port_attr *attr);
int orca_cmd_query_counters(struct orca_com *com,
			    struct orca_query_counters_out *out);
int orca_cmd_query_gid_table(struct orca_com *com, u8 port, u32 start,
			     unsigned int n, u8 *gids);
int orca_cmd_query_pkey_table(struct orca_com *com, u8 port, u32 start,
			      unsigned int n, __le16 *pkeys);
int orca_cmd_mad_ifc(struct orca_com *com, const struct orca_mad_ifc_in *in,
		     struct orca_mad_ifc_out *out);
int orca_cmd_modify_port(struct orca_com *com,
			 const struct orca_modify_port_in *in);
int orca_cmd_alloc_pd(struct orca_com *com, u32 *pdn);
int orca_cmd_dealloc_pd(struct orca_com *com, u32 pdn);
int orca_cmd_create_kick_ring(struct orca_com *com, dma_addr_t addr,
			      u32 *ring);
int orca_cmd_destroy_kick_ring(struct orca_com *com, u32 ring);
int orca_cmd_create_cq(struct orca_com *com,
		       const struct orca_create_cq_in *in, u32 *cqn,
		       u32 *actual_cqe);
int orca_cmd_destroy_cq(struct orca_com *com, u32 cqn);
int orca_cmd_resize_cq(struct orca_com *com, u32 cqn,
		       const struct orca_create_cq_in *cq, u32 *actual_cqe);
int orca_cmd_create_qp(struct orca_com *com,
		       const struct orca_create_qp_in *in,
		       struct orca_qp_ctx *ctx);
int orca_cmd_modify_qp(struct orca_com *com,
		       const struct orca_modify_qp_in *in,
		       struct orca_qp_ctx *ctx);
int orca_cmd_query_qp(struct orca_com *com, u32 qpn, struct orca_qp_ctx *ctx);
int orca_cmd_destroy_qp(struct orca_com *com, u32 qpn);
int orca_cmd_mcast(struct orca_com *com, u16 opcode, u32 qpn, u16 mlid,
		   const u8 *mgid);
int orca_cmd_reg_mr(struct orca_com *com, const struct orca_reg_mr_in *in,
		    u32 *lkey, u32 *rkey);
int orca_cmd_dereg_mr(struct orca_com *com, u32 lkey);
int orca_cmd_alloc_dm(struct orca_com *com, u64 length, u8 log_align,
		      u32 *handle, u64 *bar_offset);
int orca_cmd_dealloc_dm(struct orca_com *com, u32 handle);
int orca_cmd_reg_dm_mr(struct orca_com *com,
		       const struct orca_reg_dm_mr_in *in, u32 *lkey, u32 *rkey);
int orca_cmd_alloc_mr(struct orca_com *com, u32 pdn, u32 max_pages, u32 *key);
int orca_cmd_rereg_mr(struct orca_com *com, u32 lkey,
		      const struct orca_reg_mr_in *mr);
int orca_cmd_alloc_mw(struct orca_com *com, u32 pdn, u8 type, u32 *rkey);
int orca_cmd_dealloc_mw(struct orca_com *com, u32 rkey);
int orca_cmd_create_ah(struct orca_com *com, u32 pdn,
		       const struct orca_av *av, u32 *ahn);
int orca_cmd_destroy_ah(struct orca_com *com, u32 ahn);
int orca_cmd_create_srq(struct orca_com *com,
			const struct orca_create_srq_in *in,
			struct orca_srq_attr *out);
int orca_cmd_modify_srq(struct orca_com *com, u32 srqn, u32 attr_mask,
			u32 limit);
int orca_cmd_query_srq(struct orca_com *com, u32 srqn,
		       struct orca_srq_attr *out);
int orca_cmd_destroy_srq(struct orca_com *com, u32 srqn);

#endif /* _ORCA_COM_CMD_H_ */
