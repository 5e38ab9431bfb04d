// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* One typed wrapper per firmware command; payload layouts in orca_hw.h. */

#include "orca_com_cmd.h"

int orca_cmd_init(struct orca_com *com, u32 flags)
{
	struct orca_init_in in = { .flags = cpu_to_le32(flags) };

	return orca_com_exec(com, ORCA_CMD_INIT, &in, sizeof(in), NULL, 0);
}

int orca_cmd_query_caps(struct orca_com *com, struct orca_caps *caps)
{
	return orca_com_exec(com, ORCA_CMD_QUERY_CAPS, NULL, 0, caps,
			     sizeof(*caps));
}

int orca_cmd_query_port(struct orca_com *com, u8 port,
			struct orca_port_attr *attr)
{
	struct orca_query_port_in in = { .port = port };

	return orca_com_exec(com, ORCA_CMD_QUERY_PORT, &in, sizeof(in), attr,
			     sizeof(*attr));
}

int orca_cmd_query_clock(struct orca_com *com,
			 struct orca_query_clock_out *out)
{
	return orca_com_exec(com, ORCA_CMD_QUERY_CLOCK, NULL, 0, out,
			     sizeof(*out));
}

int orca_cmd_query_counters(struct orca_com *com,
			    struct orca_query_counters_out *out)
{
	return orca_com_exec(com, ORCA_CMD_QUERY_COUNTERS, NULL, 0, out,
			     sizeof(*out));
}

/*
 * Entries start .. start + n - 1 of the port's GID table, ORCA_GID_LEN
 * bytes each in network order.
 */
int orca_cmd_query_gid_table(struct orca_com *com, u8 port, u32 start,
			     unsigned int n, u8 *gids)
{
	struct orca_query_table_in in = {
		.port = port,
		.start = cpu_to_le32(start),
	};

	if (WARN_ON(!n || n > ORCA_GIDS_PER_CMD))
		return -EINVAL;
	return orca_com_exec(com, ORCA_CMD_QUERY_GID_TABLE, &in, sizeof(in),
			     gids, n * ORCA_GID_LEN);
}

/* Entries start .. start + n - 1 of the port's P_Key table. */
int orca_cmd_query_pkey_table(struct orca_com *com, u8 port, u32 start,
			      unsigned int n, __le16 *pkeys)
{
	struct orca_query_table_in in = {
		.port = port,
		.start = cpu_to_le32(start),
	};

	if (WARN_ON(!n || n > ORCA_PKEYS_PER_CMD))
		return -EINVAL;
	return orca_com_exec(com, ORCA_CMD_QUERY_PKEY_TABLE, &in, sizeof(in),
			     pkeys, n * sizeof(*pkeys));
}

int orca_cmd_mad_ifc(struct orca_com *com, const struct orca_mad_ifc_in *in,
		     struct orca_mad_ifc_out *out)
{
	return orca_com_exec(com, ORCA_CMD_MAD_IFC, in, sizeof(*in), out,
			     sizeof(*out));
}

int orca_cmd_modify_port(struct orca_com *com,
			 const struct orca_modify_port_in *in)
{
	return orca_com_exec(com, ORCA_CMD_MODIFY_PORT, in, sizeof(*in), NULL,
			     0);
}

int orca_cmd_alloc_pd(struct orca_com *com, u32 *pdn)
{
	struct orca_pd_handle out;
	int err;

	err = orca_com_exec(com, ORCA_CMD_ALLOC_PD, NULL, 0, &out, sizeof(out));
	if (!err)
		*pdn = le32_to_cpu(out.pdn);
	return err;
}

int orca_cmd_dealloc_pd(struct orca_com *com, u32 pdn)
{
	struct orca_pd_handle in = { .pdn = cpu_to_le32(pdn) };

	return orca_com_exec(com, ORCA_CMD_DEALLOC_PD, &in, sizeof(in), NULL, 0);
}

int orca_cmd_create_kick_ring(struct orca_com *com, dma_addr_t addr,
			      u32 *ring)
{
	struct orca_create_kick_ring_in in = { .addr = cpu_to_le64(addr) };
	struct orca_kick_ring_handle out;
	int err;

	err = orca_com_exec(com, ORCA_CMD_CREATE_KICK_RING, &in, sizeof(in),
			    &out, sizeof(out));
	if (!err)
		*ring = le32_to_cpu(out.ring);
	return err;
}

int orca_cmd_destroy_kick_ring(struct orca_com *com, u32 ring)
{
	struct orca_kick_ring_handle in = { .ring = cpu_to_le32(ring) };

	return orca_com_exec(com, ORCA_CMD_DESTROY_KICK_RING, &in, sizeof(in),
			     NULL, 0);
}

