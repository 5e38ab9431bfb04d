// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the device model core: the QP mirror, the SQD drain,
 * asynchronous events, and the test hooks behind the control socket
 * (eq-flood, caps-override, qp-fatal, sq-error, port-down / port-up,
 * fatal, hang) together with the control socket's request parser.
 */
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "orca_log.h"
#include "qp_fixture.h"

/* eq-flood: events beyond the EQ are dropped and counted, QP -> ERR. */
static void eq_flood_drops(void)
{
	struct fx *f = fx_new_cfg(NULL);
	uint32_t qpn, free_slots;
	char err[64];

	fx_bringup_eq(f, ORCA_INIT_F_EQ_IRQ, 4);	/* 16 entries */
	qpn = qp_in_state(f, ORCA_QPT_RC, ORCA_QPS_RTS);
	CHECK(qpn);
	free_slots = 16 - (le32toh(f->regs->eq_pi) - f->eq_ci);
	CHECK(orca_dev_hook_eq_flood(&f->dev, 99, 0, err, sizeof(err)));
	CHECK_EQ(orca_dev_hook_eq_flood(&f->dev, 20, qpn, err, sizeof(err)),
		 0);
	CHECK_EQ(le32toh(f->regs->eq_overflows), 20 + 1 - free_slots);
	CHECK_EQ(mirror(f, qpn)->state, ORCA_QPS_ERR);
	fx_free(f);
}

/* caps-override changes what is reported, not what the device holds. */
static void caps_override(void)
{
	struct fx *f = fx_up();
	struct orca_caps c;
	char err[64];

	CHECK_EQ(orca_dev_hook_caps_override(&f->dev, "max_qp", 0xfffffffe,
					     err, sizeof(err)), 0);
	CHECK(orca_dev_hook_caps_override(&f->dev, "fw_version", 1, err,
					  sizeof(err)));
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &c, sizeof(c)), 0);
	CHECK_EQ(le32toh(c.max_qp), 0xfffffffe);
	CHECK_EQ(le32toh(c.max_cq), f->cfg.max_cq);
	CHECK_EQ(orca_dev_hook_caps_override(&f->dev, "clear", 0, err,
					     sizeof(err)), 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &c, sizeof(c)), 0);
	CHECK_EQ(le32toh(c.max_qp), f->cfg.max_qp);
	fx_free(f);
}

/* ------------------------------------------------------------------ */
/* Mirror, SQD drain, async events, hooks                             */
/* ------------------------------------------------------------------ */

static void mirror_protocol(void)
{
	struct fx *f = fx_up();
	uint32_t qpn = create_qp(f, ORCA_QPT_UC);
	const struct orca_qp_mirror *m = mirror(f, qpn);
	uint32_t seq = le32toh(m->seq);
	struct orca_qp_ctx a;
	int i;

	CHECK_EQ(seq, 2);
	CHECK_EQ(m->state, ORCA_QPS_RESET);
	for (i = 0; i < 3; i++) {
		static const uint8_t st[] = { ORCA_QPS_INIT, ORCA_QPS_RTR,
					      ORCA_QPS_RTS };
		static const uint8_t prev[] = { ORCA_QPS_RESET, ORCA_QPS_INIT,
						ORCA_QPS_RTR };

		CHECK_EQ(modify(f, qpn, ORCA_QP_STATE |
				rule_for(ORCA_QPT_UC, prev[i], st[i]).req,
				st[i]), 0);
		CHECK_EQ(le32toh(m->seq), seq + 2);
		CHECK_EQ(le32toh(m->seq) & 1, 0);
		CHECK_EQ(m->state, st[i]);
		CHECK_EQ(m->sq_draining, 0);
		CHECK_EQ(le32toh(m->qpn), qpn);
		CHECK_EQ(m->reserved, 0);
		seq += 2;
	}
	/* a failed modify writes nothing */
	fill_attrs(&a);
	CHECK(modify(f, qpn, ORCA_QP_STATE, ORCA_QPS_INIT));
	CHECK_EQ(le32toh(m->seq), seq);
	/* destroy publishes RESET */
	CHECK_EQ(destroy_qp(f, qpn), 0);
	CHECK_EQ(le32toh(m->seq), seq + 2);
	CHECK_EQ(m->state, ORCA_QPS_RESET);
	fx_free(f);

	/* QPNs beyond qp_mirror_entries are not mirrored (no stray write) */
	f = fx_new_cfg(NULL);
	fx_program_queues(f, ORCA_EQ_LOG_DEPTH);
	f->regs->qp_mirror_entries = htole32(3);	/* QPN 2 only */
	memset(f->ram + MIRROR_BASE, 0xcc, 0x100);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	{
		struct orca_init_in init = { 0 };
		struct orca_pd_handle pd;
		struct orca_create_cq_in ci = { .cqe = htole32(4) };
		struct orca_create_cq_out co;

		CHECK_EQ(fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0), 0);
		CHECK_EQ(fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, &pd, sizeof(pd)), 0);
		CHECK_EQ(fx_cmd(f, ORCA_CMD_CREATE_CQ, &ci, sizeof(ci), &co,
				sizeof(co)), 0);
		f->pdn = le32toh(pd.pdn);
		f->cqn = le32toh(co.cqn);
	}
	CHECK_EQ(create_qp(f, ORCA_QPT_RC), 2);
	CHECK_EQ(create_qp(f, ORCA_QPT_RC), 3);
	CHECK_EQ(le32toh(mirror(f, 2)->seq), 2);
	CHECK_EQ(f->ram[MIRROR_BASE + 3 * 16], 0xcc);
	CHECK_EQ(f->ram[MIRROR_BASE + 3 * 16 + 15], 0xcc);
	fx_free(f);
}

