// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of fast registration (FRWR), from the interface (orca_hw_cmd_mem.h
 * ALLOC_MR and ORCA_QP_CREATE_FAST_REG, orca_hw_io.h's REG_MR WQE) and IBA
 * vol 1 10.6.3.5, not from the device's code: the switch, ALLOC_MR, free
 * regions, REG_MR WQEs and their refusals, data through a valid region
 * (pages out of order, a first page offset, 8 KiB pages), its rights,
 * LOCAL_INV, SEND_WITH_INV, DEREG_MR, RESET.  The test plays the driver
 * and the provider over fake guest RAM (dp_fixture.h).
 *
 * usage: orca-emu-fastreg-tests [-v]
 */
#include <string.h>

#define RAM_SIZE	(8U << 20)	/* a fresh QP for every refusal */
#include "dp_fixture.h"
#include "orca_log.h"

#define RW	(ORCA_ACCESS_LOCAL_WRITE | ORCA_ACCESS_REMOTE_WRITE | \
		 ORCA_ACCESS_REMOTE_READ)
#define FAST	ORCA_QP_CREATE_FAST_REG
#define WR	ORCA_WR_RDMA_WRITE
#define RD	ORCA_WR_RDMA_READ
#define OK	ORCA_CQE_SUCCESS
#define RAE	ORCA_CQE_REM_ACCESS_ERR
#define MMOE	ORCA_CQE_MW_BIND_ERR	/* memory management operation error */
#define RIRE	ORCA_CQE_REM_INV_REQ_ERR
/* a fast region's I/O addresses are iova(FR_VA + ...): see fr_at() */
#define FR_VA	0x40000000ULL

static int alloc_mr(struct fx *f, uint32_t pdn, uint32_t max_pages,
		    uint32_t *key)
{
	struct orca_alloc_mr_in in = { .pdn = htole32(pdn),
				       .max_pages = htole32(max_pages) };
	struct orca_reg_mr_out out;
	int ret;

	ret = fx_cmd(f, ORCA_CMD_ALLOC_MR, &in, sizeof(in), &out, sizeof(out));
	if (!ret) {
		CHECK_EQ(le32toh(out.lkey), le32toh(out.rkey));
		if (key)
			*key = le32toh(out.lkey);
	}
	return ret;
}


static int dealloc_pd(struct fx *f, uint32_t pdn)
{
	struct orca_pd_handle pd = { .pdn = htole32(pdn) };

	return fx_cmd(f, ORCA_CMD_DEALLOC_PD, &pd, sizeof(pd), NULL, 0);
}

/* @key with the key byte @byte (the same index). */
static uint32_t rekey(uint32_t key, uint32_t byte)
{
	return (key & ~0xffU) | (byte & 0xff);
}

/* A fast region as its consumer sees it. */
struct fr {
	uint32_t key;			/* the key of its last registration */
	unsigned int shift, n;		/* page size, pages */
	uint64_t page[4], list;		/* its pages; their list in guest RAM */
	uint64_t va, len;
};

/*
 * @r: @n pages of 2^@shift at @pages (NULL: 4 KiB pages of the heap),
 * mapped at iova(FR_VA + @off).
 */
static void fr_init(struct fx *f, struct fr *r, unsigned int shift,
		    unsigned int n, const uint64_t *pages, uint64_t off,
		    uint64_t len)
{
	__le64 *e;
	unsigned int i;

	memset(r, 0, sizeof(*r));
	r->shift = shift;
	r->n = n;
	r->list = heap_alloc(PAGE);
	e = gpa(f, r->list);
	for (i = 0; i < n; i++) {
		r->page[i] = pages ? pages[i] : heap_alloc(PAGE);
		e[i] = htole64(r->page[i]);
	}
	r->va = iova(FR_VA + off);
	r->len = len;
}

/* The "at" of post_send() and post_recv() naming byte @off of @r. */
static uint64_t fr_at(const struct fr *r, uint64_t off)
{
	return r->va - iova(0) + off;
}

static struct orca_reg_wqe reg_wqe(const struct fr *r, uint32_t key,
				   uint32_t access)
{
	struct orca_reg_wqe q = {
		.opcode = ORCA_WR_REG_MR, .flags = ORCA_WQE_F_SIGNALED,
		.page_shift = r->shift, .access = htole32(access),
		.key = htole32(key), .npages = htole32(r->n),
		.iova = htole64(r->va), .length = htole64(r->len),
		.pbl = htole64(r->list),
	};

	return q;
}

struct world {
	struct fx *f;
	struct ring_cq cq;
	struct ring_qp a, b;		/* a -> b, b created with FAST */
	uint64_t src, rd;		/* 4 pages each, REG_MR regions */
	uint32_t slk, rlk;
};

