/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Test fixture of the device model: a device over fake guest RAM between
 * canaries, driven the way the ivshmem glue drives it, with the test
 * playing the driver (command queue entries and mailboxes in fake RAM,
 * cmdq_pi, orca_dev_doorbell(); EQEs and the QP mirror read back).
 */
#ifndef ORCA_EMU_TESTS_FIXTURE_H
#define ORCA_EMU_TESTS_FIXTURE_H

#include <endian.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orca_dev.h"
#include "tap.h"

#ifndef RAM_SIZE		/* a test may want more */
#define RAM_SIZE	(4U << 20)
#endif
#define CANARY_SIZE	8192
#define CANARY_BYTE	0xa5

#define CMDQ_BASE	0x1000ULL	/* 64 x 64 B */
#define EQ_BASE		0x4000ULL	/* 256 x 64 B = 16 KiB */
#define MIRROR_BASE	0x10000ULL	/* up to 4096 entries x 16 B */
#define IN_MBOX(slot)	(0x100000ULL + (slot) * 0x1000ULL)
#define OUT_MBOX(slot)	(0x200000ULL + (slot) * 0x1000ULL)
#define CMDQ_DEPTH	64

struct fx {
	struct orca_dev dev;
	struct orca_cfg cfg;
	struct orca_regs *regs;
	uint8_t *buf;			/* canary + RAM + canary */
	uint8_t *ram;
	uint32_t pi;			/* driver's cmdq producer index */
	uint32_t eq_ci;			/* driver's EQ consumer index */
	uint32_t eq_depth;
	uint16_t next_token;
	unsigned int irqs;		/* MSI-X of EQ 0 */
	unsigned int comp_irqs;		/* MSI-X of the completion EQ */
	/* last completion seen by fx_cmd() */
	uint8_t status;
	uint32_t synd;
	uint16_t out_len;
	/* async events seen while waiting for completions */
	struct orca_eqe async[64];
	unsigned int n_async;
	uint32_t pdn, cqn;		/* default objects after bring-up */
	uint64_t port_mirror_base;	/* programmed by fx_program_queues() */
	uint64_t db_hint_base;		/* ... and so is this */
};

/* ------------------------------------------------------------------ */
/* Virtual clock                                                      */
/* ------------------------------------------------------------------ */

/*
 * The device clock of a test that called fx_clock_virtual(): it stands
 * still until the test moves it, so every timer of the model (retransmit,
 * RNR, link delay, doorbell poll) expires when the test says, however
 * slowly the host runs the test.  It starts far from 0, which the model
 * reads as "no timer".  Tests between processes (the fabric) keep the
 * real one.
 */
static uint64_t fx_now_ns = 1000000000ULL;

static inline uint64_t fx_clock_read(void)
{
	return fx_now_ns;
}

static inline void fx_clock_virtual(void)
{
	orca_dev_set_clock(fx_clock_read);
}

static inline void fx_clock_advance(uint64_t ns)
{
	fx_now_ns += ns;
}

/* ------------------------------------------------------------------ */
/* Fixture                                                            */
/* ------------------------------------------------------------------ */

static inline void count_irq(void *priv, unsigned int vec)
{
	struct fx *f = priv;

	CHECK(vec == ORCA_MSIX_EQ || vec == ORCA_MSIX_COMP);
	if (vec == ORCA_MSIX_EQ)
		f->irqs++;
	else
		f->comp_irqs++;
}

/* A device with the defaults plus "key=value" overrides (NULL-ended). */
static inline struct fx *fx_new_cfg(const char *const *sets)
{
	struct fx *f = calloc(1, sizeof(*f));
	char err[256];

	orca_cfg_defaults(&f->cfg);
	for (; sets && *sets; sets++)
		if (orca_cfg_set_kv(&f->cfg, *sets, err, sizeof(err)))
			printf("# bad test config %s: %s\n", *sets, err);
	if (orca_cfg_finalize(&f->cfg, err, sizeof(err)))
		printf("# bad test config: %s\n", err);
	/* BAR2: the register block and device memory */
	f->regs = aligned_alloc(4096, ORCA_BAR2_SIZE);
	/* calloc: fresh zero pages, no 4 MiB memset per device (fuzzers) */
	f->buf = calloc(1, RAM_SIZE + 2 * CANARY_SIZE);
	memset(f->buf, CANARY_BYTE, CANARY_SIZE);
	memset(f->buf + CANARY_SIZE + RAM_SIZE, CANARY_BYTE, CANARY_SIZE);
	f->ram = f->buf + CANARY_SIZE;
	CHECK_EQ(orca_dev_init(&f->dev, &f->cfg, f->regs, count_irq, f), 0);
	orca_dev_connect(&f->dev);
	orca_dev_set_ram(&f->dev, f->ram, RAM_SIZE);
	f->next_token = 0x100;
	return f;
}

