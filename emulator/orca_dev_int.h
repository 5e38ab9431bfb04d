/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca device model: what the device's parts share inside the emulator
 * (core orca_dev.c, commands orca_cmd.c, test hooks orca_hooks.c).  Not
 * for the glue or the tests: they use orca_dev.h.
 */
#ifndef ORCA_DEV_INT_H
#define ORCA_DEV_INT_H

#include <endian.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "orca_dev.h"
#include "orca_log.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The guest writes BAR2 concurrently: single-copy atomic accesses only. */
#define REG_RD32(dev, f) \
	le32toh(__atomic_load_n(&(dev)->regs->f, __ATOMIC_ACQUIRE))
#define REG_RD64(dev, f) \
	le64toh(__atomic_load_n(&(dev)->regs->f, __ATOMIC_ACQUIRE))
#define REG_WR32(dev, f, v) \
	__atomic_store_n(&(dev)->regs->f, htole32(v), __ATOMIC_RELEASE)
#define REG_WR64(dev, f, v) \
	__atomic_store_n(&(dev)->regs->f, htole64(v), __ATOMIC_RELEASE)

/* One command being executed. */
struct cmd {
	unsigned int opcode;
	uint16_t token;
	uint32_t in_len, out_len;
	uint64_t in_mbox, out_mbox;
	const void *in;		/* dev->in_buf, in_len bytes */
	void *out;		/* dev->out_buf, zeroed, out_size bytes */
	uint32_t out_size;	/* min(out_len, what the command returns) */
	uint8_t status;
	uint32_t synd;
	char why[192];
};

int fail(struct cmd *c, uint8_t status, uint32_t synd, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool all_zero(const void *p, size_t len);

#define CHECK_RESERVED(c, field)					\
	do {								\
		if (!all_zero(&(field), sizeof(field)))			\
			return fail(c, ORCA_STATUS_BAD_PARAM,		\
				    ORCA_SYND_RESERVED_NZ,		\
				    "reserved field '%s' not zero", #field); \
	} while (0)

struct cmd_desc {
	uint16_t in_size, out_size;
	bool need_init;		/* only after INIT */
	int (*fn)(struct orca_dev *dev, struct cmd *c);
};

/* orca_cmd.c: every command the device knows, by opcode */
extern const struct cmd_desc orca_cmd_table[256];

/* orca_cmd.c: handles, port 1's GID i */
struct orca_pd *pd_get(struct orca_dev *dev, uint32_t pdn);
struct orca_cq *cq_get(struct orca_dev *dev, uint32_t cqn);
uint32_t cq_post_deferred(struct orca_dev *dev);
bool qp_busy(struct orca_dev *dev, uint32_t h);
uint32_t rr_next(uint32_t *cursor, uint32_t lo, uint32_t hi,
		 bool (*busy)(struct orca_dev *, uint32_t),
		 struct orca_dev *dev);
uint32_t roundup_pow2(uint32_t v);
void orca_gid_entry(const struct orca_cfg *g, uint32_t i, uint8_t *gid);

/* orca_cmd_qp.c: QP commands */
int cmd_create_qp(struct orca_dev *dev, struct cmd *c);
int cmd_modify_qp(struct orca_dev *dev, struct cmd *c);
int cmd_query_qp(struct orca_dev *dev, struct cmd *c);
int cmd_destroy_qp(struct orca_dev *dev, struct cmd *c);

/* orca_srq.c: shared receive queue commands */
struct orca_srq *srq_get(struct orca_dev *dev, uint32_t srqn);
uint32_t srq_post_deferred(struct orca_dev *dev);
int cmd_create_srq(struct orca_dev *dev, struct cmd *c);
int cmd_modify_srq(struct orca_dev *dev, struct cmd *c);
int cmd_query_srq(struct orca_dev *dev, struct cmd *c);
int cmd_destroy_srq(struct orca_dev *dev, struct cmd *c);

/* orca_mem.c: memory region commands */
int cmd_reg_mr(struct orca_dev *dev, struct cmd *c);
int cmd_dereg_mr(struct orca_dev *dev, struct cmd *c);
int cmd_rereg_mr(struct orca_dev *dev, struct cmd *c);

/* orca_mw.c: memory window commands */
int cmd_alloc_mw(struct orca_dev *dev, struct cmd *c);
int cmd_dealloc_mw(struct orca_dev *dev, struct cmd *c);

/* orca_cmdq.c: the command queue */
void flush_pending(struct orca_dev *dev);
void process_cmdq(struct orca_dev *dev);

/* orca_dev.c: DMA, events, mirror, objects */
bool dma_ok(const struct orca_dev *dev, uint64_t addr, uint64_t len);
void *dma_ptr(struct orca_dev *dev, uint64_t addr, size_t len);
int dma_read(struct orca_dev *dev, uint64_t addr, void *buf, size_t len);
int dma_write(struct orca_dev *dev, uint64_t addr, const void *buf,
	      size_t len);
bool ring_ok(const struct orca_dev *dev, uint64_t base,
	     unsigned int log_depth);
int eq_post(struct orca_dev *dev, const struct orca_eqe *eqe);
int eq_post_event(struct orca_dev *dev, const struct orca_eqe *eqe);
void flush_irq(struct orca_dev *dev);
void go_fatal(struct orca_dev *dev, uint32_t syndrome, const char *why);
void post_async(struct orca_dev *dev, const struct orca_eqe *eqe);
bool post_async_kept(struct orca_dev *dev, const struct orca_eqe *eqe,
		     bool *pending);
void post_deferred(struct orca_dev *dev);
void post_qp_event(struct orca_dev *dev, uint32_t qpn, uint8_t event,
		   uint8_t state, uint32_t seq);
uint32_t mirror_write(struct orca_dev *dev, uint32_t qpn,
		      const struct orca_qp_ctx *ctx);
void port_attr_fill(struct orca_dev *dev, struct orca_port_attr *o);
void port_mirror_write(struct orca_dev *dev);
void db_hint_set(struct orca_dev *dev, bool awake);
/* Port 1 to @state: mirror, then PORT_EVENT; nothing if no change. */
void port_set_state(struct orca_dev *dev, uint8_t state);
void port_count_violation(struct orca_dev *dev, bool pkey);
void destroy_all(struct orca_dev *dev);
void disarm(struct orca_dev *dev);
struct orca_qp *qp_get(struct orca_dev *dev, uint32_t qpn);

/* every QP the device has, in QPN order; @qp may not be destroyed */
#define for_each_live_qp(dev, qp) \
	for ((qp) = (dev)->live_qps; (qp); (qp) = (qp)->live_next)

#endif /* ORCA_DEV_INT_H */
