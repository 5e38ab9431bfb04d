// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the kick rings (orca_hw_io.h, "Kick rings";
 * CREATE_KICK_RING and DESTROY_KICK_RING in orca_hw_cmd.h;
 * ORCA_QP_CREATE_KICK_RING in orca_hw_cmd_qp.h).  A kick names no queue;
 * a QP created with ORCA_QP_CREATE_KICK_RING has each of its posts named
 * in its context's ring, and the device reads its doorbell record only
 * when a ring entry names it, after a ring overflowed, while it has work
 * in flight or packets arrive for it, after a MODIFY_QP, and in the
 * heartbeat's sweep.  That is what makes a kick cost the QPs that moved
 * instead of the QPs that exist, and it is also how a post gets lost if
 * the device and the posters disagree on the protocol: so each rule of
 * the protocol text is checked here from the poster's side, the test
 * playing driver and provider (it fills the ring as the text says a
 * poster does: prod fetch-add, then the QPN, then the sequence number)
 * and reading only what a host can see (CQEs, the ring page, the data,
 * the device's counters).
 *
 *   commands   CREATE/DESTROY_KICK_RING's checks, the limit, RESET, and
 *              the cap bit off
 *   announce   a kick without an entry reads no ringed QP's record; an
 *              entry makes it; a destroyed ring is not read
 *   unwritten  an entry reserved but not written stops the device there
 *   overflow   a poster that found the ring full: every record is read
 *   foreign    entries naming no QP, an idle QP, a bad QPN are harmless
 *   sweep      a post nobody announced completes within ten heartbeats
 *   wrap       three laps and a bit of the ring, in batches
 *   hint       with the doorbell hint: an announced post needs no kick,
 *              an entry unwritten at the device's stop gets one
 *   scale      the QP visits of one post: a handful with 1000 ringed QPs
 *              around, 1000 or more with 1000 unringed ones
 */
#include <string.h>

#define RAM_SIZE	(16U << 20)	/* 1000 QPs' rings and page lists */
#include "dp_fixture.h"
#include "orca_log.h"

#define N		ORCA_KICK_RING_ENTRIES
#define KICK		ORCA_QP_CREATE_KICK_RING
#define CROWD		1000		/* QPs around scale()'s pair */
#define HINT_BASE	0x2fe000ULL	/* doorbell hint, below the heap */

/* ------------------------------------------------------------------ */
/* The poster's side of the ring                                      */
/* ------------------------------------------------------------------ */

static int destroy_ring_rsvd(struct fx *f, uint32_t num, uint32_t reserved)
{
	struct orca_kick_ring_handle h = { .ring = htole32(num),
					   .reserved = htole32(reserved) };

	return fx_cmd(f, ORCA_CMD_DESTROY_KICK_RING, &h, sizeof(h), NULL, 0);
}

static int destroy_ring(struct fx *f, uint32_t num)
{
	return destroy_ring_rsvd(f, num, 0);
}

static int destroy_qpn(struct fx *f, uint32_t qpn)
{
	struct orca_qp_handle h = { .qpn = htole32(qpn) };

	return fx_cmd(f, ORCA_CMD_DESTROY_QP, &h, sizeof(h), NULL, 0);
}

static uint32_t rd32(const __le32 *p)
{
	return le32toh(__atomic_load_n(p, __ATOMIC_ACQUIRE));
}

/*
 * i = fetch_add(prod, 1), a full fence.  The test is the only poster and
 * the device runs only inside the calls the test makes, so a load and a
 * store do what the locked add does.
 */
static uint32_t kr_reserve(struct orca_kick_ring *r)
{
	uint32_t i = rd32(&r->prod);

	r->prod = htole32(i + 1);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return i;
}

/* e[i % N].qpn = qpn, then e[i % N].seq = i + 1 (release). */
static void kr_write(struct orca_kick_ring *r, uint32_t i, uint32_t qpn)
{
	struct orca_kick_entry *e = &r->e[i % N];

	e->qpn = htole32(qpn);
	__atomic_store_n(&e->seq, htole32(i + 1), __ATOMIC_RELEASE);
}

/* A poster whose doorbell record of @qpn is stored; its entry's index. */
static uint32_t kr_post(struct orca_kick_ring *r, uint32_t qpn)
{
	uint32_t i = kr_reserve(r);

	if (i - rd32(&r->cons) >= N)
		r->overflow = htole32(1);
	else
		kr_write(r, i, qpn);
	return i;
}

/* ------------------------------------------------------------------ */
/* A device with a ring and a ringed RC pair                          */
/* ------------------------------------------------------------------ */

struct kw {
	struct fx *f;
	struct ring_cq cq;
	struct ring_qp a, b;
	uint64_t src, dst, ring;
	uint32_t lk, num;
};

static struct orca_kick_ring *kr(struct kw *w)
{
	return gpa(w->f, w->ring);
}

static void kick(struct kw *w)
{
	orca_dev_doorbell(&w->f->dev, ORCA_FW_VEC_DB);
}

/* Async EQEs so far (command completions are fx_cmd()'s). */
static unsigned int async_events(struct fx *f)
{
	struct orca_eqe e;

	while (fx_pop(f, &e))
		if (e.type != ORCA_EQE_CMD_DONE && f->n_async < 64)
			f->async[f->n_async++] = e;
	return f->n_async;
}

/* RC QP @q, ringed or not (@flags), connected to itself: an idle QP. */
static void idle_qp(struct kw *w, struct ring_qp *q, uint32_t flags)
{
	make_qp_flags = flags;
	CHECK(make_qp(w->f, q, w->cq.cqn));
	make_qp_flags = 0;
	CHECK(connect_rc(w->f, q, q->qpn, 0, 1));
}

/*
 * dp_up_hint() with @sets and @hint_base, a page for the sends and one for
 * the receives, a ring, a CQ of 32 and the ringed RC pair a <-> b through
 * the loopback.
 */
static void kw_up_hint(struct kw *w, const char *const *sets,
		       uint64_t hint_base)
{
	w->f = dp_up_hint(sets, hint_base);
	w->src = heap_alloc(PAGE);
	w->dst = heap_alloc(PAGE);
	CHECK_EQ(reg_mr(w->f, w->f->pdn, w->src, 2 * PAGE,
			ORCA_ACCESS_LOCAL_WRITE, &w->lk), 0);
	w->ring = heap_alloc(PAGE);
	memset(gpa(w->f, w->ring), 0, PAGE);
	w->num = 0;
	CHECK_EQ(create_kick_ring(w->f, w->ring, &w->num), 0);
	CHECK(w->num);
	make_qp_kick_ring = w->num;
	CHECK(make_cq(w->f, &w->cq, 5));
	make_qp_flags = KICK;
	CHECK(make_qp(w->f, &w->a, w->cq.cqn));
	CHECK(make_qp(w->f, &w->b, w->cq.cqn));
	make_qp_flags = 0;
	CHECK(connect_rc(w->f, &w->a, w->b.qpn, 0, 1));
	CHECK(connect_rc(w->f, &w->b, w->a.qpn, 0, 1));
}

static void kw_up(struct kw *w, const char *const *sets)
{
	kw_up_hint(w, sets, 0);
}

static void kw_free(struct kw *w)
{
	CHECK(canaries_ok(w->f));
	fx_free(w->f);
}

/* A SEND of @len bytes from @from to @to, receive first; no kick. */
static void put_msg(struct kw *w, struct ring_qp *from, struct ring_qp *to,
		    uint32_t len)
{
	post_recv(w->f, to, w->dst, PAGE, w->lk);
	put_send(w->f, from, ORCA_WR_SEND, w->src, len, w->lk, 0, 0);
}

/* Every CQE there is, the first @max of them in @out. */
static unsigned int reap(struct kw *w, struct orca_cqe *out, unsigned int max)
{
	struct orca_cqe c;
	unsigned int n = 0;

	while (poll_cqe(w->f, &w->cq, &c)) {
		if (n < max)
			out[n] = c;
		n++;
	}
	return n;
}

static bool is_send(const struct orca_cqe *c)
{
	return c->flags & ORCA_CQE_F_SQ;
}

/* ------------------------------------------------------------------ */
/* Cases                                                              */
/* ------------------------------------------------------------------ */

/* CREATE_KICK_RING, DESTROY_KICK_RING: checks, limit, RESET, no cap. */
static void commands(void)
{
	static const uint64_t outside[] = { RAM_SIZE, RAM_SIZE + PAGE,
					    1ULL << 40,
					    0xfffffffffffff000ULL };
	struct fx *f = dp_up();
	uint64_t page = heap_alloc(PAGE), addr;
	uint32_t r1 = 0, r2 = 0, r, first = 0, last = 0;
	struct orca_create_qp_in qi = {};
	char caps[64];
	const char *const nocap[] = { caps, NULL };
	struct orca_cfg g;
	struct orca_caps c;
	struct orca_qp_ctx ctx;
	static uint8_t seen[ORCA_MAX_KICK_RINGS + 1];
	unsigned int i, dups = 0, bad = 0;

	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &c, sizeof(c)), 0);
	CHECK(le32toh(c.dev_caps) & ORCA_DEV_CAP_KICK_RING);

	/* a page of host memory, page-aligned */
	for (addr = 64; addr < PAGE; addr *= 2)
		EXPECT_FAIL(f, create_kick_ring(f, page + addr, NULL),
			    ORCA_STATUS_DMA_FAULT, ORCA_SYND_QUEUE_ADDR);
	EXPECT_FAIL(f, create_kick_ring(f, page + 8, NULL), ORCA_STATUS_DMA_FAULT,
		    ORCA_SYND_QUEUE_ADDR);
	for (i = 0; i < ARRAY_SIZE(outside); i++)
		EXPECT_FAIL(f, create_kick_ring(f, outside[i], NULL),
			    ORCA_STATUS_DMA_FAULT, ORCA_SYND_QUEUE_ADDR);
	CHECK_EQ(fx_stat(f, "kick_rings"), 0);
	/* the last page of RAM is RAM */
	CHECK_EQ(create_kick_ring(f, RAM_SIZE - PAGE, &r), 0);
	CHECK_EQ(destroy_ring(f, r), 0);

	CHECK_EQ(create_kick_ring(f, page, &r1), 0);
	CHECK(r1);
	CHECK_EQ(create_kick_ring(f, page, &r2), 0);
	CHECK(r2 && r2 != r1);
	CHECK_EQ(fx_stat(f, "kick_rings"), 2);

	/* numbers that name no ring */
	EXPECT_FAIL(f, destroy_ring(f, 0), ORCA_STATUS_BAD_RESOURCE,
		    ORCA_SYND_HANDLE);
	EXPECT_FAIL(f, destroy_ring(f, r1 + r2 + 7), ORCA_STATUS_BAD_RESOURCE,
		    ORCA_SYND_HANDLE);
	EXPECT_FAIL(f, destroy_ring(f, ORCA_MAX_KICK_RINGS + 1),
		    ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE);
	EXPECT_FAIL(f, destroy_ring(f, 0xffffffff), ORCA_STATUS_BAD_RESOURCE,
		    ORCA_SYND_HANDLE);
	/* reserved must be 0, and the ring is still there after */
	EXPECT_FAIL(f, destroy_ring_rsvd(f, r1, 1), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_RESERVED_NZ);
	EXPECT_FAIL(f, destroy_ring_rsvd(f, r1, 0x80000000),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_RESERVED_NZ);
	CHECK_EQ(fx_stat(f, "kick_rings"), 2);
	CHECK_EQ(destroy_ring(f, r1), 0);
	EXPECT_FAIL(f, destroy_ring(f, r1), ORCA_STATUS_BAD_RESOURCE,
		    ORCA_SYND_HANDLE);
	CHECK_EQ(destroy_ring(f, r2), 0);
	EXPECT_FAIL(f, destroy_ring(f, r2), ORCA_STATUS_BAD_RESOURCE,
		    ORCA_SYND_HANDLE);
	CHECK_EQ(fx_stat(f, "kick_rings"), 0);

	/* ORCA_MAX_KICK_RINGS of them (one page will do), distinct */
	for (i = 0; i < ORCA_MAX_KICK_RINGS; i++) {
		r = 0;
		if (create_kick_ring(f, page, &r)) {
			bad++;
			continue;
		}
		if (!r || r > ORCA_MAX_KICK_RINGS || seen[r]++)
			dups++;
		if (!i)
			first = r;
		last = r;
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(dups, 0);
	CHECK_EQ(fx_stat(f, "kick_rings"), ORCA_MAX_KICK_RINGS);
	EXPECT_FAIL(f, create_kick_ring(f, page, NULL), ORCA_STATUS_NO_RESOURCES,
		    ORCA_SYND_LIMIT);
	/* a destroyed one's slot is free again */
	CHECK_EQ(destroy_ring(f, last), 0);
	CHECK_EQ(create_kick_ring(f, page, &r), 0);
	CHECK(r);
	EXPECT_FAIL(f, create_kick_ring(f, page, NULL), ORCA_STATUS_NO_RESOURCES,
		    ORCA_SYND_LIMIT);
	/* a RESET forgets them all */
	fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
	CHECK_EQ(fx_stat(f, "kick_rings"), 0);
	EXPECT_FAIL(f, destroy_ring(f, first), ORCA_STATUS_BAD_RESOURCE,
		    ORCA_SYND_HANDLE);
	EXPECT_FAIL(f, destroy_ring(f, r), ORCA_STATUS_BAD_RESOURCE,
		    ORCA_SYND_HANDLE);
	CHECK_EQ(create_kick_ring(f, page, &r), 0);
	CHECK(r);
	CHECK_EQ(destroy_ring(f, r), 0);
	CHECK(canaries_ok(f));
	fx_free(f);

	/* dev_caps without the bit: neither rings nor ringed QPs */
	orca_cfg_defaults(&g);
	snprintf(caps, sizeof(caps), "dev_caps=0x%llx",
		 (unsigned long long)(g.dev_caps &
				      ~(uint64_t)ORCA_DEV_CAP_KICK_RING));
	f = dp_up_cfg(nocap);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &c, sizeof(c)), 0);
	CHECK(!(le32toh(c.dev_caps) & ORCA_DEV_CAP_KICK_RING));
	page = heap_alloc(PAGE);
	CHECK_EQ(create_kick_ring(f, page, NULL), ORCA_STATUS_UNSUPPORTED);
	CHECK_EQ(fx_stat(f, "kick_rings"), 0);
	qi.qp_type = ORCA_QPT_RC;
	qi.create_flags = htole32(KICK);
	qi.pdn = htole32(f->pdn);
	qi.send_cqn = qi.recv_cqn = htole32(f->cqn);
	qi.max_send_wr = qi.max_recv_wr = htole32(8);
	qi.max_send_sge = qi.max_recv_sge = htole32(1);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_CREATE_QP, &qi, sizeof(qi), &ctx,
			      sizeof(ctx)),
		    ORCA_STATUS_UNSUPPORTED, ORCA_SYND_FLAGS);
	CHECK_EQ(f->dev.n_qps, 0);
	/* and the same QP without the flag is fine */
	qi.create_flags = 0;
	CHECK_EQ(fx_cmd(f, ORCA_CMD_CREATE_QP, &qi, sizeof(qi), &ctx,
			sizeof(ctx)), 0);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/*
 * A kick without an entry reads no ringed QP's record; the entry makes
 * it.  Once the ring is destroyed the device neither reads nor writes it.
 */
