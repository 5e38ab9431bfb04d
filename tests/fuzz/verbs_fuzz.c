// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_fuzz: random, seeded verbs calls against one RDMA device, through
 * libibverbs (this file) and through the raw uverbs command interfaces
 * (uverbs_raw.c).  Run in the test guest by tests/vm/verbs-fuzz.sh.
 *
 *   verbs_fuzz [-d orca0] [--seed N] [--calls N] [--fork-pct P] [-v]
 *
 * It prints its seed first ("# seed N"); --seed N replays the same
 * sequence of calls (the kernel's answers, and so the later choices, may
 * differ when a forked child runs concurrently).  Kernel-side errors are
 * expected: each verb's results are counted per errno and printed at the
 * end.  The exit status is 0 when the fuzzer and every child it forked
 * ran to the end; a child killed by a signal makes it 1.
 *
 * Objects live in one table; most calls use live objects, some use
 * objects of another context (foreign).  Stale handles are only ever
 * passed through the raw interface: libibverbs dereferences its objects,
 * so a freed one would crash the fuzzer, not test the kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "fuzz.h"

enum kind { K_FREE, K_CTX, K_PD, K_MR, K_CQ, K_QP, K_AH, K_CHAN, K_NKIND };
static const char *const kind_name[K_NKIND] = {
	"free", "ctx", "pd", "mr", "cq", "qp", "ah", "chan",
};
/* live objects per kind (bounds memory and what close leaks) */
static const unsigned int kind_max[K_NKIND] = {
	0, 4, 12, 24, 16, 20, 12, 6,
};

struct obj {
	enum kind kind;
	pid_t owner;			/* process that created it */
	struct ibv_context *ctx;	/* its context */
	union {
		struct ibv_context *ctx;
		struct ibv_pd *pd;
		struct ibv_mr *mr;
		struct ibv_cq *cq;
		struct ibv_qp *qp;
		struct ibv_ah *ah;
		struct ibv_comp_channel *ch;
	} u;
	struct ibv_cq_ex *cq_ex;	/* CQ: made by ibv_create_cq_ex */
	uint64_t wc_flags;		/* ... with these wc_flags */
	uint16_t lid;			/* CTX: port 1's LID */
};

#define MAX_OBJ 160
static struct obj objs[MAX_OBJ];
static unsigned int nlive[K_NKIND];

pid_t fuzz_pid;
static int in_child;
static struct ibv_device *dev;
static unsigned int verbose;
static uint64_t child_calls_min = 200, child_calls_span = 1500;
static unsigned int fork_pct = 2;	/* per mille of steps that fork */
static int children_crashed, children_run, children_live;
static uint64_t async_events, async_unknown, cq_events, device_fatal;

/* ------------------------------------------------------------ table */
static struct obj *obj_new(enum kind k, struct ibv_context *ctx)
{
	unsigned int i;

	for (i = 0; i < MAX_OBJ; i++)
		if (objs[i].kind == K_FREE) {
			memset(&objs[i], 0, sizeof(objs[i]));
			objs[i].kind = k;
			objs[i].owner = fuzz_pid;
			objs[i].ctx = ctx;
			nlive[k]++;
			return &objs[i];
		}
	return NULL;
}

static void obj_free(struct obj *o)
{
	nlive[o->kind]--;
	o->kind = K_FREE;
}

static int room(enum kind k)
{
	return nlive[k] < kind_max[k];
}

/* a random live object of kind k; in ctx (if given) with probability pct */
static struct obj *pick_in(enum kind k, struct ibv_context *ctx,
			   unsigned int pct)
{
	unsigned int i, n = 0, want_same = ctx && chance(pct);
	struct obj *cand[MAX_OBJ];

	for (i = 0; i < MAX_OBJ; i++) {
		if (objs[i].kind != k)
			continue;
		if (want_same && objs[i].ctx != ctx)
			continue;
		cand[n++] = &objs[i];
	}
	return n ? cand[rn(n)] : NULL;
}

static struct obj *pick(enum kind k)
{
	return pick_in(k, NULL, 0);
}

/* objects this process may destroy: its own (a child leaves the parent's) */
static struct obj *pick_own(enum kind k)
{
	unsigned int i, n = 0;
	struct obj *cand[MAX_OBJ];

	for (i = 0; i < MAX_OBJ; i++)
		if (objs[i].kind == k && objs[i].owner == fuzz_pid)
			cand[n++] = &objs[i];
	return n ? cand[rn(n)] : NULL;
}

/* a context this process may create objects in */
static struct obj *pick_ctx(int for_events)
{
	struct obj *c = pick(K_CTX);

