// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the device model's transport rules (IBA Vol 1 ch. 9):
 * how the RC responder answers RDMA READs, atomics and ATOMIC WRITEs,
 * new and duplicate; what a UC or UD send error does to the QP; whose packets a
 * connected QP takes.  Request packets are handed to the responder directly and
 * its responses taken off the port's link before anyone receives them,
 * so that the test sees exactly what goes on the wire.
 */
#include <string.h>

#include "dp_fixture.h"
#include "orca_log.h"

#define MTU256		1		/* path_mtu: 256 bytes */
#define PSN0		0xfffffe	/* connect_qp()'s first PSN */

/* Take up to @max packets off the port's link, oldest first. */
static unsigned int link_take(struct fx *f, struct orca_pkt **out,
			      unsigned int max)
{
	struct orca_pkt *p;
	unsigned int n = 0;

	while (n < max && (p = f->dev.link_head)) {
		f->dev.link_head = p->next;
		if (!f->dev.link_head)
			f->dev.link_tail = NULL;
		out[n++] = p;
	}
	return n;
}

static void pkts_free(struct fx *f, struct orca_pkt **p, unsigned int n)
{
	while (n--)
		pkt_free(&f->dev, p[n]);
}

/* Let @qp's responder send everything it has to send. */
static void resp_drain(struct fx *f, uint32_t qpn)
{
	unsigned int i;

	for (i = 0; i < 64 && resp_step(&f->dev, f->dev.qps[qpn]); i++)
		;
}

/* Hand the responder of @qpn an RDMA READ request. */
static void read_req(struct fx *f, uint32_t qpn, uint32_t psn, uint64_t va,
		     uint32_t rkey, uint32_t len)
{
	struct orca_pkt *p = calloc(1, sizeof(*p));

	CHECK(p);
	p->opcode = IB_RC | IB_READ_REQ;
	p->hdrs = PKT_RETH;
	p->psn = psn & PSN_MASK;
	p->va = va;
	p->rkey = rkey;
	p->dmalen = len;
	p->dqpn = qpn;
	p->slid = f->cfg.lid;
	p->dlid = f->cfg.lid;
	resp_rx(&f->dev, f->dev.qps[qpn], p);
	free(p);
}

/* A responder QP b (@access) with a requester a, @buf registered. */
struct pair {
	struct fx *f;
	struct ring_qp a, b;
	struct ring_cq cq;
	uint64_t buf;
	uint32_t lk;
	uint8_t *data;
};

static void pair_up(struct pair *t, uint32_t access, uint8_t rd_atomic)
{
	uint32_t i;

	t->f = dp_up();
	t->buf = heap_alloc(4 * PAGE);
	t->data = gpa(t->f, t->buf);
	for (i = 0; i < 4 * PAGE; i++)
		t->data[i] = (uint8_t)(i * 31 + 7);
	CHECK_EQ(reg_mr(t->f, t->f->pdn, t->buf, 4 * PAGE,
			ORCA_ACCESS_LOCAL_WRITE | ORCA_ACCESS_REMOTE_READ |
			ORCA_ACCESS_REMOTE_WRITE | ORCA_ACCESS_REMOTE_ATOMIC,
			&t->lk), 0);
	CHECK(make_cq(t->f, &t->cq, 5));
	CHECK(make_qp(t->f, &t->a, t->cq.cqn));
	CHECK(make_qp(t->f, &t->b, t->cq.cqn));
	connect_rd_atomic = rd_atomic;
	CHECK(connect_rc(t->f, &t->a, t->b.qpn, 0, MTU256));
	CHECK(connect_rc(t->f, &t->b, t->a.qpn, access, MTU256));
	connect_rd_atomic = 1;
}

static void pair_down(struct pair *t)
{
	CHECK(canaries_ok(t->f));
	fx_free(t->f);
}

/*
 * A READ whose PSN is behind the expected one is a duplicate: the
 * responder may only answer it again as the READ it executed at that
 * PSN.  It executed none, and the QP allows no READ at all (no
 * REMOTE_READ; or max_dest_rd_atomic 0): nothing is sent, the region's
 * R_Key notwithstanding, and the QP stays as it was (class D: dropped).
 */
static void dup_read_unexecuted(void)
{
	static const struct {
		uint32_t access;
		uint8_t rd_atomic;
	} qps[] = {
		{ ORCA_ACCESS_REMOTE_WRITE, 1 },
		{ ORCA_ACCESS_REMOTE_READ, 0 },
		{ ORCA_ACCESS_REMOTE_READ, 1 },	/* allowed, never executed */
	};
	struct orca_pkt *p[4];
	struct pair t;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(qps); i++) {
		pair_up(&t, qps[i].access, qps[i].rd_atomic);
		read_req(t.f, t.b.qpn, PSN0 - 5, iova(t.buf), t.lk, 64);
		resp_drain(t.f, t.b.qpn);
		CHECK_EQ(link_take(t.f, p, 4), 0);
		CHECK_EQ(qp_state_of(t.f, t.b.qpn), ORCA_QPS_RTS);
		pair_down(&t);
	}
}

