// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_atomic_write: IBA 1.5 ATOMIC WRITE, ibv_wr_atomic_write(3), on
 * orca.
 *   usage: verbs_atomic_write [-d DEV] [--config FILE] [--set KEY=VALUE]...
 *
 * Whether the device has it comes from the emulator's configuration
 * (tests/verbs/expect.h: dev_caps bit ATOMIC_WRITE), not from the device:
 *  - with it, an RC ibv_qp_ex takes IBV_QP_EX_WITH_ATOMIC_WRITE (UC and UD
 *    never do), the kernel reports IB_UVERBS_DEVICE_ATOMIC_WRITE where
 *    uverbs has that bit (6.2 and newer), and 64 ATOMIC WRITEs of
 *    different 8-byte values land each where it was sent, nothing around
 *    them changes, and each completes IBV_WC_ATOMIC_WRITE with its wr_id;
 *    one behind a 4 KiB RDMA WRITE on the same QP finds that data there
 *    (a flag after the data: what the operation is for);
 *  - the errors the IBA names: a misaligned address and a QP without
 *    remote write are invalid requests (IBV_WC_REM_INV_REQ_ERR), a region
 *    without remote write a remote access error, memory untouched each
 *    time; an SGE or inline data given to it fails ibv_wr_complete()
 *    with EINVAL; the legacy ibv_post_send() has no field for its data
 *    and refuses IBV_WR_ATOMIC_WRITE; none of those three reaches the
 *    device (the next ATOMIC WRITE is the next completion);
 *  - without it, IBV_QP_EX_WITH_ATOMIC_WRITE is EOPNOTSUPP and the
 *    capability bit is 0.
 */
#include "common.h"
#include "expect.h"

#define SLOTS		64
#define BUF		8192

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_port_attr port;
static uint8_t *src, *dst, *model;
static struct ibv_mr *src_mr, *dst_mr, *ro_mr;
static struct ibv_qp *qa, *qb;		/* qa: ibv_qp_ex with ATOMIC_WRITE */

static struct ibv_qp *rc_qp_ex(uint64_t ops)
{
	struct ibv_qp_init_attr_ex init = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = SLOTS, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = 64 },
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = ops,
	};

	return ibv_create_qp_ex(ctx, &init);
}

static void drain(void)
{
	struct ibv_wc wc[16];

	while (ibv_poll_cq(cq, 16, wc) > 0)
		;
}

/* A fresh pair qa -> qb; qb takes @access from qa. */
static bool new_pair(unsigned int access)
{
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	drain();
	qa = rc_qp_ex(IBV_QP_EX_WITH_ATOMIC_WRITE | IBV_QP_EX_WITH_RDMA_WRITE);
	qb = create_qp(pd, cq, IBV_QPT_RC);
	if (!qa || !qb || connect_to(qa, qb->qp_num, &port) ||
	    connect_to(qb, qa->qp_num, &port))
		return false;
	if (access != (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)) {
		struct ibv_qp_attr a = { .qp_access_flags = access };

		return !ibv_modify_qp(qb, &a, IBV_QP_ACCESS_FLAGS);
	}
	return true;
}

/* One signaled ATOMIC WRITE of @v to @rkey at dst + @off; its completion. */
static struct ibv_wc one(uint32_t rkey, uint64_t off, const uint8_t *v)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qa);

	ibv_wr_start(qpx);
	qpx->wr_id = 0xa7;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qpx, rkey, (uintptr_t)dst + off, v);
	if (ibv_wr_complete(qpx)) {
		struct ibv_wc wc = { .status = 0xff };

		return wc;
	}
	return next_wc(cq);
}

static void capability(bool want)
{
	struct ibv_device_attr_ex a;
	bool bit;

	if (!ok(!ibv_query_device_ex(ctx, NULL, &a), "ibv_query_device_ex"))
		return;
	bit = !!(a.device_cap_flags_ex & UVERBS_DEVICE_ATOMIC_WRITE);
	if (kernel_at_least(6, 2))
		ok(bit == want, "device_cap_flags_ex has IB_UVERBS_DEVICE_ATOMIC_WRITE: %d (expected %d)",
		   bit, want);
	else
		ok(!bit, "device_cap_flags_ex without IB_UVERBS_DEVICE_ATOMIC_WRITE: this kernel's uverbs has no such bit");
}