static void sqd_drain(void)
{
	struct fx *f = fx_up();
	uint32_t qpn = qp_in_state(f, ORCA_QPT_RC, ORCA_QPS_RTS);
	uint32_t quiet = qp_in_state(f, ORCA_QPT_UD, ORCA_QPS_RTS);
	const struct orca_qp_mirror *m = mirror(f, qpn);
	struct orca_qp_ctx a, out;
	struct orca_eqe eqe;
	uint32_t seq;

	fill_attrs(&a);
	a.en_sqd_async_notify = 1;
	CHECK_EQ(modify_full(f, qpn, ORCA_QP_STATE | ORCA_QP_EN_SQD_ASYNC_NOTIFY,
			     &a, ORCA_QPS_SQD, 0, 0, 0, &out), 0);
	CHECK_EQ(out.sq_draining, 1);
	CHECK_EQ(out.en_sqd_async_notify, 1);
	CHECK_EQ(m->state, ORCA_QPS_SQD);
	CHECK_EQ(m->sq_draining, 1);
	CHECK_EQ(modify(f, quiet, ORCA_QP_STATE, ORCA_QPS_SQD), 0);
	/* IBTA: SQD->SQD only once drained */
	EXPECT_FAIL(f, modify(f, qpn, ORCA_QP_STATE | ORCA_QP_TIMEOUT,
			      ORCA_QPS_SQD),
		    ORCA_STATUS_BAD_QP_STATE, ORCA_SYND_TRANSITION);
	seq = le32toh(m->seq);
	f->n_async = 0;
	orca_dev_tick(&f->dev);
	CHECK_EQ(m->sq_draining, 0);
	CHECK_EQ(le32toh(m->seq), seq + 2);
	CHECK_EQ(mirror(f, quiet)->sq_draining, 0);
	/* exactly one event: the QP that asked for it */
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(eqe.type, ORCA_EQE_QP_EVENT);
	CHECK_EQ(le32toh(eqe.qp.qpn), qpn);
	CHECK_EQ(eqe.qp.event, ORCA_QP_EV_SQ_DRAINED);
	CHECK_EQ(eqe.qp.state, ORCA_QPS_SQD);
	CHECK_EQ(le32toh(eqe.qp.mirror_seq), seq + 2);
	CHECK(!fx_pop(f, &eqe));
	CHECK_EQ(query_qp(f, qpn, &out), 0);
	CHECK_EQ(out.sq_draining, 0);
	/* now SQD->SQD works, and SQD->RTS */
	CHECK_EQ(modify(f, qpn, ORCA_QP_STATE | ORCA_QP_TIMEOUT, ORCA_QPS_SQD), 0);
	CHECK_EQ(modify(f, qpn, ORCA_QP_STATE, ORCA_QPS_RTS), 0);
	/* leaving SQD before the drain tick: no event later */
	CHECK_EQ(modify(f, qpn, ORCA_QP_STATE | ORCA_QP_EN_SQD_ASYNC_NOTIFY,
			ORCA_QPS_SQD), 0);
	CHECK_EQ(modify(f, qpn, ORCA_QP_STATE, ORCA_QPS_RTS), 0);
	CHECK_EQ(f->dev.n_draining, 0);
	orca_dev_tick(&f->dev);
	CHECK(!fx_pop(f, &eqe));
	fx_free(f);

	/* SQD async notify not in dev_caps */
	{
		const char *const sets[] = { "dev_caps=0x7", NULL };

		f = fx_up_cfg(sets);
		qpn = qp_in_state(f, ORCA_QPT_RC, ORCA_QPS_RTS);
		EXPECT_FAIL(f, modify(f, qpn, ORCA_QP_STATE |
				      ORCA_QP_EN_SQD_ASYNC_NOTIFY, ORCA_QPS_SQD),
			    ORCA_STATUS_UNSUPPORTED, ORCA_SYND_INVALID_ATTR);
		fx_free(f);
	}
}