static void announce(void)
{
	struct kw w;
	struct orca_kick_ring *r;
	struct orca_cqe c[4];
	uint8_t *s, *d;
	uint64_t entries;
	unsigned int i, ev, n;
	const uint32_t len = 3000;

	kw_up(&w, NULL);
	r = kr(&w);
	s = gpa(w.f, w.src);
	d = gpa(w.f, w.dst);
	for (i = 0; i < len; i++)
		s[i] = (uint8_t)(i * 7 + 3);
	memset(d, 0, PAGE);
	ev = async_events(w.f);
	entries = w.f->dev.stats.kick_entries;

	/* the WQE and the doorbell record, and a kick: nothing read */
	put_msg(&w, &w.a, &w.b, len);
	kick(&w);
	kick(&w);
	CHECK_EQ(reap(&w, c, 4), 0);
	CHECK_EQ(w.f->dev.stats.kick_entries, entries);
	CHECK_EQ(w.f->dev.stats.wqes, 0);
	CHECK_EQ(d[0], 0);
	CHECK_EQ(rd32(&r->cons), 0);

	/* the entry, as a poster writes it, and a kick */
	CHECK_EQ(kr_post(r, w.a.qpn), 0);
	kick(&w);
	n = reap(&w, c, 4);
	CHECK_EQ(n, 2);
	if (n == 2) {
		struct orca_cqe *sc = is_send(&c[0]) ? &c[0] : &c[1];
		struct orca_cqe *rc = is_send(&c[0]) ? &c[1] : &c[0];

		CHECK(is_send(sc) && !is_send(rc));
		CHECK_EQ(sc->status, ORCA_CQE_SUCCESS);
		CHECK_EQ(le32toh(sc->qpn), w.a.qpn);
		CHECK_EQ(le32toh(sc->wqe_idx), 0);
		CHECK_EQ(rc->status, ORCA_CQE_SUCCESS);
		CHECK_EQ(rc->opcode, ORCA_CQE_OP_RECV);
		CHECK_EQ(le32toh(rc->qpn), w.b.qpn);
		CHECK_EQ(le32toh(rc->byte_len), len);
	}
	CHECK(!memcmp(s, d, len));
	CHECK_EQ(d[len], 0);
	/* the device published cons and wrote nothing else of the ring */
	CHECK_EQ(rd32(&r->cons), 1);
	CHECK_EQ(rd32(&r->prod), 1);
	CHECK_EQ(rd32(&r->overflow), 0);
	CHECK_EQ(rd32(&r->e[0].seq), 1);
	CHECK_EQ(rd32(&r->e[0].qpn), w.a.qpn);
	CHECK_EQ(w.f->dev.stats.kick_entries, entries + 1);

	/* the other way, b to a, announced before the kick */
	put_msg(&w, &w.b, &w.a, 100);
	CHECK_EQ(kr_post(r, w.b.qpn), 1);
	kick(&w);
	CHECK_EQ(reap(&w, c, 4), 2);
	CHECK_EQ(rd32(&r->cons), 2);
	CHECK_EQ(w.f->dev.stats.kick_entries, entries + 2);

	/*
	 * Not destroyed while it names QPs: an overflow of it reads their
	 * records.  Their posts go on through it; without them it goes.
	 */
	EXPECT_FAIL(w.f, destroy_ring(w.f, w.num), ORCA_STATUS_BAD_RES_STATE,
		    ORCA_SYND_NONE);
	put_msg(&w, &w.a, &w.b, 10);
	CHECK_EQ(kr_post(r, w.a.qpn), 2);
	kick(&w);
	CHECK_EQ(reap(&w, c, 4), 2);
	CHECK_EQ(rd32(&r->cons), 3);
	CHECK_EQ(destroy_qpn(w.f, w.a.qpn), 0);
	EXPECT_FAIL(w.f, destroy_ring(w.f, w.num), ORCA_STATUS_BAD_RES_STATE,
		    ORCA_SYND_NONE);
	CHECK_EQ(destroy_qpn(w.f, w.b.qpn), 0);
	CHECK_EQ(destroy_ring(w.f, w.num), 0);
	CHECK_EQ(fx_stat(w.f, "kick_rings"), 0);
	CHECK_EQ(async_events(w.f), ev);
	kw_free(&w);
}

