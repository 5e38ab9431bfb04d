/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * A shared-memory link between two processes of one machine: the port's
 * cable to orca-fabric when both ends are here (orca_fabric_proto.h,
 * "Shared-memory link").  One ring per direction, one producer and one
 * consumer each, a fabric message (struct orca_fab_hdr and what follows)
 * per slot; no system call per message.
 *
 * Wake-ups are the doorbell hint's protocol (orca_hw.h) in both
 * directions:
 *
 *   consumer about to sleep:  store sleeping = 1; fence; load tail
 *                             (sleep only if the ring is still empty)
 *   producer after a batch:   store tail (done); fence; load sleeping
 *                             (kick, and clear it, only if it was 1)
 *
 *   producer finding it full: store waiting = 1; fence; load head
 *                             (wait only if it is still full)
 *   consumer after a batch:   store head (done); fence; load waiting
 *                             (kick only if it was 1)
 *
 * A kick is one ORCA_FAB_KICK message on the connection's socket: "look
 * at the rings".  A full ring makes the producer wait, nothing is lost
 * (credit flow control); tests/test_ring_model.c checks every
 * interleaving of these steps on x86-TSO.
 *
 * Neither end trusts the other's index or lengths: an index more than a
 * ring ahead, or a length past the slot, breaks the link (ring->broken)
 * and nothing out of the mapping is touched.  The rings live in a memfd
 * the port creates and passes with HELLO; no guest ever maps it.
 */
#ifndef ORCA_RING_H
#define ORCA_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ORCA_RING_MAGIC		0x676e6972	/* "ring" */
#define ORCA_RING_VERSION	1
/* a slot: its length word, then a fabric message (ORCA_FAB_MSG_MAX) */
#define ORCA_RING_SLOT		4224
#define ORCA_RING_SLOT_HDR	8
#define ORCA_RING_MSG_MAX	(ORCA_RING_SLOT - ORCA_RING_SLOT_HDR)
#define ORCA_RING_MIN_SLOTS	8
#define ORCA_RING_MAX_SLOTS	1024

/* The first page of the shared memory: what the creator made. */
struct orca_ring_layout {
	uint32_t magic;			/* ORCA_RING_MAGIC */
	uint32_t version;		/* ORCA_RING_VERSION */
	uint32_t nslots;		/* per ring, a power of two */
	uint32_t slot;			/* ORCA_RING_SLOT */
};

/* Each ring's indices, each side's on a cache line of its own. */
struct orca_ring_idx {
	uint32_t tail;			/* producer: messages published */
	uint32_t waiting;		/* producer waits for room */
	uint64_t bytes;			/* producer: their bytes, for counters */
	uint8_t pad0[48];
	uint32_t head;			/* consumer: messages taken */
	uint32_t sleeping;		/* consumer sleeps until kicked */
	uint8_t pad1[56];
};

/* One end's view of one ring. */
struct orca_ring {
	struct orca_ring_idx *idx;	/* shared */
	uint8_t *slots;			/* shared: nslots * ORCA_RING_SLOT */
	uint32_t nslots;
	uint32_t head, tail;		/* this end's own index is the truth */
	uint64_t bytes;			/* producer: what it published */
	bool broken;			/* the peer broke the protocol */
	bool published, taken;		/* since the last kick check */
};

/* Bytes of shared memory for two rings of @nslots (layout page first). */
size_t orca_ring_map_size(unsigned int nslots);
/*
 * Ring @which (0: port to fabric, 1: fabric to port) of the shared
 * memory at @mem of @size bytes.  @create: write the layout and empty
 * rings (the port); else check the layout the creator wrote (the
 * fabric): -1 if it is not one this code can use safely.
 */
int orca_ring_open(struct orca_ring *r, void *mem, size_t size,
		   unsigned int nslots, unsigned int which, bool create);

/*
 * A memfd of @nslots a ring made as above, sealed at its size (nothing
 * can shrink it under a mapping), and mapped at *@mem, *@size bytes; its
 * descriptor, or -1 with errno.
 */
int orca_ring_memfd(const char *name, unsigned int nslots, void **mem,
		    size_t *size);

/* Producer */
unsigned int orca_ring_room(struct orca_ring *r);
/* The next slot's message buffer (ORCA_RING_MSG_MAX bytes), NULL: full. */
uint8_t *orca_ring_slot(struct orca_ring *r);
/* Publish the @len bytes written at orca_ring_slot(). */
void orca_ring_publish(struct orca_ring *r, size_t len);
/* After a batch: true if the consumer sleeps, and must be kicked. */
bool orca_ring_kick_due(struct orca_ring *r);
/* Full: ask for a kick when room comes; false if there is room now. */
bool orca_ring_wait_room(struct orca_ring *r);
/* The same until @want slots are free (the consumer kicks on any take). */
bool orca_ring_wait_room_for(struct orca_ring *r, unsigned int want);

/* Consumer */
/* The oldest message and its length, or NULL (empty or broken). */
const uint8_t *orca_ring_peek(struct orca_ring *r, size_t *len);
/* Done with the message orca_ring_peek() gave. */
void orca_ring_pop(struct orca_ring *r);
/* After a batch: true if the producer waits for room, and must be kicked. */
bool orca_ring_room_kick_due(struct orca_ring *r);
/* About to sleep: true if it may (empty); else there is work, stay up. */
bool orca_ring_sleep(struct orca_ring *r);
/* Up again: no kick needed until the next orca_ring_sleep(). */
void orca_ring_wake(struct orca_ring *r);
bool orca_ring_empty(struct orca_ring *r);

#endif /* ORCA_RING_H */
