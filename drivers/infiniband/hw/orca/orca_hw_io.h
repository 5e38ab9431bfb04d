/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca HCA I/O formats: what userspace and the device exchange without the
 * kernel in the middle.  Send and receive work queue entries, completion
 * queue entries and doorbell records, all in rings in host memory that
 * the provider owns and the kernel pins.
 *
 * Compiled by the driver (through orca_hw.h), the device model and the
 * libibverbs provider, so it uses only <linux/types.h> types.  All fields
 * are little-endian except immediate data, which the consumer reads as the
 * big-endian value libibverbs carries.
 */
#ifndef ORCA_HW_IO_H
#define ORCA_HW_IO_H

#include <linux/types.h>

#ifdef __KERNEL__
#include <linux/bits.h>
#elif !defined(BIT)
#define BIT(nr)				(1UL << (nr))
#endif

/*
 * Rings.  A queue is 2^log_depth entries of 2^log_stride bytes in one
 * buffer the provider allocates page-aligned.  An entry never crosses a
 * page of the buffer (strides are powers of two no larger than a page).
 * Indices are free-running 32-bit counters; entry i is at
 * (i & (depth - 1)) << log_stride.
 *
 * A QP's buffer holds its send queue at offset 0, its receive queue at
 * rq_off and its doorbell record at dbrec_off; a CQ's buffer holds the
 * CQE ring at 0 and its doorbell record at dbrec_off; an SRQ's buffer
 * holds its ring of receive WQEs at 0 and its doorbell record at
 * dbrec_off.
 */
#define ORCA_SQ_MIN_LOG_STRIDE		6	/* 64 B */
#define ORCA_SQ_MAX_LOG_STRIDE		11	/* 2 KiB */
#define ORCA_RQ_MIN_LOG_STRIDE		5	/* 32 B */
#define ORCA_RQ_MAX_LOG_STRIDE		12
#define ORCA_CQE_LOG_SIZE		6	/* 64 B */

/*
 * Doorbell records: written by the provider, read by the device.  The
 * provider stores the new producer index after the entries it covers
 * are in memory (release), then kicks the device; the device re-reads
 * the record on every kick and every heartbeat, so a kick is only a hint.
 */
struct orca_qp_dbrec {
	__le32 sq_pi;
	__le32 rq_pi;
};

/*
 * A shared receive queue's record: the producer index of its ring.  The
 * device reads it whenever a QP attached to the SRQ needs a receive WQE.
 */
struct orca_srq_dbrec {
	__le32 pi;
	__le32 reserved;
};

/*
 * The consumer index lets the device see free CQ entries.  The arm word
 * asks for a completion event: ORCA_CQ_ARM_NEXT for the next CQE, with
 * ORCA_CQ_ARM_SOLICITED only for a solicited or error one.  The sequence
 * number in bits 31:2 is the consumer's count of events it received; the
 * device fires once per sequence number, so an arm is one-shot and a
 * stale one never fires twice.  The device reads the word after each CQE,
 * and once a heartbeat for a CQ whose ci is behind its CQEs: an arm over
 * CQEs unread may fire then (a host may let the consumer's look at the
 * ring pass its store of the arm).
 */
struct orca_cq_dbrec {
	__le32 ci;
	__le32 arm;
};

#define ORCA_CQ_ARM_NEXT		BIT(0)
#define ORCA_CQ_ARM_SOLICITED		BIT(1)
#define ORCA_CQ_ARM_SN_SHIFT		2

