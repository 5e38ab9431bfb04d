// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Data path on one port, QP to QP through the device's loopback: memory
 * registration and keys, SEND / SEND_WITH_IMM / RDMA WRITE (with
 * immediate) / RDMA READ / atomics on RC, SEND and WRITE on UC, inline
 * data, unsignaled completions, and the error completions: local
 * protection, remote access, RNR retries exhausted, flush on ERR; and
 * completion events through a completion channel (one-shot arming,
 * solicited-only arming).
 *
 *   verbs_traffic [-d orca0]
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <unistd.h>

#include "common.h"

#define BUF_SIZE	(256 * 1024)

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_port_attr port;
static uint8_t *src, *dst;
static struct ibv_mr *src_mr, *dst_mr;

struct pair {
	struct ibv_qp *a, *b;
};

/* Poll one completion within @ms; false if none came. */
static bool poll_one(struct ibv_wc *wc, int ms)
{
	long long end = now_ms() + ms;
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			return false;
		if (n == 1)
			return true;
	} while (now_ms() < end);
	return false;
}

/* Every completion that arrives within @ms. */
static int poll_all(struct ibv_wc *wc, int max, int ms)
{
	long long end = now_ms() + ms;
	int got = 0, n;

	while (got < max && now_ms() < end) {
		n = ibv_poll_cq(cq, max - got, wc + got);
		if (n < 0)
			break;
		got += n;
	}
	return got;
}

static int connect_qp(struct ibv_qp *qp, uint32_t dest, int access,
		      uint8_t rnr_retry)
{
	struct ibv_qp_attr a;
	int mask;

	fill_attr(&a, qp, &port, IBV_QPS_INIT);
	a.qp_access_flags = access;
	if (ibv_modify_qp(qp, &a,
			  required_mask(qp->qp_type, IBV_QPS_RESET,
					IBV_QPS_INIT)))
		return -1;
	fill_attr(&a, qp, &port, IBV_QPS_RTR);
	a.dest_qp_num = dest;
	a.rq_psn = 100;
	a.min_rnr_timer = 1;		/* 0.01 ms */
	mask = required_mask(qp->qp_type, IBV_QPS_INIT, IBV_QPS_RTR);
	if (ibv_modify_qp(qp, &a, mask))
		return -1;
	fill_attr(&a, qp, &port, IBV_QPS_RTS);
	a.sq_psn = 100;
	a.rnr_retry = rnr_retry;
	a.retry_cnt = 1;
	a.timeout = 10;
	mask = required_mask(qp->qp_type, IBV_QPS_RTR, IBV_QPS_RTS);
	return ibv_modify_qp(qp, &a, mask);
}

static bool make_pair(struct pair *p, enum ibv_qp_type type, int access,
		      uint8_t rnr_retry)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 4, .max_recv_sge = 4,
			 .max_inline_data = 64 },
		.qp_type = type,
	};

	p->a = ibv_create_qp(pd, &init);
	p->b = ibv_create_qp(pd, &init);
	if (!p->a || !p->b) {
		diag("create_qp: %s", strerror(errno));
		return false;
	}
	if (connect_qp(p->a, p->b->qp_num, access, rnr_retry) ||
	    connect_qp(p->b, p->a->qp_num, access, rnr_retry)) {
		diag("connect: %s", strerror(errno));
		return false;
	}
	return true;
}

static void free_pair(struct pair *p)
{
	struct ibv_wc wc[64];

	if (p->a)
		ibv_destroy_qp(p->a);
	if (p->b)
		ibv_destroy_qp(p->b);
	/* what the pair left behind (flushes) is not the next test's */
	while (ibv_poll_cq(cq, 64, wc) > 0)
		;
	p->a = p->b = NULL;
}

static int post_recv(struct ibv_qp *qp, uint64_t id, void *addr,
		     uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static int post_send(struct ibv_qp *qp, uint64_t id, enum ibv_wr_opcode op,
		     void *addr, uint32_t len, uint32_t lkey, int flags,
		     uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)addr, len, lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &sge,
				  .num_sge = 1, .opcode = op,
				  .send_flags = flags }, *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	wr.imm_data = htobe32(0xc0ffee);
	return ibv_post_send(qp, &wr, &bad);
}

static void pattern(uint8_t *p, size_t len, uint8_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7 + (i >> 8));
}

