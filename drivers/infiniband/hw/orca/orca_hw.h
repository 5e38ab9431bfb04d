/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca HCA device interface: register block, command queue, event queue,
 * commands and their payloads.
 *
 * This header is the single definition of the wire format.  It is compiled
 * by the Linux driver and by the device model (emulator), so it uses only
 * <linux/types.h> fixed-width little-endian types and plain constants.
 * Documentation/infiniband/orca.rst describes the protocol around it.
 */
#ifndef ORCA_HW_H
#define ORCA_HW_H

#include <linux/types.h>

#include "orca_hw_io.h"

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/build_bug.h>
#else
#include <assert.h>
#ifndef BIT
#define BIT(nr)				(1UL << (nr))
#endif
#endif

/* ------------------------------------------------------------------ */
/* PCI function and BAR2 register block                               */
/* ------------------------------------------------------------------ */

#define ORCA_PCI_VENDOR_ID		0x1af4	/* ivshmem (QEMU) */
#define ORCA_PCI_DEVICE_ID		0x1110
#define ORCA_BAR_DOORBELL		0	/* ivshmem BAR0: doorbell register */
#define ORCA_BAR_REGS			2	/* ivshmem BAR2: register block */
#define ORCA_IVSHMEM_DOORBELL		0x0c	/* BAR0 offset */

#define ORCA_MAGIC			0x3141434841435230ULL /* "0RCAHCA1" */
#define ORCA_IF_VERSION			1

/* Doorbell vectors of the firmware peer (what the driver rings). */
#define ORCA_FW_VEC_CMDQ		0	/* new commands up to cmdq_pi */
#define ORCA_FW_VEC_EQ			1	/* eq_ci advanced (space freed) */
#define ORCA_FW_VEC_DB			2	/* doorbell records changed */
#define ORCA_FW_NUM_VECS		3

/* MSI-X vectors of the function (what the device raises). */
#define ORCA_MSIX_EQ			0	/* event queue 0 */
#define ORCA_MSIX_COMP			1	/* completion event queue */
#define ORCA_NUM_MSIX			2
/* vectors= of ivshmem-doorbell: the larger of both peers' counts */
#define ORCA_IVSHMEM_VECTORS		3

/* health */
#define ORCA_HEALTH_OK			0
#define ORCA_HEALTH_FATAL		1

/* heartbeat: the firmware increments it at least this often */
#define ORCA_HEARTBEAT_PERIOD_MS	100

/*
 * Register block at BAR2 offset 0.  "fw" fields are written by the device,
 * "drv" fields by the driver.  The device samples drv fields when a
 * doorbell arrives; RESET clears them on the device side.
 */
struct orca_regs {
	__le64 magic;			/* 0x000 fw: ORCA_MAGIC */
	__le32 if_version;		/* 0x008 fw: ORCA_IF_VERSION */
	__le32 fw_peer_id;		/* 0x00c fw: ivshmem peer id to ring */
	__le64 fw_version;		/* 0x010 fw: ORCA_FW_VERSION() */
	__le64 heartbeat;		/* 0x018 fw: +1 per period */
	__le32 health;			/* 0x020 fw: ORCA_HEALTH_* */
	__le32 fatal_syndrome;		/* 0x024 fw: ORCA_FATAL_* */
	__le64 generation;		/* 0x028 fw: +1 per host connection */
	__le64 cmdq_base;		/* 0x030 drv: DMA address of the ring */
	__le32 cmdq_log_depth;		/* 0x038 drv: log2 of entries */
	__le32 cmdq_pi;			/* 0x03c drv: producer index (doorbell record) */
	__le32 cmdq_ci;			/* 0x040 fw: consumer index */
	__le32 eq_log_depth;		/* 0x044 drv: log2 of EQ entries */
	__le64 eq_base;			/* 0x048 drv: DMA address of EQ 0 */
	__le32 eq_pi;			/* 0x050 fw: producer index */
	__le32 eq_ci;			/* 0x054 drv: consumer index */
	__le64 qp_mirror_base;		/* 0x058 drv: DMA address of the QP state mirror */
	__le32 qp_mirror_entries;	/* 0x060 drv: entries, indexed by QPN */
	__le32 eq_overflows;		/* 0x064 fw: async events dropped, EQ full */
	__le64 ram_size;		/* 0x068 fw: bytes of host memory reachable by DMA */
	__u8 fw_name[32];		/* 0x070 fw: NUL-terminated */
	__le32 dev_ctl;			/* 0x090 drv: ORCA_DEV_CTL_* */
	__le32 dev_sts;			/* 0x094 fw: ORCA_DEV_STS_* */
	__le64 ceq_base;		/* 0x098 drv: completion EQ, 0 = none */
	__le32 ceq_log_depth;		/* 0x0a0 drv */
	__le32 ceq_pi;			/* 0x0a4 fw */
	__le32 ceq_ci;			/* 0x0a8 drv */
	__le32 ceq_overflows;		/* 0x0ac fw: completion events dropped */
	__u8 reserved[0x1000 - 0xb0];
};

