/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca device model: the data path's parts and what they share.
 *
 *   orca_mem.c    page lists, memory regions and their keys, guest memory
 *                 access through a region or a ring (REG_MR / DEREG_MR)
 *   orca_cq.c     completion queues: ring, CQE writer, overrun
 *   orca_wire.c   packets, the port and its link (loopback today)
 *   orca_pkt.c    packets as IBTA bytes on a fabric (orca_pkt.h)
 *   orca_wq.c     QP work queues: geometry, doorbell records, WQE access
 *   orca_srq.c    shared receive queues: commands, taking WQEs, limit
 *   orca_mw.c     memory windows: ALLOC/DEALLOC_MW, bind, invalidate,
 *                 remote keys that name a window
 *   orca_req.c    requester: send WQEs -> request packets
 *   orca_resp.c   responder: request packets -> memory, RQ, ACK/NAK
 *   orca_rdatom.c responder: READs and atomics, answered in order from a
 *                 ring that also answers their duplicates
 *   orca_comp.c   completer: responses -> CQEs; errors, flush, retries
 *   orca_sched.c  the engine loop that interleaves them, and timers
 *
 * One thread runs commands and the engine, never in the middle of a
 * packet, so a DESTROY, DEREG or reset never races with a transfer.
 */
#ifndef ORCA_DP_H
#define ORCA_DP_H

#include "orca_dev_int.h"
#include "orca_fabric.h"
#include "orca_pkt.h"

/*
 * The send window (rxe: RXE_MAX_UNACKED_PSNS): an RC requester has at
 * most this many request packets of its WQE sent and not acknowledged,
 * and sends on as ACKs come.  Half of what the switch holds for a port,
 * so that one QP's burst fits there with room for the ACKs and READ
 * responses that go the same way: without a bound a long message
 * overflows the queues and loses its tail, which only the retransmit
 * timer notices.
 */
#define ORCA_MAX_UNACKED_PSNS	(ORCA_FAB_PORT_QUEUE / 2)
/*
 * AckReq on every ORCA_ACK_EVERY-th packet of a message and on its last
 * (the responder ACKs what asks for it, nothing else).  Any window's
 * worth of PSNs in a row holds two of them, so a full window always waits
 * for an ACK it asked for (or for the timer, if that packet was lost),
 * and the window moves twice per round trip.
 */
#define ORCA_ACK_EVERY		(ORCA_MAX_UNACKED_PSNS / 2)

/* orca_mem.c */
bool pages_copy_in(struct orca_dev *dev, const struct orca_pbl *pbl,
		   struct orca_pages *pg, uint64_t min_bytes, char *why,
		   size_t whylen);
void pages_free(struct orca_pages *pg);
/* Host pointer of [off, off + len) of a paged buffer; NULL if not inside. */
void *pages_ptr(struct orca_dev *dev, const struct orca_pages *pg,
		uint64_t off, uint32_t len);
void mr_destroy_all(struct orca_dev *dev);

/* What a key must allow. */
enum mr_need {
	MR_LOCAL_READ	= 0,
	MR_LOCAL_WRITE	= ORCA_ACCESS_LOCAL_WRITE,
	MR_REMOTE_WRITE	= ORCA_ACCESS_REMOTE_WRITE,
	MR_REMOTE_READ	= ORCA_ACCESS_REMOTE_READ,
	MR_REMOTE_ATOMIC = ORCA_ACCESS_REMOTE_ATOMIC,
};

struct orca_mr *mr_check(struct orca_dev *dev, uint32_t key, uint32_t pdn,
			 uint32_t need, uint64_t va, uint64_t len);
/*
 * Copy into a region as the data-in-order caps @dio of the opcode that
 * carries the payload promise: ascending, last byte last, for
 * ORCA_DIO_WHOLE_MSG (unless the region is relaxed-ordering); otherwise
 * 128-byte aligned blocks, each whole and ascending, last block first.
 */
void mr_write(struct orca_dev *dev, const struct orca_mr *mr, uint64_t va,
	      const void *src, uint32_t len, uint8_t dio);
void mr_read(struct orca_dev *dev, const struct orca_mr *mr, uint64_t va,
	     void *dst, uint32_t len);
void *mr_ptr(struct orca_dev *dev, const struct orca_mr *mr, uint64_t va,
	     uint32_t len);
bool sge_copy(struct orca_dev *dev, const struct orca_sge *sge, uint32_t n,
	      uint32_t pdn, uint32_t need, uint64_t off, uint8_t *buf,
	      uint32_t len, bool to_guest, uint8_t dio);

