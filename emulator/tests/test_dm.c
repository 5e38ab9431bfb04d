// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the device model's device memory: ALLOC_DM / DEALLOC_DM
 * (whole pages of the window at BAR2 ORCA_DM_BAR_OFFSET, first fit,
 * alignment, zeroed for each owner, exhaustion, every refusal),
 * REG_DM_MR (bounded by the allocation's length, not its pages), RDMA
 * WRITE, RDMA READ and SEND through a region over device memory, checked
 * against the BAR2 bytes, and what DEALLOC_DM, REREG_MR and RESET do to
 * it.  The test plays the driver and the provider (dp_fixture.h).
 */
#include <string.h>

#include "dp_fixture.h"
#include "orca_dev.h"
#include "orca_log.h"

#define DM_IOVA_AT	0x10000000ULL	/* iova(DM_IOVA_AT): a DM region's */

static int alloc_dm(struct fx *f, uint64_t len, uint8_t log_align,
		    uint32_t *handle, uint64_t *bar_off)
{
	struct orca_alloc_dm_in in = { .length = htole64(len),
				       .log_align = log_align };
	struct orca_alloc_dm_out out;
	int ret;

	ret = fx_cmd(f, ORCA_CMD_ALLOC_DM, &in, sizeof(in), &out, sizeof(out));
	if (!ret) {
		*handle = le32toh(out.dm_handle);
		*bar_off = le64toh(out.bar_offset);
	}
	return ret;
}

static int dealloc_dm(struct fx *f, uint32_t handle)
{
	struct orca_dm_handle in = { .dm_handle = htole32(handle) };

	return fx_cmd(f, ORCA_CMD_DEALLOC_DM, &in, sizeof(in), NULL, 0);
}

static int reg_dm_mr(struct fx *f, uint32_t handle, uint64_t off,
		     uint64_t len, uint32_t access, uint32_t *key)
{
	struct orca_reg_dm_mr_in in = {
		.iova = htole64(iova(DM_IOVA_AT)), .length = htole64(len),
		.dm_offset = htole64(off), .pdn = htole32(f->pdn),
		.access = htole32(access), .dm_handle = htole32(handle),
	};
	struct orca_reg_mr_out out;
	int ret;

	ret = fx_cmd(f, ORCA_CMD_REG_DM_MR, &in, sizeof(in), &out,
		     sizeof(out));
	if (!ret)
		*key = le32toh(out.lkey);
	return ret;
}

static uint8_t *bar2(struct fx *f, uint64_t off)
{
	return (uint8_t *)f->regs + off;
}

/* Pages, first fit, alignment, zeroing, exhaustion and the refusals. */
static void dm_commands(void)
{
	static const char *const none[] = { "max_dm_size=0", NULL };
	struct fx *f = dp_up();
	struct orca_alloc_dm_in bad = { .length = htole64(8) };
	struct orca_alloc_dm_out out;
	struct orca_caps caps;
	uint32_t h1, h2, h3, key;
	uint64_t o1, o2, o3;

	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &caps, sizeof(caps)),
		 0);
	CHECK_EQ(le64toh(caps.max_dm_size), 256 * 1024);	/* orca.rst */

	/* the last owner's bytes are gone for the next */
	memset(bar2(f, ORCA_DM_BAR_OFFSET), 0xee, 256 * 1024);
	CHECK_EQ(alloc_dm(f, 100, 0, &h1, &o1), 0);
	CHECK_EQ(o1, 0x80000);
	CHECK(bar2(f, o1)[0] == 0 && bar2(f, o1)[4095] == 0);
	CHECK_EQ(bar2(f, o1)[4096], 0xee);	/* not its page: untouched */
	/* the rest, 63 pages, then nothing */
	CHECK_EQ(alloc_dm(f, 63 * 4096, 0, &h2, &o2), 0);
	CHECK_EQ(o2, 0x81000);
	CHECK(h2 != h1);
	EXPECT_FAIL(f, alloc_dm(f, 1, 0, &h3, &o3), ORCA_STATUS_NO_RESOURCES,
		    ORCA_SYND_LIMIT);
	/* a freed page is the first fit; 8 KiB alignment takes page 0 too */
	CHECK_EQ(dealloc_dm(f, h1), 0);
	CHECK_EQ(alloc_dm(f, 4096, 13, &h1, &o1), 0);
	CHECK_EQ(o1, 0x80000);
	CHECK_EQ(dealloc_dm(f, h2), 0);
	/* 16 KiB aligned after page 0: page 4 */
	CHECK_EQ(alloc_dm(f, 5000, 14, &h2, &o2), 0);
	CHECK_EQ(o2, 0x84000);
	/* two pages for 5000 bytes: 6 is the next free one */
	CHECK_EQ(alloc_dm(f, 1, 0, &h3, &o3), 0);
	CHECK_EQ(o3, 0x81000);
	CHECK_EQ(dealloc_dm(f, h3), 0);
	CHECK_EQ(alloc_dm(f, 3 * 4096, 0, &h3, &o3), 0);
	CHECK_EQ(o3, 0x81000);
	CHECK_EQ(dealloc_dm(f, h3), 0);
	CHECK_EQ(alloc_dm(f, 4 * 4096, 0, &h3, &o3), 0);
	CHECK_EQ(o3, 0x86000);

	/* refusals */
	EXPECT_FAIL(f, alloc_dm(f, 0, 0, &h3, &o3), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_ATTR_RANGE);
	EXPECT_FAIL(f, alloc_dm(f, 256 * 1024 + 1, 0, &h3, &o3),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	EXPECT_FAIL(f, alloc_dm(f, 8, 19, &h3, &o3), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_ATTR_RANGE);
	bad.reserved[6] = 1;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_ALLOC_DM, &bad, sizeof(bad), &out,
			      sizeof(out)), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_RESERVED_NZ);
	EXPECT_FAIL(f, dealloc_dm(f, 0), ORCA_STATUS_BAD_RESOURCE,
		    ORCA_SYND_HANDLE);
	EXPECT_FAIL(f, dealloc_dm(f, 9999), ORCA_STATUS_BAD_RESOURCE,
		    ORCA_SYND_HANDLE);
	CHECK_EQ(dealloc_dm(f, h3), 0);
	EXPECT_FAIL(f, dealloc_dm(f, h3), ORCA_STATUS_BAD_RESOURCE,
		    ORCA_SYND_HANDLE);
	EXPECT_FAIL(f, reg_dm_mr(f, h3, 0, 8, ORCA_ACCESS_LOCAL_WRITE, &key),
		    ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE);
	fx_free(f);

	/* no device memory: UNSUPPORTED, and 0 in the caps */
	f = dp_up_cfg(none);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &caps, sizeof(caps)),
		 0);
	CHECK_EQ(le64toh(caps.max_dm_size), 0);
	EXPECT_FAIL(f, alloc_dm(f, 8, 0, &h1, &o1), ORCA_STATUS_UNSUPPORTED,
		    ORCA_SYND_NONE);
	fx_free(f);
}