static void world_up(struct world *w, const char *const *sets)
{
	uint8_t *s;
	uint64_t i;

	w->f = dp_up_cfg(sets);
	w->src = heap_alloc(4 * PAGE);
	w->rd = heap_alloc(4 * PAGE);
	s = gpa(w->f, w->src);
	for (i = 0; i < 4 * PAGE; i++)
		s[i] = (uint8_t)(i * 7 + (i >> 8) + 1);
	CHECK_EQ(reg_mr(w->f, w->f->pdn, w->src, 4 * PAGE,
			ORCA_ACCESS_LOCAL_WRITE, &w->slk), 0);
	CHECK_EQ(reg_mr(w->f, w->f->pdn, w->rd, 4 * PAGE,
			ORCA_ACCESS_LOCAL_WRITE, &w->rlk), 0);
	CHECK(make_cq(w->f, &w->cq, 6));
}

/* The next CQE (status 0xff if none), which must be @qp's if @qp. */
static struct orca_cqe next(struct world *w, const struct ring_qp *qp)
{
	struct orca_cqe c;

	if (!poll_cqe(w->f, &w->cq, &c)) {
		memset(&c, 0xff, sizeof(c));
		c.flags = 0;
	}
	if (qp)
		CHECK_EQ(le32toh(c.qpn), qp->qpn);
	return c;
}

static void drain(struct world *w)
{
	struct orca_cqe c;

	while (poll_cqe(w->f, &w->cq, &c))
		;
}

static void qp_of(struct world *w, struct ring_qp *qp, uint32_t pdn,
		  uint32_t flags)
{
	uint32_t pd0 = w->f->pdn;

	w->f->pdn = pdn;
	make_qp_flags = flags;
	CHECK(make_qp(w->f, qp, w->cq.cqn));
	make_qp_flags = 0;
	w->f->pdn = pd0;
}

/* Fresh RC QPs a -> b of @pdn, b with FAST and every remote right. */
static void pair_pd(struct world *w, uint32_t pdn, struct ring_qp *a,
		    struct ring_qp *b)
{
	qp_of(w, a, pdn, 0);
	qp_of(w, b, pdn, FAST);
	CHECK(connect_rc(w->f, a, b->qpn, 0, 1));
	CHECK(connect_rc(w->f, b, a->qpn, ORCA_ACCESS_REMOTE_WRITE |
			 ORCA_ACCESS_REMOTE_READ | ORCA_ACCESS_REMOTE_ATOMIC, 1));
}

static void pair(struct world *w)
{
	pair_pd(w, w->f->pdn, &w->a, &w->b);
}

/* The 64-byte WQE @wqe on @qp: its completion's status (and opcode @op). */
static uint8_t wqe_status(struct world *w, struct ring_qp *qp,
			  const void *wqe, uint8_t op)
{
	uint8_t *at = gpa(w->f, qp->base +
			  ((uint64_t)(qp->sq_pi & 7) << SQ_LOG_STRIDE));
	__le32 *db = gpa(w->f, qp->base + qp->db_off);
	struct orca_cqe c;

	memset(at, 0, 1U << SQ_LOG_STRIDE);
	memcpy(at, wqe, 64);
	*db = htole32(++qp->sq_pi);
	orca_dev_doorbell(&w->f->dev, ORCA_FW_VEC_DB);
	c = next(w, qp);
	CHECK(c.flags & ORCA_CQE_F_SQ);
	if (c.status == OK)
		CHECK_EQ(c.opcode, op);
	return c.status;
}

/* REG_MR of @r under @key with @access; @r takes the key if it worked. */
static uint8_t fr_reg(struct world *w, struct ring_qp *qp, struct fr *r,
		      uint32_t key, uint32_t access)
{
	struct orca_reg_wqe q = reg_wqe(r, key, access);
	uint8_t st = wqe_status(w, qp, &q, ORCA_CQE_OP_REG_MR);

	if (st == OK)
		r->key = key;
	return st;
}

static uint8_t local_inv_status(struct world *w, struct ring_qp *qp,
				uint32_t key)
{
	struct orca_send_wqe h = { .opcode = ORCA_WR_LOCAL_INV,
				   .flags = ORCA_WQE_F_SIGNALED,
				   .rkey = htole32(key) };

	return wqe_status(w, qp, &h, ORCA_CQE_OP_LOCAL_INV);
}

/* @qp's RDMA @op of @len bytes at src (WRITE) or rd (READ) + @at. */
static uint8_t rdma(struct world *w, struct ring_qp *qp, uint8_t op,
		    uint64_t at, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	post_send(w->f, qp, op, (op == RD ? w->rd : w->src) + at, len,
		  op == RD ? w->rlk : w->slk, raddr, rkey);
	return next(w, qp).status;
}

/* A WRITE of 8 bytes at byte @off of @r with @key, on a fresh pair. */
static uint8_t poke(struct world *w, const struct fr *r, uint64_t off,
		    uint32_t key)
{
	uint8_t st;

	pair(w);
	st = rdma(w, &w->a, WR, 0, 8, r->va + off, key);
	drain(w);
	return st;
}