static inline bool canaries_ok(const struct fx *f)
{
	size_t i;

	for (i = 0; i < CANARY_SIZE; i++)
		if (f->buf[i] != CANARY_BYTE ||
		    f->buf[CANARY_SIZE + RAM_SIZE + i] != CANARY_BYTE)
			return false;
	return true;
}

static inline void fx_free(struct fx *f)
{
	CHECK(canaries_ok(f));
	orca_dev_destroy(&f->dev);
	free(f->buf);
	free(f->regs);
	free(f);
}

static inline void fx_program_queues(struct fx *f, unsigned int eq_log_depth)
{
	f->regs->cmdq_base = htole64(CMDQ_BASE);
	f->regs->cmdq_log_depth = htole32(6);
	f->regs->eq_base = htole64(EQ_BASE);
	f->regs->eq_log_depth = htole32(eq_log_depth);
	f->eq_depth = 1U << eq_log_depth;
	/* adopt the device's indices, as the driver does at probe */
	f->pi = le32toh(f->regs->cmdq_ci);
	f->regs->cmdq_pi = htole32(f->pi);
	f->eq_ci = le32toh(f->regs->eq_pi);
	f->regs->eq_ci = htole32(f->eq_ci);
	f->regs->qp_mirror_base = htole64(MIRROR_BASE);
	f->regs->qp_mirror_entries = htole32(f->cfg.max_qp + ORCA_QPN_BASE);
	f->regs->port_mirror_base = htole64(f->port_mirror_base);
	f->regs->db_hint_base = htole64(f->db_hint_base);
	/* the device latches the queue registers at the next doorbell */
	f->regs->dev_ctl = htole32(ORCA_DEV_CTL_ENABLE);
}

/* Write a raw entry at the producer slot; returns the slot. */
static inline unsigned int fx_put_entry(struct fx *f, const struct orca_cmdq_entry *e)
{
	unsigned int slot = f->pi & (CMDQ_DEPTH - 1);

	memcpy(f->ram + CMDQ_BASE + slot * 64, e, sizeof(*e));
	f->pi++;
	return slot;
}

/*
 * Queue a command the way the driver does: input inline when it fits,
 * else in the slot's input mailbox; output in the slot's output mailbox
 * when it does not fit inline.  Returns the token.
 */
static inline uint16_t fx_submit(struct fx *f, uint16_t op, const void *in,
			  uint16_t in_len, uint16_t out_len)
{
	unsigned int slot = f->pi & (CMDQ_DEPTH - 1);
	struct orca_cmdq_entry e;

	memset(&e, 0, sizeof(e));
	e.opcode = htole16(op);
	e.token = htole16(f->next_token++);
	e.in_len = htole16(in_len);
	e.out_len = htole16(out_len);
	if (in_len > ORCA_CMD_INLINE_IN) {
		memcpy(f->ram + IN_MBOX(slot), in, in_len);
		e.in_mbox = htole64(IN_MBOX(slot));
	} else if (in_len) {
		memcpy(e.inline_in, in, in_len);
	}
	if (out_len > ORCA_CMD_INLINE_OUT)
		e.out_mbox = htole64(OUT_MBOX(slot));
	fx_put_entry(f, &e);
	return le16toh(e.token);
}

static inline void fx_ring(struct fx *f)
{
	f->regs->cmdq_pi = htole32(f->pi);
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_CMDQ);
}

static inline bool fx_pop(struct fx *f, struct orca_eqe *eqe)
{
	uint32_t pi = le32toh(f->regs->eq_pi);

	if (pi == f->eq_ci || !f->eq_depth)
		return false;
	memcpy(eqe, f->ram + EQ_BASE + (f->eq_ci & (f->eq_depth - 1)) * 64,
	       sizeof(*eqe));
	f->eq_ci++;
	f->regs->eq_ci = htole32(f->eq_ci);
	return true;
}

/* Pop until a CMD_DONE; async events are kept in f->async. */
static inline bool fx_pop_cmd(struct fx *f, struct orca_eqe *eqe)
{
	while (fx_pop(f, eqe)) {
		if (eqe->type == ORCA_EQE_CMD_DONE)
			return true;
		if (f->n_async < 64)
			f->async[f->n_async++] = *eqe;
	}
	return false;
}

/* Execute one command synchronously; returns the status (0xff: none). */
static inline int fx_cmd(struct fx *f, uint16_t op, const void *in, uint16_t in_len,
		  void *out, uint16_t out_len)
{
	unsigned int slot = f->pi & (CMDQ_DEPTH - 1);
	struct orca_eqe eqe;
	uint16_t token = fx_submit(f, op, in, in_len, out_len);

	fx_ring(f);
	if (!fx_pop_cmd(f, &eqe)) {
		f->status = 0xff;
		return 0xff;
	}
	CHECK_EQ(le16toh(eqe.cmd.token), token);
	f->status = eqe.cmd.status;
	f->synd = le32toh(eqe.cmd.syndrome);
	f->out_len = le16toh(eqe.cmd.out_len);
	if (out && !f->status) {
		if (out_len > ORCA_CMD_INLINE_OUT)
			memcpy(out, f->ram + OUT_MBOX(slot), out_len);
		else
			memcpy(out, eqe.cmd.inline_out, out_len);
	}
	return f->status;
}

