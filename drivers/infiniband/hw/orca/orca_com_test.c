// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests for the orca command transport (orca_com.c).
 *
 * A fake device sits behind the same orca_com_ops the PCI path uses: its
 * register block is plain memory and a work item plays the firmware,
 * consuming the real command ring and writing real event queue entries.
 * Commands echo their input into their output, so a waiter that received
 * somebody else's completion notices.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/workqueue.h>

#include "orca_com.h"

#define FAKE_DEPTH	BIT(ORCA_CMDQ_LOG_DEPTH)

struct fake_fw {
	struct orca_com com;
	struct device *dev;
	struct orca_regs regs;		/* the "BAR2" */
	struct work_struct work;
	struct workqueue_struct *jobs;
	spinlock_t lock;		/* guards the fields below */
	bool reverse;			/* complete a batch in reverse order */
	bool hold;			/* consume, complete on release */
	bool drop;			/* consume, never complete */
	bool no_irq;			/* post completions, raise no "IRQ" */
	bool hb_runs;			/* heartbeat moves on every read */
	bool no_reset_ack;		/* ignore dev_ctl resets */
	u8 status;
	s16 out_shortfall;		/* < 0: claims more than offered */
	unsigned int lost_calls;
	u32 lost;
	unsigned int consumed;
	unsigned int eq_rings;
	unsigned int nheld;
	struct orca_cmdq_entry held[2 * FAKE_DEPTH];
	unsigned int nevents;
	struct orca_eqe events[8];
};

static struct fake_fw *com_to_fw(struct orca_com *com)
{
	return container_of(com, struct fake_fw, com);
}

static u32 fake_read32(struct orca_com *com, u32 off)
{
	return le32_to_cpu(*(__le32 *)((u8 *)&com_to_fw(com)->regs + off));
}

static u64 fake_read64(struct orca_com *com, u32 off)
{
	struct fake_fw *fw = com_to_fw(com);
	__le64 *reg = (__le64 *)((u8 *)&fw->regs + off);

	if (off == offsetof(struct orca_regs, heartbeat) && fw->hb_runs)
		le64_add_cpu(reg, 1);
	return le64_to_cpu(*reg);
}

static void fake_write32(struct orca_com *com, u32 off, u32 val)
{
	struct fake_fw *fw = com_to_fw(com);

	*(__le32 *)((u8 *)&fw->regs + off) = cpu_to_le32(val);
	/* a function reset is acknowledged at once, unless told otherwise */
	if (off == offsetof(struct orca_regs, dev_ctl) &&
	    (val & ORCA_DEV_CTL_RESET) && !fw->no_reset_ack)
		fw->regs.dev_sts = cpu_to_le32(ORCA_DEV_STS_RESET_DONE);
}

static void fake_write64(struct orca_com *com, u32 off, u64 val)
{
	*(__le64 *)((u8 *)&com_to_fw(com)->regs + off) = cpu_to_le64(val);
}

static void fake_ring(struct orca_com *com, u32 vec)
{
	struct fake_fw *fw = com_to_fw(com);

	if (vec == ORCA_FW_VEC_EQ) {
		fw->eq_rings++;
		return;
	}
	queue_work(system_dfl_wq, &fw->work);
}

static const struct orca_com_ops fake_ops = {
	.read32 = fake_read32,
	.read64 = fake_read64,
	.write32 = fake_write32,
	.write64 = fake_write64,
	.ring = fake_ring,
};

static void fake_lost(struct orca_com *com, u32 lost)
{
	struct fake_fw *fw = com_to_fw(com);

	fw->lost_calls++;
	fw->lost += lost;
}

static void fake_event(struct orca_com *com, const struct orca_eqe *eqe)
{
	struct fake_fw *fw = com_to_fw(com);

	if (fw->nevents < ARRAY_SIZE(fw->events))
		fw->events[fw->nevents] = *eqe;
	fw->nevents++;
}

/* Mailbox addresses are the driver's own pages: find their CPU address. */
static void *fake_mbox(struct fake_fw *fw, u64 dma)
{
	unsigned int i;

	for (i = 0; i < fw->com.cmdq_depth; i++) {
		if (fw->com.ctxs[i].in_mbox_dma == dma)
			return fw->com.ctxs[i].in_mbox;
		if (fw->com.ctxs[i].out_mbox_dma == dma)
			return fw->com.ctxs[i].out_mbox;
	}
	return NULL;
}

