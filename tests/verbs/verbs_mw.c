// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory windows (ibv_alloc_mw(3), ibv_bind_mw(3), IBV_WR_BIND_MW,
 * IBV_WR_LOCAL_INV, IBV_WR_SEND_WITH_INV, ibv_wr_bind_mw(3)) on one
 * port, RC QP to RC QP through the device's loopback.  A is the
 * requester, B owns the windows over its region (LOCAL_WRITE | MW_BIND,
 * no remote rights of its own); each refusal that ends a QP is followed
 * by a fresh pair.
 *
 *  1. the device reports IBV_DEVICE_MEM_WINDOW, IBV_DEVICE_MEM_WINDOW_TYPE_2B
 *     and max_mw; a window of type 3 is EINVAL;
 *  2. type 1: ibv_bind_mw completes IBV_WC_BIND_MW and changes mw->rkey;
 *     RDMA WRITE and READ through the window move the right bytes; the
 *     region cannot be deregistered while bound (EBUSY); a rebind makes
 *     the old key stale, a zero-length bind makes every key stale; out of
 *     bounds and a right the window lacks are IBV_WC_REM_ACCESS_ERR;
 *     binding a region without MW_BIND, a window of another PD than the
 *     QP's are IBV_WC_MW_BIND_ERR; LOCAL_INV of a type 1 window is
 *     IBV_WC_LOC_QP_OP_ERR;
 *  3. type 2 (post_send IBV_WR_BIND_MW, the consumer's key byte): usable
 *     from the QP it is bound to only (another QP: REM_ACCESS_ERR); a
 *     second bind while bound is MW_BIND_ERR, so is a region of another
 *     PD; LOCAL_INV (IBV_WC_LOCAL_INV) and SEND_WITH_INV (receive with
 *     IBV_WC_WITH_INV and the key) invalidate it; SEND_WITH_INV of a key
 *     that is no window of the receiver fails on both sides with
 *     IBV_WC_REM_INV_REQ_ERR; LOCAL_INV of a region's key is
 *     LOC_QP_OP_ERR; ibv_dealloc_mw of a bound window and ibv_destroy_qp
 *     of the QP it is bound to invalidate it (the region can go then);
 *  4. ibv_qp_ex: ibv_wr_bind_mw / ibv_wr_local_inv accepted with their
 *     IBV_QP_EX_WITH_* flags (not BIND_MW on UD: EOPNOTSUPP);
 *  5. a device without windows (vm-features-off): no caps, max_mw 0,
 *     ibv_alloc_mw of either type fails with EOPNOTSUPP; the rest is
 *     skipped.
 *
 *   verbs_mw [-d orca0]
 */
#include "common.h"

#define BUF		(16 * 1024)

static struct ibv_context *ctx;
static struct ibv_pd *pd, *pd2;
static struct ibv_cq *cqa, *cqb;
static struct ibv_port_attr port;
static struct ibv_device_attr_ex dev_attr;
static uint8_t *src, *dst;
static struct ibv_mr *src_mr, *dst_mr;
static struct ibv_qp *qa, *qb;		/* the current pair */

static int connect_qp(struct ibv_qp *qp, uint32_t dest)
{
	struct ibv_qp_attr a;

	fill_attr(&a, qp, &port, IBV_QPS_INIT);
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
	if (ibv_modify_qp(qp, &a, required_mask(qp->qp_type, IBV_QPS_RESET,
						IBV_QPS_INIT)))
		return -1;
	fill_attr(&a, qp, &port, IBV_QPS_RTR);
	a.dest_qp_num = dest;
	a.rq_psn = 100;
	a.min_rnr_timer = 1;
	if (ibv_modify_qp(qp, &a, required_mask(qp->qp_type, IBV_QPS_INIT,
						IBV_QPS_RTR)))
		return -1;
	fill_attr(&a, qp, &port, IBV_QPS_RTS);
	a.sq_psn = 100;
	return ibv_modify_qp(qp, &a, required_mask(qp->qp_type, IBV_QPS_RTR,
						   IBV_QPS_RTS));
}

static struct ibv_qp *rc_qp(struct ibv_pd *p, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(p, &init);
}

static void drain(void)
{
	struct ibv_wc wc[16];

	while (ibv_poll_cq(cqa, 16, wc) > 0 || ibv_poll_cq(cqb, 16, wc) > 0)
		;
}

/* A fresh connected pair qa -> qb (the old one destroyed). */
static bool new_pair(void)
{
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	drain();
	qa = rc_qp(pd, cqa);
	qb = rc_qp(pd, cqb);
	return qa && qb && !connect_qp(qa, qb->qp_num) &&
	       !connect_qp(qb, qa->qp_num);
}

/* qa: one signaled @opcode of @len bytes at src, remote dst + @off. */
static struct ibv_wc rdma(enum ibv_wr_opcode opcode, uint32_t rkey,
			  uint64_t off, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)src, len, src_mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
				  .opcode = opcode,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	wr.wr.rdma.remote_addr = (uintptr_t)dst + off;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(qa, &wr, &bad)) {
		memset(&wc, 0, sizeof(wc));
		wc.status = 0xff;
		return wc;
	}
	return next_wc(cqa);
}