/* SEND of @len bytes A->B: data, both completions. */
static void test_send(enum ibv_qp_type type, uint32_t len, bool imm)
{
	struct pair p = {};
	struct ibv_wc wc[2];
	bool got_send = false, got_recv = false, data;
	int i, n;

	if (!ok(make_pair(&p, type, IBV_ACCESS_REMOTE_WRITE, 7),
		"%s pair for SEND %u", qpt_str(type), len)) {
		free_pair(&p);
		return;
	}
	pattern(src, len, (uint8_t)len);
	memset(dst, 0xee, len + 16);
	ok(!post_recv(p.b, 0xb0, dst, BUF_SIZE, dst_mr->lkey), "post_recv");
	ok(!post_send(p.a, 0xa0, imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		      src, len, src_mr->lkey, IBV_SEND_SIGNALED, 0, 0),
	   "post_send");
	n = poll_all(wc, 2, wait_ms());
	for (i = 0; i < n; i++) {
		if (wc[i].wr_id == 0xa0)
			got_send = wc[i].status == IBV_WC_SUCCESS &&
				   wc[i].opcode == IBV_WC_SEND &&
				   wc[i].qp_num == p.a->qp_num;
		if (wc[i].wr_id == 0xb0)
			got_recv = wc[i].status == IBV_WC_SUCCESS &&
				   wc[i].opcode == IBV_WC_RECV &&
				   wc[i].byte_len == len &&
				   wc[i].qp_num == p.b->qp_num &&
				   (!imm || ((wc[i].wc_flags & IBV_WC_WITH_IMM) &&
					     be32toh(wc[i].imm_data) == 0xc0ffee));
		if (wc[i].status)
			diag("wr_id 0x%llx: %s", (unsigned long long)wc[i].wr_id,
			     ibv_wc_status_str(wc[i].status));
	}
	ok(n == 2 && got_send, "%s %s %u B: send completion", qpt_str(type),
	   imm ? "SEND_WITH_IMM" : "SEND", len);
	ok(got_recv, "%s %s %u B: receive completion, byte_len%s",
	   qpt_str(type), imm ? "SEND_WITH_IMM" : "SEND", len,
	   imm ? ", immediate data" : "");
	data = !memcmp(src, dst, len) && dst[len] == 0xee;
	ok(data, "%s SEND %u B: data arrived whole, nothing past it",
	   qpt_str(type), len);
	free_pair(&p);
}

static void test_write(enum ibv_qp_type type, uint32_t len, bool imm)
{
	struct pair p = {};
	struct ibv_wc wc[2] = {};
	int n;

	if (!ok(make_pair(&p, type, IBV_ACCESS_REMOTE_WRITE, 7),
		"%s pair for WRITE", qpt_str(type))) {
		free_pair(&p);
		return;
	}
	pattern(src, len, 3);
	memset(dst, 0, len + 1);
	if (imm)
		post_recv(p.b, 0xb1, dst, 0, dst_mr->lkey);
	ok(!post_send(p.a, 0xa1, imm ? IBV_WR_RDMA_WRITE_WITH_IMM :
				       IBV_WR_RDMA_WRITE,
		      src, len, src_mr->lkey, IBV_SEND_SIGNALED,
		      (uintptr_t)dst + 0, dst_mr->rkey),
	   "post RDMA WRITE");
	n = poll_all(wc, imm ? 2 : 1, wait_ms());
	ok(n == (imm ? 2 : 1) && !wc[0].status && (!imm || !wc[1].status),
	   "%s RDMA WRITE%s %u B: %d completion(s), status %s", qpt_str(type),
	   imm ? "_WITH_IMM" : "", len, n,
	   n ? ibv_wc_status_str(wc[0].status) : "-");
	if (imm) {
		struct ibv_wc *r = wc[0].wr_id == 0xb1 ? &wc[0] : &wc[1];

		ok(n == 2 && r->opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
		   r->byte_len == len && be32toh(r->imm_data) == 0xc0ffee,
		   "WRITE_WITH_IMM consumed a receive: opcode %d, byte_len %u",
		   r->opcode, r->byte_len);
	}
	ok(!memcmp(src, dst, len) && !dst[len], "%s RDMA WRITE %u B: data",
	   qpt_str(type), len);
	free_pair(&p);
}

static void test_read(uint32_t len)
{
	struct pair p = {};
	struct ibv_wc wc = { .status = IBV_WC_GENERAL_ERR };

	if (!ok(make_pair(&p, IBV_QPT_RC, IBV_ACCESS_REMOTE_READ, 7),
		"RC pair for READ")) {
		free_pair(&p);
		return;
	}
	pattern(dst, len, 9);
	memset(src, 0, len);
	ok(!post_send(p.a, 0xa2, IBV_WR_RDMA_READ, src, len, src_mr->lkey,
		      IBV_SEND_SIGNALED, (uintptr_t)dst, dst_mr->rkey),
	   "post RDMA READ");
	ok(poll_one(&wc, wait_ms()) && !wc.status && wc.opcode == IBV_WC_RDMA_READ &&
	   wc.byte_len == len, "RDMA READ %u B completes", len);
	ok(!memcmp(src, dst, len), "RDMA READ %u B: data", len);
	free_pair(&p);
}