/* ALLOC_PD: the new PD's number (the command must succeed). */
static inline uint32_t fx_alloc_pd(struct fx *f)
{
	struct orca_pd_handle pd;

	CHECK_EQ(fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, &pd, sizeof(pd)), 0);
	return le32toh(pd.pdn);
}

/* DEREG_MR of the region @lkey names; the command's status. */
static inline int fx_dereg_mr(struct fx *f, uint32_t lkey)
{
	struct orca_mr_handle h = { .lkey = htole32(lkey) };

	return fx_cmd(f, ORCA_CMD_DEREG_MR, &h, sizeof(h), NULL, 0);
}

/*
 * A counter "key=N" of the device's own stats line (what ctl stats
 * answers); -1 if it is not there.
 */
static inline long long fx_stat(struct fx *f, const char *key)
{
	static char line[8192];
	char pat[64];
	const char *at;

	line[0] = ' ';
	orca_dev_format_stats(&f->dev, line + 1, sizeof(line) - 1);
	snprintf(pat, sizeof(pat), " %s=", key);
	at = strstr(line, pat);
	return at ? strtoll(at + strlen(pat), NULL, 0) : -1;
}

/*
 * A PerfMgt Get of @attr for port 1 (PortSelect 1) through MAD_IFC, the
 * 256-byte reply in @reply; the MAD_IFC result, 0xff if the command
 * failed.
 */
static inline uint8_t fx_pma_get(struct fx *f, uint16_t attr, uint8_t *reply)
{
	struct orca_mad_ifc_in in;
	struct orca_mad_ifc_out out;

	memset(&in, 0, sizeof(in));
	in.port = 1;
	in.flags = ORCA_MAD_IFC_F_IGNORE_MKEY;
	in.mad[0] = 1;			/* BaseVersion */
	in.mad[1] = 0x04;		/* PerfMgmt */
	in.mad[2] = 1;			/* ClassVersion */
	in.mad[3] = 0x01;		/* Get */
	in.mad[15] = 0x42;		/* TID */
	in.mad[16] = attr >> 8;
	in.mad[17] = attr;
	in.mad[65] = 1;			/* PortSelect */
	if (fx_cmd(f, ORCA_CMD_MAD_IFC, &in, sizeof(in), &out, sizeof(out)))
		return 0xff;
	memcpy(reply, out.mad, sizeof(out.mad));
	return out.result;
}

#define EXPECT_FAIL(f, call, st, sy)					\
	do {								\
		CHECK_EQ((call), (st));					\
		CHECK_EQ((f)->synd, (sy));				\
	} while (0)

static inline void fx_bringup_eq(struct fx *f, uint32_t init_flags,
			  unsigned int eq_log_depth)
{
	struct orca_init_in init = { .flags = htole32(init_flags) };
	struct orca_caps caps;
	struct orca_pd_handle pd;
	struct orca_create_cq_in cqi = { .cqe = htole32(64) };
	struct orca_create_cq_out cqo;

	fx_program_queues(f, eq_log_depth);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &caps, sizeof(caps)), 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0), 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, &pd, sizeof(pd)), 0);
	f->pdn = le32toh(pd.pdn);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_CREATE_CQ, &cqi, sizeof(cqi), &cqo,
			sizeof(cqo)), 0);
	f->cqn = le32toh(cqo.cqn);
}

static inline void fx_bringup_flags(struct fx *f, uint32_t init_flags)
{
	fx_bringup_eq(f, init_flags, ORCA_EQ_LOG_DEPTH);
}

/*
 * INIT refuses each of @bad (@n addresses) written to the register at
 * @reg_off (an address the device latches at INIT): DMA_FAULT +
 * QUEUE_ADDR, on a fresh device each time.
 */
static inline void fx_init_refuses(size_t reg_off, const uint64_t *bad,
				   unsigned int n)
{
	struct orca_init_in init = {};
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct fx *f = fx_new_cfg(NULL);

		fx_program_queues(f, ORCA_EQ_LOG_DEPTH);
		*(__le64 *)((uint8_t *)f->regs + reg_off) = htole64(bad[i]);
		CHECK_EQ(fx_cmd(f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
		EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init),
				      NULL, 0),
			    ORCA_STATUS_DMA_FAULT, ORCA_SYND_QUEUE_ADDR);
		CHECK(!f->dev.armed);
		CHECK(canaries_ok(f));
		fx_free(f);
	}
}

static inline struct fx *fx_up_cfg(const char *const *sets)
{
	struct fx *f = fx_new_cfg(sets);

	fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
	return f;
}

static inline struct fx *fx_up(void)
{
	return fx_up_cfg(NULL);
}

#endif /* ORCA_EMU_TESTS_FIXTURE_H */
