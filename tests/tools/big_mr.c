// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A memory region larger than 2 GiB in 4 KiB pages (issue 20,
 * review-driver finding 9): its page list has more than 2^19 entries,
 * which the driver used to put in one contiguous coherent buffer of up to
 * 4 MiB, and refused beyond that whatever max_mr_size said.  Now the list
 * is a chain of 4 KiB chunks.
 *
 *   big_mr -d orca0 [MiB]     (default 2304: 2.25 GiB)
 *
 * Registers MiB of anonymous memory with transparent huge pages off (so
 * 4 KiB pages), then, through an RC QP looped back to itself, RDMA WRITEs
 * 4 KiB of a known pattern to an offset beyond 2 GiB and RDMA READs 4 KiB
 * back from another one, and compares both.  TAP; needs a guest with the
 * memory (tests/vm/bigmem.sh, stage vm-default).
 */
#include <sys/mman.h>

#include "../verbs/common.h"

#define XFER	4096

static int post_and_wait(struct ibv_qp *qp, struct ibv_cq *cq,
			 enum ibv_wr_opcode op, struct ibv_mr *local,
			 uint64_t remote, uint32_t rkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)local->addr,
			       .length = XFER, .lkey = local->lkey };
	struct ibv_send_wr wr = { .wr_id = op, .sg_list = &sge, .num_sge = 1,
				  .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;
	long long end = now_ms() + wait_ms();
	struct ibv_wc wc;
	int n;

	wr.wr.rdma.remote_addr = remote;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(qp, &wr, &bad))
		return -1;
	while ((n = ibv_poll_cq(cq, 1, &wc)) == 0 && now_ms() < end)
		;
	if (n != 1) {
		diag("no completion within %d ms", wait_ms());
		return -1;
	}
	if (wc.status != IBV_WC_SUCCESS)
		diag("completion status %s", ibv_wc_status_str(wc.status));
	return wc.status == IBV_WC_SUCCESS ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	size_t len = (size_t)(argc > 1 ? atoi(argv[1]) : 2304) << 20;
	const size_t woff = len - 3 * XFER, roff = (2ULL << 30) + 12345;
	struct ibv_mr *big = NULL, *small = NULL;
	struct ibv_port_attr port;
	struct ibv_context *ctx;
	struct ibv_qp *qp = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_pd *pd = NULL;
	uint8_t *buf, *src;
	size_t i;

	ctx = open_device_by_name(dev);
	if (!ok(ctx != NULL, "open %s", dev))
		return tap_done();
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	src = mmap(NULL, 2 * XFER, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!ok(buf != MAP_FAILED && src != MAP_FAILED, "map %zu MiB", len >> 20))
		goto out;
	ok(!madvise(buf, len, MADV_NOHUGEPAGE),
	   "transparent huge pages off: the region is in 4 KiB pages");
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	qp = cq ? create_qp(pd, cq, IBV_QPT_RC) : NULL;
	if (!ok(qp && !ibv_query_port(ctx, 1, &port) &&
		!connect_to(qp, qp->qp_num, &port),
		"PD, CQ and an RC QP looped back to itself"))
		goto out;
	small = ibv_reg_mr(pd, src, 2 * XFER, IBV_ACCESS_LOCAL_WRITE);
	big = ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!ok(small && big, "ibv_reg_mr of %zu MiB in 4 KiB pages (%zu pages): %s",
		len >> 20, len >> 12, big ? "registered" : strerror(errno)))
		goto out;

	for (i = 0; i < XFER; i++)
		src[i] = (uint8_t)(i * 7 + 3);
	ok(!post_and_wait(qp, cq, IBV_WR_RDMA_WRITE, small,
			  (uintptr_t)buf + woff, big->rkey) &&
	   !memcmp(buf + woff, src, XFER),
	   "RDMA WRITE of 4 KiB at offset %#zx lands there", woff);
	for (i = 0; i < XFER; i++)
		buf[roff + i] = (uint8_t)(i * 13 + 1);
	memset(src, 0, XFER);
	ok(!post_and_wait(qp, cq, IBV_WR_RDMA_READ, small,
			  (uintptr_t)buf + roff, big->rkey) &&
	   !memcmp(src, buf + roff, XFER),
	   "RDMA READ of 4 KiB at offset %#zx returns what is there", roff);
out:
	if (big)
		ibv_dereg_mr(big);
	if (small)
		ibv_dereg_mr(small);
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return tap_done();
}