	/*
	 * A child must not create objects that raise events in a context it
	 * shares with the parent: the parent would read events carrying
	 * pointers into the child's memory.
	 */
	if (c && for_events && c->owner != fuzz_pid)
		c = pick_own(K_CTX);
	return c;
}

static struct obj *find_ptr(enum kind k, const void *p)
{
	unsigned int i;

	for (i = 0; i < MAX_OBJ; i++)
		if (objs[i].kind == k && objs[i].u.ctx == p)
			return &objs[i];
	return NULL;
}

static void note(const char *verb, int err)
{
	stat_call(verb, err);
	if (verbose > 1)
		fprintf(stderr, "[%d] %s -> %d\n", (int)fuzz_pid, verb, err);
}

/* errno of a call that returns NULL on failure */
static int err_of(const void *p)
{
	return p ? 0 : (errno ? errno : EIO);
}

/* ------------------------------------------------------------ contexts */
/* the device's max_cqe (from the first context), for CQ sizes */
static int dev_max_cqe;
/* --big: the sizes of the first version, which pushed the guest into OOM */
static int big_sizes;

static void op_open_device(void)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	struct ibv_context *c;
	struct obj *o;

	if (!room(K_CTX))
		return;
	raw_sweep_fds();
	errno = 0;
	c = ibv_open_device(dev);
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

static int destroy_obj(struct obj *o);

/* its fds stop being kept: the numbers will be reused */
static void close_ctx(struct obj *c)
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
static void op_close_device(void)
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
static void op_alloc_pd(void)
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

static int mr_access(void)
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
	case 1:	/* runs into the guard page */
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

static void op_reg_mr(void)
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

static void op_rereg_mr(void)
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

static void op_create_comp_channel(void)
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

static void op_create_cq(void)
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

static void op_resize_cq(void)
{
	struct obj *q = pick(K_CQ);

	if (q)
		note("ibv_resize_cq", ibv_resize_cq(q->u.cq, cqe_count()));
}

static void op_poll_cq(void)
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

static void op_req_notify(void)
{
	struct obj *q = pick(K_CQ);

	if (q)
		note("ibv_req_notify_cq", ibv_req_notify_cq(q->u.cq, (int)rn(2)));
}

/* completion events: nonblocking, acked at once, only from our channels */
static void op_get_cq_event(void)
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

static void op_destroy_comp_channel(void)
{
	struct obj *ch = pick_own(K_CHAN);

	if (ch)
		destroy_obj(ch);
}

/* ------------------------------------------------------------ QP */
/*
 * A QP capability: mostly small, sometimes out of range.  The provider
 * sizes and zeroes its rings before the kernel checks the caps, so
 * "out of range" is just past the device's limits (max_qp_wr 4096,
 * 16 SGEs, 256 bytes inline by default) or too large to allocate at all,
 * not the 2^18 WRs that would make it zero a gigabyte first.
 */
static uint32_t qp_cap_value(uint32_t small)
{
	static const uint32_t bad[] = {
		4097, 8192, 256, 257, 4096 + 16, 1U << 28, 0x7fffffff,
		0x80000000, 0xfffffff0, 0xffffffff,
	};

	if (chance(90))
		return rn(small);
	if (big_sizes)
		return rnd_u32();
	return bad[rn(ARRAY_SIZE(bad))];
}

static struct ibv_qp_cap qp_cap(void)
{
	struct ibv_qp_cap cap;

	cap.max_send_wr = qp_cap_value(130);
	cap.max_recv_wr = qp_cap_value(130);
	cap.max_send_sge = qp_cap_value(8);
	cap.max_recv_sge = qp_cap_value(8);
	cap.max_inline_data = chance(80) ? rn(257) : qp_cap_value(257);
	return cap;
}

static enum ibv_qp_type qp_type(void)
{
	static const enum ibv_qp_type t[] = {
		IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD,
	};

	if (chance(4))
		return chance(50) ? IBV_QPT_RAW_PACKET : (enum ibv_qp_type)rnd_u32();
	return t[rn(3)];
}

