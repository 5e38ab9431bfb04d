/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca device model, layer 5: the engine.  orca_sched.c runs the
 * transport over every QP and the link, and its timers; orca_dbhint.c
 * keeps the doorbell hint and polls after a kick.  The functions named
 * orca_dev_*() are entry points of the device (orca_dev.h).
 */
#ifndef ORCA_ENGINE_H
#define ORCA_ENGINE_H

#include "orca_link.h"

/* orca_sched.c */
bool dp_run(struct orca_dev *dev);
/* Retransmit and RNR timers that expired. */
void dp_timers(struct orca_dev *dev);

/* orca_dbhint.c */
/* Write the doorbell hint's awake word (orca_hw.h), if it changes. */
void db_hint_set(struct orca_dev *dev, bool awake);
void db_poll_kicked(struct orca_dev *dev);

/*
 * The data path: while orca_dev_busy(), call orca_dev_work() again
 * without waiting; otherwise call it by orca_dev_next_deadline()
 * (ns of the device clock, 0 = no timer).
 */
bool orca_dev_busy(const struct orca_dev *dev);
uint64_t orca_dev_next_deadline(const struct orca_dev *dev);
void orca_dev_work(struct orca_dev *dev);

/*
 * Call before every wait for a doorbell: with the doorbell hint
 * (orca_hw.h) the device says it stops and reads the doorbell records a
 * last time.  true: that found work, do not wait.
 */
bool orca_dev_idle(struct orca_dev *dev);

/*
 * The fabric (cfg fabric=PATH, orca_fabric.c).  Each pass of the poll
 * loop: orca_dev_fabric_pollfd() fills up to @max of @pfd (the
 * connection and its direct links, ORCA_FAB_POLLFDS at most) and returns
 * how many (0: none; it also connects when it is time to), and
 * orca_dev_fabric_io() gets them back with their revents, on every pass
 * (a shared-memory ring has no descriptor of its own to wake the loop).
 * Before a poll that may sleep, orca_dev_fabric_may_sleep(): false if
 * the link has work now; true once the fabric knows to wake us.
 */
int orca_dev_fabric_pollfd(struct orca_dev *dev, struct pollfd *pfd,
			   unsigned int max);
bool orca_dev_fabric_may_sleep(struct orca_dev *dev);
void orca_dev_fabric_io(struct orca_dev *dev, const struct pollfd *pfd,
			unsigned int n);

#endif /* ORCA_ENGINE_H */
