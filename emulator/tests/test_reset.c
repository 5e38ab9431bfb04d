// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the device model core: TEARDOWN, RESET, the function
 * reset through dev_ctl and reconnecting.  Every object gone, no DMA
 * at all afterwards (held completions and a stalled device included),
 * and a device that comes back as new.
 */
#include <stdlib.h>
#include <string.h>

#include "orca_log.h"
#include "qp_fixture.h"

static void teardown(void)
{
	struct fx *f = fx_up();
	struct orca_eqe eqe;
	uint8_t *snap;
	uint32_t qpn = create_qp(f, ORCA_QPT_RC);
	uint16_t t;

	CHECK(qpn);
	t = fx_submit(f, ORCA_CMD_TEARDOWN, NULL, 0, 0);
	fx_submit(f, ORCA_CMD_ALLOC_PD, NULL, 0, 8);	/* after TEARDOWN */
	fx_ring(f);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(le16toh(eqe.cmd.token), t);
	CHECK_EQ(eqe.cmd.status, 0);
	CHECK(!fx_pop(f, &eqe));
	CHECK_EQ(le64toh(f->regs->cmdq_base), 0);
	CHECK_EQ(le64toh(f->regs->eq_base), 0);
	CHECK_EQ(le64toh(f->regs->qp_mirror_base), 0);
	CHECK_EQ(f->dev.n_qps, 0);
	CHECK_EQ(f->dev.n_pds, 0);
	/* bring-up 2, CREATE_QP 1, TEARDOWN's own completion still 1 */
	CHECK_EQ(f->irqs, 4);

	/* No DMA at all afterwards: stray doorbells, ticks, hooks. */
	snap = malloc(RAM_SIZE);
	memcpy(snap, f->ram, RAM_SIZE);
	fx_ring(f);
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_EQ);
	orca_dev_tick(&f->dev);
	CHECK_EQ(orca_dev_hook_port(&f->dev, false, NULL, 0), 0);
	/* even with the driver's old addresses back in the registers */
	f->regs->eq_base = htole64(EQ_BASE);
	f->regs->qp_mirror_base = htole64(MIRROR_BASE);
	fx_ring(f);
	orca_dev_tick(&f->dev);
	CHECK(!memcmp(snap, f->ram, RAM_SIZE));
	free(snap);

	/*
	 * re-probe: program the queues, RESET, INIT; other commands in the
	 * torn-down state are dropped without DMA
	 */
	fx_program_queues(f, ORCA_EQ_LOG_DEPTH);
	fx_submit(f, ORCA_CMD_QUERY_CAPS, NULL, 0, sizeof(struct orca_caps));
	t = fx_submit(f, ORCA_CMD_RESET, NULL, 0, 0);
	fx_ring(f);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(le16toh(eqe.cmd.token), t);
	CHECK_EQ(eqe.cmd.status, 0);
	CHECK(!fx_pop(f, &eqe));
	fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
	CHECK_EQ(f->status, 0);
	CHECK(create_qp(f, ORCA_QPT_UD));
	fx_free(f);
}

/* dev_ctl reset: everything stops, held work included, before the ack. */
static void function_reset(void)
{
	struct fx *f = fx_up();
	uint8_t *snap = malloc(RAM_SIZE);
	unsigned int i;

	CHECK(create_qp(f, ORCA_QPT_RC));
	CHECK_EQ(le32toh(f->regs->dev_sts), ORCA_DEV_STS_ENABLED);
	/* a slow device holds this completion for 1 s */
	orca_dev_hook_cmd_delay(&f->dev, 1000);
	fx_submit(f, ORCA_CMD_ALLOC_PD, NULL, 0, 8);
	fx_ring(f);
	CHECK_EQ(f->dev.n_pending, 1);
	f->regs->dev_ctl = htole32(ORCA_DEV_CTL_RESET);
	orca_dev_tick(&f->dev);
	CHECK_EQ(le32toh(f->regs->dev_sts), ORCA_DEV_STS_RESET_DONE);
	CHECK_EQ(f->dev.n_qps + f->dev.n_pds + f->dev.n_cqs, 0);
	CHECK_EQ(f->dev.n_pending, 0);
	CHECK_EQ(f->dev.stats.func_resets, 1);
	/* no DMA at all afterwards: ticks, doorbells, hooks */
	memcpy(snap, f->ram, RAM_SIZE);
	for (i = 0; i < 20; i++) {
		orca_dev_tick(&f->dev);
		fx_ring(f);
	}
	CHECK_EQ(orca_dev_hook_port(&f->dev, false, NULL, 0), 0);
	f->regs->dev_ctl = 0;	/* the driver withdraws the request */
	fx_ring(f);
	orca_dev_tick(&f->dev);
	CHECK(!memcmp(snap, f->ram, RAM_SIZE));
	CHECK_EQ(f->dev.stats.func_resets, 1);
	/* enabled again, it works again */
	orca_dev_hook_cmd_delay(&f->dev, 0);
	fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
	CHECK_EQ(f->status, 0);
	free(snap);
	fx_free(f);
}