/*
 * An entry reserved but not written stops the device there: an entry
 * written after it, for another QP or the same one, waits with it.
 */
static void unwritten(void)
{
	struct kw w;
	struct orca_kick_ring *r;
	struct orca_cqe c[8];
	uint64_t entries;
	uint32_t i0, a_send = 0, b_send = 0, b_recv = 0, a_recv = 0;
	unsigned int i, n, ev;

	kw_up(&w, NULL);
	r = kr(&w);
	ev = async_events(w.f);
	entries = w.f->dev.stats.kick_entries;

	/* a's poster reserves entry 0 and is preempted before writing it */
	put_msg(&w, &w.a, &w.b, 11);
	i0 = kr_reserve(r);
	CHECK_EQ(i0, 0);
	/* b's post and a second of a's are announced after it */
	put_msg(&w, &w.b, &w.a, 22);
	CHECK_EQ(kr_post(r, w.b.qpn), 1);
	put_msg(&w, &w.a, &w.b, 33);
	CHECK_EQ(kr_post(r, w.a.qpn), 2);
	kick(&w);
	kick(&w);
	CHECK_EQ(reap(&w, c, 8), 0);
	CHECK_EQ(rd32(&r->cons), 0);
	CHECK_EQ(w.f->dev.stats.kick_entries, entries);
	CHECK_EQ(w.f->dev.stats.wqes, 0);

	/* the poster writes its entry and kicks: all three */
	kr_write(r, i0, w.a.qpn);
	kick(&w);
	n = reap(&w, c, 8);
	CHECK_EQ(n, 6);
	for (i = 0; i < n && i < 8; i++) {
		uint32_t qpn = le32toh(c[i].qpn), idx = le32toh(c[i].wqe_idx);

		CHECK_EQ(c[i].status, ORCA_CQE_SUCCESS);
		if (is_send(&c[i]) && qpn == w.a.qpn) {
			CHECK_EQ(idx, a_send);	/* a's sends in order */
			a_send++;
		} else if (is_send(&c[i]) && qpn == w.b.qpn) {
			CHECK_EQ(idx, b_send);
			b_send++;
		} else if (qpn == w.b.qpn) {
			/* b received a's 11 bytes, then its 33 */
			CHECK_EQ(idx, b_recv);
			CHECK_EQ(le32toh(c[i].byte_len), b_recv ? 33 : 11);
			b_recv++;
		} else {
			CHECK_EQ(qpn, w.a.qpn);
			CHECK_EQ(le32toh(c[i].byte_len), 22);
			a_recv++;
		}
	}
	CHECK_EQ(a_send, 2);
	CHECK_EQ(b_send, 1);
	CHECK_EQ(b_recv, 2);
	CHECK_EQ(a_recv, 1);
	CHECK_EQ(rd32(&r->cons), 3);
	CHECK_EQ(rd32(&r->cons), rd32(&r->prod));
	CHECK_EQ(w.f->dev.stats.kick_entries, entries + 3);
	CHECK_EQ(async_events(w.f), ev);
	kw_free(&w);
}

