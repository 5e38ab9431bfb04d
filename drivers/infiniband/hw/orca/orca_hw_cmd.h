/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca HCA device interface: the payloads of the firmware commands (what
 * goes in a command's input and comes back in its output).  Included by
 * orca_hw.h, which defines the queues that carry them; the I/O formats
 * userspace and the device share are in orca_hw_io.h.
 *
 * This file holds the device-wide and port commands; the payloads of the
 * memory commands are in orca_hw_cmd_mem.h and those of the queue
 * commands (CQ, QP, AH, SRQ, multicast) in orca_hw_cmd_qp.h, both
 * included.
 */
#ifndef ORCA_HW_CMD_H
#define ORCA_HW_CMD_H

#include "orca_hw_cmd_mem.h"
#include "orca_hw_cmd_qp.h"

/* ------------------------------------------------------------------ */
/* Command payloads                                                   */
/* ------------------------------------------------------------------ */

/*
 * RESET: no input, no output.  Destroys every object and disarms
 * interrupts, asynchronous events and the QP mirror; the queues keep
 * running from the addresses latched at ORCA_DEV_CTL_ENABLE.
 */

/*
 * INIT input: latch qp_mirror_* and port_mirror_base from the register
 * block, write the port mirror, arm events.
 */
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
	ORCA_DEV_CAP_MEM_WINDOW		= BIT(13),	/* type 1 windows */
	ORCA_DEV_CAP_MW_TYPE_2B		= BIT(14),	/* type 2 windows */
	ORCA_DEV_CAP_RESERVED_LKEY	= BIT(15),	/* ORCA_RESERVED_LKEY */
	ORCA_DEV_CAP_UD_AV		= BIT(16),	/* ORCA_WQE_F_UD_AV */
	/*
	 * QP0 and QP1 (CREATE_QP of ORCA_QPT_SMI/GSI), the subnet
	 * management agent behind MAD_IFC that programs the port, port
	 * management events and MODIFY_PORT.
	 */
	ORCA_DEV_CAP_MAD_QPS		= BIT(17),
	/*
	 * Fast registration: ALLOC_MR, the REG_MR WQE on QPs created with
	 * ORCA_QP_CREATE_FAST_REG, LOCAL_INV and SEND_WITH_INV of such
	 * regions (max_fast_reg_page_list_len pages at most).
	 */
	ORCA_DEV_CAP_FAST_REG		= BIT(18),
	/*
	 * Kick rings (orca_hw_io.h): CREATE_KICK_RING, DESTROY_KICK_RING and
	 * QPs created with ORCA_QP_CREATE_KICK_RING.
	 */
	ORCA_DEV_CAP_KICK_RING		= BIT(19),
	/* ORCA_WR_ATOMIC_WRITE, as requester and as responder */
	ORCA_DEV_CAP_ATOMIC_WRITE	= BIT(20),
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
#define ORCA_DIO_BLOCK			128	/* ALIGNED_128_BYTES' block */

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
	__le64 completion_timestamp_mask; /* 0x0a8 the clock's bits */
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
	__le32 max_fast_reg_page_list_len; /* 0x120 ORCA_DEV_CAP_FAST_REG */
	__u8 reserved2[0x160 - 0x124];	/* 0x124 room to grow */
};

/*
 * QUERY_CLOCK output (inline): the device's two clocks, read together.
 * free_running is the clock CQE timestamps are taken from, counting at
 * hca_core_clock kHz and wrapping at completion_timestamp_mask;
 * real_time is ns since the Epoch (UTC).  UNSUPPORTED while the caps
 * report no clock (hca_core_clock 0).
 */
