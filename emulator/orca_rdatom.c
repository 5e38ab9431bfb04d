// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the responder's RDMA READs and atomics.
 *
 * Every READ, atomic or ATOMIC WRITE the responder executes takes the
 * next entry of a
 * ring of max_dest_rd_atomic entries (rxe: resp.resources[]): its PSNs,
 * what it asked for, the value an atomic found and the MSN it was given.
 * Responses go out one packet per engine step, entry after entry in the
 * order they became due, so a READ that arrives while an earlier one is
 * still being answered waits its turn instead of replacing it.
 *
 * A duplicate (its PSN before the expected one) is answered from its
 * entry only: a READ when it asks for part of what that READ read, with
 * the same R_Key (a requester's retry asks for the tail it is missing),
 * an atomic with the value saved then, never executed twice (an ATOMIC
 * WRITE neither: its answer, a READ response of no data, is sent again;
 * a write of other data since would be undone otherwise).  Anything
 * else that looks like a duplicate is dropped silently, as the IBA's
 * class D errors are: it executes nothing and gives no access the QP's
 * rights do not give now.
 */
#include <stdlib.h>

#include "orca_xport.h"

/* Packets a READ of @len bytes is answered with: a zero-length one too. */
static uint32_t read_pkts(const struct orca_qp *qp, uint64_t len)
{
	uint32_t mtu = pmtu_bytes(qp->ctx.path_mtu);

	return len ? (len + mtu - 1) / mtu : 1;
}

/* @psn in [first, last], modulo 2^24. */
static bool psn_in(uint32_t psn, uint32_t first, uint32_t last)
{
	return ((psn - first) & PSN_MASK) <= ((last - first) & PSN_MASK);
}

/* Responses for @e are to be sent (again), after those already due. */
static void rd_res_due(struct orca_qp *qp, struct orca_rd_res *e)
{
	if (e->due)
		return;
	e->due = true;
	e->seq = qp->resp.rd_seq++;
	qp->resp.rd_due++;
}

/* Answer [va, va + len) of READ @e, the first response with PSN @psn. */
static void read_answer(struct orca_qp *qp, struct orca_rd_res *e,
			uint64_t va, uint64_t len, uint32_t psn)
{
	e->cur_va = va;
	e->cur_len = len;
	e->cur_off = 0;
	e->cur_psn = psn & PSN_MASK;
	rd_res_due(qp, e);
}

/*
 * The entry a new READ or atomic takes: the oldest one.  NULL when that
 * is still being answered: the requester has more outstanding than the
 * max_dest_rd_atomic it was given, an invalid request.
 */
static struct orca_rd_res *rd_res_take(struct orca_dev *dev,
				       struct orca_qp *qp,
				       const struct orca_pkt *p)
{
	struct orca_resp *s = &qp->resp;
	struct orca_rd_res *e = &qp->rd_res[s->rd_head];

	if (e->due) {
		resp_fail(dev, qp, p, AETH_NAK_INV_REQ,
			  "more READ/atomic requests than max_dest_rd_atomic");
		return NULL;
	}
	s->rd_head = (s->rd_head + 1) % qp->rd_res_n;
	memset(e, 0, sizeof(*e));
	/* the MSN counts each request once, when it is executed */
	e->msn = ++s->msn;
	return e;
}

/* Both kinds need the right on the QP and responder resources. */
static bool rd_allowed(const struct orca_qp *qp, uint32_t access)
{
	return qp_allows(qp, access) && qp->ctx.max_dest_rd_atomic &&
	       qp->rd_res_n;
}

void resp_read(struct orca_dev *dev, struct orca_qp *qp,
	       const struct orca_pkt *p)
{
	struct orca_rd_res *e;
	uint32_t n;

	if (!rd_allowed(qp, ORCA_ACCESS_REMOTE_READ)) {
		resp_fail(dev, qp, p, AETH_NAK_INV_REQ,
			  "RDMA READ not enabled on the QP");
		return;
	}
	/*
	 * IBA 9.4.4: a DMA length is at most 2^31 bytes; longer, the READ
	 * would span half the PSN space and more
	 */
	if (p->dmalen > 0x80000000U) {
		resp_fail(dev, qp, p, AETH_NAK_INV_REQ,
			  "RDMA READ of more than 2^31 bytes");
		return;
	}
	if (p->dmalen && !rkey_check(dev, qp, p->rkey, MR_REMOTE_READ, p->va,
				     p->dmalen)) {
		resp_fail(dev, qp, p, AETH_NAK_REM_ACCESS,
			  "RDMA READ rkey refused");
		return;
	}
	e = rd_res_take(dev, qp, p);
	if (!e)
		return;
	n = read_pkts(qp, p->dmalen);
	e->type = RD_RES_READ;
	e->first_psn = p->psn;
	e->last_psn = (p->psn + n - 1) & PSN_MASK;
	e->rkey = p->rkey;
	e->va = p->va;
	e->len = p->dmalen;
	read_answer(qp, e, p->va, p->dmalen, p->psn);
	qp->resp.epsn = (p->psn + n) & PSN_MASK;
}

/*
 * The 8-byte aligned word an atomic or ATOMIC WRITE names, if the QP
 * grants @qp_right (with responder resources) and the region @mr_right;
 * otherwise it is NAKed (invalid request, or remote access) and NULL.
 * The log line names the opcode, so the message serves both.
 */
static uint64_t *atomic_word(struct orca_dev *dev, struct orca_qp *qp,
			     const struct orca_pkt *p, uint32_t qp_right,
			     uint32_t mr_right)
{
	struct orca_mr *mr;
	uint64_t *ptr;

	if (!rd_allowed(qp, qp_right) || (p->va & 7)) {
		resp_fail(dev, qp, p, AETH_NAK_INV_REQ,
			  "atomic not enabled on the QP, or misaligned");
		return NULL;
	}
	mr = rkey_check(dev, qp, p->rkey, mr_right, p->va, 8);
	ptr = mr ? mr_ptr(dev, mr, p->va, 8) : NULL;
	if (!ptr)
		resp_fail(dev, qp, p, AETH_NAK_REM_ACCESS, "atomic rkey refused");
	return ptr;
}

void resp_atomic(struct orca_dev *dev, struct orca_qp *qp,
		 const struct orca_pkt *p, uint8_t op)
{
	struct orca_rd_res *e;
	uint64_t *ptr, orig;

	ptr = atomic_word(dev, qp, p, ORCA_ACCESS_REMOTE_ATOMIC,
			  MR_REMOTE_ATOMIC);
	if (!ptr)
		return;
	/* an entry first: with none free, nothing may be executed */
	e = rd_res_take(dev, qp, p);
	if (!e)
		return;
	/* host atomics on the guest page: atomic against the guest's CPUs */
	if (op == IB_CMP_SWAP) {
		orig = p->compare;
		__atomic_compare_exchange_n(ptr, &orig, p->swap_add, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	} else {
		orig = __atomic_fetch_add(ptr, p->swap_add, __ATOMIC_SEQ_CST);
	}
	dev->stats.dma_writes++;
	e->type = RD_RES_ATOMIC;
	e->first_psn = e->last_psn = e->cur_psn = p->psn;
	e->rkey = p->rkey;
	e->va = p->va;
	e->len = 8;
	e->orig = orig;
	rd_res_due(qp, e);
	qp->resp.epsn = (qp->resp.epsn + 1) & PSN_MASK;
}

/*
 * IBA 1.5 ATOMIC WRITE (oA19-28..): 8 bytes to an 8-byte aligned address
 * of a region with REMOTE_WRITE, on a QP with REMOTE_WRITE and responder
 * resources, stored at once; answered with a READ response of no data.
 */
void resp_atomic_write(struct orca_dev *dev, struct orca_qp *qp,
		       const struct orca_pkt *p)
{
	struct orca_rd_res *e;
	uint64_t *ptr, v;

	if (!(dev->cfg.dev_caps & ORCA_DEV_CAP_ATOMIC_WRITE) ||
	    p->dmalen != 8 || p->paylen != 8) {
		resp_fail(dev, qp, p, AETH_NAK_INV_REQ,
			  "ATOMIC WRITE not enabled on the device, or not of 8 bytes");
		return;
	}
	ptr = atomic_word(dev, qp, p, ORCA_ACCESS_REMOTE_WRITE,
			  MR_REMOTE_WRITE);
	if (!ptr)
		return;
	e = rd_res_take(dev, qp, p);
	if (!e)
		return;
	/* one 64-bit store: a guest CPU reads the old or the new 8 bytes */
	memcpy(&v, orca_pkt_payload(p), 8);
	__atomic_store_n(ptr, v, __ATOMIC_SEQ_CST);
	dev->stats.dma_writes++;
	e->type = RD_RES_ATOMIC_WRITE;
	e->first_psn = e->last_psn = p->psn;
	e->rkey = p->rkey;
	e->va = p->va;
	read_answer(qp, e, p->va, 0, p->psn);
	qp->resp.epsn = (qp->resp.epsn + 1) & PSN_MASK;
}

static struct orca_rd_res *rd_res_find(struct orca_qp *qp, uint8_t type,
				       uint32_t psn)
{
	uint32_t i;

	for (i = 0; i < qp->rd_res_n; i++) {
		struct orca_rd_res *e = &qp->rd_res[i];

		if (e->type == type && psn_in(psn, e->first_psn, e->last_psn))
			return e;
	}
	return NULL;
}

/*
 * A duplicate READ or atomic (RC): answered again from its entry, or
 * dropped.  A READ must ask for a part of the original with its R_Key;
 * the QP must still allow it (the R_Key is checked again per packet).
 */
void resp_rd_duplicate(struct orca_dev *dev, struct orca_qp *qp,
		       const struct orca_pkt *p)
{
	uint8_t op = p->opcode & 0x1f;
	struct orca_rd_res *e;
	uint64_t skip;

	if (op == IB_READ_REQ) {
		e = rd_res_find(qp, RD_RES_READ, p->psn);
		skip = e ? p->va - e->va : 0;
		if (!e || !rd_allowed(qp, ORCA_ACCESS_REMOTE_READ) ||
		    e->rkey != p->rkey || p->va < e->va || skip > e->len ||
		    p->dmalen > e->len - skip)
			goto drop;
		read_answer(qp, e, p->va, p->dmalen, p->psn);
		return;
	}
	e = rd_res_find(qp, op == IB_ATOMIC_WRITE ? RD_RES_ATOMIC_WRITE :
			RD_RES_ATOMIC, p->psn);
	if (!e || e->rkey != p->rkey || e->va != p->va)
		goto drop;
	rd_res_due(qp, e);
	return;
drop:
	orca_log("QP %u responder: duplicate opcode 0x%02x PSN %u matches no READ/atomic it executed: dropped",
		 le32toh(qp->ctx.qpn), p->opcode, p->psn);
	dev->stats.pkts_dropped++;
}

/* The entry whose responses are next: the one due longest. */
static struct orca_rd_res *rd_res_next(struct orca_qp *qp)
{
	struct orca_rd_res *best = NULL;
	uint32_t i;

	for (i = 0; i < qp->rd_res_n; i++) {
		struct orca_rd_res *e = &qp->rd_res[i];

		if (e->due && (!best || e->seq < best->seq))
			best = e;
	}
	return best;
}

static void rd_res_done(struct orca_qp *qp, struct orca_rd_res *e)
{
	e->due = false;
	qp->resp.rd_due--;
}

static bool atomic_ack(struct orca_dev *dev, struct orca_qp *qp,
		      struct orca_rd_res *e)
{
	struct orca_pkt *p = pkt_alloc(dev);

	if (!p)
		return false;	/* host out of memory: try again later */
	qp_address(dev, qp, p);
	p->opcode = IB_RC | IB_ATOMIC_ACK;
	p->hdrs |= PKT_AETH | PKT_ATOMIC_ACK;
	p->syndrome = AETH_ACK_NO_CREDITS;
	p->msn = e->msn & PSN_MASK;
	p->psn = e->first_psn;
	p->orig = e->orig;
	rd_res_done(qp, e);
	port_xmit(dev, p);
	return true;
}

/* The next READ response packet of @e. */
static bool read_response(struct orca_dev *dev, struct orca_qp *qp,
			  struct orca_rd_res *e)
{
	uint32_t mtu = pmtu_bytes(qp->ctx.path_mtu), chunk;
	uint64_t left = e->cur_len - e->cur_off;
	struct orca_mr *mr = NULL;
	struct orca_pkt *p;
	bool first, last;

	chunk = left < mtu ? left : mtu;
	first = !e->cur_off;
	last = chunk == left;
	if (chunk) {
		mr = rkey_check(dev, qp, e->rkey, MR_REMOTE_READ,
				e->cur_va + e->cur_off, chunk);
		if (!mr) {
			struct orca_pkt q = { .psn = e->cur_psn,
					      .opcode = IB_READ_REQ };

			rd_res_done(qp, e);
			resp_fail(dev, qp, &q, AETH_NAK_REM_ACCESS,
				  "RDMA READ region gone");
			return true;
		}
	}
	p = pkt_alloc(dev);
	if (!p)
		return false;
	qp_address(dev, qp, p);
	p->opcode = IB_RC | (first && last ? IB_READ_RESP_ONLY :
			     first ? IB_READ_RESP_FIRST :
			     last ? IB_READ_RESP_LAST : IB_READ_RESP_MIDDLE);
	p->psn = (e->cur_psn + e->cur_off / mtu) & PSN_MASK;
	if (first || last) {
		/* the READ is complete with its last response */
		p->hdrs |= PKT_AETH;
		p->syndrome = AETH_ACK_NO_CREDITS;
		p->msn = (e->msn - !last) & PSN_MASK;
	}
	/* where it lies, if in one piece (req_payload()), else read out */
	if (chunk)
		p->data = mr_ptr(dev, mr, e->cur_va + e->cur_off, chunk);
	if (chunk && !p->data)
		mr_read(dev, mr, e->cur_va + e->cur_off, p->payload, chunk);
	p->paylen = chunk;
	e->cur_off += chunk;
	if (last)
		rd_res_done(qp, e);
	port_xmit(dev, p);
	return true;
}

/*
 * One READ response or atomic ACK, if any is due (an ATOMIC WRITE's
 * answer is a READ response of no data).
 */
bool resp_step(struct orca_dev *dev, struct orca_qp *qp)
{
	struct orca_rd_res *e;

	if (!qp->resp.rd_due)
		return false;
	if (qp->ctx.state == ORCA_QPS_ERR || qp->ctx.state == ORCA_QPS_RESET) {
		rd_res_stop(qp);
		return false;
	}
	e = rd_res_next(qp);
	if (!e) {
		qp->resp.rd_due = 0;	/* cannot happen: recount */
		return false;
	}
	/* responses wait for room on the port, as requests do */
	if (!port_room(dev))
		return false;
	if (e->type == RD_RES_ATOMIC)
		return atomic_ack(dev, qp, e);
	return read_response(dev, qp, e);
}
