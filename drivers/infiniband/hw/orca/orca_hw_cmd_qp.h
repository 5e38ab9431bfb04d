/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca HCA device interface: the payloads of the queue commands: CQs,
 * QPs (types, states, attribute mask, address vector, context, CREATE,
 * MODIFY and QUERY), address handles, SRQs and multicast attach.
 * Included by orca_hw_cmd.h; the page lists are in orca_hw_cmd_mem.h.
 */
#ifndef ORCA_HW_CMD_QP_H
#define ORCA_HW_CMD_QP_H

#include "orca_hw_cmd_mem.h"

/*
 * CREATE_CQ.  The ring is 2^log_depth CQEs (struct orca_cqe) at offset 0
 * of the buffer in ring, with its struct orca_cq_dbrec at dbrec_off;
 * 2^log_depth must exceed cqe.  A CQ without a ring (ring all zero) has
 * no memory for completions: only QPs without queues can use it.
 */
/*
 * With ORCA_CQ_CREATE_TIMESTAMP (only where the caps report a clock) the
 * device stamps each CQE of the CQ with both its clocks (struct
 * orca_cqe), read as it writes the CQE.  RESIZE_CQ keeps the CQ's flags
 * and wants 0 in its own.
 */
#define ORCA_CQ_CREATE_TIMESTAMP	BIT(0)

struct orca_create_cq_in {
	__le32 cqe;			/* 0x00 requested entries */
	__le32 comp_vector;		/* 0x04 */
	__u8 log_depth;			/* 0x08 */
	__u8 flags;			/* 0x09 ORCA_CQ_CREATE_* */
	__u8 reserved[2];		/* 0x0a */
	__le32 dbrec_off;		/* 0x0c */
	struct orca_pbl ring;		/* 0x10 */
};

struct orca_create_cq_out {
	__le32 cqn;
	__le32 cqe;			/* actual entries */
};

/*
 * RESIZE_CQ input (mailbox): the CQ moves to a new ring (geometry as in
 * CREATE_CQ).  The device copies the CQEs the consumer has not read (per
 * the old doorbell record) to the start of the new ring, which the
 * consumer then reads from index 0; it refuses a ring that cannot hold
 * them.  Output: struct orca_create_cq_out (cqn, actual entries).
 */
struct orca_resize_cq_in {
	__le32 cqn;
	__le32 reserved;
	struct orca_create_cq_in cq;
};

/* DESTROY_CQ input. */
struct orca_cq_handle {
	__le32 cqn;
	__le32 reserved;
};

/* QP types and states. */
/* QPNs 0 and 1 are the IBTA special QPs; the device numbers QPs from here. */
#define ORCA_QPN_BASE			2

enum orca_qp_type {
	ORCA_QPT_RC			= 1,
	ORCA_QPT_UC			= 2,
	ORCA_QPT_UD			= 3,
	/*
	 * CREATE_QP only (ORCA_DEV_CAP_MAD_QPS): port 1's QP0 and QP1, one
	 * each.  They are UD QPs (QUERY_QP says ORCA_QPT_UD) with QPN 0 and
	 * 1 and the IBA's special rules: QP0 sends on VL15 with P_Key
	 * 0xffff (and SLID 0xffff while the port has no LID or the DLID is
	 * permissive) and takes only VL15 packets, without a P_Key or Q_Key
	 * check; QP1 takes any P_Key of the table, reports its index in the
	 * CQE and sends with the P_Key a WQE's ud_pkey_index names.  Both
	 * take 256-byte payloads (a MAD) only.
	 */
	ORCA_QPT_SMI			= 4,
	ORCA_QPT_GSI			= 5,
};

enum orca_qp_state {
	ORCA_QPS_RESET			= 0,
	ORCA_QPS_INIT			= 1,
	ORCA_QPS_RTR			= 2,
	ORCA_QPS_RTS			= 3,
	ORCA_QPS_SQD			= 4,
	ORCA_QPS_SQE			= 5,
	ORCA_QPS_ERR			= 6,
};

