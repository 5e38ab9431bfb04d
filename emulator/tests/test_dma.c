// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the guest memory map (orca_dma.c) and of a device whose
 * queues live above 4 GiB.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "orca_dev.h"
#include "orca_log.h"
#include "tap.h"

#define MIB	(1ULL << 20)

static uint64_t xlate(const struct orca_memmap *m, uint64_t gpa,
		      uint64_t len)
{
	uint64_t off;

	return orca_memmap_translate(m, gpa, len, &off) ? off : ~0ULL;
}

/* QEMU 7.2's split for pc and q35 at sizes around the thresholds. */
static void split_rules(void)
{
	CHECK_EQ(orca_memmap_below_4g(ORCA_MACHINE_PC, 2 * ORCA_GIB),
		 2 * ORCA_GIB);
	CHECK_EQ(orca_memmap_below_4g(ORCA_MACHINE_PC, 0xdfffffffULL),
		 0xdfffffffULL);
	CHECK_EQ(orca_memmap_below_4g(ORCA_MACHINE_PC, 0xe0000000ULL),
		 0xc0000000ULL);
	CHECK_EQ(orca_memmap_below_4g(ORCA_MACHINE_PC, 4608 * MIB),
		 0xc0000000ULL);
	CHECK_EQ(orca_memmap_below_4g(ORCA_MACHINE_Q35, 0xafffffffULL),
		 0xafffffffULL);
	CHECK_EQ(orca_memmap_below_4g(ORCA_MACHINE_Q35, 0xb0000000ULL),
		 0x80000000ULL);
	CHECK_EQ(orca_memmap_below_4g(ORCA_MACHINE_Q35, 8 * ORCA_GIB),
		 0x80000000ULL);
}

static void translation(void)
{
	struct orca_memmap m;

	/* 2 GiB pc: one region, identity */
	orca_memmap_init(&m, ORCA_MACHINE_PC, 2 * ORCA_GIB, 0);
	CHECK_EQ(m.n, 1);
	CHECK_EQ(xlate(&m, 0x1000, 64), 0x1000);
	CHECK_EQ(xlate(&m, 2 * ORCA_GIB - 64, 64), 2 * ORCA_GIB - 64);
	CHECK_EQ(xlate(&m, 2 * ORCA_GIB - 63, 64), ~0ULL);
	CHECK_EQ(xlate(&m, ORCA_4G, 64), ~0ULL);

	/* 4.5 GiB pc: 3 GiB low, 1.5 GiB at 4 GiB, file offset 3 GiB */
	orca_memmap_init(&m, ORCA_MACHINE_PC, 4608 * MIB, 0);
	CHECK_EQ(m.n, 2);
	CHECK_EQ(xlate(&m, 0xbffff000ULL, 0x1000), 0xbffff000ULL);
	CHECK_EQ(xlate(&m, ORCA_4G, 64), 3 * ORCA_GIB);
	CHECK_EQ(xlate(&m, ORCA_4G + 0x12345, 8), 3 * ORCA_GIB + 0x12345);
	CHECK_EQ(xlate(&m, ORCA_4G + 1536 * MIB - 8, 8),
		 4608 * MIB - 8);
	/* the PCI hole, straddling its edges, past the end, overflow */
	CHECK_EQ(xlate(&m, 0xc0000000ULL, 8), ~0ULL);
	CHECK_EQ(xlate(&m, 0xbffffff8ULL, 16), ~0ULL);
	CHECK_EQ(xlate(&m, ORCA_4G - 8, 16), ~0ULL);
	CHECK_EQ(xlate(&m, ORCA_4G + 1536 * MIB - 8, 9), ~0ULL);
	CHECK_EQ(xlate(&m, ORCA_4G + 1536 * MIB, 8), ~0ULL);
	CHECK_EQ(xlate(&m, ~0ULL - 7, 16), ~0ULL);
	CHECK_EQ(xlate(&m, ORCA_4G, ~0ULL), ~0ULL);

	/* explicit split */
	orca_memmap_init(&m, ORCA_MACHINE_PC, 4 * MIB, MIB);
	CHECK_EQ(m.n, 2);
	CHECK_EQ(xlate(&m, MIB - 8, 8), MIB - 8);
	CHECK_EQ(xlate(&m, MIB, 8), ~0ULL);
	CHECK_EQ(xlate(&m, ORCA_4G, 8), MIB);
	CHECK_EQ(xlate(&m, ORCA_4G + 3 * MIB - 8, 8), 4 * MIB - 8);
}