/*
 * A poster that found the ring full sets overflow instead of writing an
 * entry: the device reads every ringed QP's record and takes prod.
 */
static void overflow(void)
{
	struct kw w;
	struct ring_qp idle;
	struct orca_kick_ring *r;
	struct orca_cqe c[8];
	uint64_t entries, ovf;
	unsigned int i, ev;

	kw_up(&w, NULL);
	idle_qp(&w, &idle, KICK);
	r = kr(&w);
	ev = async_events(w.f);
	entries = w.f->dev.stats.kick_entries;
	ovf = w.f->dev.stats.kick_overflows;

	/* posts on both QPs, whose posters found the ring full */
	put_msg(&w, &w.a, &w.b, 40);
	kr_reserve(r);
	r->overflow = htole32(1);
	put_msg(&w, &w.b, &w.a, 50);
	kr_reserve(r);
	r->overflow = htole32(1);
	kick(&w);
	CHECK_EQ(reap(&w, c, 8), 4);
	CHECK_EQ(rd32(&r->overflow), 0);
	CHECK_EQ(rd32(&r->prod), 2);
	CHECK_EQ(rd32(&r->cons), rd32(&r->prod));
	CHECK_EQ(w.f->dev.stats.kick_overflows, ovf + 1);
	CHECK_EQ(w.f->dev.stats.kick_entries, entries);

	/*
	 * Really full: N entries for the idle QP nobody took (no kick),
	 * then the pair's posters find no room.
	 */
	for (i = 0; i < N; i++)
		kr_post(r, idle.qpn);
	CHECK_EQ(rd32(&r->overflow), 0);
	put_msg(&w, &w.a, &w.b, 60);
	CHECK_EQ(kr_post(r, w.a.qpn), 2 + N);
	put_msg(&w, &w.b, &w.a, 70);
	CHECK_EQ(kr_post(r, w.b.qpn), 3 + N);
	CHECK_EQ(rd32(&r->overflow), 1);
	/* their slots still hold the idle QP's entries */
	CHECK_EQ(rd32(&r->e[(2 + N) % N].qpn), idle.qpn);
	kick(&w);
	CHECK_EQ(reap(&w, c, 8), 4);
	CHECK_EQ(rd32(&r->overflow), 0);
	CHECK_EQ(rd32(&r->prod), 4 + N);
	CHECK_EQ(rd32(&r->cons), rd32(&r->prod));
	CHECK_EQ(w.f->dev.stats.kick_overflows, ovf + 2);

	/* and the ring goes on from there */
	put_msg(&w, &w.a, &w.b, 80);
	CHECK_EQ(kr_post(r, w.a.qpn), 4 + N);
	CHECK_EQ(rd32(&r->overflow), 0);
	kick(&w);
	CHECK_EQ(reap(&w, c, 8), 2);
	CHECK_EQ(rd32(&r->cons), 5 + N);
	CHECK_EQ(w.f->dev.stats.kick_overflows, ovf + 2);
	CHECK_EQ(async_events(w.f), ev);
	kw_free(&w);
}