static void op_create_qp(void)
{
	struct obj *c = pick_ctx(1), *p, *s, *r, *o;
	struct ibv_qp *qp;

	if (!c || !room(K_QP))
		return;
	p = pick_in(K_PD, c->u.ctx, 95);
	s = pick_in(K_CQ, c->u.ctx, 95);
	r = chance(70) ? s : pick_in(K_CQ, c->u.ctx, 95);
	if (!p || !s || !r)
		return;
	/* never a foreign context's CQ in a child's shared context */
	errno = 0;
	/*
	 * ibv_create_qp() creates in the PD's context: only with a PD of c.
	 * ibv_create_qp_ex() creates in c, whatever context the PD is of.
	 */
	if (chance(30) || p->ctx != c->u.ctx) {
		struct ibv_qp_init_attr_ex a = {
			.send_cq = s->u.cq,
			.recv_cq = r->u.cq,
			.cap = qp_cap(),
			.qp_type = qp_type(),
			.sq_sig_all = (int)rn(2),
			.comp_mask = IBV_QP_INIT_ATTR_PD,
			.pd = p->u.pd,
		};

		if (chance(40)) {
			a.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
			a.create_flags = chance(50) ? 0 : 1U << rn(32);
		}
		if (chance(40)) {
			a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
			a.send_ops_flags = chance(50) ? rn(0x80) : rnd_u64();
		}
		if (chance(10))
			a.comp_mask |= IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
		qp = ibv_create_qp_ex(c->u.ctx, &a);
		note("ibv_create_qp_ex", err_of(qp));
	} else {
		struct ibv_qp_init_attr a = {
			.send_cq = s->u.cq,
			.recv_cq = r->u.cq,
			.cap = qp_cap(),
			.qp_type = qp_type(),
			.sq_sig_all = (int)rn(2),
		};

		qp = ibv_create_qp(p->u.pd, &a);
		note("ibv_create_qp", err_of(qp));
	}
	if (!qp)
		return;
	o = obj_new(K_QP, qp->context);
	o->u.qp = qp;
}

static void rnd_ah_attr(struct ibv_ah_attr *ah, const struct obj *ctxo)
{
	memset(ah, 0, sizeof(*ah));
	ah->dlid = chance(80) && ctxo ? ctxo->lid : (uint16_t)rnd_u32();
	ah->sl = chance(90) ? rn(16) : (uint8_t)rnd_u32();
	ah->src_path_bits = chance(90) ? 0 : (uint8_t)rnd_u32();
	ah->static_rate = chance(90) ? 0 : (uint8_t)rnd_u32();
	ah->port_num = chance(90) ? 1 : (uint8_t)rn(4);
	ah->is_global = chance(20);
	if (ah->is_global) {
		ah->grh.sgid_index = chance(80) ? 0 : (uint8_t)rn(8);
		ah->grh.hop_limit = (uint8_t)rnd_u32();
		ah->grh.flow_label = rnd_u32();
		ah->grh.traffic_class = (uint8_t)rnd_u32();
		ah->grh.dgid.global.subnet_prefix = chance(50) ?
			htobe64(0xfe80000000000000ULL) : rnd_u64();
		ah->grh.dgid.global.interface_id = rnd_u64();
	}
}

static struct obj *ctx_obj(struct ibv_context *c)
{
	return find_ptr(K_CTX, c);
}

static void op_modify_qp_random(void)
{
	struct obj *q = pick(K_QP), *d;
	struct ibv_qp_attr a;
	int mask;

	if (!q)
		return;
	memset(&a, 0, sizeof(a));
	a.qp_state = chance(90) ? rn(7) : (enum ibv_qp_state)rnd_u32();
	a.cur_qp_state = rn(8);
	a.path_mtu = chance(80) ? (enum ibv_mtu)(rn(5) + 1) : (enum ibv_mtu)rnd_u32();
	a.path_mig_state = rn(4);
	a.qkey = rnd_u32();
	/* past 24 bits ib_core masks them, with a log line each time */
	a.rq_psn = chance(95) ? rn(1 << 24) : rnd_u32();
	a.sq_psn = chance(95) ? rn(1 << 24) : rnd_u32();
	d = pick(K_QP);
	a.dest_qp_num = d && chance(80) ? d->u.qp->qp_num : rnd_u32();
	a.qp_access_flags = mr_access();
	a.cap = qp_cap();
	rnd_ah_attr(&a.ah_attr, ctx_obj(q->ctx));
	rnd_ah_attr(&a.alt_ah_attr, ctx_obj(q->ctx));
	a.pkey_index = chance(80) ? 0 : (uint16_t)rnd_u32();
	a.alt_pkey_index = (uint16_t)rnd_u32();
	a.en_sqd_async_notify = rn(2);
	a.sq_draining = rn(2);
	a.max_rd_atomic = chance(80) ? rn(17) : (uint8_t)rnd_u32();
	a.max_dest_rd_atomic = chance(80) ? rn(17) : (uint8_t)rnd_u32();
	a.min_rnr_timer = rn(32);
	a.port_num = chance(85) ? 1 : rn(4);
	a.timeout = rn(32);
	a.retry_cnt = rn(8);
	a.rnr_retry = rn(8);
	a.alt_port_num = rn(3);
	a.alt_timeout = rn(32);
	a.rate_limit = chance(90) ? 0 : rnd_u32();
	mask = chance(90) ? (int)(rnd_u32() & 0x1fffff) : (int)rnd_u32();
	if (chance(70))
		mask |= IBV_QP_STATE;
	note("ibv_modify_qp", ibv_modify_qp(q->u.qp, &a, mask));
}