/*
 * b receives at @at (@lkey) the @len bytes a sends from @sat (@skey), a
 * SEND_WITH_INV of @inv if not 0: the receive's CQE and the send's.
 */
static void send_recv(struct world *w, uint64_t at, uint32_t lkey,
		      uint64_t sat, uint32_t skey, uint32_t len, uint32_t inv,
		      struct orca_cqe *rq, struct orca_cqe *sq)
{
	post_recv(w->f, &w->b, at, len, lkey);
	post_send(w->f, &w->a, inv ? ORCA_WR_SEND_WITH_INV : ORCA_WR_SEND,
		  sat, len, skey, 0, inv);
	*rq = next(w, NULL);
	*sq = next(w, NULL);
	if (rq->flags & ORCA_CQE_F_SQ) {
		struct orca_cqe t = *rq;

		*rq = *sq;
		*sq = t;
	}
	CHECK_EQ(le32toh(rq->qpn), w->b.qpn);
	CHECK_EQ(le32toh(sq->qpn), w->a.qpn);
}

/* Bytes of guest RAM [at, at + n) that are not zero. */
static unsigned int nonzero(struct fx *f, uint64_t at, uint64_t n)
{
	const uint8_t *p = gpa(f, at);
	unsigned int bad = 0;

	while (n--)
		bad += *p++ != 0;
	return bad;
}

/*
 * Bytes [off, off + n) of @r that differ from src + @s_off, byte iova
 * being iova % 2^shift into the first page, the next pages after.
 */
static unsigned int fr_diff(struct world *w, const struct fr *r,
			    uint64_t off, uint64_t n, uint64_t s_off)
{
	const uint8_t *s = gpa(w->f, w->src + s_off);
	uint64_t mask = (1ULL << r->shift) - 1, i, o;
	unsigned int bad = 0;

	for (i = 0; i < n; i++) {
		o = (r->va & mask) + off + i;
		bad += *(uint8_t *)gpa(w->f, r->page[o >> r->shift] +
				       (o & mask)) != s[i];
	}
	return bad;
}

/* On by default; max_fast_reg_page_list_len 0 or no cap bit: off. */
static void fr_config(void)
{
	static const char *const len0[] = { "max_fast_reg_page_list_len=0",
					    NULL };
	char caps[64];
	const char *const nocap[] = { caps, NULL };
	const char *const *sets[] = { NULL, len0, nocap };
	struct orca_cfg g;
	struct orca_caps c;
	struct world w;
	unsigned int i;

	orca_cfg_defaults(&g);
	snprintf(caps, sizeof(caps), "dev_caps=0x%llx",
		 (unsigned long long)(g.dev_caps &
				      ~(uint64_t)ORCA_DEV_CAP_FAST_REG));
	for (i = 0; i < 3; i++) {
		bool on = !i;

		world_up(&w, sets[i]);
		CHECK_EQ(fx_cmd(w.f, ORCA_CMD_QUERY_CAPS, NULL, 0, &c,
				sizeof(c)), 0);
		CHECK_EQ(le32toh(c.max_fast_reg_page_list_len), on ? 512 : 0);
		CHECK_EQ(!!(le32toh(c.dev_caps) & ORCA_DEV_CAP_FAST_REG), on);
		CHECK_EQ(alloc_mr(w.f, w.f->pdn, 512, NULL),
			 on ? 0 : ORCA_STATUS_UNSUPPORTED);
		CHECK_EQ(alloc_mr(w.f, w.f->pdn, 513, NULL),
			 on ? ORCA_STATUS_BAD_PARAM : ORCA_STATUS_UNSUPPORTED);
		make_qp_flags = FAST;
		CHECK_EQ(make_qp(w.f, &w.a, w.cq.cqn), on);
		CHECK_EQ(w.f->status, on ? 0 : ORCA_STATUS_UNSUPPORTED);
		make_qp_flags = 0;
		fx_free(w.f);
	}
}