/* Send WQE opcodes. */
enum orca_wr_opcode {
	ORCA_WR_SEND			= 0x01,
	ORCA_WR_SEND_WITH_IMM		= 0x02,
	ORCA_WR_RDMA_WRITE		= 0x03,
	ORCA_WR_RDMA_WRITE_WITH_IMM	= 0x04,
	ORCA_WR_RDMA_READ		= 0x05,
	ORCA_WR_ATOMIC_CMP_AND_SWP	= 0x06,
	ORCA_WR_ATOMIC_FETCH_AND_ADD	= 0x07,
	ORCA_WR_SEND_WITH_INV		= 0x08,	/* RC: rkey = key to invalidate */
	ORCA_WR_LOCAL_INV		= 0x09,	/* rkey = key to invalidate */
	ORCA_WR_BIND_MW			= 0x0a,	/* struct orca_bind_wqe */
	ORCA_WR_REG_MR			= 0x0b,	/* struct orca_reg_wqe */
	/*
	 * RC, ORCA_DEV_CAP_ATOMIC_WRITE: the 8 bytes of compare_add, as they
	 * lie in the WQE, written at remote_addr (8-byte aligned) in one
	 * store (IBA 1.5 ATOMIC WRITE); no SGE, no inline data.  The remote
	 * region and QP need REMOTE_WRITE, and it takes a responder resource
	 * as a READ does.
	 */
	ORCA_WR_ATOMIC_WRITE		= 0x0c,
};

/*
 * Access rights of a memory region or window (and, the remote ones, of a
 * QP).  IBTA semantics; RELAXED_ORDERING gives up data-in-order for the
 * region.  A window carries only the REMOTE_* rights.
 */
#define ORCA_ACCESS_LOCAL_WRITE		BIT(0)
#define ORCA_ACCESS_REMOTE_WRITE	BIT(1)
#define ORCA_ACCESS_REMOTE_READ		BIT(2)
#define ORCA_ACCESS_REMOTE_ATOMIC	BIT(3)
#define ORCA_ACCESS_MW_BIND		BIT(4)
#define ORCA_ACCESS_RELAXED_ORDERING	BIT(5)

/* Send WQE flags. */
#define ORCA_WQE_F_SIGNALED		BIT(0)	/* completion wanted */
#define ORCA_WQE_F_SOLICITED		BIT(1)
#define ORCA_WQE_F_FENCE		BIT(2)
#define ORCA_WQE_F_INLINE		BIT(3)	/* data follows the header */
/*
 * UD, on a QP created with ORCA_QP_CREATE_UD_AV: a struct orca_av
 * follows the header (ud_ah is 0), then the SGEs or the inline data.
 */
#define ORCA_WQE_F_UD_AV		BIT(4)

/* Scatter/gather element. */
struct orca_sge {
	__le64 addr;
	__le32 length;
	__le32 lkey;
};

/*
 * Send WQE: this header, then num_sge SGEs or inline_len bytes of data.
 * Fields an opcode does not use are zero.
 */
struct orca_send_wqe {
	__u8 opcode;			/* 0x00 ORCA_WR_* */
	__u8 flags;			/* 0x01 ORCA_WQE_F_* */
	__u8 num_sge;			/* 0x02 */
	__u8 reserved0;			/* 0x03 */
	__le32 inline_len;		/* 0x04 */
	__be32 imm_data;		/* 0x08 */
	__le32 reserved1;		/* 0x0c */
	__le64 remote_addr;		/* 0x10 RDMA and atomics */
	__le32 rkey;			/* 0x18 RDMA, atomics; SEND_WITH_INV and
					 * LOCAL_INV: the key to invalidate
					 */
	__le32 reserved2;		/* 0x1c */
	__le64 compare_add;		/* 0x20 atomics; ATOMIC_WRITE's data */
	__le64 swap;			/* 0x28 CMP_AND_SWP */
	__le32 ud_ah;			/* 0x30 UD: address handle */
	__le32 ud_remote_qpn;		/* 0x34 */
	__le32 ud_remote_qkey;		/* 0x38 */
	__le16 ud_pkey_index;		/* 0x3c QP1 only: the P_Key to send */
	__le16 reserved3;		/* 0x3e */
};