static void create(bool want)
{
	static const enum ibv_qp_type types[] = { IBV_QPT_UC, IBV_QPT_UD };
	struct ibv_qp *qp;
	unsigned int i;

	errno = 0;
	qp = rc_qp_ex(IBV_QP_EX_WITH_ATOMIC_WRITE);
	if (want)
		ok(qp != NULL, "RC ibv_create_qp_ex with IBV_QP_EX_WITH_ATOMIC_WRITE (%s)",
		   qp ? "created" : strerror(errno));
	else
		ok(!qp && errno == EOPNOTSUPP,
		   "no ATOMIC_WRITE capability: RC with IBV_QP_EX_WITH_ATOMIC_WRITE is EOPNOTSUPP (%s)",
		   qp ? "created" : strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct ibv_qp_init_attr_ex init = {
			.send_cq = cq, .recv_cq = cq,
			.cap = { .max_send_wr = 4, .max_recv_wr = 4,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.qp_type = types[i],
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
			.pd = pd,
			.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE,
		};

		errno = 0;
		qp = ibv_create_qp_ex(ctx, &init);
		ok(!qp && errno == EOPNOTSUPP,
		   "%s with IBV_QP_EX_WITH_ATOMIC_WRITE: EOPNOTSUPP (%s)",
		   qpt_str(types[i]), qp ? "created" : strerror(errno));
		if (qp)
			ibv_destroy_qp(qp);
	}
}

/* 64 in one batch, each its own value and slot (slot k at 24 + 40 k). */
static void batch(void)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qa);
	uint8_t v[SLOTS][8];
	unsigned int k, good = 0, order = 0;

	for (k = 0; k < SLOTS; k++) {
		uint64_t r = ((uint64_t)rand() << 32) ^ (uint64_t)rand();

		memcpy(v[k], &r, 8);
	}
	ibv_wr_start(qpx);
	for (k = 0; k < SLOTS; k++) {
		qpx->wr_id = 1000 + k;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_atomic_write(qpx, dst_mr->rkey,
				    (uintptr_t)dst + 24 + 40 * k, v[k]);
		memcpy(model + 24 + 40 * k, v[k], 8);
	}
	if (!ok(!ibv_wr_complete(qpx), "64 ATOMIC WRITEs posted in one batch"))
		return;
	for (k = 0; k < SLOTS; k++) {
		struct ibv_wc wc = next_wc(cq);

		good += wc.status == IBV_WC_SUCCESS &&
			wc.opcode == IBV_WC_ATOMIC_WRITE;
		order += wc.wr_id == 1000 + k;
		if (wc.status != IBV_WC_SUCCESS)
			diag("completion %u: %s, opcode %d", k, wc_status_name(&wc),
			     wc.opcode);
	}
	ok(good == SLOTS && order == SLOTS,
	   "each completes IBV_WC_SUCCESS, IBV_WC_ATOMIC_WRITE, in order (%u, %u of %u)",
	   good, order, SLOTS);
	ok(!memcmp(dst, model, BUF),
	   "each value landed at its address, and nothing around them changed");
}

/* 4 KiB of new data, then the flag: the flag is seen with the data. */
static void behind_write(void)
{
	static const uint8_t flag[8] = { 'd', 'o', 'n', 'e', 0, 0, 0, 1 };
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qa);
	struct ibv_wc w1, w2;
	unsigned int i;

	for (i = 0; i < 4096; i++)
		src[i] = (uint8_t)(i * 7 + 3);
	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = 0;
	ibv_wr_rdma_write(qpx, dst_mr->rkey, (uintptr_t)dst + 4096);
	ibv_wr_set_sge(qpx, src_mr->lkey, (uintptr_t)src, 4096);
	qpx->wr_id = 2;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qpx, dst_mr->rkey, (uintptr_t)dst + 4088, flag);
	if (!ok(!ibv_wr_complete(qpx), "RDMA WRITE 4 KiB, then an ATOMIC WRITE flag"))
		return;
	w1 = next_wc(cq);
	memset(&w2, 0, sizeof(w2));
	memcpy(model + 4096, src, 4096);
	memcpy(model + 4088, flag, 8);
	ok(w1.status == IBV_WC_SUCCESS && w1.wr_id == 2 &&
	   w1.opcode == IBV_WC_ATOMIC_WRITE && ibv_poll_cq(cq, 1, &w2) == 0,
	   "one completion, the flag's (%s, wr_id %llu)", wc_status_name(&w1),
	   (unsigned long long)w1.wr_id);
	ok(!memcmp(dst, model, BUF), "the data is there with the flag");
}