/* ALLOC_MR's checks, max_mr, REREG_MR, DEREG_MR, the PD, the QP flag. */
static void fr_commands(void)
{
	static const char *const sets[] = { "max_mr=4",
		"max_fast_reg_page_list_len=8", NULL };
	struct orca_alloc_mr_in in = {};
	struct orca_rereg_mr_in ri = {};
	struct orca_reg_mr_out o;
	struct orca_caps c;
	struct world w;
	struct fx *f;
	uint32_t k1, k2, pd2, lk;
	uint64_t buf;

	world_up(&w, sets);		/* src and rd: two regions already */
	f = w.f;
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &c, sizeof(c)), 0);
	CHECK_EQ(le32toh(c.max_fast_reg_page_list_len), 8);
	CHECK_EQ(alloc_mr(f, f->pdn, 0, NULL), ORCA_STATUS_BAD_PARAM);
	CHECK_EQ(alloc_mr(f, f->pdn, 9, NULL), ORCA_STATUS_BAD_PARAM);
	CHECK_EQ(alloc_mr(f, f->pdn + 9, 1, NULL), ORCA_STATUS_BAD_RESOURCE);
	in.pdn = htole32(f->pdn);
	in.max_pages = htole32(1);
	in.reserved[1] = htole32(1);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_ALLOC_MR, &in, sizeof(in), &o,
			      sizeof(o)), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_RESERVED_NZ);
	CHECK_EQ(alloc_mr(f, f->pdn, 8, &k1), 0);
	CHECK(k1 >> 8 != w.slk >> 8 && k1 >> 8 != w.rlk >> 8);
	pd2 = fx_alloc_pd(f);
	CHECK_EQ(alloc_mr(f, pd2, 1, &k2), 0);
	/* four regions: neither kind fits */
	CHECK_EQ(alloc_mr(f, f->pdn, 1, NULL), ORCA_STATUS_NO_RESOURCES);
	buf = heap_alloc(PAGE);
	CHECK_EQ(reg_mr(f, f->pdn, buf, PAGE, ORCA_ACCESS_LOCAL_WRITE, NULL),
		 ORCA_STATUS_NO_RESOURCES);

	/* REREG_MR refuses a fast region */
	ri.lkey = htole32(k1);
	ri.mr.iova = htole64(iova(buf));
	ri.mr.length = htole64(PAGE);
	ri.mr.pdn = htole32(f->pdn);
	ri.mr.access = htole32(ORCA_ACCESS_LOCAL_WRITE);
	ri.mr.pbl = pbl_for(f, buf, 1);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_REREG_MR, &ri, sizeof(ri), NULL, 0),
		 ORCA_STATUS_BAD_PARAM);

	/* its PD is in use while it lives; DEREG_MR takes any key byte */
	CHECK_EQ(dealloc_pd(f, pd2), ORCA_STATUS_BAD_RES_STATE);
	CHECK_EQ(fx_dereg_mr(f, rekey(k2, k2 + 0x5b)), 0);
	CHECK(fx_dereg_mr(f, k2) != 0);
	CHECK_EQ(dealloc_pd(f, pd2), 0);
	/* its room is free again, for either kind */
	CHECK_EQ(reg_mr(f, f->pdn, buf, PAGE, ORCA_ACCESS_LOCAL_WRITE, &lk),
		 0);
	CHECK_EQ(fx_dereg_mr(f, lk), 0);
	CHECK_EQ(alloc_mr(f, f->pdn, 1, NULL), 0);

	/* the QP flag: RC and UC, not UD */
	make_qp_flags = FAST;
	CHECK(make_qp_srq(f, &w.a, w.cq.cqn, ORCA_QPT_RC, 0));
	CHECK(make_qp_srq(f, &w.a, w.cq.cqn, ORCA_QPT_UC, 0));
	CHECK(!make_qp_srq(f, &w.a, w.cq.cqn, ORCA_QPT_UD, 0));
	CHECK_EQ(f->status, ORCA_STATUS_BAD_PARAM);
	make_qp_flags = 0;
	fx_free(f);
}

/* A free region refuses every access; a UC QP may register it. */
static void fr_free_region(void)
{
	struct world w;
	struct ring_qp uc;
	struct fr r;
	uint32_t k0;

	world_up(&w, NULL);
	fr_init(w.f, &r, 12, 2, NULL, 0, 2 * PAGE);
	CHECK_EQ(alloc_mr(w.f, w.f->pdn, 2, &k0), 0);
	CHECK_EQ(poke(&w, &r, 0, k0), RAE);
	pair(&w);
	CHECK_EQ(rdma(&w, &w.a, RD, 0, 8, r.va, k0), RAE);
	drain(&w);
	/* a local SGE with it: a SEND's gather */
	pair(&w);
	post_recv(w.f, &w.b, w.rd, PAGE, w.rlk);
	post_send(w.f, &w.a, ORCA_WR_SEND, fr_at(&r, 0), 64, k0, 0, 0);
	CHECK_EQ(next(&w, &w.a).status, ORCA_CQE_LOC_PROT_ERR);
	drain(&w);

	make_qp_flags = FAST;
	CHECK(make_qp_srq(w.f, &uc, w.cq.cqn, ORCA_QPT_UC, 0));
	make_qp_flags = 0;
	CHECK(connect_uc(w.f, &uc, uc.qpn));
	CHECK_EQ(fr_reg(&w, &uc, &r, rekey(k0, k0 + 1), RW), OK);
	CHECK_EQ(poke(&w, &r, PAGE - 4, r.key), OK);
	CHECK_EQ(fr_diff(&w, &r, PAGE - 4, 8, 0), 0);
	CHECK_EQ(poke(&w, &r, 0, k0), RAE);
	fx_free(w.f);
}

/*
 * Data through a valid region: pages reversed and apart, a first page
 * offset; RDMA WRITE and READ, the list rewritten after the WQE, receive
 * scatter and SEND gather with its lkey; then 8 KiB pages.
 */
