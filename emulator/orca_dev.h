/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca device model: its entry points (orca_dev.c, orca_hooks.c, and
 * those of the engine, orca_engine.h), all a user of the device needs.
 *
 * The model knows nothing about sockets or eventfds.  It owns the register
 * block (BAR2 memory supplied by the caller), reaches host memory through
 * a bounds-checked DMA layer over a caller-supplied mapping, and signals
 * MSI-X through a callback.  The ivshmem glue and the unit tests drive it
 * through the same entry points: orca_dev_connect(), orca_dev_set_ram(),
 * orca_dev_doorbell(), orca_dev_tick() and the orca_dev_hook_*() test hooks.
 */
#ifndef ORCA_DEV_H
#define ORCA_DEV_H

#include "orca_clock.h"
#include "orca_engine.h"
#include "orca_names.h"
#include "orca_types.h"

/*
 * Create the device over BAR2 memory @regs: ORCA_BAR2_SIZE bytes (the
 * register block, and device memory from ORCA_DM_BAR_OFFSET).  @cfg must
 * be finalized.  Returns 0 or -ENOMEM.
 */
int orca_dev_init(struct orca_dev *dev, const struct orca_cfg *cfg,
		  struct orca_regs *regs,
		  void (*raise_irq)(void *priv, unsigned int vec),
		  void *irq_priv);
void orca_dev_destroy(struct orca_dev *dev);

/* A new host (QEMU) connected: forget everything, generation++. */
void orca_dev_connect(struct orca_dev *dev);
/*
 * A new firmware incarnation boots on a function that stayed connected
 * (orca-emu --restart-after): the register block as at power-on, the
 * generation stepped, no objects.
 */
void orca_dev_fw_restart(struct orca_dev *dev);
/* The host went away: drop objects, detach memory, no more DMA. */
void orca_dev_disconnect(struct orca_dev *dev);

/* Attach (or with ram == NULL detach) the host memory mapping. */
void orca_dev_set_ram(struct orca_dev *dev, uint8_t *ram, uint64_t size);

/* The driver rang firmware doorbell vector @vec (ORCA_FW_VEC_*). */
void orca_dev_doorbell(struct orca_dev *dev, unsigned int vec);
/* ... @writes times, which the host's event counter coalesced into one */
void orca_dev_doorbells(struct orca_dev *dev, unsigned int vec,
			uint64_t writes);

/* Heartbeat period elapsed (ORCA_HEARTBEAT_PERIOD_MS). */
void orca_dev_tick(struct orca_dev *dev);

/* Test hooks: return 0 or -1 with a reason in err. */
int orca_dev_hook_qp_fatal(struct orca_dev *dev, uint32_t qpn, char *err,
			   size_t errlen);
int orca_dev_hook_sq_error(struct orca_dev *dev, uint32_t qpn, char *err,
			   size_t errlen);
int orca_dev_hook_port(struct orca_dev *dev, bool up, char *err,
		       size_t errlen);
void orca_dev_hook_fatal(struct orca_dev *dev, uint32_t syndrome);
void orca_dev_hook_hang(struct orca_dev *dev);
/* Hang for @ms (rounded up to heartbeat periods), then resume. */
void orca_dev_hook_stall(struct orca_dev *dev, uint32_t ms);
/* Hold every command completion @ms (0: off). */
void orca_dev_hook_cmd_delay(struct orca_dev *dev, uint32_t ms);
void orca_dev_hook_comp_irq_hold(struct orca_dev *dev, bool hold);
/*
 * Stay awake (@hold): the doorbell hint says so from now on and the
 * device reads the doorbell records on every pass instead of sleeping,
 * so that a test sees posts skip their kicks whatever the timing.
 */
void orca_dev_hook_db_awake_hold(struct orca_dev *dev, bool hold);
/* A lossy link from now on (per million packets; a hold in us). */
bool orca_dev_hook_link_faults(struct orca_dev *dev, uint32_t drop_ppm,
			       uint32_t dup_ppm, uint32_t reorder_ppm,
			       uint32_t delay_us);
/* Post @n COMM_EST events for @qpn at once, then move it to ERR. */
int orca_dev_hook_eq_flood(struct orca_dev *dev, uint32_t n, uint32_t qpn,
			   char *err, size_t errlen);
/* Report @val for caps/port field @field ("clear": stop lying). */
int orca_dev_hook_caps_override(struct orca_dev *dev, const char *field,
				uint64_t val, char *err, size_t errlen);
/*
 * A device that breaks the protocol (ctl "misbehave KIND [ARG]"): see
 * orca_hooks.c for the kinds.  0, or -1 with a reason in err.
 */
int orca_dev_hook_misbehave(struct orca_dev *dev, const char *kind,
			    uint32_t arg, char *err, size_t errlen);
/* One line of "key=value" counters. */
void orca_dev_format_stats(const struct orca_dev *dev, char *buf, size_t len);

#endif /* ORCA_DEV_H */