/*
 * Function reset and queue enable, through the register block so that
 * they work when the command queue does not.  The device samples dev_ctl
 * before anything else on every doorbell and every heartbeat period.
 *
 * Reset: the driver writes dev_ctl = ORCA_DEV_CTL_RESET and rings
 * ORCA_FW_VEC_CMDQ.  The device destroys every object, drops every
 * command and completion it still holds, forgets the queue and mirror
 * addresses it latched, and only then sets ORCA_DEV_STS_RESET_DONE.
 * From then on it performs no DMA until the queues are enabled again,
 * so the driver may free the queue memory once it sees RESET_DONE (and
 * must not before).
 *
 * Enable: with the cmdq_*, eq_* and ceq_* registers programmed, the driver
 * writes dev_ctl = ORCA_DEV_CTL_ENABLE.  The device latches those
 * registers once (later writes to them are ignored until the next reset)
 * and sets ORCA_DEV_STS_ENABLED instead of RESET_DONE.
 */
#define ORCA_DEV_CTL_RESET		BIT(0)
#define ORCA_DEV_CTL_ENABLE		BIT(1)

#define ORCA_DEV_STS_RESET_DONE		BIT(0)
#define ORCA_DEV_STS_ENABLED		BIT(1)

/* 16 bits each, as libibverbs decodes the core fw_ver */
#define ORCA_FW_VERSION(maj, min, sub) \
	(((__u64)(maj) << 32) | ((__u64)(min) << 16) | (__u64)(sub))
#define ORCA_FW_VERSION_MAJOR(v)	((__u32)((v) >> 32))
#define ORCA_FW_VERSION_MINOR(v)	((__u32)(((v) >> 16) & 0xffff))
#define ORCA_FW_VERSION_SUB(v)		((__u32)((v) & 0xffff))

/* ------------------------------------------------------------------ */
/* Command queue                                                      */
/* ------------------------------------------------------------------ */

#define ORCA_CMDQ_LOG_DEPTH		6	/* 64 entries, 64 outstanding */
#define ORCA_CMDQ_MAX_LOG_DEPTH		8
#define ORCA_CMD_INLINE_IN		32
#define ORCA_CMD_INLINE_OUT		40
#define ORCA_MBOX_SIZE			4096

/*
 * Payload lengths (forward compatibility).  Every payload struct may grow
 * at its end in a later interface revision.  The device accepts any
 * in_len at least the size it knows, if the bytes beyond that size are
 * zero (a non-zero tail asks for something it does not understand:
 * BAD_PARAM / RESERVED_NZ).  It writes min(out_len, size it knows) bytes
 * of output and reports that count in the completion; a driver accepts
 * any count at least the size of the first revision of the struct and
 * treats the bytes it did not receive as zero.
 *
 * Command queue entry, in host memory.  The driver fills entry
 * (pi % depth), then publishes pi in cmdq_pi and rings ORCA_FW_VEC_CMDQ.
 * The device copies the entry when it consumes it and advances cmdq_ci,
 * so an entry is free again once consumed even if its command is still
 * executing.  Commands may complete in any order; the token matches a
 * completion to its command.
 *
 * Input is inline when in_mbox is 0 (in_len <= ORCA_CMD_INLINE_IN), else
 * in the mailbox page at in_mbox.  Output is inline in the completion
 * EQE when out_mbox is 0 (out_len <= ORCA_CMD_INLINE_OUT), else written
 * to the mailbox page at out_mbox before the completion is posted.
 */