int orca_cmd_create_cq(struct orca_com *com,
		       const struct orca_create_cq_in *in, u32 *cqn,
		       u32 *actual_cqe)
{
	struct orca_create_cq_out out;
	int err;

	err = orca_com_exec(com, ORCA_CMD_CREATE_CQ, in, sizeof(*in), &out,
			    sizeof(out));
	if (!err) {
		*cqn = le32_to_cpu(out.cqn);
		*actual_cqe = le32_to_cpu(out.cqe);
	}
	return err;
}

int orca_cmd_destroy_cq(struct orca_com *com, u32 cqn)
{
	struct orca_cq_handle in = { .cqn = cpu_to_le32(cqn) };

	return orca_com_exec(com, ORCA_CMD_DESTROY_CQ, &in, sizeof(in), NULL, 0);
}

int orca_cmd_create_qp(struct orca_com *com,
		       const struct orca_create_qp_in *in,
		       struct orca_qp_ctx *ctx)
{
	return orca_com_exec(com, ORCA_CMD_CREATE_QP, in, sizeof(*in), ctx,
			     sizeof(*ctx));
}

int orca_cmd_modify_qp(struct orca_com *com,
		       const struct orca_modify_qp_in *in,
		       struct orca_qp_ctx *ctx)
{
	return orca_com_exec(com, ORCA_CMD_MODIFY_QP, in, sizeof(*in), ctx,
			     sizeof(*ctx));
}

int orca_cmd_query_qp(struct orca_com *com, u32 qpn, struct orca_qp_ctx *ctx)
{
	struct orca_qp_handle in = { .qpn = cpu_to_le32(qpn) };

	return orca_com_exec(com, ORCA_CMD_QUERY_QP, &in, sizeof(in), ctx,
			     sizeof(*ctx));
}

int orca_cmd_destroy_qp(struct orca_com *com, u32 qpn)
{
	struct orca_qp_handle in = { .qpn = cpu_to_le32(qpn) };

	return orca_com_exec(com, ORCA_CMD_DESTROY_QP, &in, sizeof(in), NULL, 0);
}

/* ATTACH_MCAST or DETACH_MCAST (@opcode) of @qpn and (@mgid, @mlid). */
int orca_cmd_mcast(struct orca_com *com, u16 opcode, u32 qpn, u16 mlid,
		   const u8 *mgid)
{
	struct orca_mcast_in in = {
		.qpn = cpu_to_le32(qpn),
		.mlid = cpu_to_le16(mlid),
	};

	memcpy(in.mgid, mgid, sizeof(in.mgid));
	return orca_com_exec(com, opcode, &in, sizeof(in), NULL, 0);
}

int orca_cmd_reg_mr(struct orca_com *com, const struct orca_reg_mr_in *in,
		    u32 *lkey, u32 *rkey)
{
	struct orca_reg_mr_out out;
	int err;

	err = orca_com_exec(com, ORCA_CMD_REG_MR, in, sizeof(*in), &out,
			    sizeof(out));
	if (!err) {
		*lkey = le32_to_cpu(out.lkey);
		*rkey = le32_to_cpu(out.rkey);
	}
	return err;
}

int orca_cmd_dereg_mr(struct orca_com *com, u32 lkey)
{
	struct orca_mr_handle in = { .lkey = cpu_to_le32(lkey) };

	return orca_com_exec(com, ORCA_CMD_DEREG_MR, &in, sizeof(in), NULL, 0);
}

int orca_cmd_alloc_dm(struct orca_com *com, u64 length, u8 log_align,
		      u32 *handle, u64 *bar_offset)
{
	struct orca_alloc_dm_in in = {
		.length = cpu_to_le64(length),
		.log_align = log_align,
	};
	struct orca_alloc_dm_out out;
	int err;

	err = orca_com_exec(com, ORCA_CMD_ALLOC_DM, &in, sizeof(in), &out,
			    sizeof(out));
	if (!err) {
		*handle = le32_to_cpu(out.dm_handle);
		*bar_offset = le64_to_cpu(out.bar_offset);
	}
	return err;
}

int orca_cmd_dealloc_dm(struct orca_com *com, u32 handle)
{
	struct orca_dm_handle in = { .dm_handle = cpu_to_le32(handle) };

	return orca_com_exec(com, ORCA_CMD_DEALLOC_DM, &in, sizeof(in), NULL,
			     0);
}

int orca_cmd_reg_dm_mr(struct orca_com *com,
		       const struct orca_reg_dm_mr_in *in, u32 *lkey, u32 *rkey)
{
	struct orca_reg_mr_out out;
	int err;

	err = orca_com_exec(com, ORCA_CMD_REG_DM_MR, in, sizeof(*in), &out,
			    sizeof(out));
	if (!err) {
		*lkey = le32_to_cpu(out.lkey);
		*rkey = le32_to_cpu(out.rkey);
	}
	return err;
}

