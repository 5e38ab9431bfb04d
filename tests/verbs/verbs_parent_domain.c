// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Parent and thread domains (ibv_alloc_parent_domain(3), ibv_alloc_td(3))
 * on one port, an RC QP connected to itself:
 *
 *  1. a parent domain with allocators: the QP's and the extended CQ's
 *     queue buffers come from them (each asked once, with its
 *     pd_context, the page size as alignment and the buffer's type), and
 *     the device moves a message through them, byte for byte; an MR and
 *     the QP in the parent domain work as in its protection domain;
 *  2. neither domain goes while it is used (EBUSY): the protection
 *     domain while a parent domain names it, the parent domain while
 *     buffers of its allocator live; each buffer is given back to its
 *     free() once, with its type, when its object is destroyed;
 *  3. an allocator that answers IBV_ALLOCATOR_USE_DEFAULT: the provider
 *     allocates, traffic flows, free() is never called; one that
 *     answers NULL: the QP is refused with ENOMEM;
 *  4. a thread domain in a parent domain: its QP carries traffic; the
 *     thread domain is busy while the parent domain names it;
 *  5. refused: a parent domain of a parent domain (EINVAL), an unknown
 *     comp_mask bit (EOPNOTSUPP), an extended CQ whose parent_domain is
 *     a protection domain (EINVAL).
 *
 *   verbs_parent_domain [-d orca0]
 */
#include <stdlib.h>
#include <unistd.h>

#include "common.h"
#include "self_rc.h"

#define MSG	4096
#define MAXBUF	16

/* what the allocators were asked, in order */
struct ledger {
	int mode;			/* 0 ours, 1 USE_DEFAULT, 2 NULL */
	int allocs, frees;
	struct {
		void *ptr;
		size_t size, alignment;
		uint64_t type;
		bool freed;
		bool right_pd;
	} buf[MAXBUF];
	struct ibv_pd *parent;		/* what they must be called with */
	bool free_unknown;		/* free() of a pointer not given */
};

static void *ledger_alloc(struct ibv_pd *pd, void *pd_context, size_t size,
			  size_t alignment, uint64_t resource_type)
{
	struct ledger *l = pd_context;
	void *p = NULL;

	if (l->mode == 1)
		return IBV_ALLOCATOR_USE_DEFAULT;
	if (l->mode == 2 || l->allocs == MAXBUF ||
	    posix_memalign(&p, alignment, size))
		return NULL;
	l->buf[l->allocs].ptr = p;
	l->buf[l->allocs].size = size;
	l->buf[l->allocs].alignment = alignment;
	l->buf[l->allocs].type = resource_type;
	l->buf[l->allocs].right_pd = pd == l->parent;
	l->allocs++;
	return p;
}

static void ledger_free(struct ibv_pd *pd, void *pd_context, void *ptr,
			uint64_t resource_type)
{
	struct ledger *l = pd_context;
	int i;

	(void)pd;
	for (i = 0; i < l->allocs; i++)
		if (l->buf[i].ptr == ptr && !l->buf[i].freed &&
		    l->buf[i].type == resource_type) {
			l->buf[i].freed = true;
			l->frees++;
			free(ptr);
			return;
		}
	l->free_unknown = true;
}

static struct ibv_context *ctx;
static struct ibv_port_attr port;

static struct ibv_pd *parent_domain(struct ibv_pd *pd, struct ibv_td *td,
				    struct ledger *l)
{
	struct ibv_parent_domain_init_attr a = {
		.pd = pd, .td = td,
		.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT,
		.alloc = ledger_alloc, .free = ledger_free, .pd_context = l,
	};
	struct ibv_pd *p;

	if (!l)
		a.comp_mask = 0;
	p = ibv_alloc_parent_domain(ctx, &a);
	if (l)
		l->parent = p;
	return p;
}

static struct ibv_cq_ex *cq_in(struct ibv_pd *parent)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = 64, .wc_flags = IBV_WC_STANDARD_FLAGS,
		.comp_mask = parent ? IBV_CQ_INIT_ATTR_MASK_PD : 0,
		.parent_domain = parent,
	};

	return ibv_create_cq_ex(ctx, &a);
}

static struct ibv_qp *qp_in(struct ibv_pd *pd, struct ibv_cq_ex *cq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = ibv_cq_ex_to_cq(cq), .recv_cq = ibv_cq_ex_to_cq(cq),
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(pd, &init);
}

