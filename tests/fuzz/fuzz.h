/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Shared parts of the verbs fuzzer (verbs_fuzz.c: libibverbs calls;
 * uverbs_raw.c: the write() and ioctl() command interfaces of
 * /dev/infiniband/uverbsN): the seeded generator, the call statistics and
 * the memory the kernel and the device may be pointed at.
 *
 * The one rule: nothing the fuzzer hands the kernel or the device may make
 * the fuzzer itself crash.  Memory the kernel writes (responses) or the
 * device DMAs into (rings, MRs) is a dedicated arena followed by a
 * PROT_NONE guard page, never the heap or the stack; "bad" pointers are
 * the guard page, NULL, a kernel address or a non-canonical one.
 */
#ifndef ORCA_VERBS_FUZZ_H
#define ORCA_VERBS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ------------------------------------------------------------ generator */
uint64_t rnd(void);
void rnd_seed(uint64_t seed);
/* uniform in [0, n), 0 if n is 0 */
static inline uint32_t rn(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}
/* true with probability pct in 100 */
static inline int chance(unsigned int pct)
{
	return rn(100) < pct;
}
/* a 32-bit value biased toward the edges (0, 1, -1, powers of two, ...) */
uint32_t rnd_u32(void);
uint64_t rnd_u64(void);

/* ------------------------------------------------------------ statistics */
/* one verb (or raw command) was called: result 0 or an errno value */
void stat_call(const char *verb, int err);

/* ------------------------------------------------------------ memory */
struct arena {
	uint8_t *base;
	size_t len;		/* usable bytes; a guard page follows */
};

extern struct arena mr_arena;	/* libibverbs MRs, inline send sources */
extern struct arena dma_arena;	/* raw: ring buffers and MRs the device may write */
extern struct arena out_arena;	/* raw: responses the kernel writes */
extern struct arena in_arena;	/* raw: input the kernel reads (random bytes) */
extern uint8_t *guard_page;	/* PROT_NONE */

/* a pointer the kernel must refuse (EFAULT) without touching our memory */
uint64_t bad_ptr(void);
/* [off, off + len) inside @a, len <= max (and <= a->len) */
uint64_t arena_ptr(const struct arena *a, size_t max_len, size_t *len);

/* ------------------------------------------------------------ raw layer */
/* the uverbs character device of the device under test, e.g. uverbs0 */
extern char uverbs_path[96];
void raw_init(void);
void raw_step(void);		/* one random raw call */
void raw_close_some(void);	/* close a raw fd with its objects open */
int raw_fd_known(int fd);	/* fd belongs to the raw layer */
void raw_after_fork(void);	/* the child's view: inherited fds are shared */
/* fds libibverbs owns are kept; unknown ones are closed by the sweep */
void fd_keep_set(int fd, int keep);
void fd_keep_all_open(void);
void raw_sweep_fds(void);

/* common.c */
int stats_init(void);
int arenas_init(void);
uint64_t stats_total(void);

/* ------------------------------------------------------------ misc */
int fuzz_skipped(const char *name);	/* named in --skip */
extern pid_t fuzz_pid;		/* the process running (parent or child) */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* ORCA_VERBS_FUZZ_H */
