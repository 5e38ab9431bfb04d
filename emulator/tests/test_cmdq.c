// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the device model core: the register block and the
 * command queue.  Bring-up (RESET, QUERY_CAPS, INIT and when the EQ
 * interrupt is armed), commands before INIT, a full ring on one doorbell,
 * completion order, the EQ full and drained again, and random guest
 * input (commands and register writes).
 *
 * The device is linked with a fake "guest RAM" buffer surrounded by canary
 * bytes and driven exactly like the ivshmem glue drives it: the test plays
 * the driver (writes command queue entries and mailboxes into fake RAM,
 * publishes cmdq_pi, calls orca_dev_doorbell()) and reads EQEs back from
 * fake RAM (fixture.h).
 */
#include <string.h>

#include "fixture.h"
#include "orca_log.h"

/* ------------------------------------------------------------------ */
/* Register block, bring-up                                           */
/* ------------------------------------------------------------------ */

static void regs_and_bringup(void)
{
	struct fx *f = fx_new_cfg(NULL);

	CHECK_EQ(le64toh(f->regs->magic), ORCA_MAGIC);
	CHECK_EQ(le32toh(f->regs->if_version), ORCA_IF_VERSION);
	CHECK_EQ(le32toh(f->regs->fw_peer_id), 0);
	CHECK_EQ(le64toh(f->regs->fw_version), ORCA_FW_VERSION(1, 4, 7));
	CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_OK);
	CHECK_EQ(le64toh(f->regs->generation), 1);
	CHECK_EQ(le64toh(f->regs->ram_size), RAM_SIZE);
	CHECK(!strcmp((const char *)f->regs->fw_name, "orca-emu"));
	fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
	CHECK_EQ(f->status, 0);
	/* one entry consumed per command, one EQE per command */
	CHECK_EQ(le32toh(f->regs->cmdq_ci), 5);
	CHECK_EQ(le32toh(f->regs->eq_pi), 5);
	fx_free(f);
}

static void irq_only_after_init(void)
{
	struct fx *f = fx_new_cfg(NULL);
	struct orca_caps caps;
	struct orca_init_in init = { .flags = 0 };

	fx_program_queues(f, ORCA_EQ_LOG_DEPTH);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &caps, sizeof(caps)), 0);
	CHECK_EQ(f->irqs, 0);		/* polled: EQEs but no MSI-X */
	CHECK_EQ(fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0), 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &caps, sizeof(caps)), 0);
	CHECK_EQ(f->irqs, 0);		/* INIT without EQ_IRQ */
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	init.flags = htole32(ORCA_INIT_F_EQ_IRQ);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0), 0);
	CHECK_EQ(f->irqs, 0);		/* INIT's own completion: not yet armed */
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &caps, sizeof(caps)), 0);
	CHECK_EQ(f->irqs, 1);
	/* RESET issued while armed still signals its own completion */
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	CHECK_EQ(f->irqs, 2);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &caps, sizeof(caps)), 0);
	CHECK_EQ(f->irqs, 2);
	fx_free(f);
}

static void not_ready_and_init_checks(void)
{
	struct fx *f = fx_new_cfg(NULL);
	struct orca_init_in init = { .flags = htole32(ORCA_INIT_F_EQ_IRQ) };
	struct orca_pd_handle pd;
	struct orca_qp_handle h = { .qpn = htole32(2) };
	struct orca_qp_ctx c;

	fx_program_queues(f, ORCA_EQ_LOG_DEPTH);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, &pd, sizeof(pd)),
		    ORCA_STATUS_NOT_READY, ORCA_SYND_NOT_INIT);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_QUERY_QP, &h, sizeof(h), &c,
			      sizeof(c)),
		    ORCA_STATUS_NOT_READY, ORCA_SYND_NOT_INIT);

	init.flags = htole32(0x2);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS);
	init.flags = 0;
	init.reserved = htole32(1);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_RESERVED_NZ);
	init.reserved = 0;
	/* mirror outside host memory, overflowing, misaligned */
	f->regs->qp_mirror_base = htole64(RAM_SIZE - 16);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0),
		    ORCA_STATUS_DMA_FAULT, ORCA_SYND_QUEUE_ADDR);
	f->regs->qp_mirror_base = htole64(~0ULL - 15);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0),
		    ORCA_STATUS_DMA_FAULT, ORCA_SYND_QUEUE_ADDR);
	f->regs->qp_mirror_base = htole64(MIRROR_BASE + 4);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0),
		    ORCA_STATUS_DMA_FAULT, ORCA_SYND_QUEUE_ADDR);
	f->regs->qp_mirror_base = htole64(MIRROR_BASE);
	f->regs->qp_mirror_entries = htole32(0x40000000);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0),
		    ORCA_STATUS_DMA_FAULT, ORCA_SYND_QUEUE_ADDR);
	f->regs->qp_mirror_entries = htole32(4);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0), 0);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0),
		    ORCA_STATUS_BAD_RES_STATE, ORCA_SYND_NONE);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, &pd, sizeof(pd)), 0);
	fx_free(f);
}

