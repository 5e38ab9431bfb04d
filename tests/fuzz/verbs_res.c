// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_fuzz: contexts, PDs, MRs, CQs and their channels, AHs, and the
 * destruction of any object.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "fuzz.h"

/* ------------------------------------------------------------ contexts */
/* the device's max_cqe (from the first context), for CQ sizes */
int dev_max_cqe;
/* --big: the sizes of the first version, which pushed the guest into OOM */
int big_sizes;

void op_open_device(void)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	struct ibv_context *c;
	struct obj *o;

	if (!room(K_CTX))
		return;
	raw_sweep_fds();
	errno = 0;
	c = ibv_open_device(fuzz_dev);
	note("ibv_open_device", err_of(c));
	if (!c)
		return;
	fd_keep_all_open();
	fcntl(c->async_fd, F_SETFL, fcntl(c->async_fd, F_GETFL) | O_NONBLOCK);
	o = obj_new(K_CTX, c);
	if (!o) {
		note("ibv_close_device", ibv_close_device(c));
		return;
	}
	o->u.ctx = c;
	if (!ibv_query_port(c, 1, &pa))
		o->lid = pa.lid;
	if (!ibv_query_device(c, &da) && da.max_cqe > 0)
		dev_max_cqe = da.max_cqe;
}

static void drop_ctx_objects(struct ibv_context *c)
{
	unsigned int i;

	for (i = 0; i < MAX_OBJ; i++)
		if (objs[i].kind != K_FREE && objs[i].kind != K_CTX &&
		    objs[i].ctx == c)
			obj_free(&objs[i]);
}

/* its fds stop being kept: the numbers will be reused */
void close_ctx(struct obj *c)
{
	int cmd_fd = c->u.ctx->cmd_fd, async_fd = c->u.ctx->async_fd;
	unsigned int i;
	int ret;

	for (i = 0; i < MAX_OBJ; i++)
		if (objs[i].kind == K_CHAN && objs[i].ctx == c->u.ctx)
			fd_keep_set(objs[i].u.ch->fd, 0);
	drop_ctx_objects(c->u.ctx);
	ret = ibv_close_device(c->u.ctx);
	note("ibv_close_device", ret ? errno : 0);
	fd_keep_set(cmd_fd, 0);
	fd_keep_set(async_fd, 0);
	obj_free(c);
}

/*
 * Close a context with objects still open (the kernel cleans them up).
 * Most of its objects are destroyed first so that what the provider
 * leaks in userspace stays small.
 */
void op_close_device(void)
{
	struct obj *c = pick(K_CTX);
	unsigned int i;

	if (!c || nlive[K_CTX] < 2)
		return;
	for (i = 0; i < MAX_OBJ; i++)
		if (objs[i].kind != K_FREE && objs[i].kind != K_CTX &&
		    objs[i].ctx == c->u.ctx && objs[i].owner == fuzz_pid &&
		    chance(90))
			destroy_obj(&objs[i]);
	close_ctx(c);
}

/* ------------------------------------------------------------ PD, MR */
void op_alloc_pd(void)
{
	struct obj *c = pick_ctx(0), *o;
	struct ibv_pd *pd;

	if (!c || !room(K_PD))
		return;
	errno = 0;
	pd = ibv_alloc_pd(c->u.ctx);
	note("ibv_alloc_pd", err_of(pd));
	if (!pd)
		return;
	o = obj_new(K_PD, pd->context);
	o->u.pd = pd;
}

int mr_access(void)
{
	static const int bits[] = {
		IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_REMOTE_WRITE,
		IBV_ACCESS_REMOTE_READ, IBV_ACCESS_REMOTE_ATOMIC,
		IBV_ACCESS_MW_BIND, IBV_ACCESS_ZERO_BASED,
		IBV_ACCESS_ON_DEMAND, IBV_ACCESS_HUGETLB,
		IBV_ACCESS_RELAXED_ORDERING, 1 << 25, 1 << 30,
	};
	unsigned int i;
	int a = 0;

	if (chance(5))
		return (int)rnd_u32();
	for (i = 0; i < ARRAY_SIZE(bits); i++)
		if (chance(i < 4 ? 50 : 6))
			a |= bits[i];
	return a;
}

/* address and length for a registration: mostly inside the MR arena */
static void *mr_range(size_t *len)
{
	uint64_t p;

	switch (rn(20)) {
	case 0:
		*len = rnd_u64();
		return (void *)(uintptr_t)bad_ptr();
	case 1:	/* runs into the hole after the arena */
		*len = 4096 + rn(1 << 16);
		return mr_arena.base + mr_arena.len - rn(4096);
	case 2:
		*len = chance(50) ? 0 : ~(size_t)0 - rn(4096);
		return mr_arena.base + rn(mr_arena.len);
	default:
		p = arena_ptr(&mr_arena, chance(80) ? 65536 : mr_arena.len, len);
		return (void *)(uintptr_t)p;
	}
}