static void fake_post_eqe(struct fake_fw *fw, const struct orca_eqe *eqe)
{
	u32 pi = le32_to_cpu(fw->regs.eq_pi);

	fw->com.eq[pi & (fw->com.eq_depth - 1)] = *eqe;
	/* the entry is visible before the producer index moves */
	smp_wmb();
	fw->regs.eq_pi = cpu_to_le32(pi + 1);
}

/* Execute one command: the output is the input, repeated. */
static void fake_complete(struct fake_fw *fw, const struct orca_cmdq_entry *e)
{
	u16 in_len = le16_to_cpu(e->in_len), out_len = le16_to_cpu(e->out_len);
	struct orca_eqe eqe = { .type = ORCA_EQE_CMD_DONE };
	const u8 *in = e->in_mbox ? fake_mbox(fw, le64_to_cpu(e->in_mbox)) :
				    e->inline_in;
	u8 *out = e->out_mbox ? fake_mbox(fw, le64_to_cpu(e->out_mbox)) :
				eqe.cmd.inline_out;
	unsigned int i;

	for (i = 0; i < out_len; i++)
		out[i] = in_len ? in[i % in_len] : 0;
	eqe.cmd.token = e->token;
	eqe.cmd.status = fw->status;
	eqe.cmd.out_len = cpu_to_le16(out_len - fw->out_shortfall);
	fake_post_eqe(fw, &eqe);
}

static void fake_fw_work(struct work_struct *work)
{
	struct fake_fw *fw = container_of(work, struct fake_fw, work);
	struct orca_com *com = &fw->com;
	u32 ci, pi;
	unsigned int i;

	spin_lock(&fw->lock);
	ci = le32_to_cpu(fw->regs.cmdq_ci);
	pi = le32_to_cpu(fw->regs.cmdq_pi);
	for (; ci != pi; ci++) {
		fw->held[fw->nheld++] = com->cmdq[ci & (com->cmdq_depth - 1)];
		fw->consumed++;
	}
	fw->regs.cmdq_ci = cpu_to_le32(ci);

	if (fw->drop)
		fw->nheld = 0;
	if (!fw->hold && fw->nheld) {
		for (i = 0; i < fw->nheld; i++)
			fake_complete(fw, &fw->held[fw->reverse ?
						    fw->nheld - 1 - i : i]);
		fw->nheld = 0;
		spin_unlock(&fw->lock);
		if (READ_ONCE(com->event_mode) && !fw->no_irq)
			orca_com_process_eq(com);
		return;
	}
	spin_unlock(&fw->lock);
}

static void fake_release(struct fake_fw *fw)
{
	spin_lock(&fw->lock);
	fw->hold = false;
	spin_unlock(&fw->lock);
	queue_work(system_dfl_wq, &fw->work);
}

static unsigned int fake_consumed(struct fake_fw *fw)
{
	unsigned int n;

	spin_lock(&fw->lock);
	n = fw->consumed;
	spin_unlock(&fw->lock);
	return n;
}

static bool wait_for_consumed(struct fake_fw *fw, unsigned int n)
{
	unsigned int ms;

	for (ms = 0; ms < 5000; ms += 20) {
		if (fake_consumed(fw) >= n)
			return true;
		msleep(20);
	}
	return false;
}

static int fake_init(struct kunit *test)
{
	struct fake_fw *fw;
	int err;

	fw = kunit_kzalloc(test, sizeof(*fw), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fw);
	/*
	 * No owner module: in a module, 6.1 runs the suites while it is still
	 * coming up, before its sysfs directory exists, where
	 * root_device_register() fails to link the device to it.
	 */
	fw->dev = __root_device_register("orca_kunit", NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(fw->dev));
	fw->dev->coherent_dma_mask = DMA_BIT_MASK(64);
	fw->dev->dma_mask = &fw->dev->coherent_dma_mask;
	spin_lock_init(&fw->lock);
	INIT_WORK(&fw->work, fake_fw_work);
	fw->jobs = alloc_workqueue("orca_kunit_jobs", WQ_UNBOUND,
				   2 * FAKE_DEPTH);
	KUNIT_ASSERT_NOT_NULL(test, fw->jobs);
	fw->hb_runs = true;
	fw->regs.health = cpu_to_le32(ORCA_HEALTH_OK);

	err = orca_com_init(&fw->com, fw->dev, &fake_ops, fake_event, 2000);
	KUNIT_ASSERT_EQ(test, err, 0);
	fw->com.overflow_fn = fake_lost;
	orca_com_program_queues(&fw->com);
	test->priv = fw;
	return 0;
}

static void fake_exit(struct kunit *test)
{
	struct fake_fw *fw = test->priv;

	if (!fw)
		return;
	destroy_workqueue(fw->jobs);
	cancel_work_sync(&fw->work);
	orca_com_destroy(&fw->com);
	root_device_unregister(fw->dev);
}

