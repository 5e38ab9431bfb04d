// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * orca firmware command transport.
 *
 * Commands go through a ring in host memory; completions and asynchronous
 * events come back through one event queue.  The device may complete
 * commands in any order, so each outstanding command owns a context,
 * found again by the token the device echoes.  Until interrupts are up
 * the waiter polls the event queue itself.
 */

#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include "orca_com.h"

#define CREATE_TRACE_POINTS
#include "orca_trace.h"

#define ORCA_REG(field)	offsetof(struct orca_regs, field)

static const char *const orca_opcode_names[] = {
	[ORCA_CMD_RESET] = "RESET",
	[ORCA_CMD_INIT] = "INIT",
	[ORCA_CMD_TEARDOWN] = "TEARDOWN",
	[ORCA_CMD_QUERY_CAPS] = "QUERY_CAPS",
	[ORCA_CMD_QUERY_PORT] = "QUERY_PORT",
	[ORCA_CMD_QUERY_GID_TABLE] = "QUERY_GID_TABLE",
	[ORCA_CMD_QUERY_PKEY_TABLE] = "QUERY_PKEY_TABLE",
	[ORCA_CMD_QUERY_COUNTERS] = "QUERY_COUNTERS",
	[ORCA_CMD_ALLOC_PD] = "ALLOC_PD",
	[ORCA_CMD_DEALLOC_PD] = "DEALLOC_PD",
	[ORCA_CMD_CREATE_KICK_RING] = "CREATE_KICK_RING",
	[ORCA_CMD_DESTROY_KICK_RING] = "DESTROY_KICK_RING",
	[ORCA_CMD_CREATE_CQ] = "CREATE_CQ",
	[ORCA_CMD_DESTROY_CQ] = "DESTROY_CQ",
	[ORCA_CMD_CREATE_QP] = "CREATE_QP",
	[ORCA_CMD_MODIFY_QP] = "MODIFY_QP",
	[ORCA_CMD_QUERY_QP] = "QUERY_QP",
	[ORCA_CMD_DESTROY_QP] = "DESTROY_QP",
	[ORCA_CMD_ALLOC_MR] = "ALLOC_MR",
	[ORCA_CMD_ATTACH_MCAST] = "ATTACH_MCAST",
	[ORCA_CMD_DETACH_MCAST] = "DETACH_MCAST",
	[ORCA_CMD_REG_MR] = "REG_MR",
	[ORCA_CMD_DEREG_MR] = "DEREG_MR",
	[ORCA_CMD_RESIZE_CQ] = "RESIZE_CQ",
	[ORCA_CMD_REREG_MR] = "REREG_MR",
	[ORCA_CMD_ALLOC_MW] = "ALLOC_MW",
	[ORCA_CMD_DEALLOC_MW] = "DEALLOC_MW",
	[ORCA_CMD_CREATE_AH] = "CREATE_AH",
	[ORCA_CMD_DESTROY_AH] = "DESTROY_AH",
	[ORCA_CMD_CREATE_SRQ] = "CREATE_SRQ",
	[ORCA_CMD_MODIFY_SRQ] = "MODIFY_SRQ",
	[ORCA_CMD_QUERY_SRQ] = "QUERY_SRQ",
	[ORCA_CMD_DESTROY_SRQ] = "DESTROY_SRQ",
};

const char *orca_com_opcode_str(u16 opcode)
{
	if (opcode < ARRAY_SIZE(orca_opcode_names) && orca_opcode_names[opcode])
		return orca_opcode_names[opcode];
	return "UNKNOWN";
}