/*
 * The valid walk RESET -> INIT -> RTR -> RTS to a live QP of the same
 * device (or itself), so that posted work really moves.
 */
static void op_connect_qp(void)
{
	struct obj *q = pick(K_QP), *d, *c;
	struct ibv_qp_attr a;
	int ud, ret;

	if (!q)
		return;
	c = ctx_obj(q->ctx);
	d = chance(20) ? q : pick_in(K_QP, NULL, 0);
	if (!d || !c)
		return;
	ud = q->u.qp->qp_type == IBV_QPT_UD;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RESET;
	ret = ibv_modify_qp(q->u.qp, &a, IBV_QP_STATE);
	note("ibv_modify_qp(connect)", ret);
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qkey = 0x11111111;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	ret = ibv_modify_qp(q->u.qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | (ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS));
	note("ibv_modify_qp(connect)", ret);
	if (ret)
		return;
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = (enum ibv_mtu)(rn(5) + 1);
	a.dest_qp_num = d->u.qp->qp_num;
	a.rq_psn = rn(1 << 24);
	a.max_dest_rd_atomic = rn(5);
	a.min_rnr_timer = rn(4);
	a.ah_attr.dlid = c->lid;
	a.ah_attr.port_num = 1;
	if (ud)
		ret = ibv_modify_qp(q->u.qp, &a, IBV_QP_STATE);
	else
		ret = ibv_modify_qp(q->u.qp, &a, IBV_QP_STATE | IBV_QP_AV |
				    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				    IBV_QP_RQ_PSN |
				    (q->u.qp->qp_type == IBV_QPT_RC ?
				     IBV_QP_MAX_DEST_RD_ATOMIC |
				     IBV_QP_MIN_RNR_TIMER : 0));
	note("ibv_modify_qp(connect)", ret);
	if (ret)
		return;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = rn(1 << 24);
	a.timeout = rn(3) + 1;
	a.retry_cnt = rn(3);
	a.rnr_retry = rn(3);
	a.max_rd_atomic = rn(5);
	if (q->u.qp->qp_type == IBV_QPT_RC)
		ret = ibv_modify_qp(q->u.qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
				    IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
	else
		ret = ibv_modify_qp(q->u.qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	note("ibv_modify_qp(connect)", ret);
}

static void op_query_qp(void)
{
	struct obj *q = pick(K_QP);
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	struct ibv_ece ece;
	uint32_t caps;

	if (!q)
		return;
	switch (rn(4)) {
	case 0:
		note("ibv_query_ece", ibv_query_ece(q->u.qp, &ece));
		break;
	case 1:
		ece.vendor_id = chance(50) ? 0x00c0de : rnd_u32();
		ece.options = rnd_u32();
		ece.comp_mask = chance(90) ? 0 : rnd_u32();
		note("ibv_set_ece", ibv_set_ece(q->u.qp, &ece));
		break;
	case 2:
		caps = (uint32_t)ibv_query_qp_data_in_order(q->u.qp,
				(enum ibv_wr_opcode)rn(12), rn(4));
		note("ibv_query_qp_data_in_order", caps > 3 ? EINVAL : 0);
		break;
	default:
		note("ibv_query_qp", ibv_query_qp(q->u.qp, &a,
				chance(90) ? (int)(rnd_u32() & 0x1fffff) :
					     (int)rnd_u32(), &ia));
		break;
	}
}

/* ------------------------------------------------------------ AH */
static void op_create_ah(void)
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

/* ------------------------------------------------------------ post */
#define MAX_SGE 40
#define MAX_WR 4

/*
 * An SGE over an MR (its keys, sometimes wrong ones).  With @inl the
 * provider copies the bytes: the address must be readable memory of ours,
 * so it is clamped into the MR arena whatever the MR says.
 */
static void rnd_sge(struct ibv_sge *s, int inl)
{
	struct obj *m = pick(K_MR);
	uintptr_t lo = (uintptr_t)mr_arena.base, hi = lo + mr_arena.len;
	uint64_t addr;
	uint32_t len;

	if (m && chance(85)) {
		uint64_t mlen = m->u.mr->length;
		uint64_t off = mlen ? rnd() % mlen : 0;

		addr = (uintptr_t)m->u.mr->addr + off;
		len = (uint32_t)(chance(80) ? rn(4097) : rn(65537));
		if (off + len > mlen && chance(80))
			len = (uint32_t)(mlen - off);
		s->lkey = chance(92) ? m->u.mr->lkey : rnd_u32();
	} else {
		addr = arena_ptr(&mr_arena, 4096, NULL);
		len = rn(4097);
		s->lkey = rnd_u32();
	}
	if (!inl && chance(5))
		addr = chance(50) ? bad_ptr() : addr + rnd_u32();
	if (inl) {
		len = len % 512;
		if (addr < lo || addr >= hi)
			addr = lo + rn(mr_arena.len);
		if (addr + len > hi)
			len = (uint32_t)(hi - addr);
	}
	s->addr = addr;
	s->length = len;
}

static enum ibv_wr_opcode send_opcode(void)
{
	static const enum ibv_wr_opcode op[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
	};

	if (chance(8))
		return chance(50) ? (enum ibv_wr_opcode)rn(16) :
				    (enum ibv_wr_opcode)rnd_u32();
	return op[rn(ARRAY_SIZE(op))];
}

static void op_post_send(void)
{
	static struct ibv_sge sge[MAX_WR][MAX_SGE];
	struct ibv_send_wr wr[MAX_WR], *bad = NULL;
	struct obj *q = pick(K_QP), *m, *ah;
	unsigned int i, j, n;

	if (!q)
		return;
	n = rn(MAX_WR) + 1;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		int inl;

		wr[i].wr_id = rnd();
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		wr[i].opcode = send_opcode();
		wr[i].send_flags = chance(90) ? rn(32) : (unsigned int)rnd_u32();
		inl = !!(wr[i].send_flags & IBV_SEND_INLINE);
		wr[i].num_sge = chance(85) ? (int)rn(4) :
			chance(90) ? (int)rn(MAX_SGE + 1) : -1;
		for (j = 0; (int)j < wr[i].num_sge; j++)
			rnd_sge(&sge[i][j], inl);
		wr[i].sg_list = sge[i];
		wr[i].imm_data = rnd_u32();
		m = pick(K_MR);
		if (wr[i].opcode == IBV_WR_ATOMIC_CMP_AND_SWP ||
		    wr[i].opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
			wr[i].wr.atomic.remote_addr = m && chance(90) ?
				((uintptr_t)m->u.mr->addr + rn(64) * 8) : rnd_u64();
			wr[i].wr.atomic.rkey = m && chance(90) ? m->u.mr->rkey : rnd_u32();
			wr[i].wr.atomic.compare_add = rnd_u64();
			wr[i].wr.atomic.swap = rnd_u64();
		} else {
			wr[i].wr.rdma.remote_addr = m && chance(90) ?
				(uintptr_t)m->u.mr->addr + rn(4096) : rnd_u64();
			wr[i].wr.rdma.rkey = m && chance(90) ? m->u.mr->rkey : rnd_u32();
		}
		if (q->u.qp->qp_type == IBV_QPT_UD) {
			struct obj *d = pick(K_QP);

			ah = pick_in(K_AH, q->ctx, 80);
			wr[i].wr.ud.ah = ah && chance(95) ? ah->u.ah : NULL;
			wr[i].wr.ud.remote_qpn = d && chance(80) ?
				d->u.qp->qp_num : rnd_u32();
			wr[i].wr.ud.remote_qkey = chance(80) ? 0x11111111 : rnd_u32();
		}
	}
	/* the inline lengths of a WR that sum past 2^32 */
	if (chance(2)) {
		wr[0].send_flags |= IBV_SEND_INLINE;
		wr[0].opcode = IBV_WR_SEND;
		wr[0].num_sge = 2;
		sge[0][0].addr = (uintptr_t)mr_arena.base;
		sge[0][0].length = 0xffffffff;
		sge[0][1].addr = (uintptr_t)mr_arena.base;
		sge[0][1].length = 2;
	}
	note("ibv_post_send", ibv_post_send(q->u.qp, wr, &bad));
}

static void op_post_recv(void)
{
	static struct ibv_sge sge[MAX_WR][MAX_SGE];
	struct ibv_recv_wr wr[MAX_WR], *bad = NULL;
	struct obj *q = pick(K_QP);
	unsigned int i, j, n;

	if (!q)
		return;
	n = rn(MAX_WR) + 1;
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < n; i++) {
		wr[i].wr_id = rnd();
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		wr[i].num_sge = chance(85) ? (int)rn(4) :
			chance(90) ? (int)rn(MAX_SGE + 1) : -1;
		for (j = 0; (int)j < wr[i].num_sge; j++)
			rnd_sge(&sge[i][j], 0);
		wr[i].sg_list = sge[i];
	}
	note("ibv_post_recv", ibv_post_recv(q->u.qp, wr, &bad));
}

