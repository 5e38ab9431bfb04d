// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Data-in-order, as a reader sees it: poll the last byte of an incoming
 * message instead of its completion, then look at the rest.
 *
 * For RDMA WRITE (into the responder's region), SEND (into a receive
 * buffer) and RDMA READ (into the requester's buffer), on a region with
 * and without IBV_ACCESS_RELAXED_ORDERING, 40 messages of 1 MiB
 * each carry a new pattern.  The reader spins on the last byte; when it
 * turns, it checks first the 128-byte block that holds it, then the
 * message from its end backwards.  What must hold follows from what
 * ibv_query_qp_data_in_order(RETURN_CAPS) reports for the opcode:
 *  - WHOLE_MSG (and not relaxed): never a missing byte;
 *  - ALIGNED_128_BYTES: the last byte's block is always whole;
 *  - anything less than WHOLE_MSG, or a relaxed region: the device uses
 *    its freedom, and a reader that assumes WHOLE_MSG is caught at least
 *    once (so the first rule is not true by accident).
 * Every round the reader must also have seen the old last byte first (it
 * really watched the message arrive), and after the completion every
 * byte is right.
 *
 * The reader must watch messages arrive, so tests/vm/dio-poll.sh slows
 * the device down first (hostctl place-delay: a pause before each
 * packet's payload and after the first block a scrambled placement
 * writes); on an unpaced device under TCG a 1 MiB message is often all
 * there before the poster looks.
 *
 *   dio_poll [-d orca0] [--rounds N]
 */
#include "../verbs/common.h"

#define MSG		(1024 * 1024)
#define BLOCK		128

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *qa, *qb;
static uint8_t *src;
static struct ibv_mr *src_mr;
static int rounds = 40;
static size_t mtu;

struct result {
	int raced;		/* rounds where the last byte came after we looked */
	int whole_missing;	/* last byte there, an earlier one not */
	int block_missing;	/* last byte there, its own block not whole */
	int final_bad;		/* wrong after the completion */
	int errors;		/* posting or completion errors */
};

static uint8_t byte_of(unsigned int round, size_t i)
{
	/* never 0, and the last byte differs from round to round */
	return (uint8_t)(1 + (round * 37 + i * 11) % 251);
}

static bool wait_wc(int n)
{
	long long end = now_ms() + wait_ms();
	struct ibv_wc wc;
	bool good = true;

	while (n > 0 && now_ms() < end) {
		if (ibv_poll_cq(cq, 1, &wc) == 1) {
			good &= wc.status == IBV_WC_SUCCESS;
			n--;
		}
	}
	return good && !n;
}

/*
 * One message into @dst (registered as @dmr) by @op; the reader spins on
 * its last byte.
 */
static void one_round(enum ibv_wr_opcode op, volatile uint8_t *dst,
		      struct ibv_mr *dmr, unsigned int round,
		      struct result *r)
{
	struct ibv_sge sge, rsge;
	struct ibv_send_wr wr = { .num_sge = 1, .sg_list = &sge,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_recv_wr rwr = { .num_sge = 1, .sg_list = &rsge }, *rbad;
	uint8_t want_last = byte_of(round, MSG - 1);
	long long end;
	size_t i, blk = (MSG - 1) & ~(size_t)(BLOCK - 1);
	int wcs = 1;

	for (i = 0; i < MSG; i++)
		src[i] = byte_of(round, i);
	wr.opcode = op;
	if (op == IBV_WR_RDMA_READ) {
		/* qb reads qa's source into dst */
		sge = (struct ibv_sge){ (uintptr_t)dst, MSG, dmr->lkey };
		wr.wr.rdma.remote_addr = (uintptr_t)src;
		wr.wr.rdma.rkey = src_mr->rkey;
		if (ibv_post_send(qb, &wr, &bad)) {
			r->errors++;
			return;
		}
	} else {
		sge = (struct ibv_sge){ (uintptr_t)src, MSG, src_mr->lkey };
		wr.wr.rdma.remote_addr = (uintptr_t)dst;
		wr.wr.rdma.rkey = dmr->rkey;
		if (op == IBV_WR_SEND) {
			rsge = (struct ibv_sge){ (uintptr_t)dst, MSG,
						 dmr->lkey };
			wcs = 2;
			if (ibv_post_recv(qb, &rwr, &rbad)) {
				r->errors++;
				return;
			}
		}
		if (ibv_post_send(qa, &wr, &bad)) {
			r->errors++;
			return;
		}
	}
	if (dst[MSG - 1] != want_last)
		r->raced++;
	end = now_ms() + wait_ms();
	while (dst[MSG - 1] != want_last && now_ms() < end)
		;
	/*
	 * At once the first byte of the last packet (a device that places
	 * a packet's blocks out of order writes it last), then the last
	 * byte's block, then everything backwards from the end.
	 */
	if (dst[MSG - mtu] != byte_of(round, MSG - mtu)) {
		r->whole_missing++;
		goto block;
	}
	for (i = MSG; i-- > 0;)
		if (dst[i] != byte_of(round, i)) {
			r->whole_missing++;
			break;
		}
block:
	for (i = blk; i < MSG; i++)
		if (dst[i] != byte_of(round, i)) {
			r->block_missing++;
			break;
		}
	if (!wait_wc(wcs))
		r->errors++;
	for (i = 0; i < MSG; i++)
		if (dst[i] != byte_of(round, i)) {
			r->final_bad++;
			break;
		}
}

static void experiment(const char *name, enum ibv_wr_opcode op,
		       bool relaxed)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     (relaxed ? IBV_ACCESS_RELAXED_ORDERING : 0);
	/* the guarantee is the responder's for WRITE/SEND, ours for READ */
	struct ibv_qp *reader = op == IBV_WR_RDMA_READ ? qb : qa;
	int caps = ibv_query_qp_data_in_order(reader, op,
					      IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS);
	bool whole = (caps & IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG) && !relaxed;
	bool block = (caps & (IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG |
			      IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES)) &&
		     !relaxed;
	volatile uint8_t *dst = aligned_alloc(4096, MSG);
	struct result r = {};
	struct ibv_mr *mr;
	int i;

	mr = dst ? ibv_reg_mr(pd, (void *)dst, MSG, access) : NULL;
	if (!ok(mr != NULL, "%s%s: reg_mr of %d KiB", name,
		relaxed ? " (relaxed ordering)" : "", MSG / 1024)) {
		free((void *)dst);
		return;
	}
	memset((void *)dst, 0, MSG);
	for (i = 0; i < rounds; i++)
		one_round(op, dst, mr, i, &r);
	diag("%s%s: reported %#x; %d rounds: the reader was first %d times, last byte before the rest %d, before its own block %d",
	     name, relaxed ? " (relaxed)" : "", caps, rounds, r.raced,
	     r.whole_missing, r.block_missing);
	ok(!r.errors && !r.final_bad,
	   "%s%s: every message complete and right after its completion (%d errors, %d wrong)",
	   name, relaxed ? " (relaxed)" : "", r.errors, r.final_bad);
	ok(r.raced > rounds / 2,
	   "%s%s: the reader watched the messages arrive (%d of %d rounds)",
	   name, relaxed ? " (relaxed)" : "", r.raced, rounds);
	if (whole)
		ok(!r.whole_missing,
		   "%s: WHOLE_MSG reported: the last byte never came before the rest (%d times)",
		   name, r.whole_missing);
	else
		ok(r.whole_missing > 0,
		   "%s%s: %s: a reader assuming WHOLE_MSG is caught (%d of %d rounds)",
		   name, relaxed ? " (relaxed)" : "",
		   relaxed ? "relaxed ordering gives the guarantee up" :
			     "WHOLE_MSG not reported",
		   r.whole_missing, rounds);
	if (block)
		ok(!r.block_missing,
		   "%s: 128-byte blocks reported: the last byte's block always whole (%d times not)",
		   name, r.block_missing);
	ibv_dereg_mr(mr);
	free((void *)dst);
}

int main(int argc, char **argv)
{
	const char *name = parse_dev_arg(&argc, &argv);
	struct ibv_port_attr port;

	if (argc == 3 && !strcmp(argv[1], "--rounds"))
		rounds = atoi(argv[2]);
	ctx = open_device_by_name(name);
	if (!ctx)
		return tap_done();
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	src = aligned_alloc(4096, MSG);
	if (!ok(pd && cq && src && !ibv_query_port(ctx, 1, &port),
		"PD, CQ, port"))
		return tap_done();
	src_mr = ibv_reg_mr(pd, src, MSG, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_READ);
	qa = create_qp(pd, cq, IBV_QPT_RC);
	qb = create_qp(pd, cq, IBV_QPT_RC);
	mtu = 128 << port.active_mtu;
	if (!ok(src_mr && qa && qb && !connect_to(qa, qb->qp_num, &port) &&
		!connect_to(qb, qa->qp_num, &port),
		"an RC pair, path MTU %zu", mtu))
		return tap_done();

	experiment("RDMA_WRITE", IBV_WR_RDMA_WRITE, false);
	experiment("RDMA_WRITE", IBV_WR_RDMA_WRITE, true);
	experiment("SEND", IBV_WR_SEND, false);
	experiment("RDMA_READ", IBV_WR_RDMA_READ, false);

	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	ibv_dereg_mr(src_mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return tap_done();
}
