// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The verbs fuzzer's generator, statistics and memory arenas (fuzz.h).
 * Statistics live in a shared mapping so that the children's calls are
 * counted with the parent's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

/* ------------------------------------------------------------ generator */
static uint64_t rng_state;

void rnd_seed(uint64_t seed)
{
	rng_state = seed ? seed : 0x9e3779b97f4a7c15ULL;
}

uint64_t rnd(void)	/* splitmix64 */
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint32_t rnd_u32(void)
{
	static const uint32_t edge[] = {
		0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256,
		1023, 1024, 4095, 4096, 65535, 65536, 0x7fffffff, 0x80000000,
		0xfffffffe, 0xffffffff,
	};

	switch (rn(4)) {
	case 0:
		return edge[rn(ARRAY_SIZE(edge))];
	case 1:
		return rn(64);
	case 2:
		return 1U << rn(32);
	default:
		return (uint32_t)rnd();
	}
}

uint64_t rnd_u64(void)
{
	if (chance(50))
		return rnd_u32();
	if (chance(30))
		return ~0ULL - rn(4);
	return rnd();
}

/* ------------------------------------------------------------ statistics */
#define MAX_VERBS	160
#define MAX_ERRNO	140	/* errno values at or above land in the last slot */

struct verb_stat {
	char name[40];
	uint64_t calls;
	uint64_t err[MAX_ERRNO + 1];	/* [0] = success */
};

/* stats_init()'s mark in front of the lock: gone means something wrote here */
#define STATS_MARK	0x6f72636166757a7aULL

struct stats {
	uint64_t mark;
	pthread_mutex_t lock;	/* process-shared: the children count too */
	unsigned int nverbs;
	struct verb_stat verb[MAX_VERBS];
};

static struct stats *stats;

int stats_init(void)
{
	pthread_mutexattr_t ma;

	stats = mmap(NULL, sizeof(*stats), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (stats == MAP_FAILED)
		return -1;
	if (pthread_mutexattr_init(&ma) ||
	    pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED) ||
	    pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST) ||
	    pthread_mutex_init(&stats->lock, &ma))
		return -1;
	pthread_mutexattr_destroy(&ma);
	stats->mark = STATS_MARK;
	return 0;
}

/*
 * A child that dies holding the lock (a crash, which the parent reports)
 * must not hang the others: the lock is robust, and its next owner takes
 * the counts as they are.
 */
static void stats_lock(void)
{
	if (pthread_mutex_lock(&stats->lock) == EOWNERDEAD)
		pthread_mutex_consistent(&stats->lock);
}

void stat_call(const char *verb, int err)
{
	struct verb_stat *v = NULL;
	unsigned int i;

	if (err < 0)
		err = -err;
	if (err > MAX_ERRNO)
		err = MAX_ERRNO;
	/*
	 * The kernel or the device wrote outside the arenas (see "memory"
	 * below): say so and crash, rather than hang on a lock whose
	 * process-shared flag was overwritten.
	 */
	if (stats->mark != STATS_MARK) {
		fprintf(stderr, "# verbs_fuzz [%d]: the statistics were overwritten (after %s)\n",
			(int)getpid(), verb);
		abort();
	}
	stats_lock();
	for (i = 0; i < stats->nverbs; i++)
		if (!strcmp(stats->verb[i].name, verb)) {
			v = &stats->verb[i];
			break;
		}
	if (!v && stats->nverbs < MAX_VERBS) {
		v = &stats->verb[stats->nverbs++];
		snprintf(v->name, sizeof(v->name), "%s", verb);
	}
	if (v) {
		v->calls++;
		v->err[err]++;
	}
	pthread_mutex_unlock(&stats->lock);
}

uint64_t stats_total(void)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < stats->nverbs; i++)
		n += stats->verb[i].calls;
	return n;
}

static const char *errname(int e)
{
	const char *s;

	if (e == 0)
		return "ok";
	if (e == MAX_ERRNO)
		return "other";
	s = strerrorname_np(e);
	return s ? s : "?";
}