/* A command run from its own thread, so that many are outstanding. */
struct job {
	struct work_struct work;
	struct fake_fw *fw;
	u16 opcode;
	u8 in[16];
	u8 out[16];
	int ret;
};

static void job_fn(struct work_struct *work)
{
	struct job *j = container_of(work, struct job, work);

	j->ret = orca_com_exec(&j->fw->com, j->opcode, j->in, sizeof(j->in),
			       j->out, sizeof(j->out));
}

static struct job *start_jobs(struct kunit *test, struct fake_fw *fw,
			      unsigned int n)
{
	struct job *jobs = kunit_kcalloc(test, n, sizeof(*jobs), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, jobs);
	for (i = 0; i < n; i++) {
		INIT_WORK(&jobs[i].work, job_fn);
		jobs[i].fw = fw;
		jobs[i].opcode = ORCA_CMD_QUERY_QP;
		memset(jobs[i].in, i + 1, sizeof(jobs[i].in));
		jobs[i].ret = -EINPROGRESS;
		queue_work(fw->jobs, &jobs[i].work);
	}
	return jobs;
}

static void check_jobs(struct kunit *test, struct job *jobs, unsigned int n)
{
	unsigned int i, wrong = 0;

	for (i = 0; i < n; i++) {
		flush_work(&jobs[i].work);
		KUNIT_EXPECT_EQ(test, jobs[i].ret, 0);
		if (memcmp(jobs[i].in, jobs[i].out, sizeof(jobs[i].in)))
			wrong++;
	}
	KUNIT_EXPECT_EQ_MSG(test, wrong, 0, "outputs delivered to the wrong waiter");
}

static int exec_echo(struct fake_fw *fw, u16 opcode, size_t len, u8 seed)
{
	u8 in[ORCA_MBOX_SIZE / 8], out[ORCA_MBOX_SIZE / 8];
	size_t i;
	int err;

	for (i = 0; i < len; i++)
		in[i] = seed + i;
	memset(out, 0, sizeof(out));
	err = orca_com_exec(&fw->com, opcode, in, len, out, len);
	if (!err && memcmp(in, out, len))
		return -EBADMSG;
	return err;
}

/* A command with input and no output, like the destroy commands. */
static int exec_in_only(struct fake_fw *fw, u16 opcode)
{
	u8 in[8] = { 1 };

	return orca_com_exec(&fw->com, opcode, in, sizeof(in), NULL, 0);
}

static void status_errno_table(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, orca_com_status_to_errno(ORCA_STATUS_OK), 0);
	KUNIT_EXPECT_EQ(test, orca_com_status_to_errno(ORCA_STATUS_BAD_OPCODE),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, orca_com_status_to_errno(ORCA_STATUS_BAD_PARAM),
			-EINVAL);
	KUNIT_EXPECT_EQ(test,
			orca_com_status_to_errno(ORCA_STATUS_BAD_RESOURCE),
			-EINVAL);
	KUNIT_EXPECT_EQ(test,
			orca_com_status_to_errno(ORCA_STATUS_BAD_RES_STATE),
			-EBUSY);
	KUNIT_EXPECT_EQ(test,
			orca_com_status_to_errno(ORCA_STATUS_BAD_QP_STATE),
			-EINVAL);
	KUNIT_EXPECT_EQ(test,
			orca_com_status_to_errno(ORCA_STATUS_NO_RESOURCES),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, orca_com_status_to_errno(ORCA_STATUS_UNSUPPORTED),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, orca_com_status_to_errno(ORCA_STATUS_BAD_LEN),
			-EIO);
	KUNIT_EXPECT_EQ(test, orca_com_status_to_errno(ORCA_STATUS_DMA_FAULT),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, orca_com_status_to_errno(ORCA_STATUS_NOT_READY),
			-EAGAIN);
	KUNIT_EXPECT_EQ(test, orca_com_status_to_errno(ORCA_STATUS_INTERNAL),
			-EIO);
	KUNIT_EXPECT_EQ(test, orca_com_status_to_errno(0xee), -EIO);
}

