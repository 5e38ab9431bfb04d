/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * Driver-specific uverbs payloads shared by the orca kernel driver and the
 * orca libibverbs provider.
 */
#ifndef ORCA_ABI_USER_H
#define ORCA_ABI_USER_H

#include <linux/types.h>
#include <rdma/ib_user_ioctl_cmds.h>

/*
 * Increment this value if any changes that break userspace ABI
 * compatibility are introduced.
 */
#define ORCA_UVERBS_ABI_VERSION 1

/*
 * Keep structs aligned to 8 bytes; every 64-bit field is __aligned_u64.
 * Keep reserved fields as arrays of __u8 named reserved_XXX where XXX is
 * the hex bit offset of the field.
 * A struct with optional parts starts with comp_mask, whose bits are
 * named for the fields they validate; new fields are appended with a new
 * bit, so old providers and old kernels keep working.  The create
 * commands carry only what every create needs and no comp_mask: they grow
 * by appending, and a kernel refuses (EOPNOTSUPP) bytes past what it
 * knows unless they are zero, so a provider can fall back.  Nothing the
 * core uverbs structs already carry (fw_ver, qp_num, ...) is repeated
 * here.
 */

enum orca_ibv_device_caps {
	ORCA_IBV_DEVICE_CAP_ECE			= 1 << 0,
	ORCA_IBV_DEVICE_CAP_PCI_WRITE_END_PADDING = 1 << 1,
	ORCA_IBV_DEVICE_CAP_DATA_IN_ORDER	= 1 << 2,
	/* RC QPs post ATOMIC WRITE (IBA 1.5) */
	ORCA_IBV_DEVICE_CAP_ATOMIC_WRITE	= 1 << 3,
};

/*
 * ECE options of orca's vendor id (struct ibv_ece options), what two
 * peers exchange: a device supports some of them (alloc_ucontext
 * ece_options).  A request may name any of them; the device keeps those
 * it supports.
 */
enum orca_ibv_ece_options {
	ORCA_IBV_ECE_SELECTIVE_REPEAT		= 1 << 0,
	ORCA_IBV_ECE_CC_DCQCN			= 1 << 1,
	ORCA_IBV_ECE_CC_ZTR			= 1 << 2,
	ORCA_IBV_ECE_LARGE_ACK			= 1 << 3,
};

#define ORCA_IBV_ECE_OPT_ALL	(ORCA_IBV_ECE_SELECTIVE_REPEAT |	\
				 ORCA_IBV_ECE_CC_DCQCN |		\
				 ORCA_IBV_ECE_CC_ZTR |			\
				 ORCA_IBV_ECE_LARGE_ACK)

/*
 * Data-in-order capabilities, one byte per opcode, each a set of
 * ORCA_IBV_DIO_* bits (the values of libibverbs'
 * IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG and _ALIGNED_128_BYTES).
 */
enum orca_ibv_dio {
	ORCA_IBV_DIO_WHOLE_MSG			= 1 << 0,
	ORCA_IBV_DIO_ALIGNED_128_BYTES		= 1 << 1,
};

enum orca_ibv_dio_shift {
	ORCA_IBV_DIO_SHIFT_SEND			= 0,
	ORCA_IBV_DIO_SHIFT_RDMA_WRITE		= 8,
	ORCA_IBV_DIO_SHIFT_RDMA_READ		= 16,
};

/*
 * alloc_ucontext: the provider announces, in comp_mask, which optional
 * protocols it implements; the kernel enables only those for the context.
 */
enum orca_ibv_alloc_ucontext_cmd_mask {
	/* ECE requests travel in modify_qp, results in its response */
	ORCA_IBV_ALLOC_UCONTEXT_CMD_ECE		= 1 << 0,
	/* the provider can kick the device through a mapped doorbell page */
	ORCA_IBV_ALLOC_UCONTEXT_CMD_USER_DB	= 1 << 1,
	/* the provider skips kicks while the doorbell hint says awake */
	ORCA_IBV_ALLOC_UCONTEXT_CMD_DB_HINT	= 1 << 2,
	/* the provider names the QP of every post in a kick ring */
	ORCA_IBV_ALLOC_UCONTEXT_CMD_KICK_RING	= 1 << 3,
};