/* Traffic through a region over device memory, seen in BAR2. */
static void dm_mr_traffic(void)
{
	struct fx *f = dp_up();
	uint64_t src = heap_alloc(2 * PAGE), dst = heap_alloc(2 * PAGE);
	const uint32_t rw = ORCA_ACCESS_LOCAL_WRITE | ORCA_ACCESS_REMOTE_WRITE |
			    ORCA_ACCESS_REMOTE_READ;
	uint8_t *s = gpa(f, src), *d = gpa(f, dst), *dm, model[8192];
	struct orca_rereg_mr_in rr = {};
	uint32_t h, k, empty, slk, dlk, i;
	struct ring_qp a, b;
	struct ring_cq cq;
	struct orca_cqe c;
	uint64_t off;

	CHECK_EQ(reg_mr(f, f->pdn, src, 2 * PAGE, rw, &slk), 0);
	CHECK_EQ(reg_mr(f, f->pdn, dst, 2 * PAGE, rw, &dlk), 0);
	CHECK(make_cq(f, &cq, 5));
	CHECK(make_qp(f, &a, cq.cqn));
	CHECK(make_qp(f, &b, cq.cqn));
	CHECK(connect_rc(f, &a, b.qpn, 0, 1));
	CHECK(connect_rc(f, &b, a.qpn, ORCA_ACCESS_REMOTE_WRITE |
			 ORCA_ACCESS_REMOTE_READ, 1));

	/* 5000 bytes: two pages, of which the region may use 5000 */
	CHECK_EQ(alloc_dm(f, 5000, 0, &h, &off), 0);
	dm = bar2(f, off);
	EXPECT_FAIL(f, reg_dm_mr(f, h, 4900, 101, rw, &k),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	EXPECT_FAIL(f, reg_dm_mr(f, h, 5001, 0, rw, &k),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	EXPECT_FAIL(f, reg_dm_mr(f, h, 0, 8, ORCA_ACCESS_REMOTE_WRITE, &k),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS);
	CHECK_EQ(reg_dm_mr(f, h, 5000, 0, rw, &empty), 0);
	/* the region: bytes 100 .. 4099 of the device memory */
	CHECK_EQ(reg_dm_mr(f, h, 100, 4000, rw, &k), 0);

	for (i = 0; i < 2 * PAGE; i++)
		s[i] = (uint8_t)(i * 7 + 1);
	memset(model, 0, sizeof(model));
	/* RDMA WRITE into it, across its page boundary */
	post_send(f, &a, ORCA_WR_RDMA_WRITE, src, 3000, slk,
		  iova(DM_IOVA_AT) + 10, k);
	CHECK(poll_cqe(f, &cq, &c) && c.status == ORCA_CQE_SUCCESS);
	memcpy(model + 110, s, 3000);
	CHECK(!memcmp(dm, model, sizeof(model)));
	/* RDMA READ back from it */
	post_send(f, &a, ORCA_WR_RDMA_READ, dst, 3000, dlk,
		  iova(DM_IOVA_AT) + 10, k);
	CHECK(poll_cqe(f, &cq, &c) && c.status == ORCA_CQE_SUCCESS);
	CHECK(!memcmp(d, s, 3000));
	/* a SEND gathered from it (its lkey), received in host memory */
	memset(d, 0, 2 * PAGE);
	post_recv(f, &b, dst, 2 * PAGE, dlk);
	post_send(f, &a, ORCA_WR_SEND, DM_IOVA_AT + 10, 3000, k, 0, 0);
	CHECK(poll_cqe(f, &cq, &c) && c.status == ORCA_CQE_SUCCESS);
	CHECK(poll_cqe(f, &cq, &c) && c.status == ORCA_CQE_SUCCESS);
	CHECK(!memcmp(d, s, 3000));
	/* past the region's end: refused, device memory untouched */
	post_send(f, &a, ORCA_WR_RDMA_WRITE, src, 100, slk,
		  iova(DM_IOVA_AT) + 3950, k);
	CHECK(poll_cqe(f, &cq, &c));
	CHECK_EQ(c.status, ORCA_CQE_REM_ACCESS_ERR);
	CHECK(!memcmp(dm, model, sizeof(model)));

	/* while regions use it, it stays; a region over it is not rereg'd */
	EXPECT_FAIL(f, dealloc_dm(f, h), ORCA_STATUS_BAD_RES_STATE,
		    ORCA_SYND_IN_USE);
	rr.lkey = htole32(k);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_REREG_MR, &rr, sizeof(rr), NULL, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_HANDLE);
	CHECK_EQ(fx_dereg_mr(f, k), 0);
	EXPECT_FAIL(f, dealloc_dm(f, h), ORCA_STATUS_BAD_RES_STATE,
		    ORCA_SYND_IN_USE);
	CHECK_EQ(fx_dereg_mr(f, empty), 0);
	CHECK_EQ(dealloc_dm(f, h), 0);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/* RESET drops every allocation: the whole window is free again. */
static void dm_reset(void)
{
	struct fx *f = dp_up();
	uint32_t h, k;
	uint64_t off;

	CHECK_EQ(alloc_dm(f, 4096, 0, &h, &off), 0);
	CHECK_EQ(reg_dm_mr(f, h, 0, 4096, ORCA_ACCESS_LOCAL_WRITE, &k), 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
	CHECK_EQ(alloc_dm(f, 256 * 1024, 0, &h, &off), 0);
	CHECK_EQ(off, ORCA_DM_BAR_OFFSET);
	fx_free(f);
}

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();
	RUN(dm_commands);
	RUN(dm_mr_traffic);
	RUN(dm_reset);
	return tap_done();
}