static const struct {
	int err;
	const char *name;
} orca_status_table[] = {
	[ORCA_STATUS_OK] = { 0, "OK" },
	[ORCA_STATUS_BAD_OPCODE] = { -EOPNOTSUPP, "BAD_OPCODE" },
	[ORCA_STATUS_BAD_PARAM] = { -EINVAL, "BAD_PARAM" },
	[ORCA_STATUS_BAD_RESOURCE] = { -EINVAL, "BAD_RESOURCE" },
	[ORCA_STATUS_BAD_RES_STATE] = { -EBUSY, "BAD_RES_STATE" },
	[ORCA_STATUS_BAD_QP_STATE] = { -EINVAL, "BAD_QP_STATE" },
	[ORCA_STATUS_NO_RESOURCES] = { -ENOMEM, "NO_RESOURCES" },
	[ORCA_STATUS_UNSUPPORTED] = { -EOPNOTSUPP, "UNSUPPORTED" },
	[ORCA_STATUS_BAD_LEN] = { -EIO, "BAD_LEN" },
	[ORCA_STATUS_DMA_FAULT] = { -EFAULT, "DMA_FAULT" },
	[ORCA_STATUS_NOT_READY] = { -EAGAIN, "NOT_READY" },
	[ORCA_STATUS_INTERNAL] = { -EIO, "INTERNAL" },
};

int orca_com_status_to_errno(u8 status)
{
	if (status < ARRAY_SIZE(orca_status_table) &&
	    orca_status_table[status].name)
		return orca_status_table[status].err;
	return -EIO;
}

static const char *orca_status_str(u8 status)
{
	if (status < ARRAY_SIZE(orca_status_table) &&
	    orca_status_table[status].name)
		return orca_status_table[status].name;
	return "UNKNOWN";
}

/*
 * Commands that give a resource back.  While the device is dead they
 * succeed without it, so that ib_core can always tear everything down.
 */
bool orca_com_cmd_releases(u16 opcode)
{
	switch (opcode) {
	case ORCA_CMD_DEALLOC_PD:
	case ORCA_CMD_DESTROY_KICK_RING:
	case ORCA_CMD_DESTROY_CQ:
	case ORCA_CMD_DESTROY_QP:
	case ORCA_CMD_DETACH_MCAST:
	case ORCA_CMD_DEREG_MR:
	case ORCA_CMD_DEALLOC_MW:
	case ORCA_CMD_DESTROY_AH:
	case ORCA_CMD_DESTROY_SRQ:
		return true;
	default:
		return false;
	}
}

static int orca_com_dead_result(u16 opcode)
{
	return orca_com_cmd_releases(opcode) ? 0 : -EIO;
}

bool orca_com_is_dead(struct orca_com *com)
{
	return test_bit(ORCA_COM_DEAD, &com->state);
}

void orca_com_count(struct orca_com *com, enum orca_com_stat stat)
{
	atomic64_inc(&com->stats.v[stat]);
}

u64 orca_com_stat(struct orca_com *com, enum orca_com_stat stat)
{
	return atomic64_read(&com->stats.v[stat]);
}

static const char *const orca_com_stat_names[] = {
	[ORCA_STAT_CMDS] = "fw_cmds",
	[ORCA_STAT_CMD_ERRORS] = "fw_cmd_errors",
	[ORCA_STAT_TIMEOUTS] = "fw_cmd_timeouts",
	[ORCA_STAT_MISSED_IRQS] = "fw_missed_irqs",
	[ORCA_STAT_STALE_COMPLETIONS] = "fw_stale_completions",
	[ORCA_STAT_ASYNC_EVENTS] = "async_events",
	[ORCA_STAT_LOST_EVENTS] = "async_events_lost",
	[ORCA_STAT_KERNEL_KICKS] = "kernel_kicks",
};

static_assert(ARRAY_SIZE(orca_com_stat_names) == ORCA_STAT_NUM);

/* The counter's name, as hw_counters and debugfs show it. */
const char *orca_com_stat_name(enum orca_com_stat stat)
{
	return stat < ORCA_STAT_NUM ? orca_com_stat_names[stat] : "unknown";
}

