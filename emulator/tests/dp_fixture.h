/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Data-path fixture of the device model, on top of fixture.h: the test
 * plays the provider too (page lists, regions, CQ and QP rings in fake
 * guest RAM, WQEs and doorbell records written, CQEs read back).  Used by
 * the data-path and SRQ unit tests and the data-path fuzzers.
 */
#ifndef ORCA_EMU_TESTS_DP_FIXTURE_H
#define ORCA_EMU_TESTS_DP_FIXTURE_H

#include "fixture.h"
#include "orca_cmd.h"
#include "orca_dev.h"

/* Fake RAM above the mailboxes belongs to the "provider". */
#define HEAP_BASE	0x300000ULL
#define PAGE		4096ULL

static uint64_t heap_next;

static inline uint64_t heap_alloc(uint64_t bytes)
{
	uint64_t at = heap_next;

	heap_next += (bytes + PAGE - 1) & ~(PAGE - 1);
	CHECK(heap_next <= RAM_SIZE);
	return at;
}

static inline void *gpa(struct fx *f, uint64_t addr)
{
	return f->ram + addr;
}

/* A page list for the contiguous pages [at, at + n * 4 KiB). */
static inline struct orca_pbl pbl_for(struct fx *f, uint64_t at, uint32_t n)
{
	uint64_t list = heap_alloc(n * 8);
	__le64 *e = gpa(f, list);
	struct orca_pbl p = {};
	uint32_t i;

	for (i = 0; i < n; i++)
		e[i] = htole64(at + i * PAGE);
	p.addr = htole64(list);
	p.npages = htole32(n);
	p.page_shift = 12;
	return p;
}

/* REG_MR of [@iova, @iova + @len), byte @iova @first_off into @pbl. */
static inline int reg_mr_pbl(struct fx *f, uint32_t pdn, uint64_t iova,
			     uint64_t len, uint32_t access, struct orca_pbl pbl,
			     uint32_t first_off, uint32_t *lkey)
{
	struct orca_reg_mr_in in = {};
	struct orca_reg_mr_out out;
	int ret;

	in.iova = htole64(iova);
	in.length = htole64(len);
	in.pdn = htole32(pdn);
	in.access = htole32(access);
	in.pbl = pbl;
	in.first_off = htole32(first_off);
	ret = fx_cmd(f, ORCA_CMD_REG_MR, &in, sizeof(in), &out, sizeof(out));
	if (!ret && lkey)
		*lkey = le32toh(out.lkey);
	return ret;
}

/* The guest bytes [@at, @at + @len), at iova(@at). */
static inline int reg_mr(struct fx *f, uint32_t pdn, uint64_t at, uint64_t len,
		  uint32_t access, uint32_t *lkey)
{
	return reg_mr_pbl(f, pdn, 0x7f0000000000ULL + at, len, access,
			  pbl_for(f, at & ~(PAGE - 1),
				  ((at & (PAGE - 1)) + len + PAGE - 1) / PAGE),
			  at & (PAGE - 1), lkey);
}

static inline uint64_t iova(uint64_t at)
{
	return 0x7f0000000000ULL + at;
}

struct ring_cq {
	uint32_t cqn, ci;
	unsigned int log_depth;
	uint64_t base;
};

static inline bool make_cq_flags(struct fx *f, struct ring_cq *cq,
				 unsigned int log_depth, uint8_t flags)
{
	struct orca_create_cq_in in = { .flags = flags };
	struct orca_create_cq_out out;
	uint64_t bytes = (64ULL << log_depth) + 8;

	cq->base = heap_alloc(bytes);
	memset(gpa(f, cq->base), 0, (bytes + PAGE - 1) & ~(PAGE - 1));
	in.cqe = htole32((1U << log_depth) - 1);
	in.log_depth = log_depth;
	in.dbrec_off = htole32(64U << log_depth);
	in.ring = pbl_for(f, cq->base, (bytes + PAGE - 1) / PAGE);
	if (fx_cmd(f, ORCA_CMD_CREATE_CQ, &in, sizeof(in), &out, sizeof(out)))
		return false;
	cq->cqn = le32toh(out.cqn);
	cq->ci = 0;
	cq->log_depth = log_depth;
	return true;
}