struct orca_cmdq_entry {
	__le16 opcode;			/* ORCA_CMD_* */
	__le16 token;
	__le16 in_len;
	__le16 out_len;			/* room the driver offers */
	__le64 in_mbox;
	__le64 out_mbox;
	__le64 reserved;
	__u8 inline_in[ORCA_CMD_INLINE_IN];
};

enum orca_cmd_opcode {
	ORCA_CMD_RESET			= 0x01,
	ORCA_CMD_INIT			= 0x02,
	ORCA_CMD_TEARDOWN		= 0x03,
	ORCA_CMD_QUERY_CAPS		= 0x04,
	ORCA_CMD_QUERY_PORT		= 0x05,
	ORCA_CMD_QUERY_GID_TABLE	= 0x06,
	ORCA_CMD_QUERY_PKEY_TABLE	= 0x07,
	ORCA_CMD_ALLOC_PD		= 0x10,
	ORCA_CMD_DEALLOC_PD		= 0x11,
	ORCA_CMD_CREATE_CQ		= 0x20,
	ORCA_CMD_DESTROY_CQ		= 0x21,
	ORCA_CMD_CREATE_QP		= 0x30,
	ORCA_CMD_MODIFY_QP		= 0x31,
	ORCA_CMD_QUERY_QP		= 0x32,
	ORCA_CMD_DESTROY_QP		= 0x33,
	ORCA_CMD_REG_MR			= 0x40,
	ORCA_CMD_DEREG_MR		= 0x41,
	ORCA_CMD_CREATE_AH		= 0x50,
	ORCA_CMD_DESTROY_AH		= 0x51,
};

/* Completion status.  The syndrome is a device-specific detail code. */
enum orca_cmd_status {
	ORCA_STATUS_OK			= 0x00,
	ORCA_STATUS_BAD_OPCODE		= 0x01,	/* -EOPNOTSUPP */
	ORCA_STATUS_BAD_PARAM		= 0x02,	/* -EINVAL */
	ORCA_STATUS_BAD_RESOURCE	= 0x03,	/* -EINVAL: no such handle */
	ORCA_STATUS_BAD_RES_STATE	= 0x04,	/* -EBUSY: handle in use */
	ORCA_STATUS_BAD_QP_STATE	= 0x05,	/* -EINVAL: transition not allowed */
	ORCA_STATUS_NO_RESOURCES	= 0x06,	/* -ENOMEM: a device limit was hit */
	ORCA_STATUS_UNSUPPORTED		= 0x07,	/* -EOPNOTSUPP: feature not enabled */
	ORCA_STATUS_BAD_LEN		= 0x08,	/* -EIO: driver/device disagree */
	ORCA_STATUS_DMA_FAULT		= 0x09,	/* -EFAULT: bad host address */
	ORCA_STATUS_NOT_READY		= 0x0a,	/* -EAGAIN: INIT not done */
	ORCA_STATUS_INTERNAL		= 0x0b,	/* -EIO */
};

/* Syndromes: which check failed (logged by the driver, never parsed). */
enum orca_syndrome {
	ORCA_SYND_NONE			= 0,
	ORCA_SYND_IN_LEN		= 1,
	ORCA_SYND_OUT_LEN		= 2,
	ORCA_SYND_IN_ADDR		= 3,
	ORCA_SYND_OUT_ADDR		= 4,
	ORCA_SYND_QUEUE_ADDR		= 5,
	ORCA_SYND_LIMIT			= 6,
	ORCA_SYND_HANDLE		= 7,
	ORCA_SYND_IN_USE		= 8,
	ORCA_SYND_QP_TYPE		= 9,
	ORCA_SYND_TRANSITION		= 10,
	ORCA_SYND_MISSING_ATTR		= 11,
	ORCA_SYND_INVALID_ATTR		= 12,
	ORCA_SYND_ATTR_RANGE		= 13,
	ORCA_SYND_FLAGS			= 14,
	ORCA_SYND_ECE			= 15,
	ORCA_SYND_RESERVED_NZ		= 16,	/* reserved field not zero */
	ORCA_SYND_NOT_INIT		= 17,
	ORCA_SYND_PAGE_LIST		= 18,	/* bad page list entry */
	ORCA_SYND_RING			= 19,	/* ring geometry or buffer */
};

/* ------------------------------------------------------------------ */
/* Event queue                                                        */
/* ------------------------------------------------------------------ */

