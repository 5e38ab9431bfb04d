// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the command queue.  Entries are copied out of the
 * ring in batches, checked (lengths, mailboxes, state), dispatched to
 * orca_cmd.c, and completed through the event queue in order, held back
 * while the EQ is full or while a slow device (cmd-delay) sits on them.
 */
#include <errno.h>
#include <stdlib.h>

#include "orca_cmd.h"

/* ------------------------------------------------------------------ */
/* Command framework                                                  */
/* ------------------------------------------------------------------ */

/* Runs once the TEARDOWN completion is in the EQ. */
static void finish_teardown(struct orca_dev *dev)
{
	dev->teardown_cpl_pending = false;
	dev->latched = false;
	REG_WR32(dev, dev_sts, 0);
	REG_WR64(dev, cmdq_base, 0);
	REG_WR64(dev, eq_base, 0);
	REG_WR64(dev, qp_mirror_base, 0);
}

/*
 * Transport checks common to every command: lengths, addresses, state.
 * Inputs may be longer than the device knows if the tail is zero; the
 * output is cut to what the driver offers (orca_hw.h, "Payload lengths").
 */
static int cmd_prepare(struct orca_dev *dev, struct cmd *c,
		       const struct orca_cmdq_entry *e,
		       const struct cmd_desc *d)
{
	if (!d->fn)
		return fail(c, ORCA_STATUS_BAD_OPCODE, ORCA_SYND_NONE,
			    "unknown opcode");
	if (e->reserved)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RESERVED_NZ,
			    "cmdq entry reserved field not zero");
	if (c->in_len < d->in_size || c->in_len > ORCA_MBOX_SIZE)
		return fail(c, ORCA_STATUS_BAD_LEN, ORCA_SYND_IN_LEN,
			    "in_len %u, command takes %u (at most %u)",
			    c->in_len, d->in_size, ORCA_MBOX_SIZE);
	if (c->in_len && !c->in_mbox) {
		if (c->in_len > ORCA_CMD_INLINE_IN)
			return fail(c, ORCA_STATUS_BAD_LEN, ORCA_SYND_IN_LEN,
				    "in_len %u needs an input mailbox",
				    c->in_len);
		memcpy(dev->in_buf, e->inline_in, c->in_len);
	} else if (c->in_len &&
		   dma_read(dev, c->in_mbox, dev->in_buf, c->in_len)) {
		return fail(c, ORCA_STATUS_DMA_FAULT, ORCA_SYND_IN_ADDR,
			    "in_mbox 0x%llx + %u outside host memory",
			    (unsigned long long)c->in_mbox, c->in_len);
	}
	if (!all_zero(dev->in_buf + d->in_size, c->in_len - d->in_size))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RESERVED_NZ,
			    "input beyond the %u bytes this device knows is not zero",
			    d->in_size);
	c->out_size = c->out_len < d->out_size ? c->out_len : d->out_size;
	if (c->out_size > ORCA_CMD_INLINE_OUT && !c->out_mbox)
		return fail(c, ORCA_STATUS_BAD_LEN, ORCA_SYND_OUT_LEN,
			    "output of %u bytes needs an output mailbox",
			    c->out_size);
	/* Refuse a bad output address before the command has side effects. */
	if (c->out_size && c->out_mbox &&
	    !dma_ok(dev, c->out_mbox, c->out_size)) {
		dev->stats.bad_addr++;
		return fail(c, ORCA_STATUS_DMA_FAULT, ORCA_SYND_OUT_ADDR,
			    "out_mbox 0x%llx + %u outside host memory",
			    (unsigned long long)c->out_mbox, c->out_size);
	}
	if (d->need_init && dev->state != ORCA_DEV_S_ACTIVE)
		return fail(c, ORCA_STATUS_NOT_READY, ORCA_SYND_NOT_INIT,
			    "device not initialized (INIT first)");
	return ORCA_STATUS_OK;
}

/* Execute one consumed entry and build its completion. */
static void cmd_execute(struct orca_dev *dev, const struct orca_cmdq_entry *e,
			struct orca_cpl *cpl)
{
	struct orca_eqe_cmd_done *done = &cpl->eqe.cmd;
	const struct cmd_desc *d;
	struct cmd c = { 0 };
	uint32_t out_written = 0;

