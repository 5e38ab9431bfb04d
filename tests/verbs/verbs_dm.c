// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_dm: device memory on orca: ibv_alloc_dm, ibv_memcpy_to_dm /
 * ibv_memcpy_from_dm, ibv_reg_dm_mr, ibv_import_dm, ibv_free_dm.
 *   usage: verbs_dm [-d DEV] [--config FILE] [--set KEY=VALUE]...
 *
 * How much there is comes from the emulator's configuration (expect.h:
 * max_dm_size; orca.rst: given out in 4 KiB pages), not from the device:
 *  - ibv_query_device_ex reports max_dm_size;
 *  - exactly max_dm_size / 4096 one-byte DMs fit, the next is ENOMEM; one
 *    of max_dm_size fits, one byte more is refused; a comp_mask is EINVAL;
 *  - a new DM reads as zeros even where the last owner left a pattern,
 *    and two DMs keep their bytes apart;
 *  - copies need 4-byte offsets and lengths inside the length allocated
 *    (EINVAL otherwise, the bytes untouched);
 *  - a zero-based region over part of a DM: an RDMA WRITE into it lands
 *    there (the whole DM compared with a model), an RDMA READ and a SEND
 *    from it carry its bytes, a receive into it lands there; a write past
 *    its end is IBV_WC_REM_ACCESS_ERR with the DM untouched; without
 *    IBV_ACCESS_ZERO_BASED, or past the DM's length, ibv_reg_dm_mr fails;
 *    the DM cannot be freed while the region exists (EBUSY);
 *  - ibv_import_dm in a context imported from a dup of the cmd_fd reads
 *    what the first context wrote;
 *  - without device memory: ibv_alloc_dm is EOPNOTSUPP.
 */
#include "common.h"
#include "expect.h"

#define DM_LEN		8192
#define HOST_LEN	8192

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_port_attr port;
static uint8_t host[HOST_LEN], back[DM_LEN];
static struct ibv_mr *host_mr;
static uint64_t window;

static struct ibv_dm *dm_alloc(uint64_t len)
{
	struct ibv_alloc_dm_attr a = { .length = len };

	return ibv_alloc_dm(ctx, &a);
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 31 + seed);
}

static bool all_zero(const uint8_t *p, size_t len)
{
	while (len--)
		if (*p++)
			return false;
	return true;
}

static void capacity(void)
{
	unsigned int n = window / 4096, got = 0, i;
	struct ibv_dm **dms = calloc(n + 1, sizeof(*dms));
	struct ibv_alloc_dm_attr bad = { .length = 64, .comp_mask = 1 };
	struct ibv_dm *dm;

	for (i = 0; i < n; i++) {
		dms[i] = dm_alloc(1);
		got += dms[i] != NULL;
	}
	errno = 0;
	dms[n] = dm_alloc(1);
	ok(got == n && !dms[n] && errno == ENOMEM,
	   "%u one-byte DMs (a page each) fit in %llu bytes, the next is ENOMEM (%u, %s)",
	   n, (unsigned long long)window, got,
	   dms[n] ? "allocated" : strerror(errno));
	for (i = 0; i <= n; i++)
		if (dms[i])
			ibv_free_dm(dms[i]);
	free(dms);
	dm = dm_alloc(window);
	ok(dm != NULL, "then one DM of all %llu bytes (%s)",
	   (unsigned long long)window, dm ? "allocated" : strerror(errno));
	if (dm)
		ibv_free_dm(dm);
	errno = 0;
	dm = dm_alloc(window + 1);
	ok(!dm && errno, "one of %llu bytes is refused (%s)",
	   (unsigned long long)window + 1, dm ? "allocated" : strerror(errno));
	if (dm)
		ibv_free_dm(dm);
	errno = 0;
	dm = ibv_alloc_dm(ctx, &bad);
	ok(!dm && errno == EINVAL, "a comp_mask is EINVAL (%s)",
	   dm ? "allocated" : strerror(errno));
	if (dm)
		ibv_free_dm(dm);
}