/* ------------------------------------------------------------ queries */
static void op_query(void)
{
	struct obj *c = pick(K_CTX);
	struct ibv_query_device_ex_input in;
	struct ibv_device_attr_ex ax;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	union ibv_gid gid;
	uint16_t pkey;
	uint8_t port = chance(85) ? 1 : (uint8_t)rn(4);

	if (!c)
		return;
	switch (rn(6)) {
	case 0:
		note("ibv_query_device", ibv_query_device(c->u.ctx, &da));
		break;
	case 1: {
		/* the provider's entry point takes the caller's attr size */
		struct verbs_context *vc = verbs_get_ctx_op(c->u.ctx, query_device_ex);

		in.comp_mask = chance(80) ? 0 : rnd_u32();
		if (!vc || chance(50)) {
			note("ibv_query_device_ex", ibv_query_device_ex(c->u.ctx,
					chance(30) ? NULL : &in, &ax));
			break;
		}
		note("ibv_query_device_ex(size)",
		     vc->query_device_ex(c->u.ctx, chance(30) ? NULL : &in, &ax,
					 rn(sizeof(ax) + 1)));
		break;
	}
	case 2:
		note("ibv_query_port", ibv_query_port(c->u.ctx, port, &pa));
		break;
	case 3:
		note("ibv_query_gid", ibv_query_gid(c->u.ctx, port,
				chance(80) ? (int)rn(4) : (int)rnd_u32(), &gid));
		break;
	case 4:
		note("ibv_query_pkey", ibv_query_pkey(c->u.ctx, port,
				chance(80) ? (int)rn(4) : (int)rnd_u32(), &pkey));
		break;
	default:
		op_query_qp();
		break;
	}
}