static void releasing_opcodes(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, orca_com_cmd_releases(ORCA_CMD_DEALLOC_PD));
	KUNIT_EXPECT_TRUE(test,
			  orca_com_cmd_releases(ORCA_CMD_DESTROY_KICK_RING));
	KUNIT_EXPECT_FALSE(test,
			   orca_com_cmd_releases(ORCA_CMD_CREATE_KICK_RING));
	KUNIT_EXPECT_TRUE(test, orca_com_cmd_releases(ORCA_CMD_DESTROY_CQ));
	KUNIT_EXPECT_TRUE(test, orca_com_cmd_releases(ORCA_CMD_DESTROY_QP));
	KUNIT_EXPECT_TRUE(test, orca_com_cmd_releases(ORCA_CMD_DETACH_MCAST));
	KUNIT_EXPECT_FALSE(test, orca_com_cmd_releases(ORCA_CMD_ATTACH_MCAST));
	KUNIT_EXPECT_TRUE(test, orca_com_cmd_releases(ORCA_CMD_DESTROY_SRQ));
	KUNIT_EXPECT_TRUE(test, orca_com_cmd_releases(ORCA_CMD_DEALLOC_MW));
	KUNIT_EXPECT_FALSE(test, orca_com_cmd_releases(ORCA_CMD_ALLOC_MW));
	KUNIT_EXPECT_FALSE(test, orca_com_cmd_releases(ORCA_CMD_CREATE_SRQ));
	KUNIT_EXPECT_FALSE(test, orca_com_cmd_releases(ORCA_CMD_RESET));
	KUNIT_EXPECT_FALSE(test, orca_com_cmd_releases(ORCA_CMD_TEARDOWN));
	KUNIT_EXPECT_FALSE(test, orca_com_cmd_releases(ORCA_CMD_CREATE_QP));
	KUNIT_EXPECT_FALSE(test, orca_com_cmd_releases(ORCA_CMD_MODIFY_QP));
	KUNIT_EXPECT_FALSE(test, orca_com_cmd_releases(ORCA_CMD_QUERY_QP));
	KUNIT_EXPECT_STREQ(test, orca_com_opcode_str(ORCA_CMD_MODIFY_QP),
			   "MODIFY_QP");
	KUNIT_EXPECT_STREQ(test,
			   orca_com_opcode_str(ORCA_CMD_QUERY_PKEY_TABLE),
			   "QUERY_PKEY_TABLE");
	KUNIT_EXPECT_STREQ(test, orca_com_opcode_str(0x7777), "UNKNOWN");
}

static void exec_inline_polled(struct kunit *test)
{
	struct fake_fw *fw = test->priv;

	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_QUERY_PORT, 8, 1), 0);
	KUNIT_EXPECT_EQ(test, orca_com_stat(&fw->com, ORCA_STAT_CMDS), 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(fw->regs.cmdq_ci), fw->com.cmdq_pi);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(fw->held[0].in_mbox), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(fw->held[0].out_mbox), 0);
}

static void exec_mailbox(struct kunit *test)
{
	struct fake_fw *fw = test->priv;

	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_MODIFY_QP, 300, 7), 0);
	KUNIT_EXPECT_NE(test, le64_to_cpu(fw->held[0].in_mbox), 0);
	KUNIT_EXPECT_NE(test, le64_to_cpu(fw->held[0].out_mbox), 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(fw->held[0].in_len), 300);
	/* exactly at the inline limits: no mailbox */
	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_QUERY_PORT,
					ORCA_CMD_INLINE_IN, 9), 0);
}

static void exec_event_mode(struct kunit *test)
{
	struct fake_fw *fw = test->priv;
	unsigned int i;

	orca_com_set_event_mode(&fw->com, true);
	for (i = 0; i < 10; i++)
		KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_QUERY_QP, 16, i),
				0);
	KUNIT_EXPECT_EQ(test, orca_com_stat(&fw->com, ORCA_STAT_MISSED_IRQS), 0);
}

static void out_of_order_completion(struct kunit *test)
{
	struct fake_fw *fw = test->priv;
	struct job *jobs;

	orca_com_set_event_mode(&fw->com, true);
	fw->hold = true;
	fw->reverse = true;
	jobs = start_jobs(test, fw, 16);
	KUNIT_ASSERT_TRUE(test, wait_for_consumed(fw, 16));
	fake_release(fw);
	check_jobs(test, jobs, 16);
	KUNIT_EXPECT_EQ(test, orca_com_stat(&fw->com, ORCA_STAT_STALE_COMPLETIONS), 0);
}

static void ring_and_eq_wrap(struct kunit *test)
{
	struct fake_fw *fw = test->priv;
	unsigned int i, n = 2 * fw->com.eq_depth + 5, failed = 0;
	u32 start = fw->com.cmdq_pi;

	for (i = 0; i < n; i++)
		if (exec_echo(fw, ORCA_CMD_QUERY_QP, 16, i))
			failed++;
	KUNIT_EXPECT_EQ(test, failed, 0);
	KUNIT_EXPECT_EQ(test, fw->com.cmdq_pi - start, n);
	KUNIT_EXPECT_EQ(test, fw->com.eq_ci, le32_to_cpu(fw->regs.eq_pi));
}

