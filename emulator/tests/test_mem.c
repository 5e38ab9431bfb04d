// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of page lists and memory regions beyond test_dp.c's basic
 * checks: the chained page list, region bounds that must not wrap, and
 * the reserved lkey of kernel QPs.
 */
#include <stdio.h>
#include <string.h>

#include "dp_fixture.h"
#include "orca_log.h"

/*
 * A chained page list (orca_hw_cmd_mem.h): 4 KiB chunks of 511 entries, each
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

/*
 * Review finding 9: a region's key byte is no counter a peer can step
 * from its own R_Key to a neighbour's: of 64 registrations in a row, the
 * key bytes do not go up by one each time (today they did, all 63
 * steps; at random all 63 would be (1/255)^63), and a slot registered
 * again never gets the key byte it had (the old R_Key misses).
 */
static void key_bytes(void)
{
	struct fx *f = dp_up();
	uint64_t buf = heap_alloc(PAGE);
	struct orca_pbl pbl = pbl_for(f, buf, 1);
	uint32_t keys[64], k = 0;
	unsigned int i, steps = 0;

	for (i = 0; i < 64; i++)
		CHECK_EQ(reg_mr_pbl(f, f->pdn, iova(buf), PAGE,
				    ORCA_ACCESS_LOCAL_WRITE, pbl, 0, &keys[i]), 0);
	for (i = 1; i < 64; i++)
		steps += (uint8_t)(keys[i] - keys[i - 1]) == 1;
	CHECK(steps < 63);
	printf("# key bytes that went up by one: %u of 63\n", steps);
	for (i = 0; i < 200; i++) {
		CHECK_EQ(fx_dereg_mr(f, keys[0]), 0);
		f->dev.next_mr = (keys[0] >> 8) - 1;	/* that slot again */
		CHECK_EQ(reg_mr_pbl(f, f->pdn, iova(buf), PAGE,
				    ORCA_ACCESS_LOCAL_WRITE, pbl, 0, &k), 0);
		CHECK_EQ(k >> 8, keys[0] >> 8);
		CHECK(k != keys[0]);
		CHECK(!f->dev.mrs[keys[0] >> 8].used ||
		      f->dev.mrs[keys[0] >> 8].key != (keys[0] & 0xff));
		keys[0] = k;
	}
	fx_free(f);
}

/* Point SGE 0 of the WQE at @wqe to @addr as it is (no region's IOVA). */
static void sge_at(struct fx *f, uint64_t wqe, size_t hdr, uint64_t addr)
{
	struct orca_sge *s = gpa(f, wqe + hdr);

	s->addr = htole64(addr);
}

static uint64_t sq_slot(const struct ring_qp *qp, uint32_t pi)
{
	return qp->base + ((uint64_t)(pi & 7) << SQ_LOG_STRIDE);
}

static uint64_t rq_slot(const struct ring_qp *qp, uint32_t pi)
{
	return qp->base + qp->rq_off + ((uint64_t)(pi & 7) << RQ_LOG_STRIDE);
}

/* A signaled WQE whose SGE names guest memory @at by its address. */
static void send_phys(struct fx *f, struct ring_qp *qp, uint8_t op,
		      uint64_t at, uint32_t len, uint32_t lkey,
		      uint64_t raddr, uint32_t rkey)
{
	put_send(f, qp, op, at, len, lkey, raddr, rkey);
	sge_at(f, sq_slot(qp, qp->sq_pi - 1), sizeof(struct orca_send_wqe), at);
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_DB);
}

static void recv_phys(struct fx *f, struct ring_qp *qp, uint64_t at,
		      uint32_t len)
{
	post_recv(f, qp, at, len, ORCA_RESERVED_LKEY);
	sge_at(f, rq_slot(qp, qp->rq_pi - 1), sizeof(struct orca_recv_wqe),
	       at);
}

/* The next CQE of @qpn; the others (the peer's) are skipped. */
static bool cqe_of(struct fx *f, struct ring_cq *cq, uint32_t qpn,
		   struct orca_cqe *c)
{
	while (poll_cqe(f, cq, c))
		if (le32toh(c->qpn) == qpn)
			return true;
	return false;
}

/*
 * ORCA_RESERVED_LKEY (orca_hw_cmd_qp.h): on a QP created with
 * ORCA_QP_CREATE_RESERVED_LKEY an SGE may name guest memory by its
 * address, for the local side of SEND, receive and READ; nowhere else,
 * and only RAM.
 */