/*
 * Entries naming no QP, an idle QP of the ring's, an unringed idle QP
 * and QPNs out of any range: the device reads what records there are,
 * which changes nothing, and goes past them.
 */
static void foreign(void)
{
	struct kw w;
	struct ring_qp idle, plain, gone;
	struct orca_kick_ring *r;
	struct orca_cqe c[4];
	uint32_t junk[8], top;
	uint64_t entries, wqes;
	unsigned int i, ev, nj = 0;

	kw_up(&w, NULL);
	idle_qp(&w, &idle, KICK);
	idle_qp(&w, &plain, 0);
	make_qp_flags = KICK;
	CHECK(make_qp(w.f, &gone, w.cq.cqn));
	make_qp_flags = 0;
	CHECK_EQ(destroy_qpn(w.f, gone.qpn), 0);
	r = kr(&w);
	ev = async_events(w.f);
	entries = w.f->dev.stats.kick_entries;
	wqes = w.f->dev.stats.wqes;

	top = w.f->cfg.max_qp + ORCA_QPN_BASE;
	junk[nj++] = gone.qpn;		/* destroyed */
	junk[nj++] = top - 1;		/* never created */
	junk[nj++] = top;		/* past the QP table */
	junk[nj++] = idle.qpn;		/* nothing posted */
	junk[nj++] = plain.qpn;		/* not ringed */
	junk[nj++] = 0xffffff;
	junk[nj++] = 0xffffffff;
	junk[nj++] = 0;
	for (i = 0; i < nj; i++)
		CHECK_EQ(kr_post(r, junk[i]), i);
	kick(&w);
	CHECK_EQ(reap(&w, c, 4), 0);
	CHECK_EQ(rd32(&r->cons), nj);
	CHECK_EQ(w.f->dev.stats.kick_entries, entries + nj);
	CHECK_EQ(w.f->dev.stats.wqes, wqes);
	CHECK_EQ(async_events(w.f), ev);
	CHECK_EQ(qp_state_of(w.f, idle.qpn), ORCA_QPS_RTS);
	CHECK_EQ(qp_state_of(w.f, plain.qpn), ORCA_QPS_RTS);
	CHECK_EQ(qp_state_of(w.f, w.a.qpn), ORCA_QPS_RTS);

	/* a real entry after them still works */
	put_msg(&w, &w.a, &w.b, 8);
	CHECK_EQ(kr_post(r, w.a.qpn), nj);
	kick(&w);
	CHECK_EQ(reap(&w, c, 4), 2);
	CHECK(!c[0].status && !c[1].status);
	CHECK_EQ(rd32(&r->cons), nj + 1);
	CHECK_EQ(async_events(w.f), ev);
	kw_free(&w);
}