void orca_com_set_dead(struct orca_com *com, const char *why)
{
	struct orca_eqe fatal = { .type = ORCA_EQE_DEVICE_FATAL };
	unsigned long flags;
	unsigned int i;

	if (test_and_set_bit(ORCA_COM_DEAD, &com->state))
		return;

	dev_err(com->dmadev,
		"device dead (%s): failing create/modify/query, local destroy\n",
		why);

	/* Wake every waiter; they see the dead bit and give up. */
	spin_lock_irqsave(&com->eq_lock, flags);
	for (i = 0; i < com->cmdq_depth; i++)
		if (com->ctxs[i].token && !com->ctxs[i].completed)
			complete(&com->ctxs[i].done);
	fatal.fatal.syndrome =
		cpu_to_le32(com->ops->read32(com, ORCA_REG(fatal_syndrome)));
	if (com->event_fn)
		com->event_fn(com, &fatal);
	spin_unlock_irqrestore(&com->eq_lock, flags);
}

/* Called with eq_lock held. */
static void orca_com_complete_cmd(struct orca_com *com,
				  const struct orca_eqe_cmd_done *done)
{
	u16 token = le16_to_cpu(done->token);
	struct orca_cmd_ctx *ctx = &com->ctxs[token & (com->cmdq_depth - 1)];
	u16 out_len = le16_to_cpu(done->out_len);

	if (!token || ctx->token != token || ctx->completed) {
		orca_com_count(com, ORCA_STAT_STALE_COMPLETIONS);
		dev_warn_ratelimited(com->dmadev,
				     "stale completion, token 0x%04x\n", token);
		return;
	}

	ctx->status = done->status;
	ctx->syndrome = le32_to_cpu(done->syndrome);
	ctx->out_len = out_len;
	memcpy(ctx->inline_out, done->inline_out, sizeof(ctx->inline_out));
	ctx->completed = true;
	complete(&ctx->done);
}

/*
 * Consume every event up to the device's producer index.  Safe from the
 * IRQ handler and from a polling waiter; never counts interrupts.
 */
void orca_com_process_eq(struct orca_com *com)
{
	u32 mask = com->eq_depth - 1;
	bool fatal = false, bad_pi;
	unsigned long flags;
	u32 pi, consumed = 0, lost = 0, overflows;

	spin_lock_irqsave(&com->eq_lock, flags);
	pi = com->ops->read32(com, ORCA_REG(eq_pi));
	bad_pi = pi - com->eq_ci > com->eq_depth;
	if (!bad_pi) {
		/* entries are valid once eq_pi covers them */
		dma_rmb();
		while (com->eq_ci != pi) {
			const struct orca_eqe *eqe = &com->eq[com->eq_ci & mask];

			if (eqe->type == ORCA_EQE_CMD_DONE) {
				orca_com_complete_cmd(com, &eqe->cmd);
			} else if (eqe->type == ORCA_EQE_DEVICE_FATAL) {
				fatal = true;
			} else {
				orca_com_count(com, ORCA_STAT_ASYNC_EVENTS);
				if (com->event_fn)
					com->event_fn(com, eqe);
			}
			com->eq_ci++;
			consumed++;
		}
		if (consumed)
			com->ops->write32(com, ORCA_REG(eq_ci), com->eq_ci);
		/* events dropped while the EQ was full: nobody saw them */
		overflows = com->ops->read32(com, ORCA_REG(eq_overflows));
		lost = overflows - com->eq_overflows;
		com->eq_overflows = overflows;
	}
	spin_unlock_irqrestore(&com->eq_lock, flags);

	if (lost) {
		atomic64_add(lost, &com->stats.v[ORCA_STAT_LOST_EVENTS]);
		if (com->overflow_fn)
			com->overflow_fn(com, lost);
	}

	if (bad_pi) {
		/* a firmware that booted again restarts its indices: say so */
		orca_com_check_health(com);
		orca_com_set_dead(com, "event queue producer index out of range");
	} else if (fatal) {
		orca_com_set_dead(com, "device reported a fatal error");
	} else if (consumed > com->eq_depth / 2) {
		com->ops->ring(com, ORCA_FW_VEC_EQ);
	}
}