enum orca_mig_state {
	ORCA_MIG_MIGRATED		= 0,
	ORCA_MIG_REARM			= 1,
	ORCA_MIG_ARMED			= 2,
};

/* QP attribute mask: bit positions follow the IBTA attribute order. */
#define ORCA_QP_STATE			BIT(0)
#define ORCA_QP_CUR_STATE		BIT(1)
#define ORCA_QP_EN_SQD_ASYNC_NOTIFY	BIT(2)
#define ORCA_QP_ACCESS_FLAGS		BIT(3)
#define ORCA_QP_PKEY_INDEX		BIT(4)
#define ORCA_QP_PORT			BIT(5)
#define ORCA_QP_QKEY			BIT(6)
#define ORCA_QP_AV			BIT(7)
#define ORCA_QP_PATH_MTU		BIT(8)
#define ORCA_QP_TIMEOUT			BIT(9)
#define ORCA_QP_RETRY_CNT		BIT(10)
#define ORCA_QP_RNR_RETRY		BIT(11)
#define ORCA_QP_RQ_PSN			BIT(12)
#define ORCA_QP_MAX_QP_RD_ATOMIC	BIT(13)
#define ORCA_QP_ALT_PATH		BIT(14)
#define ORCA_QP_MIN_RNR_TIMER		BIT(15)
#define ORCA_QP_SQ_PSN			BIT(16)
#define ORCA_QP_MAX_DEST_RD_ATOMIC	BIT(17)
#define ORCA_QP_PATH_MIG_STATE		BIT(18)
#define ORCA_QP_CAP			BIT(19)
#define ORCA_QP_DEST_QPN		BIT(20)
#define ORCA_QP_ATTR_ALL		(BIT(21) - 1)

/* Address vector (IB link layer). */
#define ORCA_AV_F_GRH			BIT(0)

struct orca_av {
	__u8 dgid[16];			/* 0x00 */
	__le32 flow_label;		/* 0x10 20 bits */
	__le16 dlid;			/* 0x14 */
	__u8 sl;			/* 0x16 4 bits */
	__u8 src_path_bits;		/* 0x17 */
	__u8 static_rate;		/* 0x18 IBTA rate encoding, 0 = port rate */
	__u8 port;			/* 0x19 */
	__u8 flags;			/* 0x1a ORCA_AV_F_* */
	__u8 sgid_index;		/* 0x1b */
	__u8 hop_limit;			/* 0x1c */
	__u8 traffic_class;		/* 0x1d */
	__u8 timeout;			/* 0x1e alt path only: alt_timeout */
	__u8 pkey_index;		/* 0x1f alt path only: alt_pkey_index */
};

/*
 * QP context: every attribute the device keeps for a QP.  MODIFY_QP
 * input carries the attributes selected by attr_mask; MODIFY_QP and
 * QUERY_QP output carry the whole context as applied by the device.
 */
struct orca_qp_ctx {
	__le32 qpn;			/* 0x00 */
	__le32 dest_qpn;		/* 0x04 */
	__le32 qkey;			/* 0x08 */
	__le32 rq_psn;			/* 0x0c */
	__le32 sq_psn;			/* 0x10 */
	__le32 access_flags;		/* 0x14 ORCA_ACCESS_REMOTE_* */
	__le16 pkey_index;		/* 0x18 */
	__u8 state;			/* 0x1a ORCA_QPS_* */
	__u8 qp_type;			/* 0x1b ORCA_QPT_* */
	__u8 path_mtu;			/* 0x1c IBTA encoding */
	__u8 path_mig_state;		/* 0x1d ORCA_MIG_* */
	__u8 sq_draining;		/* 0x1e */
	__u8 en_sqd_async_notify;	/* 0x1f */
	__u8 max_rd_atomic;		/* 0x20 */
	__u8 max_dest_rd_atomic;	/* 0x21 */
	__u8 min_rnr_timer;		/* 0x22 */
	__u8 port;			/* 0x23 */
	__u8 timeout;			/* 0x24 */
	__u8 retry_cnt;			/* 0x25 */
	__u8 rnr_retry;			/* 0x26 */
	__u8 sq_sig_all;		/* 0x27 */
	__le32 max_send_wr;		/* 0x28 */
	__le32 max_recv_wr;		/* 0x2c */
	__le32 max_send_sge;		/* 0x30 */
	__le32 max_recv_sge;		/* 0x34 */
	__le32 max_inline_data;		/* 0x38 */
	__le32 create_flags;		/* 0x3c ORCA_QP_CREATE_* */
	__le32 ece_options;		/* 0x40 negotiated ECE options */
	__le32 pdn;			/* 0x44 */
	__le32 send_cqn;		/* 0x48 */
	__le32 recv_cqn;		/* 0x4c */
	struct orca_av av;		/* 0x50 */
	struct orca_av alt_av;		/* 0x70 */
	__le32 srqn;			/* 0x90 0 = none (set at create) */
	__u8 reserved[0x100 - 0x94];	/* 0x94 */
};

