/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca device model, layer 2: the resources.  The device's objects and
 * their state, with no command parsing (that is layer 6, orca_cmd_*.c):
 *
 *   orca_res.c    handle tables of PDs, CQs, QPs; choosing a free handle
 *   orca_mem.c    page lists, memory regions and their keys, guest memory
 *                 access through a region or a ring
 *   orca_mw.c     memory windows: bind, invalidate, remote keys that
 *                 name a window
 *   orca_mcast.c  the port's multicast groups and the QPs attached
 *   orca_cq.c     completion queues: ring, CQE writer, overrun, CEQ
 *   orca_wq.c     QP work queues: geometry, doorbell records, WQE access
 *   orca_srq.c    shared receive queues: taking WQEs, the limit event
 *   orca_rdres.c  a QP's responder resources (READ/atomic ring) storage
 *   orca_qp.c     the IBTA QP state machine's table
 */
#ifndef ORCA_RES_H
#define ORCA_RES_H

#include "orca_core.h"

/* orca_res.c */
struct orca_pd *pd_get(struct orca_dev *dev, uint32_t pdn);
struct orca_cq *cq_get(struct orca_dev *dev, uint32_t cqn);
bool qp_busy(struct orca_dev *dev, uint32_t h);
uint32_t rr_next(uint32_t *cursor, uint32_t lo, uint32_t hi,
		 bool (*busy)(struct orca_dev *, uint32_t),
		 struct orca_dev *dev);
uint32_t roundup_pow2(uint32_t v);
uint16_t qp_pkey(struct orca_dev *dev, const struct orca_qp *qp);
int pkey_index_of(const struct orca_dev *dev, uint16_t pkey);
bool ud_av_ok(const struct orca_dev *dev, const struct orca_av *av);

/* orca_mem.c */
bool pages_copy_in(struct orca_dev *dev, const struct orca_pbl *pbl,
		   struct orca_pages *pg, uint64_t min_bytes, char *why,
		   size_t whylen);
void pages_free(struct orca_pages *pg);
/* Host pointer of [off, off + len) of a paged buffer; NULL if not inside. */
void *pages_ptr(struct orca_dev *dev, const struct orca_pages *pg,
		uint64_t off, uint32_t len);
struct orca_mr *mr_get(struct orca_dev *dev, uint32_t key);
/*
 * A new key byte for a slot whose last one was @last: never @last (a
 * stale key misses), otherwise unpredictable (a peer cannot guess a
 * neighbour's R_Key from its own), as real HCAs vary the key byte.
 */
uint8_t key_byte_next(struct orca_dev *dev, uint8_t last);
void mr_destroy_all(struct orca_dev *dev);
/* Host pointer of [off, off + len) of the device memory window, or NULL. */
void *dm_ptr(struct orca_dev *dev, uint64_t off, uint64_t len);
void dm_destroy_all(struct orca_dev *dev);

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
/*
 * The REG_MR WQE @w on @qp (orca_hw_io.h's rules); the CQE status.  The
 * region's key byte, rights, range and page list are the WQE's after it.
 */
uint8_t mr_fast_reg(struct orca_dev *dev, struct orca_qp *qp,
		    const struct orca_reg_wqe *w);
/*
 * LOCAL_INV, or SEND_WITH_INV arriving on @qp, of the fast-register
 * region @key names: free again.  False, and *why, if it is not a valid
 * such region of @qp's PD (or windows are bound to it).
 */
bool mr_invalidate(struct orca_dev *dev, struct orca_qp *qp, uint32_t key,
		   const char **why);
/*
 * mr_check() for an SGE: with @rlkey (the QP was created with
 * ORCA_QP_CREATE_RESERVED_LKEY) ORCA_RESERVED_LKEY names guest memory
 * itself, for local access to RAM only.
 */
const struct orca_mr *sge_mr(struct orca_dev *dev, uint32_t key, uint32_t pdn,
			     bool rlkey, uint32_t need, uint64_t va,
			     uint64_t len);
bool sge_copy(struct orca_dev *dev, const struct orca_sge *sge, uint32_t n,
	      uint32_t pdn, bool rlkey, uint32_t need, uint64_t off,
	      uint8_t *buf, uint32_t len, bool to_guest, uint8_t dio);
/*
 * Bytes @off..@off+@len of the scatter list where they lie in guest
 * memory, if in one piece (one SGE, one page of its region), checked as
 * sge_copy() checks them; NULL: gather them with sge_copy().
 */
const uint8_t *sge_borrow(struct orca_dev *dev, const struct orca_sge *sge,
			  uint32_t n, uint32_t pdn, bool rlkey, uint32_t need,
			  uint64_t off, uint32_t len);

/* May the QP's SGEs use ORCA_RESERVED_LKEY? */
static inline bool qp_rlkey(const struct orca_qp *qp)
{
	return le32toh(qp->ctx.create_flags) & ORCA_QP_CREATE_RESERVED_LKEY;
}

/* May the QP's send WQEs carry their address vector (ORCA_WQE_F_UD_AV)? */
static inline bool qp_ud_av(const struct orca_qp *qp)
{
	return le32toh(qp->ctx.create_flags) & ORCA_QP_CREATE_UD_AV;
}

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
struct orca_mw *mw_get(struct orca_dev *dev, uint32_t key);
uint32_t mw_rkey(struct orca_dev *dev, const struct orca_mw *mw);
void mw_unbind(struct orca_dev *dev, struct orca_mw *mw);
void mw_destroy_all(struct orca_dev *dev);