/**
 * orca_com_check_health - is the firmware the queues were given to alive?
 * @com: transport
 *
 * Made by a waiter that has not seen its completion, and periodically
 * for an idle device.  The device is dead if it says it is fatal, if its
 * heartbeat stopped, or if another firmware (magic, version or host
 * generation changed) now sits behind the function: that one knows
 * nothing of our queues and objects.
 */
void orca_com_check_health(struct orca_com *com)
{
	const struct orca_com_ops *ops = com->ops;
	unsigned long flags;
	u64 hb, magic, fw, gen;
	bool stalled;

	if (orca_com_is_dead(com))
		return;
	if (ops->read32(com, ORCA_REG(health)) != ORCA_HEALTH_OK) {
		orca_com_set_dead(com, "firmware health is fatal");
		return;
	}
	magic = ops->read64(com, ORCA_REG(magic));
	fw = ops->read64(com, ORCA_REG(fw_version));
	gen = ops->read64(com, ORCA_REG(generation));
	if (magic != com->fw_magic || fw != com->fw_version ||
	    gen != com->fw_generation) {
		dev_err(com->dmadev,
			"firmware changed under the driver: magic %#llx -> %#llx, version %#llx -> %#llx, generation %llu -> %llu\n",
			com->fw_magic, magic, com->fw_version, fw,
			com->fw_generation, gen);
		orca_com_set_dead(com, "firmware replaced");
		return;
	}

	hb = com->ops->read64(com, ORCA_REG(heartbeat));
	spin_lock_irqsave(&com->eq_lock, flags);
	if (hb != com->hb_value) {
		com->hb_value = hb;
		com->hb_stamp = jiffies;
	}
	stalled = time_after(jiffies,
			     com->hb_stamp + msecs_to_jiffies(ORCA_HB_DEAD_MS));
	spin_unlock_irqrestore(&com->eq_lock, flags);

	if (stalled)
		orca_com_set_dead(com, "firmware heartbeat stopped");
}

static struct orca_cmd_ctx *orca_com_get_ctx(struct orca_com *com,
					     u16 opcode, ktime_t posted)
{
	unsigned int shift = ilog2(com->cmdq_depth);
	u16 seq_mask = 0xffff >> shift;
	struct orca_cmd_ctx *ctx;
	unsigned long flags;
	unsigned int idx;
	u16 token;

	spin_lock(&com->ctx_lock);
	/* a credit guarantees a free context */
	idx = find_first_zero_bit(com->ctx_used, com->cmdq_depth);
	__set_bit(idx, com->ctx_used);
	com->token_seq = (com->token_seq + 1) & seq_mask;
	if (!com->token_seq)
		com->token_seq = 1;
	token = (com->token_seq << shift) | idx;
	spin_unlock(&com->ctx_lock);

	ctx = &com->ctxs[idx];
	reinit_completion(&ctx->done);
	spin_lock_irqsave(&com->eq_lock, flags);
	ctx->completed = false;
	ctx->token = token;
	ctx->opcode = opcode;
	ctx->posted = posted;
	spin_unlock_irqrestore(&com->eq_lock, flags);
	return ctx;
}

static void orca_com_put_ctx(struct orca_com *com, struct orca_cmd_ctx *ctx)
{
	unsigned int idx = ctx - com->ctxs;
	unsigned long flags;

	/* a completion arriving from now on is stale */
	spin_lock_irqsave(&com->eq_lock, flags);
	ctx->token = 0;
	spin_unlock_irqrestore(&com->eq_lock, flags);

	spin_lock(&com->ctx_lock);
	__clear_bit(idx, com->ctx_used);
	spin_unlock(&com->ctx_lock);
	up(&com->credits);
}