static void all_slots_busy(struct kunit *test)
{
	struct fake_fw *fw = test->priv;
	unsigned int n = FAKE_DEPTH + 1;
	struct job *jobs;

	orca_com_set_event_mode(&fw->com, true);
	fw->hold = true;
	jobs = start_jobs(test, fw, n);
	KUNIT_ASSERT_TRUE(test, wait_for_consumed(fw, FAKE_DEPTH));
	msleep(50);
	/* one more than the ring holds waits for a credit */
	KUNIT_EXPECT_EQ(test, fake_consumed(fw), FAKE_DEPTH);
	KUNIT_EXPECT_EQ(test, fw->com.cmdq_pi - le32_to_cpu(fw->regs.cmdq_ci),
			0);
	fake_release(fw);
	check_jobs(test, jobs, n);
	KUNIT_EXPECT_EQ(test, fake_consumed(fw), n);
}

static void stale_completion_ignored(struct kunit *test)
{
	struct fake_fw *fw = test->priv;
	struct orca_eqe bogus = { .type = ORCA_EQE_CMD_DONE };

	/* the context exists, the sequence number does not match */
	bogus.cmd.token = cpu_to_le16(0xffc0 | 3);
	fake_post_eqe(fw, &bogus);
	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_QUERY_QP, 16, 3), 0);
	KUNIT_EXPECT_EQ(test, orca_com_stat(&fw->com, ORCA_STAT_STALE_COMPLETIONS), 1);
}

static void timeout_makes_dead(struct kunit *test)
{
	struct fake_fw *fw = test->priv;

	fw->com.timeout_ms = 300;
	fw->drop = true;
	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_CREATE_QP, 16, 0), -EIO);
	KUNIT_EXPECT_TRUE(test, orca_com_is_dead(&fw->com));
	KUNIT_EXPECT_EQ(test, orca_com_stat(&fw->com, ORCA_STAT_TIMEOUTS), 1);
	KUNIT_EXPECT_EQ(test, fw->nevents, 1);
	KUNIT_EXPECT_EQ(test, fw->events[0].type, ORCA_EQE_DEVICE_FATAL);
}

static void missed_interrupt_repolled(struct kunit *test)
{
	struct fake_fw *fw = test->priv;

	orca_com_set_event_mode(&fw->com, true);
	fw->no_irq = true;
	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_QUERY_QP, 16, 5), 0);
	KUNIT_EXPECT_EQ(test, orca_com_stat(&fw->com, ORCA_STAT_MISSED_IRQS), 1);
	KUNIT_EXPECT_FALSE(test, orca_com_is_dead(&fw->com));
}

static void heartbeat_stall_makes_dead(struct kunit *test)
{
	struct fake_fw *fw = test->priv;
	unsigned long start = jiffies;

	fw->com.timeout_ms = 60000;
	fw->drop = true;
	fw->hb_runs = false;
	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_QUERY_CAPS, 16, 0), -EIO);
	KUNIT_EXPECT_TRUE(test, orca_com_is_dead(&fw->com));
	/* the heartbeat, not the 60 s command timeout, ended the wait */
	KUNIT_EXPECT_EQ(test, orca_com_stat(&fw->com, ORCA_STAT_TIMEOUTS), 0);
	kunit_info(test, "dead after %u ms (heartbeat deadline %u ms)\n",
		   jiffies_to_msecs(jiffies - start), ORCA_HB_DEAD_MS);
}

static void health_fatal_makes_dead(struct kunit *test)
{
	struct fake_fw *fw = test->priv;

	fw->drop = true;
	fw->regs.health = cpu_to_le32(ORCA_HEALTH_FATAL);
	fw->regs.fatal_syndrome = cpu_to_le32(0x77);
	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_QUERY_PORT, 8, 0), -EIO);
	KUNIT_EXPECT_TRUE(test, orca_com_is_dead(&fw->com));
	KUNIT_ASSERT_EQ(test, fw->nevents, 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(fw->events[0].fatal.syndrome), 0x77);
}