static void fr_data(void)
{
	struct world w;
	struct orca_cqe rq, sq;
	struct fr r;
	struct fx *f;
	uint64_t blk, pg[4], decoy, off;
	uint32_t k0;
	unsigned int i;

	world_up(&w, NULL);
	f = w.f;
	blk = heap_alloc(8 * PAGE);
	for (i = 0; i < 4; i++)
		pg[i] = blk + (6 - 2 * i) * PAGE;
	fr_init(f, &r, 12, 4, pg, 0x234, 4 * PAGE - 0x234 - 0x100);
	CHECK_EQ(alloc_mr(f, f->pdn, 4, &k0), 0);
	pair(&w);
	CHECK_EQ(fr_reg(&w, &w.b, &r, rekey(k0, k0 + 0x11), RW), OK);

	/* one WRITE of it all lands page by page, nothing around it */
	CHECK_EQ(rdma(&w, &w.a, WR, 0, r.len, r.va, r.key), OK);
	CHECK_EQ(fr_diff(&w, &r, 0, r.len, 0), 0);
	CHECK_EQ(nonzero(f, pg[0], 0x234) +
		 nonzero(f, pg[3] + PAGE - 0x100, 0x100), 0);
	for (i = 0; i < 4; i++)
		CHECK_EQ(nonzero(f, blk + (2 * i + 1) * PAGE, PAGE), 0);
	/* READ it back from inside page 0 */
	CHECK_EQ(rdma(&w, &w.a, RD, 0, r.len - 100, r.va + 100, r.key), OK);
	CHECK(!memcmp(gpa(f, w.rd), gpa(f, w.src + 100), r.len - 100));

	/* the list rewritten: the region keeps the pages it was given */
	decoy = heap_alloc(PAGE);
	for (i = 0; i < 4; i++)
		((__le64 *)gpa(f, r.list))[i] = htole64(decoy);
	off = PAGE - 0x234 - 100;		/* across pages 0 and 1 */
	CHECK_EQ(rdma(&w, &w.a, WR, PAGE + 3, 200, r.va + off, r.key), OK);
	CHECK_EQ(fr_diff(&w, &r, off, 200, PAGE + 3), 0);
	CHECK_EQ(nonzero(f, decoy, PAGE), 0);

	/* a receive scattered into it, across pages 1 and 2 */
	off = 2 * PAGE - 0x234 - 50;
	send_recv(&w, fr_at(&r, off), r.key, w.src + 2 * PAGE + 5, w.slk, 300,
		  0, &rq, &sq);
	CHECK_EQ(rq.status, OK);
	CHECK_EQ(sq.status, OK);
	CHECK_EQ(le32toh(rq.byte_len), 300);
	CHECK_EQ(fr_diff(&w, &r, off, 300, 2 * PAGE + 5), 0);
	/* a SEND gathered from it, across pages 2 and 3 */
	off = 3 * PAGE - 0x234 - 250;
	send_recv(&w, w.rd + PAGE, w.rlk, fr_at(&r, off), r.key, 500, 0, &rq,
		  &sq);
	CHECK_EQ(rq.status, OK);
	CHECK_EQ(sq.status, OK);
	CHECK(!memcmp(gpa(f, w.rd + PAGE), gpa(f, w.src + off), 500));
	/* the key byte it had while free is stale */
	CHECK_EQ(rdma(&w, &w.a, WR, 0, 8, r.va, k0), RAE);
	drain(&w);

	/* 8 KiB pages: byte iova lands iova % 8 KiB into the first */
	blk = (heap_alloc(5 * PAGE) + 0x1fff) & ~0x1fffULL;
	pg[0] = blk + 0x2000;
	pg[1] = blk;
	fr_init(f, &r, 13, 2, pg, 0x1f00, 0x300);
	CHECK_EQ(alloc_mr(f, f->pdn, 2, &k0), 0);
	pair(&w);
	CHECK_EQ(fr_reg(&w, &w.b, &r, rekey(k0, k0 + 1), RW), OK);
	CHECK_EQ(rdma(&w, &w.a, WR, 7, 0x300, r.va, r.key), OK);
	CHECK(!memcmp(gpa(f, pg[0] + 0x1f00), gpa(f, w.src + 7), 0x100));
	CHECK(!memcmp(gpa(f, pg[1]), gpa(f, w.src + 0x107), 0x200));
	CHECK_EQ(nonzero(f, pg[0], 0x1f00) +
		 nonzero(f, pg[1] + 0x200, 0x1e00), 0);
	fx_free(f);
}

