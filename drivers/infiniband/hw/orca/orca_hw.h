/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca HCA device interface: register block, command queue, event queue,
 * QP state mirror; the command payloads are in orca_hw_cmd.h and the I/O
 * formats (WQE, CQE, doorbell records) in orca_hw_io.h, both included.
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
#define ORCA_BAR2_SIZE			0x100000 /* and device memory */
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
	__le64 port_mirror_base;	/* 0x0b0 drv: DMA address of the port mirror, 0 = none */
	__le64 db_hint_base;		/* 0x0b8 drv: DMA address of the doorbell hint, 0 = none */
	__u8 reserved[0x1000 - 0xc0];
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
	ORCA_CMD_QUERY_COUNTERS		= 0x08,
	ORCA_CMD_MAD_IFC		= 0x09,
	ORCA_CMD_MODIFY_PORT		= 0x0a,
	ORCA_CMD_QUERY_CLOCK		= 0x0b,
	ORCA_CMD_ALLOC_PD		= 0x10,
	ORCA_CMD_DEALLOC_PD		= 0x11,
	ORCA_CMD_CREATE_KICK_RING	= 0x12,
	ORCA_CMD_DESTROY_KICK_RING	= 0x13,
	ORCA_CMD_CREATE_CQ		= 0x20,
	ORCA_CMD_DESTROY_CQ		= 0x21,
	ORCA_CMD_RESIZE_CQ		= 0x22,
	ORCA_CMD_CREATE_QP		= 0x30,
	ORCA_CMD_MODIFY_QP		= 0x31,
	ORCA_CMD_QUERY_QP		= 0x32,
	ORCA_CMD_DESTROY_QP		= 0x33,
	ORCA_CMD_ATTACH_MCAST		= 0x34,
	ORCA_CMD_DETACH_MCAST		= 0x35,
	ORCA_CMD_REG_MR			= 0x40,
	ORCA_CMD_DEREG_MR		= 0x41,
	ORCA_CMD_REREG_MR		= 0x42,
	ORCA_CMD_ALLOC_MW		= 0x43,
	ORCA_CMD_DEALLOC_MW		= 0x44,
	ORCA_CMD_ALLOC_MR		= 0x45,
	ORCA_CMD_ALLOC_DM		= 0x46,
	ORCA_CMD_DEALLOC_DM		= 0x47,
	ORCA_CMD_REG_DM_MR		= 0x48,
	ORCA_CMD_CREATE_AH		= 0x50,
	ORCA_CMD_DESTROY_AH		= 0x51,
	ORCA_CMD_CREATE_SRQ		= 0x60,
	ORCA_CMD_MODIFY_SRQ		= 0x61,
	ORCA_CMD_QUERY_SRQ		= 0x62,
	ORCA_CMD_DESTROY_SRQ		= 0x63,
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
	ORCA_EQE_SRQ_LIMIT		= 0x07,
};

enum orca_qp_event {
	ORCA_QP_EV_FATAL		= 0x01,	/* QP moved to ERR by the device */
	ORCA_QP_EV_SQ_DRAINED		= 0x02,	/* SQD: send queue drained */
	ORCA_QP_EV_SQ_ERROR		= 0x03,	/* QP moved to SQE */
	ORCA_QP_EV_REQ_ERR		= 0x04,	/* invalid request, QP to ERR */
	ORCA_QP_EV_ACCESS_ERR		= 0x05,	/* access violation, QP to ERR */
	ORCA_QP_EV_COMM_EST		= 0x06,
	ORCA_QP_EV_LAST_WQE_REACHED	= 0x07,	/* SRQ QP in ERR, WQE flushed */
};

enum orca_port_event {
	ORCA_PORT_EV_ACTIVE		= 0x01,	/* PortState entered ACTIVE */
	ORCA_PORT_EV_DOWN		= 0x02,	/* PortState left ACTIVE */
	ORCA_PORT_EV_MGMT		= 0x03,	/* the SM changed @changes */
};

/*
 * ORCA_PORT_EV_MGMT: what the subnet manager's Sets changed (mlx4's port
 * management change event).  The port mirror and the tables QUERY_*
 * read hold the new values when the event is posted.
 */