/* Another firmware behind the function: dead, even with nobody waiting. */
static void firmware_change_makes_dead(struct kunit *test)
{
	static const unsigned int fields[] = {
		offsetof(struct orca_regs, magic),
		offsetof(struct orca_regs, fw_version),
		offsetof(struct orca_regs, generation),
	};
	struct fake_fw *fw = test->priv;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		__le64 *reg = (__le64 *)((u8 *)&fw->regs + fields[i]);

		clear_bit(ORCA_COM_DEAD, &fw->com.state);
		fw->nevents = 0;
		orca_com_check_health(&fw->com);
		KUNIT_EXPECT_FALSE(test, orca_com_is_dead(&fw->com));
		*reg = cpu_to_le64(le64_to_cpu(*reg) + 1);
		orca_com_check_health(&fw->com);
		KUNIT_EXPECT_TRUE(test, orca_com_is_dead(&fw->com));
		KUNIT_EXPECT_EQ(test, fw->nevents, 1);
		*reg = cpu_to_le64(le64_to_cpu(*reg) - 1);
	}
}

static void dead_destroy_succeeds(struct kunit *test)
{
	struct fake_fw *fw = test->priv;
	u32 pi;

	orca_com_set_dead(&fw->com, "test");
	pi = fw->com.cmdq_pi;
	KUNIT_EXPECT_EQ(test, exec_in_only(fw, ORCA_CMD_DESTROY_QP), 0);
	KUNIT_EXPECT_EQ(test, exec_in_only(fw, ORCA_CMD_DESTROY_CQ), 0);
	KUNIT_EXPECT_EQ(test, exec_in_only(fw, ORCA_CMD_DEALLOC_PD), 0);
	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_CREATE_QP, 8, 0), -EIO);
	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_MODIFY_QP, 8, 0), -EIO);
	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_QUERY_QP, 8, 0), -EIO);
	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_ALLOC_PD, 8, 0), -EIO);
	/* nothing reached the device */
	KUNIT_EXPECT_EQ(test, fw->com.cmdq_pi, pi);
	/* the fatal event is dispatched once */
	orca_com_set_dead(&fw->com, "again");
	KUNIT_EXPECT_EQ(test, fw->nevents, 1);
}

static void device_status_to_errno(struct kunit *test)
{
	struct fake_fw *fw = test->priv;
	u8 out[16];

	fw->status = ORCA_STATUS_NO_RESOURCES;
	memset(out, 0x5a, sizeof(out));
	KUNIT_EXPECT_EQ(test, orca_com_exec(&fw->com, ORCA_CMD_CREATE_QP, out,
					    8, out, sizeof(out)), -ENOMEM);
	KUNIT_EXPECT_EQ(test, out[15], 0x5a);
	fw->status = ORCA_STATUS_BAD_QP_STATE;
	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_MODIFY_QP, 16, 0),
			-EINVAL);
	fw->status = ORCA_STATUS_BAD_RES_STATE;
	KUNIT_EXPECT_EQ(test, exec_in_only(fw, ORCA_CMD_DEALLOC_PD), -EBUSY);
	KUNIT_EXPECT_EQ(test, orca_com_stat(&fw->com, ORCA_STAT_CMD_ERRORS), 3);
	KUNIT_EXPECT_FALSE(test, orca_com_is_dead(&fw->com));
}

static void short_output_is_error(struct kunit *test)
{
	struct fake_fw *fw = test->priv;

	fw->out_shortfall = 4;
	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_QUERY_PORT, 16, 0), -EIO);
	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_QUERY_QP, 256, 0), -EIO);
}

/* The device may write at most what was offered (orca_hw.h). */
static void long_output_is_error(struct kunit *test)
{
	struct fake_fw *fw = test->priv;

	fw->out_shortfall = -4;
	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_QUERY_PORT, 16, 0), -EIO);
	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_QUERY_QP, 256, 0), -EIO);
	KUNIT_EXPECT_EQ(test, orca_com_stat(&fw->com, ORCA_STAT_CMD_ERRORS), 2);
	fw->out_shortfall = 0;
	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_QUERY_QP, 256, 0), 0);
}

static void dev_reset_acknowledged(struct kunit *test)
{
	struct fake_fw *fw = test->priv;

	KUNIT_EXPECT_EQ(test, le32_to_cpu(fw->regs.dev_ctl),
			ORCA_DEV_CTL_ENABLE);
	KUNIT_EXPECT_EQ(test, orca_com_dev_reset(&fw->com), 0);
	/* the request is withdrawn once acknowledged */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(fw->regs.dev_ctl), 0);
	orca_com_program_queues(&fw->com);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(fw->regs.dev_ctl),
			ORCA_DEV_CTL_ENABLE);
	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_QUERY_QP, 16, 1), 0);
}