/*
 * Review finding 10, IBA 9.4.4: a DMA length is at most 2^31 bytes.  A
 * READ of more (at MTU 256 it spans 2^23 PSNs and more, half the PSN
 * space, so every PSN after it would look like its duplicate) is an
 * invalid request: NAK, the QP in error, before its R_Key is looked at
 * (a refused R_Key would NAK remote access).  2^31 itself is a READ.
 */
static void read_over_2g(void)
{
	struct orca_pkt *p[4];
	struct pair t;
	unsigned int n;

	pair_up(&t, ORCA_ACCESS_REMOTE_READ, 1);
	read_req(t.f, t.b.qpn, PSN0, iova(t.buf), t.lk, 0x80000001U);
	n = link_take(t.f, p, 4);
	CHECK_EQ(n, 1);
	if (n == 1) {
		CHECK(p[0]->hdrs & PKT_AETH);
		CHECK_EQ(p[0]->syndrome, AETH_NAK | AETH_NAK_INV_REQ);
	}
	pkts_free(t.f, p, n);
	CHECK_EQ(qp_state_of(t.f, t.b.qpn), ORCA_QPS_ERR);
	pair_down(&t);

	/* 2^31 passes that check; this region is smaller: remote access */
	pair_up(&t, ORCA_ACCESS_REMOTE_READ, 1);
	read_req(t.f, t.b.qpn, PSN0, iova(t.buf), t.lk, 0x80000000U);
	n = link_take(t.f, p, 4);
	CHECK_EQ(n, 1);
	if (n == 1)
		CHECK_EQ(p[0]->syndrome, AETH_NAK | AETH_NAK_REM_ACCESS);
	pkts_free(t.f, p, n);
	pair_down(&t);
}