/* async events: nonblocking; acked only for objects of ours */
static void op_get_async_event(void)
{
	struct obj *c = pick_own(K_CTX);
	struct ibv_async_event ev;
	struct pollfd pfd;
	int known = 0;

	if (!c)
		return;
	pfd.fd = c->u.ctx->async_fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 0) != 1)
		return;
	if (ibv_get_async_event(c->u.ctx, &ev)) {
		note("ibv_get_async_event", errno);
		return;
	}
	note("ibv_get_async_event", 0);
	async_events++;
	switch (ev.event_type) {
	case IBV_EVENT_CQ_ERR:
		known = !!find_ptr(K_CQ, ev.element.cq);
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		known = !!find_ptr(K_QP, ev.element.qp);
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
	case IBV_EVENT_WQ_FATAL:
		known = 0;	/* we have none of those */
		break;
	case IBV_EVENT_DEVICE_FATAL:
		device_fatal++;
		known = 1;
		break;
	default:
		known = 1;	/* port and device events carry no pointer */
		break;
	}
	if (known)
		ibv_ack_async_event(&ev);
	else
		async_unknown++;
}

/* verbs orca does not have: refused, nothing allocated */
static void op_unsupported(void)
{
	struct obj *p = pick(K_PD);
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 16, .max_sge = 1 } };
	struct ibv_srq *srq;
	struct ibv_mw *mw;

	if (!p)
		return;
	errno = 0;
	if (chance(50)) {
		mw = ibv_alloc_mw(p->u.pd, chance(50) ? IBV_MW_TYPE_1 : IBV_MW_TYPE_2);
		note("ibv_alloc_mw", err_of(mw));
		if (mw)
			ibv_dealloc_mw(mw);
	} else {
		srq = ibv_create_srq(p->u.pd, &sa);
		note("ibv_create_srq", err_of(srq));
		if (srq)
			ibv_destroy_srq(srq);
	}
}

/* ------------------------------------------------------------ destroy */
/* 0 if gone; on failure the object stays live (it still is) */
static int destroy_obj(struct obj *o)
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

static void op_destroy(void)
{
	static const enum kind k[] = { K_PD, K_MR, K_CQ, K_QP, K_AH };
	struct obj *o = pick_own(k[rn(ARRAY_SIZE(k))]);

	if (o)
		destroy_obj(o);
}

/* ------------------------------------------------------------ fork */
static void reap(int block)
{
	int st;
	pid_t p;

	while (children_live &&
	       (p = waitpid(-1, &st, block ? 0 : WNOHANG)) > 0) {
		children_live--;
		if (WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st))) {
			children_crashed++;
			printf("# child %d: %s %d\n", (int)p,
			       WIFSIGNALED(st) ? "killed by signal" : "exit status",
			       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		}
	}
}

static void step(void);
static void cleanup(void);