static void async_events_only_when_armed(void)
{
	struct fx *f = fx_new_cfg(NULL);
	struct orca_init_in init = { .flags = htole32(ORCA_INIT_F_EQ_IRQ) };
	struct orca_eqe eqe;
	char err[64];

	fx_program_queues(f, ORCA_EQ_LOG_DEPTH);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	CHECK_EQ(orca_dev_hook_port(&f->dev, false, err, sizeof(err)), 0);
	orca_dev_tick(&f->dev);
	CHECK(!fx_pop(f, &eqe));
	CHECK_EQ(le32toh(f->regs->eq_overflows), 0);
	CHECK_EQ(f->irqs, 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0), 0);
	/* QUERY_PORT sees the state changed while disarmed */
	{
		struct orca_query_port_in in = { .port = 1 };
		struct orca_port_attr p;

		CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_PORT, &in, sizeof(in), &p,
				sizeof(p)), 0);
		CHECK_EQ(p.state, ORCA_PORT_DOWN);
		CHECK_EQ(p.phys_state, 2);
	}
	f->irqs = 0;
	CHECK_EQ(orca_dev_hook_port(&f->dev, true, err, sizeof(err)), 0);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(eqe.type, ORCA_EQE_PORT_EVENT);
	CHECK_EQ(eqe.port.port, 1);
	CHECK_EQ(eqe.port.event, ORCA_PORT_EV_ACTIVE);
	CHECK_EQ(f->irqs, 1);
	/* no transition, no event */
	CHECK_EQ(orca_dev_hook_port(&f->dev, true, err, sizeof(err)), 0);
	CHECK(!fx_pop(f, &eqe));
	CHECK_EQ(orca_dev_hook_port(&f->dev, false, err, sizeof(err)), 0);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(eqe.port.event, ORCA_PORT_EV_DOWN);
	fx_free(f);
}

static void hooks(void)
{
	struct fx *f = fx_up();
	uint32_t rc = qp_in_state(f, ORCA_QPT_RC, ORCA_QPS_RTS);
	uint32_t ud = qp_in_state(f, ORCA_QPT_UD, ORCA_QPS_RTS);
	uint32_t fresh = create_qp(f, ORCA_QPT_UC);
	uint32_t seq;
	struct orca_eqe eqe;
	char err[128];

	/* qp-fatal: ERR, mirror, then QP_EVENT FATAL carrying the seq */
	seq = le32toh(mirror(f, rc)->seq);
	CHECK_EQ(orca_dev_hook_qp_fatal(&f->dev, rc, err, sizeof(err)), 0);
	CHECK_EQ(mirror(f, rc)->state, ORCA_QPS_ERR);
	CHECK_EQ(le32toh(mirror(f, rc)->seq), seq + 2);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(eqe.type, ORCA_EQE_QP_EVENT);
	CHECK_EQ(le32toh(eqe.qp.qpn), rc);
	CHECK_EQ(eqe.qp.event, ORCA_QP_EV_FATAL);
	CHECK_EQ(eqe.qp.state, ORCA_QPS_ERR);
	CHECK_EQ(le32toh(eqe.qp.mirror_seq), seq + 2);
	CHECK_EQ(qp_state(f, rc), ORCA_QPS_ERR);
	CHECK(orca_dev_hook_qp_fatal(&f->dev, 777, err, sizeof(err)));
	CHECK(orca_dev_hook_qp_fatal(&f->dev, fresh, err, sizeof(err)));

	/* sq-error: UD RTS -> SQE, RC refused */
	CHECK_EQ(orca_dev_hook_sq_error(&f->dev, ud, err, sizeof(err)), 0);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(eqe.qp.event, ORCA_QP_EV_SQ_ERROR);
	CHECK_EQ(eqe.qp.state, ORCA_QPS_SQE);
	CHECK_EQ(qp_state(f, ud), ORCA_QPS_SQE);
	CHECK(orca_dev_hook_sq_error(&f->dev, ud, err, sizeof(err)));
	CHECK(orca_dev_hook_sq_error(&f->dev, rc, err, sizeof(err)));
	CHECK(orca_dev_hook_sq_error(&f->dev, fresh, err, sizeof(err)));
	/* SQE -> RTS recovers */
	CHECK_EQ(modify(f, ud, ORCA_QP_STATE, ORCA_QPS_RTS), 0);

	/* heartbeat */
	{
		uint64_t hb = le64toh(f->regs->heartbeat);

		orca_dev_tick(&f->dev);
		orca_dev_tick(&f->dev);
		CHECK_EQ(le64toh(f->regs->heartbeat), hb + 2);
	}

	/* fatal: health + DEVICE_FATAL EQE, then no more commands */
	orca_dev_hook_fatal(&f->dev, 0x42);
	CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_FATAL);
	CHECK_EQ(le32toh(f->regs->fatal_syndrome), 0x42);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(eqe.type, ORCA_EQE_DEVICE_FATAL);
	CHECK_EQ(le32toh(eqe.fatal.syndrome), 0x42);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, NULL,
			sizeof(struct orca_caps)), 0xff);
	{
		uint64_t hb = le64toh(f->regs->heartbeat);

		orca_dev_tick(&f->dev);	/* firmware alive, device dead */
		CHECK_EQ(le64toh(f->regs->heartbeat), hb + 1);
		orca_dev_hook_hang(&f->dev);
		orca_dev_tick(&f->dev);
		orca_dev_tick(&f->dev);
		CHECK_EQ(le64toh(f->regs->heartbeat), hb + 1);
	}
	fx_free(f);

	/* hang: nothing consumed */
	f = fx_up();
	orca_dev_hook_hang(&f->dev);
	{
		uint32_t ci = le32toh(f->regs->cmdq_ci);

		CHECK_EQ(fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, NULL, 8), 0xff);
		CHECK_EQ(le32toh(f->regs->cmdq_ci), ci);
	}
	fx_free(f);
}

