/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * orca firmware command transport: command queue, event queue, tokens,
 * timeouts and the sticky "device dead" state.
 */
#ifndef _ORCA_COM_H_
#define _ORCA_COM_H_

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/ktime.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "orca_hw.h"

struct orca_com;

/*
 * How the transport reaches the device: the PCI path maps BAR2 and rings
 * the ivshmem doorbell; the KUnit suite puts a fake device behind it.
 */
struct orca_com_ops {
	u32 (*read32)(struct orca_com *com, u32 off);
	u64 (*read64)(struct orca_com *com, u32 off);
	void (*write32)(struct orca_com *com, u32 off, u32 val);
	void (*write64)(struct orca_com *com, u32 off, u64 val);
	void (*ring)(struct orca_com *com, u32 vec);
};

/* Called for every asynchronous EQE, with the EQ lock held (atomic). */
typedef void (*orca_com_event_fn)(struct orca_com *com,
				  const struct orca_eqe *eqe);
/*
 * Called (atomic, EQ lock not held) when the device reports that it
 * dropped @lost asynchronous events because the EQ was full.
 */
typedef void (*orca_com_overflow_fn)(struct orca_com *com, u32 lost);

/*
 * One outstanding command; owns its input and output mailbox pages.
 * token, opcode, posted and completed change under the EQ lock.
 */
struct orca_cmd_ctx {
	struct completion done;
	u16 token;		/* 0 while free or abandoned */
	u16 opcode;		/* of the command holding the token */
	ktime_t posted;		/* when it was taken, for latency and age */
	bool completed;
	u8 status;
	u32 syndrome;
	u16 out_len;
	u8 inline_out[ORCA_CMD_INLINE_OUT];
	void *in_mbox;
	dma_addr_t in_mbox_dma;
	void *out_mbox;
	dma_addr_t out_mbox_dma;
};

/* Transport counters; read by the hw_counters and debugfs files. */
enum orca_com_stat {
	ORCA_STAT_CMDS,
	ORCA_STAT_CMD_ERRORS,
	ORCA_STAT_TIMEOUTS,
	ORCA_STAT_MISSED_IRQS,
	ORCA_STAT_STALE_COMPLETIONS,
	ORCA_STAT_ASYNC_EVENTS,
	ORCA_STAT_LOST_EVENTS,
	ORCA_STAT_KERNEL_KICKS,		/* doorbells rung for kernel QPs */
	ORCA_STAT_NUM
};

struct orca_com_stats {
	atomic64_t v[ORCA_STAT_NUM];
};

struct orca_com {
	struct device *dmadev;
	const struct orca_com_ops *ops;
	orca_com_event_fn event_fn;
	orca_com_overflow_fn overflow_fn;

	/* command queue; cmdq_lock orders entry writes and cmdq_pi */
	struct orca_cmdq_entry *cmdq;
	dma_addr_t cmdq_dma;
	u32 cmdq_depth;
	u32 cmdq_pi;
	spinlock_t cmdq_lock;		/* entries, cmdq_pi, doorbell */

	/* command contexts; ctx_lock guards ctx_used and token_seq */
	struct semaphore credits;
	struct orca_cmd_ctx *ctxs;
	unsigned long *ctx_used;
	u16 token_seq;
	spinlock_t ctx_lock;		/* ctx_used, token_seq */

	/* event queue; eq_lock serialises consumers and completions */
	struct orca_eqe *eq;
	dma_addr_t eq_dma;
	u32 eq_depth;
	u32 eq_ci;
	spinlock_t eq_lock;		/* eq_ci, completions, heartbeat */

	bool event_mode;	/* the IRQ handler completes commands */
	unsigned long state;	/* ORCA_COM_DEAD */
	unsigned int timeout_ms;

	/* the firmware the queues were given to (orca_com_program_queues) */
	u64 fw_magic;
	u64 fw_version;
	u64 fw_generation;

	/* heartbeat sampling, under eq_lock */
	u64 hb_value;
	unsigned long hb_stamp;
	u32 eq_overflows;	/* device count already reported, eq_lock */

	struct orca_com_stats stats;
};

#define ORCA_COM_DEAD		0

/*
 * How a command ended, as the orca_cmd trace event reports it: the device's
 * ORCA_STATUS_* (8 bits), or one of these when there was no completion.
 */
#define ORCA_CMD_STATUS_TIMEOUT	0x100	/* none within cmd_timeout_ms */
#define ORCA_CMD_STATUS_DEAD	0x101	/* device dead before or while waiting */
#define ORCA_CMD_STATUS_NO_SLOT	0x102	/* no command context free in time */

/* A firmware that has not moved its heartbeat for this long is dead. */
#define ORCA_HB_DEAD_MS		(30 * ORCA_HEARTBEAT_PERIOD_MS)
/* How often a waiter re-polls the EQ and checks health. */
#define ORCA_CMD_POLL_SLICE_MS	250
/* How often the driver checks an idle device's health. */
#define ORCA_HEALTH_POLL_MS	1000
/* The device samples dev_ctl at least every heartbeat period. */
#define ORCA_RESET_TIMEOUT_MS	(10 * ORCA_HEARTBEAT_PERIOD_MS)

int orca_com_init(struct orca_com *com, struct device *dmadev,
		  const struct orca_com_ops *ops, orca_com_event_fn event_fn,
		  unsigned int timeout_ms);
void orca_com_destroy(struct orca_com *com);
void orca_com_leak_dma(struct orca_com *com);
int orca_com_dev_reset(struct orca_com *com);
bool orca_com_reset_acked(struct orca_com *com);
void orca_com_program_queues(struct orca_com *com);
void orca_com_set_event_mode(struct orca_com *com, bool on);
void orca_com_process_eq(struct orca_com *com);
void orca_com_check_health(struct orca_com *com);
int orca_com_exec(struct orca_com *com, u16 opcode, const void *in,
		  size_t in_len, void *out, size_t out_len);
void orca_com_set_dead(struct orca_com *com, const char *why);
bool orca_com_is_dead(struct orca_com *com);
void orca_com_count(struct orca_com *com, enum orca_com_stat stat);
u64 orca_com_stat(struct orca_com *com, enum orca_com_stat stat);
const char *orca_com_stat_name(enum orca_com_stat stat);
int orca_com_status_to_errno(u8 status);
bool orca_com_cmd_releases(u16 opcode);
const char *orca_com_opcode_str(u16 opcode);

#endif /* _ORCA_COM_H_ */