/* What the last owner left is gone; two DMs keep their bytes apart. */
static void isolation(void)
{
	static uint8_t a[DM_LEN], b[DM_LEN];
	struct ibv_dm *d1, *d2;
	int ret;

	d1 = dm_alloc(DM_LEN);
	if (!ok(d1 != NULL, "a DM of %u bytes", DM_LEN))
		return;
	memset(a, 0xa5, DM_LEN);
	ret = ibv_memcpy_to_dm(d1, 0, a, DM_LEN);
	ok(!ret, "ibv_memcpy_to_dm of all of it (%s)", strerror(ret));
	ibv_free_dm(d1);
	/* the whole window again: wherever the pages went, they are here */
	d1 = dm_alloc(window);
	if (!ok(d1 != NULL, "then a DM of the whole window"))
		return;
	ret = 0;
	for (uint64_t off = 0; off < window && !ret; off += DM_LEN) {
		ret = ibv_memcpy_from_dm(b, d1, off, DM_LEN);
		if (!ret && !all_zero(b, DM_LEN))
			ret = -1;
	}
	ok(!ret, "it reads as zeros: the last owner's 0xa5 is gone");
	ibv_free_dm(d1);

	d1 = dm_alloc(DM_LEN);
	d2 = dm_alloc(DM_LEN);
	if (!ok(d1 && d2, "two DMs"))
		return;
	fill(a, DM_LEN, 1);
	fill(b, DM_LEN, 2);
	ibv_memcpy_to_dm(d1, 0, a, DM_LEN);
	ibv_memcpy_to_dm(d2, 0, b, DM_LEN);
	ibv_memcpy_from_dm(back, d1, 0, DM_LEN);
	ret = memcmp(back, a, DM_LEN);
	ibv_memcpy_from_dm(back, d2, 0, DM_LEN);
	ok(!ret && !memcmp(back, b, DM_LEN), "each reads back its own bytes");
	ibv_free_dm(d1);
	ibv_free_dm(d2);
}

static void copy_rules(void)
{
	static const struct { uint64_t off; size_t len; const char *what; } bad[] = {
		{ 2, 4, "offset 2 (not a multiple of 4)" },
		{ 4, 3, "length 3" },
		{ 100, 4, "offset 100 of a DM of 100 bytes" },
		{ 0, 104, "104 bytes of a DM of 100" },
		{ 96, 8, "8 bytes at offset 96 of 100" },
	};
	uint8_t v[104], w[104];
	struct ibv_dm *dm = dm_alloc(100);
	unsigned int i;
	int ret;

	if (!ok(dm != NULL, "a DM of 100 bytes"))
		return;
	fill(v, sizeof(v), 7);
	ret = ibv_memcpy_to_dm(dm, 0, v, 100);
	ok(!ret, "ibv_memcpy_to_dm of its 100 bytes (%s)", strerror(ret));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int to = ibv_memcpy_to_dm(dm, bad[i].off, w, bad[i].len);
		int from = ibv_memcpy_from_dm(w, dm, bad[i].off, bad[i].len);

		ok(to == EINVAL && from == EINVAL, "%s: both copies EINVAL (%s, %s)",
		   bad[i].what, strerror(to), strerror(from));
	}
	memset(w, 0, sizeof(w));
	ret = ibv_memcpy_from_dm(w, dm, 0, 100);
	ok(!ret && !memcmp(w, v, 100), "its 100 bytes unchanged");
	ret = ibv_memcpy_from_dm(w, dm, 96, 4);
	ok(!ret && !memcmp(w, v + 96, 4), "the last word alone (offset 96, 4 bytes)");
	ibv_free_dm(dm);
}

static struct ibv_qp *qa, *qb;

static bool new_pair(void)
{
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	qa = create_qp(pd, cq, IBV_QPT_RC);
	qb = create_qp(pd, cq, IBV_QPT_RC);
	return qa && qb && !connect_to(qa, qb->qp_num, &port) &&
	       !connect_to(qb, qa->qp_num, &port);
}

static struct ibv_wc post_one(struct ibv_qp *qp, enum ibv_wr_opcode op,
			      struct ibv_sge sge, uint64_t raddr, uint32_t rkey)
{
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc = { .status = IBV_WC_GENERAL_ERR };

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(qp, &wr, &bad))
		return wc;
	return next_wc(cq);
}