/* A SEND from the QP to itself through @pd's MR; 0 if it arrived whole. */
static int loop_message(struct ibv_pd *pd, struct ibv_qp *qp,
			struct ibv_cq_ex *cq)
{
	static uint8_t src[MSG], dst[MSG];
	struct ibv_mr *mr_src, *mr_dst;
	struct ibv_wc wc[2];
	long long end;
	int i, got = 0, bad = 0, err;

	for (i = 0; i < MSG; i++)
		src[i] = (uint8_t)(i * 13 + 5);
	memset(dst, 0, sizeof(dst));
	mr_src = ibv_reg_mr(pd, src, MSG, IBV_ACCESS_LOCAL_WRITE);
	mr_dst = ibv_reg_mr(pd, dst, MSG, IBV_ACCESS_LOCAL_WRITE);
	if (!mr_src || !mr_dst) {
		diag("reg_mr: %s", strerror(errno));
		return -1;
	}
	err = self_rc_to_rts(qp, &port);
	if (!err) {
		struct ibv_sge rs = { (uintptr_t)dst, MSG, mr_dst->lkey };
		struct ibv_sge ss = { (uintptr_t)src, MSG, mr_src->lkey };
		struct ibv_recv_wr rwr = { .wr_id = 1, .sg_list = &rs,
					   .num_sge = 1 }, *rbad;
		struct ibv_send_wr swr = { .wr_id = 2, .sg_list = &ss,
					   .num_sge = 1, .opcode = IBV_WR_SEND,
					   .send_flags = IBV_SEND_SIGNALED },
				   *sbad;

		err = ibv_post_recv(qp, &rwr, &rbad) ?:
		      ibv_post_send(qp, &swr, &sbad);
	}
	for (end = now_ms() + wait_ms(); !err && got < 2 && now_ms() < end;) {
		int n = ibv_poll_cq(ibv_cq_ex_to_cq(cq), 2 - got, wc + got);

		if (n < 0)
			err = EIO;
		for (i = got; i < got + n; i++)
			bad += wc[i].status != IBV_WC_SUCCESS;
		got += n > 0 ? n : 0;
		if (!n)
			sleep_ms(1);
	}
	ibv_dereg_mr(mr_src);
	ibv_dereg_mr(mr_dst);
	if (err || got != 2 || bad) {
		diag("self RC: err %s, %d completions, %d bad", err_str(err),
		     got, bad);
		return -1;
	}
	return memcmp(src, dst, MSG) ? -1 : 0;
}

static int find_type(const struct ledger *l, uint64_t type)
{
	int i, n = 0;

	for (i = 0; i < l->allocs; i++)
		n += l->buf[i].type == type;
	return n;
}

/* The first buffer of @type asked for (0 if none: checked before). */
static int index_of(const struct ledger *l, uint64_t type)
{
	int i;

	for (i = 0; i < l->allocs; i++)
		if (l->buf[i].type == type)
			return i;
	return 0;
}

static void with_allocators(struct ibv_pd *pd)
{
	long page = sysconf(_SC_PAGESIZE);
	static struct ledger l;
	struct ibv_pd *parent;
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	bool aligned = true, right_pd = true;
	int i, e1, e2;

	parent = parent_domain(pd, NULL, &l);
	if (!ok(parent != NULL, "ibv_alloc_parent_domain with allocators: %s",
		parent ? "made" : strerror(errno)))
		return;
	cq = cq_in(parent);
	qp = cq ? qp_in(parent, cq) : NULL;
	if (!ok(cq && qp, "an extended CQ and an RC QP in the parent domain: %s",
		cq && qp ? "made" : strerror(errno)))
		return;
	for (i = 0; i < l.allocs; i++) {
		aligned &= l.buf[i].alignment == (size_t)page &&
			   !((uintptr_t)l.buf[i].ptr % page) &&
			   l.buf[i].size >= (size_t)page;
		right_pd &= l.buf[i].right_pd;
	}
	/* the provider's types: 1 QP, 3 CQ (README "Parent domains") */
	ok(l.allocs == 2 && find_type(&l, 1) == 1 && find_type(&l, 3) == 1 &&
	   aligned && right_pd,
	   "their queue buffers from the allocator: %d asked (QP %d, CQ %d), page-aligned, with the parent domain and its pd_context",
	   l.allocs, find_type(&l, 1), find_type(&l, 3));
	ok(!loop_message(parent, qp, cq),
	   "a SEND of %d bytes from the QP to itself through those buffers arrives whole (MRs in the parent domain)",
	   MSG);
	e1 = ibv_dealloc_pd(pd);
	e2 = ibv_dealloc_pd(parent);
	ok(e1 == EBUSY && e2 == EBUSY,
	   "busy: the protection domain while a parent domain names it (%s), the parent domain while its buffers live (%s)",
	   err_str(e1), err_str(e2));
	e1 = ibv_destroy_qp(qp);
	ok(!e1 && l.frees == 1 && l.buf[index_of(&l, 1)].freed,
	   "the QP destroyed (%s): its buffer given back to free(), %d of %d",
	   err_str(e1), l.frees, l.allocs);
	e1 = ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	ok(!e1 && l.frees == 2 && l.buf[index_of(&l, 3)].freed &&
	   !l.free_unknown,
	   "the CQ destroyed (%s): every buffer given back once, with its type, %d of %d",
	   err_str(e1), l.frees, l.allocs);
	e2 = ibv_dealloc_pd(parent);
	ok(!e2, "then the parent domain goes: %s", err_str(e2));
}

