/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Shared parts of the verbs fuzzer (verbs_fuzz.c, verbs_res.c, verbs_qp.c,
 * verbs_srq_mw.c: libibverbs calls over the object table of objects.c;
 * uverbs_raw.c: the write() and ioctl() command interfaces of
 * /dev/infiniband/uverbsN): the seeded generator, the call statistics and
 * the memory the kernel and the device may be pointed at.
 *
 * The one rule: nothing the fuzzer hands the kernel or the device may make
 * the fuzzer itself crash or hang.  Memory the kernel writes (responses)
 * or the device DMAs into (rings, MRs) is a dedicated arena in a window
 * that holds nothing else (common.c), never the heap, the stack or the
 * statistics; "bad" pointers are the unmapped page after the first arena,
 * NULL, a kernel address or a non-canonical one.
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
	size_t len;		/* usable bytes; a hole follows */
};

extern struct arena mr_arena;	/* libibverbs MRs, inline send sources */
extern struct arena dma_arena;	/* raw: ring buffers and MRs the device may write */
extern struct arena out_arena;	/* raw: responses the kernel writes */
extern struct arena in_arena;	/* raw: input the kernel reads (random bytes) */
extern uint8_t *guard_page;	/* unmapped, right after mr_arena */

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

/* ------------------------------------------------------------ objects */
struct ibv_ah;
struct ibv_comp_channel;
struct ibv_context;
struct ibv_cq;
struct ibv_cq_ex;
struct ibv_device;
struct ibv_mr;
struct ibv_mw;
struct ibv_pd;
struct ibv_qp;
struct ibv_send_wr;
struct ibv_sge;
struct ibv_srq;

enum kind {
	K_FREE, K_CTX, K_PD, K_MR, K_CQ, K_QP, K_AH, K_CHAN, K_SRQ, K_MW,
	K_NKIND
};
extern const char *const kind_name[K_NKIND];

struct obj {
	enum kind kind;
	pid_t owner;			/* process that created it */
	struct ibv_context *ctx;	/* its context */
	union {
		struct ibv_context *ctx;
		struct ibv_pd *pd;
		struct ibv_mr *mr;
		struct ibv_cq *cq;
		struct ibv_qp *qp;
		struct ibv_ah *ah;
		struct ibv_comp_channel *ch;
		struct ibv_srq *srq;
		struct ibv_mw *mw;
	} u;
	struct ibv_cq_ex *cq_ex;	/* CQ: made by ibv_create_cq_ex */
	uint64_t wc_flags;		/* ... with these wc_flags */
	uint16_t lid;			/* CTX: port 1's LID */
};

#define MAX_OBJ 180
extern struct obj objs[MAX_OBJ];
extern unsigned int nlive[K_NKIND];
extern unsigned int verbose;

struct obj *obj_new(enum kind k, struct ibv_context *ctx);
void obj_free(struct obj *o);
int room(enum kind k);			/* below the kind's live maximum */
/* a random live object of kind k; in ctx (if given) with probability pct */
struct obj *pick_in(enum kind k, struct ibv_context *ctx, unsigned int pct);
struct obj *pick(enum kind k);
/* objects this process may destroy: its own (a child leaves the parent's) */
struct obj *pick_own(enum kind k);
/* a context this process may create objects in (that raise events) */
struct obj *pick_ctx(int for_events);
struct obj *find_ptr(enum kind k, const void *p);
struct obj *ctx_obj(struct ibv_context *c);
void note(const char *verb, int err);	/* stat_call, and -vv tracing */
int err_of(const void *p);		/* errno of a NULL-returning call */

/* ------------------------------------------------------------ operations */
extern struct ibv_device *fuzz_dev;
extern int dev_max_cqe;		/* the device's max_cqe, for CQ sizes */
extern int big_sizes;		/* --big */
/* events read (verbs_fuzz.c), and those naming no object of ours */
extern uint64_t async_events, async_unknown, cq_events, device_fatal;

/* verbs_res.c */
void op_open_device(void);
void op_close_device(void);
void op_alloc_pd(void);
void op_reg_mr(void);
void op_rereg_mr(void);
void op_create_comp_channel(void);
void op_destroy_comp_channel(void);
void op_create_cq(void);
void op_resize_cq(void);
void op_poll_cq(void);
void op_req_notify(void);
void op_get_cq_event(void);
void op_create_ah(void);
void op_destroy(void);
int destroy_obj(struct obj *o);	/* 0 if gone; else it stays live */
void close_ctx(struct obj *c);
int mr_access(void);		/* random access flags, mostly sensible */

/* verbs_qp.c; a post is up to MAX_WR WRs of up to MAX_SGE SGEs */
#define MAX_SGE 40
#define MAX_WR 4
void op_create_qp(void);
void op_modify_qp_random(void);
void op_connect_qp(void);
void op_query_qp(void);
void op_post_send(void);
void op_post_recv(void);
/* an SGE over an MR (its keys, sometimes wrong); @inl: readable bytes */
void rnd_sge(struct ibv_sge *s, int inl);
struct ibv_recv_wr;
/* 1 to MAX_WR chained receive WRs with random SGEs (static storage) */
struct ibv_recv_wr *rnd_recv_wrs(void);
/* an address vector, mostly to port 1 of @ctxo's device (its LID) */
struct ibv_ah_attr;
void rnd_ah_attr(struct ibv_ah_attr *ah, const struct obj *ctxo);

/* verbs_srq_mw.c */
void op_create_srq(void);
void op_modify_srq(void);
void op_post_srq_recv(void);
void op_alloc_mw(void);
void op_bind_mw(void);
/* an SRQ for a new QP (or NULL), and the send opcodes of windows */
struct ibv_srq *qp_srq(struct ibv_context *ctx);
void rnd_mw_wr(struct ibv_send_wr *wr, struct ibv_context *ctx);

/* ------------------------------------------------------------ misc */
int fuzz_skipped(const char *name);	/* named in --skip */
extern pid_t fuzz_pid;		/* the process running (parent or child) */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* ORCA_VERBS_FUZZ_H */