int orca_cmd_alloc_mr(struct orca_com *com, u32 pdn, u32 max_pages, u32 *key)
{
	struct orca_alloc_mr_in in = {
		.pdn = cpu_to_le32(pdn),
		.max_pages = cpu_to_le32(max_pages),
	};
	struct orca_reg_mr_out out;
	int err;

	err = orca_com_exec(com, ORCA_CMD_ALLOC_MR, &in, sizeof(in), &out,
			    sizeof(out));
	if (!err)
		*key = le32_to_cpu(out.lkey);
	return err;
}

int orca_cmd_alloc_mw(struct orca_com *com, u32 pdn, u8 type, u32 *rkey)
{
	struct orca_alloc_mw_in in = { .pdn = cpu_to_le32(pdn), .type = type };
	struct orca_mw_handle out;
	int err;

	err = orca_com_exec(com, ORCA_CMD_ALLOC_MW, &in, sizeof(in), &out,
			    sizeof(out));
	if (!err)
		*rkey = le32_to_cpu(out.rkey);
	return err;
}

int orca_cmd_dealloc_mw(struct orca_com *com, u32 rkey)
{
	struct orca_mw_handle in = { .rkey = cpu_to_le32(rkey) };

	return orca_com_exec(com, ORCA_CMD_DEALLOC_MW, &in, sizeof(in), NULL,
			     0);
}

int orca_cmd_create_ah(struct orca_com *com, u32 pdn,
		       const struct orca_av *av, u32 *ahn)
{
	struct orca_create_ah_in in = { .pdn = cpu_to_le32(pdn), .av = *av };
	struct orca_ah_handle out;
	int err;

	err = orca_com_exec(com, ORCA_CMD_CREATE_AH, &in, sizeof(in), &out,
			    sizeof(out));
	if (!err)
		*ahn = le32_to_cpu(out.ahn);
	return err;
}

int orca_cmd_destroy_ah(struct orca_com *com, u32 ahn)
{
	struct orca_ah_handle in = { .ahn = cpu_to_le32(ahn) };

	return orca_com_exec(com, ORCA_CMD_DESTROY_AH, &in, sizeof(in), NULL, 0);
}

int orca_cmd_rereg_mr(struct orca_com *com, u32 lkey,
		      const struct orca_reg_mr_in *mr)
{
	struct orca_rereg_mr_in in = { .lkey = cpu_to_le32(lkey), .mr = *mr };

	return orca_com_exec(com, ORCA_CMD_REREG_MR, &in, sizeof(in), NULL, 0);
}

int orca_cmd_resize_cq(struct orca_com *com, u32 cqn,
		       const struct orca_create_cq_in *cq, u32 *actual_cqe)
{
	struct orca_resize_cq_in in = { .cqn = cpu_to_le32(cqn), .cq = *cq };
	struct orca_create_cq_out out;
	int err;

	err = orca_com_exec(com, ORCA_CMD_RESIZE_CQ, &in, sizeof(in), &out,
			    sizeof(out));
	if (!err)
		*actual_cqe = le32_to_cpu(out.cqe);
	return err;
}

int orca_cmd_create_srq(struct orca_com *com,
			const struct orca_create_srq_in *in,
			struct orca_srq_attr *out)
{
	return orca_com_exec(com, ORCA_CMD_CREATE_SRQ, in, sizeof(*in), out,
			     sizeof(*out));
}

int orca_cmd_modify_srq(struct orca_com *com, u32 srqn, u32 attr_mask,
			u32 limit)
{
	struct orca_modify_srq_in in = {
		.srqn = cpu_to_le32(srqn),
		.attr_mask = cpu_to_le32(attr_mask),
		.limit = cpu_to_le32(limit),
	};

	return orca_com_exec(com, ORCA_CMD_MODIFY_SRQ, &in, sizeof(in), NULL, 0);
}

int orca_cmd_query_srq(struct orca_com *com, u32 srqn,
		       struct orca_srq_attr *out)
{
	struct orca_srq_handle in = { .srqn = cpu_to_le32(srqn) };

	return orca_com_exec(com, ORCA_CMD_QUERY_SRQ, &in, sizeof(in), out,
			     sizeof(*out));
}

int orca_cmd_destroy_srq(struct orca_com *com, u32 srqn)
{
	struct orca_srq_handle in = { .srqn = cpu_to_le32(srqn) };

	return orca_com_exec(com, ORCA_CMD_DESTROY_SRQ, &in, sizeof(in), NULL,
			     0);
}
