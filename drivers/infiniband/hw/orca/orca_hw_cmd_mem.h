/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca HCA device interface: the payloads of the memory commands: page
 * lists (which the queue commands use too), memory regions (REG_MR,
 * REREG_MR, DEREG_MR, ALLOC_MR for fast registration) and memory
 * windows.  Included by orca_hw_cmd.h.
 */
#ifndef ORCA_HW_CMD_MEM_H
#define ORCA_HW_CMD_MEM_H

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
 * Device memory (ibv_alloc_dm): max_dm_size bytes of BAR2 from
 * ORCA_DM_BAR_OFFSET, at most ORCA_DM_MAX_SIZE, a multiple of
 * ORCA_DM_PAGE; none when max_dm_size is 0 (the commands are then
 * UNSUPPORTED).  The device gives it out in whole pages, so that a
 * mapping of one allocation shows nothing of another, and zeroes them
 * for each new owner.
 *
 * ALLOC_DM: length bytes (1 .. max_dm_size) at an offset in the window
 * aligned to 2^log_align (at most the window's size); NO_RESOURCES when
 * no run of free pages fits.  Output: its handle and the BAR2 offset of
 * its first byte.  DEALLOC_DM: BAD_RES_STATE / IN_USE while a region uses
 * it.
 */
#define ORCA_DM_BAR_OFFSET		0x80000
#define ORCA_DM_MAX_SIZE		0x80000
#define ORCA_DM_PAGE			4096

struct orca_alloc_dm_in {
	__le64 length;			/* 0x00 */
	__u8 log_align;			/* 0x08 */
	__u8 reserved[7];		/* 0x09 */
};

struct orca_alloc_dm_out {
	__le32 dm_handle;		/* 0x00 */
	__le32 reserved;		/* 0x04 */
	__le64 bar_offset;		/* 0x08 */
};

/* DEALLOC_DM input. */
struct orca_dm_handle {
	__le32 dm_handle;
	__le32 reserved;
};

/*
 * REG_DM_MR input: a region of PD pdn over [dm_offset, dm_offset +
 * length) of device memory dm_handle (within the length it was allocated
 * with), at iova, with REG_MR's access rules.  Length 0 is a region of no
 * bytes (ibv_reg_dm_mr allows it).  Output: struct orca_reg_mr_out.
 * DEREG_MR ends it; REREG_MR refuses it.  It counts against max_mr.
 */
struct orca_reg_dm_mr_in {
	__le64 iova;			/* 0x00 */
	__le64 length;			/* 0x08 */
	__le64 dm_offset;		/* 0x10 */
	__le32 pdn;			/* 0x18 */
	__le32 access;			/* 0x1c ORCA_ACCESS_* */
	__le32 dm_handle;		/* 0x20 */
	__le32 reserved;		/* 0x24 */
};

/* Layout checks (C11; both the kernel and the emulator build these) */
static_assert(sizeof(struct orca_alloc_dm_in) == 0x10, "orca_alloc_dm_in");
static_assert(sizeof(struct orca_alloc_dm_out) == 0x10, "orca_alloc_dm_out");
static_assert(sizeof(struct orca_reg_dm_mr_in) == 0x28, "orca_reg_dm_mr_in");
static_assert(sizeof(struct orca_alloc_mr_in) == 0x10, "orca_alloc_mr_in");
static_assert(sizeof(struct orca_pbl) == 16, "orca_pbl");
static_assert(sizeof(struct orca_reg_mr_in) == 0x30, "orca_reg_mr_in");
static_assert(sizeof(struct orca_rereg_mr_in) == 0x38, "orca_rereg_mr_in");
static_assert(sizeof(struct orca_alloc_mw_in) == 8, "orca_alloc_mw_in");
static_assert(sizeof(struct orca_mw_handle) == 8, "orca_mw_handle");

#endif /* ORCA_HW_CMD_MEM_H */