struct orca_query_clock_out {
	__le64 free_running;		/* 0x00 */
	__le64 real_time;		/* 0x08 */
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

/*
 * MTU encoding as in IBTA: 1 = 256 ... 5 = 4096.  bad_pkey_cntr and
 * qkey_viol_cntr are PortInfo's P_Key and Q_Key violation counters:
 * packets the port dropped for a P_Key that does not match the
 * destination QP's partition, and UD packets dropped for a Q_Key that is
 * not the destination QP's.  16 bits, stopping at 0xffff (IBTA 14.2.5.6),
 * cleared by a function reset; counted only when the device reports
 * ORCA_DEV_CAP_BAD_PKEY_CNTR / ORCA_DEV_CAP_BAD_QKEY_CNTR.
 */
struct orca_port_attr {
	__le64 subnet_prefix;		/* 0x00 */
	__le64 port_guid;		/* 0x08 */
	__le32 port_cap_flags;		/* 0x10 IBTA PortInfo:CapabilityMask */
	__le32 max_msg_sz;		/* 0x14 */
	__le32 bad_pkey_cntr;		/* 0x18 see below */
	__le32 qkey_viol_cntr;		/* 0x1c see below */
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

/*
 * QUERY_COUNTERS: no input; output (mailbox) the device's counters,
 * counted from the last function reset (ORCA_DEV_CTL_RESET) on.  cmds
 * includes the QUERY_COUNTERS that reads them.
 */
struct orca_query_counters_out {
	__le64 cmds;			/* commands taken from the queue */
	__le64 cmd_errors;		/* of which completed with an error */
	__le64 async_events;		/* EQEs other than CMD_DONE, EQ 0 */
	__le64 async_events_lost;	/* not posted: EQ 0 full */
	__le64 comp_events;		/* completion EQEs */
	__le64 comp_events_lost;	/* not posted: completion EQ full */
	__le64 doorbells;		/* ORCA_FW_VEC_DB doorbells */
	__le64 send_wqes;		/* send WQEs taken */
	__le64 tx_packets;		/* packets the port sent */
	__le64 tx_bytes;		/* their payload bytes */
	__le64 rx_packets;		/* packets the port received */
	__le64 rx_bytes;		/* their payload bytes */
	__le64 dropped_packets;		/* no route, QP, state, P_Key or Q_Key */
	__le64 cqes;			/* CQEs written */
	__le64 cqe_errors;		/* of which with an error status */
	__le64 naks_sent;		/* NAKs other than RNR NAKs */
	__le64 rnr_naks_sent;
	__le64 retransmits;		/* timeout, RNR and sequence retries */
	__le64 cq_overruns;		/* CQEs that found the CQ full */
	__le64 dma_faults;		/* host addresses refused */
};

#define ORCA_GID_LEN			16
#define ORCA_GIDS_PER_CMD		(ORCA_MBOX_SIZE / ORCA_GID_LEN)
#define ORCA_PKEYS_PER_CMD		(ORCA_MBOX_SIZE / sizeof(__le16))

/*
 * MAD_IFC input (mailbox), as mthca's and mlx4's: a management datagram
 * for port @port that the firmware's management agents may answer.  The
 * driver's process_mad() forwards what is theirs (ib_verbs.h); @flags say
 * whether the M_Key is to be ignored and whether the fields of the work
 * completion it arrived with (and its GRH) are valid.  Reserved fields 0.
 */
#define ORCA_MAD_IFC_F_IGNORE_MKEY	BIT(0)
#define ORCA_MAD_IFC_F_WC		BIT(1)	/* slid .. src_qpn valid */
#define ORCA_MAD_IFC_F_GRH		BIT(2)	/* grh valid */
#define ORCA_MAD_SIZE			256

struct orca_mad_ifc_in {
	__u8 port;			/* 0x00 */
	__u8 flags;			/* 0x01 ORCA_MAD_IFC_F_* */
	__u8 sl;			/* 0x02 */
	__u8 path_bits;			/* 0x03 */
	__le16 slid;			/* 0x04 */
	__le16 pkey_index;		/* 0x06 */
	__le32 src_qpn;			/* 0x08 */
	__le32 reserved;		/* 0x0c */
	__u8 mad[ORCA_MAD_SIZE];	/* 0x10 */
	__u8 grh[40];			/* 0x110 */
};

/* What the agents did with it. */
enum orca_mad_ifc_result {
	ORCA_MAD_IFC_PASS		= 0,	/* not theirs: deliver it up */
	ORCA_MAD_IFC_REPLY		= 1,	/* @mad is the response */
	ORCA_MAD_IFC_DROP		= 2,	/* no response (M_Key, ...) */
};

/* MAD_IFC output (mailbox). */
struct orca_mad_ifc_out {
	__u8 result;			/* 0x00 ORCA_MAD_IFC_* */
	__u8 reserved[7];		/* 0x01 */
	__u8 mad[ORCA_MAD_SIZE];	/* 0x08 */
};

/*
 * MODIFY_PORT input (ORCA_DEV_CAP_MAD_QPS): PortInfo:CapabilityMask |=
 * set_cap, then &= ~clr_cap, of the bits software owns (IsSM, IsCM,
 * IsSNMP, IsDeviceManagement, IsVendorClass: ORCA_PORT_CAP_SW); with
 * ORCA_MODIFY_PORT_F_RESET_QKEY_CNTR the Q_Key violation counter is
 * cleared.  The port mirror is written before the completion.
 */
#define ORCA_MODIFY_PORT_F_RESET_QKEY_CNTR	BIT(0)
#define ORCA_PORT_CAP_SW	(BIT(1) | BIT(16) | BIT(18) | BIT(19) | \
				 BIT(22))

struct orca_modify_port_in {
	__u8 port;			/* 0x00 1-based */
	__u8 flags;			/* 0x01 ORCA_MODIFY_PORT_F_* */
	__u8 reserved[2];		/* 0x02 */
	__le32 set_cap;			/* 0x04 */
	__le32 clr_cap;			/* 0x08 */
	__le32 reserved2;		/* 0x0c */
};

/* ALLOC_PD output / DEALLOC_PD input. */
struct orca_pd_handle {
	__le32 pdn;
	__le32 reserved;
};

/*
 * CREATE_KICK_RING input: ORCA_KICK_RING_SIZE bytes of host memory, so
 * aligned, that hold a struct orca_kick_ring (orca_hw_io.h), zeroed.
 * Output: its number, which DESTROY_KICK_RING takes.  After
 * DESTROY_KICK_RING completes the device neither reads nor writes the
 * page.  At most ORCA_MAX_KICK_RINGS rings (NO_RESOURCES past that: the
 * driver then leaves the context without one).
 */
#define ORCA_MAX_KICK_RINGS		1024
#define ORCA_KICK_RING_SIZE		4096	/* bytes, and alignment */

struct orca_create_kick_ring_in {
	__le64 addr;			/* 0x00 */
};

struct orca_kick_ring_handle {
	__le32 ring;			/* 0x00 */
	__le32 reserved;		/* 0x04 */
};

/* Layout checks (C11; both the kernel and the emulator build these) */
static_assert(sizeof(struct orca_caps) == 0x160, "orca_caps");
static_assert(sizeof(struct orca_port_attr) == 0x38, "orca_port_attr");
static_assert(sizeof(struct orca_query_counters_out) == 0xa0,
	      "orca_query_counters_out");
static_assert(sizeof(struct orca_mad_ifc_in) == 0x138, "orca_mad_ifc_in");
static_assert(sizeof(struct orca_mad_ifc_out) == 0x108, "orca_mad_ifc_out");
static_assert(sizeof(struct orca_modify_port_in) == 0x10,
	      "orca_modify_port_in");
static_assert(sizeof(struct orca_kick_ring_handle) == 8,
	      "orca_kick_ring_handle");

#endif /* ORCA_HW_CMD_H */