static void test_atomics(void)
{
	struct pair p = {};
	struct ibv_sge sge = { (uintptr_t)src, 8, src_mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	uint64_t *target = (uint64_t *)dst, *result = (uint64_t *)src;
	struct ibv_wc wc = { .status = IBV_WC_GENERAL_ERR };

	if (!ok(make_pair(&p, IBV_QPT_RC, IBV_ACCESS_REMOTE_ATOMIC |
			  IBV_ACCESS_REMOTE_WRITE, 7), "RC pair for atomics")) {
		free_pair(&p);
		return;
	}
	*target = 40;
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = (uintptr_t)target;
	wr.wr.atomic.rkey = dst_mr->rkey;
	wr.wr.atomic.compare_add = 2;
	ok(!ibv_post_send(p.a, &wr, &bad) && poll_one(&wc, wait_ms()) &&
	   !wc.status && wc.opcode == IBV_WC_FETCH_ADD,
	   "FETCH_AND_ADD completes");
	ok(*result == 40 && *target == 42, "FETCH_AND_ADD: returned %llu, target %llu",
	   (unsigned long long)*result, (unsigned long long)*target);
	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.wr.atomic.compare_add = 42;
	wr.wr.atomic.swap = 7;
	ok(!ibv_post_send(p.a, &wr, &bad) && poll_one(&wc, wait_ms()) &&
	   !wc.status && *result == 42 && *target == 7,
	   "CMP_AND_SWP (equal): returned %llu, target %llu",
	   (unsigned long long)*result, (unsigned long long)*target);
	wr.wr.atomic.compare_add = 1000;
	wr.wr.atomic.swap = 99;
	ok(!ibv_post_send(p.a, &wr, &bad) && poll_one(&wc, wait_ms()) &&
	   !wc.status && *result == 7 && *target == 7,
	   "CMP_AND_SWP (different): target unchanged");
	wr.wr.atomic.remote_addr = (uintptr_t)target + 1;
	wc.status = IBV_WC_GENERAL_ERR;
	if (!ibv_post_send(p.a, &wr, &bad))
		poll_one(&wc, wait_ms());
	ok(wc.status == IBV_WC_REM_INV_REQ_ERR, "misaligned atomic: %s",
	   ibv_wc_status_str(wc.status));
	free_pair(&p);
}

/* Unsignaled WQEs complete silently and free their slots. */
static void test_unsignaled(void)
{
	struct pair p = {};
	struct ibv_wc wc[40];
	int i, fails = 0, n, sends = 0, recvs = 0;

	if (!ok(make_pair(&p, IBV_QPT_RC, IBV_ACCESS_REMOTE_WRITE, 7),
		"RC pair for unsignaled")) {
		free_pair(&p);
		return;
	}
	/* 40 sends through a 16-deep SQ: only every 8th is signaled */
	for (i = 0; i < 40; i++) {
		int flags = (i % 8 == 7) ? IBV_SEND_SIGNALED : 0;

		fails += !!post_send(p.a, i, IBV_WR_RDMA_WRITE, src, 16,
				     src_mr->lkey, flags, (uintptr_t)dst,
				     dst_mr->rkey);
		if (flags) {
			fails += !poll_one(&wc[0], wait_ms()) || wc[0].status ||
				 wc[0].wr_id != (uint64_t)i;
			sends++;
		}
	}
	n = poll_all(wc, 40, 200);
	for (i = 0; i < n; i++)
		recvs += !(wc[i].opcode & IBV_WC_RECV);
	ok(!fails && sends == 5 && !recvs,
	   "40 WRITEs, 5 signaled: 5 send completions, posting never blocked (%d failures)",
	   fails);
	free_pair(&p);
}

static void test_inline(void)
{
	struct pair p = {};
	struct ibv_wc wc[2];
	char msg[] = "inline data, no lkey";

	if (!ok(make_pair(&p, IBV_QPT_RC, 0, 7), "RC pair for inline")) {
		free_pair(&p);
		return;
	}
	memset(dst, 0, 64);
	post_recv(p.b, 0xb3, dst, 64, dst_mr->lkey);
	ok(!post_send(p.a, 0xa3, IBV_WR_SEND, msg, sizeof(msg), 0xdead,
		      IBV_SEND_SIGNALED | IBV_SEND_INLINE, 0, 0),
	   "post inline SEND (bogus lkey, not used)");
	ok(poll_all(wc, 2, wait_ms()) == 2 && !wc[0].status && !wc[1].status &&
	   !memcmp(dst, msg, sizeof(msg)), "inline SEND delivered");
	ok(post_send(p.a, 0xa4, IBV_WR_SEND, src, 4096, src_mr->lkey,
		     IBV_SEND_INLINE, 0, 0) == EINVAL,
	   "inline SEND over max_inline_data: EINVAL");
	{
		/* lengths whose 32-bit sum wraps to 1 (verbs fuzzer, seed 1) */
		struct ibv_sge sge[2] = {
			{ (uintptr_t)src, 0xffffffff, 0 },
			{ (uintptr_t)src, 2, 0 },
		};
		struct ibv_send_wr wr = {
			.wr_id = 0xa5, .sg_list = sge, .num_sge = 2,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_INLINE,
		}, *bad = NULL;

		ok(ibv_post_send(p.a, &wr, &bad) == EINVAL && bad == &wr,
		   "inline SEND whose SGE lengths sum past 2^32: EINVAL");
	}
	free_pair(&p);
}

/*
 * ibv_rereg_mr(IBV_REREG_MR_CHANGE_PD) to a PD of another context:
 * refused, and the MR stays usable in its own (the verbs fuzzer: the MR
 * became the other context's and its dereg went through that context
 * after it was closed).
 */
static void test_foreign_pd_rereg(void)
{
	struct ibv_context *other = ibv_open_device(ctx->device);
	struct ibv_pd *opd = other ? ibv_alloc_pd(other) : NULL;
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx);
	static uint8_t buf[4096];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf),
				       IBV_ACCESS_LOCAL_WRITE);
	int ret;

	if (!ok(opd && pd2 && mr, "a second context's PD, a PD and an MR"))
		goto out;
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, opd, NULL, 0, 0);
	ok(ret && errno == EINVAL && mr->pd == pd && mr->context == ctx,
	   "rereg_mr to a PD of another context: EINVAL, MR unchanged (%s)",
	   ret ? err_str(errno) : "done");
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0);
	ok(!ret && mr->pd == pd2,
	   "rereg_mr to another PD of its own context works (%s)",
	   ret ? err_str(errno) : "ok");
	ibv_dealloc_pd(opd);
	opd = NULL;
	ibv_close_device(other);
	other = NULL;
	ok(!ibv_dereg_mr(mr), "dereg_mr after the other context is closed");
	mr = NULL;