/* The rights and the range a REG_MR gives are enforced. */
static void fr_rights(void)
{
	struct world w;
	struct orca_cqe rq, sq;
	struct fr ro, wo;
	uint32_t k;

	world_up(&w, NULL);
	fr_init(w.f, &ro, 12, 1, NULL, 0, PAGE);
	fr_init(w.f, &wo, 12, 1, NULL, 0x10, PAGE - 0x20);
	pair(&w);
	CHECK_EQ(alloc_mr(w.f, w.f->pdn, 1, &k), 0);
	CHECK_EQ(fr_reg(&w, &w.b, &ro, rekey(k, k + 1),
			ORCA_ACCESS_REMOTE_READ), OK);
	CHECK_EQ(alloc_mr(w.f, w.f->pdn, 1, &k), 0);
	CHECK_EQ(fr_reg(&w, &w.b, &wo, rekey(k, k + 1),
			ORCA_ACCESS_LOCAL_WRITE | ORCA_ACCESS_REMOTE_WRITE |
			ORCA_ACCESS_RELAXED_ORDERING), OK);

	/* read-only: READ yes, WRITE no */
	CHECK_EQ(rdma(&w, &w.a, RD, 0, 64, ro.va, ro.key), OK);
	CHECK_EQ(rdma(&w, &w.a, WR, 0, 64, ro.va, ro.key), RAE);
	drain(&w);
	/* write-only: WRITE yes, READ no; past either end no */
	pair(&w);
	CHECK_EQ(rdma(&w, &w.a, WR, 0, wo.len, wo.va, wo.key), OK);
	CHECK_EQ(fr_diff(&w, &wo, 0, wo.len, 0), 0);
	CHECK_EQ(rdma(&w, &w.a, RD, 0, 64, wo.va, wo.key), RAE);
	drain(&w);
	CHECK_EQ(poke(&w, &wo, wo.len - 4, wo.key), RAE);
	CHECK_EQ(poke(&w, &wo, (uint64_t)-4, wo.key), RAE);
	CHECK_EQ(nonzero(w.f, wo.page[0], 0x10) +
		 nonzero(w.f, wo.page[0] + PAGE - 0x10, 0x10), 0);
	/* no local write: a receive may not scatter into it */
	pair(&w);
	send_recv(&w, fr_at(&ro, 0), ro.key, w.src, w.slk, 64, 0, &rq, &sq);
	CHECK_EQ(rq.status, ORCA_CQE_LOC_PROT_ERR);
	CHECK_EQ(nonzero(w.f, ro.page[0], PAGE), 0);
	drain(&w);
	fx_free(w.f);
}

/* Every REG_MR refusal: MMOE, the QP in error, the region as it was. */
static void fr_reg_errors(void)
{
	struct world w;
	struct orca_reg_wqe q;
	struct ring_qp e;
	struct fr r, r2;
	struct fx *f;
	uint64_t al;
	uint32_t k, nk, k2;
	__le64 *l2;

	world_up(&w, NULL);
	f = w.f;
	fr_init(f, &r, 12, 3, NULL, 0x100, 2 * PAGE - 0x100);
	r.n = 2;		/* a good third entry: npages 3 is only too many */
	fr_init(f, &r2, 12, 2, r.page, 0, PAGE);	/* a list to spoil */
	l2 = gpa(f, r2.list);
	al = (heap_alloc(3 * PAGE) + 0x1fff) & ~0x1fffULL;	/* 8 KiB */
	CHECK_EQ(alloc_mr(f, f->pdn, 2, &k), 0);
	nk = rekey(k, k + 0x21);
	CHECK_EQ(alloc_mr(f, fx_alloc_pd(f), 2, &k2), 0);

#define REG_FAILS(qp_flags, stmt)					\
	do {								\
		qp_of(&w, &e, f->pdn, qp_flags);			\
		CHECK(connect_rc(f, &e, e.qpn, 0, 1));			\
		q = reg_wqe(&r, nk, RW);				\
		stmt;							\
		CHECK_EQ(wqe_status(&w, &e, &q, 0), MMOE);		\
		CHECK_EQ(qp_state_of(f, e.qpn), ORCA_QPS_ERR);		\
		drain(&w);						\
	} while (0)

	REG_FAILS(0, (void)0);			/* an RC QP without FAST */
	REG_FAILS(FAST, q.npages = htole32(3));
	REG_FAILS(FAST, q.npages = 0);
	REG_FAILS(FAST, q.page_shift = 11);
	REG_FAILS(FAST, q.page_shift = 31);
	REG_FAILS(FAST, q.access = htole32(RW | BIT(6)));
	REG_FAILS(FAST, q.access = htole32(RW | ORCA_ACCESS_MW_BIND));
	REG_FAILS(FAST, q.access = htole32(ORCA_ACCESS_REMOTE_WRITE));
	REG_FAILS(FAST, q.access = htole32(ORCA_ACCESS_REMOTE_ATOMIC));
	REG_FAILS(FAST, q.length = htole64(2 * PAGE - 0x100 + 1));
	REG_FAILS(FAST, q.pbl = htole64(RAM_SIZE + PAGE));
	REG_FAILS(FAST, q.pbl = htole64(RAM_SIZE - 8));
	REG_FAILS(FAST, (q.pbl = htole64(r2.list),
			 l2[1] = htole64(RAM_SIZE)));
	REG_FAILS(FAST, (q.pbl = htole64(r2.list),
			 l2[1] = htole64(r.page[1] + 0x800)));
	REG_FAILS(FAST, (q.pbl = htole64(r2.list), q.page_shift = 13,
			 l2[0] = htole64(al), l2[1] = htole64(al + PAGE)));
	/* not a region of ALLOC_MR, no region, another PD's */
	REG_FAILS(FAST, q.key = htole32(rekey(w.slk, w.slk + 1)));
	REG_FAILS(FAST, q.key = htole32(1000U << 8 | 0x33));
	REG_FAILS(FAST, q.key = htole32(rekey(k2, k2 + 1)));
#undef REG_FAILS

	/* still free: the new key gives no access */
	CHECK_EQ(poke(&w, &r, 0, nk), RAE);
	/* the good WQE works after all those (and src's key still does) */
	pair(&w);
	CHECK_EQ(fr_reg(&w, &w.b, &r, nk, RW), OK);
	CHECK_EQ(rdma(&w, &w.a, WR, 0, r.len, r.va, nk), OK);
	CHECK_EQ(fr_diff(&w, &r, 0, r.len, 0), 0);
	CHECK_EQ(nonzero(f, r.page[2], PAGE), 0);
	/* valid now: another REG_MR is refused and changes nothing */
	CHECK_EQ(fr_reg(&w, &w.b, &r, rekey(nk, nk + 1), RW), MMOE);
	drain(&w);
	CHECK_EQ(poke(&w, &r, 0, nk), OK);
	CHECK_EQ(poke(&w, &r, 0, rekey(nk, nk + 1)), RAE);
	fx_free(f);
}