	c.opcode = le16toh(e->opcode);
	c.token = le16toh(e->token);
	c.in_len = le16toh(e->in_len);
	c.out_len = le16toh(e->out_len);
	c.in_mbox = le64toh(e->in_mbox);
	c.out_mbox = le64toh(e->out_mbox);
	c.in = dev->in_buf;
	c.out = dev->out_buf;
	d = &orca_cmd_table[c.opcode & 0xff];
	if (c.opcode > 0xff)
		d = &orca_cmd_table[0];	/* empty slot: BAD_OPCODE */

	/* completion of a command issued while MSI-X was on raises MSI-X */
	memset(cpl, 0, sizeof(*cpl));
	cpl->opcode = c.opcode;
	cpl->irq = dev->irq_enabled;

	dev->stats.cmds++;
	if (c.opcode <= 0xff)
		dev->stats.per_opcode[c.opcode]++;
	if (!cmd_prepare(dev, &c, e, d)) {
		/* handlers fill the whole struct; the driver gets out_size */
		memset(dev->out_buf, 0, d->out_size);
		c.status = d->fn(dev, &c);
	}
	if (!c.status && c.out_size) {
		if (!c.out_mbox)
			memcpy(done->inline_out, dev->out_buf, c.out_size);
		else if (dma_write(dev, c.out_mbox, dev->out_buf, c.out_size))
			fail(&c, ORCA_STATUS_DMA_FAULT, ORCA_SYND_OUT_ADDR,
			     "out_mbox vanished");	/* checked above */
		else
			dev->stats.dma_writes++;
		if (!c.status)
			out_written = c.out_size;
	}
	if (c.status) {
		dev->stats.cmds_failed++;
		orca_log("cmd %s (0x%02x) token %u rejected: status %s (0x%02x) syndrome %s (%u): %s",
			 orca_opcode_name(c.opcode), c.opcode, c.token,
			 orca_status_name(c.status), c.status,
			 orca_synd_name(c.synd), c.synd, c.why);
	}
	cpl->eqe.type = ORCA_EQE_CMD_DONE;
	done->token = htole16(c.token);
	done->status = c.status;
	done->syndrome = htole32(c.synd);
	done->out_len = htole16(out_written);
}

/* ------------------------------------------------------------------ */
/* Command queue processing and completion posting                    */
/* ------------------------------------------------------------------ */

/* Post one completion.  0 = in the EQ, else it must stay pending. */
static int post_cpl(struct orca_dev *dev, const struct orca_cpl *cpl)
{
	int ret;

	/* after TEARDOWN only the completions up to its own may be DMAed */
	if (dev->state == ORCA_DEV_S_TORN_DOWN && !dev->teardown_cpl_pending)
		return -ENODEV;
	if (dev->fatal)
		return -ENODEV;
	if (dev->long_next_cpl && cpl->eqe.type == ORCA_EQE_CMD_DONE) {
		/* claims more output than the driver offered */
		struct orca_cpl bad = *cpl;

		dev->long_next_cpl = false;
		bad.eqe.cmd.out_len =
			htole16(le16toh(bad.eqe.cmd.out_len) + 64);
		orca_log("misbehave: completion of token %u with out_len %u",
			 le16toh(bad.eqe.cmd.token),
			 le16toh(bad.eqe.cmd.out_len));
		return post_cpl(dev, &bad);
	}
	ret = eq_post(dev, &cpl->eqe);
	if (ret)
		return ret;
	if (dev->dup_next_cpl) {
		dev->dup_next_cpl = false;
		orca_log("misbehave: completion of token %u posted twice",
			 le16toh(cpl->eqe.cmd.token));
		eq_post(dev, &cpl->eqe);
	}
	dev->stats.completions++;
	dev->irq_pending |= cpl->irq;
	if (cpl->opcode == ORCA_CMD_TEARDOWN)
		finish_teardown(dev);
	return 0;
}

void flush_pending(struct orca_dev *dev)
{
	unsigned int i = 0;

	while (i < dev->n_pending && dev->pending[i].due <= dev->ticks &&
	       !post_cpl(dev, &dev->pending[i]))
		i++;
	if (!i)
		return;
	memmove(dev->pending, dev->pending + i,
		(dev->n_pending - i) * sizeof(dev->pending[0]));
	dev->n_pending -= i;
}

/*
 * Post the completions of one batch: in order, or reversed with
 * --reverse-completions.  A RESET or TEARDOWN ends its batch and is always
 * completed last, so that no completion of an older command follows it.
 */