struct orca_ibv_alloc_ucontext_cmd {
	__u32 comp_mask;		/* ORCA_IBV_ALLOC_UCONTEXT_CMD_* */
	__u8 reserved_20[4];
};

/* Which fields of the alloc_ucontext response are valid. */
enum orca_ibv_alloc_ucontext_resp_mask {
	/* ece_vendor_id, ece_options */
	ORCA_IBV_ALLOC_UCONTEXT_RESP_ECE	= 1 << 0,
	/* data_in_order_caps */
	ORCA_IBV_ALLOC_UCONTEXT_RESP_DATA_IN_ORDER = 1 << 1,
	/* max_inline_data */
	ORCA_IBV_ALLOC_UCONTEXT_RESP_MAX_INLINE_DATA = 1 << 2,
	/* db_mmap_key, db_offset, db_value */
	ORCA_IBV_ALLOC_UCONTEXT_RESP_USER_DB	= 1 << 3,
	/* db_hint_mmap_key, db_hint_offset */
	ORCA_IBV_ALLOC_UCONTEXT_RESP_DB_HINT	= 1 << 4,
	/* kick_ring_mmap_key, kick_ring_entries */
	ORCA_IBV_ALLOC_UCONTEXT_RESP_KICK_RING	= 1 << 5,
};

struct orca_ibv_alloc_ucontext_resp {
	__u32 comp_mask;		/* ORCA_IBV_ALLOC_UCONTEXT_RESP_* */
	__u32 device_caps;		/* ORCA_IBV_DEVICE_CAP_* */
	__u32 ece_vendor_id;		/* IEEE OUI */
	__u32 ece_options;		/* ECE options the device supports */
	__u32 data_in_order_caps;	/* bytes of ORCA_IBV_DIO_*, see shifts */
	__u32 max_inline_data;
	/*
	 * The doorbell page: mmap() one page of the uverbs file at offset
	 * db_mmap_key (MAP_SHARED, PROT_WRITE), then a kick is the 32-bit
	 * store of db_value (little endian) at db_offset in it.
	 */
	__aligned_u64 db_mmap_key;
	__u32 db_offset;
	__u32 db_value;
	/*
	 * The doorbell hint: mmap() one page at db_hint_mmap_key (MAP_SHARED,
	 * PROT_READ only).  The device writes the 32-bit little-endian word
	 * at db_hint_offset: nonzero while it will read every doorbell
	 * record again before it stops.  A post that stored its doorbell
	 * record, then issued a full fence, and reads nonzero there need not
	 * kick.
	 */
	__aligned_u64 db_hint_mmap_key;
	__u32 db_hint_offset;
	__u8 reserved_1a0[4];
	/*
	 * The kick ring: mmap() one page at kick_ring_mmap_key (MAP_SHARED,
	 * PROT_READ | PROT_WRITE), a struct orca_kick_ring (orca_hw_io.h)
	 * of kick_ring_entries entries.  Every QP of the context is created
	 * to be announced there: each post, once its doorbell record is
	 * stored, appends its QP number as orca_hw_io.h says, before the
	 * doorbell hint's test; the device does not read a record no entry
	 * names, but once a second.
	 */
	__aligned_u64 kick_ring_mmap_key;
	__u32 kick_ring_entries;
	__u8 reserved_220[4];
};

/*
 * ibv_import_device(): UVERBS_METHOD_QUERY_CONTEXT answers, in this
 * attribute, what alloc_ucontext answered for the context (a struct
 * orca_ibv_alloc_ucontext_resp), without the kick ring: its producer is
 * the provider context that allocated it, and a second one would write
 * over its entries, so an imported context kicks through the doorbell
 * page (or with the empty post).
 */