#define ORCA_EQ_LOG_DEPTH		8	/* 256 entries */

enum orca_eqe_type {
	ORCA_EQE_CMD_DONE		= 0x01,
	ORCA_EQE_QP_EVENT		= 0x02,
	ORCA_EQE_PORT_EVENT		= 0x03,
	ORCA_EQE_CQ_ERROR		= 0x04,
	ORCA_EQE_DEVICE_FATAL		= 0x05,
	ORCA_EQE_COMP			= 0x06,	/* completion EQ only */
};

enum orca_qp_event {
	ORCA_QP_EV_FATAL		= 0x01,	/* QP moved to ERR by the device */
	ORCA_QP_EV_SQ_DRAINED		= 0x02,	/* SQD: send queue drained */
	ORCA_QP_EV_SQ_ERROR		= 0x03,	/* QP moved to SQE */
	ORCA_QP_EV_REQ_ERR		= 0x04,	/* invalid request, QP to ERR */
	ORCA_QP_EV_ACCESS_ERR		= 0x05,	/* access violation, QP to ERR */
	ORCA_QP_EV_COMM_EST		= 0x06,
	ORCA_QP_EV_LAST_WQE_REACHED	= 0x07,
};

enum orca_port_event {
	ORCA_PORT_EV_ACTIVE		= 0x01,
	ORCA_PORT_EV_DOWN		= 0x02,
};

struct orca_eqe_cmd_done {
	__le16 token;
	__u8 status;			/* ORCA_STATUS_* */
	__u8 reserved;
	__le32 syndrome;
	__le16 out_len;			/* bytes the device wrote */
	__u8 reserved2[6];
	__u8 inline_out[ORCA_CMD_INLINE_OUT];
};

struct orca_eqe_qp_event {
	__le32 qpn;
	__u8 event;			/* ORCA_QP_EV_* */
	__u8 state;			/* ORCA_QPS_* after the event */
	__u8 reserved[2];
	__le32 mirror_seq;		/* seq of the mirror entry written */
};

struct orca_eqe_port_event {
	__u8 port;
	__u8 event;			/* ORCA_PORT_EV_* */
	__u8 reserved[2];
};

struct orca_eqe_cq_error {
	__le32 cqn;
	__le32 syndrome;
};

/*
 * Completion event: a CQE was written to an armed CQ (orca_hw_io.h, CQ
 * arming).  Posted to the completion EQ (ceq_*), which works like EQ 0:
 * the device writes the entry, advances ceq_pi and raises ORCA_MSIX_COMP;
 * the driver consumes up to ceq_pi and publishes ceq_ci.  When the
 * completion EQ is full the event is dropped and ceq_overflows counts it.
 */
struct orca_eqe_comp {
	__le32 cqn;
	__le32 reserved;
};

struct orca_eqe_fatal {
	__le32 syndrome;		/* ORCA_FATAL_* */
};

enum orca_fatal_syndrome {
	ORCA_FATAL_NONE			= 0,
	ORCA_FATAL_INJECTED		= 1,	/* test hook */
	ORCA_FATAL_INTERNAL		= 2,
	ORCA_FATAL_DMA			= 3,
};

/*
 * EQ entry, written by the device at (eq_pi % depth) before it advances
 * eq_pi with release ordering and raises ORCA_MSIX_EQ.  The driver
 * consumes entries up to eq_pi and publishes eq_ci; it never counts
 * interrupts.  MSI-X is raised only after INIT enabled interrupts.
 */
struct orca_eqe {
	__u8 type;			/* ORCA_EQE_* */
	__u8 reserved[7];
	union {
		struct orca_eqe_cmd_done cmd;
		struct orca_eqe_qp_event qp;
		struct orca_eqe_port_event port;
		struct orca_eqe_cq_error cq;
		struct orca_eqe_comp comp;
		struct orca_eqe_fatal fatal;
		__u8 raw[56];
	};
};

/* ------------------------------------------------------------------ */
/* QP state mirror                                                    */
/* ------------------------------------------------------------------ */

/*
 * One entry per QPN in host memory.  The device writes the entry on
 * every state change (modify, or a device-initiated change) before it
 * posts the command completion or the QP event: fields first, then seq
 * with release ordering.  seq is odd while the device updates the entry.
 */