static inline bool make_cq(struct fx *f, struct ring_cq *cq, unsigned int log_depth)
{
	return make_cq_flags(f, cq, log_depth, 0);
}

static inline bool poll_cqe(struct fx *f, struct ring_cq *cq, struct orca_cqe *out)
{
	struct orca_cqe *c = gpa(f, cq->base + 64ULL *
				 (cq->ci & ((1U << cq->log_depth) - 1)));
	__le32 *db = gpa(f, cq->base + (64ULL << cq->log_depth));

	if (c->owner != 1 + ((cq->ci >> cq->log_depth) & 1))
		return false;
	*out = *c;
	cq->ci++;
	*db = htole32(cq->ci);
	return true;
}

struct ring_qp {
	uint32_t qpn;
	uint64_t base, rq_off, db_off;
	uint32_t sq_pi, rq_pi;
};

#define SQ_LOG_STRIDE	7	/* 64 + 4 SGEs */
#define RQ_LOG_STRIDE	6	/* 16 + 3 SGEs */

static uint8_t make_qp_type = ORCA_QPT_RC;	/* what make_qp() creates */
static uint32_t make_qp_flags;		/* ... and its ORCA_QP_CREATE_* */
static uint16_t make_qp_kick_ring;	/* ... and with _KICK_RING, the ring */
/*
 * ... with 2^make_qp_log_depth WQEs per ring; post_send(), post_recv()
 * and the other posting helpers here assume the default, 8.
 */
static unsigned int make_qp_log_depth = 3;

/*
 * A QP of @type with rings: 2^make_qp_log_depth send WQEs of 4 SGEs and,
 * without an SRQ (@srqn 0), as many receive WQEs of 3 SGEs.
 */
static inline bool make_qp_srq(struct fx *f, struct ring_qp *qp,
			       uint32_t cqn, uint8_t type, uint32_t srqn)
{
	struct orca_create_qp_in in = {};
	struct orca_qp_ctx ctx;
	uint64_t bytes, n = 1ULL << make_qp_log_depth;

	qp->rq_off = n << SQ_LOG_STRIDE;
	qp->db_off = qp->rq_off + (srqn ? 0 : n << RQ_LOG_STRIDE);
	bytes = qp->db_off + 8;
	qp->base = heap_alloc(bytes);
	memset(gpa(f, qp->base), 0, (bytes + PAGE - 1) & ~(PAGE - 1));
	in.qp_type = type;
	in.create_flags = htole32(make_qp_flags);
	if (make_qp_flags & ORCA_QP_CREATE_KICK_RING)
		in.kick_ring = htole16(make_qp_kick_ring);
	in.pdn = htole32(f->pdn);
	in.send_cqn = in.recv_cqn = htole32(cqn);
	in.max_send_wr = htole32(n);
	in.max_send_sge = htole32(4);
	in.sq_log_depth = make_qp_log_depth;
	in.sq_log_stride = SQ_LOG_STRIDE;
	if (!srqn) {
		in.max_recv_wr = htole32(n);
		in.max_recv_sge = htole32(3);
		in.rq_log_depth = make_qp_log_depth;
		in.rq_log_stride = RQ_LOG_STRIDE;
		in.rq_off = htole32(qp->rq_off);
	}
	in.srqn = htole32(srqn);
	in.dbrec_off = htole32(qp->db_off);
	in.ring = pbl_for(f, qp->base, (bytes + PAGE - 1) / PAGE);
	if (fx_cmd(f, ORCA_CMD_CREATE_QP, &in, sizeof(in), &ctx, sizeof(ctx)))
		return false;
	qp->qpn = le32toh(ctx.qpn);
	qp->sq_pi = qp->rq_pi = 0;
	return true;
}

static inline bool make_qp(struct fx *f, struct ring_qp *qp, uint32_t cqn)
{
	return make_qp_srq(f, qp, cqn, make_qp_type, 0);
}