void op_reg_mr(void)
{
	struct obj *p = pick(K_PD), *o;
	struct ibv_mr *mr;
	size_t len;
	void *addr;

	if (!p || !room(K_MR))
		return;
	addr = mr_range(&len);
	errno = 0;
	switch (rn(4)) {
	case 0:
		mr = ibv_reg_mr_iova2(p->u.pd, addr, len, rnd_u64(), mr_access());
		note("ibv_reg_mr_iova2", err_of(mr));
		break;
	case 1:
		if (chance(90)) {
			mr = ibv_reg_mr(p->u.pd, addr, len, mr_access());
			note("ibv_reg_mr", err_of(mr));
			break;
		}
		mr = ibv_reg_dmabuf_mr(p->u.pd, rnd_u64(), len, rnd_u64(),
				       chance(50) ? -1 : (int)rn(8), mr_access());
		note("ibv_reg_dmabuf_mr", err_of(mr));
		break;
	default:
		/* mostly valid: local write plus remote access */
		mr = ibv_reg_mr(p->u.pd, addr, len,
				chance(85) ? IBV_ACCESS_LOCAL_WRITE |
					     IBV_ACCESS_REMOTE_WRITE |
					     IBV_ACCESS_REMOTE_READ |
					     IBV_ACCESS_REMOTE_ATOMIC :
					     mr_access());
		note("ibv_reg_mr", err_of(mr));
		break;
	}
	if (!mr)
		return;
	o = obj_new(K_MR, mr->context);
	o->u.mr = mr;
}

void op_rereg_mr(void)
{
	struct obj *m = pick(K_MR), *p;
	size_t len;
	void *addr;
	int flags, ret;

	if (!m)
		return;
	p = pick_in(K_PD, m->ctx, 90);
	addr = mr_range(&len);
	flags = chance(90) ? (int)rn(8) : (int)rnd_u32();
	if (!p)	/* libibverbs would follow the NULL PD */
		flags &= ~IBV_REREG_MR_CHANGE_PD;
	ret = ibv_rereg_mr(m->u.mr, flags, p ? p->u.pd : NULL, addr, len,
			   mr_access());
	note("ibv_rereg_mr", ret ? (errno ? errno : EIO) : 0);
}

/* ------------------------------------------------------------ CQ */
/*
 * CQ sizes: mostly small; sometimes large (at most 64 Ki entries, 4 MiB
 * of ring: the guest has 2 GiB and the provider zeroes what it
 * allocates); sometimes invalid.
 */
static int cqe_count(void)
{
	static const int bad[] = { 0, -1, -2, 0x7fffffff, (int)0x80000000 };

	if (big_sizes && chance(10))
		return chance(50) ? (int)rnd_u32() : (int)rn(1 << 16) + 1;
	switch (rn(40)) {
	case 0:
		return bad[rn(ARRAY_SIZE(bad))];
	case 1:
		return dev_max_cqe + 1;
	case 2:
		return (int)rn(dev_max_cqe < 65536 ? dev_max_cqe : 65536) + 1;
	default:
		return (int)rn(512) + 1;
	}
}

void op_create_comp_channel(void)
{
	struct obj *c = pick_ctx(1), *o;
	struct ibv_comp_channel *ch;

	if (!c || !room(K_CHAN))
		return;
	raw_sweep_fds();
	errno = 0;
	ch = ibv_create_comp_channel(c->u.ctx);
	note("ibv_create_comp_channel", err_of(ch));
	if (!ch)
		return;
	fd_keep_all_open();
	fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK);
	o = obj_new(K_CHAN, c->u.ctx);
	o->u.ch = ch;
}

void op_create_cq(void)
{
	struct obj *c = pick_ctx(0), *ch = NULL, *o;
	struct ibv_cq_ex *cqx = NULL;
	uint64_t wc_flags = 0;
	struct ibv_cq *cq;
	int ex = chance(30);

	if (!c || !room(K_CQ))
		return;
	/* only in a context of our own may a CQ raise events (pick_ctx) */
	if (c->owner == fuzz_pid && chance(60))
		ch = pick_in(K_CHAN, c->u.ctx, 100);
	if (ch && ch->ctx != c->u.ctx)
		ch = NULL;
	errno = 0;
	if (ex) {
		struct ibv_cq_init_attr_ex a = {
			.cqe = cqe_count(),
			.channel = ch ? ch->u.ch : NULL,
			.comp_vector = chance(90) ? 0 : rn(4),
			.wc_flags = chance(70) ? IBV_WC_STANDARD_FLAGS :
						 rnd_u32() & 0x3ff,
			.comp_mask = chance(80) ? 0 : rn(8),
			.flags = chance(80) ? 0 : rn(4),
		};
		cqx = ibv_create_cq_ex(c->u.ctx, &a);
		wc_flags = a.wc_flags;
		cq = cqx ? ibv_cq_ex_to_cq(cqx) : NULL;
		note("ibv_create_cq_ex", err_of(cq));
	} else {
		cq = ibv_create_cq(c->u.ctx, cqe_count(), NULL,
				   ch ? ch->u.ch : NULL,
				   chance(90) ? 0 : (int)rn(4));
		note("ibv_create_cq", err_of(cq));
	}
	if (!cq)
		return;
	o = obj_new(K_CQ, cq->context);
	o->u.cq = cq;
	o->cq_ex = cqx;
	o->wc_flags = wc_flags;
}