/* LOCAL_INV: a valid region, its exact key, its PD; DEREG_MR by index. */
static void fr_local_inv(void)
{
	struct world w;
	struct ring_qp c, e;
	struct fr r;
	struct fx *f;
	uint32_t k0, k1;

	world_up(&w, NULL);
	f = w.f;
	fr_init(f, &r, 12, 2, NULL, 0, 2 * PAGE);
	CHECK_EQ(alloc_mr(f, f->pdn, 2, &k0), 0);
	pair(&w);
	CHECK_EQ(fr_reg(&w, &w.b, &r, rekey(k0, k0 + 1), RW), OK);

	/* a wrong key byte, a QP of another PD: refused, still valid */
	CHECK_EQ(local_inv_status(&w, &w.b, rekey(r.key, r.key + 1)),
		 ORCA_CQE_LOC_QP_OP_ERR);
	drain(&w);
	pair_pd(&w, fx_alloc_pd(f), &c, &e);
	CHECK_EQ(local_inv_status(&w, &e, r.key), ORCA_CQE_LOC_QP_OP_ERR);
	drain(&w);
	CHECK_EQ(poke(&w, &r, 0, r.key), OK);
	/* from a QP of its PD: free, its key refused */
	pair(&w);
	CHECK_EQ(local_inv_status(&w, &w.a, r.key), OK);
	CHECK_EQ(rdma(&w, &w.a, WR, 0, 8, r.va, r.key), RAE);
	drain(&w);
	/* a free region: refused */
	pair(&w);
	CHECK_EQ(local_inv_status(&w, &w.b, r.key), ORCA_CQE_LOC_QP_OP_ERR);
	drain(&w);
	/* a new key byte registers it again; the old one is stale */
	k1 = r.key;
	pair(&w);
	CHECK_EQ(fr_reg(&w, &w.b, &r, rekey(k1, k1 + 1), RW), OK);
	CHECK_EQ(rdma(&w, &w.a, WR, 0, 8, r.va + PAGE, r.key), OK);
	CHECK_EQ(fr_diff(&w, &r, PAGE, 8, 0), 0);
	CHECK_EQ(rdma(&w, &w.a, WR, 0, 8, r.va, k1), RAE);
	drain(&w);
	/* DEREG_MR of the valid region, named with its first key byte */
	CHECK_EQ(fx_dereg_mr(f, k0), 0);
	CHECK_EQ(poke(&w, &r, 0, r.key), RAE);
	pair(&w);
	CHECK_EQ(fr_reg(&w, &w.b, &r, rekey(r.key, r.key + 1), RW), MMOE);
	drain(&w);
	fx_free(f);
}