static uint16_t connect_pkey_index;	/* P_Key index connect_rc() sets */
static uint8_t connect_retry_cnt = 1;	/* retry_cnt connect_rc() sets */
static uint8_t connect_timeout = 10;	/* and timeout (4.096 us << it) */
/* max_dest_rd_atomic and max_rd_atomic connect_rc() sets */
static uint8_t connect_rd_atomic = 1;
/* the DLID connect_qp() sets; 0: the port's own (a loopback) */
static uint16_t connect_dlid;
/* and the source path bits (the SLID's low bits under an LMC) */
static uint8_t connect_path_bits;
/* a GRH to this DGID on the path connect_qp() sets; NULL: none */
static const uint8_t *connect_dgid;

/* The attributes only RC has (IBTA 11.2.4.2's transition tables). */
#define CONNECT_RC_ONLY	(ORCA_QP_MAX_DEST_RD_ATOMIC | ORCA_QP_MIN_RNR_TIMER | \
			 ORCA_QP_TIMEOUT | ORCA_QP_RETRY_CNT | \
			 ORCA_QP_RNR_RETRY | ORCA_QP_MAX_QP_RD_ATOMIC)

/*
 * RESET -> INIT -> RTR -> RTS, connected to @dest through the port; @rc
 * false leaves out the attributes UC does not have.
 */
static inline bool connect_qp(struct fx *f, struct ring_qp *qp, uint32_t dest,
			      uint32_t access, uint8_t mtu, bool rc)
{
	struct orca_modify_qp_in in;
	struct orca_qp_ctx out;
	static const struct {
		uint8_t state;
		uint32_t mask;
	} steps[] = {
		{ ORCA_QPS_INIT, ORCA_QP_STATE | ORCA_QP_PKEY_INDEX |
				 ORCA_QP_PORT | ORCA_QP_ACCESS_FLAGS },
		{ ORCA_QPS_RTR, ORCA_QP_STATE | ORCA_QP_AV | ORCA_QP_PATH_MTU |
				ORCA_QP_DEST_QPN | ORCA_QP_RQ_PSN |
				ORCA_QP_MAX_DEST_RD_ATOMIC |
				ORCA_QP_MIN_RNR_TIMER },
		{ ORCA_QPS_RTS, ORCA_QP_STATE | ORCA_QP_TIMEOUT |
				ORCA_QP_RETRY_CNT | ORCA_QP_RNR_RETRY |
				ORCA_QP_SQ_PSN | ORCA_QP_MAX_QP_RD_ATOMIC },
	};
	unsigned int i;

	for (i = 0; i < 3; i++) {
		memset(&in, 0, sizeof(in));
		in.qpn = htole32(qp->qpn);
		in.attr_mask = htole32(steps[i].mask &
				       (rc ? ~0U : ~(uint32_t)CONNECT_RC_ONLY));
		in.ctx.state = steps[i].state;
		in.ctx.port = 1;
		in.ctx.pkey_index = htole16(connect_pkey_index);
		in.ctx.access_flags = htole32(access);
		in.ctx.av.port = 1;
		in.ctx.av.dlid = htole16(connect_dlid ? connect_dlid :
					 f->cfg.lid);
		in.ctx.av.src_path_bits = connect_path_bits;
		if (connect_dgid) {
			in.ctx.av.flags = ORCA_AV_F_GRH;
			in.ctx.av.hop_limit = 64;
			memcpy(in.ctx.av.dgid, connect_dgid, 16);
		}
		in.ctx.path_mtu = mtu;
		in.ctx.dest_qpn = htole32(dest);
		in.ctx.rq_psn = htole32(0xfffffe);	/* wraps */
		in.ctx.sq_psn = htole32(0xfffffe);
		in.ctx.max_dest_rd_atomic = connect_rd_atomic;
		in.ctx.max_rd_atomic = connect_rd_atomic;
		in.ctx.min_rnr_timer = 1;
		in.ctx.timeout = connect_timeout;
		in.ctx.retry_cnt = connect_retry_cnt;
		in.ctx.rnr_retry = 0;
		if (fx_cmd(f, ORCA_CMD_MODIFY_QP, &in, sizeof(in), &out,
			   sizeof(out)))
			return false;
	}
	return true;
}

static inline bool connect_rc(struct fx *f, struct ring_qp *qp, uint32_t dest,
			      uint32_t access, uint8_t mtu)
{
	return connect_qp(f, qp, dest, access, mtu, true);
}