static void reserved_lkey(void)
{
	struct fx *f = dp_up();
	uint64_t src = heap_alloc(2 * PAGE), dst = heap_alloc(2 * PAGE);
	uint64_t rd = heap_alloc(2 * PAGE);
	uint32_t n = 5000, i, lk = 0;
	uint8_t *s = gpa(f, src);
	struct ring_qp a, b, c;
	struct ring_cq cq;
	struct orca_cqe e;

	for (i = 0; i < n; i++)
		s[i] = (uint8_t)(i * 7 + 3);
	CHECK_EQ(reg_mr(f, f->pdn, src, 2 * PAGE, ORCA_ACCESS_LOCAL_WRITE |
			ORCA_ACCESS_REMOTE_READ | ORCA_ACCESS_REMOTE_WRITE,
			&lk), 0);
	CHECK(make_cq(f, &cq, 5));
	make_qp_flags = ORCA_QP_CREATE_RESERVED_LKEY;
	CHECK(make_qp(f, &a, cq.cqn));
	CHECK(make_qp(f, &b, cq.cqn));
	make_qp_flags = 0;
	CHECK(make_qp(f, &c, cq.cqn));
	CHECK(connect_rc(f, &a, b.qpn, 0, 1));
	CHECK(connect_rc(f, &b, a.qpn, ORCA_ACCESS_REMOTE_READ |
			 ORCA_ACCESS_REMOTE_WRITE, 1));
	CHECK(connect_rc(f, &c, b.qpn, 0, 1));

	/* SEND gathered from and scattered into guest memory by address */
	recv_phys(f, &b, dst, 2 * PAGE);
	send_phys(f, &a, ORCA_WR_SEND, src, n, ORCA_RESERVED_LKEY, 0, 0);
	CHECK(cqe_of(f, &cq, b.qpn, &e));
	CHECK_EQ(e.status, ORCA_CQE_SUCCESS);
	CHECK_EQ(le32toh(e.byte_len), n);
	CHECK(!memcmp(gpa(f, dst), s, n));

	/* a READ's response lands there too */
	send_phys(f, &a, ORCA_WR_RDMA_READ, rd, n, ORCA_RESERVED_LKEY,
		  iova(src), lk);
	CHECK(cqe_of(f, &cq, a.qpn, &e) && cqe_of(f, &cq, a.qpn, &e));
	CHECK_EQ(e.status, ORCA_CQE_SUCCESS);
	CHECK_EQ(e.opcode, ORCA_CQE_OP_RDMA_READ);
	CHECK(!memcmp(gpa(f, rd), s, n));

	/* never a remote key: the responder refuses it */
	send_phys(f, &a, ORCA_WR_RDMA_WRITE, src, 64, ORCA_RESERVED_LKEY,
		  dst, ORCA_RESERVED_LKEY);
	CHECK(cqe_of(f, &cq, a.qpn, &e));
	CHECK_EQ(e.status, ORCA_CQE_REM_ACCESS_ERR);

	/* a QP created without the flag: an unknown key */
	send_phys(f, &c, ORCA_WR_SEND, src, 64, ORCA_RESERVED_LKEY, 0, 0);
	CHECK(cqe_of(f, &cq, c.qpn, &e));
	CHECK_EQ(e.status, ORCA_CQE_LOC_PROT_ERR);
	fx_free(f);

	/* only RAM: an address past it is a protection error */
	f = dp_up();
	CHECK(make_cq(f, &cq, 5));
	make_qp_flags = ORCA_QP_CREATE_RESERVED_LKEY;
	CHECK(make_qp(f, &a, cq.cqn));
	make_qp_flags = 0;
	CHECK(connect_rc(f, &a, a.qpn, 0, 1));
	send_phys(f, &a, ORCA_WR_SEND, RAM_SIZE - 32, 64, ORCA_RESERVED_LKEY,
		  0, 0);
	CHECK(cqe_of(f, &cq, a.qpn, &e));
	CHECK_EQ(e.status, ORCA_CQE_LOC_PROT_ERR);
	fx_free(f);
}

/* A device without ORCA_DEV_CAP_RESERVED_LKEY refuses the flag. */
static void reserved_lkey_cap(void)
{
	struct orca_cfg g;
	char caps[64];
	const char *sets[] = { caps, NULL };
	struct ring_qp a;
	struct ring_cq cq;
	struct fx *f;

	orca_cfg_defaults(&g);
	snprintf(caps, sizeof(caps), "dev_caps=0x%llx",
		 (unsigned long long)(g.dev_caps &
				      ~(uint64_t)ORCA_DEV_CAP_RESERVED_LKEY));
	f = dp_up_cfg(sets);
	CHECK(make_cq(f, &cq, 5));
	make_qp_flags = ORCA_QP_CREATE_RESERVED_LKEY;
	CHECK(!make_qp(f, &a, cq.cqn));
	CHECK_EQ(f->status, ORCA_STATUS_UNSUPPORTED);
	CHECK_EQ(f->synd, ORCA_SYND_FLAGS);
	make_qp_flags = 0;
	fx_free(f);
}

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();
	RUN(chained_page_list);
	RUN(mr_length_wrap);
	RUN(key_bytes);
	RUN(reserved_lkey);
	RUN(reserved_lkey_cap);
	return tap_done();
}
