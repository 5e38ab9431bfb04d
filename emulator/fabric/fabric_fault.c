// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* orca-fabric: loss and delay at one end of a link (fabric_fault.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric_fault.h"
#include "orca_clock.h"

uint64_t fab_fault_now_us(void)
{
	return orca_mono_ns() / 1000;
}

/* xorshift64*: the loss's dice, a million faces */
static uint32_t dice(struct fab_fault *f)
{
	f->rng ^= f->rng >> 12;
	f->rng ^= f->rng << 25;
	f->rng ^= f->rng >> 27;
	return (f->rng * 0x2545f4914f6cdd1dULL >> 32) % 1000000;
}

int fab_fault_set(struct fab_fault *f, uint32_t loss_ppm, uint32_t delay_us,
		  char *err, size_t len)
{
	if (loss_ppm > 1000000 || delay_us > FAB_FAULT_MAX_DELAY_US) {
		snprintf(err, len, "loss up to 1000000 ppm, delay up to %u us",
			 FAB_FAULT_MAX_DELAY_US);
		return -1;
	}
	if (delay_us && !f->held) {
		f->held = calloc(FAB_FAULT_MAX_HELD, sizeof(*f->held));
		if (!f->held) {
			snprintf(err, len, "out of memory for the delay");
			return -1;
		}
	}
	if (loss_ppm && !f->rng)
		f->rng = fab_fault_now_us() | 1;
	f->loss_ppm = loss_ppm;
	f->delay_us = delay_us;
	return 0;
}

void fab_fault_free(struct fab_fault *f)
{
	free(f->held);
	f->held = NULL;
	f->held_n = 0;
}

enum fab_fault_verdict fab_fault_admit(struct fab_fault *f,
				       const uint8_t *msg, size_t len,
				       uint64_t now_us)
{
	struct fab_fault_msg *m;

	if (f->loss_ppm && msg[0] == ORCA_FAB_PKT && dice(f) < f->loss_ppm) {
		f->drops++;
		return FAB_FAULT_LOST;
	}
	if (!f->delay_us && !f->held_n)
		return FAB_FAULT_PASS;
	/* behind what is held already, even after the delay went */
	if (f->held_n == FAB_FAULT_MAX_HELD || len > ORCA_FAB_MSG_MAX) {
		f->overflows++;
		return FAB_FAULT_FULL;
	}
	m = &f->held[(f->held_first + f->held_n) % FAB_FAULT_MAX_HELD];
	m->due_us = now_us + f->delay_us;
	m->len = len;
	memcpy(m->msg, msg, len);
	f->held_n++;
	f->delayed++;
	return FAB_FAULT_HELD;
}

size_t fab_fault_due(struct fab_fault *f, uint64_t now_us,
		     const uint8_t **msg)
{
	const struct fab_fault_msg *m;

	if (!f->held_n || f->held[f->held_first].due_us > now_us)
		return 0;
	m = &f->held[f->held_first];
	f->held_first = (f->held_first + 1) % FAB_FAULT_MAX_HELD;
	f->held_n--;
	*msg = m->msg;
	return m->len;
}
