// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * debugfs: /sys/kernel/debug/orca/<pci>/ holds the state of the command
 * queue (cmdq) and of the event queues (eq), and the test knobs
 * query_qp_fw and query_port_fw.
 * Every file reads what the driver holds and the device's registers, and
 * works as well when the device is dead: it never sends a command.
 */

#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/io-64-nonatomic-lo-hi.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "orca.h"

#define ORCA_DBG_REG(field)	offsetof(struct orca_regs, field)

static struct dentry *orca_debugfs_root;

static u32 orca_dbg_read32(struct orca_dev *dev, u32 off)
{
	return readl(dev->regs + off);
}

struct orca_dbg_slot {
	u16 token;
	u16 opcode;
	bool completed;
	ktime_t posted;
};

/*
 * cmdq: the queue's geometry and indices, the dead and health state, the
 * contexts that hold a token (a command posted and not yet returned to
 * its caller) and the transport counters.
 */
static int orca_cmdq_show(struct seq_file *m, void *unused)
{
	struct orca_dev *dev = m->private;
	struct orca_com *com = &dev->com;
	struct orca_dbg_slot *slots;
	unsigned int i, used, n = 0;
	unsigned long flags;
	ktime_t now;
	u32 pi;

	slots = kcalloc(com->cmdq_depth, sizeof(*slots), GFP_KERNEL);
	if (!slots)
		return -ENOMEM;

	spin_lock(&com->cmdq_lock);
	pi = com->cmdq_pi;
	spin_unlock(&com->cmdq_lock);

	spin_lock(&com->ctx_lock);
	used = bitmap_weight(com->ctx_used, com->cmdq_depth);
	spin_unlock(&com->ctx_lock);

	spin_lock_irqsave(&com->eq_lock, flags);
	for (i = 0; i < com->cmdq_depth; i++) {
		const struct orca_cmd_ctx *ctx = &com->ctxs[i];

		slots[i].token = ctx->token;
		slots[i].opcode = ctx->opcode;
		slots[i].completed = ctx->completed;
		slots[i].posted = ctx->posted;
	}
	spin_unlock_irqrestore(&com->eq_lock, flags);
	now = ktime_get();

	seq_printf(m, "depth: %u\n", com->cmdq_depth);
	seq_printf(m, "cmdq_pi: %u\n", pi);
	seq_printf(m, "cmdq_ci: %u\n",
		   orca_dbg_read32(dev, ORCA_DBG_REG(cmdq_ci)));
	seq_printf(m, "contexts_in_use: %u\n", used);
	seq_printf(m, "timeout_ms: %u\n", com->timeout_ms);
	seq_printf(m, "event_mode: %d\n", READ_ONCE(com->event_mode));
	seq_printf(m, "dead: %d\n", orca_com_is_dead(com));
	seq_printf(m, "health: %u\n",
		   orca_dbg_read32(dev, ORCA_DBG_REG(health)));
	seq_printf(m, "fatal_syndrome: 0x%x\n",
		   orca_dbg_read32(dev, ORCA_DBG_REG(fatal_syndrome)));
	seq_printf(m, "heartbeat: %llu\n",
		   lo_hi_readq(dev->regs + ORCA_DBG_REG(heartbeat)));

	for (i = 0; i < com->cmdq_depth; i++) {
		if (!slots[i].token)
			continue;
		n++;
		seq_printf(m, "slot %u: token 0x%04x opcode %s (0x%02x) age_ms %lld %s\n",
			   i, slots[i].token,
			   orca_com_opcode_str(slots[i].opcode),
			   slots[i].opcode,
			   ktime_ms_delta(now, slots[i].posted),
			   slots[i].completed ? "completed" : "waiting");
	}
	seq_printf(m, "outstanding: %u\n", n);

	for (i = 0; i < ORCA_STAT_NUM; i++)
		seq_printf(m, "%s: %llu\n", orca_com_stat_name(i),
			   orca_com_stat(com, i));
	kfree(slots);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(orca_cmdq);

/*
 * eq: the asynchronous event queue (EQ 0) and the completion event queue:
 * where they are, their depth, the driver's consumer index, the device's
 * producer index and overflow counter, and the overflow count the driver
 * has already accounted for.
 */
static int orca_eq_show(struct seq_file *m, void *unused)
{
	struct orca_dev *dev = m->private;
	struct orca_com *com = &dev->com;
	u32 ci, pi, ovf, seen;
	unsigned long flags;

	spin_lock_irqsave(&com->eq_lock, flags);
	ci = com->eq_ci;
	seen = com->eq_overflows;
	pi = orca_dbg_read32(dev, ORCA_DBG_REG(eq_pi));
	ovf = orca_dbg_read32(dev, ORCA_DBG_REG(eq_overflows));
	spin_unlock_irqrestore(&com->eq_lock, flags);

	seq_printf(m, "eq_base: %pad\n", &com->eq_dma);
	seq_printf(m, "eq_depth: %u\n", com->eq_depth);
	seq_printf(m, "eq_ci: %u\n", ci);
	seq_printf(m, "eq_pi: %u\n", pi);
	seq_printf(m, "eq_overflows: %u\n", ovf);
	seq_printf(m, "eq_overflows_seen: %u\n", seen);

	spin_lock_irqsave(&dev->ceq_lock, flags);
	ci = dev->ceq_ci;
	seen = dev->ceq_overflows;
	pi = orca_dbg_read32(dev, ORCA_DBG_REG(ceq_pi));
	ovf = orca_dbg_read32(dev, ORCA_DBG_REG(ceq_overflows));
	spin_unlock_irqrestore(&dev->ceq_lock, flags);

	seq_printf(m, "ceq_base: %pad\n", &dev->ceq_dma);
	seq_printf(m, "ceq_depth: %lu\n", BIT(dev->ceq_log_depth));
	seq_printf(m, "ceq_ci: %u\n", ci);
	seq_printf(m, "ceq_pi: %u\n", pi);
	seq_printf(m, "ceq_overflows: %u\n", ovf);
	seq_printf(m, "ceq_overflows_seen: %u\n", seen);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(orca_eq);

void orca_debugfs_init(void)
{
	orca_debugfs_root = debugfs_create_dir(DRV_MODULE_NAME, NULL);
}

void orca_debugfs_cleanup(void)
{
	debugfs_remove_recursive(orca_debugfs_root);
}

/* Once the queues are up; removed before they go (orca_debugfs_remove). */
void orca_debugfs_add(struct orca_dev *dev)
{
	dev->debugfs = debugfs_create_dir(pci_name(dev->pdev),
					  orca_debugfs_root);
	/* test and debug only: query_qp from QUERY_QP, not the mirror */
	debugfs_create_bool("query_qp_fw", 0600, dev->debugfs,
			    &dev->query_qp_fw);
	/* test and debug only: query_port from QUERY_PORT, not the mirror */
	debugfs_create_bool("query_port_fw", 0600, dev->debugfs,
			    &dev->query_port_fw);
	debugfs_create_file("cmdq", 0400, dev->debugfs, dev, &orca_cmdq_fops);
	debugfs_create_file("eq", 0400, dev->debugfs, dev, &orca_eq_fops);
}

void orca_debugfs_remove(struct orca_dev *dev)
{
	debugfs_remove_recursive(dev->debugfs);
	dev->debugfs = NULL;
}
