// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the device model core: transport errors of the command
 * queue.  Unknown opcodes, input and output lengths (and the forward
 * compatible payload rules), mailbox addresses outside guest RAM, no
 * output from a failed command, queue addresses that make the device
 * fatal, queue registers latched until a reset, a producer index beyond
 * the ring.
 */
#include <string.h>

#include "orca_log.h"
#include "qp_fixture.h"

/* Submit a raw entry and return its completion status. */
static int raw_cmd(struct fx *f, struct orca_cmdq_entry *e)
{
	struct orca_eqe eqe;

	e->token = htole16(f->next_token++);
	fx_put_entry(f, e);
	fx_ring(f);
	if (!fx_pop_cmd(f, &eqe))
		return 0xff;
	CHECK_EQ(eqe.cmd.token, e->token);
	f->synd = le32toh(eqe.cmd.syndrome);
	f->out_len = le16toh(eqe.cmd.out_len);
	return eqe.cmd.status;
}

static struct orca_cmdq_entry entry(uint16_t op, uint16_t in_len,
				    uint16_t out_len, uint64_t in_mbox,
				    uint64_t out_mbox)
{
	struct orca_cmdq_entry e;

	memset(&e, 0, sizeof(e));
	e.opcode = htole16(op);
	e.in_len = htole16(in_len);
	e.out_len = htole16(out_len);
	e.in_mbox = htole64(in_mbox);
	e.out_mbox = htole64(out_mbox);
	return e;
}

static void bad_opcode(void)
{
	struct fx *f = fx_up();
	static const uint16_t ops[] = { 0x00, 0x0c, 0x14, 0x36, 0x7f, 0xff,
					0x100, 0xffff };
	unsigned int i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct orca_cmdq_entry e = entry(ops[i], 0, 0, 0, 0);

		EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_BAD_OPCODE,
			    ORCA_SYND_NONE);
		CHECK_EQ(f->out_len, 0);
	}
	fx_free(f);
}

static void length_errors(void)
{
	struct fx *f = fx_up();
	struct orca_cmdq_entry e;
	struct orca_pd_handle pd;

	/* shorter input than the device knows */
	e = entry(ORCA_CMD_DEALLOC_PD, 4, 0, 0, 0);
	EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_BAD_LEN, ORCA_SYND_IN_LEN);
	/* QUERY_CAPS output does not fit inline */
	e = entry(ORCA_CMD_QUERY_CAPS, 0, sizeof(struct orca_caps), 0, 0);
	EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_BAD_LEN, ORCA_SYND_OUT_LEN);
	/* CREATE_QP input does not fit inline */
	e = entry(ORCA_CMD_CREATE_QP, sizeof(struct orca_create_qp_in),
		  sizeof(struct orca_qp_ctx), 0, OUT_MBOX(0));
	EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_BAD_LEN, ORCA_SYND_IN_LEN);
	/* more input than a mailbox holds */
	e = entry(ORCA_CMD_MODIFY_QP, 0xffff, sizeof(struct orca_qp_ctx),
		  IN_MBOX(0), OUT_MBOX(0));
	EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_BAD_LEN, ORCA_SYND_IN_LEN);
	/* reserved entry field */
	e = entry(ORCA_CMD_ALLOC_PD, 0, 8, 0, 0);
	e.reserved = htole64(1);
	EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_RESERVED_NZ);
	/* more room than needed is fine; out_len reports what was written */
	e = entry(ORCA_CMD_ALLOC_PD, 0, 40, 0, 0);
	CHECK_EQ(raw_cmd(f, &e), 0);
	CHECK_EQ(f->out_len, 8);
	/* small output may also go to a mailbox */
	memset(f->ram + OUT_MBOX(3), 0xee, 16);
	e = entry(ORCA_CMD_ALLOC_PD, 0, 8, 0, OUT_MBOX(3));
	CHECK_EQ(raw_cmd(f, &e), 0);
	memcpy(&pd, f->ram + OUT_MBOX(3), sizeof(pd));
	CHECK_EQ(le32toh(pd.pdn), f->pdn + 2);
	CHECK_EQ(f->ram[OUT_MBOX(3) + 8], 0xee);	/* nothing beyond */
	fx_free(f);
}