struct orca_qp_mirror {
	__le32 seq;
	__u8 state;			/* ORCA_QPS_* */
	__u8 sq_draining;
	__u8 path_mig_state;		/* ORCA_MIG_* */
	__u8 reserved;
	__le32 qpn;
	__le32 reserved2;
};

/* ------------------------------------------------------------------ */
/* Command payloads                                                   */
/* ------------------------------------------------------------------ */

/*
 * RESET: no input, no output.  Destroys every object and disarms
 * interrupts, asynchronous events and the QP mirror; the queues keep
 * running from the addresses latched at ORCA_DEV_CTL_ENABLE.
 */

/* INIT input: latch qp_mirror_* from the register block, arm events. */
#define ORCA_INIT_F_EQ_IRQ		BIT(0)	/* raise MSI-X on EQ writes */

struct orca_init_in {
	__le32 flags;
	__le32 reserved;
};

/*
 * TEARDOWN: no input, no output.  Like RESET, and the device also clears
 * the queue and mirror addresses: after the completion it performs no
 * DMA until a driver programs the queues again.
 */

/* QUERY_CAPS output (mailbox). */
enum orca_dev_cap {
	ORCA_DEV_CAP_RC			= BIT(0),
	ORCA_DEV_CAP_UC			= BIT(1),
	ORCA_DEV_CAP_UD			= BIT(2),
	ORCA_DEV_CAP_BAD_PKEY_CNTR	= BIT(3),
	ORCA_DEV_CAP_BAD_QKEY_CNTR	= BIT(4),
	ORCA_DEV_CAP_SYS_IMAGE_GUID	= BIT(5),
	ORCA_DEV_CAP_RC_RNR_NAK_GEN	= BIT(6),
	ORCA_DEV_CAP_PORT_ACTIVE_EVENT	= BIT(7),
	ORCA_DEV_CAP_CHANGE_PHY_PORT	= BIT(8),
	ORCA_DEV_CAP_UD_AV_PORT_ENFORCE	= BIT(9),
	ORCA_DEV_CAP_PCI_WRITE_END_PADDING = BIT(10),
	ORCA_DEV_CAP_ECE		= BIT(11),
	ORCA_DEV_CAP_SQD_ASYNC_NOTIFY	= BIT(12),
};

enum orca_atomic_cap {
	ORCA_ATOMIC_NONE		= 0,
	ORCA_ATOMIC_HCA			= 1,
	ORCA_ATOMIC_GLOB		= 2,
};

/*
 * Data-in-order capability per opcode (same values as libibverbs'
 * IBV_QUERY_QP_DATA_IN_ORDER_*).
 */
#define ORCA_DIO_WHOLE_MSG		BIT(0)
#define ORCA_DIO_ALIGNED_128_BYTES	BIT(1)

/* ECE option bits the device can negotiate. */
#define ORCA_ECE_OPT_SELECTIVE_REPEAT	BIT(0)
#define ORCA_ECE_OPT_CC_DCQCN		BIT(1)
#define ORCA_ECE_OPT_CC_ZTR		BIT(2)
#define ORCA_ECE_OPT_LARGE_ACK		BIT(3)
#define ORCA_ECE_OPT_ALL		0xfU