enum orca_ibv_query_context_attrs {
	ORCA_IBV_ATTR_QUERY_CONTEXT_RESP = (1U << UVERBS_ID_NS_SHIFT),
};

/*
 * ibv_import_pd(): ORCA_IBV_METHOD_PD_QUERY on UVERBS_OBJECT_PD succeeds
 * for a handle that names a PD of the context, and fails (ENOENT or
 * EINVAL, as uverbs looks the handle up) for any other; nothing else is
 * needed to use it.
 */
enum orca_ibv_query_pd_attrs {
	ORCA_IBV_ATTR_QUERY_PD_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
};

enum orca_ibv_pd_methods {
	ORCA_IBV_METHOD_PD_QUERY = (1U << UVERBS_ID_NS_SHIFT),
};

/*
 * ibv_query_rt_values_ex(): ORCA_IBV_METHOD_QUERY_CLOCK on
 * UVERBS_OBJECT_DEVICE reads the device's two clocks at one moment:
 * free_running, the clock of CQE timestamps (hca_core_clock kHz, its
 * bits completion_timestamp_mask), and real_time_ns, ns since the Epoch,
 * the clock of IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK.  EOPNOTSUPP
 * where the device has no clock (hca_core_clock 0).
 */
enum orca_ibv_query_clock_attrs {
	ORCA_IBV_ATTR_QUERY_CLOCK_RESP = (1U << UVERBS_ID_NS_SHIFT),
};

enum orca_ibv_device_methods {
	ORCA_IBV_METHOD_QUERY_CLOCK = (1U << UVERBS_ID_NS_SHIFT),
};

struct orca_ibv_query_clock_resp {
	__aligned_u64 free_running;
	__aligned_u64 real_time_ns;
};

/*
 * Device memory.  UVERBS_METHOD_DM_ALLOC answers, in the mandatory driver
 * attribute ORCA_IBV_ATTR_ALLOC_DM_RESP, where the allocation is mapped:
 * map_length bytes (whole pages) at offset mmap_key of the uverbs file,
 * the allocation's first byte at the mapping's start.  The provider
 * copies in and out of it (ibv_memcpy_to_dm / _from_dm).  The pages stay
 * the context's until the DM is freed and no mapping of them is left.
 * ORCA_IBV_METHOD_DM_QUERY on UVERBS_OBJECT_DM tells the same of a DM
 * handle of the context, and its length (ibv_import_dm()).
 */
enum orca_ibv_alloc_dm_attrs {
	ORCA_IBV_ATTR_ALLOC_DM_RESP = (1U << UVERBS_ID_NS_SHIFT),
};

struct orca_ibv_alloc_dm_resp {
	__aligned_u64 mmap_key;
	__aligned_u64 map_length;
};

enum orca_ibv_query_dm_attrs {
	ORCA_IBV_ATTR_QUERY_DM_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
	ORCA_IBV_ATTR_QUERY_DM_RESP,
};

enum orca_ibv_dm_methods {
	ORCA_IBV_METHOD_DM_QUERY = (1U << UVERBS_ID_NS_SHIFT),
};

struct orca_ibv_query_dm_resp {
	__aligned_u64 mmap_key;
	__aligned_u64 map_length;
	__aligned_u64 length;
};

/*
 * Attributes struct ib_uverbs_ex_query_device_resp does not carry; the
 * bits say which fields are valid.
 */
enum orca_ibv_query_device_resp_mask {
	/* max_tso, tso_supported_qpts */
	ORCA_IBV_QUERY_DEVICE_RESP_TSO_CAPS	= 1 << 0,
	/* qp_rate_limit_min/max, packet_pacing_supported_qpts */
	ORCA_IBV_QUERY_DEVICE_RESP_PACKET_PACING_CAPS = 1 << 1,
	/* pci_atomic_fetch_add/swap/compare_swap */
	ORCA_IBV_QUERY_DEVICE_RESP_PCI_ATOMIC_CAPS = 1 << 2,
};

