// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the device clock.  Every timer of the model
 * (retransmit, RNR, link delay, doorbell poll, fabric reconnect) reads
 * the time here, so that a unit test that installed a virtual clock
 * decides when they expire, not the host's scheduler.
 */
#include <time.h>

#include "orca_clock.h"

uint64_t orca_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* One clock for every device of the process: a test's devices agree. */
static uint64_t (*clock_ns)(void) = orca_mono_ns;
/* real time minus the virtual clock, fixed when a test installs one */
static uint64_t virtual_epoch;

void orca_dev_set_clock(uint64_t (*now_ns)(void))
{
	clock_ns = now_ns ? now_ns : orca_mono_ns;
	if (now_ns)
		virtual_epoch = realtime_ns() - now_ns();
}

uint64_t dp_now_ns(void)
{
	return clock_ns();
}

uint64_t dp_real_time_ns(void)
{
	if (clock_ns != orca_mono_ns)
		return virtual_epoch + clock_ns();
	return realtime_ns();
}

uint64_t dp_clock_ticks(uint64_t ns, uint64_t khz, uint64_t mask)
{
	/* ns * kHz / 10^6 without overflow: 2^64 ns is 584 years */
	return (uint64_t)((unsigned __int128)ns * khz / 1000000U) & mask;
}
