// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libFuzzer harness: the command queue as a hostile driver drives it.
 * The input is a program of steps: commands with any opcode, lengths and
 * payload (inline or in mailboxes), raw queue entries with any mailbox
 * address, batches, producer-index jumps, heartbeat ticks and function
 * resets, with the event queue drained after each step.  Broken if the
 * device writes outside guest RAM (canaries), overruns its event queue,
 * consumes commands the driver never posted, or trips ASan/UBSan.
 */
#include "fixture.h"
#include "fuzz_input.h"
#include "orca_log.h"

static const uint16_t opcodes[] = {
	ORCA_CMD_RESET, ORCA_CMD_INIT, ORCA_CMD_TEARDOWN, ORCA_CMD_QUERY_CAPS,
	ORCA_CMD_QUERY_PORT, ORCA_CMD_QUERY_GID_TABLE,
	ORCA_CMD_QUERY_PKEY_TABLE, ORCA_CMD_QUERY_COUNTERS, ORCA_CMD_ALLOC_PD,
	ORCA_CMD_DEALLOC_PD, ORCA_CMD_CREATE_CQ, ORCA_CMD_DESTROY_CQ,
	ORCA_CMD_RESIZE_CQ, ORCA_CMD_CREATE_QP, ORCA_CMD_MODIFY_QP,
	ORCA_CMD_QUERY_QP, ORCA_CMD_DESTROY_QP, ORCA_CMD_REG_MR,
	ORCA_CMD_DEREG_MR, ORCA_CMD_REREG_MR, ORCA_CMD_CREATE_AH,
	ORCA_CMD_DESTROY_AH, ORCA_CMD_ALLOC_MW, ORCA_CMD_DEALLOC_MW,
	ORCA_CMD_QUERY_CLOCK, ORCA_CMD_ALLOC_DM, ORCA_CMD_DEALLOC_DM,
	ORCA_CMD_REG_DM_MR, 0x00, 0x7f, 0x1234,
};

static const char *const small[] = {
	"max_qp=16", "max_cq=16", "max_pd=8", "max_mr=16", "max_ah=16",
	"max_mw=4", NULL,
};

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	orca_log_set_quiet(1);
	return 0;
}

/* Drain EQ 0 and check what the device published. */
static void drain(struct fx *f)
{
	struct orca_eqe eqe;
	uint32_t pi = le32toh(f->regs->eq_pi);
	uint32_t ci = le32toh(f->regs->cmdq_ci);

	FZ_ASSERT(!f->eq_depth || pi - f->eq_ci <= f->eq_depth,
		  "eq_pi %u, driver's eq_ci %u, depth %u", pi, f->eq_ci,
		  f->eq_depth);
	FZ_ASSERT(le32toh(f->regs->cmdq_pi) - ci <= CMDQ_DEPTH,
		  "cmdq_ci %u is not within a ring of cmdq_pi %u", ci,
		  le32toh(f->regs->cmdq_pi));
	while (fx_pop(f, &eqe))
		;
	FZ_ASSERT(canaries_ok(f), "a write outside guest RAM");
}

static void command(struct fx *f, struct fz *z)
{
	static uint8_t payload[ORCA_MBOX_SIZE + 64];
	uint16_t op = opcodes[fz_u8(z) % (sizeof(opcodes) / sizeof(opcodes[0]))];
	uint16_t in_len = fz_u16(z) % (ORCA_MBOX_SIZE + 1);
	uint16_t out_len = fz_u16(z) % (ORCA_MBOX_SIZE + 1);
	uint8_t patch = fz_u8(z);

	fz_bytes(z, payload, in_len);
	/* often name real objects, to get past the handle checks */
	if (in_len >= 8 && (patch & 3) == 1)
		memcpy(payload, &(uint32_t){ htole32(f->pdn) }, 4);
	else if (in_len >= 8 && (patch & 3) == 2)
		memcpy(payload, &(uint32_t){ htole32(f->cqn) }, 4);
	fx_submit(f, op, payload, in_len, out_len);
}

static void raw_entry(struct fx *f, struct fz *z)
{
	struct orca_cmdq_entry e;

	fz_bytes(z, &e, sizeof(e));
	/* mailboxes anywhere in guest RAM, and sometimes past it */
	e.in_mbox = htole64(le64toh(e.in_mbox) % (RAM_SIZE + 0x20000));
	e.out_mbox = htole64(le64toh(e.out_mbox) % (RAM_SIZE + 0x20000));
	fx_put_entry(f, &e);
}

static void func_reset(struct fx *f, struct fz *z)
{
	f->regs->dev_ctl = htole32(ORCA_DEV_CTL_RESET);
	orca_dev_tick(&f->dev);
	FZ_ASSERT(le32toh(f->regs->dev_sts) & ORCA_DEV_STS_RESET_DONE,
		  "function reset not acknowledged");
	if (fz_u8(z) & 1)
		fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
	else
		fx_program_queues(f, ORCA_EQ_LOG_DEPTH);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz z = { data, size };
	struct fx *f = fx_new_cfg(small);
	unsigned int steps = 0;

	if (fz_u8(&z) & 1)
		fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
	else
		fx_program_queues(f, 1 + fz_u8(&z) % 8);
	while (z.n && steps++ < 256) {
		switch (fz_u8(&z) % 8) {
		case 0: case 1: case 2:
			command(f, &z);
			fx_ring(f);
			break;
		case 3:		/* a batch: one doorbell for several */
			command(f, &z);
			command(f, &z);
			command(f, &z);
			fx_ring(f);
			break;
		case 4:
			raw_entry(f, &z);
			fx_ring(f);
			break;
		case 5:
			orca_dev_tick(&f->dev);
			break;
		case 6:		/* a producer index that is not the truth */
			f->regs->cmdq_pi = htole32(f->pi + fz_u8(&z) - 128);
			orca_dev_doorbell(&f->dev, ORCA_FW_VEC_CMDQ);
			f->pi = le32toh(f->regs->cmdq_ci);
			f->regs->cmdq_pi = htole32(f->pi);
			break;
		case 7:
			if (fz_u8(&z) < 32)
				func_reset(f, &z);
			else
				orca_dev_doorbell(&f->dev, fz_u8(&z) % 4);
			break;
		}
		drain(f);
	}
	fx_free(f);
	FZ_ASSERT(!tap_case_failures, "a fixture check failed");
	return 0;
}