static void orca_com_post(struct orca_com *com, struct orca_cmd_ctx *ctx,
			  u16 opcode, const void *in, size_t in_len,
			  size_t out_len)
{
	struct orca_cmdq_entry entry = {
		.opcode = cpu_to_le16(opcode),
		.token = cpu_to_le16(ctx->token),
		.in_len = cpu_to_le16(in_len),
		.out_len = cpu_to_le16(out_len),
	};

	if (in_len > ORCA_CMD_INLINE_IN) {
		memcpy(ctx->in_mbox, in, in_len);
		entry.in_mbox = cpu_to_le64(ctx->in_mbox_dma);
	} else if (in_len) {
		memcpy(entry.inline_in, in, in_len);
	}
	if (out_len > ORCA_CMD_INLINE_OUT)
		entry.out_mbox = cpu_to_le64(ctx->out_mbox_dma);

	spin_lock(&com->cmdq_lock);
	com->cmdq[com->cmdq_pi & (com->cmdq_depth - 1)] = entry;
	/* the entry and mailbox must be visible before the producer index */
	dma_wmb();
	com->cmdq_pi++;
	com->ops->write32(com, ORCA_REG(cmdq_pi), com->cmdq_pi);
	com->ops->ring(com, ORCA_FW_VEC_CMDQ);
	spin_unlock(&com->cmdq_lock);
}

/*
 * Returns 0 once the command completed, -ETIMEDOUT if it did not within
 * the timeout (the device is dead now), -ENODEV if the device died.
 */
static int orca_com_wait(struct orca_com *com, struct orca_cmd_ctx *ctx,
			 u16 opcode)
{
	unsigned long slice = msecs_to_jiffies(ORCA_CMD_POLL_SLICE_MS);
	unsigned long deadline = jiffies + msecs_to_jiffies(com->timeout_ms);
	unsigned long next_check = jiffies + slice;

	for (;;) {
		if (READ_ONCE(com->event_mode)) {
			if (wait_for_completion_timeout(&ctx->done, slice)) {
				if (READ_ONCE(ctx->completed))
					return 0;
			} else {
				/* no interrupt: maybe it was lost */
				orca_com_process_eq(com);
				if (READ_ONCE(ctx->completed)) {
					orca_com_count(com,
						       ORCA_STAT_MISSED_IRQS);
					dev_warn_ratelimited(com->dmadev,
							     "%s completed without an interrupt\n",
							     orca_com_opcode_str(opcode));
					return 0;
				}
			}
		} else {
			orca_com_process_eq(com);
			if (READ_ONCE(ctx->completed))
				return 0;
			usleep_range(10, 50);
		}

		if (orca_com_is_dead(com))
			return -ENODEV;
		if (time_after_eq(jiffies, next_check)) {
			orca_com_check_health(com);
			next_check = jiffies + slice;
		}
		if (time_after(jiffies, deadline)) {
			orca_com_count(com, ORCA_STAT_TIMEOUTS);
			dev_err(com->dmadev, "%s timed out after %u ms\n",
				orca_com_opcode_str(opcode), com->timeout_ms);
			orca_com_set_dead(com, "command timeout");
			return -ETIMEDOUT;
		}
	}
}

/* One orca_cmd trace event: how the command ended and how long it took. */
static void orca_com_trace(struct orca_com *com, u16 opcode, u16 token,
			   u16 status, u32 syndrome, int err, ktime_t posted)
{
	if (trace_orca_cmd_enabled())
		trace_orca_cmd(com->dmadev, opcode, token, status, syndrome, err,
			       ktime_us_delta(ktime_get(), posted));
}

/**
 * orca_com_exec - run one firmware command and wait for its completion
 * @com: transport
 * @opcode: ORCA_CMD_*
 * @in: input payload, @in_len bytes (inline or mailbox, chosen here)
 * @in_len: input length, at most ORCA_MBOX_SIZE
 * @out: output buffer, @out_len bytes
 * @out_len: output length offered and required, at most ORCA_MBOX_SIZE
 *
 * May sleep.  While the device is dead, commands that release resources
 * succeed without it and every other command fails with -EIO.  The
 * device writes at most @out_len bytes (orca_hw.h, "Payload lengths");
 * a completion that claims more is a device error.  Every command is
 * traced (orca_cmd) when it completes or is given up.
 *
 * Return: 0 or a negative errno mapped from the completion status.
 */