void op_resize_cq(void)
{
	struct obj *q = pick(K_CQ);

	if (q)
		note("ibv_resize_cq", ibv_resize_cq(q->u.cq, cqe_count()));
}

void op_poll_cq(void)
{
	struct obj *q = pick(K_CQ);
	struct ibv_wc wc[64];
	int n;

	if (!q)
		return;
	if (q->cq_ex && chance(40)) {
		struct ibv_cq_ex *cqx = q->cq_ex;
		struct ibv_poll_cq_attr pa = {};
		int ret, k = 0;

		ret = ibv_start_poll(cqx, &pa);
		note("ibv_start_poll", ret == ENOENT ? 0 : ret);
		if (ret)
			return;
		do {
			(void)ibv_wc_read_opcode(cqx);
			/* only what was asked for exists */
			if (q->wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
				(void)ibv_wc_read_byte_len(cqx);
			ret = ibv_next_poll(cqx);
		} while (!ret && ++k < 64);
		ibv_end_poll(cqx);
		return;
	}
	n = ibv_poll_cq(q->u.cq, chance(95) ? (int)rn(65) : -1, wc);
	note("ibv_poll_cq", n < 0 ? EIO : 0);
}

void op_req_notify(void)
{
	struct obj *q = pick(K_CQ);

	if (q)
		note("ibv_req_notify_cq", ibv_req_notify_cq(q->u.cq, (int)rn(2)));
}

/* completion events: nonblocking, acked at once, only from our channels */
void op_get_cq_event(void)
{
	struct obj *ch = pick_own(K_CHAN), *q;
	struct pollfd pfd;
	struct ibv_cq *cq;
	void *cq_ctx;

	if (!ch)
		return;
	pfd.fd = ch->u.ch->fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 0) != 1)
		return;
	if (ibv_get_cq_event(ch->u.ch, &cq, &cq_ctx)) {
		note("ibv_get_cq_event", errno);
		return;
	}
	note("ibv_get_cq_event", 0);
	cq_events++;
	q = find_ptr(K_CQ, cq);
	if (q)
		ibv_ack_cq_events(cq, 1);
	else
		async_unknown++;
}

void op_destroy_comp_channel(void)
{
	struct obj *ch = pick_own(K_CHAN);

	if (ch)
		destroy_obj(ch);
}

/* ------------------------------------------------------------ AH */
void op_create_ah(void)
{
	struct obj *p = pick(K_PD), *o;
	struct ibv_ah_attr a;
	struct ibv_ah *ah;

	if (!p || !room(K_AH))
		return;
	rnd_ah_attr(&a, ctx_obj(p->ctx));
	errno = 0;
	ah = ibv_create_ah(p->u.pd, &a);
	note("ibv_create_ah", err_of(ah));
	if (!ah)
		return;
	o = obj_new(K_AH, ah->context);
	o->u.ah = ah;
}

/* ------------------------------------------------------------ destroy */
/* 0 if gone; on failure the object stays live (it still is) */
int destroy_obj(struct obj *o)
{
	int ret = 0;

	switch (o->kind) {
	case K_PD:
		ret = ibv_dealloc_pd(o->u.pd);
		note("ibv_dealloc_pd", ret);
		break;
	case K_MR:
		ret = ibv_dereg_mr(o->u.mr);
		note("ibv_dereg_mr", ret);
		break;
	case K_CQ:
		ret = ibv_destroy_cq(o->u.cq);
		note("ibv_destroy_cq", ret);
		break;
	case K_QP:
		ret = ibv_destroy_qp(o->u.qp);
		note("ibv_destroy_qp", ret);
		break;
	case K_AH:
		ret = ibv_destroy_ah(o->u.ah);
		note("ibv_destroy_ah", ret);
		break;
	case K_SRQ:
		ret = ibv_destroy_srq(o->u.srq);
		note("ibv_destroy_srq", ret);
		break;
	case K_MW:
		ret = ibv_dealloc_mw(o->u.mw);
		note("ibv_dealloc_mw", ret);
		break;
	case K_CHAN: {
		int fd = o->u.ch->fd;

		ret = ibv_destroy_comp_channel(o->u.ch);
		note("ibv_destroy_comp_channel", ret ? errno : 0);
		if (!ret)
			fd_keep_set(fd, 0);
		break;
	}
	case K_CTX:
		close_ctx(o);
		return 0;
	default:
		return 0;
	}
	if (!ret)
		obj_free(o);
	return ret;
}

void op_destroy(void)
{
	static const enum kind k[] = {
		K_PD, K_MR, K_CQ, K_QP, K_AH, K_SRQ, K_MW,
	};
	struct obj *o = pick_own(k[rn(ARRAY_SIZE(k))]);

	if (o)
		destroy_obj(o);
}