/* READ from a to b through the engine: @len bytes at buf + @off. */
static void read_through(struct pair *t, uint64_t off, uint32_t len)
{
	struct orca_cqe c = {};

	post_send(t->f, &t->a, ORCA_WR_RDMA_READ, t->buf + 2 * PAGE, len,
		  t->lk, iova(t->buf) + off, t->lk);
	CHECK(poll_cqe(t->f, &t->cq, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(!memcmp(t->data + 2 * PAGE, t->data + off, len));
}

/*
 * A READ retried after lost responses asks for the part it is missing
 * under the PSN that part had: the responder sends that part again, and
 * only for a READ it executed, with the same R_Key and inside the range
 * it read.  A replay is no new message: the MSN (IBA: one per message
 * the responder executed) does not move, so the next SEND's ACK carries 2
 * (the READ, the SEND).
 */
static void dup_read_replay(void)
{
	struct orca_pkt *p[8];
	struct orca_pkt send = {};
	struct pair t;
	unsigned int n;

	pair_up(&t, ORCA_ACCESS_REMOTE_READ, 1);
	/* 4 responses, PSN0 .. PSN0 + 3 (across the wrap) */
	read_through(&t, 8, 3 * 256 + 100);

	/* the tail from the third packet on */
	read_req(t.f, t.b.qpn, PSN0 + 2, iova(t.buf) + 8 + 512, t.lk, 356);
	resp_drain(t.f, t.b.qpn);
	n = link_take(t.f, p, 8);
	CHECK_EQ(n, 2);
	if (n == 2) {
		CHECK_EQ(p[0]->opcode, IB_RC | IB_READ_RESP_FIRST);
		CHECK_EQ(p[0]->psn, (PSN0 + 2) & PSN_MASK);
		CHECK_EQ(p[0]->paylen, 256);
		CHECK(!memcmp(orca_pkt_payload(p[0]), t.data + 8 + 512, 256));
		CHECK_EQ(p[1]->opcode, IB_RC | IB_READ_RESP_LAST);
		CHECK_EQ(p[1]->psn, (PSN0 + 3) & PSN_MASK);
		CHECK_EQ(p[1]->paylen, 100);
		CHECK(!memcmp(orca_pkt_payload(p[1]), t.data + 8 + 768, 100));
	}
	pkts_free(t.f, p, n);

	/* another R_Key, past the range, before it: nothing */
	read_req(t.f, t.b.qpn, PSN0 + 2, iova(t.buf) + 8 + 512, t.lk + 1, 356);
	read_req(t.f, t.b.qpn, PSN0 + 2, iova(t.buf) + 8 + 512, t.lk, 357);
	read_req(t.f, t.b.qpn, PSN0, iova(t.buf) + 7, t.lk, 64);
	/* a PSN no READ had */
	read_req(t.f, t.b.qpn, PSN0 - 1, iova(t.buf) + 8, t.lk, 64);
	resp_drain(t.f, t.b.qpn);
	CHECK_EQ(link_take(t.f, p, 8), 0);
	CHECK_EQ(qp_state_of(t.f, t.b.qpn), ORCA_QPS_RTS);

	/* the next message, a SEND asking for its ACK */
	post_recv(t.f, &t.b, t.buf + 3 * PAGE, 64, t.lk);
	send.opcode = IB_RC | IB_SEND_ONLY;
	send.psn = (PSN0 + 4) & PSN_MASK;
	send.ackreq = true;
	send.paylen = 8;
	send.dqpn = t.b.qpn;
	send.slid = send.dlid = t.f->cfg.lid;
	resp_rx(&t.f->dev, t.f->dev.qps[t.b.qpn], &send);
	n = link_take(t.f, p, 8);
	CHECK_EQ(n, 1);
	if (n == 1) {
		CHECK_EQ(p[0]->opcode, IB_RC | IB_ACK);
		CHECK_EQ(p[0]->psn, (PSN0 + 4) & PSN_MASK);
		CHECK_EQ(p[0]->msn, 2);
		/* an ACK, credit field 0x1f: no credit count (IBTA 9.7.7.2.1) */
		CHECK_EQ(p[0]->syndrome, 0x1f);
	}
	pkts_free(t.f, p, n);
	pair_down(&t);
}

/*
 * max_dest_rd_atomic 2: a second READ that arrives while the first is
 * still being answered is answered after it, PSN after PSN; a third
 * while both are outstanding is more than the responder offered, an
 * invalid request (NAK, the QP ends).
 */
static void read_queue(void)
{
	struct orca_pkt *p[8];
	struct pair t;
	unsigned int n;

	pair_up(&t, ORCA_ACCESS_REMOTE_READ, 2);
	read_req(t.f, t.b.qpn, PSN0, iova(t.buf), t.lk, 600);	/* 3 */
	resp_step(&t.f->dev, t.f->dev.qps[t.b.qpn]);		/* one out */
	read_req(t.f, t.b.qpn, PSN0 + 3, iova(t.buf) + PAGE, t.lk, 100);
	resp_drain(t.f, t.b.qpn);
	n = link_take(t.f, p, 8);
	CHECK_EQ(n, 4);
	if (n == 4) {
		CHECK_EQ(p[0]->opcode, IB_RC | IB_READ_RESP_FIRST);
		CHECK_EQ(p[1]->opcode, IB_RC | IB_READ_RESP_MIDDLE);
		CHECK_EQ(p[2]->opcode, IB_RC | IB_READ_RESP_LAST);
		CHECK_EQ(p[3]->opcode, IB_RC | IB_READ_RESP_ONLY);
		CHECK_EQ(p[0]->psn, PSN0);
		CHECK_EQ(p[2]->psn, (PSN0 + 2) & PSN_MASK);
		CHECK_EQ(p[3]->psn, (PSN0 + 3) & PSN_MASK);
		CHECK(!memcmp(orca_pkt_payload(p[2]), t.data + 512, 88));
		CHECK(!memcmp(orca_pkt_payload(p[3]), t.data + PAGE, 100));
	}
	pkts_free(t.f, p, n);

	/* two outstanding, then a third */
	read_req(t.f, t.b.qpn, PSN0 + 4, iova(t.buf), t.lk, 600);
	read_req(t.f, t.b.qpn, PSN0 + 7, iova(t.buf), t.lk, 8);
	read_req(t.f, t.b.qpn, PSN0 + 8, iova(t.buf), t.lk, 8);
	n = link_take(t.f, p, 8);	/* before a command runs the engine */
	CHECK_EQ(n, 1);
	if (n == 1) {
		CHECK_EQ(p[0]->opcode, IB_RC | IB_ACK);
		CHECK_EQ(p[0]->syndrome, AETH_NAK | AETH_NAK_INV_REQ);
		CHECK_EQ(p[0]->psn, (PSN0 + 8) & PSN_MASK);
	}
	pkts_free(t.f, p, n);
	CHECK_EQ(qp_state_of(t.f, t.b.qpn), ORCA_QPS_ERR);
	pair_down(&t);
}

/* Hand the responder of @qpn a FETCH_ADD of @add at @va. */
static void fetch_add_req(struct fx *f, uint32_t qpn, uint32_t psn,
			  uint64_t va, uint32_t rkey, uint64_t add)
{
	struct orca_pkt *p = calloc(1, sizeof(*p));

	CHECK(p);
	p->opcode = IB_RC | IB_FETCH_ADD;
	p->hdrs = PKT_ATOMIC;
	p->psn = psn & PSN_MASK;
	p->va = va;
	p->rkey = rkey;
	p->swap_add = add;
	p->dqpn = qpn;
	p->slid = p->dlid = f->cfg.lid;
	resp_rx(&f->dev, f->dev.qps[qpn], p);
	free(p);
}

/*
 * An atomic is executed once: a duplicate of any atomic the responder
 * still remembers (max_dest_rd_atomic 2 here: the last two) gets the
 * original value it found then, and memory is not touched again.
 */
static void dup_atomic_replay(void)
{
	struct orca_pkt *p[4];
	struct pair t;
	uint64_t *v;
	unsigned int n;

	pair_up(&t, ORCA_ACCESS_REMOTE_ATOMIC, 2);
	v = gpa(t.f, t.buf + 64);
	*v = 100;
	fetch_add_req(t.f, t.b.qpn, PSN0, iova(t.buf) + 64, t.lk, 1);
	fetch_add_req(t.f, t.b.qpn, PSN0 + 1, iova(t.buf) + 64, t.lk, 10);
	resp_drain(t.f, t.b.qpn);
	pkts_free(t.f, p, link_take(t.f, p, 4));
	CHECK_EQ(*v, 111);
	/* the first one again: 100 as then, nothing added */
	fetch_add_req(t.f, t.b.qpn, PSN0, iova(t.buf) + 64, t.lk, 1);
	resp_drain(t.f, t.b.qpn);
	n = link_take(t.f, p, 4);
	CHECK_EQ(n, 1);
	if (n == 1) {
		CHECK_EQ(p[0]->opcode, IB_RC | IB_ATOMIC_ACK);
		CHECK_EQ(p[0]->psn, PSN0);
		CHECK_EQ(p[0]->orig, 100);
	}
	pkts_free(t.f, p, n);
	CHECK_EQ(*v, 111);
	pair_down(&t);
}

/* Hand the responder of @qpn an ATOMIC WRITE of the 8 bytes @v at @va. */
static void atomic_write_req(struct fx *f, uint32_t qpn, uint32_t psn,
			     uint64_t va, uint32_t rkey, const uint8_t *v)
{
	struct orca_pkt *p = calloc(1, sizeof(*p));

	CHECK(p);
	p->opcode = IB_RC | IB_ATOMIC_WRITE;
	p->hdrs = PKT_RETH;
	p->psn = psn & PSN_MASK;
	p->va = va;
	p->rkey = rkey;
	p->dmalen = 8;
	memcpy(p->payload, v, 8);
	p->paylen = 8;
	p->dqpn = qpn;
	p->slid = p->dlid = f->cfg.lid;
	resp_rx(&f->dev, f->dev.qps[qpn], p);
	free(p);
}

/*
 * IBA 1.5 ATOMIC WRITE on the wire: answered with an RDMA READ response
 * of no data (AETH, the MSN of the request); a duplicate is answered
 * again and not executed again, so a write of other data since stays.
 */
static void atomic_write_replay(void)
{
	static const uint8_t one[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t two[8] = { 0xf1, 0xf2, 0xf3, 0xf4,
					0xf5, 0xf6, 0xf7, 0xf8 };
	struct orca_pkt *p[4];
	struct pair t;
	unsigned int n;

	pair_up(&t, ORCA_ACCESS_REMOTE_WRITE, 2);
	atomic_write_req(t.f, t.b.qpn, PSN0, iova(t.buf) + 64, t.lk, one);
	resp_drain(t.f, t.b.qpn);
	n = link_take(t.f, p, 4);
	CHECK_EQ(n, 1);
	if (n == 1) {
		CHECK_EQ(p[0]->opcode, IB_RC | IB_READ_RESP_ONLY);
		CHECK_EQ(p[0]->psn, PSN0);
		CHECK_EQ(p[0]->paylen, 0);
		CHECK_EQ(p[0]->syndrome, 0x1f);
		CHECK_EQ(p[0]->msn, 1);
	}
	pkts_free(t.f, p, n);
	CHECK(!memcmp(t.data + 64, one, 8));
	atomic_write_req(t.f, t.b.qpn, PSN0 + 1, iova(t.buf) + 64, t.lk, two);
	resp_drain(t.f, t.b.qpn);
	pkts_free(t.f, p, link_take(t.f, p, 4));
	CHECK(!memcmp(t.data + 64, two, 8));
	/* the first again: its answer, and the second's bytes stay */
	atomic_write_req(t.f, t.b.qpn, PSN0, iova(t.buf) + 64, t.lk, one);
	resp_drain(t.f, t.b.qpn);
	n = link_take(t.f, p, 4);
	CHECK_EQ(n, 1);
	if (n == 1) {
		CHECK_EQ(p[0]->opcode, IB_RC | IB_READ_RESP_ONLY);
		CHECK_EQ(p[0]->psn, PSN0);
		CHECK_EQ(p[0]->paylen, 0);
	}
	pkts_free(t.f, p, n);
	CHECK(!memcmp(t.data + 64, two, 8));
	/* one at another address under that PSN is no duplicate of it */
	atomic_write_req(t.f, t.b.qpn, PSN0, iova(t.buf) + 128, t.lk, one);
	resp_drain(t.f, t.b.qpn);
	CHECK_EQ(link_take(t.f, p, 4), 0);
	CHECK(memcmp(t.data + 128, one, 8));
	CHECK_EQ(qp_state_of(t.f, t.b.qpn), ORCA_QPS_RTS);
	pair_down(&t);
}

/*
 * Post an ATOMIC WRITE of @v from a to b at @raddr (@rkey): the WQE
 * carries the 8 bytes in compare_add; @sge leaves put_send()'s SGE in.
 */
static void atomic_write_post(struct pair *t, uint64_t raddr, uint32_t rkey,
			      const uint8_t *v, bool sge)
{
	struct orca_send_wqe *w;

	w = gpa(t->f, t->a.base +
		((uint64_t)(t->a.sq_pi & 7) << SQ_LOG_STRIDE));
	put_send(t->f, &t->a, ORCA_WR_ATOMIC_WRITE, t->buf + 3 * PAGE, 8,
		 t->lk, raddr, rkey);
	w->num_sge = sge;
	memcpy(&w->compare_add, v, 8);
	orca_dev_doorbell(&t->f->dev, ORCA_FW_VEC_DB);
}

/*
 * ATOMIC WRITE through the engine: the 8 bytes land, nothing around
 * them changes, the CQE says ATOMIC_WRITE.  Refused: misaligned, on a
 * QP without REMOTE_WRITE (invalid request at the responder), with a
 * region without it (remote access), with an SGE or on a device without
 * the capability (local QP operation errors); the memory stays.
 */
static void atomic_write_through(void)
{
	static const uint8_t v[8] = { 0x11, 0x22, 0x33, 0x44,
				      0x55, 0x66, 0x77, 0x88 };
	static const struct {
		const char *what;
		uint32_t access;	/* b's QP */
		bool ro_region, sge, no_cap;
		uint64_t off;
		uint8_t status;
	} cases[] = {
		{ "8 bytes at 64", ORCA_ACCESS_REMOTE_WRITE, false, false,
		  false, 64, ORCA_CQE_SUCCESS },
		{ "misaligned", ORCA_ACCESS_REMOTE_WRITE, false, false, false,
		  68, ORCA_CQE_REM_INV_REQ_ERR },
		{ "QP without REMOTE_WRITE", ORCA_ACCESS_REMOTE_READ |
		  ORCA_ACCESS_REMOTE_ATOMIC, false, false, false, 64,
		  ORCA_CQE_REM_INV_REQ_ERR },
		{ "region without REMOTE_WRITE", ORCA_ACCESS_REMOTE_WRITE,
		  true, false, false, 64, ORCA_CQE_REM_ACCESS_ERR },
		{ "with an SGE", ORCA_ACCESS_REMOTE_WRITE, false, true, false,
		  64, ORCA_CQE_LOC_QP_OP_ERR },
		{ "no capability", ORCA_ACCESS_REMOTE_WRITE, false, false,
		  true, 64, ORCA_CQE_LOC_QP_OP_ERR },
	};
	uint8_t before[4 * PAGE];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct orca_cqe c = {};
		uint32_t rkey;
		struct pair t;

		pair_up(&t, cases[i].access, 1);
		rkey = t.lk;
		if (cases[i].ro_region)
			CHECK_EQ(reg_mr(t.f, t.f->pdn, t.buf, PAGE,
					ORCA_ACCESS_LOCAL_WRITE |
					ORCA_ACCESS_REMOTE_READ, &rkey), 0);
		if (cases[i].no_cap)
			t.f->dev.cfg.dev_caps &= ~(uint64_t)ORCA_DEV_CAP_ATOMIC_WRITE;
		memcpy(before, t.data, sizeof(before));
		atomic_write_post(&t, iova(t.buf) + cases[i].off, rkey, v,
				  cases[i].sge);
		CHECK(poll_cqe(t.f, &t.cq, &c));
		printf("# %s: status %u opcode %u\n", cases[i].what, c.status,
		       c.opcode);
		CHECK_EQ(c.status, cases[i].status);
		CHECK_EQ(le32toh(c.qpn), t.a.qpn);
		if (cases[i].status == ORCA_CQE_SUCCESS) {
			CHECK_EQ(c.opcode, ORCA_CQE_OP_ATOMIC_WRITE);
			memcpy(before + cases[i].off, v, 8);
		}
		CHECK(!memcmp(t.data, before, sizeof(before)));
		pair_down(&t);
	}
}

static uint8_t mirror_state(struct fx *f, uint32_t qpn)
{
	const struct orca_qp_mirror *m = gpa(f, MIRROR_BASE +
					     qpn * sizeof(*m));

	return m->state;
}

/* MODIFY_QP @qpn to @state, no other attribute. */
static int modify_state(struct fx *f, uint32_t qpn, uint8_t state)
{
	struct orca_modify_qp_in in = {};
	struct orca_qp_ctx out;

	in.qpn = htole32(qpn);
	in.attr_mask = htole32(ORCA_QP_STATE);
	in.ctx.state = state;
	return fx_cmd(f, ORCA_CMD_MODIFY_QP, &in, sizeof(in), &out,
		      sizeof(out));
}

/* Poll one CQE: of @qpn, send (@sq) or receive, with @status. */
static void expect_cqe(struct fx *f, struct ring_cq *cq, uint32_t qpn,
		       bool sq, uint32_t idx, uint8_t status)
{
	struct orca_cqe c = {};

	CHECK(poll_cqe(f, cq, &c));
	CHECK_EQ(le32toh(c.qpn), qpn);
	CHECK_EQ(!!(c.flags & ORCA_CQE_F_SQ), sq);
	CHECK_EQ(le32toh(c.wqe_idx), idx);
	CHECK_EQ(c.status, status);
}

/*
 * IBA ch. 10 (QP states): a UC or UD QP whose send WR completes in error
 * enters SQE, Send Queue Error.  That WR's CQE carries the error, the
 * send WRs queued behind it are flushed, the receive queue is left alone
 * and keeps working, and SQE -> RTS lets the QP send again.  The QP
 * mirror, which the driver reads, says SQE.
 */
static void uc_send_error_sqe(void)
{
	struct fx *f = dp_up();
	uint64_t buf = heap_alloc(PAGE);
	struct ring_qp a, b;
	struct ring_cq cq;
	struct orca_cqe c;
	uint32_t lk;

	CHECK_EQ(reg_mr(f, f->pdn, buf, PAGE, ORCA_ACCESS_LOCAL_WRITE, &lk), 0);
	CHECK(make_cq(f, &cq, 5));
	make_qp_type = ORCA_QPT_UC;
	CHECK(make_qp(f, &a, cq.cqn) && make_qp(f, &b, cq.cqn));
	make_qp_type = ORCA_QPT_RC;
	CHECK(connect_uc(f, &a, b.qpn) && connect_uc(f, &b, a.qpn));
	post_recv(f, &a, buf + 1024, 64, lk);
	post_recv(f, &b, buf + 2048, 64, lk);

	/* a stale lkey, and a good SEND behind it */
	put_send(f, &a, ORCA_WR_SEND, buf, 16, lk ^ 0xff, 0, 0);
	post_send(f, &a, ORCA_WR_SEND, buf, 16, lk, 0, 0);
	expect_cqe(f, &cq, a.qpn, true, 0, ORCA_CQE_LOC_PROT_ERR);
	expect_cqe(f, &cq, a.qpn, true, 1, ORCA_CQE_WR_FLUSH_ERR);
	CHECK(!poll_cqe(f, &cq, &c));		/* a's receive is still posted */
	CHECK_EQ(qp_state_of(f, a.qpn), ORCA_QPS_SQE);
	CHECK_EQ(mirror_state(f, a.qpn), ORCA_QPS_SQE);
	CHECK_EQ(qp_state_of(f, b.qpn), ORCA_QPS_RTS);

	/* a still receives */
	post_send(f, &b, ORCA_WR_SEND, buf, 16, lk, 0, 0);
	expect_cqe(f, &cq, b.qpn, true, 0, ORCA_CQE_SUCCESS);
	expect_cqe(f, &cq, a.qpn, false, 0, ORCA_CQE_SUCCESS);

	/* SQE -> RTS: a sends again */
	CHECK_EQ(modify_state(f, a.qpn, ORCA_QPS_RTS), 0);
	CHECK_EQ(mirror_state(f, a.qpn), ORCA_QPS_RTS);
	post_send(f, &a, ORCA_WR_SEND, buf, 16, lk, 0, 0);
	expect_cqe(f, &cq, a.qpn, true, 2, ORCA_CQE_SUCCESS);
	expect_cqe(f, &cq, b.qpn, false, 0, ORCA_CQE_SUCCESS);
	CHECK(!poll_cqe(f, &cq, &c));
	CHECK(canaries_ok(f));
	fx_free(f);
}

/* A UD SEND of 16 bytes to @dqpn through address handle @ahn. */
static void ud_post(struct fx *f, struct ring_qp *q, uint64_t buf,
		    uint32_t lk, uint32_t ahn, uint32_t dqpn)
{
	struct orca_send_wqe *w = gpa(f, q->base + ((uint64_t)(q->sq_pi & 7)
						   << SQ_LOG_STRIDE));

	put_send(f, q, ORCA_WR_SEND, buf, 16, lk, 0, 0);
	w->ud_ah = htole32(ahn);
	w->ud_remote_qpn = htole32(dqpn);
	w->ud_remote_qkey = htole32(0x1234);
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_DB);
}

/* The same for UD: an address handle that does not exist. */
static void ud_send_error_sqe(void)
{
	struct fx *f = dp_up();
	uint64_t buf = heap_alloc(PAGE);
	struct orca_create_ah_in ai = {};
	struct orca_ah_handle ah = {};
	struct ring_qp u, v;
	struct ring_cq cq;
	struct orca_cqe c;
	uint32_t lk;

	CHECK_EQ(reg_mr(f, f->pdn, buf, PAGE, ORCA_ACCESS_LOCAL_WRITE, &lk), 0);
	CHECK(make_cq(f, &cq, 5));
	make_qp_type = ORCA_QPT_UD;
	CHECK(make_qp(f, &u, cq.cqn) && make_qp(f, &v, cq.cqn));
	make_qp_type = ORCA_QPT_RC;
	ud_rts(f, &u);
	ud_rts(f, &v);
	ai.pdn = htole32(f->pdn);
	ai.av.port = 1;
	ai.av.dlid = htole16(f->cfg.lid);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_CREATE_AH, &ai, sizeof(ai), &ah,
			sizeof(ah)), 0);
	post_recv(f, &u, buf + 1024, 256, lk);

	ud_post(f, &u, buf, lk, le32toh(ah.ahn) + 1, v.qpn);
	expect_cqe(f, &cq, u.qpn, true, 0, ORCA_CQE_LOC_QP_OP_ERR);
	CHECK(!poll_cqe(f, &cq, &c));
	CHECK_EQ(qp_state_of(f, u.qpn), ORCA_QPS_SQE);
	CHECK_EQ(mirror_state(f, u.qpn), ORCA_QPS_SQE);

	/* its receive queue works: v sends to it */
	ud_post(f, &v, buf, lk, le32toh(ah.ahn), u.qpn);
	expect_cqe(f, &cq, v.qpn, true, 0, ORCA_CQE_SUCCESS);
	expect_cqe(f, &cq, u.qpn, false, 0, ORCA_CQE_SUCCESS);

	CHECK_EQ(modify_state(f, u.qpn, ORCA_QPS_RTS), 0);
	post_recv(f, &v, buf + 2048, 256, lk);
	ud_post(f, &u, buf, lk, le32toh(ah.ahn), v.qpn);
	expect_cqe(f, &cq, u.qpn, true, 1, ORCA_CQE_SUCCESS);
	expect_cqe(f, &cq, v.qpn, false, 0, ORCA_CQE_SUCCESS);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/* A UD SEND of 16 bytes whose WQE carries its address vector @av. */