/*
 * CREATE_QP input (mailbox).  With a ring (ring.npages != 0) the buffer
 * holds the send queue at 0 (2^sq_log_depth WQEs of 2^sq_log_stride
 * bytes), the receive queue at rq_off and the struct orca_qp_dbrec at
 * dbrec_off; the depths must hold max_send_wr / max_recv_wr rounded up
 * to a power of two, and the strides max_*_sge and max_inline_data
 * (orca_sq_log_stride(), orca_rq_log_stride()).  A queue of 0 WRs has
 * depth and stride 0.  Without a ring the QP has no queues and carries
 * no data.  A QP with an SRQ (srqn != 0; RC, UC or UD) has no receive
 * queue of its own: max_recv_wr and max_recv_sge are 0 and its receives
 * take WQEs from the SRQ.
 */
#define ORCA_QP_CREATE_PCI_WRITE_END_PADDING	BIT(0)
/*
 * The QP's SGEs may name guest physical memory with ORCA_RESERVED_LKEY,
 * for local access only (gather, scatter, READ and atomic results), on a
 * device with ORCA_DEV_CAP_RESERVED_LKEY.  The driver asks for it only
 * for its kernel consumers, whose buffers are DMA addresses already
 * (ib_core's local_dma_lkey); mlx5's QP context bit rlky is the same.
 * On any other QP the key is refused like any unknown key.
 */
#define ORCA_QP_CREATE_RESERVED_LKEY		BIT(1)
/* Index 0 never names a region, so this key is no region's. */
#define ORCA_RESERVED_LKEY			0x000000ffU
/*
 * A UD QP whose send WQEs may carry their address vector themselves
 * (ORCA_WQE_F_UD_AV), on a device with ORCA_DEV_CAP_UD_AV: the driver's
 * kernel address handles, which must be created without sleeping (no
 * command).  The device checks each such AV as CREATE_AH checks one.
 */
#define ORCA_QP_CREATE_UD_AV			BIT(2)
/*
 * The QP may execute REG_MR WQEs (RC and UC, on a device with
 * ORCA_DEV_CAP_FAST_REG): a REG_MR maps guest physical pages, so only the
 * driver's kernel consumers may, as with ORCA_QP_CREATE_RESERVED_LKEY.
 */
#define ORCA_QP_CREATE_FAST_REG			BIT(3)
/*
 * Every post on the QP names it in kick ring kick_ring (orca_hw_io.h, on
 * a device with ORCA_DEV_CAP_KICK_RING): a kick does not make the device
 * read its doorbell record, and when that ring overflows the device
 * reads the records of that ring's QPs only, so a context that breaks
 * its ring costs only its own QPs.  kick_ring 0 (a driver that names
 * none): the QP is read at every kick, as one without the flag.
 */
#define ORCA_QP_CREATE_KICK_RING		BIT(4)