/* A post nobody announced nor kicked completes by the 10th heartbeat. */
static void sweep(void)
{
	struct kw w;
	struct orca_kick_ring *r;
	struct orca_cqe c[4];
	uint64_t kicks;
	unsigned int t, n = 0, at = 0;

	kw_up(&w, NULL);
	r = kr(&w);
	kicks = w.f->dev.stats.db_kicks;
	put_msg(&w, &w.a, &w.b, 64);
	CHECK_EQ(reap(&w, c, 4), 0);
	for (t = 1; t <= 10 && !at; t++) {
		orca_dev_tick(&w.f->dev);
		n += reap(&w, c + n, 4 - n);
		if (n)
			at = t;
	}
	/* one more heartbeat lets the ACK's completion through, if due */
	if (n < 2) {
		orca_dev_tick(&w.f->dev);
		n += reap(&w, c + n, 4 - n);
	}
	CHECK(at >= 1 && at <= 10);
	CHECK_EQ(n, 2);
	printf("# sweep: the unannounced post completed at heartbeat %u\n",
	       at);
	CHECK_EQ(w.f->dev.stats.db_kicks, kicks);
	CHECK_EQ(rd32(&r->cons), 0);
	CHECK_EQ(rd32(&r->prod), 0);
	kw_free(&w);
}