/*
 * orca_mw.c.  rkey_check() is mr_check() for a key a remote request
 * carries: a region's key, or a window's (bound, the QP's PD, a type 2
 * window bound to @qp, in bounds, the rights, its region still there with
 * MW_BIND); it returns the region to access, @va being in its space.
 */
struct orca_mr *rkey_check(struct orca_dev *dev, const struct orca_qp *qp,
			   uint32_t key, uint32_t need, uint64_t va,
			   uint64_t len);
/* BIND_MW / LOCAL_INV on @qp; the CQE status (SUCCESS or the error). */
uint8_t mw_bind(struct orca_dev *dev, struct orca_qp *qp,
		const struct orca_bind_wqe *b);
uint8_t local_inv(struct orca_dev *dev, struct orca_qp *qp, uint32_t key);
/* SEND_WITH_INV at the responder: true if @key was invalidated. */
bool remote_inv(struct orca_dev *dev, struct orca_qp *qp, uint32_t key);
/* A QP is destroyed: the type 2 windows bound to it are invalidated. */
void mw_qp_gone(struct orca_dev *dev, struct orca_qp *qp);
void mw_destroy_all(struct orca_dev *dev);

/* orca_cq.c */
int cq_ring_create(struct orca_dev *dev, struct cmd *c, struct orca_cq *cq,
		   const struct orca_create_cq_in *in);
void cq_ring_destroy(struct orca_cq *cq);
/* Post one CQE; false on overrun (the CQ is then in error). */
bool cq_post(struct orca_dev *dev, uint32_t cqn, struct orca_cqe *cqe,
	     bool solicited);

/* orca_wire.c */
struct orca_pkt *pkt_alloc(struct orca_dev *dev);
void pkt_free(struct orca_dev *dev, struct orca_pkt *p);
void pkt_cache_free(struct orca_dev *dev);
/* Hand a packet to the port: routed, queued on the link, or dropped. */
void wire_xmit(struct orca_dev *dev, struct orca_pkt *p);
/*
 * May the engine send a packet it can hold back (a request, a READ
 * response, an atomic ACK)?  False while the fabric's egress queue is
 * full: the caller stops, consuming nothing, until it drains.
 */
bool wire_room(struct orca_dev *dev);
/* Deliver queued packets; returns how many. */
unsigned int wire_drain(struct orca_dev *dev);
void wire_flush(struct orca_dev *dev);
/* When the link next releases a held packet (dp_now_ns() time); 0: none. */
uint64_t wire_next_deadline(const struct orca_dev *dev);
/* Link faults from now on (ctl link-faults); false if out of range. */
bool wire_set_faults(struct orca_dev *dev, uint32_t drop_ppm,
		     uint32_t dup_ppm, uint32_t reorder_ppm, uint32_t delay_us);
uint16_t qp_pkey(struct orca_dev *dev, const struct orca_qp *qp);
/* A packet that came from the fabric: to this port's receive path. */
void wire_rx(struct orca_dev *dev, struct orca_pkt *p);

/* orca_fabric.c: the port's cable to orca-fabric (cfg fabric) */
int fabric_init(struct orca_dev *dev);
void fabric_destroy(struct orca_dev *dev);
/* No fabric, or the SM has given a LID and the port is not down. */
bool fabric_link_up(const struct orca_dev *dev);
/* What port 1's state is after a reset: ACTIVE unless the link is not. */
uint8_t port_link_state(const struct orca_dev *dev);
/* ctl port-up / port-down with a fabric. */
void fabric_admin(struct orca_dev *dev, bool up);
/* Encode and send (or queue) a packet for another port. */
void fabric_xmit(struct orca_dev *dev, const struct orca_pkt *p);
/*
 * Room in the egress queue for @pending packets on their way to it and
 * one more, beyond what is kept for the ACKs that arriving packets call
 * for; true without a fabric connection (what is sent is dropped then).
 */
bool fabric_room(const struct orca_dev *dev, unsigned int pending);
/* " fabric_...=..." counters, nothing without a fabric; the length. */
int fabric_format_stats(const struct orca_dev *dev, char *buf, size_t len);

/* orca_wq.c, orca_srq.c: taking a receive WQE for the responder */
enum rwqe_take {
	RWQE_OK,		/* in qp->resp (have_rwqe) */
	RWQE_NONE,		/* none posted */
	RWQE_BAD_INDEX,		/* producer index past the ring's depth */
	RWQE_MALFORMED,		/* taken (have_rwqe), but unusable */
};