/* the operation under way, for the crash report */
static const char *volatile cur_op = "start";
static uint64_t cur_seed;

static void crash_report(int sig)
{
	void *bt[32];
	char msg[160];
	int n;

	n = snprintf(msg, sizeof(msg),
		     "# verbs_fuzz [%d]: fatal signal %d in %s (seed %llu)\n",
		     (int)getpid(), sig, cur_op, (unsigned long long)cur_seed);
	if (write(2, msg, (size_t)n) < 0)
		_exit(128 + sig);
	n = backtrace(bt, 32);
	backtrace_symbols_fd(bt, n, 2);
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * A child shares every context and raw fd with the parent: it makes random
 * calls on its own objects and non-destructive ones on the parent's, then
 * exits with its queues still mapped (or, sometimes, cleans up first).
 */
static void op_fork(void)
{
	uint64_t seed = rnd(), n = child_calls_min + rn(child_calls_span);
	pid_t p;

	if (in_child || children_live >= 2)
		return;
	fflush(stdout);
	fflush(stderr);
	p = fork();
	if (p < 0) {
		note("fork", errno);
		return;
	}
	if (p > 0) {
		note("fork", 0);
		children_run++;
		children_live++;
		return;
	}
	in_child = 1;
	fuzz_pid = getpid();
	rnd_seed(seed);
	raw_after_fork();
	while (n--)
		step();
	if (chance(25)) {
		cur_op = "cleanup (child)";
		cleanup();
	}
	_exit(0);
}

/* ------------------------------------------------------------ dispatch */
struct op {
	void (*fn)(void);
	unsigned int weight;
	const char *name;
};

static const struct op ops[] = {
	{ op_open_device, 3, "op_open_device" },
	{ op_close_device, 1, "op_close_device" },
	{ op_alloc_pd, 8, "op_alloc_pd" },
	{ op_reg_mr, 14, "op_reg_mr" },
	{ op_rereg_mr, 4, "op_rereg_mr" },
	{ op_create_cq, 10, "op_create_cq" },
	{ op_resize_cq, 4, "op_resize_cq" },
	{ op_poll_cq, 40, "op_poll_cq" },
	{ op_req_notify, 8, "op_req_notify" },
	{ op_create_comp_channel, 2, "op_create_comp_channel" },
	{ op_destroy_comp_channel, 1, "op_destroy_comp_channel" },
	{ op_get_cq_event, 6, "op_get_cq_event" },
	{ op_create_qp, 12, "op_create_qp" },
	{ op_modify_qp_random, 20, "op_modify_qp_random" },
	{ op_connect_qp, 10, "op_connect_qp" },
	{ op_query, 16, "op_query" },
	{ op_create_ah, 5, "op_create_ah" },
	{ op_post_send, 50, "op_post_send" },
	{ op_post_recv, 25, "op_post_recv" },
	{ op_get_async_event, 6, "op_get_async_event" },
	{ op_unsupported, 1, "op_unsupported" },
	{ op_destroy, 30, "op_destroy" },
	{ raw_step, 170, "raw_step" },
	{ raw_close_some, 1, "raw_close_some" },
};

/* --skip NAME,...: operations left out (to bisect a failure) */
static const char *skip_list = "";

/* also for the raw layer: "ioctl_get_context" (see uverbs_raw.c) */
int fuzz_skipped(const char *name)
{
	const char *p = strstr(skip_list, name);
	size_t n = strlen(name);

	return p && (p == skip_list || p[-1] == ',') && (p[n] == ',' || !p[n]);
}

static unsigned int weight_of(unsigned int i)
{
	return fuzz_skipped(ops[i].name + 3) ? 0 : ops[i].weight;
}

static void step(void)
{
	static unsigned int total;
	unsigned int i, r;

	if (!total)
		for (i = 0; i < ARRAY_SIZE(ops); i++)
			total += weight_of(i);
	if (!in_child && rn(1000) < fork_pct && strstr(skip_list, "fork") == NULL) {
		op_fork();
		return;
	}
	if (!nlive[K_CTX]) {
		op_open_device();
		return;
	}
	r = rn(total);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		if (r < weight_of(i)) {
			cur_op = ops[i].name;
			ops[i].fn();
			return;
		}
		r -= weight_of(i);
	}
}

/* destroy everything this process owns in random order, retrying what
 * depends on something else; then close the contexts */
static void cleanup(void)
{
	unsigned int i, tries;

	for (tries = 0; tries < 20; tries++) {
		unsigned int left = 0, start = rn(MAX_OBJ);

		for (i = 0; i < MAX_OBJ; i++) {
			struct obj *o = &objs[(start + i) % MAX_OBJ];

			if (o->kind == K_FREE || o->kind == K_CTX ||
			    o->owner != fuzz_pid)
				continue;
			if (destroy_obj(o))
				left++;
		}
		if (!left)
			break;
	}
	for (i = 0; i < MAX_OBJ; i++)
		if (objs[i].kind == K_CTX)
			destroy_obj(&objs[i]);
}