static void ud_post_av(struct fx *f, struct ring_qp *q, uint64_t buf,
		       uint32_t lk, const struct orca_av *av, uint32_t dqpn)
{
	ud_send_av(f, q, buf, 16, lk, av, dqpn, 0x1234, 0);
}

/*
 * ORCA_WQE_F_UD_AV: on a QP created with ORCA_QP_CREATE_UD_AV a send WQE
 * carries its address vector after the header and reaches the port it
 * names, with the SGE after it; a bad vector, or one on any other QP, is
 * refused like a bad address handle.
 */
static void ud_av_in_wqe(void)
{
	struct fx *f = dp_up();
	uint64_t buf = heap_alloc(PAGE);
	uint8_t *b = gpa(f, buf);
	struct orca_create_qp_in in = {};
	struct orca_av av = { .port = 1 };
	struct ring_qp u, v;
	struct ring_cq cq;
	struct orca_cqe c;
	uint32_t lk;

	CHECK_EQ(reg_mr(f, f->pdn, buf, PAGE, ORCA_ACCESS_LOCAL_WRITE, &lk), 0);
	memcpy(b, "sixteen bytes ok", 16);
	CHECK(make_cq(f, &cq, 5));
	make_qp_type = ORCA_QPT_UD;
	make_qp_flags = ORCA_QP_CREATE_UD_AV;
	CHECK(make_qp(f, &u, cq.cqn));
	make_qp_flags = 0;
	CHECK(make_qp(f, &v, cq.cqn));
	make_qp_type = ORCA_QPT_RC;
	ud_rts(f, &u);
	ud_rts(f, &v);
	av.dlid = htole16(f->cfg.lid);

	post_recv(f, &v, buf + 1024, 256, lk);
	ud_post_av(f, &u, buf, lk, &av, v.qpn);
	expect_cqe(f, &cq, u.qpn, true, 0, ORCA_CQE_SUCCESS);
	CHECK(poll_cqe(f, &cq, &c));
	CHECK_EQ(le32toh(c.qpn), v.qpn);
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK_EQ(le32toh(c.byte_len), 40 + 16);
	CHECK_EQ(le32toh(c.src_qp), u.qpn);
	CHECK(!memcmp(b + 1024 + 40, "sixteen bytes ok", 16));

	/* a QP without the flag: the vector is refused, the QP to SQE */
	ud_post_av(f, &v, buf, lk, &av, u.qpn);
	expect_cqe(f, &cq, v.qpn, true, 0, ORCA_CQE_LOC_QP_OP_ERR);
	CHECK_EQ(qp_state_of(f, v.qpn), ORCA_QPS_SQE);
	/* a vector CREATE_AH would refuse: SL 16 */
	av.sl = 16;
	ud_post_av(f, &u, buf, lk, &av, v.qpn);
	expect_cqe(f, &cq, u.qpn, true, 1, ORCA_CQE_LOC_QP_OP_ERR);
	CHECK(!poll_cqe(f, &cq, &c));

	/* only UD QPs take the flag */
	in.qp_type = ORCA_QPT_RC;
	in.pdn = htole32(f->pdn);
	in.send_cqn = in.recv_cqn = htole32(cq.cqn);
	in.create_flags = htole32(ORCA_QP_CREATE_UD_AV);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_CREATE_QP, &in, sizeof(in), NULL, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/* A SEND_ONLY from @slid (and @sgid, if not NULL) off the fabric. */
static void send_from(struct fx *f, uint32_t qpn, uint32_t psn,
		      uint16_t slid, const uint8_t *sgid)
{
	struct orca_pkt *p = pkt_alloc(&f->dev);

	CHECK(p);
	if (!p)
		return;
	p->opcode = IB_RC | IB_SEND_ONLY;
	p->psn = psn & PSN_MASK;
	p->paylen = 8;
	p->dqpn = qpn;
	p->pkey = 0xffff;
	p->slid = slid;
	p->dlid = f->cfg.lid;
	if (sgid) {
		p->hdrs |= PKT_GRH;
		memcpy(p->sgid, sgid, 16);
		orca_gid_entry(&f->cfg, 0, p->dgid);
	}
	wire_rx(&f->dev, p);
}

/* The device's statistics say @kv (as "key=value"). */
static bool stats_say(struct fx *f, const char *kv)
{
	static char buf[8192];
	size_t n = strlen(kv);
	const char *at;

	orca_dev_format_stats(&f->dev, buf, sizeof(buf));
	for (at = strstr(buf, kv); at; at = strstr(at + 1, kv))
		if ((at == buf || at[-1] == ' ') &&
		    (at[n] == ' ' || at[n] == '\0'))
			return true;
	return false;
}

/*
 * A connected QP takes packets from its peer only (IBA: from the port at
 * the other end of its path): a SEND with another SLID, or with a GRH
 * whose SGID is not the path's DGID, is dropped and counted; the same
 * SEND from the peer arrives.
 */
static void peer_check(void)
{
	static const uint8_t stranger[16] = { 0xfe, 0x80, [15] = 0x99 };
	struct orca_cqe c = {};
	struct orca_cfg cfg;
	uint64_t dropped;
	char err[128];
	uint8_t gid[16];
	struct pair t;
	uint16_t lid;

	pair_up(&t, 0, 1);
	lid = t.f->cfg.lid;
	post_recv(t.f, &t.b, t.buf, 64, t.lk);
	dropped = t.f->dev.stats.pkts_dropped;
	send_from(t.f, t.b.qpn, PSN0, lid + 1, NULL);
	CHECK(!poll_cqe(t.f, &t.cq, &c));
	CHECK_EQ(t.f->dev.stats.pkts_dropped, dropped + 1);
	CHECK(stats_say(t.f, "peer_drops=1"));
	send_from(t.f, t.b.qpn, PSN0, lid, NULL);
	CHECK(poll_cqe(t.f, &t.cq, &c));
	CHECK_EQ(le32toh(c.qpn), t.b.qpn);
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	pair_down(&t);

	/* a path with a GRH (to the port's own GID): the SGID counts too */
	orca_cfg_defaults(&cfg);
	CHECK_EQ(orca_cfg_finalize(&cfg, err, sizeof(err)), 0);
	orca_gid_entry(&cfg, 0, gid);
	connect_dgid = gid;
	pair_up(&t, 0, 1);
	connect_dgid = NULL;
	post_recv(t.f, &t.b, t.buf, 64, t.lk);
	send_from(t.f, t.b.qpn, PSN0, lid, stranger);
	CHECK(!poll_cqe(t.f, &t.cq, &c));
	CHECK(stats_say(t.f, "peer_drops=1"));
	send_from(t.f, t.b.qpn, PSN0, lid, gid);
	CHECK(poll_cqe(t.f, &t.cq, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	pair_down(&t);
}

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();
	RUN(dup_read_unexecuted);
	RUN(dup_read_replay);
	RUN(read_queue);
	RUN(dup_atomic_replay);
	RUN(atomic_write_replay);
	RUN(atomic_write_through);
	RUN(uc_send_error_sqe);
	RUN(ud_send_error_sqe);
	RUN(ud_av_in_wqe);
	RUN(peer_check);
	RUN(read_over_2g);
	return tap_done();
}