#define ORCA_PORT_CHG_LID		BIT(0)	/* LID or LMC */
#define ORCA_PORT_CHG_SM		BIT(1)	/* MasterSMLID or MasterSMSL */
#define ORCA_PORT_CHG_PKEY		BIT(2)	/* P_Key table */
#define ORCA_PORT_CHG_GID		BIT(3)	/* GID prefix */
#define ORCA_PORT_CHG_REREG		BIT(4)	/* ClientReregister */

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
	__le16 changes;			/* ORCA_PORT_EV_MGMT: ORCA_PORT_CHG_* */
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

/*
 * SRQ limit reached: after the device took a WQE from an SRQ whose limit
 * was armed, fewer than limit WQEs were left posted.  The device disarms
 * the limit (QUERY_SRQ then reports 0) before it posts the event.
 */
struct orca_eqe_srq {
	__le32 srqn;
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
		struct orca_eqe_srq srq;
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

#include "orca_hw_cmd.h"

/* ------------------------------------------------------------------ */
/* Port mirror                                                        */
/* ------------------------------------------------------------------ */

/*
 * What QUERY_PORT returns, kept by the device in host memory so that
 * query_port costs no command: one entry per port (port_mirror_base,
 * 64-byte aligned, entry i for port i + 1; 0 = no mirror), latched by
 * INIT like the QP mirror.  INIT writes every entry; the device rewrites
 * an entry on every change of what QUERY_PORT would return (port state,
 * the P_Key and Q_Key violation counters, table sizes) and, for a state
 * change, before it posts the port event, so a query made on the event
 * sees the new state.  seq works as in the QP mirror: odd while the
 * device writes, 0 until the first write.
 */
struct orca_port_mirror {
	__le32 seq;
	__u8 port;			/* 1-based */
	__u8 reserved[3];
	struct orca_port_attr attr;
};

/* ------------------------------------------------------------------ */
/* Doorbell hint                                                      */
/* ------------------------------------------------------------------ */

/*
 * A kick costs the host an MMIO write it must trap, and a kick that lands
 * while the device is working tells it nothing new: the engine reads
 * every doorbell record again before it stops.  The device says so in
 * host memory (db_hint_base, 64-byte aligned, latched by INIT; 0 = none),
 * which the driver maps read-only into user contexts; virtio's
 * VRING_USED_F_NO_NOTIFY and NVMe's shadow doorbells do the same.
 *
 * awake != 0: the engine is running and will read every doorbell record
 * at least once more before it stops.  A producer stores its doorbell
 * record, issues a full fence, reads awake, and kicks only if it is 0.
 * Before the engine stops, the device stores awake = 0, issues a full
 * fence and reads every doorbell record once more: of a post and a stop
 * that race, one side always sees the other's store, so no post is left
 * without a kick or a read.  The device clears awake before a reset
 * forgets the address; a device that never writes it (0 at INIT) gets a
 * kick for every post.
 */
struct orca_db_hint {
	__le32 awake;
	__u8 reserved[60];
};

/* ------------------------------------------------------------------ */
/* Layout checks (C11; both the kernel and the emulator build these)  */
/* ------------------------------------------------------------------ */
static_assert(sizeof(struct orca_regs) == 0x1000, "orca_regs");
static_assert(sizeof(struct orca_cmdq_entry) == 64, "orca_cmdq_entry");
static_assert(sizeof(struct orca_eqe) == 64, "orca_eqe");
static_assert(sizeof(struct orca_qp_mirror) == 16, "orca_qp_mirror");
static_assert(sizeof(struct orca_port_mirror) == 64, "orca_port_mirror");
static_assert(sizeof(struct orca_db_hint) == 64, "orca_db_hint");
static_assert(sizeof(struct orca_kick_ring) == 0x840, "orca_kick_ring");
static_assert(sizeof(struct orca_kick_ring) <= ORCA_KICK_RING_SIZE,
	      "orca_kick_ring in its page");
static_assert(sizeof(struct orca_send_wqe) == 64, "orca_send_wqe");
static_assert(sizeof(struct orca_bind_wqe) == 64, "orca_bind_wqe");
static_assert(sizeof(struct orca_reg_wqe) == 64, "orca_reg_wqe");
static_assert(sizeof(struct orca_recv_wqe) == 16, "orca_recv_wqe");
static_assert(sizeof(struct orca_srq_dbrec) == 8, "orca_srq_dbrec");
static_assert(sizeof(struct orca_sge) == 16, "orca_sge");
static_assert(sizeof(struct orca_cqe) == 64, "orca_cqe");

#endif /* ORCA_HW_H */