struct orca_caps {
	__le64 fw_version;		/* 0x000 */
	__le64 node_guid;		/* 0x008 */
	__le64 sys_image_guid;		/* 0x010 */
	__le64 max_mr_size;		/* 0x018 */
	__le64 page_size_cap;		/* 0x020 */
	__le32 vendor_id;		/* 0x028 IEEE OUI */
	__le32 vendor_part_id;		/* 0x02c */
	__le32 hw_ver;			/* 0x030 */
	__le32 dev_caps;		/* 0x034 ORCA_DEV_CAP_* */
	__le32 max_qp;			/* 0x038 */
	__le32 max_qp_wr;		/* 0x03c */
	__le32 max_send_sge;		/* 0x040 */
	__le32 max_recv_sge;		/* 0x044 */
	__le32 max_sge_rd;		/* 0x048 */
	__le32 max_cq;			/* 0x04c */
	__le32 max_cqe;			/* 0x050 */
	__le32 max_mr;			/* 0x054 */
	__le32 max_pd;			/* 0x058 */
	__le32 max_qp_rd_atom;		/* 0x05c */
	__le32 max_qp_init_rd_atom;	/* 0x060 */
	__le32 max_res_rd_atom;		/* 0x064 */
	__le32 max_mw;			/* 0x068 */
	__le32 max_srq;			/* 0x06c */
	__le32 max_srq_wr;		/* 0x070 */
	__le32 max_srq_sge;		/* 0x074 */
	__le32 max_ah;			/* 0x078 */
	__le32 max_mcast_grp;		/* 0x07c */
	__le32 max_mcast_qp_attach;	/* 0x080 */
	__le32 max_total_mcast_qp_attach; /* 0x084 */
	__le32 max_inline_data;		/* 0x088 */
	__le16 max_pkeys;		/* 0x08c */
	__u8 local_ca_ack_delay;	/* 0x08e */
	__u8 phys_port_cnt;		/* 0x08f */
	__u8 atomic_cap;		/* 0x090 ORCA_ATOMIC_* */
	__u8 num_comp_vectors;		/* 0x091 */
	__u8 dio_send;			/* 0x092 ORCA_DIO_* for SEND */
	__u8 dio_rdma_write;		/* 0x093 */
	__u8 dio_rdma_read;		/* 0x094 */
	__u8 reserved0[3];		/* 0x095 */
	__le32 ece_vendor_id;		/* 0x098 IEEE OUI; 0 = no ECE */
	__le32 ece_options;		/* 0x09c ORCA_ECE_OPT_* supported */
	__le64 hca_core_clock;		/* 0x0a0 kHz; 0 = no timestamps */
	__le64 completion_timestamp_mask; /* 0x0a8 */
	__le64 max_dm_size;		/* 0x0b0 */
	/*
	 * Features this device does not implement still report their
	 * limits here (all zero today), so the driver invents nothing.
	 */
	__le32 odp_general_caps;	/* 0x0b8 */
	__le32 odp_rc_caps;		/* 0x0bc */
	__le32 odp_uc_caps;		/* 0x0c0 */
	__le32 odp_ud_caps;		/* 0x0c4 */
	__le32 odp_xrc_caps;		/* 0x0c8 */
	__le32 max_tso;			/* 0x0cc */
	__le32 tso_qpts;		/* 0x0d0 */
	__le32 rss_qpts;		/* 0x0d4 */
	__le32 max_rwq_indirection_tables; /* 0x0d8 */
	__le32 max_rwq_indirection_table_size; /* 0x0dc */
	__le64 rx_hash_fields_mask;	/* 0x0e0 */
	__le32 rx_hash_function;	/* 0x0e8 */
	__le32 max_wq_type_rq;		/* 0x0ec */
	__le32 qp_rate_limit_min;	/* 0x0f0 */
	__le32 qp_rate_limit_max;	/* 0x0f4 */
	__le32 pacing_qpts;		/* 0x0f8 */
	__le32 raw_packet_caps;		/* 0x0fc */
	__le32 tm_max_rndv_hdr_size;	/* 0x100 */
	__le32 tm_max_num_tags;		/* 0x104 */
	__le32 tm_flags;		/* 0x108 */
	__le32 tm_max_ops;		/* 0x10c */
	__le32 tm_max_sge;		/* 0x110 */
	__le16 max_cq_moderation_count;	/* 0x114 */
	__le16 max_cq_moderation_period; /* 0x116 */
	__le16 pci_atomic_fetch_add;	/* 0x118 */
	__le16 pci_atomic_swap;		/* 0x11a */
	__le16 pci_atomic_compare_swap;	/* 0x11c */
	__u8 reserved1[2];		/* 0x11e */
	__u8 reserved2[0x160 - 0x120];	/* 0x120 room to grow */
};

/* QUERY_PORT input/output. */
struct orca_query_port_in {
	__u8 port;			/* 1-based */
	__u8 reserved[7];
};

enum orca_port_state {
	ORCA_PORT_DOWN			= 1,
	ORCA_PORT_INIT			= 2,
	ORCA_PORT_ARMED			= 3,
	ORCA_PORT_ACTIVE		= 4,
};

enum orca_link_layer {
	ORCA_LINK_LAYER_IB		= 1,
};

