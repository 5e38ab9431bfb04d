/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca device model: the device clock (orca_clock.c), in ns.
 */
#ifndef ORCA_CLOCK_H
#define ORCA_CLOCK_H

#include <stdint.h>

uint64_t dp_now_ns(void);
/*
 * The device's real-time clock, ns since the Epoch: CLOCK_REALTIME, or
 * under a test's virtual clock that clock plus the real time at which
 * the test installed it, so that the two advance together.
 */
uint64_t dp_real_time_ns(void);
/* @ns of the device clock as ticks of a @khz counter of @mask's bits */
uint64_t dp_clock_ticks(uint64_t ns, uint64_t khz, uint64_t mask);
/*
 * The host's CLOCK_MONOTONIC, in ns, whatever clock the devices run on:
 * for what is about the host itself (the poll loop's sleep, a polling
 * window, a lease the SM counts in real time).  orca-fabric's too.
 */
uint64_t orca_mono_ns(void);
/*
 * The device clock, in ns, that every timer of the model runs on:
 * CLOCK_MONOTONIC unless a unit test installs its own @now_ns (a virtual
 * clock it moves itself); NULL restores CLOCK_MONOTONIC.  One for all
 * devices of the process.
 */
void orca_dev_set_clock(uint64_t (*now_ns)(void));

#endif /* ORCA_CLOCK_H */