/* orca_hw.h "Payload lengths": inputs may grow, outputs are cut. */
static void length_forward_compat(void)
{
	struct fx *f = fx_up();
	struct orca_cmdq_entry e;
	struct orca_cq_handle h = { .cqn = htole32(f->cqn) };
	uint8_t big[ORCA_MBOX_SIZE];
	struct orca_caps caps;

	/* a longer input with a zero tail is a known command */
	e = entry(ORCA_CMD_ALLOC_PD, 8, 8, 0, 0);
	CHECK_EQ(raw_cmd(f, &e), 0);
	CHECK_EQ(f->out_len, 8);
	memset(big, 0, sizeof(big));
	memcpy(big, &h, sizeof(h));
	memcpy(f->ram + IN_MBOX(2), big, sizeof(big));
	e = entry(ORCA_CMD_DESTROY_CQ, ORCA_MBOX_SIZE, 0, IN_MBOX(2), 0);
	CHECK_EQ(raw_cmd(f, &e), 0);
	CHECK_EQ(f->dev.n_cqs, 0);
	/* a non-zero byte past what the device knows asks too much */
	e = entry(ORCA_CMD_ALLOC_PD, 8, 8, 0, 0);
	e.inline_in[7] = 1;
	EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_RESERVED_NZ);
	big[sizeof(h) + 100] = 0x40;
	memcpy(f->ram + IN_MBOX(2), big, sizeof(big));
	e = entry(ORCA_CMD_DEALLOC_PD, 200, 0, IN_MBOX(2), 0);
	EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_RESERVED_NZ);
	/* less output room: the device writes what fits and says so */
	e = entry(ORCA_CMD_ALLOC_PD, 0, 4, 0, 0);
	CHECK_EQ(raw_cmd(f, &e), 0);
	CHECK_EQ(f->out_len, 4);
	memset(f->ram + OUT_MBOX(4), 0xee, ORCA_MBOX_SIZE);
	e = entry(ORCA_CMD_QUERY_CAPS, 0, 0x20, 0, OUT_MBOX(4));
	CHECK_EQ(raw_cmd(f, &e), 0);
	CHECK_EQ(f->out_len, 0x20);
	memcpy(&caps, f->ram + OUT_MBOX(4), sizeof(caps));
	CHECK_EQ(le64toh(caps.fw_version), f->cfg.fw_version);
	CHECK_EQ(f->ram[OUT_MBOX(4) + 0x20], 0xee);
	/* nothing at all is a valid (if useless) amount */
	e = entry(ORCA_CMD_QUERY_CAPS, 0, 0, 0, 0);
	CHECK_EQ(raw_cmd(f, &e), 0);
	CHECK_EQ(f->out_len, 0);
	fx_free(f);
}