static void dev_reset_unacknowledged(struct kunit *test)
{
	struct fake_fw *fw = test->priv;
	unsigned long start = jiffies;

	fw->no_reset_ack = true;
	KUNIT_EXPECT_EQ(test, orca_com_dev_reset(&fw->com), -ETIMEDOUT);
	/* it waited the whole timeout (a slow host only makes it longer) */
	KUNIT_EXPECT_GE(test, jiffies_to_msecs(jiffies - start),
			ORCA_RESET_TIMEOUT_MS);
	kunit_info(test, "gave up after %u ms (timeout %u ms)\n",
		   jiffies_to_msecs(jiffies - start), ORCA_RESET_TIMEOUT_MS);
	/* still requested: a device that wakes up later still resets */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(fw->regs.dev_ctl),
			ORCA_DEV_CTL_RESET);
}

/* Events the device dropped (EQ full) are reported once each. */
static void lost_events_reported(struct kunit *test)
{
	struct fake_fw *fw = test->priv;
	struct orca_eqe ev = { .type = ORCA_EQE_QP_EVENT };

	fake_post_eqe(fw, &ev);
	fw->regs.eq_overflows = cpu_to_le32(3);
	orca_com_process_eq(&fw->com);
	KUNIT_EXPECT_EQ(test, fw->nevents, 1);
	KUNIT_EXPECT_EQ(test, fw->lost_calls, 1);
	KUNIT_EXPECT_EQ(test, fw->lost, 3);
	orca_com_process_eq(&fw->com);
	KUNIT_EXPECT_EQ(test, fw->lost_calls, 1);
	fw->regs.eq_overflows = cpu_to_le32(5);
	orca_com_process_eq(&fw->com);
	KUNIT_EXPECT_EQ(test, fw->lost_calls, 2);
	KUNIT_EXPECT_EQ(test, fw->lost, 5);
	KUNIT_EXPECT_EQ(test, orca_com_stat(&fw->com, ORCA_STAT_LOST_EVENTS),
			5);
}

static void async_events_drained(struct kunit *test)
{
	struct fake_fw *fw = test->priv;
	struct orca_eqe ev = { .type = ORCA_EQE_QP_EVENT };
	unsigned int i;

	for (i = 0; i < 5; i++) {
		ev.qp.qpn = cpu_to_le32(100 + i);
		fake_post_eqe(fw, &ev);
	}
	ev.type = ORCA_EQE_PORT_EVENT;
	fake_post_eqe(fw, &ev);
	/* one interrupt for six events: everything up to eq_pi is taken */
	orca_com_process_eq(&fw->com);
	KUNIT_ASSERT_EQ(test, fw->nevents, 6);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, le32_to_cpu(fw->events[i].qp.qpn),
				100 + i);
	KUNIT_EXPECT_EQ(test, fw->events[5].type, ORCA_EQE_PORT_EVENT);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(fw->regs.eq_ci), fw->com.eq_ci);
	KUNIT_EXPECT_EQ(test, orca_com_stat(&fw->com, ORCA_STAT_ASYNC_EVENTS), 6);
	/* a spurious interrupt finds nothing */
	orca_com_process_eq(&fw->com);
	KUNIT_EXPECT_EQ(test, fw->nevents, 6);
}

static void eq_space_returned(struct kunit *test)
{
	struct fake_fw *fw = test->priv;
	struct orca_eqe ev = { .type = ORCA_EQE_CQ_ERROR };
	unsigned int i;

	for (i = 0; i < fw->com.eq_depth / 2 + 1; i++)
		fake_post_eqe(fw, &ev);
	orca_com_process_eq(&fw->com);
	KUNIT_EXPECT_EQ(test, fw->eq_rings, 1);
}

static void bad_eq_index_makes_dead(struct kunit *test)
{
	struct fake_fw *fw = test->priv;

	fw->regs.eq_pi = cpu_to_le32(fw->com.eq_ci + fw->com.eq_depth + 1);
	orca_com_process_eq(&fw->com);
	KUNIT_EXPECT_TRUE(test, orca_com_is_dead(&fw->com));
	KUNIT_EXPECT_EQ(test, fw->nevents, 1);
}

static void fatal_eqe_makes_dead(struct kunit *test)
{
	struct fake_fw *fw = test->priv;
	struct orca_eqe ev = { .type = ORCA_EQE_DEVICE_FATAL };

	fake_post_eqe(fw, &ev);
	orca_com_process_eq(&fw->com);
	KUNIT_EXPECT_TRUE(test, orca_com_is_dead(&fw->com));
	KUNIT_ASSERT_EQ(test, fw->nevents, 1);
	KUNIT_EXPECT_EQ(test, fw->events[0].type, ORCA_EQE_DEVICE_FATAL);
	KUNIT_EXPECT_EQ(test, orca_com_stat(&fw->com, ORCA_STAT_ASYNC_EVENTS), 0);
}

