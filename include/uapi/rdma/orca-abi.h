/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * Driver-specific uverbs payloads shared by the orca kernel driver and the
 * orca libibverbs provider.
 */
#ifndef ORCA_ABI_USER_H
#define ORCA_ABI_USER_H

#include <linux/types.h>

/*
 * Increment this value if any changes that break userspace ABI
 * compatibility are introduced.
 */
#define ORCA_UVERBS_ABI_VERSION 1

/*
 * Keep structs aligned to 8 bytes.
 * Keep reserved fields as arrays of __u8 named reserved_XXX where XXX is
 * the hex bit offset of the field.
 * Every response starts with comp_mask; new fields are appended and
 * announced by a comp_mask bit, so old providers keep working.
 */

enum orca_ibv_device_caps {
	ORCA_IBV_DEVICE_CAP_ECE			= 1 << 0,
	ORCA_IBV_DEVICE_CAP_PCI_WRITE_END_PADDING = 1 << 1,
	ORCA_IBV_DEVICE_CAP_DATA_IN_ORDER	= 1 << 2,
};

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

struct orca_ibv_alloc_ucontext_resp {
	__u32 comp_mask;
	__u32 device_caps;		/* ORCA_IBV_DEVICE_CAP_* */
	__u32 ece_vendor_id;		/* IEEE OUI; 0 when ECE is unsupported */
	__u32 ece_options;		/* ECE options the device supports */
	__u32 data_in_order_caps;	/* bytes of ORCA_IBV_DIO_*, see shifts */
	__u32 max_inline_data;
	__u64 fw_version;
};

enum orca_ibv_query_device_resp_mask {
	ORCA_IBV_QUERY_DEVICE_RESP_V1		= 1 << 0,
};

struct orca_ibv_ex_query_device_resp {
	__u32 comp_mask;		/* ORCA_IBV_QUERY_DEVICE_RESP_* */
	__u32 device_caps;		/* ORCA_IBV_DEVICE_CAP_* */
	__u32 ece_vendor_id;
	__u32 ece_options;
	__u32 data_in_order_caps;
	__u32 max_inline_data;
	/* attributes ib_uverbs_ex_query_device_resp does not carry */
	__u32 max_tso;
	__u32 tso_supported_qpts;
	__u32 qp_rate_limit_min;
	__u32 qp_rate_limit_max;
	__u32 packet_pacing_supported_qpts;
	__u16 pci_atomic_fetch_add;
	__u16 pci_atomic_swap;
	__u16 pci_atomic_compare_swap;
	__u8 reserved_190[6];
};

enum orca_ibv_create_qp_mask {
	ORCA_IBV_CREATE_QP_ECE			= 1 << 0,
};

struct orca_ibv_create_qp_resp {
	__u32 comp_mask;		/* ORCA_IBV_CREATE_QP_* */
	__u32 ece_options;		/* options the device supports for it */
	__u32 qpn;
	__u32 reserved_60;
};

enum orca_ibv_modify_qp_mask {
	ORCA_IBV_MODIFY_QP_ECE			= 1 << 0,
};

struct orca_ibv_modify_qp {
	__u32 comp_mask;		/* ORCA_IBV_MODIFY_QP_* */
	__u32 ece_options;		/* requested, with ORCA_IBV_MODIFY_QP_ECE */
};

struct orca_ibv_modify_qp_resp {
	__u32 comp_mask;		/* ORCA_IBV_MODIFY_QP_* */
	__u32 ece_options;		/* accepted by the device */
};

#endif /* ORCA_ABI_USER_H */