/* per-verb lines, then the errno histogram over all verbs */
void stats_print(FILE *f)
{
	uint64_t hist[MAX_ERRNO + 1] = {0};
	unsigned int i;
	int e;

	stats_lock();
	fprintf(f, "# per verb: calls, then result counts\n");
	for (i = 0; i < stats->nverbs; i++) {
		struct verb_stat *v = &stats->verb[i];
		char line[1024];
		size_t n;

		n = snprintf(line, sizeof(line), "#   %-26s %8llu ", v->name,
			     (unsigned long long)v->calls);
		for (e = 0; e <= MAX_ERRNO; e++) {
			hist[e] += v->err[e];
			if (v->err[e] && n < sizeof(line))
				n += snprintf(line + n, sizeof(line) - n,
					      " %s=%llu", errname(e),
					      (unsigned long long)v->err[e]);
		}
		fprintf(f, "%s\n", line);
	}
	fprintf(f, "# errno histogram (all verbs):");
	for (e = 0; e <= MAX_ERRNO; e++)
		if (hist[e])
			fprintf(f, " %s=%llu", errname(e),
				(unsigned long long)hist[e]);
	fprintf(f, "\n");
	pthread_mutex_unlock(&stats->lock);
}

/* ------------------------------------------------------------ memory */
/*
 * The arenas sit 512 MiB apart at fixed addresses in a 4 GiB window,
 * aligned to its size, where nothing else is mapped: Linux places
 * executables, the heap, mmap()s and the stack at 0x55... and 0x7f...,
 * and no one-bit flip of an address in the window reaches there.  The
 * kernel writes a response at the pointer given plus up to about 1 MiB
 * (an extended command's driver response follows out_words * 8 bytes of
 * core response), and a damaged command may carry a pointer with one bit
 * flipped: every such address is an arena or unmapped (EFAULT), never the
 * fuzzer's own memory (the statistics' process-shared mutex, the heap, a
 * library's data).  The gaps are holes, not PROT_NONE: Linux 6.1 pins a
 * read-only MR with FOLL_FORCE, which faults PROT_NONE pages in.
 */
#define ARENA_WINDOW	0x2a0000000000ULL
#define ARENA_STRIDE	(512ULL << 20)

struct arena mr_arena, dma_arena, out_arena, in_arena;
uint8_t *guard_page;

/* the @n-th arena of @len bytes, a hole after it */
static int arena_init(struct arena *a, unsigned int n, size_t len)
{
	uint8_t *want = (uint8_t *)(uintptr_t)(ARENA_WINDOW + (n + 1) * ARENA_STRIDE);
	uint8_t *p;

	p = mmap(want, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != want) {
		if (p != MAP_FAILED)	/* a kernel without MAP_FIXED_NOREPLACE */
			munmap(p, len);
		fprintf(stderr, "# verbs_fuzz: cannot map an arena at %p\n", want);
		return -1;
	}
	a->base = p;
	a->len = len;
	if (!guard_page)
		guard_page = p + len;
	return 0;
}

int arenas_init(void)
{
	size_t i;

	if (arena_init(&mr_arena, 0, 4 << 20) ||
	    arena_init(&dma_arena, 1, 2 << 20) ||
	    arena_init(&out_arena, 2, 1 << 20) ||
	    arena_init(&in_arena, 3, 64 << 10))
		return -1;
	for (i = 0; i < in_arena.len; i += 8)
		*(uint64_t *)(in_arena.base + i) = rnd();
	return 0;
}

uint64_t bad_ptr(void)
{
	switch (rn(5)) {
	case 0:
		return 0;
	case 1:
		return (uintptr_t)guard_page + rn(4096);
	case 2:
		return 0xffff888000000000ULL + rn(1 << 20) * 8;
	case 3:
		return 0x8000000000000000ULL + rnd_u32();
	default:
		return ~0ULL - rn(64);
	}
}

uint64_t arena_ptr(const struct arena *a, size_t max_len, size_t *len)
{
	size_t l, off;

	if (max_len > a->len)
		max_len = a->len;
	l = rn(max_len + 1);
	off = rn(a->len - l + 1);
	if (chance(50))
		off &= ~(size_t)4095;
	if (off + l > a->len)
		l = a->len - off;
	if (len)
		*len = l;
	return (uintptr_t)(a->base + off);
}