/*
 * BIND_MW: the same 64 bytes, laid out for a memory window bind.  The
 * window is the one rkey's index names; it takes rkey (a type 2 window
 * the key byte the consumer chose, a type 1 window the one the provider
 * chose) and the range [addr, addr + length) of the region mr_lkey names,
 * with access (ORCA_ACCESS_REMOTE_*; LOCAL_WRITE is accepted and means
 * nothing for a window).  A type 2 window is bound to the QP that
 * executes the WQE.  length 0 (type 1 only) leaves the window bound to
 * nothing under its new key: every remote access with it fails.  Errors
 * complete with ORCA_CQE_MW_BIND_ERR.
 */
struct orca_bind_wqe {
	__u8 opcode;			/* 0x00 ORCA_WR_BIND_MW */
	__u8 flags;			/* 0x01 ORCA_WQE_F_* (no INLINE) */
	__u8 num_sge;			/* 0x02 0 */
	__u8 reserved0;			/* 0x03 */
	__le32 access;			/* 0x04 ORCA_ACCESS_* */
	__le32 mr_lkey;			/* 0x08 the region */
	__le32 reserved1;		/* 0x0c */
	__le64 addr;			/* 0x10 first byte of the window */
	__le32 rkey;			/* 0x18 the window's new key */
	__le32 reserved2;		/* 0x1c */
	__le64 length;			/* 0x20 */
	__u8 reserved3[0x18];		/* 0x28 */
};

/*
 * REG_MR: the same 64 bytes, laid out for a fast registration (IBA
 * 10.6.3.5), on a QP created with ORCA_QP_CREATE_FAST_REG.  The region is
 * the free one of ALLOC_MR whose index key names, in the QP's PD; it
 * becomes valid with key (its index, the new key byte), access
 * (ORCA_ACCESS_* but MW_BIND; remote write or atomic needs local write)
 * and [iova, iova + length), byte iova being iova % 2^page_shift into
 * the first of npages pages (at most the region's max_pages) whose
 * addresses, 2^page_shift aligned guest memory, are the __le64 array
 * at pbl.  The device reads the list when it executes the WQE, in QP
 * order, and keeps its own copy.  Errors (a region that is not free, of
 * another PD, a list too long or not in guest memory) complete with
 * ORCA_CQE_MW_BIND_ERR, the memory management operation error.
 */
struct orca_reg_wqe {
	__u8 opcode;			/* 0x00 ORCA_WR_REG_MR */
	__u8 flags;			/* 0x01 ORCA_WQE_F_* (no INLINE) */
	__u8 num_sge;			/* 0x02 0 */
	__u8 page_shift;		/* 0x03 */
	__le32 access;			/* 0x04 ORCA_ACCESS_* */
	__le32 key;			/* 0x08 the region's new key */
	__le32 npages;			/* 0x0c */
	__le64 iova;			/* 0x10 */
	__le64 length;			/* 0x18 */
	__le64 pbl;			/* 0x20 */
	__u8 reserved[0x18];		/* 0x28 */
};

/*
 * Receive WQE: this header, then num_sge SGEs.  Used by a QP's receive
 * queue and by a shared receive queue alike.  In an SRQ, wqe_id is the
 * consumer's name for the WQE: the device copies the WQE when a QP takes
 * it (the ring slot is free again at once) and reports wqe_id in the
 * CQE's wqe_idx, since SRQ WQEs complete in any order.  A QP's own
 * receive queue ignores it (its CQEs carry the ring index).
 */
struct orca_recv_wqe {
	__le32 num_sge;
	__le32 wqe_id;
	__le32 reserved[2];
};

