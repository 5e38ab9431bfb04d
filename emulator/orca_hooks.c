// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: test hooks (the control socket's device-side
 * requests): device-initiated QP changes, port changes, fatal errors,
 * hangs and stalls, a slow device, EQ floods, lies about capabilities.
 */
#include <stdarg.h>

#include "orca_cmd.h"
#include "orca_dev.h"

/* ------------------------------------------------------------------ */
/* Test hooks                                                         */
/* ------------------------------------------------------------------ */

static int hook_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int hook_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* A device-initiated state change: mirror first, then the event. */
static void qp_set_async_state(struct orca_dev *dev, uint32_t qpn,
			       struct orca_qp *qp, uint8_t state,
			       uint8_t event)
{
	uint32_t seq;

	if (qp->ctx.sq_draining)
		dev->n_draining--;
	qp->ctx.sq_draining = 0;
	qp->ctx.state = state;
	seq = mirror_write(dev, qpn, &qp->ctx);
	post_qp_event(dev, qpn, event, state, seq);
}

static void qp_async_state(struct orca_dev *dev, uint32_t qpn,
			   struct orca_qp *qp, uint8_t state, uint8_t event)
{
	qp_set_async_state(dev, qpn, qp, state, event);
	flush_irq(dev);
}

int orca_dev_hook_qp_fatal(struct orca_dev *dev, uint32_t qpn, char *err,
			   size_t errlen)
{
	struct orca_qp *qp = qp_get(dev, qpn);
	bool was_err;

	if (!qp)
		return hook_err(err, errlen, "no QP %u", qpn);
	if (qp->ctx.state == ORCA_QPS_RESET)
		return hook_err(err, errlen, "QP %u is in RESET", qpn);
	was_err = qp->ctx.state == ORCA_QPS_ERR;
	qp_async_state(dev, qpn, qp, ORCA_QPS_ERR, ORCA_QP_EV_FATAL);
	if (!was_err) {
		/* flushed now, and an SRQ QP hears of its last WQE */
		qp_err_entered(dev, qp);
		flush_irq(dev);
	}
	orca_log("hook: QP %u -> ERR (fatal)", qpn);
	return 0;
}

int orca_dev_hook_sq_error(struct orca_dev *dev, uint32_t qpn, char *err,
			   size_t errlen)
{
	struct orca_qp *qp = qp_get(dev, qpn);

	if (!qp)
		return hook_err(err, errlen, "no QP %u", qpn);
	/* IBTA: an RC send error moves the whole QP to ERR, never to SQE */
	if (qp->ctx.qp_type == ORCA_QPT_RC)
		return hook_err(err, errlen,
				"QP %u is RC: RC QPs go to ERR (use qp-fatal)",
				qpn);
	if (qp->ctx.state != ORCA_QPS_RTS && qp->ctx.state != ORCA_QPS_SQD)
		return hook_err(err, errlen, "QP %u is %s, SQE needs RTS or SQD",
				qpn, orca_qps_name(qp->ctx.state));
	qp_async_state(dev, qpn, qp, ORCA_QPS_SQE, ORCA_QP_EV_SQ_ERROR);
	orca_log("hook: QP %u -> SQE", qpn);
	return 0;
}

int orca_dev_hook_port(struct orca_dev *dev, bool up, char *err,
		       size_t errlen)
{
	(void)err;
	(void)errlen;
	/*
	 * With a fabric the port leaves it (PORT_DOWN) and comes back
	 * (PORT_UP): ACTIVE again once the SM has answered.
	 */
	if (dev->fab)
		fabric_admin(dev, up);
	else
		port_set_state(dev, up ? ORCA_PORT_ACTIVE : ORCA_PORT_DOWN);
	return 0;
}

void orca_dev_hook_fatal(struct orca_dev *dev, uint32_t syndrome)
{
	go_fatal(dev, syndrome, "injected by test hook");
	flush_irq(dev);
}

