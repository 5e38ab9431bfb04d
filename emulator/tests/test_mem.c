// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of page lists and memory regions beyond test_dp.c's basic
 * checks: the chained page list, and region bounds that must not wrap.
 */
#include <string.h>

#include "dp_fixture.h"
#include "orca_log.h"

/*
 * A chained page list (orca_hw_cmd.h): 4 KiB chunks of 511 entries, each
 * naming the next chunk in its last slot.  1000 entries take two chunks;
 * the device's copy holds them in order across the boundary.
 */
static void chained_page_list(void)
{
	struct fx *f = dp_up();
	uint64_t pages = heap_alloc(16 * PAGE);
	uint64_t c0 = heap_alloc(PAGE), c1 = heap_alloc(PAGE);
	__le64 *e0 = gpa(f, c0), *e1 = gpa(f, c1);
	struct orca_reg_mr_in in = {};
	struct orca_reg_mr_out out;
	struct orca_mr_handle h = {};
	const struct orca_mr *mr;
	uint32_t i, n = 1000;

	/* entry i names page i % 16: a region of 1000 pages in 16 */
	for (i = 0; i < n; i++) {
		__le64 a = htole64(pages + (i % 16) * PAGE);

		if (i < 511)
			e0[i] = a;
		else
			e1[i - 511] = a;
	}
	e0[511] = htole64(c1);
	e1[511] = htole64(RAM_SIZE);	/* the last chunk's link: unused */
	in.iova = htole64(iova(pages));
	in.length = htole64((uint64_t)n * PAGE);
	in.pdn = htole32(f->pdn);
	in.access = htole32(ORCA_ACCESS_LOCAL_WRITE);
	in.pbl.addr = htole64(c0);
	in.pbl.npages = htole32(n);
	in.pbl.page_shift = 12;
	in.pbl.flags = ORCA_PBL_F_CHAINED;
	CHECK_EQ(fx_cmd(f, ORCA_CMD_REG_MR, &in, sizeof(in), &out,
			sizeof(out)), 0);
	mr = &f->dev.mrs[le32toh(out.lkey) >> 8];
	CHECK_EQ(mr->pages.n, n);
	for (i = 0; i < n; i++)
		if (mr->pages.addr[i] != pages + (i % 16) * PAGE)
			break;
	CHECK_EQ(i, n);
	h.lkey = out.lkey;
	CHECK_EQ(fx_cmd(f, ORCA_CMD_DEREG_MR, &h, sizeof(h), NULL, 0), 0);

	/* every chunk is an aligned 4 KiB of guest RAM */
	e0[511] = htole64(c1 + 8);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_REG_MR, &in, sizeof(in), NULL, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_PAGE_LIST);
	e0[511] = htole64(RAM_SIZE);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_REG_MR, &in, sizeof(in), NULL, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_PAGE_LIST);
	e0[511] = htole64(c1);
	in.pbl.addr = htole64(c0 + 8);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_REG_MR, &in, sizeof(in), NULL, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_PAGE_LIST);
	in.pbl.addr = htole64(c0);
	/* a flag the device does not know, and too long a chain */
	in.pbl.flags = ORCA_PBL_F_CHAINED | 2;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_REG_MR, &in, sizeof(in), NULL, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_PAGE_LIST);
	in.pbl.flags = ORCA_PBL_F_CHAINED;
	in.pbl.npages = htole32(ORCA_PBL_MAX_PAGES_CHAINED + 1);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_REG_MR, &in, sizeof(in), NULL, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_PAGE_LIST);
	/* a chain that loops back ends where npages says */
	e1[511] = htole64(c0);
	in.pbl.npages = htole32(2 * n);
	in.length = htole64(2ULL * n * PAGE);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_REG_MR, &in, sizeof(in), &out,
			sizeof(out)), 0);
	CHECK_EQ(f->dev.mrs[le32toh(out.lkey) >> 8].pages.n, 2 * n);
	fx_free(f);
}

/*
 * A region's first_off + length must not wrap (review-emulator B.12):
 * with max_mr_size configured near 2^64 the device would otherwise check
 * the page list against a wrapped, tiny size, and the region would claim
 * more than its pages.
 */
static void mr_length_wrap(void)
{
	static const char *const sets[] = { "max_mr_size=0xffffffffffffffff",
					    NULL };
	struct fx *f = dp_up_cfg(sets);
	uint64_t buf = heap_alloc(PAGE);
	struct orca_reg_mr_in in = {};

	in.iova = htole64(0);
	in.length = htole64(UINT64_MAX - 100);
	in.pdn = htole32(f->pdn);
	in.access = htole32(ORCA_ACCESS_LOCAL_WRITE);
	in.pbl = pbl_for(f, buf, 1);
	in.first_off = htole32(200);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_REG_MR, &in, sizeof(in), NULL, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	CHECK_EQ(f->dev.n_mrs, 0);
	fx_free(f);
}

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();
	RUN(chained_page_list);
	RUN(mr_length_wrap);
	return tap_done();
}