/* CQE status: the values of enum ibv_wc_status / ib_wc_status. */
enum orca_cqe_status {
	ORCA_CQE_SUCCESS		= 0,
	ORCA_CQE_LOC_LEN_ERR		= 1,
	ORCA_CQE_LOC_QP_OP_ERR		= 2,
	ORCA_CQE_LOC_PROT_ERR		= 4,
	ORCA_CQE_WR_FLUSH_ERR		= 5,
	ORCA_CQE_MW_BIND_ERR		= 6,
	ORCA_CQE_BAD_RESP_ERR		= 7,
	ORCA_CQE_LOC_ACCESS_ERR		= 8,
	ORCA_CQE_REM_INV_REQ_ERR	= 9,
	ORCA_CQE_REM_ACCESS_ERR		= 10,
	ORCA_CQE_REM_OP_ERR		= 11,
	ORCA_CQE_RETRY_EXC_ERR		= 12,
	ORCA_CQE_RNR_RETRY_EXC_ERR	= 13,
	ORCA_CQE_FATAL_ERR		= 19,
	ORCA_CQE_GENERAL_ERR		= 21,
};

/* CQE opcode: the values of enum ibv_wc_opcode / ib_wc_opcode. */
enum orca_cqe_opcode {
	ORCA_CQE_OP_SEND		= 0,
	ORCA_CQE_OP_RDMA_WRITE		= 1,
	ORCA_CQE_OP_RDMA_READ		= 2,
	ORCA_CQE_OP_COMP_SWAP		= 3,
	ORCA_CQE_OP_FETCH_ADD		= 4,
	ORCA_CQE_OP_BIND_MW		= 5,
	ORCA_CQE_OP_LOCAL_INV		= 6,
	ORCA_CQE_OP_REG_MR		= 8,
	ORCA_CQE_OP_ATOMIC_WRITE	= 9,
	ORCA_CQE_OP_RECV		= 128,
	ORCA_CQE_OP_RECV_RDMA_WITH_IMM	= 129,
};

#define ORCA_CQE_F_SQ			BIT(0)	/* send queue entry */
#define ORCA_CQE_F_IMM			BIT(1)	/* imm_data valid */
#define ORCA_CQE_F_GRH			BIT(2)	/* GRH in the buffer */
#define ORCA_CQE_F_SRQ			BIT(3)	/* wqe_idx is an SRQ wqe_id */
#define ORCA_CQE_F_INV			BIT(4)	/* inv_rkey valid */

/*
 * CQE.  The device writes every field, then the owner byte last (release).
 * Entry i belongs to the consumer when owner == 1 + ((i >> log_depth) & 1):
 * the ring starts zeroed, and each pass around it flips the value, so a
 * stale entry never matches.  wqe_idx is the WQE's index in its queue: a
 * send CQE also retires every unsignaled WQE before it.  A receive that
 * used a WQE of the QP's SRQ has ORCA_CQE_F_SRQ and that WQE's wqe_id.
 * A receive of a SEND_WITH_INV has ORCA_CQE_F_INV and the key it
 * invalidated in inv_rkey.  A CQ created with ORCA_CQ_CREATE_TIMESTAMP
 * gets the device's clocks as it writes the entry (QUERY_CLOCK's two);
 * other CQs get 0 there.
 */
struct orca_cqe {
	__le32 qpn;			/* 0x00 */
	__le32 wqe_idx;			/* 0x04 */
	__le32 byte_len;		/* 0x08 */
	__be32 imm_data;		/* 0x0c */
	__le32 src_qp;			/* 0x10 */
	__le16 slid;			/* 0x14 */
	__le16 pkey_index;		/* 0x16 */
	__u8 status;			/* 0x18 ORCA_CQE_* status */
	__u8 opcode;			/* 0x19 ORCA_CQE_OP_* */
	__u8 flags;			/* 0x1a ORCA_CQE_F_* */
	__u8 sl;			/* 0x1b */
	__u8 dlid_path_bits;		/* 0x1c */
	__u8 vendor_err;		/* 0x1d device detail for errors */
	__u8 reserved0[2];		/* 0x1e */
	__le32 inv_rkey;		/* 0x20 with ORCA_CQE_F_INV */
	__u8 reserved1[4];		/* 0x24 */
	__le64 timestamp;		/* 0x28 free-running clock: */
	__le64 real_time;		/* 0x30 ORCA_CQ_CREATE_TIMESTAMP */
	__u8 reserved[0x3f - 0x38];	/* 0x38 */
	__u8 owner;			/* 0x3f */
};