/* SEND_WITH_INV: a valid region of the responder's PD, its exact key. */
static void fr_send_inv(void)
{
	struct world w;
	struct ring_qp c, e;
	struct orca_cqe rq, sq;
	struct fr r, r2;
	struct fx *f;
	uint32_t k, pd2;

	world_up(&w, NULL);
	f = w.f;
	fr_init(f, &r, 12, 1, NULL, 0, PAGE);
	fr_init(f, &r2, 12, 1, NULL, 0, PAGE);
	CHECK_EQ(alloc_mr(f, f->pdn, 1, &k), 0);
	pair(&w);
	CHECK_EQ(fr_reg(&w, &w.b, &r, rekey(k, k + 1), RW), OK);

	/* the wrong key byte: both ends fail, the region stays valid */
	send_recv(&w, w.rd, w.rlk, w.src, w.slk, 8, rekey(r.key, r.key + 1),
		  &rq, &sq);
	CHECK_EQ(rq.status, RIRE);
	CHECK_EQ(sq.status, RIRE);
	drain(&w);
	CHECK_EQ(poke(&w, &r, 0, r.key), OK);
	/* its key: the receive reports it, the region is free */
	pair(&w);
	send_recv(&w, w.rd, w.rlk, w.src, w.slk, 600, r.key, &rq, &sq);
	CHECK_EQ(rq.status, OK);
	CHECK_EQ(rq.opcode, ORCA_CQE_OP_RECV);
	CHECK(rq.flags & ORCA_CQE_F_INV);
	CHECK_EQ(le32toh(rq.inv_rkey), r.key);
	CHECK_EQ(le32toh(rq.byte_len), 600);
	CHECK(!memcmp(gpa(f, w.rd), gpa(f, w.src), 600));
	CHECK_EQ(sq.status, OK);
	CHECK_EQ(sq.opcode, ORCA_CQE_OP_SEND);
	CHECK_EQ(rdma(&w, &w.a, WR, 0, 8, r.va, r.key), RAE);
	drain(&w);
	/* again: a free region's key is not valid */
	pair(&w);
	send_recv(&w, w.rd, w.rlk, w.src, w.slk, 8, r.key, &rq, &sq);
	CHECK_EQ(rq.status, RIRE);
	CHECK(!(rq.flags & ORCA_CQE_F_INV));
	CHECK_EQ(sq.status, RIRE);
	drain(&w);

	/* a valid region of another PD than the responder's */
	pd2 = fx_alloc_pd(f);
	CHECK_EQ(alloc_mr(f, pd2, 1, &k), 0);
	pair_pd(&w, pd2, &c, &e);
	CHECK_EQ(fr_reg(&w, &e, &r2, rekey(k, k + 1), RW), OK);
	pair(&w);
	send_recv(&w, w.rd, w.rlk, w.src, w.slk, 8, r2.key, &rq, &sq);
	CHECK_EQ(rq.status, RIRE);
	CHECK_EQ(sq.status, RIRE);
	drain(&w);
	/* still valid (c gathers with a region of pd2) */
	CHECK_EQ(reg_mr(f, pd2, w.src, PAGE, ORCA_ACCESS_LOCAL_WRITE, &w.slk),
		 0);
	CHECK_EQ(rdma(&w, &c, WR, 0, 8, r2.va, r2.key), OK);
	CHECK_EQ(fr_diff(&w, &r2, 0, 8, 0), 0);
	fx_free(f);
}

/* RESET drops every region, valid or free. */
static void fr_reset(void)
{
	static const char *const sets[] = { "max_mr=4", NULL };
	struct world w;
	struct fr r;
	uint32_t k;
	unsigned int i;

	world_up(&w, sets);		/* src and rd: two regions */
	fr_init(w.f, &r, 12, 1, NULL, 0, PAGE);
	CHECK_EQ(alloc_mr(w.f, w.f->pdn, 1, &k), 0);
	CHECK_EQ(alloc_mr(w.f, w.f->pdn, 1, NULL), 0);
	CHECK_EQ(alloc_mr(w.f, w.f->pdn, 1, NULL), ORCA_STATUS_NO_RESOURCES);
	pair(&w);
	CHECK_EQ(fr_reg(&w, &w.b, &r, rekey(k, k + 1), RW), OK);
	CHECK_EQ(rdma(&w, &w.a, WR, 0, 8, r.va, r.key), OK);

	fx_bringup_flags(w.f, ORCA_INIT_F_EQ_IRQ);	/* RESET, INIT, a PD */
	CHECK(make_cq(w.f, &w.cq, 6));
	CHECK_EQ(reg_mr(w.f, w.f->pdn, w.src, 4 * PAGE,
			ORCA_ACCESS_LOCAL_WRITE, &w.slk), 0);
	CHECK_EQ(poke(&w, &r, 0, r.key), RAE);
	/* with src, max_mr 4 leaves room for three: nothing else counts */
	for (i = 0; i < 4; i++)
		CHECK_EQ(alloc_mr(w.f, w.f->pdn, 1, NULL),
			 i < 3 ? 0 : ORCA_STATUS_NO_RESOURCES);
	fx_free(w.f);
}

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();
	RUN(fr_config);
	RUN(fr_commands);
	RUN(fr_free_region);
	RUN(fr_data);
	RUN(fr_rights);
	RUN(fr_reg_errors);
	RUN(fr_local_inv);
	RUN(fr_send_inv);
	RUN(fr_reset);
	return tap_done();
}
