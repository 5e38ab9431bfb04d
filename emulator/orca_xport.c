// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: what the requester, responder and completer share:
 * a packet's routing headers from an address vector or a QP's path, and
 * the CQE opcode of a work request.
 */
#include "orca_xport.h"

uint8_t wr_to_cqe_opcode(uint8_t wr_opcode)
{
	switch (wr_opcode) {
	case ORCA_WR_RDMA_WRITE:
	case ORCA_WR_RDMA_WRITE_WITH_IMM:
		return ORCA_CQE_OP_RDMA_WRITE;
	case ORCA_WR_RDMA_READ:
		return ORCA_CQE_OP_RDMA_READ;
	case ORCA_WR_ATOMIC_CMP_AND_SWP:
		return ORCA_CQE_OP_COMP_SWAP;
	case ORCA_WR_ATOMIC_FETCH_AND_ADD:
		return ORCA_CQE_OP_FETCH_ADD;
	case ORCA_WR_ATOMIC_WRITE:
		return ORCA_CQE_OP_ATOMIC_WRITE;
	case ORCA_WR_BIND_MW:
		return ORCA_CQE_OP_BIND_MW;
	case ORCA_WR_LOCAL_INV:
		return ORCA_CQE_OP_LOCAL_INV;
	case ORCA_WR_REG_MR:
		return ORCA_CQE_OP_REG_MR;
	}
	return ORCA_CQE_OP_SEND;
}

/* Routing headers (LRH, GRH) from an address vector. */
void av_address(struct orca_dev *dev, const struct orca_av *av,
		struct orca_pkt *p)
{
	p->dlid = le16toh(av->dlid);
	p->slid = dev->cfg.lid | (av->src_path_bits &
				  ((1U << dev->cfg.lmc) - 1));
	p->sl = av->sl;
	if (av->flags & ORCA_AV_F_GRH) {
		p->hdrs |= PKT_GRH;
		memcpy(p->dgid, av->dgid, 16);
		orca_gid_entry(&dev->cfg, av->sgid_index, p->sgid);
	}
}

/* Routing headers, P_Key and destination from the QP's path. */
void qp_address(struct orca_dev *dev, struct orca_qp *qp, struct orca_pkt *p)
{
	av_address(dev, &qp->ctx.av, p);
	p->pkey = qp_pkey(dev, qp);
	p->dqpn = le32toh(qp->ctx.dest_qpn);
}