/*
 * Three laps of the ring and five entries more, announced one by one,
 * kicked in batches of 1 to 8 posts (the send queue's depth): every post
 * completes, in order, and the device never sees an overflow.
 */
static void wrap(void)
{
	const unsigned int total = 3 * N + 5;
	struct kw w;
	struct orca_kick_ring *r;
	struct orca_cqe c[16];
	uint64_t entries, ovf;
	uint32_t next_send = 0, next_recv = 0, sent = 0;
	unsigned int i, n, batch, bad = 0, lost = 0;
	uint8_t *s, *d;

	kw_up(&w, NULL);
	r = kr(&w);
	s = gpa(w.f, w.src);
	d = gpa(w.f, w.dst);
	entries = w.f->dev.stats.kick_entries;
	ovf = w.f->dev.stats.kick_overflows;
	for (batch = 1; sent < total; batch = batch % 8 + 1) {
		unsigned int k = batch < total - sent ? batch : total - sent;

		for (i = 0; i < k; i++) {
			/* each message says which post it is, in its slot */
			uint64_t off = (sent & 7) * 256ULL;

			memcpy(s + off, &sent, sizeof(sent));
			post_recv(w.f, &w.b, w.dst + off, 256, w.lk);
			put_send(w.f, &w.a, ORCA_WR_SEND, w.src + off,
				 4 + (sent & 63), w.lk, 0, 0);
			if (kr_post(r, w.a.qpn) != sent)
				bad++;
			sent++;
		}
		kick(&w);
		n = reap(&w, c, 16);
		if (n != 2 * k)
			lost++;
		for (i = 0; i < n && i < 16; i++) {
			uint32_t idx = le32toh(c[i].wqe_idx), got;

			if (c[i].status) {
				bad++;
			} else if (is_send(&c[i])) {
				bad += idx != next_send ||
				       le32toh(c[i].qpn) != w.a.qpn;
				next_send++;
			} else {
				memcpy(&got, d + (idx & 7) * 256, sizeof(got));
				bad += idx != next_recv || got != idx ||
				       le32toh(c[i].byte_len) !=
				       4 + (next_recv & 63);
				next_recv++;
			}
		}
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(lost, 0);
	CHECK_EQ(next_send, total);
	CHECK_EQ(next_recv, total);
	CHECK_EQ(rd32(&r->prod), total);
	CHECK_EQ(rd32(&r->cons), rd32(&r->prod));
	CHECK_EQ(rd32(&r->overflow), 0);
	CHECK_EQ(w.f->dev.stats.kick_overflows, ovf);
	CHECK_EQ(w.f->dev.stats.kick_entries, entries + total);
	kw_free(&w);
}

/*
 * With the doorbell hint (orca_hw.h): a post announced while the device
 * says it is awake needs no kick, its stop reads the ring; the stop does
 * not read an unannounced ringed QP's record; and an entry reserved but
 * not written at the stop holds back the ones after it until its poster,
 * who then reads awake == 0, kicks.
 */
static void hint(void)
{
	static const char *const sets[] = { "db_poll_us=0", NULL };
	const struct orca_db_hint *h;
	struct orca_kick_ring *r;
	struct orca_dev *d;
	struct orca_cqe c[8];
	uint64_t catches;
	uint32_t i0;
	struct kw w;

	kw_up_hint(&w, sets, HINT_BASE);
	d = &w.f->dev;
	r = kr(&w);
	h = gpa(w.f, HINT_BASE);
	catches = d->stats.db_hint_catches;
	/* the last command's doorbell woke it */
	CHECK_EQ(rd32(&h->awake), 1);

	/* awake: announced, not kicked; the stop's last pass takes it */
	put_msg(&w, &w.a, &w.b, 16);
	CHECK_EQ(kr_post(r, w.a.qpn), 0);
	CHECK_EQ(reap(&w, c, 8), 0);
	CHECK(orca_dev_idle(d));
	CHECK_EQ(reap(&w, c, 8), 2);
	CHECK_EQ(d->stats.db_hint_catches, catches + 1);
	CHECK(!orca_dev_idle(d));
	CHECK_EQ(rd32(&h->awake), 0);
	CHECK_EQ(rd32(&r->cons), 1);

	/* a ringed QP's record is not read at the stop unless named */
	kick(&w);
	CHECK_EQ(rd32(&h->awake), 1);
	put_msg(&w, &w.a, &w.b, 17);
	CHECK(!orca_dev_idle(d));
	CHECK_EQ(rd32(&h->awake), 0);
	CHECK_EQ(reap(&w, c, 8), 0);
	CHECK_EQ(kr_post(r, w.a.qpn), 1);
	kick(&w);		/* the poster read awake == 0 */
	CHECK_EQ(reap(&w, c, 8), 2);
	CHECK(!orca_dev_idle(d));

	/* entry 2 reserved, not written; entry 3 written, no kick */
	kick(&w);
	CHECK_EQ(rd32(&h->awake), 1);
	put_msg(&w, &w.a, &w.b, 18);
	i0 = kr_reserve(r);
	CHECK_EQ(i0, 2);
	put_msg(&w, &w.b, &w.a, 19);
	CHECK_EQ(kr_post(r, w.b.qpn), 3);
	CHECK(!orca_dev_idle(d));
	CHECK_EQ(reap(&w, c, 8), 0);
	CHECK_EQ(rd32(&r->cons), 2);
	/* the first poster writes its entry, finds the device asleep */
	kr_write(r, i0, w.a.qpn);
	CHECK_EQ(rd32(&h->awake), 0);
	kick(&w);
	CHECK_EQ(reap(&w, c, 8), 4);
	CHECK_EQ(rd32(&r->cons), 4);
	CHECK_EQ(rd32(&r->cons), rd32(&r->prod));
	CHECK(!orca_dev_idle(d));
	kw_free(&w);
}

/* CROWD idle QPs in RTS around the pair, ringed (@ringed) or not. */
static void crowd_up(struct kw *w, bool ringed)
{
	static struct ring_qp crowd[CROWD];
	unsigned int i, made = 0;

	for (i = 0; i < CROWD; i++) {
		make_qp_flags = ringed ? KICK : 0;
		if (!make_qp(w->f, &crowd[i], w->cq.cqn))
			break;
		made++;
		if (!connect_rc(w->f, &crowd[i], crowd[i].qpn, 0, 1))
			break;
	}
	make_qp_flags = 0;
	CHECK_EQ(made, CROWD);
}

/* The QP visits of one SEND a -> b, announced in the ring, and a kick. */
static uint64_t send_visits(struct kw *w)
{
	uint64_t v0 = w->f->dev.stats.qp_visits;
	struct orca_cqe c[4];

	put_msg(w, &w->a, &w->b, 64);
	kr_post(kr(w), w->a.qpn);
	kick(w);
	CHECK_EQ(reap(w, c, 4), 2);
	CHECK(!c[0].status && !c[1].status);
	return w->f->dev.stats.qp_visits - v0;
}

/*
 * The QP visits one announced SEND costs with CROWD idle QPs in RTS
 * around the pair, ringed (@ringed) or not.
 */
static uint64_t crowd_visits(bool ringed)
{
	struct kw w;
	uint64_t v;

	kw_up(&w, NULL);
	crowd_up(&w, ringed);
	CHECK_EQ(w.f->dev.n_qps, CROWD + 2);
	/* settle what the commands left, then one post */
	kick(&w);
	v = send_visits(&w);
	kw_free(&w);
	return v;
}

/*
 * Review finding 6: a context that marks its own ring overflowed every
 * time makes the device read the records of its own QPs, no other's.
 * With CROWD idle QPs of another context around, a SEND of that context
 * costs O(1) QP visits while the hostile ring is re-armed before it (all
 * of them, CROWD and more, when an overflow read every QP).
 */
static void hostile_ring(void)
{
	struct ring_qp mine;
	struct orca_kick_ring *h;
	uint64_t hring, v = 0, ovf;
	uint32_t hnum = 0;
	unsigned int i;
	struct kw w;

	kw_up(&w, NULL);
	crowd_up(&w, true);
	/* the hostile context: a ring and a QP of its own */
	hring = heap_alloc(PAGE);
	memset(gpa(w.f, hring), 0, PAGE);
	CHECK_EQ(create_kick_ring(w.f, hring, &hnum), 0);
	h = gpa(w.f, hring);
	make_qp_kick_ring = hnum;
	idle_qp(&w, &mine, KICK);
	make_qp_kick_ring = w.num;
	kick(&w);
	ovf = w.f->dev.stats.kick_overflows;
	for (i = 0; i < 4; i++) {
		h->overflow = htole32(1);
		v += send_visits(&w);
	}
	printf("# visits for 4 SENDs beside a ring overflowed each time, %u QPs around: %llu\n",
	       CROWD, (unsigned long long)v);
	CHECK(v < 4 * 50);
	CHECK_EQ(w.f->dev.stats.kick_overflows, ovf + 4);
	CHECK_EQ(rd32(&h->overflow), 0);
	kw_free(&w);
}

static void scale(void)
{
	uint64_t ringed = crowd_visits(true);
	uint64_t unringed = crowd_visits(false);

	printf("# visits for one SEND with %u ringed QPs around: %llu\n",
	       CROWD, (unsigned long long)ringed);
	printf("# visits for one SEND with %u unringed QPs around: %llu\n",
	       CROWD, (unsigned long long)unringed);
	CHECK(ringed < 50);
	CHECK(unringed >= CROWD);
}

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();
	RUN(commands);
	RUN(announce);
	RUN(unwritten);
	RUN(overflow);
	RUN(foreign);
	RUN(sweep);
	RUN(wrap);
	RUN(hint);
	RUN(scale);
	RUN(hostile_ring);
	return tap_done();
}