void orca_dev_hook_hang(struct orca_dev *dev)
{
	dev->hung = true;
	dev->stall_ticks = 0;
	orca_log("hook: hang (no doorbells, no heartbeat)");
}

void orca_dev_hook_stall(struct orca_dev *dev, uint32_t ms)
{
	dev->hung = true;
	dev->stall_ticks = (ms + ORCA_HEARTBEAT_PERIOD_MS - 1) /
			   ORCA_HEARTBEAT_PERIOD_MS + 1;
	orca_log("hook: stall for %u ms (no doorbells, no heartbeat), then resume",
		 ms);
}

void orca_dev_hook_cmd_delay(struct orca_dev *dev, uint32_t ms)
{
	dev->cmd_delay_ticks = (ms + ORCA_HEARTBEAT_PERIOD_MS - 1) /
			       ORCA_HEARTBEAT_PERIOD_MS;
	orca_log("hook: command completions held for %u ms", ms);
}

/*
 * Completion interrupts held back (CEQEs are still written): the driver
 * sees the completion EQ only when it drains it itself, as after a
 * DESTROY_CQ, until the hold ends and the pending interrupt goes out.
 */
void orca_dev_hook_comp_irq_hold(struct orca_dev *dev, bool hold)
{
	dev->comp_irq_held = hold;
	orca_log("hook: completion interrupts %s", hold ? "held" : "released");
	if (!hold)
		flush_irq(dev);
}

void orca_dev_hook_db_awake_hold(struct orca_dev *dev, bool hold)
{
	dev->db_awake_held = hold;
	orca_log("hook: doorbell hint %s", hold ? "held awake" : "released");
	if (hold)
		db_hint_set(dev, true);
}

int orca_dev_hook_eq_flood(struct orca_dev *dev, uint32_t n, uint32_t qpn,
			   char *err, size_t errlen)
{
	struct orca_qp *qp = qp_get(dev, qpn);
	uint32_t i, lost = dev->eq_overflows;
	bool was_err;

	if (!qp)
		return hook_err(err, errlen, "no QP %u", qpn);
	if (qp->ctx.state == ORCA_QPS_RESET)
		return hook_err(err, errlen, "QP %u is in RESET", qpn);
	/*
	 * No interrupt until the end: the driver cannot drain meanwhile, and
	 * every event of the QP's entry into ERR (QP_FATAL, and LAST_WQE_
	 * REACHED for an SRQ QP) finds the EQ full.
	 */
	for (i = 0; i < n; i++)
		post_qp_event(dev, qpn, ORCA_QP_EV_COMM_EST, qp->ctx.state,
			      dev->mirror_seq[qpn]);
	was_err = qp->ctx.state == ORCA_QPS_ERR;
	qp_set_async_state(dev, qpn, qp, ORCA_QPS_ERR, ORCA_QP_EV_FATAL);
	if (!was_err)
		qp_err_entered(dev, qp);
	flush_irq(dev);
	orca_log("hook: %u events then QP %u -> ERR; %u events dropped", n,
		 qpn, dev->eq_overflows - lost);
	return 0;
}

int orca_dev_hook_caps_override(struct orca_dev *dev, const char *field,
				uint64_t val, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
#define F(f) { #f, offsetof(struct orca_caps_override, f) }
		F(max_qp), F(max_cq), F(max_pd), F(max_cqe), F(max_qp_wr),
		F(num_comp_vectors), F(phys_port_cnt), F(gid_tbl_len),
		F(pkey_tbl_len),
#undef F
	};
	size_t i;

	if (!strcmp(field, "clear")) {
		memset(&dev->lie, 0, sizeof(dev->lie));
		port_mirror_write(dev);
		orca_log("hook: capabilities reported as configured again");
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		if (strcmp(field, fields[i].name))
			continue;
		memcpy((char *)&dev->lie + fields[i].off, &val, sizeof(val));
		port_mirror_write(dev);
		orca_log("hook: report %s = %llu (0 = as configured)", field,
			 (unsigned long long)val);
		return 0;
	}
	return hook_err(err, errlen, "no overridable capability '%s'", field);
}