/* ------------------------------------------------------------ main */
void stats_print(FILE *f);

static void usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s [-d DEV] [--seed N] [--calls N] [--fork-pct PERMILLE]\n"
		"          [--skip OP,...] [--big] [-v]   (OP: open_device, post_send, raw_step, fork, ...)\n"
		"  --big: QP and CQ sizes up to 2^32 (hundreds of MB of rings: memory pressure, OOM)\n",
		argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "calls", required_argument, NULL, 'n' },
		{ "fork-pct", required_argument, NULL, 'f' },
		{ "dev", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "skip", required_argument, NULL, 'S' },
		{ "big", no_argument, NULL, 'B' },
		{ NULL, 0, NULL, 0 },
	};
	const char *devname = "orca0";
	uint64_t seed, calls = 100000, i;
	struct ibv_device **list;
	struct timespec t0, t1;
	int opt, n, clean;
	unsigned int k;
	double secs;

	seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	while ((opt = getopt_long(argc, argv, "d:s:n:f:v", lo, NULL)) != -1) {
		switch (opt) {
		case 'd':
			devname = optarg;
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			calls = strtoull(optarg, NULL, 0);
			break;
		case 'f':
			fork_pct = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'v':
			verbose++;
			break;
		case 'S':
			skip_list = optarg;
			break;
		case 'B':
			big_sizes = 1;
			break;
		default:
			usage(argv[0]);
		}
	}
	printf("# seed %" PRIu64 " (replay: --seed %" PRIu64 "), calls %" PRIu64
	       ", device %s\n", seed, seed, calls, devname);
	fflush(stdout);
	rnd_seed(seed);
	cur_seed = seed;
	signal(SIGPIPE, SIG_IGN);
	signal(SIGSEGV, crash_report);
	signal(SIGBUS, crash_report);
	signal(SIGABRT, crash_report);
	signal(SIGFPE, crash_report);
	fuzz_pid = getpid();
	if (stats_init() || arenas_init()) {
		perror("verbs_fuzz: setup");
		return 2;
	}
	list = ibv_get_device_list(&n);
	for (i = 0; list && (int)i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), devname))
			dev = list[i];
	if (!dev) {
		fprintf(stderr, "verbs_fuzz: no device %s\n", devname);
		return 2;
	}
	snprintf(uverbs_path, sizeof(uverbs_path), "/dev/infiniband/%s",
		 dev->dev_name);
	raw_init();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < calls; i++) {
		step();
		if ((i & 255) == 0)
			reap(0);
		if (verbose && i && i % 2000 == 0) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			struct rusage ru;

			getrusage(RUSAGE_SELF, &ru);
			fprintf(stderr, "# %" PRIu64 " steps, %.1f s, max RSS %ld MiB\n", i,
				(double)(t1.tv_sec - t0.tv_sec) +
				(t1.tv_nsec - t0.tv_nsec) / 1e9, ru.ru_maxrss / 1024);
		}
	}
	reap(1);
	clean = chance(60);
	cur_op = "cleanup";
	if (clean)
		cleanup();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("# steps %" PRIu64 " in the parent, verb calls %" PRIu64
	       " (children included), %.1f s, %.0f calls/s\n",
	       calls, stats_total(), secs, stats_total() / (secs > 0 ? secs : 1));
	printf("# children: %d run, %d crashed; async events %" PRIu64
	       " (device fatal %" PRIu64 "), completion events %" PRIu64
	       ", events for unknown objects %" PRIu64 "\n",
	       children_run, children_crashed, async_events, device_fatal,
	       cq_events, async_unknown);
	{
		struct rusage me, kids;

		getrusage(RUSAGE_SELF, &me);
		getrusage(RUSAGE_CHILDREN, &kids);
		printf("# max RSS: fuzzer %ld MiB, largest child %ld MiB\n",
		       me.ru_maxrss / 1024, kids.ru_maxrss / 1024);
	}
	printf("# live at exit:");
	for (k = 1; k < K_NKIND; k++)
		printf(" %s=%u", kind_name[k], nlive[k]);
	printf(" (%s)\n", clean ? "destroyed in random order, then closed" :
				  "left for the kernel to clean up at exit");
	stats_print(stdout);
	printf("# seed %" PRIu64 "\n", seed);
	ibv_free_device_list(list);
	return children_crashed ? 1 : 0;
}