out:
	if (mr)
		ibv_dereg_mr(mr);
	if (pd2)
		ibv_dealloc_pd(pd2);
	if (opd)
		ibv_dealloc_pd(opd);
	if (other)
		ibv_close_device(other);
}

/*
 * A QP with a CQ of another context: refused (the verbs fuzzer, seed 5:
 * the provider kept the pointer and cleaned the other context's freed CQ
 * at RESET).
 */
/*
 * REREG_MR through the write() interface with 8 bytes of driver data:
 * orca defines no rereg input, and like every other verb it must refuse
 * input it does not understand unless it is zero (EOPNOTSUPP), so that a
 * later provider's payload is never silently ignored.
 */
static int raw_rereg_access(struct ibv_mr *mr, int access, uint64_t drv)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_rereg_mr cmd;
		__u64 drv;
	} req = {};
	struct ib_uverbs_rereg_mr_resp resp = {};

	req.hdr.command = IB_USER_VERBS_CMD_REREG_MR;
	req.hdr.in_words = sizeof(req) / 4;
	req.hdr.out_words = sizeof(resp) / 4;
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.mr_handle = mr->handle;
	req.cmd.flags = IBV_REREG_MR_CHANGE_ACCESS;
	req.cmd.access_flags = access;
	req.drv = drv;
	if (write(mr->context->cmd_fd, &req, sizeof(req)) != (ssize_t)sizeof(req))
		return errno;
	return resp.lkey == mr->lkey ? 0 : EPROTO;
}

static void test_rereg_udata(void)
{
	static uint8_t buf[4096];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf),
				       IBV_ACCESS_LOCAL_WRITE);
	int err;

	if (!ok(mr != NULL, "an MR for rereg with driver data"))
		return;
	err = raw_rereg_access(mr, IBV_ACCESS_LOCAL_WRITE, 0x5a);
	ok(err == EOPNOTSUPP,
	   "rereg_mr with non-zero driver data the driver does not define: EOPNOTSUPP (%s)",
	   err ? err_str(err) : "accepted");
	err = raw_rereg_access(mr, IBV_ACCESS_LOCAL_WRITE, 0);
	ok(!err, "rereg_mr with zero driver data: accepted, the same keys (%s)",
	   err ? err_str(err) : "ok");
	ok(!ibv_dereg_mr(mr), "dereg_mr after the rereg");
}