/* Queues, mailboxes and the mirror above 4 GiB land at the right offset. */
static void device_above_4g(void)
{
	const uint64_t hi = ORCA_4G;	/* GPA of file offset MIB */
	struct orca_cmdq_entry *e;
	struct orca_eqe *eqe;
	struct orca_regs *regs = aligned_alloc(4096, ORCA_BAR2_SIZE);
	uint8_t *ram = calloc(1, 4 * MIB);
	struct orca_dev dev;
	struct orca_cfg cfg;
	struct orca_caps caps;
	char err[128];

	orca_cfg_defaults(&cfg);
	CHECK_EQ(orca_cfg_set_kv(&cfg, "ram_below_4g=0x100000", err,
				 sizeof(err)), 0);
	CHECK_EQ(orca_cfg_finalize(&cfg, err, sizeof(err)), 0);
	CHECK_EQ(orca_dev_init(&dev, &cfg, regs, NULL, NULL), 0);
	orca_dev_connect(&dev);
	orca_dev_set_ram(&dev, ram, 4 * MIB);

	regs->cmdq_base = htole64(hi + 0x1000);
	regs->cmdq_log_depth = htole32(6);
	regs->eq_base = htole64(hi + 0x4000);
	regs->eq_log_depth = htole32(8);
	regs->dev_ctl = htole32(ORCA_DEV_CTL_ENABLE);
	e = (struct orca_cmdq_entry *)(ram + MIB + 0x1000);
	e->opcode = htole16(ORCA_CMD_QUERY_CAPS);
	e->token = htole16(0x77);
	e->out_len = htole16(sizeof(caps));
	e->out_mbox = htole64(hi + 0x20000);
	regs->cmdq_pi = htole32(1);
	orca_dev_doorbell(&dev, ORCA_FW_VEC_CMDQ);

	eqe = (struct orca_eqe *)(ram + MIB + 0x4000);
	CHECK_EQ(le32toh(regs->eq_pi), 1);
	CHECK_EQ(eqe->type, ORCA_EQE_CMD_DONE);
	CHECK_EQ(le16toh(eqe->cmd.token), 0x77);
	CHECK_EQ(eqe->cmd.status, ORCA_STATUS_OK);
	memcpy(&caps, ram + MIB + 0x20000, sizeof(caps));
	CHECK_EQ(le64toh(caps.fw_version), cfg.fw_version);
	CHECK_EQ(dev.stats.dma_high, hi + 0x20000 + sizeof(caps));
	/* nothing was written where identity mapping would have put it */
	CHECK_EQ(ram[0x1000] | ram[0x4000] | ram[0x20000], 0);

	/* an output mailbox in the hole is refused, not clipped */
	e = (struct orca_cmdq_entry *)(ram + MIB + 0x1000 + 64);
	e->opcode = htole16(ORCA_CMD_QUERY_CAPS);
	e->token = htole16(0x78);
	e->out_len = htole16(sizeof(caps));
	e->out_mbox = htole64(2 * MIB);
	regs->cmdq_pi = htole32(2);
	orca_dev_doorbell(&dev, ORCA_FW_VEC_CMDQ);
	eqe = (struct orca_eqe *)(ram + MIB + 0x4000 + 64);
	CHECK_EQ(eqe->cmd.status, ORCA_STATUS_DMA_FAULT);
	CHECK_EQ(le32toh(eqe->cmd.syndrome), ORCA_SYND_OUT_ADDR);

	orca_dev_destroy(&dev);
	free(ram);
	free(regs);
}

static void config_keys(void)
{
	struct orca_cfg c;
	char err[128];

	orca_cfg_defaults(&c);
	CHECK_EQ(c.guest_machine, ORCA_MACHINE_PC);
	CHECK_EQ(orca_cfg_set_kv(&c, "guest_machine=q35", err, sizeof(err)),
		 0);
	CHECK_EQ(c.guest_machine, ORCA_MACHINE_Q35);
	CHECK(orca_cfg_set_kv(&c, "guest_machine=virt", err, sizeof(err)));
	CHECK(orca_cfg_set_kv(&c, "ram_below_4g=0x100000001", err,
			      sizeof(err)));
}

int main(void)
{
	orca_log_set_quiet(1);
	RUN(split_rules);
	RUN(translation);
	RUN(device_above_4g);
	RUN(config_keys);
	return tap_done();
}