static void control_requests(void)
{
	struct fx *f = fx_up();
	uint32_t qpn = qp_in_state(f, ORCA_QPT_UC, ORCA_QPS_RTS);
	char line[64], reply[2048];

	CHECK_EQ(ctl_execute(&f->dev, "ping", reply, sizeof(reply)), 0);
	CHECK(!strncmp(reply, "ok pong", 7));
	CHECK_EQ(ctl_execute(&f->dev, "stats", reply, sizeof(reply)), 0);
	CHECK(!strncmp(reply, "ok cmds=", 8));
	CHECK(strstr(reply, "op_CREATE_QP=1") != NULL);
	CHECK(strstr(reply, "op_MODIFY_QP=3") != NULL);
	ctl_execute(&f->dev, "bogus", reply, sizeof(reply));
	CHECK(!strncmp(reply, "error", 5));
	ctl_execute(&f->dev, "", reply, sizeof(reply));
	CHECK(!strncmp(reply, "error", 5));
	ctl_execute(&f->dev, "qp-fatal", reply, sizeof(reply));
	CHECK(!strncmp(reply, "error", 5));
	ctl_execute(&f->dev, "qp-fatal abc", reply, sizeof(reply));
	CHECK(!strncmp(reply, "error", 5));
	ctl_execute(&f->dev, "qp-fatal 5 6", reply, sizeof(reply));
	CHECK(!strncmp(reply, "error", 5));
	ctl_execute(&f->dev, "ping extra", reply, sizeof(reply));
	CHECK(!strncmp(reply, "error", 5));
	snprintf(line, sizeof(line), "sq-error %u", qpn);
	ctl_execute(&f->dev, line, reply, sizeof(reply));
	CHECK(!strncmp(reply, "ok", 2));
	CHECK_EQ(qp_state(f, qpn), ORCA_QPS_SQE);
	snprintf(line, sizeof(line), "qp-fatal 0x%x", qpn);
	ctl_execute(&f->dev, line, reply, sizeof(reply));
	CHECK(!strncmp(reply, "ok", 2));
	CHECK_EQ(qp_state(f, qpn), ORCA_QPS_ERR);
	ctl_execute(&f->dev, "port-down", reply, sizeof(reply));
	CHECK(!strcmp(reply, "ok port 1 down"));
	CHECK_EQ(f->dev.port_state, ORCA_PORT_DOWN);
	ctl_execute(&f->dev, "port-up", reply, sizeof(reply));
	CHECK_EQ(f->dev.port_state, ORCA_PORT_ACTIVE);
	ctl_execute(&f->dev, "fatal 0", reply, sizeof(reply));
	CHECK(!strncmp(reply, "error", 5));
	CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_OK);
	ctl_execute(&f->dev, "fatal", reply, sizeof(reply));
	CHECK(!strcmp(reply, "ok fatal syndrome=1"));
	CHECK_EQ(le32toh(f->regs->fatal_syndrome), ORCA_FATAL_INJECTED);
	CHECK_EQ(ctl_execute(&f->dev, "kill", reply, sizeof(reply)), 1);
	CHECK(!strncmp(reply, "ok", 2));
	ctl_execute(&f->dev, "hang", reply, sizeof(reply));
	CHECK(f->dev.hung);
	fx_free(f);
}

int main(int argc, char **argv)
{
	/* the device logs every rejected command: keep TAP output readable */
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();

	RUN(eq_flood_drops);
	RUN(caps_override);
	RUN(mirror_protocol);
	RUN(sqd_drain);
	RUN(async_events_only_when_armed);
	RUN(hooks);
	RUN(control_requests);
	return tap_done();
}