/* MTU encoding as in IBTA: 1 = 256 ... 5 = 4096 */
struct orca_port_attr {
	__le64 subnet_prefix;		/* 0x00 */
	__le64 port_guid;		/* 0x08 */
	__le32 port_cap_flags;		/* 0x10 IBTA PortInfo:CapabilityMask */
	__le32 max_msg_sz;		/* 0x14 */
	__le32 bad_pkey_cntr;		/* 0x18 */
	__le32 qkey_viol_cntr;		/* 0x1c */
	__le16 lid;			/* 0x20 */
	__le16 sm_lid;			/* 0x22 */
	__le16 gid_tbl_len;		/* 0x24 */
	__le16 pkey_tbl_len;		/* 0x26 */
	__le16 pkey;			/* 0x28 P_Key at index 0 */
	__u8 state;			/* 0x2a ORCA_PORT_* */
	__u8 phys_state;		/* 0x2b IBTA: 5 = LinkUp */
	__u8 max_mtu;			/* 0x2c */
	__u8 active_mtu;		/* 0x2d */
	__u8 lmc;			/* 0x2e */
	__u8 sm_sl;			/* 0x2f */
	__u8 active_width;		/* 0x30 IBTA: 1 = 1x, 2 = 4x ... */
	__u8 active_speed;		/* 0x31 IBTA: 1 = SDR ... */
	__u8 link_layer;		/* 0x32 ORCA_LINK_LAYER_* */
	__u8 max_vl_num;		/* 0x33 IBTA encoding: 1 = VL0 only */
	__u8 reserved[4];		/* 0x34 */
};

/*
 * QUERY_GID_TABLE / QUERY_PKEY_TABLE input.  The output is the entries
 * start .. start + n - 1 of the port's table, n = out_len / entry size
 * (16-byte GIDs in network byte order, __le16 P_Keys), written to the
 * output mailbox; start + n must not pass the table length QUERY_PORT
 * reports.  One command returns at most one mailbox of entries.
 */
struct orca_query_table_in {
	__u8 port;			/* 1-based */
	__u8 reserved[3];
	__le32 start;
};

#define ORCA_GID_LEN			16
#define ORCA_GIDS_PER_CMD		(ORCA_MBOX_SIZE / ORCA_GID_LEN)
#define ORCA_PKEYS_PER_CMD		(ORCA_MBOX_SIZE / sizeof(__le16))

/* ALLOC_PD output / DEALLOC_PD input. */
struct orca_pd_handle {
	__le32 pdn;
	__le32 reserved;
};

/*
 * Page list: the pages of a pinned buffer, for a memory region or a
 * queue.  addr is the DMA address of npages __le64 page addresses, each
 * aligned to 2^page_shift, in buffer order.  The device copies the list
 * while it executes the command, checks every entry, and never reads it
 * again: the driver frees it when the command completes.
 */
#define ORCA_PBL_MIN_PAGE_SHIFT		12
#define ORCA_PBL_MAX_PAGE_SHIFT		30
#define ORCA_PBL_MAX_PAGES		BIT(19)	/* a 4 MiB list */

struct orca_pbl {
	__le64 addr;
	__le32 npages;
	__u8 page_shift;
	__u8 reserved[3];
};

/*
 * Access rights of a memory region (and, the remote ones, of a QP).
 * IBTA semantics; RELAXED_ORDERING gives up data-in-order for the region.
 */
#define ORCA_ACCESS_LOCAL_WRITE		BIT(0)
#define ORCA_ACCESS_REMOTE_WRITE	BIT(1)
#define ORCA_ACCESS_REMOTE_READ		BIT(2)
#define ORCA_ACCESS_REMOTE_ATOMIC	BIT(3)
#define ORCA_ACCESS_MW_BIND		BIT(4)
#define ORCA_ACCESS_RELAXED_ORDERING	BIT(5)

/*
 * REG_MR input (mailbox).  The region is [iova, iova + length); byte iova
 * is first_off bytes into the first page of the list.  The device picks
 * the key: lkey = index << 8 | key byte, and the key byte changes on
 * every registration of an index, so a key that outlived its region is
 * refused.  rkey = lkey.
 */
struct orca_reg_mr_in {
	__le64 iova;			/* 0x00 */
	__le64 length;			/* 0x08 */
	__le32 pdn;			/* 0x10 */
	__le32 access;			/* 0x14 ORCA_ACCESS_* */
	struct orca_pbl pbl;		/* 0x18 */
	__le32 first_off;		/* 0x28 */
	__le32 reserved;		/* 0x2c */
};