static void test_foreign_cq(void)
{
	struct ibv_context *other = ibv_open_device(ctx->device);
	struct ibv_cq *ocq = other ? ibv_create_cq(other, 16, NULL, NULL, 0) : NULL;
	struct ibv_qp_init_attr a = {
		.send_cq = cq, .recv_cq = ocq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp;

	if (!ok(ocq != NULL, "a second context and a CQ in it"))
		goto out;
	errno = 0;
	qp = ibv_create_qp(pd, &a);
	ok(!qp && errno == EINVAL,
	   "create_qp with a receive CQ of another context: EINVAL (%s)",
	   qp ? "created" : err_str(errno));
	if (qp)
		ibv_destroy_qp(qp);
	a.send_cq = ocq;
	a.recv_cq = cq;
	errno = 0;
	qp = ibv_create_qp(pd, &a);
	ok(!qp && errno == EINVAL,
	   "create_qp with a send CQ of another context: EINVAL (%s)",
	   qp ? "created" : err_str(errno));
	if (qp)
		ibv_destroy_qp(qp);
out:
	if (ocq)
		ibv_destroy_cq(ocq);
	if (other)
		ibv_close_device(other);
}

static void expect_error(const char *what, struct pair *p,
			 enum ibv_wc_status want)
{
	struct ibv_wc wc = { .status = IBV_WC_GENERAL_ERR };
	bool got = poll_one(&wc, wait_ms());

	ok(got && wc.wr_id == 0xe0 && wc.status == want, "%s: %s (got %s)",
	   what, ibv_wc_status_str(want),
	   got ? ibv_wc_status_str(wc.status) : "nothing");
	ok(query_state(p->a) == IBV_QPS_ERR, "%s: requester QP in ERR", what);
}

static void test_errors(void)
{
	struct pair p = {};
	struct ibv_wc wc[8];
	int n, i, flushed = 0;

	/* local protection: an lkey that does not exist */
	if (make_pair(&p, IBV_QPT_RC, IBV_ACCESS_REMOTE_WRITE, 7)) {
		post_send(p.a, 0xe0, IBV_WR_SEND, src, 8, src_mr->lkey + 1,
			  IBV_SEND_SIGNALED, 0, 0);
		expect_error("bad lkey", &p, IBV_WC_LOC_PROT_ERR);
		/* later WQEs and receives are flushed */
		post_send(p.a, 0xe1, IBV_WR_SEND, src, 8, src_mr->lkey, 0, 0, 0);
		post_recv(p.a, 0xe2, dst, 8, dst_mr->lkey);
		n = poll_all(wc, 2, wait_ms());
		for (i = 0; i < n; i++)
			flushed += wc[i].status == IBV_WC_WR_FLUSH_ERR;
		ok(flushed == 2, "in ERR: unsignaled send and receive flushed (%d of 2)",
		   flushed);
	}
	free_pair(&p);

	/* remote access: an rkey the responder does not know */
	if (make_pair(&p, IBV_QPT_RC, IBV_ACCESS_REMOTE_WRITE, 7)) {
		post_send(p.a, 0xe0, IBV_WR_RDMA_WRITE, src, 8, src_mr->lkey,
			  IBV_SEND_SIGNALED, (uintptr_t)dst, dst_mr->rkey ^ 0x100);
		expect_error("bad rkey", &p, IBV_WC_REM_ACCESS_ERR);
		ok(query_state(p.b) == IBV_QPS_ERR, "bad rkey: responder QP in ERR");
	}
	free_pair(&p);

	/* out of bounds of the remote region */
	if (make_pair(&p, IBV_QPT_RC, IBV_ACCESS_REMOTE_WRITE, 7)) {
		post_send(p.a, 0xe0, IBV_WR_RDMA_WRITE, src, 64, src_mr->lkey,
			  IBV_SEND_SIGNALED, (uintptr_t)dst + BUF_SIZE - 32,
			  dst_mr->rkey);
		expect_error("WRITE past the region", &p, IBV_WC_REM_ACCESS_ERR);
	}
	free_pair(&p);

	/* the QP does not allow remote writes */
	if (make_pair(&p, IBV_QPT_RC, IBV_ACCESS_REMOTE_READ, 7)) {
		post_send(p.a, 0xe0, IBV_WR_RDMA_WRITE, src, 8, src_mr->lkey,
			  IBV_SEND_SIGNALED, (uintptr_t)dst, dst_mr->rkey);
		expect_error("WRITE to a QP without REMOTE_WRITE", &p,
			     IBV_WC_REM_INV_REQ_ERR);
	}
	free_pair(&p);

	/* receive buffer too small */
	if (make_pair(&p, IBV_QPT_RC, 0, 7)) {
		post_recv(p.b, 0xb9, dst, 16, dst_mr->lkey);
		post_send(p.a, 0xe0, IBV_WR_SEND, src, 64, src_mr->lkey,
			  IBV_SEND_SIGNALED, 0, 0);
		n = poll_all(wc, 2, wait_ms());
		ok(n == 2 && ((wc[0].wr_id == 0xb9 &&
			       wc[0].status == IBV_WC_LOC_LEN_ERR &&
			       wc[1].status == IBV_WC_REM_INV_REQ_ERR) ||
			      (wc[1].wr_id == 0xb9 &&
			       wc[1].status == IBV_WC_LOC_LEN_ERR &&
			       wc[0].status == IBV_WC_REM_INV_REQ_ERR)),
		   "SEND longer than the receive: LOC_LEN_ERR and REM_INV_REQ_ERR");
	}
	free_pair(&p);

	/* no receive posted, no RNR retries */
	if (make_pair(&p, IBV_QPT_RC, 0, 0)) {
		post_send(p.a, 0xe0, IBV_WR_SEND, src, 8, src_mr->lkey,
			  IBV_SEND_SIGNALED, 0, 0);
		expect_error("SEND without a receive, rnr_retry 0", &p,
			     IBV_WC_RNR_RETRY_EXC_ERR);
	}
	free_pair(&p);

	/* RNR retried until a receive shows up */
	if (make_pair(&p, IBV_QPT_RC, 0, 7)) {
		memset(dst, 0, 8);
		post_send(p.a, 0xa5, IBV_WR_SEND, src, 8, src_mr->lkey,
			  IBV_SEND_SIGNALED, 0, 0);
		sleep_ms(50);
		ok(ibv_poll_cq(cq, 1, wc) == 0, "RNR: no completion while no receive is posted");
		post_recv(p.b, 0xb5, dst, 8, dst_mr->lkey);
		n = poll_all(wc, 2, wait_ms());
		ok(n == 2 && !wc[0].status && !wc[1].status,
		   "RNR with rnr_retry 7: delivered once the receive is posted");
	}
	free_pair(&p);

	/* moving to ERR flushes posted receives */
	if (make_pair(&p, IBV_QPT_RC, 0, 7)) {
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

		for (i = 0; i < 3; i++)
			post_recv(p.b, 0xf0 + i, dst, 8, dst_mr->lkey);
		ok(!ibv_modify_qp(p.b, &a, IBV_QP_STATE), "modify to ERR");
		/* the 3 flushes, then a short look for anything more */
		n = poll_all(wc, 3, wait_ms());
		n += poll_all(wc + n, 8 - n, 200);
		flushed = 0;
		for (i = 0; i < n; i++)
			flushed += wc[i].status == IBV_WC_WR_FLUSH_ERR &&
				   wc[i].wr_id == 0xf0 + (uint64_t)i;
		ok(flushed == 3, "ERR: 3 receives flushed in order (%d)", flushed);
	}
	free_pair(&p);
}

static struct ibv_qp *ud_qp(void)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);

	if (qp && (walk_to(qp, &port, IBV_QPS_RESET, IBV_QPS_INIT) ||
		   walk_to(qp, &port, IBV_QPS_INIT, IBV_QPS_RTR) ||
		   walk_to(qp, &port, IBV_QPS_RTR, IBV_QPS_RTS))) {
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

static int post_ud(struct ibv_qp *qp, uint64_t id, struct ibv_ah *ah,
		   uint32_t qpn, uint32_t qkey, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)src, len, src_mr->lkey };
	struct ibv_send_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND_WITH_IMM,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	wr.imm_data = htobe32(0x5eed);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = qpn;
	wr.wr.ud.remote_qkey = qkey;
	return ibv_post_send(qp, &wr, &bad);
}