struct orca_ibv_ex_query_device_resp {
	__u32 comp_mask;		/* ORCA_IBV_QUERY_DEVICE_RESP_* */
	__u32 max_tso;
	__u32 tso_supported_qpts;
	__u32 qp_rate_limit_min;
	__u32 qp_rate_limit_max;
	__u32 packet_pacing_supported_qpts;
	__u16 pci_atomic_fetch_add;
	__u16 pci_atomic_swap;
	__u16 pci_atomic_compare_swap;
	__u8 reserved_f0[2];
};

/*
 * Queues live in one page-aligned buffer the provider allocates per CQ
 * and per QP; the kernel pins it and the device reaches it through its
 * page list.  Geometry and entry formats: orca_hw_io.h (I/O formats
 * shared by the provider and the device).
 */
struct orca_ibv_create_cq {
	__aligned_u64 buf_va;
	__u32 buf_len;
	__u32 dbrec_off;		/* struct orca_cq_dbrec */
	__u32 log_depth;		/* ring of 2^log_depth CQEs */
	__u8 reserved_a0[4];
};

struct orca_ibv_create_cq_resp {
	__u32 cqn;
	__u8 reserved_20[4];
};

struct orca_ibv_create_qp {
	__aligned_u64 buf_va;
	__u32 buf_len;
	__u32 rq_off;			/* receive queue in the buffer */
	__u32 dbrec_off;		/* struct orca_qp_dbrec */
	__u8 sq_log_depth;
	__u8 sq_log_stride;
	__u8 rq_log_depth;
	__u8 rq_log_stride;
};

/*
 * Shared receive queue: one page-aligned buffer with the ring of
 * 2^log_depth receive WQEs of 2^log_stride bytes at offset 0 and the
 * struct orca_srq_dbrec at dbrec_off.
 */
struct orca_ibv_create_srq {
	__aligned_u64 buf_va;
	__u32 buf_len;
	__u32 dbrec_off;		/* struct orca_srq_dbrec */
	__u8 log_depth;
	__u8 log_stride;
	__u8 reserved_90[6];
};

struct orca_ibv_create_srq_resp {
	__u32 srqn;
	__u8 reserved_20[4];
};

/* The device's handle of an address handle, for UD send WQEs. */
struct orca_ibv_create_ah_resp {
	__u32 ahn;
	__u8 reserved_20[4];
};

enum orca_ibv_create_qp_resp_mask {
	ORCA_IBV_CREATE_QP_RESP_ECE_OPTIONS	= 1 << 0,
};

struct orca_ibv_create_qp_resp {
	__u32 comp_mask;		/* ORCA_IBV_CREATE_QP_RESP_* */
	__u32 ece_options;		/* options the device supports for it */
};

enum orca_ibv_modify_qp_mask {
	ORCA_IBV_MODIFY_QP_ECE_OPTIONS		= 1 << 0,
};

struct orca_ibv_modify_qp {
	__u32 comp_mask;		/* ORCA_IBV_MODIFY_QP_* */
	__u32 ece_options;		/* requested */
};

enum orca_ibv_modify_qp_resp_mask {
	ORCA_IBV_MODIFY_QP_RESP_ECE_OPTIONS	= 1 << 0,
	ORCA_IBV_MODIFY_QP_RESP_ECE_NEGOTIATED	= 1 << 1,
};

struct orca_ibv_modify_qp_resp {
	__u32 comp_mask;		/* ORCA_IBV_MODIFY_QP_RESP_* */
	__u32 ece_options;		/* in force after this modify */
	/*
	 * 1 if this modify was the transition (INIT->RTR or RTR->RTS, from
	 * the state the device had) that negotiated the requested options:
	 * the request is settled, whatever state userspace believed in.
	 */
	__u32 ece_negotiated;
	__u8 reserved_60[4];
};

#endif /* ORCA_ABI_USER_H */