static void post_batch(struct orca_dev *dev, unsigned int n)
{
	unsigned int i, k, last_barrier;

	last_barrier = n && (dev->batch[n - 1].opcode == ORCA_CMD_RESET ||
			     dev->batch[n - 1].opcode == ORCA_CMD_TEARDOWN);
	for (k = 0; k < n; k++) {
		i = k;
		if (dev->reverse_completions) {
			unsigned int m = n - last_barrier;

			i = k < m ? m - 1 - k : k;
		}
		/* a slow device (ctl "cmd-delay") holds each completion */
		dev->batch[i].due = dev->ticks + dev->cmd_delay_ticks;
		if (dev->n_pending || dev->cmd_delay_ticks ||
		    post_cpl(dev, &dev->batch[i])) {
			if (dev->fatal)
				return;
			if (!dev->n_pending && !dev->cmd_delay_ticks)
				dev->stats.eq_full++;
			dev->pending[dev->n_pending++] = dev->batch[i];
		}
	}
}

/* Copy entries ci..pi (up to and including a RESET/TEARDOWN). */
static unsigned int cmdq_consume(struct orca_dev *dev, uint64_t base,
				 uint32_t depth, uint32_t pi,
				 struct orca_cmdq_entry *ents)
{
	unsigned int n = 0;

	while (dev->cmdq_ci != pi) {
		struct orca_cmdq_entry *e = &ents[n++];
		uint16_t op;

		/* ring_ok() covered the whole ring */
		dma_read(dev, base + (uint64_t)(dev->cmdq_ci & (depth - 1)) * 64,
			 e, sizeof(*e));
		dev->cmdq_ci++;
		op = le16toh(e->opcode);
		if (op == ORCA_CMD_RESET || op == ORCA_CMD_TEARDOWN)
			break;
	}
	REG_WR32(dev, cmdq_ci, dev->cmdq_ci);
	return n;
}

/* Latched ring, current cmdq_pi; false if there is nothing (valid) to do. */
static bool cmdq_regs(struct orca_dev *dev, uint64_t *base, uint32_t *depth,
		      uint32_t *pi)
{
	uint32_t log_depth;

	*pi = REG_RD32(dev, cmdq_pi);
	if (*pi == dev->cmdq_ci)
		return false;
	*base = dev->cmdq_base;
	log_depth = dev->cmdq_log_depth;
	if (!dev->latched || !*base)
		return false;	/* not enabled (or after TEARDOWN) */
	if (!dev->ram) {
		orca_log("cmdq doorbell but host memory is not mapped yet");
		return false;
	}
	if (!log_depth || log_depth > ORCA_CMDQ_MAX_LOG_DEPTH ||
	    !ring_ok(dev, *base, log_depth)) {
		char why[96];

		dev->stats.bad_addr++;
		snprintf(why, sizeof(why),
			 "cmdq base 0x%llx log_depth %u unusable",
			 (unsigned long long)*base, log_depth);
		go_fatal(dev, ORCA_FATAL_DMA, why);
		return false;
	}
	*depth = 1U << log_depth;
	if (*pi - dev->cmdq_ci > *depth) {
		if (dev->bad_pi_logged != *pi)
			orca_log("cmdq_pi %u - cmdq_ci %u > depth %u: doorbell ignored",
				 *pi, dev->cmdq_ci, *depth);
		dev->bad_pi_logged = *pi;
		return false;
	}
	return true;
}

void process_cmdq(struct orca_dev *dev)
{
	struct orca_cmdq_entry *ents = dev->ents;
	uint32_t depth, pi;
	uint64_t base;

	/*
	 * Consume everything available; stop while completions are stuck
	 * (EQ full) so that the device never holds more than one batch.
	 */
	while (!dev->fatal && !dev->n_pending &&
	       cmdq_regs(dev, &base, &depth, &pi)) {
		unsigned int n = cmdq_consume(dev, base, depth, pi, ents);
		unsigned int i, nc = 0;

		for (i = 0; i < n && !dev->fatal; i++) {
			if (dev->state == ORCA_DEV_S_TORN_DOWN &&
			    le16toh(ents[i].opcode) != ORCA_CMD_RESET) {
				orca_log("cmd %s token %u dropped: device torn down, RESET required",
					 orca_opcode_name(le16toh(ents[i].opcode)),
					 le16toh(ents[i].token));
				continue;
			}
			cmd_execute(dev, &ents[i], &dev->batch[nc++]);
		}
		if (!dev->fatal)
			post_batch(dev, nc);
	}
}