static void errors(void)
{
	static const uint8_t v[8] = { 9, 9, 9, 9, 9, 9, 9, 9 };
	struct ibv_send_wr wr = { .opcode = IBV_WR_ATOMIC_WRITE,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_sge sge = { (uintptr_t)src, 8, 0 };
	struct ibv_send_wr *bad = NULL;
	struct ibv_qp_ex *qpx;
	struct ibv_wc wc;
	int ret;

	if (new_pair(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)) {
		wc = one(dst_mr->rkey, 4, v);
		ok(wc.status == IBV_WC_REM_INV_REQ_ERR,
		   "misaligned (dst + 4): IBV_WC_REM_INV_REQ_ERR (%s)", wc_status_name(&wc));
	}
	if (new_pair(IBV_ACCESS_REMOTE_READ)) {
		wc = one(dst_mr->rkey, 16, v);
		ok(wc.status == IBV_WC_REM_INV_REQ_ERR,
		   "to a QP without IBV_ACCESS_REMOTE_WRITE: IBV_WC_REM_INV_REQ_ERR (%s)",
		   wc_status_name(&wc));
	}
	if (new_pair(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)) {
		wc = one(ro_mr->rkey, 16, v);
		ok(wc.status == IBV_WC_REM_ACCESS_ERR,
		   "to a region without IBV_ACCESS_REMOTE_WRITE: IBV_WC_REM_ACCESS_ERR (%s)",
		   wc_status_name(&wc));
	}
	ok(!memcmp(dst, model, BUF), "memory untouched by all three");

	if (!new_pair(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ))
		return;
	qpx = ibv_qp_to_qp_ex(qa);
	ibv_wr_start(qpx);
	ibv_wr_atomic_write(qpx, dst_mr->rkey, (uintptr_t)dst, v);
	ibv_wr_set_sge(qpx, src_mr->lkey, (uintptr_t)src, 8);
	ret = ibv_wr_complete(qpx);
	ok(ret == EINVAL, "ibv_wr_atomic_write with an SGE: ibv_wr_complete EINVAL (%d)",
	   ret);
	ibv_wr_start(qpx);
	ibv_wr_atomic_write(qpx, dst_mr->rkey, (uintptr_t)dst, v);
	ibv_wr_set_inline_data(qpx, src, 8);
	ret = ibv_wr_complete(qpx);
	ok(ret == EINVAL, "...with inline data: EINVAL (%d)", ret);
	sge.lkey = src_mr->lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uintptr_t)dst;
	wr.wr.rdma.rkey = dst_mr->rkey;
	ret = ibv_post_send(qa, &wr, &bad);
	ok(ret == EINVAL && bad == &wr,
	   "ibv_post_send of IBV_WR_ATOMIC_WRITE: EINVAL, bad_wr the WR (%d)",
	   ret);
	ok(!memcmp(dst, model, BUF), "memory untouched");
	/* none of them reached the device: the next one is the next CQE */
	wc = one(dst_mr->rkey, 16, v);
	memcpy(model + 16, v, 8);
	ok(wc.status == IBV_WC_SUCCESS && wc.wr_id == 0xa7,
	   "the QP goes on: the next ATOMIC WRITE is the next completion (%s, wr_id %#llx)",
	   wc_status_name(&wc), (unsigned long long)wc.wr_id);
	ok(!memcmp(dst, model, BUF), "and it alone landed");
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	struct expect ex;
	bool want;

	if (expect_init(&ex, &argc, argv) || argc > 1) {
		fprintf(stderr, "usage: %s [-d DEV] [--config FILE] [--set KEY=VALUE]...\n",
			argv[0]);
		return 2;
	}
	want = ex.dev_caps & EXPECT_DEV_CAP_ATOMIC_WRITE;
	diag("expected configuration from %s: ATOMIC_WRITE %s", ex.source,
	     want ? "on" : "off");
	srand(getpid());
	ctx = open_device_by_name(dev);
	if (!ok(ctx != NULL, "open %s", dev))
		return tap_done();
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 2 * SLOTS, NULL, NULL, 0);
	src = calloc(1, BUF);
	dst = calloc(1, BUF);
	model = calloc(1, BUF);
	if (!ok(pd && cq && src && dst && model &&
		!ibv_query_port(ctx, 1, &port), "PD, CQ, port"))
		return tap_done();
	for (int i = 0; i < BUF; i++)
		dst[i] = model[i] = (uint8_t)(i * 13 + 5);
	src_mr = ibv_reg_mr(pd, src, BUF, IBV_ACCESS_LOCAL_WRITE);
	dst_mr = ibv_reg_mr(pd, dst, BUF, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_WRITE);
	ro_mr = ibv_reg_mr(pd, dst, BUF, IBV_ACCESS_REMOTE_READ);
	if (!ok(src_mr && dst_mr && ro_mr, "regions"))
		return tap_done();

	capability(want);
	create(want);
	if (want) {
		if (ok(new_pair(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ),
		       "an RC pair, the sender an ibv_qp_ex with ATOMIC_WRITE")) {
			batch();
			behind_write();
		}
		errors();
	}
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	ibv_dereg_mr(ro_mr);
	ibv_dereg_mr(dst_mr);
	ibv_dereg_mr(src_mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return tap_done();
}