/* UD through address handles: LID and GRH routing, Q_Key, GRH room. */
static void test_ud(void)
{
	struct ibv_ah_attr lid_attr = { .dlid = port.lid, .port_num = 1 };
	struct ibv_ah_attr grh_attr = { .dlid = port.lid, .port_num = 1,
					.is_global = 1 };
	struct ibv_qp *a = ud_qp(), *b = ud_qp();
	struct ibv_ah *lah = NULL, *gah = NULL;
	struct ibv_wc wc[2];
	union ibv_gid gid;
	int n, i, recvs = 0;

	if (!ok(a && b, "two UD QPs in RTS"))
		goto out;
	ibv_query_gid(ctx, 1, 0, &gid);
	grh_attr.grh.dgid = gid;
	lah = ibv_create_ah(pd, &lid_attr);
	gah = ibv_create_ah(pd, &grh_attr);
	if (!ok(lah && gah, "ibv_create_ah by LID and by GID: %s",
		lah && gah ? "ok" : strerror(errno)))
		goto out;

	pattern(src, 64, 77);
	memset(dst, 0xee, 200);
	post_recv(b, 0xd1, dst, 40 + 64, dst_mr->lkey);
	ok(!post_ud(a, 0xd0, lah, b->qp_num, 0x11111111, 64), "post UD SEND");
	n = poll_all(wc, 2, wait_ms());
	for (i = 0; i < n; i++)
		if (wc[i].wr_id == 0xd1)
			recvs = !wc[i].status && wc[i].byte_len == 40 + 64 &&
				wc[i].src_qp == a->qp_num &&
				!(wc[i].wc_flags & IBV_WC_GRH) &&
				be32toh(wc[i].imm_data) == 0x5eed;
	ok(n == 2 && recvs, "UD by LID: send and receive completions, byte_len 40 + 64, src_qp, immediate");
	ok(!memcmp(dst + 40, src, 64) && dst[0] == 0xee,
	   "UD by LID: payload at +40, GRH room untouched");

	post_recv(b, 0xd3, dst, 40 + 64, dst_mr->lkey);
	ok(!post_ud(a, 0xd2, gah, b->qp_num, 0x11111111, 64), "post UD SEND with GRH");
	n = poll_all(wc, 2, wait_ms());
	recvs = 0;
	for (i = 0; i < n; i++)
		if (wc[i].wr_id == 0xd3)
			recvs = !wc[i].status && (wc[i].wc_flags & IBV_WC_GRH);
	ok(n == 2 && recvs && !memcmp(dst + 24, gid.raw, 16) &&
	   !memcmp(dst + 40, src, 64),
	   "UD by GID: IBV_WC_GRH, the GRH (destination GID) in the first 40 bytes");

	post_recv(b, 0xd5, dst, 40 + 64, dst_mr->lkey);
	post_ud(a, 0xd4, lah, b->qp_num, 0x22222222, 64);
	/* the send completion; then a short look for a receive that must not come */
	n = poll_all(wc, 1, wait_ms());
	n += poll_all(wc + n, 2 - n, 300);
	ok(n == 1 && wc[0].wr_id == 0xd4 && !wc[0].status,
	   "wrong Q_Key: the send completes, nothing is received");
	post_ud(a, 0xd6, lah, b->qp_num, 0x11111111, 8);
	n = poll_all(wc, 2, wait_ms());
	ok(n == 2, "the receive posted before is still there for the next message");
	post_ud(a, 0xd7, lah, b->qp_num, 0x11111111, 4097);
	n = poll_all(wc, 1, wait_ms());
	n += poll_all(wc + n, 2 - n, 300);
	ok(n == 1 && wc[0].wr_id == 0xd7 && !wc[0].status,
	   "UD over the port MTU: completes, nothing sent (IBTA C10-93.1.1)");
out:
	if (a)
		ibv_destroy_qp(a);
	if (b)
		ibv_destroy_qp(b);
	ok(!lah || !ibv_destroy_ah(lah), "destroy AH");
	if (gah)
		ibv_destroy_ah(gah);
	while (ibv_poll_cq(cq, 2, wc) > 0)
		;
}