/*
 * Kick rings.  A kick names no queue, so the device would have to read
 * every doorbell record it owns to find the one that moved: a cost that
 * grows with the QPs that exist, on every kick and every stop.  With
 * ORCA_DEV_CAP_KICK_RING a user context gets a kick ring, a page of host
 * memory (CREATE_KICK_RING, orca_hw_cmd.h) in which each post names its
 * QP.  The device reads the record of a QP created with
 * ORCA_QP_CREATE_KICK_RING only when a ring names it, when the QP has
 * work in flight, and once a second (the safety net); other QPs' records
 * on every kick, as before.
 *
 * A poster, once its doorbell record is stored:
 *	i = fetch_add(prod, 1);			(a full fence)
 *	if (i - cons >= ORCA_KICK_RING_ENTRIES)
 *		overflow = 1;
 *	else
 *		e[i % N].qpn = qpn, then e[i % N].seq = i + 1 (release);
 * then the doorbell hint's fence and test (orca_hw.h).  The device takes
 * entry cons while e[cons % N].seq == cons + 1, reads the QPN after the
 * sequence number, and publishes cons.  An entry reserved but not yet
 * written stops it until its next pass; its last pass before it sleeps
 * follows its clearing of the hint, so a poster that had not written its
 * entry by then reads the hint cleared, and kicks.  On overflow the
 * device stores overflow = 0, fences, reads prod, reads every record of
 * its ringed QPs and takes prod as cons: whoever reserved an entry before
 * that read of prod stored its record before it.  A ring's contents are
 * its context's claims only: a QPN that is not the context's own makes
 * the device read that QP's record, which changes nothing, and a ring its
 * user corrupts stalls only that user's QPs, for a second at most.
 */
#define ORCA_KICK_RING_ENTRIES		256

struct orca_kick_entry {
	__le32 seq;			/* index + 1, written last */
	__le32 qpn;
};

struct orca_kick_ring {
	__le32 prod;			/* 0x00 posters: entries reserved */
	__le32 cons;			/* 0x04 device: entries taken */
	__le32 overflow;		/* 0x08 posters: found it full */
	__u8 reserved[52];		/* 0x0c */
	struct orca_kick_entry e[ORCA_KICK_RING_ENTRIES];	/* 0x40 */
};

/* Smallest power-of-two exponent with 2^n >= v (v >= 1). */
static inline unsigned int orca_ilog2_up(__u64 v)
{
	unsigned int n = 0;

	while ((1ULL << n) < v)
		n++;
	return n;
}

/* Stride of a send queue whose WQEs carry max_sge SGEs or max_inline bytes. */
static inline unsigned int orca_sq_log_stride(__u32 max_sge, __u32 max_inline)
{
	/* in 64 bits: a caller's max_sge is not range-checked yet */
	__u64 sge_bytes = (__u64)max_sge * sizeof(struct orca_sge);
	__u64 body = sge_bytes > max_inline ? sge_bytes : max_inline;
	unsigned int n = orca_ilog2_up(sizeof(struct orca_send_wqe) + body);

	return n < ORCA_SQ_MIN_LOG_STRIDE ? ORCA_SQ_MIN_LOG_STRIDE : n;
}

static inline unsigned int orca_rq_log_stride(__u32 max_sge)
{
	unsigned int n = orca_ilog2_up(sizeof(struct orca_recv_wqe) +
				       (__u64)max_sge * sizeof(struct orca_sge));

	return n < ORCA_RQ_MIN_LOG_STRIDE ? ORCA_RQ_MIN_LOG_STRIDE : n;
}

#endif /* ORCA_HW_IO_H */