/* Post a type 2 bind (or any bind) on @qp: its completion. */
static struct ibv_wc post_bind(struct ibv_qp *qp, struct ibv_cq *cq,
			       struct ibv_mw *mw, uint32_t rkey,
			       struct ibv_mr *mr, uint64_t off, uint64_t len,
			       unsigned int access)
{
	struct ibv_send_wr wr = { .wr_id = 0xb1, .opcode = IBV_WR_BIND_MW,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc = { .status = 0xff };

	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)mr->addr + off;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = access;
	if (ibv_post_send(qp, &wr, &bad))
		return wc;
	return next_wc(cq);
}

static struct ibv_wc post_inv(struct ibv_qp *qp, struct ibv_cq *cq,
			      uint32_t key)
{
	struct ibv_send_wr wr = { .wr_id = 0x1a, .opcode = IBV_WR_LOCAL_INV,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc = { .status = 0xff };

	wr.invalidate_rkey = key;
	if (ibv_post_send(qp, &wr, &bad))
		return wc;
	return next_wc(cq);
}

/* ibv_bind_mw on qb: its completion; mw->rkey as the provider set it. */
static struct ibv_wc bind1(struct ibv_mw *mw, struct ibv_mr *mr, uint64_t off,
			   uint64_t len, unsigned int access)
{
	struct ibv_mw_bind b = { .wr_id = 0xb0,
				 .send_flags = IBV_SEND_SIGNALED };
	struct ibv_wc wc = { .status = 0xff };
	int ret;

	b.bind_info.mr = mr;
	b.bind_info.addr = (uintptr_t)mr->addr + off;
	b.bind_info.length = len;
	b.bind_info.mw_access_flags = access;
	ret = ibv_bind_mw(qb, mw, &b);
	if (ret) {
		diag("ibv_bind_mw: %s", strerror(ret));
		return wc;
	}
	return next_wc(cqb);
}

static void type1(void)
{
	struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	struct ibv_mw *mw_pd2 = ibv_alloc_mw(pd2, IBV_MW_TYPE_1);
	struct ibv_mr *nobind, *mr2;
	uint32_t old, stale;
	struct ibv_wc wc;
	int i;

	if (!ok(mw && mw_pd2 && mw->type == IBV_MW_TYPE_1,
		"type 1: ibv_alloc_mw in two PDs"))
		return;
	new_pair();
	old = mw->rkey;
	wc = bind1(mw, dst_mr, 4096, 8192,
		   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	ok(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_BIND_MW &&
	   wc.wr_id == 0xb0 && wc.qp_num == qb->qp_num,
	   "type 1: ibv_bind_mw completes IBV_WC_BIND_MW (%s, opcode %d)",
	   wc_status_name(&wc), wc.opcode);
	ok(mw->rkey == ibv_inc_rkey(old),
	   "type 1: mw->rkey 0x%x -> 0x%x (the next key byte)", old, mw->rkey);

	for (i = 0; i < 256; i++)
		src[i] = (uint8_t)(i * 7 + 3);
	memset(dst, 0, BUF);
	wc = rdma(IBV_WR_RDMA_WRITE, mw->rkey, 4096 + 100, 256);
	ok(wc.status == IBV_WC_SUCCESS && !memcmp(dst + 4096 + 100, src, 256) &&
	   !dst[4096 + 99] && !dst[4096 + 356],
	   "type 1: RDMA WRITE through the window lands in place (%s)",
	   wc_status_name(&wc));
	memset(src, 0, 256);
	wc = rdma(IBV_WR_RDMA_READ, mw->rkey, 4096 + 100, 256);
	ok(wc.status == IBV_WC_SUCCESS && !memcmp(dst + 4096 + 100, src, 256),
	   "type 1: RDMA READ through the window (%s)", wc_status_name(&wc));
	wc = rdma(IBV_WR_RDMA_WRITE, mw->rkey, 4096 + 8192 - 64, 64);
	ok(wc.status == IBV_WC_SUCCESS,
	   "type 1: a WRITE ending on the window's last byte (%s)", wc_status_name(&wc));

	errno = 0;
	ok(ibv_dereg_mr(dst_mr) == EBUSY,
	   "ibv_dereg_mr of a region with a window bound: EBUSY");

	/* rebind: the previous key is stale */
	stale = mw->rkey;
	wc = bind1(mw, dst_mr, 0, 4096, IBV_ACCESS_REMOTE_WRITE);
	ok(wc.status == IBV_WC_SUCCESS && mw->rkey != stale,
	   "type 1: rebind under a new key (%s)", wc_status_name(&wc));
	wc = rdma(IBV_WR_RDMA_WRITE, mw->rkey, 8, 8);
	ok(wc.status == IBV_WC_SUCCESS, "type 1: the new key works (%s)",
	   wc_status_name(&wc));
	wc = rdma(IBV_WR_RDMA_WRITE, stale, 4096 + 8, 8);
	ok(wc.status == IBV_WC_REM_ACCESS_ERR,
	   "type 1: the key of the previous binding: IBV_WC_REM_ACCESS_ERR (%s)",
	   wc_status_name(&wc));

	new_pair();
	wc = rdma(IBV_WR_RDMA_WRITE, mw->rkey, 4096 - 4, 8);
	ok(wc.status == IBV_WC_REM_ACCESS_ERR,
	   "type 1: WRITE across the window's end: IBV_WC_REM_ACCESS_ERR (%s)",
	   wc_status_name(&wc));
	new_pair();
	wc = rdma(IBV_WR_RDMA_READ, mw->rkey, 0, 8);
	ok(wc.status == IBV_WC_REM_ACCESS_ERR,
	   "type 1: READ of a write-only window: IBV_WC_REM_ACCESS_ERR (%s)",
	   wc_status_name(&wc));

	/* a zero-length bind: bound to nothing, the key refused */
	new_pair();
	{
		struct ibv_mw_bind b = { .wr_id = 0xb2,
					 .send_flags = IBV_SEND_SIGNALED };
		int ret;

		b.bind_info.mr = dst_mr;
		b.bind_info.addr = (uintptr_t)dst;
		ret = ibv_bind_mw(qb, mw, &b);
		wc = ret ? (struct ibv_wc){ .status = 0xff } : next_wc(cqb);
		ok(!ret && wc.status == IBV_WC_SUCCESS,
		   "type 1: zero-length bind (%s)", wc_status_name(&wc));
	}
	wc = rdma(IBV_WR_RDMA_WRITE, mw->rkey, 0, 8);
	ok(wc.status == IBV_WC_REM_ACCESS_ERR,
	   "type 1: a window bound to nothing: IBV_WC_REM_ACCESS_ERR (%s)",
	   wc_status_name(&wc));
	ok(!ibv_dereg_mr(dst_mr), "...and the region is free again");
	dst_mr = ibv_reg_mr(pd, dst, BUF, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_MW_BIND);
	if (!ok(dst_mr != NULL, "register the region again"))
		return;

	/* a region without MW_BIND */
	new_pair();
	nobind = ibv_reg_mr(pd, dst, BUF, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_WRITE);
	wc = nobind ? bind1(mw, nobind, 0, 64, IBV_ACCESS_REMOTE_WRITE) :
		      (struct ibv_wc){ .status = 0xff };
	ok(wc.status == IBV_WC_MW_BIND_ERR && wc.opcode == IBV_WC_BIND_MW,
	   "type 1: a region without MW_BIND: IBV_WC_MW_BIND_ERR (%s)",
	   wc_status_name(&wc));
	ok(query_state(qb) == IBV_QPS_ERR, "...and the QP is in ERR");
	if (nobind)
		ibv_dereg_mr(nobind);

	/* a window (and region) of another PD than the QP's */
	new_pair();
	mr2 = ibv_reg_mr(pd2, dst, BUF, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_MW_BIND);
	wc = mr2 ? bind1(mw_pd2, mr2, 0, 64, IBV_ACCESS_REMOTE_WRITE) :
		   (struct ibv_wc){ .status = 0xff };
	ok(wc.status == IBV_WC_MW_BIND_ERR,
	   "type 1: a window of another PD than the QP's: IBV_WC_MW_BIND_ERR (%s)",
	   wc_status_name(&wc));
	if (mr2)
		ibv_dereg_mr(mr2);

	/* LOCAL_INV is for type 2 windows */
	new_pair();
	wc = bind1(mw, dst_mr, 0, 64, IBV_ACCESS_REMOTE_WRITE);
	ok(wc.status == IBV_WC_SUCCESS, "type 1: bound again (%s)", wc_status_name(&wc));
	wc = post_inv(qb, cqb, mw->rkey);
	ok(wc.status == IBV_WC_LOC_QP_OP_ERR && wc.opcode == IBV_WC_LOCAL_INV,
	   "type 1: LOCAL_INV of a type 1 window: IBV_WC_LOC_QP_OP_ERR (%s)",
	   wc_status_name(&wc));

	ok(!ibv_dealloc_mw(mw) && !ibv_dealloc_mw(mw_pd2),
	   "type 1: ibv_dealloc_mw of a bound and an unbound window");
	ok(!ibv_dereg_mr(dst_mr), "the region goes once its window is gone");
	dst_mr = ibv_reg_mr(pd, dst, BUF, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_MW_BIND);
	ok(dst_mr != NULL, "register the region again");
}

static void type2(void)
{
	struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	struct ibv_qp *qc, *qd;
	struct ibv_mr *mr2;
	struct ibv_wc wc, rwc;
	uint32_t key, bogus;

	if (!ok(mw && mw->type == IBV_MW_TYPE_2, "type 2: ibv_alloc_mw"))
		return;
	new_pair();
	key = ibv_inc_rkey(mw->rkey);
	wc = rdma(IBV_WR_RDMA_WRITE, key, 0, 8);
	ok(wc.status == IBV_WC_REM_ACCESS_ERR,
	   "type 2: a window not bound yet: IBV_WC_REM_ACCESS_ERR (%s)",
	   wc_status_name(&wc));

	new_pair();
	wc = post_bind(qb, cqb, mw, key, dst_mr, 0, 4096,
		       IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	ok(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_BIND_MW &&
	   wc.wr_id == 0xb1,
	   "type 2: IBV_WR_BIND_MW completes IBV_WC_BIND_MW (%s)", wc_status_name(&wc));
	memset(src, 0x5c, 512);
	memset(dst, 0, BUF);
	wc = rdma(IBV_WR_RDMA_WRITE, key, 64, 512);
	ok(wc.status == IBV_WC_SUCCESS && dst[64] == 0x5c && dst[575] == 0x5c &&
	   !dst[576], "type 2: RDMA WRITE through the window (%s)", wc_status_name(&wc));

	/* bound to qb: a QP of the same PD connected elsewhere is refused */
	qc = rc_qp(pd, cqa);
	qd = rc_qp(pd, cqb);
	if (qc && qd && !connect_qp(qc, qd->qp_num) &&
	    !connect_qp(qd, qc->qp_num)) {
		struct ibv_qp *save = qa;

		qa = qc;
		wc = rdma(IBV_WR_RDMA_WRITE, key, 64, 8);
		qa = save;
		ok(wc.status == IBV_WC_REM_ACCESS_ERR,
		   "type 2: through another QP than the one it is bound to: IBV_WC_REM_ACCESS_ERR (%s)",
		   wc_status_name(&wc));
	} else {
		ok(false, "a second pair");
	}
	if (qc)
		ibv_destroy_qp(qc);
	if (qd)
		ibv_destroy_qp(qd);
	drain();

	/* bound: a second bind is refused (and ends qb) */
	wc = post_bind(qb, cqb, mw, key, dst_mr, 0, 64,
		       IBV_ACCESS_REMOTE_WRITE);
	ok(wc.status == IBV_WC_MW_BIND_ERR,
	   "type 2: binding a bound window: IBV_WC_MW_BIND_ERR (%s)", wc_status_name(&wc));

	/* LOCAL_INV (the old qb still holds it; qa shares the PD) */
	wc = post_inv(qa, cqa, key);
	ok(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_LOCAL_INV &&
	   wc.wr_id == 0x1a, "type 2: IBV_WR_LOCAL_INV completes IBV_WC_LOCAL_INV (%s)",
	   wc_status_name(&wc));
	new_pair();
	wc = rdma(IBV_WR_RDMA_WRITE, key, 64, 8);
	ok(wc.status == IBV_WC_REM_ACCESS_ERR,
	   "type 2: after LOCAL_INV: IBV_WC_REM_ACCESS_ERR (%s)", wc_status_name(&wc));
	new_pair();
	wc = post_inv(qb, cqb, key);
	ok(wc.status == IBV_WC_LOC_QP_OP_ERR,
	   "type 2: LOCAL_INV of a window not bound: IBV_WC_LOC_QP_OP_ERR (%s)",
	   wc_status_name(&wc));
	new_pair();
	wc = post_inv(qb, cqb, dst_mr->rkey);
	ok(wc.status == IBV_WC_LOC_QP_OP_ERR,
	   "LOCAL_INV of a region's key (no fast-register regions): IBV_WC_LOC_QP_OP_ERR (%s)",
	   wc_status_name(&wc));

	/* a region of another PD than the window's and the QP's */
	new_pair();
	mr2 = ibv_reg_mr(pd2, dst, BUF, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_MW_BIND);
	wc = mr2 ? post_bind(qb, cqb, mw, key, mr2, 0, 64,
			     IBV_ACCESS_REMOTE_WRITE) :
		   (struct ibv_wc){ .status = 0xff };
	ok(wc.status == IBV_WC_MW_BIND_ERR,
	   "type 2: a region of another PD: IBV_WC_MW_BIND_ERR (%s)", wc_status_name(&wc));
	if (mr2)
		ibv_dereg_mr(mr2);

	/* SEND_WITH_INV: the receive reports the key; the key is dead */
	new_pair();
	key = ibv_inc_rkey(key);
	wc = post_bind(qb, cqb, mw, key, dst_mr, 0, 4096,
		       IBV_ACCESS_REMOTE_WRITE);
	ok(wc.status == IBV_WC_SUCCESS, "type 2: bound under key 0x%x (%s)",
	   key, wc_status_name(&wc));
	{
		struct ibv_sge rs = { (uintptr_t)dst + 8192, 4096,
				      dst_mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = 0x77, .sg_list = &rs,
					   .num_sge = 1 }, *rbad;
		struct ibv_sge ss = { (uintptr_t)src, 300, src_mr->lkey };
		struct ibv_send_wr swr = { .wr_id = 0x55, .sg_list = &ss,
					   .num_sge = 1,
					   .opcode = IBV_WR_SEND_WITH_INV,
					   .send_flags = IBV_SEND_SIGNALED },
				   *sbad;

		swr.invalidate_rkey = key;
		memset(src, 0x3e, 300);
		if (ibv_post_recv(qb, &rwr, &rbad) ||
		    ibv_post_send(qa, &swr, &sbad)) {
			ok(false, "post SEND_WITH_INV");
		} else {
			wc = next_wc(cqa);
			rwc = next_wc(cqb);
			ok(wc.status == IBV_WC_SUCCESS &&
			   wc.opcode == IBV_WC_SEND && wc.wr_id == 0x55,
			   "type 2: SEND_WITH_INV completes IBV_WC_SEND (%s)",
			   wc_status_name(&wc));
			ok(rwc.status == IBV_WC_SUCCESS &&
			   rwc.opcode == IBV_WC_RECV &&
			   (rwc.wc_flags & IBV_WC_WITH_INV) &&
			   !(rwc.wc_flags & IBV_WC_WITH_IMM) &&
			   rwc.invalidated_rkey == key &&
			   rwc.byte_len == 300 && dst[8192] == 0x3e &&
			   dst[8192 + 299] == 0x3e,
			   "type 2: the receive has IBV_WC_WITH_INV and invalidated_rkey 0x%x (%s, flags 0x%x, key 0x%x)",
			   key, wc_status_name(&rwc), rwc.wc_flags, rwc.invalidated_rkey);
		}
	}
	wc = rdma(IBV_WR_RDMA_WRITE, key, 64, 8);
	ok(wc.status == IBV_WC_REM_ACCESS_ERR,
	   "type 2: after SEND_WITH_INV: IBV_WC_REM_ACCESS_ERR (%s)", wc_status_name(&wc));

	/* SEND_WITH_INV of a key that is no window of the receiver */
	new_pair();
	bogus = key;	/* invalidated above */
	{
		struct ibv_sge rs = { (uintptr_t)dst + 8192, 4096,
				      dst_mr->lkey };
		struct ibv_recv_wr rwr = { .wr_id = 0x78, .sg_list = &rs,
					   .num_sge = 1 }, *rbad;
		struct ibv_send_wr swr = { .wr_id = 0x56,
					   .opcode = IBV_WR_SEND_WITH_INV,
					   .send_flags = IBV_SEND_SIGNALED },
				   *sbad;

		swr.invalidate_rkey = bogus;
		if (ibv_post_recv(qb, &rwr, &rbad) ||
		    ibv_post_send(qa, &swr, &sbad)) {
			ok(false, "post SEND_WITH_INV");
		} else {
			wc = next_wc(cqa);
			rwc = next_wc(cqb);
			ok(wc.status == IBV_WC_REM_INV_REQ_ERR &&
			   rwc.status == IBV_WC_REM_INV_REQ_ERR,
			   "SEND_WITH_INV of a dead key: IBV_WC_REM_INV_REQ_ERR on both sides (%s / %s)",
			   wc_status_name(&wc), wc_status_name(&rwc));
		}
	}

	/* ibv_dealloc_mw of a bound window */
	new_pair();
	key = ibv_inc_rkey(key);
	wc = post_bind(qb, cqb, mw, key, dst_mr, 0, 4096,
		       IBV_ACCESS_REMOTE_WRITE);
	ok(wc.status == IBV_WC_SUCCESS &&
	   rdma(IBV_WR_RDMA_WRITE, key, 0, 8).status == IBV_WC_SUCCESS,
	   "type 2: bound again and used (%s)", wc_status_name(&wc));
	ok(!ibv_dealloc_mw(mw), "type 2: ibv_dealloc_mw of the bound window");
	wc = rdma(IBV_WR_RDMA_WRITE, key, 0, 8);
	ok(wc.status == IBV_WC_REM_ACCESS_ERR,
	   "type 2: its key after dealloc: IBV_WC_REM_ACCESS_ERR (%s)",
	   wc_status_name(&wc));

	/* ibv_destroy_qp of the QP it is bound to */
	new_pair();
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	key = mw ? ibv_inc_rkey(mw->rkey) : 0;
	wc = mw ? post_bind(qb, cqb, mw, key, dst_mr, 0, 4096,
			    IBV_ACCESS_REMOTE_WRITE) :
		  (struct ibv_wc){ .status = 0xff };
	ok(wc.status == IBV_WC_SUCCESS, "type 2: a new window bound (%s)",
	   wc_status_name(&wc));
	ok(ibv_dereg_mr(dst_mr) == EBUSY,
	   "type 2: ibv_dereg_mr while it is bound: EBUSY");
	ibv_destroy_qp(qb);
	qb = NULL;
	ok(!ibv_dereg_mr(dst_mr),
	   "type 2: ibv_destroy_qp of its QP invalidated it: the region goes");
	dst_mr = ibv_reg_mr(pd, dst, BUF, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_MW_BIND);
	if (mw)
		ibv_dealloc_mw(mw);
	ok(dst_mr != NULL, "register the region again");
}

/* The extended post-send API. */
static void qp_ex(void)
{
	struct ibv_qp_init_attr_ex init = {
		.send_cq = cqb,
		.recv_cq = cqb,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_BIND_MW |
				  IBV_QP_EX_WITH_LOCAL_INV |
				  IBV_QP_EX_WITH_SEND_WITH_INV |
				  IBV_QP_EX_WITH_RDMA_WRITE,
	};
	struct ibv_mw *mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
	struct ibv_mw_bind_info bi = {};
	struct ibv_qp *qp, *ud;
	struct ibv_qp_ex *qpx;
	struct ibv_wc wc;
	uint32_t key;

	qp = ibv_create_qp_ex(ctx, &init);
	if (!ok(qp && mw, "ibv_create_qp_ex with IBV_QP_EX_WITH_BIND_MW | LOCAL_INV | SEND_WITH_INV (%s)",
		qp ? "ok" : strerror(errno)))
		goto out;
	if (qa)
		ibv_destroy_qp(qa);
	qa = rc_qp(pd, cqa);
	if (!ok(qa && !connect_qp(qa, qp->qp_num) &&
		!connect_qp(qp, qa->qp_num), "connect it"))
		goto out;
	qpx = ibv_qp_to_qp_ex(qp);
	key = ibv_inc_rkey(mw->rkey);
	bi.mr = dst_mr;
	bi.addr = (uintptr_t)dst;
	bi.length = 4096;
	bi.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	ibv_wr_start(qpx);
	qpx->wr_id = 0xe1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(qpx, mw, key, &bi);
	ok(!ibv_wr_complete(qpx), "ibv_wr_bind_mw posted");
	wc = next_wc(cqb);
	ok(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_BIND_MW &&
	   wc.wr_id == 0xe1, "ibv_wr_bind_mw completes IBV_WC_BIND_MW (%s)",
	   wc_status_name(&wc));
	wc = rdma(IBV_WR_RDMA_WRITE, key, 0, 8);
	ok(wc.status == IBV_WC_SUCCESS, "...and the window works (%s)",
	   wc_status_name(&wc));
	ibv_wr_start(qpx);
	qpx->wr_id = 0xe2;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_local_inv(qpx, key);
	ok(!ibv_wr_complete(qpx), "ibv_wr_local_inv posted");
	wc = next_wc(cqb);
	ok(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_LOCAL_INV &&
	   wc.wr_id == 0xe2, "ibv_wr_local_inv completes IBV_WC_LOCAL_INV (%s)",
	   wc_status_name(&wc));
	wc = rdma(IBV_WR_RDMA_WRITE, key, 0, 8);
	ok(wc.status == IBV_WC_REM_ACCESS_ERR,
	   "...and the window is gone (%s)", wc_status_name(&wc));
	/* no BIND_MW or SEND_WITH_INV on UD */
	init.qp_type = IBV_QPT_UD;
	init.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_BIND_MW;
	errno = 0;
	ud = ibv_create_qp_ex(ctx, &init);
	ok(!ud && errno == EOPNOTSUPP,
	   "UD with IBV_QP_EX_WITH_BIND_MW: EOPNOTSUPP (%s)",
	   ud ? "created" : strerror(errno));
	if (ud)
		ibv_destroy_qp(ud);
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (mw)
		ibv_dealloc_mw(mw);
	drain();
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	uint64_t caps;
	int ret;

	ctx = open_device_by_name(dev);
	if (!ok(ctx != NULL, "open %s", dev))
		return tap_done();
	ret = ibv_query_device_ex(ctx, NULL, &dev_attr);
	pd = ibv_alloc_pd(ctx);
	pd2 = ibv_alloc_pd(ctx);
	cqa = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	cqb = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	if (!ok(!ret && pd && pd2 && cqa && cqb &&
		!ibv_query_port(ctx, 1, &port), "query device, PDs, CQs, port"))
		return tap_done();
	caps = dev_attr.orig_attr.device_cap_flags;

	if (!dev_attr.orig_attr.max_mw) {
		struct ibv_mw *m1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
		int e1 = errno;
		struct ibv_mw *m2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
		int e2 = errno;

		ok(!(caps & (IBV_DEVICE_MEM_WINDOW |
			     IBV_DEVICE_MEM_WINDOW_TYPE_2B)),
		   "max_mw 0: neither IBV_DEVICE_MEM_WINDOW nor _TYPE_2B");
		ok(!m1 && e1 == EOPNOTSUPP && !m2 && e2 == EOPNOTSUPP,
		   "max_mw 0: ibv_alloc_mw of type 1 and 2 fail with EOPNOTSUPP (%s, %s)",
		   m1 ? "success" : strerror(e1),
		   m2 ? "success" : strerror(e2));
		if (m1)
			ibv_dealloc_mw(m1);
		if (m2)
			ibv_dealloc_mw(m2);
		skip("the device reports max_mw 0", "memory window traffic");
		goto done;
	}
	ok((caps & IBV_DEVICE_MEM_WINDOW) &&
	   (caps & IBV_DEVICE_MEM_WINDOW_TYPE_2B),
	   "IBV_DEVICE_MEM_WINDOW and IBV_DEVICE_MEM_WINDOW_TYPE_2B, max_mw %d",
	   dev_attr.orig_attr.max_mw);
	{
		struct ibv_mw *m = ibv_alloc_mw(pd, 3);

		ok(!m && errno == EINVAL, "ibv_alloc_mw of type 3: EINVAL (%s)",
		   m ? "success" : strerror(errno));
		if (m)
			ibv_dealloc_mw(m);
	}
	src = calloc(1, BUF);
	dst = calloc(1, BUF);
	src_mr = ibv_reg_mr(pd, src, BUF, IBV_ACCESS_LOCAL_WRITE);
	dst_mr = ibv_reg_mr(pd, dst, BUF, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_MW_BIND);
	if (!ok(src_mr && dst_mr, "register buffers (MW_BIND, no remote rights)"))
		goto done;
	type1();
	if (dst_mr)
		type2();
	if (dst_mr)
		qp_ex();
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	drain();
	if (dst_mr)
		ibv_dereg_mr(dst_mr);
	ibv_dereg_mr(src_mr);
done:
	ibv_destroy_cq(cqa);
	ibv_destroy_cq(cqb);
	ibv_dealloc_pd(pd);
	ibv_dealloc_pd(pd2);
	ibv_close_device(ctx);
	return tap_done();
}