/* One completion event within @ms: true if it came, for @want. */
static bool wait_cq_event(struct ibv_comp_channel *ch, struct ibv_cq *want,
			  int ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *got;
	void *cq_ctx;

	if (poll(&pfd, 1, ms) != 1)
		return false;
	if (ibv_get_cq_event(ch, &got, &cq_ctx))
		return false;
	ibv_ack_cq_events(got, 1);
	return got == want;
}

static void test_cq_events(void)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);
	struct ibv_cq *ecq = NULL, *saved = cq;
	struct pair p = {};
	struct ibv_wc wc[2];

	if (ch)
		ecq = ibv_create_cq(ctx, 16, NULL, ch, 0);
	if (!ok(ch && ecq, "completion channel and a CQ on it"))
		goto out;
	fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK);
	cq = ecq;
	if (!ok(make_pair(&p, IBV_QPT_RC, 0, 7), "RC pair on the CQ"))
		goto out;

	ok(!ibv_req_notify_cq(ecq, 0), "ibv_req_notify_cq(all)");
	post_recv(p.b, 1, dst, 64, dst_mr->lkey);
	post_send(p.a, 2, IBV_WR_SEND, src, 8, src_mr->lkey,
		  IBV_SEND_SIGNALED, 0, 0);
	ok(wait_cq_event(ch, ecq, wait_ms()), "armed CQ: a completion event");
	ok(poll_all(wc, 2, wait_ms()) == 2, "both completions polled after the event");

	post_recv(p.b, 3, dst, 64, dst_mr->lkey);
	post_send(p.a, 4, IBV_WR_SEND, src, 8, src_mr->lkey,
		  IBV_SEND_SIGNALED, 0, 0);
	ok(poll_all(wc, 2, wait_ms()) == 2 && !wait_cq_event(ch, ecq, 300),
	   "not re-armed: completions but no event (arming is one-shot)");

	ok(!ibv_req_notify_cq(ecq, 1), "ibv_req_notify_cq(solicited only)");
	post_recv(p.b, 5, dst, 64, dst_mr->lkey);
	post_send(p.a, 6, IBV_WR_SEND, src, 8, src_mr->lkey,
		  IBV_SEND_SIGNALED, 0, 0);
	ok(poll_all(wc, 2, wait_ms()) == 2 && !wait_cq_event(ch, ecq, 300),
	   "solicited only: no event for an unsolicited message");
	post_recv(p.b, 7, dst, 64, dst_mr->lkey);
	post_send(p.a, 8, IBV_WR_SEND, src, 8, src_mr->lkey,
		  IBV_SEND_SIGNALED | IBV_SEND_SOLICITED, 0, 0);
	ok(wait_cq_event(ch, ecq, wait_ms()), "solicited only: an event for IBV_SEND_SOLICITED");
	poll_all(wc, 2, wait_ms());