int orca_com_exec(struct orca_com *com, u16 opcode, const void *in,
		  size_t in_len, void *out, size_t out_len)
{
	ktime_t posted = ktime_get();
	struct orca_cmd_ctx *ctx;
	u32 syndrome = 0;
	u16 status;
	int err;

	if (WARN_ON(in_len > ORCA_MBOX_SIZE || out_len > ORCA_MBOX_SIZE))
		return -EINVAL;
	if (orca_com_is_dead(com)) {
		err = orca_com_dead_result(opcode);
		orca_com_trace(com, opcode, 0, ORCA_CMD_STATUS_DEAD, 0, err,
			       posted);
		return err;
	}

	if (down_timeout(&com->credits, msecs_to_jiffies(com->timeout_ms))) {
		dev_err_ratelimited(com->dmadev,
				    "%s: no command slot free for %u ms\n",
				    orca_com_opcode_str(opcode),
				    com->timeout_ms);
		if (orca_com_is_dead(com)) {
			status = ORCA_CMD_STATUS_DEAD;
			err = orca_com_dead_result(opcode);
		} else {
			status = ORCA_CMD_STATUS_NO_SLOT;
			err = -EBUSY;
		}
		orca_com_trace(com, opcode, 0, status, 0, err, posted);
		return err;
	}

	ctx = orca_com_get_ctx(com, opcode, posted);
	orca_com_post(com, ctx, opcode, in, in_len, out_len);
	orca_com_count(com, ORCA_STAT_CMDS);

	err = orca_com_wait(com, ctx, opcode);
	if (err) {
		status = err == -ETIMEDOUT ? ORCA_CMD_STATUS_TIMEOUT :
					     ORCA_CMD_STATUS_DEAD;
		err = orca_com_dead_result(opcode);
		goto out;
	}

	status = ctx->status;
	syndrome = ctx->syndrome;
	err = orca_com_status_to_errno(ctx->status);
	if (err) {
		orca_com_count(com, ORCA_STAT_CMD_ERRORS);
		dev_warn_ratelimited(com->dmadev,
				     "%s failed: status %s (0x%x) syndrome 0x%x\n",
				     orca_com_opcode_str(opcode),
				     orca_status_str(ctx->status), ctx->status,
				     ctx->syndrome);
		goto out;
	}
	if (ctx->out_len != out_len) {
		orca_com_count(com, ORCA_STAT_CMD_ERRORS);
		dev_err_ratelimited(com->dmadev,
				    "%s: device wrote %u bytes, %zu expected\n",
				    orca_com_opcode_str(opcode), ctx->out_len,
				    out_len);
		err = -EIO;
		goto out;
	}
	if (out_len > ORCA_CMD_INLINE_OUT)
		memcpy(out, ctx->out_mbox, out_len);
	else if (out_len)
		memcpy(out, ctx->inline_out, out_len);
out:
	orca_com_trace(com, opcode, ctx->token, status, syndrome, err, posted);
	orca_com_put_ctx(com, ctx);
	return err;
}

void orca_com_set_event_mode(struct orca_com *com, bool on)
{
	WRITE_ONCE(com->event_mode, on);
	/* anything that completed while switching is picked up here */
	orca_com_process_eq(com);
}

/**
 * orca_com_dev_reset - function reset through the register block
 * @com: transport
 *
 * Works whether or not the command queue does.  Once this returns 0 the
 * device performs no DMA until orca_com_program_queues() enables it
 * again, so the queue memory may be freed.
 *
 * Return: 0, or -ETIMEDOUT if the device did not acknowledge (it may still
 * write to every address it was given).
 */