struct orca_reg_mr_out {
	__le32 lkey;
	__le32 rkey;
};

/* DEREG_MR input.  Completes once the device holds no reference. */
struct orca_mr_handle {
	__le32 lkey;
	__le32 reserved;
};

/*
 * CREATE_CQ.  The ring is 2^log_depth CQEs (struct orca_cqe) at offset 0
 * of the buffer in ring, with its struct orca_cq_dbrec at dbrec_off;
 * 2^log_depth must exceed cqe.  A CQ without a ring (ring all zero) has
 * no memory for completions: only QPs without queues can use it.
 */
struct orca_create_cq_in {
	__le32 cqe;			/* 0x00 requested entries */
	__le32 comp_vector;		/* 0x04 */
	__u8 log_depth;			/* 0x08 */
	__u8 reserved[3];		/* 0x09 */
	__le32 dbrec_off;		/* 0x0c */
	struct orca_pbl ring;		/* 0x10 */
};

struct orca_create_cq_out {
	__le32 cqn;
	__le32 cqe;			/* actual entries */
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
	__u8 reserved[0x100 - 0x90];	/* 0x90 */
};

/*
 * CREATE_QP input (mailbox).  With a ring (ring.npages != 0) the buffer
 * holds the send queue at 0 (2^sq_log_depth WQEs of 2^sq_log_stride
 * bytes), the receive queue at rq_off and the struct orca_qp_dbrec at
 * dbrec_off; the depths must hold max_send_wr / max_recv_wr rounded up
 * to a power of two, and the strides max_*_sge and max_inline_data
 * (orca_sq_log_stride(), orca_rq_log_stride()).  A queue of 0 WRs has
 * depth and stride 0.  Without a ring the QP has no queues and carries
 * no data.
 */
#define ORCA_QP_CREATE_PCI_WRITE_END_PADDING	BIT(0)

struct orca_create_qp_in {
	__u8 qp_type;			/* 0x00 ORCA_QPT_* */
	__u8 sq_sig_all;		/* 0x01 */
	__u8 reserved0[2];		/* 0x02 */
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
	__le32 reserved1;		/* 0x44 */
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

/* QUERY_QP / DESTROY_QP input. */
struct orca_qp_handle {
	__le32 qpn;
	__le32 reserved;
};

/* QUERY_QP output (mailbox): struct orca_qp_ctx. */

/* ------------------------------------------------------------------ */
/* Layout checks (C11; both the kernel and the emulator build these)  */
/* ------------------------------------------------------------------ */
static_assert(sizeof(struct orca_regs) == 0x1000, "orca_regs");
static_assert(sizeof(struct orca_cmdq_entry) == 64, "orca_cmdq_entry");
static_assert(sizeof(struct orca_eqe) == 64, "orca_eqe");
static_assert(sizeof(struct orca_qp_mirror) == 16, "orca_qp_mirror");
static_assert(sizeof(struct orca_caps) == 0x160, "orca_caps");
static_assert(sizeof(struct orca_port_attr) == 0x38, "orca_port_attr");
static_assert(sizeof(struct orca_av) == 0x20, "orca_av");
static_assert(sizeof(struct orca_qp_ctx) == 0x100, "orca_qp_ctx");
static_assert(sizeof(struct orca_create_qp_in) == 0x48, "orca_create_qp_in");
static_assert(sizeof(struct orca_create_cq_in) == 0x20, "orca_create_cq_in");
static_assert(sizeof(struct orca_pbl) == 16, "orca_pbl");
static_assert(sizeof(struct orca_reg_mr_in) == 0x30, "orca_reg_mr_in");
static_assert(sizeof(struct orca_create_ah_in) == 0x28, "orca_create_ah_in");
static_assert(sizeof(struct orca_send_wqe) == 64, "orca_send_wqe");
static_assert(sizeof(struct orca_recv_wqe) == 16, "orca_recv_wqe");
static_assert(sizeof(struct orca_sge) == 16, "orca_sge");
static_assert(sizeof(struct orca_cqe) == 64, "orca_cqe");
static_assert(sizeof(struct orca_modify_qp_in) == 0x120, "orca_modify_qp_in");

#endif /* ORCA_HW_H */
