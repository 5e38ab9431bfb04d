/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca-fabric: the faults of one end of an inter-switch link, what that
 * end sends: packets lost at random (LOSS_PPM of a million; never a
 * LINK_UP message: a lost "my end came up" is a flap, which `link` does)
 * and every message held back DELAY_US (FIFO, at most FAB_FAULT_MAX_HELD,
 * so order is kept; more are dropped as a full queue drops).  The link's
 * carrier asks fab_fault_admit() before it carries a message, and
 * carries what fab_fault_due() gives back when its time has come: a TCP
 * link to another fabric (fabric_remote.c) and a cable between two
 * switches of this one (fabric_topo.c) alike.
 */
#ifndef ORCA_FABRIC_FAULT_H
#define ORCA_FABRIC_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "orca_fabric_proto.h"

#define FAB_FAULT_MAX_HELD		512
#define FAB_FAULT_MAX_DELAY_US	10000000

/* A message a delay holds, and when it goes. */
struct fab_fault_msg {
	uint64_t due_us;
	size_t len;
	uint8_t msg[ORCA_FAB_MSG_MAX];
};

struct fab_fault {
	uint32_t loss_ppm, delay_us;
	uint64_t rng;
	struct fab_fault_msg *held;	/* FAB_FAULT_MAX_HELD, once delayed */
	unsigned int held_first, held_n;
	uint64_t drops;			/* lost by loss_ppm */
	uint64_t delayed;		/* held by delay_us */
	uint64_t overflows;		/* dropped: FAB_FAULT_MAX_HELD held */
};

enum fab_fault_verdict {
	FAB_FAULT_PASS,			/* carry it now */
	FAB_FAULT_LOST,			/* lost (counted) */
	FAB_FAULT_HELD,			/* copied, fab_fault_due() gives it */
	FAB_FAULT_FULL,			/* dropped: no room to hold it */
};

/*
 * From now on: @loss_ppm (<= 1000000) of the packets lost, every
 * message @delay_us (<= FAB_FAULT_MAX_DELAY_US) late; 0 and 0 for none.
 * Messages held by an earlier delay keep their time.  0, or -1 with @err.
 */
int fab_fault_set(struct fab_fault *f, uint32_t loss_ppm, uint32_t delay_us,
		  char *err, size_t len);
void fab_fault_free(struct fab_fault *f);
/* What becomes of the message @msg (@len bytes) sent at @now_us. */
enum fab_fault_verdict fab_fault_admit(struct fab_fault *f,
				       const uint8_t *msg, size_t len,
				       uint64_t now_us);
/*
 * The oldest held message if its time has come by @now_us (its length,
 * *@msg pointing at it until the next fab_fault_admit()), else 0.
 */
size_t fab_fault_due(struct fab_fault *f, uint64_t now_us,
		     const uint8_t **msg);
/* Messages held: the loop must come back within a millisecond. */
static inline bool fab_fault_holding(const struct fab_fault *f)
{
	return f->held_n;
}

/* The link went down: what was on the cable is gone. */
static inline void fab_fault_flush(struct fab_fault *f)
{
	f->held_n = 0;
}

/* CLOCK_MONOTONIC in microseconds: the clock of due_us */
uint64_t fab_fault_now_us(void);

#endif /* ORCA_FABRIC_FAULT_H */