/* ------------------------------------------------------------------ */
/* Concurrency, ordering, EQ full                                     */
/* ------------------------------------------------------------------ */

static void full_ring_one_doorbell(void)
{
	struct fx *f = fx_up();
	uint16_t tokens[CMDQ_DEPTH];
	struct orca_eqe eqe;
	unsigned int i, n = 0;
	uint32_t seen[CMDQ_DEPTH] = { 0 };
	bool distinct = true;

	for (i = 0; i < CMDQ_DEPTH; i++)
		tokens[i] = fx_submit(f, ORCA_CMD_ALLOC_PD, NULL, 0, 8);
	fx_ring(f);
	CHECK_EQ(le32toh(f->regs->cmdq_ci), f->pi);
	while (fx_pop(f, &eqe)) {
		CHECK_EQ(eqe.type, ORCA_EQE_CMD_DONE);
		CHECK_EQ(le16toh(eqe.cmd.token), tokens[n]);	/* in order */
		CHECK_EQ(eqe.cmd.status, n < 255 ? 0 : 0);
		seen[n] = le32toh(((struct orca_pd_handle *)eqe.cmd.inline_out)->pdn);
		n++;
	}
	CHECK_EQ(n, CMDQ_DEPTH);
	for (i = 1; i < n; i++)
		distinct &= seen[i] == seen[i - 1] + 1;
	CHECK(distinct);
	/* ALLOC_PD + CREATE_CQ of the bring-up, then one for the batch */
	CHECK_EQ(f->irqs, 2 + 1);
	fx_free(f);
}

static void reverse_completions(void)
{
	struct fx *f = fx_up();
	uint16_t tokens[10], t_reset, t_after;
	struct orca_eqe eqe;
	struct orca_init_in init = { .flags = htole32(ORCA_INIT_F_EQ_IRQ) };
	unsigned int i, n = 0;

	f->dev.reverse_completions = true;
	for (i = 0; i < 10; i++)
		tokens[i] = fx_submit(f, ORCA_CMD_ALLOC_PD, NULL, 0, 8);
	fx_ring(f);
	while (fx_pop(f, &eqe)) {
		CHECK_EQ(le16toh(eqe.cmd.token), tokens[9 - n]);
		CHECK_EQ(eqe.cmd.status, 0);
		/*
		 * the output matches the command: PDNs were allocated in
		 * submission order, so the last token holds the last PDN
		 */
		CHECK_EQ(le32toh(((struct orca_pd_handle *)eqe.cmd.inline_out)->pdn),
			 f->pdn + 1 + (9 - n));
		n++;
	}
	CHECK_EQ(n, 10);

	/* RESET ends its batch and completes after everything before it */
	tokens[0] = fx_submit(f, ORCA_CMD_ALLOC_PD, NULL, 0, 8);
	tokens[1] = fx_submit(f, ORCA_CMD_ALLOC_PD, NULL, 0, 8);
	t_reset = fx_submit(f, ORCA_CMD_RESET, NULL, 0, 0);
	t_after = fx_submit(f, ORCA_CMD_INIT, &init, sizeof(init), 0);
	fx_ring(f);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(le16toh(eqe.cmd.token), tokens[1]);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(le16toh(eqe.cmd.token), tokens[0]);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(le16toh(eqe.cmd.token), t_reset);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(le16toh(eqe.cmd.token), t_after);
	CHECK_EQ(eqe.cmd.status, 0);
	CHECK(!fx_pop(f, &eqe));
	fx_free(f);
}