int orca_com_dev_reset(struct orca_com *com)
{
	const struct orca_com_ops *ops = com->ops;
	unsigned long deadline = jiffies + msecs_to_jiffies(ORCA_RESET_TIMEOUT_MS);

	ops->write32(com, ORCA_REG(dev_ctl), ORCA_DEV_CTL_RESET);
	ops->ring(com, ORCA_FW_VEC_CMDQ);
	while (!orca_com_reset_acked(com)) {
		if (time_after(jiffies, deadline)) {
			dev_err(com->dmadev,
				"device did not acknowledge the reset within %u ms\n",
				ORCA_RESET_TIMEOUT_MS);
			return -ETIMEDOUT;
		}
		usleep_range(1000, 2000);
	}
	return 0;
}

/**
 * orca_com_reset_acked - has the device performed the reset asked of it?
 * @com: transport
 *
 * A device that did not acknowledge orca_com_dev_reset() in time performs
 * the reset when it wakes, before anything else.  Once acknowledged, the
 * request is withdrawn.
 *
 * Return: true if the device acknowledged (no DMA until enabled again).
 */
bool orca_com_reset_acked(struct orca_com *com)
{
	const struct orca_com_ops *ops = com->ops;

	if (!(ops->read32(com, ORCA_REG(dev_sts)) & ORCA_DEV_STS_RESET_DONE))
		return false;
	ops->write32(com, ORCA_REG(dev_ctl), 0);
	return true;
}

/*
 * Tell the device where the queues are and enable them; indices continue
 * from the device's own.  The device latches the addresses.
 */
void orca_com_program_queues(struct orca_com *com)
{
	const struct orca_com_ops *ops = com->ops;

	com->cmdq_pi = ops->read32(com, ORCA_REG(cmdq_ci));
	com->eq_ci = ops->read32(com, ORCA_REG(eq_pi));

	ops->write64(com, ORCA_REG(cmdq_base), com->cmdq_dma);
	ops->write32(com, ORCA_REG(cmdq_log_depth), ilog2(com->cmdq_depth));
	ops->write32(com, ORCA_REG(cmdq_pi), com->cmdq_pi);
	ops->write64(com, ORCA_REG(eq_base), com->eq_dma);
	ops->write32(com, ORCA_REG(eq_log_depth), ilog2(com->eq_depth));
	ops->write32(com, ORCA_REG(eq_ci), com->eq_ci);
	com->eq_overflows = ops->read32(com, ORCA_REG(eq_overflows));
	ops->write32(com, ORCA_REG(dev_ctl), ORCA_DEV_CTL_ENABLE);

	com->hb_value = ops->read64(com, ORCA_REG(heartbeat));
	com->hb_stamp = jiffies;
	com->fw_magic = ops->read64(com, ORCA_REG(magic));
	com->fw_version = ops->read64(com, ORCA_REG(fw_version));
	com->fw_generation = ops->read64(com, ORCA_REG(generation));
}

static void orca_com_free_mboxes(struct orca_com *com)
{
	unsigned int i;

	for (i = 0; i < com->cmdq_depth; i++) {
		struct orca_cmd_ctx *ctx = &com->ctxs[i];

		if (ctx->in_mbox)
			dma_free_coherent(com->dmadev, ORCA_MBOX_SIZE,
					  ctx->in_mbox, ctx->in_mbox_dma);
		if (ctx->out_mbox)
			dma_free_coherent(com->dmadev, ORCA_MBOX_SIZE,
					  ctx->out_mbox, ctx->out_mbox_dma);
	}
}