static void regions(void)
{
	const unsigned int rw = IBV_ACCESS_ZERO_BASED | IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	static uint8_t model[DM_LEN];
	struct ibv_dm *dm = dm_alloc(DM_LEN);
	struct ibv_mr *mr, *bad;
	struct ibv_wc wc, wr;
	struct ibv_sge sge;
	int ret;

	if (!ok(dm != NULL, "a DM of %u bytes", DM_LEN))
		return;
	memset(model, 0, sizeof(model));
	errno = 0;
	bad = ibv_reg_dm_mr(pd, dm, 0, 64, rw & ~IBV_ACCESS_ZERO_BASED);
	ok(!bad && errno == EINVAL, "ibv_reg_dm_mr without IBV_ACCESS_ZERO_BASED: EINVAL (%s)",
	   bad ? "registered" : strerror(errno));
	errno = 0;
	bad = ibv_reg_dm_mr(pd, dm, 8000, 200, rw);
	ok(!bad && errno == EINVAL, "200 bytes at 8000 of %u: EINVAL (%s)", DM_LEN,
	   bad ? "registered" : strerror(errno));
	/* bytes 100 .. 4099 of the DM, addresses 0 .. 3999 */
	mr = ibv_reg_dm_mr(pd, dm, 100, 4000, rw);
	if (!ok(mr != NULL, "ibv_reg_dm_mr: 4000 bytes at 100, zero-based (%s)",
		mr ? "registered" : strerror(errno)) || !new_pair())
		return;
	errno = 0;
	ret = ibv_free_dm(dm);
	ok(ret == EBUSY, "ibv_free_dm while a region uses it: EBUSY (%s)",
	   strerror(ret));

	/* an RDMA WRITE into it */
	fill(host, HOST_LEN, 3);
	sge = (struct ibv_sge){ (uintptr_t)host, 3000, host_mr->lkey };
	wc = post_one(qa, IBV_WR_RDMA_WRITE, sge, 12, mr->rkey);
	memcpy(model + 112, host, 3000);
	ibv_memcpy_from_dm(back, dm, 0, DM_LEN);
	ok(wc.status == IBV_WC_SUCCESS && !memcmp(back, model, DM_LEN),
	   "RDMA WRITE of 3000 bytes to its address 12 lands at DM byte 112, nothing else changed (%s)",
	   wc_status_name(&wc));
	/* an RDMA READ from it */
	memset(host + 4096, 0, 3000);
	sge = (struct ibv_sge){ (uintptr_t)host + 4096, 3000, host_mr->lkey };
	wc = post_one(qa, IBV_WR_RDMA_READ, sge, 12, mr->rkey);
	ok(wc.status == IBV_WC_SUCCESS && !memcmp(host + 4096, model + 112, 3000),
	   "RDMA READ of it carries those bytes back (%s)", wc_status_name(&wc));
	/* a SEND gathered from it, received in host memory */
	{
		struct ibv_sge rs = { (uintptr_t)host + 4096, 4000,
				      host_mr->lkey };
		struct ibv_recv_wr rw_ = { .wr_id = 2, .sg_list = &rs,
					   .num_sge = 1 }, *rbad;

		memset(host + 4096, 0, 4000);
		ibv_post_recv(qb, &rw_, &rbad);
		sge = (struct ibv_sge){ 0, 4000, mr->lkey };
		wc = post_one(qa, IBV_WR_SEND, sge, 0, 0);
		wr = next_wc(cq);
		if (wc.wr_id == 2) {
			struct ibv_wc t = wc;

			wc = wr;
			wr = t;
		}
		ok(wc.status == IBV_WC_SUCCESS && wr.status == IBV_WC_SUCCESS &&
		   wr.byte_len == 4000 &&
		   !memcmp(host + 4096, model + 100, 4000),
		   "a SEND of its 4000 bytes (its lkey, address 0) arrives whole (%s, %s)",
		   wc_status_name(&wc), wc_status_name(&wr));
	}
	/* a receive into it */
	{
		struct ibv_sge rs = { 0, 4000, mr->lkey };
		struct ibv_recv_wr rw_ = { .wr_id = 3, .sg_list = &rs,
					   .num_sge = 1 }, *rbad;

		fill(host, HOST_LEN, 9);
		ibv_post_recv(qb, &rw_, &rbad);
		/* qb receives into the DM region: qb's PD is the region's */
		sge = (struct ibv_sge){ (uintptr_t)host, 1000, host_mr->lkey };
		wc = post_one(qa, IBV_WR_SEND, sge, 0, 0);
		wr = next_wc(cq);
		memcpy(model + 100, host, 1000);
		ibv_memcpy_from_dm(back, dm, 0, DM_LEN);
		ok(wc.status == IBV_WC_SUCCESS && wr.status == IBV_WC_SUCCESS &&
		   !memcmp(back, model, DM_LEN),
		   "a receive into it lands at DM byte 100, nothing else changed");
	}
	/* past its end: the responder refuses, the DM stays */
	sge = (struct ibv_sge){ (uintptr_t)host, 100, host_mr->lkey };
	wc = post_one(qa, IBV_WR_RDMA_WRITE, sge, 3950, mr->rkey);
	ibv_memcpy_from_dm(back, dm, 0, DM_LEN);
	ok(wc.status == IBV_WC_REM_ACCESS_ERR && !memcmp(back, model, DM_LEN),
	   "an RDMA WRITE past the region's end: IBV_WC_REM_ACCESS_ERR, the DM untouched (%s)",
	   wc_status_name(&wc));
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	qa = qb = NULL;
	while (ibv_poll_cq(cq, 1, &wc) > 0)
		;
	ok(!ibv_dereg_mr(mr) && !ibv_free_dm(dm),
	   "ibv_dereg_mr, then ibv_free_dm");
}