out:
	free_pair(&p);
	cq = saved;
	if (ecq)
		ibv_destroy_cq(ecq);
	if (ch)
		ibv_destroy_comp_channel(ch);
}

static void test_post_state(void)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 2, .max_recv_wr = 2,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);

	if (!ok(qp != NULL, "RC QP"))
		return;
	ok(post_send(qp, 1, IBV_WR_SEND, src, 8, src_mr->lkey, 0, 0, 0) ==
	   EINVAL, "post_send in RESET: EINVAL");
	ok(post_recv(qp, 1, dst, 8, dst_mr->lkey) == EINVAL,
	   "post_recv in RESET: EINVAL");
	ok(!walk_to(qp, &port, IBV_QPS_RESET, IBV_QPS_INIT) &&
	   post_send(qp, 1, IBV_WR_SEND, src, 8, src_mr->lkey, 0, 0, 0) ==
	   EINVAL, "post_send in INIT: EINVAL");
	ok(!post_recv(qp, 1, dst, 8, dst_mr->lkey) &&
	   !post_recv(qp, 2, dst, 8, dst_mr->lkey) &&
	   post_recv(qp, 3, dst, 8, dst_mr->lkey) == ENOMEM,
	   "post_recv in INIT: accepted up to max_recv_wr, then ENOMEM");
	ibv_destroy_qp(qp);
}

static void test_mr(void)
{
	struct ibv_mr *mr;
	uint32_t old;

	mr = ibv_reg_mr(pd, src, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!ok(mr != NULL, "reg_mr 4 KiB: %s", mr ? "ok" : strerror(errno)))
		return;
	old = mr->lkey;
	ok(!ibv_dereg_mr(mr), "dereg_mr");
	mr = ibv_reg_mr(pd, src, 4096, IBV_ACCESS_LOCAL_WRITE);
	ok(mr && mr->lkey != old, "re-registration gets a new key (0x%x -> 0x%x)",
	   old, mr ? mr->lkey : 0);
	if (mr)
		ibv_dereg_mr(mr);
	mr = ibv_reg_mr(pd, src + 100, 5000,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
			IBV_ACCESS_RELAXED_ORDERING);
	ok(mr != NULL, "reg_mr unaligned, all remote rights, relaxed ordering");
	if (mr)
		ibv_dereg_mr(mr);
	mr = ibv_reg_mr(pd, src, 4096, IBV_ACCESS_REMOTE_WRITE);
	ok(!mr && errno == EINVAL, "REMOTE_WRITE without LOCAL_WRITE: EINVAL");
	if (mr)
		ibv_dereg_mr(mr);
	ok(ibv_dealloc_pd(pd) == EBUSY, "dealloc_pd with MRs on it: EBUSY");
}

int main(int argc, char **argv)
{
	const char *name = parse_dev_arg(&argc, &argv);

	ctx = open_device_by_name(name);
	if (!ctx)
		return tap_done();
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	src = aligned_alloc(4096, BUF_SIZE);
	dst = aligned_alloc(4096, BUF_SIZE);
	if (!ok(pd && cq && src && dst && !ibv_query_port(ctx, 1, &port),
		"PD, CQ, port"))
		return tap_done();
	src_mr = ibv_reg_mr(pd, src, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE);
	dst_mr = ibv_reg_mr(pd, dst, BUF_SIZE,
			    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	if (!ok(src_mr && dst_mr, "reg_mr of two 256 KiB buffers (lkeys 0x%x 0x%x)",
		src_mr ? src_mr->lkey : 0, dst_mr ? dst_mr->lkey : 0))
		return tap_done();

	test_mr();
	test_send(IBV_QPT_RC, 8, false);
	test_send(IBV_QPT_RC, 4096, true);
	test_send(IBV_QPT_RC, 65536 + 17, false);
	test_send(IBV_QPT_UC, 5000, true);
	test_write(IBV_QPT_RC, 100000, false);
	test_write(IBV_QPT_RC, 300, true);
	test_write(IBV_QPT_UC, 9000, false);
	test_read(8);
	test_read(70000);
	test_atomics();
	test_unsignaled();
	test_inline();
	test_foreign_cq();
	test_foreign_pd_rereg();
	test_rereg_udata();
	test_post_state();
	test_cq_events();
	test_ud();
	test_errors();

	ibv_dereg_mr(src_mr);
	ibv_dereg_mr(dst_mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return tap_done();
}