static uint16_t ud_pkey_index;	/* P_Key index ud_rts_qkey() sets */

/* UD (QP0 and QP1 too): INIT (ud_pkey_index, @qkey), RTR, RTS. */
static inline void ud_rts_qkey(struct fx *f, struct ring_qp *q, uint32_t qkey)
{
	static const uint8_t st[] = { ORCA_QPS_INIT, ORCA_QPS_RTR,
				      ORCA_QPS_RTS };
	struct orca_modify_qp_in mi;
	struct orca_qp_ctx ctx;
	unsigned int k;

	for (k = 0; k < 3; k++) {
		memset(&mi, 0, sizeof(mi));
		mi.qpn = htole32(q->qpn);
		mi.attr_mask = htole32(ORCA_QP_STATE |
			(k == 0 ? ORCA_QP_PKEY_INDEX | ORCA_QP_PORT |
				  ORCA_QP_QKEY : 0) |
			(k == 2 ? ORCA_QP_SQ_PSN : 0));
		mi.ctx.state = st[k];
		mi.ctx.port = 1;
		mi.ctx.qkey = htole32(qkey);
		mi.ctx.pkey_index = htole16(ud_pkey_index);
		CHECK_EQ(fx_cmd(f, ORCA_CMD_MODIFY_QP, &mi, sizeof(mi), &ctx,
				sizeof(ctx)), 0);
	}
}

/* UD: INIT (Q_Key 0x1234), RTR, RTS. */
static inline void ud_rts(struct fx *f, struct ring_qp *q)
{
	ud_rts_qkey(f, q, 0x1234);
}

/*
 * A signaled UD SEND of @len bytes at @buf on a QP created with
 * ORCA_QP_CREATE_UD_AV: its WQE carries the address vector @av, and
 * (QP1) the P_Key index to send with.
 */
static inline void ud_send_av(struct fx *f, struct ring_qp *q, uint64_t buf,
			      uint32_t len, uint32_t lk,
			      const struct orca_av *av, uint32_t dqpn,
			      uint32_t qkey, uint16_t pkey_index)
{
	uint8_t *w = gpa(f, q->base + ((uint64_t)(q->sq_pi & 7) <<
				       SQ_LOG_STRIDE));
	struct orca_send_wqe *h = (void *)w;
	struct orca_av *a = (void *)(h + 1);
	struct orca_sge *s = (void *)(a + 1);
	__le32 *db = gpa(f, q->base + q->db_off);

	memset(w, 0, 1U << SQ_LOG_STRIDE);
	h->opcode = ORCA_WR_SEND;
	h->flags = ORCA_WQE_F_SIGNALED | ORCA_WQE_F_UD_AV;
	h->num_sge = 1;
	h->ud_remote_qpn = htole32(dqpn);
	h->ud_remote_qkey = htole32(qkey);
	h->ud_pkey_index = htole16(pkey_index);
	*a = *av;
	s->addr = htole64(iova(buf));
	s->length = htole32(len);
	s->lkey = htole32(lk);
	*db = htole32(++q->sq_pi);
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_DB);
}

static inline bool connect_uc(struct fx *f, struct ring_qp *qp, uint32_t dest)
{
	return connect_qp(f, qp, dest, 0, 1, false);
}

static inline void post_recv(struct fx *f, struct ring_qp *qp, uint64_t at,
		      uint32_t len, uint32_t lkey)
{
	uint8_t *w = gpa(f, qp->base + qp->rq_off +
			 ((uint64_t)(qp->rq_pi & 7) << RQ_LOG_STRIDE));
	struct orca_recv_wqe *h = (void *)w;
	struct orca_sge *s = (void *)(h + 1);
	__le32 *db = gpa(f, qp->base + qp->db_off + 4);

	memset(w, 0, 1U << RQ_LOG_STRIDE);
	h->num_sge = htole32(1);
	s->addr = htole64(iova(at));
	s->length = htole32(len);
	s->lkey = htole32(lkey);
	*db = htole32(++qp->rq_pi);
}

static uint8_t wqe_extra_flags;	/* ORCA_WQE_F_* added by post_send() */