struct orca_create_qp_in {
	__u8 qp_type;			/* 0x00 ORCA_QPT_* */
	__u8 sq_sig_all;		/* 0x01 */
	__le16 kick_ring;		/* 0x02 with ORCA_QP_CREATE_KICK_RING */
	__le32 pdn;			/* 0x04 */
	__le32 send_cqn;		/* 0x08 */
	__le32 recv_cqn;		/* 0x0c */
	__le32 max_send_wr;		/* 0x10 */
	__le32 max_recv_wr;		/* 0x14 */
	__le32 max_send_sge;		/* 0x18 */
	__le32 max_recv_sge;		/* 0x1c */
	__le32 max_inline_data;		/* 0x20 */
	__le32 create_flags;		/* 0x24 ORCA_QP_CREATE_* */
	__u8 sq_log_depth;		/* 0x28 */
	__u8 sq_log_stride;		/* 0x29 */
	__u8 rq_log_depth;		/* 0x2a */
	__u8 rq_log_stride;		/* 0x2b */
	__le32 rq_off;			/* 0x2c */
	struct orca_pbl ring;		/* 0x30 */
	__le32 dbrec_off;		/* 0x40 */
	__le32 srqn;			/* 0x44 0 = receive queue of its own */
};

/* CREATE_QP output (mailbox): the new QP's context in RESET. */

/* MODIFY_QP input (mailbox). */
#define ORCA_MODIFY_F_ECE		BIT(0)	/* ece_options valid */

struct orca_modify_qp_in {
	__le32 qpn;			/* 0x00 */
	__le32 attr_mask;		/* 0x04 ORCA_QP_* */
	__u8 cur_state;			/* 0x08 with ORCA_QP_CUR_STATE */
	__u8 reserved0[3];		/* 0x09 */
	__le32 flags;			/* 0x0c ORCA_MODIFY_F_* */
	__le32 ece_options;		/* 0x10 requested ECE options */
	__u8 reserved1[12];		/* 0x14 */
	struct orca_qp_ctx ctx;		/* 0x20 attributes per attr_mask */
};

/* MODIFY_QP output (mailbox): struct orca_qp_ctx as applied. */

/*
 * CREATE_AH: an address vector the device keeps, for UD send WQEs
 * (ud_ah).  A WQE may only use an AH of its QP's PD.
 */
struct orca_create_ah_in {
	__le32 pdn;			/* 0x00 */
	__le32 reserved;		/* 0x04 */
	struct orca_av av;		/* 0x08 */
};

/* CREATE_AH output, DESTROY_AH input. */
struct orca_ah_handle {
	__le32 ahn;
	__le32 reserved;
};

/*
 * CREATE_SRQ input (mailbox).  The ring is 2^log_depth receive WQEs
 * (struct orca_recv_wqe and max_sge SGEs) of 2^log_stride bytes at offset
 * 0 of the buffer in ring, with its struct orca_srq_dbrec at dbrec_off.
 * 2^log_depth must hold max_wr (1..max_srq_wr); max_sge <= max_srq_sge;
 * the stride must hold max_sge SGEs (orca_rq_log_stride()).  A limit
 * (<= max_wr, 0 = none) arms the SRQ limit event at once.  The device
 * rounds max_wr up to a power of two (capped at max_srq_wr).
 */
struct orca_create_srq_in {
	__le32 pdn;			/* 0x00 */
	__le32 max_wr;			/* 0x04 */
	__le32 max_sge;			/* 0x08 */
	__le32 limit;			/* 0x0c */
	__u8 log_depth;			/* 0x10 */
	__u8 log_stride;		/* 0x11 */
	__u8 reserved[2];		/* 0x12 */
	__le32 dbrec_off;		/* 0x14 */
	struct orca_pbl ring;		/* 0x18 */
};

/*
 * CREATE_SRQ and QUERY_SRQ output: the SRQ's number and attributes as
 * applied; limit is 0 while the limit event is not armed.
 */
struct orca_srq_attr {
	__le32 srqn;
	__le32 max_wr;
	__le32 max_sge;
	__le32 limit;
};

