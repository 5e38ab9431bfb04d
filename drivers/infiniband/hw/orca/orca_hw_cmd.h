/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca HCA device interface: the payloads of the firmware commands (what
 * goes in a command's input and comes back in its output).  Included by
 * orca_hw.h, which defines the queues that carry them; the I/O formats
 * userspace and the device share are in orca_hw_io.h.
 */
#ifndef ORCA_HW_CMD_H
#define ORCA_HW_CMD_H

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
	__le32 max_fast_reg_page_list_len; /* 0x120 ORCA_DEV_CAP_FAST_REG */
	__u8 reserved2[0x160 - 0x124];	/* 0x124 room to grow */
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
 * Page list: the pages of a pinned buffer, for a memory region or a
 * queue: npages __le64 page addresses, each aligned to 2^page_shift, in
 * buffer order.  The device copies the list while it executes the
 * command, checks every entry, and never reads it again: the driver frees
 * it when the command completes.
 *
 * Direct (flags 0): addr is the DMA address of the npages entries, one
 * contiguous array of at most ORCA_PBL_MAX_PAGES.
 *
 * Chained (ORCA_PBL_F_CHAINED): addr is the DMA address of the first of
 * 4 KiB chunks, each aligned to 4 KiB, each holding ORCA_PBL_CHUNK_PAGES
 * entries and then, in its last slot, the DMA address of the next chunk
 * (unused in the last one): a list of any length is made of order-0
 * pages.  At most ORCA_PBL_MAX_PAGES_CHAINED entries.
 */
#define ORCA_PBL_MIN_PAGE_SHIFT		12
#define ORCA_PBL_MAX_PAGE_SHIFT		30
#define ORCA_PBL_MAX_PAGES		BIT(19)	/* a 4 MiB list */
#define ORCA_PBL_MAX_PAGES_CHAINED	BIT(28)	/* 1 TiB of 4 KiB pages */
#define ORCA_PBL_CHUNK_SIZE		4096
#define ORCA_PBL_CHUNK_SLOTS		(ORCA_PBL_CHUNK_SIZE / 8)
#define ORCA_PBL_CHUNK_PAGES		(ORCA_PBL_CHUNK_SLOTS - 1)

enum orca_pbl_flags {
	ORCA_PBL_F_CHAINED		= 1 << 0,
};

struct orca_pbl {
	__le64 addr;
	__le32 npages;
	__u8 page_shift;
	__u8 flags;			/* ORCA_PBL_F_* */
	__u8 reserved[2];
};

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

/*
 * REREG_MR input (mailbox): the region lkey names takes the description
 * in mr whole (PD, access, range, page list); its keys do not change.
 */
struct orca_rereg_mr_in {
	__le32 lkey;
	__le32 reserved;
	struct orca_reg_mr_in mr;
};

/*
 * DEREG_MR input.  Completes once the device holds no reference.  A
 * region with memory windows bound to it is not deregistered (nor
 * reregistered): BAD_RES_STATE / IN_USE, as IBTA 10.6.7.2.2 wants.
 */
struct orca_mr_handle {
	__le32 lkey;
	__le32 reserved;
};

/*
 * ALLOC_MR input (ORCA_DEV_CAP_FAST_REG, else UNSUPPORTED): a region of
 * the PD for fast registration, free (no access through it) until a
 * REG_MR WQE (orca_hw_io.h) gives it pages, rights and a key byte, for
 * at most max_pages pages (1 .. max_fast_reg_page_list_len).  Output:
 * struct orca_reg_mr_out, the key it has while free.  LOCAL_INV, or a
 * SEND_WITH_INV that arrives on a QP of its PD, makes it free again;
 * DEREG_MR ends it in either state; REREG_MR refuses it.  It counts
 * against max_mr.
 */
struct orca_alloc_mr_in {
	__le32 pdn;
	__le32 max_pages;
	__le32 reserved[2];
};

/*
 * Memory windows.  A window's key has ORCA_KEY_MW set, its index (1 ..
 * max_mw) in bits 30:8 and a key byte in 7:0; region keys never have
 * ORCA_KEY_MW.  ALLOC_MW gives a window of a PD, unbound, with a key
 * byte of the device's choice; a BIND_MW WQE (orca_hw_io.h) binds it.
 * DEALLOC_MW names the window by the key ALLOC_MW returned (only its
 * index counts) and invalidates it first if it is bound.  Both fail with
 * UNSUPPORTED on a device without ORCA_DEV_CAP_MEM_WINDOW (max_mw 0).
 */
#define ORCA_KEY_MW			BIT(31)

enum orca_mw_type {
	ORCA_MW_TYPE_1			= 1,
	ORCA_MW_TYPE_2			= 2,
};

struct orca_alloc_mw_in {
	__le32 pdn;
	__u8 type;			/* ORCA_MW_TYPE_* */
	__u8 reserved[3];
};

/* ALLOC_MW output, DEALLOC_MW input. */
struct orca_mw_handle {
	__le32 rkey;
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
static_assert(sizeof(struct orca_caps) == 0x160, "orca_caps");
static_assert(sizeof(struct orca_port_attr) == 0x38, "orca_port_attr");
static_assert(sizeof(struct orca_query_counters_out) == 0xa0,
	      "orca_query_counters_out");
static_assert(sizeof(struct orca_av) == 0x20, "orca_av");
static_assert(sizeof(struct orca_mad_ifc_in) == 0x138, "orca_mad_ifc_in");
static_assert(sizeof(struct orca_mad_ifc_out) == 0x108, "orca_mad_ifc_out");
static_assert(sizeof(struct orca_modify_port_in) == 0x10,
	      "orca_modify_port_in");
static_assert(sizeof(struct orca_mcast_in) == 0x18, "orca_mcast_in");
static_assert(sizeof(struct orca_alloc_mr_in) == 0x10, "orca_alloc_mr_in");
static_assert(sizeof(struct orca_qp_ctx) == 0x100, "orca_qp_ctx");
static_assert(sizeof(struct orca_create_qp_in) == 0x48, "orca_create_qp_in");
static_assert(sizeof(struct orca_create_cq_in) == 0x20, "orca_create_cq_in");
static_assert(sizeof(struct orca_resize_cq_in) == 0x28, "orca_resize_cq_in");
static_assert(sizeof(struct orca_pbl) == 16, "orca_pbl");
static_assert(sizeof(struct orca_reg_mr_in) == 0x30, "orca_reg_mr_in");
static_assert(sizeof(struct orca_rereg_mr_in) == 0x38, "orca_rereg_mr_in");
static_assert(sizeof(struct orca_create_ah_in) == 0x28, "orca_create_ah_in");
static_assert(sizeof(struct orca_modify_qp_in) == 0x120, "orca_modify_qp_in");
static_assert(sizeof(struct orca_create_srq_in) == 0x28, "orca_create_srq_in");
static_assert(sizeof(struct orca_srq_attr) == 0x10, "orca_srq_attr");
static_assert(sizeof(struct orca_modify_srq_in) == 0x10, "orca_modify_srq_in");
static_assert(sizeof(struct orca_srq_handle) == 8, "orca_srq_handle");
static_assert(sizeof(struct orca_alloc_mw_in) == 8, "orca_alloc_mw_in");
static_assert(sizeof(struct orca_mw_handle) == 8, "orca_mw_handle");

#endif /* ORCA_HW_CMD_H */