/*
 * orca_mcast.c: the port's multicast groups.  mcast_attach() returns an
 * ORCA_STATUS_* (and why it is not OK); mcast_detach() false if @qp was
 * not attached.  mcast_for_each() calls @fn once for each QP a packet to
 * @mlid reaches (@mgid: its GRH's DGID, NULL without one) and returns
 * how many; the groups may not change meanwhile.
 */
bool mlid_is_mcast(uint16_t lid);
int mcast_init(struct orca_dev *dev);
void mcast_free(struct orca_dev *dev);
void mcast_destroy_all(struct orca_dev *dev);
int mcast_attach(struct orca_dev *dev, struct orca_qp *qp, uint16_t mlid,
		 const uint8_t *mgid, const char **why);
bool mcast_detach(struct orca_dev *dev, struct orca_qp *qp, uint16_t mlid,
		  const uint8_t *mgid);
void mcast_qp_gone(struct orca_dev *dev, struct orca_qp *qp);
bool mcast_owns(struct orca_dev *dev, uint16_t mlid, const uint8_t *mgid);
uint32_t mcast_for_each(struct orca_dev *dev, uint16_t mlid,
			const uint8_t *mgid,
			void (*fn)(struct orca_dev *dev, uint32_t qpn,
				   void *arg),
			void *arg);

/* orca_cq.c */
int cq_ring_create(struct orca_dev *dev, struct cmd *c, struct orca_cq *cq,
		   const struct orca_create_cq_in *in);
void cq_ring_destroy(struct orca_cq *cq);
/* Post one CQE; false on overrun (the CQ is then in error). */
bool cq_post(struct orca_dev *dev, uint32_t cqn, struct orca_cqe *cqe,
	     bool solicited);
/* The CQ_ERROR events that waited for room in the EQ; how many still do. */
uint32_t cq_post_deferred(struct orca_dev *dev);
/* Each heartbeat: the event of a CQ armed with CQEs unread (orca_hw_io.h). */
void cq_arm_sweep(struct orca_dev *dev);

/* orca_wq.c, orca_srq.c: taking a receive WQE for the responder */
enum rwqe_take {
	RWQE_OK,		/* in qp->resp (have_rwqe) */
	RWQE_NONE,		/* none posted */
	RWQE_BAD_INDEX,		/* producer index past the ring's depth */
	RWQE_MALFORMED,		/* taken (have_rwqe), but unusable */
};

/* orca_wq.c */
int qp_queues_create(struct orca_dev *dev, struct cmd *c, struct orca_qp *qp,
		     const struct orca_create_qp_in *in);
void qp_queues_destroy(struct orca_qp *qp);
uint32_t qp_sq_pi(struct orca_dev *dev, struct orca_qp *qp, bool *ok);
uint32_t qp_rq_pi(struct orca_dev *dev, struct orca_qp *qp, bool *ok);
void *sq_wqe(struct orca_dev *dev, struct orca_qp *qp, uint32_t idx);
void *rq_wqe(struct orca_dev *dev, struct orca_qp *qp, uint32_t idx);
enum rwqe_take rwqe_load(struct orca_resp *s, const uint8_t *w,
			 uint32_t stride, uint32_t max_sge, bool srq,
			 uint32_t idx);
enum rwqe_take rq_take(struct orca_dev *dev, struct orca_qp *qp);

/* orca_srq.c */
struct orca_srq *srq_get(struct orca_dev *dev, uint32_t srqn);
enum rwqe_take srq_take(struct orca_dev *dev, struct orca_qp *qp);
/* The SRQ_LIMIT events that waited for room in the EQ; how many still do. */
uint32_t srq_post_deferred(struct orca_dev *dev);
void srq_destroy_all(struct orca_dev *dev);

/* orca_rdres.c: READs and atomics, their ring of max_dest_rd_atomic */
int rd_res_resize(struct orca_qp *qp, uint32_t n);
void rd_res_clear(struct orca_qp *qp);
void rd_res_stop(struct orca_qp *qp);
void rd_res_free(struct orca_qp *qp);

/*
 * QP state machine (orca_qp.c).  Returns the ORCA_STATUS_* of the check
 * and sets *synd; @cur is the QP's actual state, @next the requested one.
 */
int orca_qp_check_transition(unsigned int qp_type, unsigned int cur,
			     unsigned int next, uint32_t attr_mask,
			     uint32_t *synd, const char **why);

/* orca_kick.c: the engine's run list and the kick rings */
void qp_sched(struct orca_dev *dev, struct orca_qp *qp);
void qp_unsched(struct orca_dev *dev, struct orca_qp *qp);
struct orca_qp *qp_sched_pop(struct orca_dev *dev);
void qp_sched_all(struct orca_dev *dev);
void qp_sched_kicked(struct orca_dev *dev);
uint32_t kick_ring_add(struct orca_dev *dev, uint64_t addr);
/* @ring (1-based) is a ring CREATE_KICK_RING made and nothing destroyed. */
bool kick_ring_live(const struct orca_dev *dev, uint32_t ring);
bool kick_ring_del(struct orca_dev *dev, uint32_t ring);
void kick_ring_del_all(struct orca_dev *dev);

#endif /* ORCA_RES_H */