enum rwqe_take rwqe_load(struct orca_resp *s, const uint8_t *w,
			 uint32_t stride, uint32_t max_sge, bool srq,
			 uint32_t idx);
enum rwqe_take rq_take(struct orca_dev *dev, struct orca_qp *qp);
enum rwqe_take srq_take(struct orca_dev *dev, struct orca_qp *qp);
void srq_destroy_all(struct orca_dev *dev);

/* orca_req.c */
bool req_step(struct orca_dev *dev, struct orca_qp *qp);
/* (Re)start the retransmit timer of the RC WQE in flight (if it has one). */
void req_arm_timer(struct orca_qp *qp);
void qp_address(struct orca_dev *dev, struct orca_qp *qp, struct orca_pkt *p);
uint32_t qp_sq_pi(struct orca_dev *dev, struct orca_qp *qp, bool *ok);
uint32_t qp_rq_pi(struct orca_dev *dev, struct orca_qp *qp, bool *ok);
void *sq_wqe(struct orca_dev *dev, struct orca_qp *qp, uint32_t idx);
void *rq_wqe(struct orca_dev *dev, struct orca_qp *qp, uint32_t idx);
uint8_t wr_to_cqe_opcode(uint8_t wr_opcode);

/* orca_resp.c */
void resp_rx(struct orca_dev *dev, struct orca_qp *qp, struct orca_pkt *p);
/* A violation: RC NAKs @code and the QP ends; UC drops the message. */
void resp_fail(struct orca_dev *dev, struct orca_qp *qp,
	       const struct orca_pkt *p, uint8_t code, const char *why);

/* orca_rdatom.c: READs and atomics, their ring of max_dest_rd_atomic */
int rd_res_resize(struct orca_qp *qp, uint32_t n);
void rd_res_clear(struct orca_qp *qp);
void rd_res_stop(struct orca_qp *qp);
void rd_res_free(struct orca_qp *qp);
void resp_read(struct orca_dev *dev, struct orca_qp *qp,
	       const struct orca_pkt *p);
void resp_atomic(struct orca_dev *dev, struct orca_qp *qp,
		 const struct orca_pkt *p, uint8_t op);
void resp_rd_duplicate(struct orca_dev *dev, struct orca_qp *qp,
		       const struct orca_pkt *p);
/* One READ response or atomic ACK; false if none was due. */
bool resp_step(struct orca_dev *dev, struct orca_qp *qp);

/* orca_comp.c */
bool comp_timeout(struct orca_dev *dev, struct orca_qp *qp);
void comp_rx(struct orca_dev *dev, struct orca_qp *qp, struct orca_pkt *p);
void comp_send_done(struct orca_dev *dev, struct orca_qp *qp, uint8_t status,
		    uint32_t vendor_err);
void qp_error(struct orca_dev *dev, struct orca_qp *qp, const char *why);
void qp_sq_error(struct orca_dev *dev, struct orca_qp *qp, const char *why);
bool qp_flush(struct orca_dev *dev, struct orca_qp *qp);
/* The WQE in flight and every queued send WQE: WR_FLUSH_ERR. */
bool sq_flush(struct orca_dev *dev, struct orca_qp *qp);
bool recv_cqe(struct orca_dev *dev, struct orca_qp *qp, uint32_t wqe_idx,
	      uint8_t status, uint8_t opcode, uint32_t byte_len,
	      const struct orca_pkt *p);
void rwqe_flush(struct orca_dev *dev, struct orca_qp *qp);
void qp_err_entered(struct orca_dev *dev, struct orca_qp *qp);

/* orca_sched.c */
uint64_t dp_now_ns(void);
bool dp_run(struct orca_dev *dev);
void db_poll_kicked(struct orca_dev *dev);
void dp_timers(struct orca_dev *dev);
void dp_qp_reset(struct orca_qp *qp);
void dp_qp_state(struct orca_dev *dev, struct orca_qp *qp,
		 unsigned int old_state);
int qp_queues_create(struct orca_dev *dev, struct cmd *c, struct orca_qp *qp,
		     const struct orca_create_qp_in *in);
void qp_queues_destroy(struct orca_qp *qp);

static inline bool qp_allows(const struct orca_qp *qp, uint32_t access)
{
	return le32toh(qp->ctx.access_flags) & access;
}

static inline bool psn_before(uint32_t a, uint32_t b)
{
	return ((a - b) & PSN_MASK) > (PSN_MASK >> 1);
}

static inline uint32_t pmtu_bytes(uint8_t mtu)
{
	return mtu >= 1 && mtu <= 5 ? 128U << mtu : 256;
}

#endif /* ORCA_DP_H */