static void dma_mailbox_out_of_range(void)
{
	struct fx *f = fx_up();
	static const uint64_t bad[] = {
		RAM_SIZE, RAM_SIZE - 8, RAM_SIZE + 0x1000, 1ULL << 40,
		~0ULL, ~0ULL - 0x20,
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct orca_cmdq_entry e;

		e = entry(ORCA_CMD_CREATE_QP, sizeof(struct orca_create_qp_in),
			  sizeof(struct orca_qp_ctx), bad[i], OUT_MBOX(1));
		EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_DMA_FAULT,
			    ORCA_SYND_IN_ADDR);
		e = entry(ORCA_CMD_QUERY_CAPS, 0, sizeof(struct orca_caps), 0,
			  bad[i]);
		EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_DMA_FAULT,
			    ORCA_SYND_OUT_ADDR);
		e = entry(ORCA_CMD_ALLOC_PD, 0, 8, 0, bad[i] == RAM_SIZE - 8 ?
			  RAM_SIZE - 7 : bad[i]);
		EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_DMA_FAULT,
			    ORCA_SYND_OUT_ADDR);
		CHECK(canaries_ok(f));
	}
	/* last byte in range is fine */
	{
		struct orca_cmdq_entry e = entry(ORCA_CMD_QUERY_CAPS, 0,
						 sizeof(struct orca_caps), 0,
						 RAM_SIZE - sizeof(struct orca_caps));

		CHECK_EQ(raw_cmd(f, &e), 0);
	}
	/* a refused output address has no side effect */
	{
		struct orca_create_qp_in in = qp_in(f, ORCA_QPT_RC);
		struct orca_cmdq_entry e;

		memcpy(f->ram + IN_MBOX(5), &in, sizeof(in));
		e = entry(ORCA_CMD_CREATE_QP, sizeof(in),
			  sizeof(struct orca_qp_ctx), IN_MBOX(5), RAM_SIZE - 8);
		EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_DMA_FAULT,
			    ORCA_SYND_OUT_ADDR);
		CHECK_EQ(f->dev.n_qps, 0);
		CHECK_EQ(f->dev.n_pds, 1);
	}
	CHECK(f->dev.stats.bad_addr >= 18);
	CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_OK);
	fx_free(f);
}

static void failed_command_writes_no_output(void)
{
	struct fx *f = fx_up();
	struct orca_query_port_in in = { .port = 9 };
	struct orca_cmdq_entry e = entry(ORCA_CMD_QUERY_PORT, sizeof(in),
					 sizeof(struct orca_port_attr), 0,
					 OUT_MBOX(7));
	size_t i;
	bool untouched = true;

	memcpy(e.inline_in, &in, sizeof(in));
	memset(f->ram + OUT_MBOX(7), 0xee, 0x1000);
	EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_ATTR_RANGE);
	CHECK_EQ(f->out_len, 0);
	for (i = 0; i < 0x1000; i++)
		untouched &= f->ram[OUT_MBOX(7) + i] == 0xee;
	CHECK(untouched);
	fx_free(f);
}

/* A device whose queues are enabled at the given (bad) addresses. */
static struct fx *fx_enable_at(uint64_t cmdq_base, uint32_t cmdq_log,
			       uint64_t eq_base, uint32_t eq_log)
{
	struct fx *f = fx_new_cfg(NULL);

	fx_program_queues(f, ORCA_EQ_LOG_DEPTH);
	f->regs->cmdq_base = htole64(cmdq_base);
	f->regs->cmdq_log_depth = htole32(cmdq_log);
	f->regs->eq_base = htole64(eq_base);
	f->regs->eq_log_depth = htole32(eq_log);
	return f;
}

static void cmdq_base_out_of_range(void)
{
	static const uint64_t bases[] = { RAM_SIZE - 64 * 32, RAM_SIZE,
					  ~0ULL - 63, CMDQ_BASE + 8 };
	unsigned int i;

	for (i = 0; i < 5; i++) {
		struct fx *f = fx_enable_at(i < 4 ? bases[i] : CMDQ_BASE,
					    i < 4 ? 6 : 9, EQ_BASE,
					    ORCA_EQ_LOG_DEPTH);
		struct orca_eqe eqe;

		fx_submit(f, ORCA_CMD_RESET, NULL, 0, 0);
		fx_ring(f);
		CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_FATAL);
		CHECK_EQ(le32toh(f->regs->fatal_syndrome), ORCA_FATAL_DMA);
		CHECK(!fx_pop(f, &eqe));
		/* a fatal device executes nothing, a new address included */
		f->regs->cmdq_base = htole64(CMDQ_BASE);
		f->regs->cmdq_log_depth = htole32(6);
		fx_ring(f);
		CHECK(!fx_pop(f, &eqe));
		/* a function reset brings it back */
		f->regs->dev_ctl = htole32(ORCA_DEV_CTL_RESET);
		orca_dev_doorbell(&f->dev, ORCA_FW_VEC_CMDQ);
		CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_OK);
		CHECK_EQ(le32toh(f->regs->dev_sts), ORCA_DEV_STS_RESET_DONE);
		fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
		CHECK_EQ(f->status, 0);
		CHECK(canaries_ok(f));
		fx_free(f);
	}
}

