// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the device model's transport rules (IBA Vol 1 ch. 9):
 * how the RC responder answers RDMA READs and atomics, new and
 * duplicate.  Request packets are handed to the responder directly and
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
		CHECK(!memcmp(p[0]->payload, t.data + 8 + 512, 256));
		CHECK_EQ(p[1]->opcode, IB_RC | IB_READ_RESP_LAST);
		CHECK_EQ(p[1]->psn, (PSN0 + 3) & PSN_MASK);
		CHECK_EQ(p[1]->paylen, 100);
		CHECK(!memcmp(p[1]->payload, t.data + 8 + 768, 100));
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
		CHECK(!memcmp(p[2]->payload, t.data + 512, 88));
		CHECK(!memcmp(p[3]->payload, t.data + PAGE, 100));
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

int main(int argc, char **argv)
{
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();
	RUN(dup_read_unexecuted);
	RUN(dup_read_replay);
	RUN(read_queue);
	RUN(dup_atomic_replay);
	return tap_done();
}