/*
 * A device that breaks the protocol, for the driver's robustness tests
 * (ctl "misbehave KIND [ARG]"):
 *   stale-cpl           a CMD_DONE for a token nobody has outstanding
 *   dup-cpl             the next command's completion is posted twice
 *   long-cpl            the next completion claims 64 bytes more output
 *                       than the driver offered
 *   bad-eqe             an event of a type the interface does not have
 *   eq-jump N           eq_pi moves N entries past the whole ring
 *   mirror-garbage QPN  QPN's mirror entry gets an impossible state
 *   magic-change        the register block's magic changes (another
 *                       firmware behind the function)
 *   fw-version-change   fw_version changes
 *   irq-storm N         N interrupts on each vector with nothing new
 *   clear               magic and fw_version as configured again
 */
int orca_dev_hook_misbehave(struct orca_dev *dev, const char *kind,
			    uint32_t arg, char *err, size_t errlen)
{
	struct orca_eqe eqe;
	uint32_t i;

	memset(&eqe, 0, sizeof(eqe));
	if (!strcmp(kind, "stale-cpl")) {
		eqe.type = ORCA_EQE_CMD_DONE;
		eqe.cmd.token = htole16(0xbeef);
		post_async(dev, &eqe);
	} else if (!strcmp(kind, "dup-cpl")) {
		dev->dup_next_cpl = true;
	} else if (!strcmp(kind, "long-cpl")) {
		dev->long_next_cpl = true;
	} else if (!strcmp(kind, "bad-eqe")) {
		eqe.type = 0x7e;
		post_async(dev, &eqe);
	} else if (!strcmp(kind, "eq-jump")) {
		/* the device's own index jumps: it stays there */
		dev->eq_pi += (1U << dev->eq_log_depth) + arg;
		REG_WR32(dev, eq_pi, dev->eq_pi);
		dev->irq_pending = dev->irq_enabled;
	} else if (!strcmp(kind, "mirror-garbage")) {
		struct orca_qp *qp = qp_get(dev, arg);
		struct orca_qp_ctx bad;

		if (!qp)
			return hook_err(err, errlen, "no QP %u", arg);
		bad = qp->ctx;
		bad.state = 0x77;
		mirror_write(dev, arg, &bad);
	} else if (!strcmp(kind, "magic-change")) {
		REG_WR64(dev, magic, 0x0bad0bad0bad0badULL);
	} else if (!strcmp(kind, "fw-version-change")) {
		REG_WR64(dev, fw_version, dev->cfg.fw_version + 1);
	} else if (!strcmp(kind, "irq-storm")) {
		for (i = 0; i < arg && dev->raise_irq; i++) {
			dev->raise_irq(dev->irq_priv, ORCA_MSIX_EQ);
			dev->raise_irq(dev->irq_priv, ORCA_MSIX_COMP);
		}
		dev->stats.irqs += 2ULL * i;
	} else if (!strcmp(kind, "clear")) {
		REG_WR64(dev, magic, ORCA_MAGIC);
		REG_WR64(dev, fw_version, dev->cfg.fw_version);
		dev->dup_next_cpl = dev->long_next_cpl = false;
	} else {
		return hook_err(err, errlen, "no misbehaviour '%s'", kind);
	}
	orca_log("hook: misbehave %s %u", kind, arg);
	flush_irq(dev);
	return 0;
}

bool orca_dev_hook_link_faults(struct orca_dev *dev, uint32_t drop_ppm,
			       uint32_t dup_ppm, uint32_t reorder_ppm,
			       uint32_t delay_us)
{
	if (!wire_set_faults(dev, drop_ppm, dup_ppm, reorder_ppm, delay_us))
		return false;
	orca_log("link faults: drop %u ppm, dup %u ppm, reorder %u ppm, delay %u us",
		 drop_ppm, dup_ppm, reorder_ppm, delay_us);
	return true;
}