/*
 * MODIFY_SRQ input.  ORCA_SRQ_LIMIT arms the limit event with limit
 * (<= max_wr; 0 disarms): once a QP takes a WQE and fewer than limit
 * remain posted, the device posts ORCA_EQE_SRQ_LIMIT and disarms.  The
 * device cannot resize an SRQ: ORCA_SRQ_MAX_WR is UNSUPPORTED.  The mask
 * bits are those of IB_SRQ_MAX_WR / IB_SRQ_LIMIT.
 */
#define ORCA_SRQ_MAX_WR			BIT(0)
#define ORCA_SRQ_LIMIT			BIT(1)

struct orca_modify_srq_in {
	__le32 srqn;
	__le32 attr_mask;		/* ORCA_SRQ_* */
	__le32 max_wr;
	__le32 limit;
};

/*
 * QUERY_SRQ / DESTROY_SRQ input.  DESTROY_SRQ fails with BAD_RES_STATE
 * while a QP uses the SRQ.
 */
struct orca_srq_handle {
	__le32 srqn;
	__le32 reserved;
};

/* QUERY_QP / DESTROY_QP input. */
struct orca_qp_handle {
	__le32 qpn;
	__le32 reserved;
};

/* QUERY_QP output (mailbox): struct orca_qp_ctx. */

/*
 * ATTACH_MCAST / DETACH_MCAST input (max_mcast_grp > 0, else
 * UNSUPPORTED): a UD QP joins or leaves the port's multicast group
 * (MGID, MLID).  A UD packet to the MLID with DestQP 0xffffff, and with a
 * GRH to that MGID, is then delivered to every attached QP, each taking
 * its own receive WQE and checking its own P_Key and Q_Key, the sender's
 * own QPs too (IBA 10.5.2.4, 11.4.2.4; there is no loopback blocking).
 * A group exists while a QP is attached, at most max_mcast_grp of them,
 * max_mcast_qp_attach QPs in each and max_total_mcast_qp_attach in all
 * (NO_RESOURCES past a limit).  Attaching a QP twice is no error and
 * attaches it once; detaching one that is not attached is BAD_PARAM.
 * DESTROY_QP and RESET detach.
 */
#define ORCA_MCAST_QPN		0xffffff	/* DestQP of a multicast packet */
#define ORCA_MLID_MIN		0xc000
#define ORCA_MLID_MAX		0xfffe		/* 0xffff is the permissive LID */

struct orca_mcast_in {
	__le32 qpn;			/* 0x00 a UD QP, 2 or above */
	__le16 mlid;			/* 0x04 ORCA_MLID_MIN..ORCA_MLID_MAX */
	__u8 reserved[2];		/* 0x06 */
	__u8 mgid[16];			/* 0x08 first byte 0xff */
};

/* Layout checks (C11; both the kernel and the emulator build these) */
static_assert(sizeof(struct orca_av) == 0x20, "orca_av");
static_assert(sizeof(struct orca_mcast_in) == 0x18, "orca_mcast_in");
static_assert(sizeof(struct orca_qp_ctx) == 0x100, "orca_qp_ctx");
static_assert(sizeof(struct orca_create_qp_in) == 0x48, "orca_create_qp_in");
static_assert(sizeof(struct orca_create_cq_in) == 0x20, "orca_create_cq_in");
static_assert(sizeof(struct orca_resize_cq_in) == 0x28, "orca_resize_cq_in");
static_assert(sizeof(struct orca_create_ah_in) == 0x28, "orca_create_ah_in");
static_assert(sizeof(struct orca_modify_qp_in) == 0x120, "orca_modify_qp_in");
static_assert(sizeof(struct orca_create_srq_in) == 0x28, "orca_create_srq_in");
static_assert(sizeof(struct orca_srq_attr) == 0x10, "orca_srq_attr");
static_assert(sizeof(struct orca_modify_srq_in) == 0x10, "orca_modify_srq_in");
static_assert(sizeof(struct orca_srq_handle) == 8, "orca_srq_handle");

#endif /* ORCA_HW_CMD_QP_H */