static void eq_base_out_of_range(void)
{
	static const uint64_t bases[] = { RAM_SIZE - 64 * 100, RAM_SIZE + 64,
					  ~0ULL - 63, EQ_BASE + 32 };
	unsigned int i;

	for (i = 0; i < 5; i++) {
		struct fx *f = fx_enable_at(CMDQ_BASE, 6,
					    i < 4 ? bases[i] : EQ_BASE,
					    i < 4 ? ORCA_EQ_LOG_DEPTH :
					    ORCA_EMU_EQ_MAX_LOG_DEPTH + 1);
		uint32_t ci = le32toh(f->regs->cmdq_ci);

		fx_submit(f, ORCA_CMD_QUERY_CAPS, NULL, 0, 0);
		fx_submit(f, ORCA_CMD_QUERY_CAPS, NULL, 0, 0);
		fx_ring(f);
		CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_FATAL);
		CHECK_EQ(le32toh(f->regs->fatal_syndrome), ORCA_FATAL_DMA);
		CHECK_EQ(le32toh(f->regs->cmdq_ci), ci + 2);
		CHECK(canaries_ok(f));
		/* further doorbells are ignored */
		fx_submit(f, ORCA_CMD_QUERY_CAPS, NULL, 0, 0);
		fx_ring(f);
		CHECK_EQ(le32toh(f->regs->cmdq_ci), ci + 2);
		fx_free(f);
	}
}

/* Once enabled, the queue registers are latched until a reset. */
static void queue_registers_latched(void)
{
	struct fx *f = fx_up();
	struct orca_pd_handle pd;

	f->regs->cmdq_base = htole64(RAM_SIZE + 0x1000);
	f->regs->cmdq_log_depth = htole32(31);
	f->regs->eq_base = htole64(~0ULL - 63);
	f->regs->eq_log_depth = htole32(31);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, &pd, sizeof(pd)), 0);
	CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_OK);
	CHECK_EQ(le32toh(f->regs->dev_sts), ORCA_DEV_STS_ENABLED);
	CHECK(canaries_ok(f));
	fx_free(f);
}

static void bad_producer_index(void)
{
	struct fx *f = fx_up();
	uint32_t ci = le32toh(f->regs->cmdq_ci);
	struct orca_eqe eqe;

	/* pi - ci > depth: ignored, nothing consumed */
	f->regs->cmdq_pi = htole32(ci + CMDQ_DEPTH + 1);
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_CMDQ);
	CHECK_EQ(le32toh(f->regs->cmdq_ci), ci);
	CHECK(!fx_pop(f, &eqe));
	CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_OK);
	/* the device recovers when pi is sane again */
	f->regs->cmdq_pi = htole32(ci);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, NULL,
			sizeof(struct orca_caps)), 0);
	fx_free(f);
}

int main(int argc, char **argv)
{
	/* the device logs every rejected command: keep TAP output readable */
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();

	RUN(bad_opcode);
	RUN(length_errors);
	RUN(length_forward_compat);
	RUN(dma_mailbox_out_of_range);
	RUN(failed_command_writes_no_output);
	RUN(cmdq_base_out_of_range);
	RUN(eq_base_out_of_range);
	RUN(queue_registers_latched);
	RUN(bad_producer_index);
	return tap_done();
}