static void default_and_null(struct ibv_pd *pd)
{
	static struct ledger l = { .mode = 1 };
	struct ibv_pd *parent = parent_domain(pd, NULL, &l);
	struct ibv_cq_ex *cq = parent ? cq_in(parent) : NULL;
	struct ibv_qp *qp = cq ? qp_in(parent, cq) : NULL;

	ok(qp && !loop_message(parent, qp, cq) && !l.allocs,
	   "an allocator answering IBV_ALLOCATOR_USE_DEFAULT: the provider's buffers, a message arrives whole");
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	ok(!l.frees && !l.free_unknown, "  and free() is never called");
	l.mode = 2;
	cq = parent ? cq_in(NULL) : NULL;
	errno = 0;
	qp = cq ? qp_in(parent, cq) : NULL;
	ok(!qp && errno == ENOMEM,
	   "an allocator answering NULL: the QP refused with ENOMEM (%s)",
	   qp ? "made" : strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	if (parent)
		ibv_dealloc_pd(parent);
}

static void thread_domain(struct ibv_pd *pd)
{
	struct ibv_td_init_attr ta = {};
	struct ibv_td *td = ibv_alloc_td(ctx, &ta);
	struct ibv_pd *parent = td ? parent_domain(pd, td, NULL) : NULL;
	struct ibv_cq_ex *cq = parent ? cq_in(NULL) : NULL;
	struct ibv_qp *qp = cq ? qp_in(parent, cq) : NULL;
	int e1, e2;

	ok(qp && !loop_message(parent, qp, cq),
	   "a thread domain in a parent domain (no allocators): its QP carries a message whole (%s)",
	   td ? (parent ? (qp ? "made" : "no QP") : "no parent domain") :
		strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	e1 = td ? ibv_dealloc_td(td) : -1;
	e2 = parent ? ibv_dealloc_pd(parent) : -1;
	ok(e1 == EBUSY && !e2 && td && !ibv_dealloc_td(td),
	   "the thread domain busy while the parent domain names it (%s), then freed",
	   err_str(e1));
}

static void refused(struct ibv_pd *pd)
{
	struct ibv_parent_domain_init_attr a = { .pd = pd };
	struct ibv_pd *parent = ibv_alloc_parent_domain(ctx, &a), *p2;
	struct ibv_cq_ex *cq;

	a.pd = parent;
	errno = 0;
	p2 = parent ? ibv_alloc_parent_domain(ctx, &a) : NULL;
	ok(parent && !p2 && errno == EINVAL,
	   "a parent domain of a parent domain: EINVAL (%s)", strerror(errno));
	a.pd = pd;
	a.comp_mask = 1u << 20;
	errno = 0;
	p2 = ibv_alloc_parent_domain(ctx, &a);
	ok(!p2 && errno == EOPNOTSUPP, "an unknown comp_mask bit: EOPNOTSUPP (%s)",
	   strerror(errno));
	errno = 0;
	cq = cq_in(pd);
	ok(!cq && errno == EINVAL,
	   "an extended CQ whose parent_domain is a protection domain: EINVAL (%s)",
	   strerror(errno));
	if (cq)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cq));
	if (p2)
		ibv_dealloc_pd(p2);
	if (parent)
		ibv_dealloc_pd(parent);
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	struct ibv_pd *pd;

	ctx = open_device_by_name(dev);
	if (!ctx)
		return 1;
	pd = ibv_alloc_pd(ctx);
	if (!pd || ibv_query_port(ctx, 1, &port) || !port.lid) {
		printf("Bail out! no PD or no port with a LID on %s\n", dev);
		return 1;
	}
	with_allocators(pd);
	default_and_null(pd);
	thread_domain(pd);
	refused(pd);
	ok(!ibv_dealloc_pd(pd), "the protection domain freed last");
	ibv_close_device(ctx);
	return tap_done();
}