static void import(void)
{
	struct ibv_context *ctx2;
	struct ibv_dm *dm, *dm2;
	static uint8_t v[DM_LEN];
	int fd, ret;

	dm = dm_alloc(DM_LEN);
	fd = dup(ctx->cmd_fd);
	ctx2 = fd >= 0 ? ibv_import_device(fd) : NULL;
	if (!ok(dm && ctx2, "a DM, and a context imported from a dup of the cmd_fd"))
		return;
	dm2 = ibv_import_dm(ctx2, dm->handle);
	if (ok(dm2 != NULL, "ibv_import_dm of its handle (%s)",
	       dm2 ? "imported" : strerror(errno))) {
		fill(v, DM_LEN, 5);
		ibv_memcpy_to_dm(dm, 0, v, DM_LEN);
		ret = ibv_memcpy_from_dm(back, dm2, 0, DM_LEN);
		ok(!ret && !memcmp(back, v, DM_LEN),
		   "the imported DM reads what the first context wrote");
		ibv_unimport_dm(dm2);
	}
	errno = 0;
	dm2 = ibv_import_dm(ctx2, dm->handle + 1000);
	ok(!dm2, "a handle that names no DM is not imported (%s)",
	   dm2 ? "imported" : strerror(errno));
	ibv_close_device(ctx2);
	ok(!ibv_free_dm(dm), "the first context frees it");
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	struct ibv_device_attr_ex a;
	struct expect ex;

	if (expect_init(&ex, &argc, argv) || argc > 1) {
		fprintf(stderr, "usage: %s [-d DEV] [--config FILE] [--set KEY=VALUE]...\n",
			argv[0]);
		return 2;
	}
	window = ex.max_dm_size;
	diag("expected configuration from %s: max_dm_size %llu", ex.source,
	     (unsigned long long)window);
	ctx = open_device_by_name(dev);
	if (!ok(ctx != NULL, "open %s", dev))
		return tap_done();
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	host_mr = pd ? ibv_reg_mr(pd, host, HOST_LEN, IBV_ACCESS_LOCAL_WRITE) :
		       NULL;
	if (!ok(pd && cq && host_mr && !ibv_query_port(ctx, 1, &port),
		"PD, CQ, region, port") ||
	    !ok(!ibv_query_device_ex(ctx, NULL, &a), "ibv_query_device_ex"))
		return tap_done();
	ok(a.max_dm_size == window, "max_dm_size %llu (expected %llu)",
	   (unsigned long long)a.max_dm_size, (unsigned long long)window);
	if (!window) {
		struct ibv_dm *dm;

		errno = 0;
		dm = dm_alloc(64);
		ok(!dm && errno == EOPNOTSUPP,
		   "no device memory: ibv_alloc_dm is EOPNOTSUPP (%s)",
		   dm ? "allocated" : strerror(errno));
		return tap_done();
	}
	capacity();
	isolation();
	copy_rules();
	regions();
	import();
	ibv_dereg_mr(host_mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return tap_done();
}
