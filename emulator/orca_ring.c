// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The shared-memory link's rings (orca_ring.h).
 *
 * Every access to the other side's memory goes through the macros
 * below, so that tests/test_ring_model.c can trace what the real
 * functions do (it defines RING_TRACE) and model-check exactly that.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "orca_ring.h"

#ifndef RING_TRACE
#define RING_TRACE(op, var)	((void)(op), (void)(var))
#endif
enum { RING_OP_ST, RING_OP_LD, RING_OP_FENCE };

#define RING_STORE(field, v, order) do {				\
	RING_TRACE(RING_OP_ST, #field);					\
	__atomic_store_n(&r->idx->field, (v), (order));			\
} while (0)
#define RING_LOAD(field, order) \
	(RING_TRACE(RING_OP_LD, #field), __atomic_load_n(&r->idx->field, (order)))
#define RING_FENCE() do {						\
	RING_TRACE(RING_OP_FENCE, "");					\
	__atomic_thread_fence(__ATOMIC_SEQ_CST);			\
} while (0)

#define RING_PAGE	4096

static size_t ring_bytes(unsigned int nslots)
{
	return sizeof(struct orca_ring_idx) + (size_t)nslots * ORCA_RING_SLOT;
}

size_t orca_ring_map_size(unsigned int nslots)
{
	return RING_PAGE + 2 * ring_bytes(nslots);
}

int orca_ring_open(struct orca_ring *r, void *mem, size_t size,
		   unsigned int nslots, unsigned int which, bool create)
{
	struct orca_ring_layout *l = mem;
	uint8_t *base;

	memset(r, 0, sizeof(*r));
	if (nslots < ORCA_RING_MIN_SLOTS || nslots > ORCA_RING_MAX_SLOTS ||
	    (nslots & (nslots - 1)) || which > 1 ||
	    size < orca_ring_map_size(nslots))
		return -1;
	if (create) {
		l->magic = ORCA_RING_MAGIC;
		l->version = ORCA_RING_VERSION;
		l->nslots = nslots;
		l->slot = ORCA_RING_SLOT;
	} else if (l->magic != ORCA_RING_MAGIC ||
		   l->version != ORCA_RING_VERSION ||
		   l->nslots != nslots || l->slot != ORCA_RING_SLOT) {
		return -1;
	}
	base = (uint8_t *)mem + RING_PAGE + which * ring_bytes(nslots);
	r->idx = (struct orca_ring_idx *)base;
	r->slots = base + sizeof(struct orca_ring_idx);
	r->nslots = nslots;
	if (create)
		memset(r->idx, 0, sizeof(*r->idx));
	/* where the creator left them: a new mapping starts empty */
	r->head = __atomic_load_n(&r->idx->head, __ATOMIC_ACQUIRE);
	r->tail = __atomic_load_n(&r->idx->tail, __ATOMIC_ACQUIRE);
	if (r->tail - r->head > nslots)
		return -1;
	return 0;
}

int orca_ring_memfd(const char *name, unsigned int nslots, void **mem,
		    size_t *size)
{
	size_t sz = orca_ring_map_size(nslots);
	struct orca_ring r;
	void *m;
	int fd, err;

	fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -1;
	/* sealed at its size: no mapping of it can ever lose its pages */
	if (ftruncate(fd, sz) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL))
		goto fail;
	m = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		goto fail;
	if (orca_ring_open(&r, m, sz, nslots, 0, true) ||
	    orca_ring_open(&r, m, sz, nslots, 1, true)) {
		munmap(m, sz);
		errno = EINVAL;
		goto fail;
	}
	*mem = m;
	*size = sz;
	return fd;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

static uint8_t *slot_at(const struct orca_ring *r, uint32_t i)
{
	return r->slots + (size_t)(i & (r->nslots - 1)) * ORCA_RING_SLOT;
}

/* ---- producer ---------------------------------------------------- */

/* The consumer's head, if it is one the producer can believe. */
static bool fresh_head(struct orca_ring *r)
{
	uint32_t head = RING_LOAD(head, __ATOMIC_ACQUIRE);

	if (r->tail - head > r->nslots) {
		r->broken = true;
		return false;
	}
	r->head = head;
	return true;
}

unsigned int orca_ring_room(struct orca_ring *r)
{
	if (r->broken || !fresh_head(r))
		return 0;
	return r->nslots - (r->tail - r->head);
}

uint8_t *orca_ring_slot(struct orca_ring *r)
{
	if (!orca_ring_room(r))
		return NULL;
	return slot_at(r, r->tail) + ORCA_RING_SLOT_HDR;
}

void orca_ring_publish(struct orca_ring *r, size_t len)
{
	uint32_t l = len;

	memcpy(slot_at(r, r->tail), &l, sizeof(l));
	/* counted, not trusted: only what counters report reads it */
	r->bytes += len;
	__atomic_store_n(&r->idx->bytes, r->bytes, __ATOMIC_RELAXED);
	r->tail++;
	RING_STORE(tail, r->tail, __ATOMIC_RELEASE);
	r->published = true;
}

/*
 * After a batch (@since: this side published or took something): does
 * the other side wait on its flag @flag (@name, for the trace), and must
 * it be kicked?  The flag is cleared: one kick a wait, the other side
 * sets it again first.
 */
static bool peer_waits(bool *since, uint32_t *flag, const char *name)
{
	if (!*since)
		return false;
	*since = false;
	RING_FENCE();
	RING_TRACE(RING_OP_LD, name);
	if (!__atomic_load_n(flag, __ATOMIC_RELAXED))
		return false;
	return __atomic_exchange_n(flag, 0, __ATOMIC_ACQ_REL);
}

bool orca_ring_kick_due(struct orca_ring *r)
{
	return peer_waits(&r->published, &r->idx->sleeping, "sleeping");
}

bool orca_ring_wait_room_for(struct orca_ring *r, unsigned int want)
{
	if (want > r->nslots)
		want = r->nslots;
	RING_STORE(waiting, 1, __ATOMIC_RELAXED);
	RING_FENCE();
	if (!fresh_head(r))
		return true;		/* broken: the caller sees it */
	if (r->nslots - (r->tail - r->head) >= want) {
		__atomic_store_n(&r->idx->waiting, 0, __ATOMIC_RELAXED);
		return false;
	}
	return true;
}

bool orca_ring_wait_room(struct orca_ring *r)
{
	return orca_ring_wait_room_for(r, 1);
}

/* ---- consumer ---------------------------------------------------- */

bool orca_ring_empty(struct orca_ring *r)
{
	uint32_t tail;

	if (r->broken)
		return true;
	if (r->tail != r->head)
		return false;
	tail = RING_LOAD(tail, __ATOMIC_ACQUIRE);
	if (tail - r->head > r->nslots) {
		r->broken = true;
		return true;
	}
	r->tail = tail;
	return r->tail == r->head;
}

const uint8_t *orca_ring_peek(struct orca_ring *r, size_t *len)
{
	const uint8_t *s;
	uint32_t l;

	if (orca_ring_empty(r))
		return NULL;
	s = slot_at(r, r->head);
	memcpy(&l, s, sizeof(l));
	if (l > ORCA_RING_MSG_MAX) {
		r->broken = true;
		return NULL;
	}
	*len = l;
	return s + ORCA_RING_SLOT_HDR;
}

void orca_ring_pop(struct orca_ring *r)
{
	r->head++;
	RING_STORE(head, r->head, __ATOMIC_RELEASE);
	r->taken = true;
}

bool orca_ring_room_kick_due(struct orca_ring *r)
{
	return peer_waits(&r->taken, &r->idx->waiting, "waiting");
}

bool orca_ring_sleep(struct orca_ring *r)
{
	RING_STORE(sleeping, 1, __ATOMIC_RELAXED);
	RING_FENCE();
	return orca_ring_empty(r);
}

void orca_ring_wake(struct orca_ring *r)
{
	__atomic_store_n(&r->idx->sleeping, 0, __ATOMIC_RELAXED);
}