static void death_wakes_waiters(struct kunit *test)
{
	struct fake_fw *fw = test->priv;
	unsigned long start;
	struct job *jobs;
	unsigned int i;

	fw->com.timeout_ms = 60000;
	orca_com_set_event_mode(&fw->com, true);
	fw->hold = true;
	jobs = start_jobs(test, fw, 4);
	KUNIT_ASSERT_TRUE(test, wait_for_consumed(fw, 4));
	start = jiffies;
	orca_com_set_dead(&fw->com, "test");
	for (i = 0; i < 4; i++) {
		flush_work(&jobs[i].work);
		KUNIT_EXPECT_EQ(test, jobs[i].ret, -EIO);
	}
	/*
	 * Woken, not timed out: far below the 60 s timeout, a bound no
	 * slow host reaches; the time itself is a diagnostic.
	 */
	KUNIT_EXPECT_LT(test, jiffies_to_msecs(jiffies - start),
			fw->com.timeout_ms / 2);
	kunit_info(test, "waiters returned %u ms after the death\n",
		   jiffies_to_msecs(jiffies - start));
	/* the late completions find abandoned contexts */
	fake_release(fw);
	flush_work(&fw->work);
	orca_com_process_eq(&fw->com);
	KUNIT_EXPECT_EQ(test, orca_com_stat(&fw->com, ORCA_STAT_STALE_COMPLETIONS), 4);
}

static void queues_adopt_device_indices(struct kunit *test)
{
	struct fake_fw *fw = test->priv;

	fw->regs.cmdq_ci = cpu_to_le32(0xfffffff0);
	fw->regs.cmdq_pi = cpu_to_le32(0xfffffff0);
	fw->regs.eq_pi = cpu_to_le32(0xfffffffe);
	orca_com_program_queues(&fw->com);
	KUNIT_EXPECT_EQ(test, fw->com.cmdq_pi, 0xfffffff0);
	KUNIT_EXPECT_EQ(test, fw->com.eq_ci, 0xfffffffe);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(fw->regs.cmdq_base),
			(u64)fw->com.cmdq_dma);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(fw->regs.cmdq_log_depth),
			ORCA_CMDQ_LOG_DEPTH);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(fw->regs.eq_base),
			(u64)fw->com.eq_dma);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(fw->regs.eq_log_depth),
			ORCA_EQ_LOG_DEPTH);
	/* the free-running indices wrap through zero */
	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_QUERY_QP, 16, 1), 0);
	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_QUERY_QP, 16, 2), 0);
	KUNIT_EXPECT_EQ(test, exec_echo(fw, ORCA_CMD_QUERY_QP, 16, 3), 0);
	KUNIT_EXPECT_EQ(test, fw->com.eq_ci, 1);
}

static struct kunit_case orca_com_cases[] = {
	KUNIT_CASE(status_errno_table),
	KUNIT_CASE(releasing_opcodes),
	KUNIT_CASE(exec_inline_polled),
	KUNIT_CASE(exec_mailbox),
	KUNIT_CASE(exec_event_mode),
	KUNIT_CASE(out_of_order_completion),
	KUNIT_CASE(ring_and_eq_wrap),
	KUNIT_CASE(all_slots_busy),
	KUNIT_CASE(stale_completion_ignored),
	KUNIT_CASE(timeout_makes_dead),
	KUNIT_CASE(missed_interrupt_repolled),
	KUNIT_CASE(heartbeat_stall_makes_dead),
	KUNIT_CASE(health_fatal_makes_dead),
	KUNIT_CASE(firmware_change_makes_dead),
	KUNIT_CASE(dead_destroy_succeeds),
	KUNIT_CASE(device_status_to_errno),
	KUNIT_CASE(short_output_is_error),
	KUNIT_CASE(long_output_is_error),
	KUNIT_CASE(dev_reset_acknowledged),
	KUNIT_CASE(dev_reset_unacknowledged),
	KUNIT_CASE(lost_events_reported),
	KUNIT_CASE(async_events_drained),
	KUNIT_CASE(eq_space_returned),
	KUNIT_CASE(bad_eq_index_makes_dead),
	KUNIT_CASE(fatal_eqe_makes_dead),
	KUNIT_CASE(death_wakes_waiters),
	KUNIT_CASE(queues_adopt_device_indices),
	{}
};

static struct kunit_suite orca_com_suite = {
	.name = "orca_com",
	.init = fake_init,
	.exit = fake_exit,
	.test_cases = orca_com_cases,
};

kunit_test_suite(orca_com_suite);