static void eq_full(void)
{
	struct fx *f = fx_new_cfg(NULL);
	struct orca_init_in init = { .flags = htole32(ORCA_INIT_F_EQ_IRQ) };
	uint16_t tokens[7];
	struct orca_eqe eqe;
	char err[64];
	unsigned int i;

	fx_program_queues(f, 2);	/* 4 entries */
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0), 0);
	for (i = 0; i < 7; i++)
		tokens[i] = fx_submit(f, ORCA_CMD_ALLOC_PD, NULL, 0, 8);
	fx_ring(f);
	/* all 7 consumed, 4 completed, 3 pending inside the device */
	CHECK_EQ(le32toh(f->regs->cmdq_ci), f->pi);
	CHECK_EQ(le32toh(f->regs->eq_pi) - f->eq_ci, 4);
	CHECK_EQ(f->dev.n_pending, 3);
	/* async events are dropped and counted while full */
	CHECK_EQ(orca_dev_hook_port(&f->dev, false, err, sizeof(err)), 0);
	CHECK_EQ(le32toh(f->regs->eq_overflows), 1);
	/* new commands are not consumed while completions are stuck */
	fx_submit(f, ORCA_CMD_ALLOC_PD, NULL, 0, 8);
	fx_ring(f);
	CHECK_EQ(le32toh(f->regs->cmdq_ci), f->pi - 1);
	/* the driver consumes two: the EQ doorbell delivers two more */
	for (i = 0; i < 2; i++) {
		CHECK(fx_pop(f, &eqe));
		CHECK_EQ(le16toh(eqe.cmd.token), tokens[i]);
	}
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_EQ);
	CHECK_EQ(f->dev.n_pending, 1);
	for (i = 2; i < 6; i++) {
		CHECK(fx_pop(f, &eqe));
		CHECK_EQ(le16toh(eqe.cmd.token), tokens[i]);
	}
	/* the heartbeat tick retries too */
	orca_dev_tick(&f->dev);
	CHECK_EQ(f->dev.n_pending, 0);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(le16toh(eqe.cmd.token), tokens[6]);
	/* and the held-back command runs on the next doorbell */
	fx_ring(f);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(eqe.cmd.status, 0);
	CHECK_EQ(le32toh(f->regs->cmdq_ci), f->pi);
	CHECK(!fx_pop(f, &eqe));
	/* driver eq_ci garbage (ahead of pi): treated as full, no crash */
	f->regs->eq_ci = htole32(f->eq_ci + 100);
	fx_submit(f, ORCA_CMD_ALLOC_PD, NULL, 0, 8);
	fx_ring(f);
	CHECK_EQ(f->dev.n_pending, 1);
	f->regs->eq_ci = htole32(f->eq_ci);
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_EQ);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(eqe.type, ORCA_EQE_CMD_DONE);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/* ------------------------------------------------------------------ */
/* Robustness: random guest input                                     */
/* ------------------------------------------------------------------ */

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* A guest address: mostly valid mailboxes, sometimes garbage. */
static uint64_t rnd_addr(unsigned int slot)
{
	switch (rnd() % 6) {
	case 0:
		return 0;
	case 1:
		return rnd();
	case 2:
		return RAM_SIZE - (rnd() % 512);
	default:
		return (rnd() & 1) ? IN_MBOX(slot) : OUT_MBOX(slot);
	}
}