/* A stalled device resets first when it wakes: no stale completion. */
static void stall_then_reset_first(void)
{
	struct fx *f = fx_up();
	uint8_t *snap = malloc(RAM_SIZE);
	uint64_t hb = le64toh(f->regs->heartbeat);
	unsigned int i;

	orca_dev_hook_stall(&f->dev, 300);
	fx_submit(f, ORCA_CMD_ALLOC_PD, NULL, 0, 8);
	fx_ring(f);
	orca_dev_tick(&f->dev);
	CHECK_EQ(le64toh(f->regs->heartbeat), hb);	/* hung */
	/* the driver gave up and asked for a reset, then freed nothing yet */
	f->regs->dev_ctl = htole32(ORCA_DEV_CTL_RESET);
	memcpy(snap, f->ram, RAM_SIZE);
	for (i = 0; i < 10; i++) {
		orca_dev_tick(&f->dev);
		fx_ring(f);
	}
	CHECK(le64toh(f->regs->heartbeat) > hb);	/* awake again */
	CHECK_EQ(le32toh(f->regs->dev_sts), ORCA_DEV_STS_RESET_DONE);
	CHECK(!memcmp(snap, f->ram, RAM_SIZE));
	CHECK_EQ(f->dev.stats.completions, 5);	/* bring-up only */
	free(snap);
	fx_free(f);
}

static void reset_destroys_everything(void)
{
	struct fx *f = fx_up();
	uint32_t qpn = create_qp(f, ORCA_QPT_RC);
	struct orca_eqe eqe;
	char err[64];

	CHECK(qpn);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	CHECK_EQ(f->dev.n_qps + f->dev.n_pds + f->dev.n_cqs, 0);
	/* disarmed: no async events, no NOT_READY-free commands */
	CHECK_EQ(orca_dev_hook_port(&f->dev, false, err, sizeof(err)), 0);
	CHECK(!fx_pop(f, &eqe));
	CHECK_EQ(le32toh(f->regs->eq_overflows), 0);
	EXPECT_FAIL(f, qp_state(f, qpn) == -1 ? f->status : 0,
		    ORCA_STATUS_NOT_READY, ORCA_SYND_NOT_INIT);
	/* registers survive RESET: the cmdq keeps working */
	CHECK_EQ(le64toh(f->regs->cmdq_base), CMDQ_BASE);
	CHECK_EQ(le64toh(f->regs->eq_base), EQ_BASE);
	fx_free(f);
}

static void reconnect_resets_state(void)
{
	struct fx *f = fx_up();

	CHECK(create_qp(f, ORCA_QPT_RC));
	orca_dev_hook_fatal(&f->dev, ORCA_FATAL_INJECTED);
	orca_dev_hook_hang(&f->dev);
	orca_dev_disconnect(&f->dev);
	CHECK_EQ(le64toh(f->regs->ram_size), 0);
	orca_dev_connect(&f->dev);
	orca_dev_set_ram(&f->dev, f->ram, RAM_SIZE);
	CHECK_EQ(le64toh(f->regs->generation), 2);
	CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_OK);
	CHECK_EQ(le32toh(f->regs->fatal_syndrome), 0);
	CHECK_EQ(le32toh(f->regs->cmdq_ci), 0);
	CHECK_EQ(le32toh(f->regs->eq_pi), 0);
	CHECK_EQ(le64toh(f->regs->cmdq_base), 0);
	CHECK_EQ(le64toh(f->regs->eq_base), 0);
	CHECK_EQ(le32toh(f->regs->qp_mirror_entries), 0);
	CHECK_EQ(le64toh(f->regs->magic), ORCA_MAGIC);
	CHECK_EQ(f->dev.n_qps, 0);
	CHECK(!f->dev.hung && !f->dev.fatal);
	memset(f->ram, 0, RAM_SIZE);
	fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
	CHECK_EQ(f->status, 0);
	CHECK_EQ(create_qp(f, ORCA_QPT_RC), ORCA_QPN_BASE);
	fx_free(f);
}

int main(int argc, char **argv)
{
	/* the device logs every rejected command: keep TAP output readable */
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();

	RUN(teardown);
	RUN(function_reset);
	RUN(stall_then_reset_first);
	RUN(reset_destroys_everything);
	RUN(reconnect_resets_state);
	return tap_done();
}