static int orca_com_alloc_mboxes(struct orca_com *com)
{
	unsigned int i;

	for (i = 0; i < com->cmdq_depth; i++) {
		struct orca_cmd_ctx *ctx = &com->ctxs[i];

		init_completion(&ctx->done);
		ctx->in_mbox = dma_alloc_coherent(com->dmadev, ORCA_MBOX_SIZE,
						  &ctx->in_mbox_dma,
						  GFP_KERNEL);
		ctx->out_mbox = dma_alloc_coherent(com->dmadev, ORCA_MBOX_SIZE,
						   &ctx->out_mbox_dma,
						   GFP_KERNEL);
		if (!ctx->in_mbox || !ctx->out_mbox) {
			orca_com_free_mboxes(com);
			return -ENOMEM;
		}
	}
	return 0;
}

/**
 * orca_com_init - allocate the queues and command contexts
 * @com: transport, zeroed by the caller
 * @dmadev: device for DMA allocations and logging
 * @ops: register and doorbell access
 * @event_fn: asynchronous event handler, called in atomic context
 * @timeout_ms: per-command timeout
 *
 * Nothing is written to the device; orca_com_program_queues() does that.
 *
 * Return: 0 or -ENOMEM.
 */
int orca_com_init(struct orca_com *com, struct device *dmadev,
		  const struct orca_com_ops *ops, orca_com_event_fn event_fn,
		  unsigned int timeout_ms)
{
	int err = -ENOMEM;

	com->dmadev = dmadev;
	com->ops = ops;
	com->event_fn = event_fn;
	com->timeout_ms = timeout_ms;
	com->cmdq_depth = 1U << ORCA_CMDQ_LOG_DEPTH;
	com->eq_depth = 1U << ORCA_EQ_LOG_DEPTH;
	spin_lock_init(&com->cmdq_lock);
	spin_lock_init(&com->ctx_lock);
	spin_lock_init(&com->eq_lock);
	sema_init(&com->credits, com->cmdq_depth);

	com->ctxs = kcalloc(com->cmdq_depth, sizeof(*com->ctxs), GFP_KERNEL);
	com->ctx_used = bitmap_zalloc(com->cmdq_depth, GFP_KERNEL);
	if (!com->ctxs || !com->ctx_used)
		goto err_free;

	com->cmdq = dma_alloc_coherent(dmadev,
				       com->cmdq_depth * sizeof(*com->cmdq),
				       &com->cmdq_dma, GFP_KERNEL);
	if (!com->cmdq)
		goto err_free;
	com->eq = dma_alloc_coherent(dmadev, com->eq_depth * sizeof(*com->eq),
				     &com->eq_dma, GFP_KERNEL);
	if (!com->eq)
		goto err_free_cmdq;

	err = orca_com_alloc_mboxes(com);
	if (err)
		goto err_free_eq;
	return 0;

err_free_eq:
	dma_free_coherent(dmadev, com->eq_depth * sizeof(*com->eq), com->eq,
			  com->eq_dma);
err_free_cmdq:
	dma_free_coherent(dmadev, com->cmdq_depth * sizeof(*com->cmdq),
			  com->cmdq, com->cmdq_dma);
err_free:
	bitmap_free(com->ctx_used);
	kfree(com->ctxs);
	return err;
}

/* The device acknowledged a reset (orca_com_dev_reset) and the IRQ is freed. */
void orca_com_destroy(struct orca_com *com)
{
	orca_com_free_mboxes(com);
	dma_free_coherent(com->dmadev, com->eq_depth * sizeof(*com->eq),
			  com->eq, com->eq_dma);
	dma_free_coherent(com->dmadev, com->cmdq_depth * sizeof(*com->cmdq),
			  com->cmdq, com->cmdq_dma);
	bitmap_free(com->ctx_used);
	kfree(com->ctxs);
}

/*
 * The device did not acknowledge a reset: it may still write to the
 * rings and mailboxes, so they are never given back.  Only host-side
 * bookkeeping is freed.
 */
void orca_com_leak_dma(struct orca_com *com)
{
	dev_warn(com->dmadev,
		 "leaking the command queue, event queue and mailboxes: the device may still write to them\n");
	bitmap_free(com->ctx_used);
	kfree(com->ctxs);
}