static void fuzz_commands(void)
{
	static const uint16_t ops[] = {
		ORCA_CMD_QUERY_CAPS, ORCA_CMD_QUERY_PORT, ORCA_CMD_ALLOC_PD,
		ORCA_CMD_DEALLOC_PD, ORCA_CMD_CREATE_CQ, ORCA_CMD_DESTROY_CQ,
		ORCA_CMD_CREATE_QP, ORCA_CMD_MODIFY_QP, ORCA_CMD_QUERY_QP,
		ORCA_CMD_DESTROY_QP, ORCA_CMD_INIT, 0x77,
	};
	static const uint16_t in_sizes[] = {
		0, sizeof(struct orca_query_port_in), 0,
		sizeof(struct orca_pd_handle), sizeof(struct orca_create_cq_in),
		sizeof(struct orca_cq_handle), sizeof(struct orca_create_qp_in),
		sizeof(struct orca_modify_qp_in), sizeof(struct orca_qp_handle),
		sizeof(struct orca_qp_handle), sizeof(struct orca_init_in), 0,
	};
	const char *const sets[] = { "max_qp=16", "max_cq=8", "max_pd=8", NULL };
	struct fx *f = fx_up_cfg(sets);
	unsigned int round, i, completed = 0;
	struct orca_eqe eqe;

	for (round = 0; round < 3000; round++) {
		unsigned int n = 1 + rnd() % 8;

		for (i = 0; i < n; i++) {
			unsigned int slot = f->pi & (CMDQ_DEPTH - 1);
			struct orca_cmdq_entry e;
			uint8_t *mb = f->ram + IN_MBOX(slot);
			size_t k;

			unsigned int op = rnd() % 12;

			memset(&e, 0, sizeof(e));
			e.opcode = htole16(ops[op]);
			e.token = htole16(f->next_token++);
			/* mostly right lengths, sometimes not */
			e.in_len = htole16(rnd() % 4 ? in_sizes[op] : rnd());
			e.out_len = htole16(rnd() % 4 ? 0x1000 : rnd());
			e.in_mbox = htole64(rnd_addr(slot));
			e.out_mbox = htole64(rnd_addr(slot));
			if (!(rnd() % 16))
				e.reserved = rnd();
			for (k = 0; k < sizeof(e.inline_in); k++)
				e.inline_in[k] = k % 4 || rnd() % 4 ?
						 (rnd() % 8 ? 0 : rnd()) :
						 rnd() % 20;
			/* small numbers hit real handles, states and types */
			for (k = 0; k < 0x120; k++)
				mb[k] = rnd() % 3 ? rnd() % 8 : rnd();
			if (rnd() & 1) {
				struct orca_modify_qp_in *m = (void *)mb;

				memset(m->reserved0, 0, sizeof(m->reserved0));
				memset(m->reserved1, 0, sizeof(m->reserved1));
				memset(m->ctx.reserved, 0, sizeof(m->ctx.reserved));
				m->attr_mask &= htole32(ORCA_QP_ATTR_ALL);
				m->flags &= htole32(ORCA_MODIFY_F_ECE);
			}
			fx_put_entry(f, &e);
		}
		fx_ring(f);
		while (fx_pop(f, &eqe))
			completed += eqe.type == ORCA_EQE_CMD_DONE;
		if (!(round % 100)) {
			char err[64];

			orca_dev_hook_qp_fatal(&f->dev, 2 + rnd() % 16, err,
					       sizeof(err));
			orca_dev_tick(&f->dev);
		}
	}
	CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_OK);
	CHECK_EQ(le32toh(f->regs->cmdq_ci), f->pi);
	CHECK(completed > 10000);
	CHECK(f->dev.stats.completions > 10000);
	CHECK(f->dev.n_qps <= 16 && f->dev.n_cqs <= 8 && f->dev.n_pds <= 8);
	/* reference counts stay consistent: everything can be torn down */
	CHECK_EQ(fx_cmd(f, ORCA_CMD_TEARDOWN, NULL, 0, NULL, 0), 0);
	CHECK(canaries_ok(f));
	fx_free(f);
}

static void fuzz_registers(void)
{
	unsigned int round;

	for (round = 0; round < 200; round++) {
		struct fx *f = fx_up();
		unsigned int k;

		for (k = 0; k < 8; k++) {
			switch (rnd() % 7) {
			case 0:
				f->regs->cmdq_base = htole64(rnd() % 3 ?
					rnd() % RAM_SIZE : rnd());
				break;
			case 1:
				f->regs->cmdq_log_depth = htole32(rnd() % 12);
				break;
			case 2:
				f->regs->cmdq_pi = htole32(rnd());
				break;
			case 3:
				f->regs->eq_base = htole64(rnd() % 3 ?
					rnd() % RAM_SIZE : rnd());
				break;
			case 4:
				f->regs->eq_log_depth = htole32(rnd() % 16);
				break;
			case 5:
				f->regs->eq_ci = htole32(rnd());
				break;
			case 6:
				f->regs->qp_mirror_entries = htole32(rnd());
				break;
			}
			orca_dev_doorbell(&f->dev, rnd() & 1);
			orca_dev_tick(&f->dev);
		}
		CHECK(canaries_ok(f));
		fx_free(f);
	}
}

int main(int argc, char **argv)
{
	/* the device logs every rejected command: keep TAP output readable */
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();

	RUN(regs_and_bringup);
	RUN(irq_only_after_init);
	RUN(not_ready_and_init_checks);
	RUN(full_ring_one_doorbell);
	RUN(reverse_completions);
	RUN(eq_full);
	RUN(fuzz_commands);
	RUN(fuzz_registers);
	return tap_done();
}