/*
 * A send WQE of one SGE with @flags in the next slot of a ring of
 * 2^@log_depth, and its producer index (a release store), without a kick.
 */
static inline void put_send_ring(struct fx *f, struct ring_qp *qp,
				 unsigned int log_depth, uint8_t op,
				 uint8_t flags, uint64_t at, uint32_t len,
				 uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	uint32_t slot = qp->sq_pi & ((1U << log_depth) - 1);
	uint8_t *w = gpa(f, qp->base + ((uint64_t)slot << SQ_LOG_STRIDE));
	struct orca_send_wqe *h = (void *)w;
	struct orca_sge *s = (void *)(h + 1);
	__le32 *db = gpa(f, qp->base + qp->db_off);

	memset(w, 0, sizeof(*h) + sizeof(*s));
	h->opcode = op;
	h->flags = flags;
	h->num_sge = 1;
	h->remote_addr = htole64(raddr);
	h->rkey = htole32(rkey);
	s->addr = htole64(iova(at));
	s->length = htole32(len);
	s->lkey = htole32(lkey);
	__atomic_store_n(db, htole32(++qp->sq_pi), __ATOMIC_RELEASE);
}

/* Write a signaled send WQE and its producer index, without a kick. */
static inline void put_send(struct fx *f, struct ring_qp *qp, uint8_t op,
			    uint64_t at, uint32_t len, uint32_t lkey,
			    uint64_t raddr, uint32_t rkey)
{
	uint8_t *w = gpa(f, qp->base +
			 ((uint64_t)(qp->sq_pi & 7) << SQ_LOG_STRIDE));

	/* the whole slot: a test may have left inline data or SGEs */
	memset(w, 0, 1U << SQ_LOG_STRIDE);
	put_send_ring(f, qp, 3, op, ORCA_WQE_F_SIGNALED | wqe_extra_flags, at,
		      len, lkey, raddr, rkey);
}

static inline void post_send(struct fx *f, struct ring_qp *qp, uint8_t op,
			     uint64_t at, uint32_t len, uint32_t lkey,
			     uint64_t raddr, uint32_t rkey)
{
	put_send(f, qp, op, at, len, lkey, raddr, rkey);
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_DB);
}

static inline uint8_t qp_state_of(struct fx *f, uint32_t qpn)
{
	struct orca_qp_handle h = { .qpn = htole32(qpn) };
	struct orca_qp_ctx ctx;

	if (fx_cmd(f, ORCA_CMD_QUERY_QP, &h, sizeof(h), &ctx, sizeof(ctx)))
		return 0xff;
	return ctx.state;
}

/* CREATE_KICK_RING of the page at @addr; its number in @num. */
static inline int create_kick_ring(struct fx *f, uint64_t addr, uint32_t *num)
{
	struct orca_create_kick_ring_in in = { .addr = htole64(addr) };
	struct orca_kick_ring_handle out = {};
	int st;

	st = fx_cmd(f, ORCA_CMD_CREATE_KICK_RING, &in, sizeof(in), &out,
		    sizeof(out));
	if (!st && num)
		*num = le32toh(out.ring);
	return st;
}

/* A device up with @sets, the doorbell hint at @hint_base (0: none). */
static inline struct fx *dp_up_hint(const char *const *sets,
				    uint64_t hint_base)
{
	struct fx *f = fx_new_cfg(sets);

	heap_next = HEAP_BASE;
	f->db_hint_base = hint_base;
	fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
	return f;
}

static inline struct fx *dp_up_cfg(const char *const *sets)
{
	return dp_up_hint(sets, 0);
}

static inline struct fx *dp_up(void)
{
	return dp_up_cfg(NULL);
}

/*
 * Two devices (on one fabric, say) whose buffers come from one heap:
 * an offset heap_alloc() gives is used by one of them only.
 */
static inline void dp_up_pair(const char *const *sets_a,
			      const char *const *sets_b, struct fx **a,
			      struct fx **b)
{
	heap_next = HEAP_BASE;
	*a = fx_up_cfg(sets_a);
	*b = fx_up_cfg(sets_b);
}

#endif /* ORCA_EMU_TESTS_DP_FIXTURE_H */
