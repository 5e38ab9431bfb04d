/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * orca libibverbs provider.
 *
 * Control verbs are uverbs commands (ibv_cmd_*) carried to the orca kernel
 * driver; the driver-specific payloads are declared in <rdma/orca-abi.h>.
 * ECE and data-in-order are answered from state the kernel reported at
 * alloc_ucontext / create_qp / modify_qp time, without a system call.
 *
 * Data path: the provider owns each CQ's, QP's and SRQ's rings (one
 * page-aligned buffer per object, pinned by the kernel, formats in
 * orca_hw_io.h).
 * post_send / post_recv write WQEs and publish producer indices in the
 * QP's doorbell record; poll_cq reads CQEs by their owner byte and
 * publishes the consumer index.  The only system call is the kick after
 * posting (an empty post_send), which tells the device to look.
 *
 * Device-specific extras (ORCA_IBV_DEVICE_CAP_*, ECE vendor and
 * options, data-in-order caps, max_inline_data) are reported by the kernel in
 * struct orca_ibv_alloc_ucontext_resp and surface through the standard verbs
 * (ibv_query_device_ex fw_ver/device_cap_flags_ex, ibv_query_ece,
 * ibv_query_qp_data_in_order); there is no orcadv library.
 */
#ifndef __ORCA_H__
#define __ORCA_H__

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pthread.h>

#include <infiniband/driver.h>
#include <util/util.h>

#include "orca-abi.h"
#include "orca_hw_io.h"

/* QPN -> QP, for completions: two levels, lookups without a lock. */
#define ORCA_QP_TABLE_SHIFT	10
#define ORCA_QP_TABLE_L1	(1U << (24 - ORCA_QP_TABLE_SHIFT))

struct orca_device {
	struct verbs_device ibv_dev;
};

struct orca_context {
	struct verbs_context ibv_ctx;
	uint32_t device_caps;		/* ORCA_IBV_DEVICE_CAP_* */
	uint32_t ece_vendor_id;
	uint32_t ece_options;		/* ECE options the device supports */
	uint32_t dio_caps;		/* ORCA_IBV_DIO_* bytes, see shifts */
	uint32_t max_inline_data;
	/*
	 * The doorbell page (ORCA_IBV_ALLOC_UCONTEXT_RESP_USER_DB): a kick is
	 * one store of db_value to *db; without it, a system call.
	 */
	void *db_page;
	volatile uint32_t *db;
	uint32_t db_value;		/* little endian */
	/*
	 * The doorbell hint (ORCA_IBV_ALLOC_UCONTEXT_RESP_DB_HINT), mapped
	 * read-only: nonzero while the device will read the doorbell records
	 * again anyway, so a kick would tell it nothing.
	 */
	void *db_hint_page;
	const volatile uint32_t *db_hint;
	/*
	 * The kick ring (ORCA_IBV_ALLOC_UCONTEXT_RESP_KICK_RING): every QP
	 * of the context was created to be named there by each post, before
	 * the hint's test (orca_hw_io.h); NULL without one.
	 */
	struct orca_kick_ring *kick;
	uint32_t kick_entries;
	/*
	 * Attributes only the driver part of the extended query_device
	 * response carries.  They are constant, so the provider asks for
	 * them once per context and later queries skip that payload.
	 */
	uint32_t extras;		/* ORCA_IBV_QUERY_DEVICE_RESP_* */
	struct ibv_tso_caps tso_caps;
	struct ibv_packet_pacing_caps packet_pacing_caps;
	struct ibv_pci_atomic_caps pci_atomic_caps;

	pthread_mutex_t qp_table_lock;	/* inserts and removals */
	struct orca_qp **qp_table[ORCA_QP_TABLE_L1];
	/* IBV_EVENT_DEVICE_FATAL seen: polls flush what is outstanding */
	bool fatal;
};

/*
 * A protection domain, or a parent domain (ibv_alloc_parent_domain):
 * one that names a protection domain (@protection), whose handle it
 * carries, with the allocators its objects' queue buffers come from and
 * the thread domain that spares its QPs' posts their locks.  @refs:
 * parent domains naming a protection domain; buffers allocated through
 * a parent domain.  Neither is freed while they hold it.
 */
struct orca_pd {
	struct ibv_pd ibv_pd;
	struct orca_pd *protection;	/* NULL: this is a protection domain */
	atomic_uint refs;
	struct orca_td *td;
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
	void *pd_context;
};

/* A thread domain: what its objects do, one thread at a time does. */
struct orca_td {
	struct ibv_td ibv_td;
	atomic_uint refs;		/* parent domains naming it */
};

/*
 * The resource_type the allocators of a parent domain are asked with:
 * what the buffer is for (each holds its doorbell record too).
 */
enum {
	ORCA_RES_TYPE_QP = 1,		/* a QP's send and receive rings */
	ORCA_RES_TYPE_SRQ = 2,
	ORCA_RES_TYPE_CQ = 3,
};

struct orca_buf {
	void *va;
	size_t len;
	struct orca_pd *parent;		/* its allocator's; NULL: ours */
	uint64_t type;
};

struct orca_cq {
	struct verbs_cq vcq;
	pthread_spinlock_t lock;	/* poll */
	struct orca_buf buf;
	unsigned int log_depth;
	uint32_t ci;
	struct orca_cq_dbrec *dbrec;
	uint32_t cqn;
	uint32_t arm_sn;		/* completion events received */
	unsigned int qp_refs;		/* QPs naming it (orca_qp_refs_get) */
	/* ibv_cq_ex polling: the CQE between start/next_poll and the next */
	bool ex_cur;
	struct ibv_wc ex_wc;
	uint64_t ex_timestamp;		/* its clocks (struct orca_cqe) */
	uint64_t ex_real_time;
	struct orca_cqe flush_cqe;	/* made up after a device fatal */
};

/* One work queue of a QP, in the QP's buffer. */
struct orca_wq {
	pthread_spinlock_t lock;	/* post */
	bool lockless;			/* a thread domain's: no lock */
	uint8_t *base;
	uint32_t depth;			/* entries, a power of two; 0 = none */
	unsigned int log_stride;
	uint32_t head;			/* next entry to post */
	uint32_t tail;			/* oldest not completed (poll side) */
	uint32_t max_wr;		/* what the QP was created with */
	uint32_t max_sge;
	uint64_t *wrid;
};

struct orca_qp {
	struct verbs_qp vqp;
	struct orca_buf buf;
	struct orca_wq sq, rq;
	struct orca_qp_dbrec *dbrec;
	uint32_t max_inline;
	bool sq_sig_all;
	/* ibv_wr_* batch, under sq.lock from wr_start to wr_complete */
	int wr_err;
	uint32_t wr_start;
	struct orca_send_wqe *wr_cur;
	uint32_t ece_supported;		/* options the device offers this QP */
	uint32_t ece_current;		/* options in force (query_ece) */
	uint32_t ece_pending;		/* requested by set_ece */
	/*
	 * ece_pending is sent with every modify_qp until the INIT->RTR or
	 * RTR->RTS transition that negotiates it succeeds.
	 */
	bool ece_pending_valid;
};

/*
 * A shared receive queue: a ring of receive WQEs the device takes in
 * order, each named by a wqe_id the CQE reports back.  The device copies
 * a WQE when it takes it, so ring slots come back at once; the ids come
 * back when their completions are polled (in any order), from the free
 * stack.  At most max_wr WQEs are outstanding, and the ring is at least
 * that deep, so the slot a post writes was always taken already.
 */
struct orca_srq {
	struct verbs_srq vsrq;
	pthread_spinlock_t lock;	/* post, and the free stack */
	struct orca_buf buf;
	uint32_t depth;			/* ring entries, a power of two */
	unsigned int log_stride;
	uint32_t head;			/* WQEs posted */
	uint32_t max_wr, max_sge;	/* as the kernel applied them */
	struct orca_srq_dbrec *dbrec;
	uint64_t *wrid;			/* [depth], by wqe_id */
	uint32_t *free_ids;		/* [depth], a stack */
	uint32_t nfree;
	bool *posted;			/* [depth]: id out, not yet completed */
	unsigned int qp_refs;		/* QPs naming it (orca_qp_refs_get) */
};

static inline struct orca_pd *to_opd(struct ibv_pd *pd)
{
	return container_of(pd, struct orca_pd, ibv_pd);
}

/* @pd's parent domain, or NULL if it is a protection domain (or none). */
static inline struct orca_pd *orca_parent_of(struct ibv_pd *pd)
{
	return pd && to_opd(pd)->protection ? to_opd(pd) : NULL;
}

static inline void orca_wq_lock(struct orca_wq *wq)
{
	if (!wq->lockless)
		pthread_spin_lock(&wq->lock);
}

static inline void orca_wq_unlock(struct orca_wq *wq)
{
	if (!wq->lockless)
		pthread_spin_unlock(&wq->lock);
}

static inline struct orca_device *to_odev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct orca_device, ibv_dev.device);
}

static inline struct orca_context *to_octx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct orca_context, ibv_ctx.context);
}

static inline struct orca_qp *to_oqp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct orca_qp, vqp.qp);
}

struct orca_ah {
	struct ibv_ah ibv_ah;
	uint32_t ahn;			/* the device's handle */
};

static inline struct orca_ah *to_oah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct orca_ah, ibv_ah);
}

static inline struct orca_srq *to_osrq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct orca_srq, vsrq.srq);
}

static inline struct orca_cq *to_ocq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct orca_cq, vcq.cq);
}

void orca_cache_device_extras(struct orca_context *ctx);
int orca_query_device_ex(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);
int orca_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *attr);
int orca_query_rt_values(struct ibv_context *context,
			 struct ibv_values_ex *values);

/* dm.c */
struct ibv_dm *orca_alloc_dm(struct ibv_context *context,
			     struct ibv_alloc_dm_attr *attr);
int orca_free_dm(struct ibv_dm *ibdm);
struct ibv_dm *orca_import_dm(struct ibv_context *context, uint32_t dm_handle);
void orca_unimport_dm(struct ibv_dm *ibdm);
struct ibv_mr *orca_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *ibdm,
			      uint64_t dm_offset, size_t length,
			      unsigned int access);

struct ibv_pd *orca_alloc_pd(struct ibv_context *context);
struct ibv_mr *orca_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				  size_t length, uint64_t iova, int fd,
				  int access);
struct ibv_pd *orca_import_pd(struct ibv_context *context, uint32_t pd_handle);
void orca_unimport_pd(struct ibv_pd *ibpd);
struct ibv_mr *orca_import_mr(struct ibv_pd *pd, uint32_t mr_handle);
void orca_unimport_mr(struct ibv_mr *ibmr);
int orca_dealloc_pd(struct ibv_pd *pd);
struct ibv_pd *orca_alloc_parent_domain(struct ibv_context *context,
					struct ibv_parent_domain_init_attr *attr);
struct ibv_td *orca_alloc_td(struct ibv_context *context,
			     struct ibv_td_init_attr *init_attr);
int orca_dealloc_td(struct ibv_td *td);

struct ibv_cq *orca_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector);
int orca_destroy_cq(struct ibv_cq *cq);
struct ibv_cq_ex *orca_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr);

struct ibv_qp *orca_create_qp(struct ibv_pd *pd,
			      struct ibv_qp_init_attr *attr);
struct ibv_qp *orca_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr);
int orca_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		   int attr_mask);
int orca_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		  struct ibv_qp_init_attr *init_attr);
int orca_destroy_qp(struct ibv_qp *qp);

/* buf.c */
int orca_buf_alloc(struct orca_buf *buf, size_t len, struct ibv_pd *pd,
		   uint64_t type);
void orca_buf_free(struct orca_buf *buf);

/* cq.c */
void orca_async_event(struct ibv_context *context,
		      struct ibv_async_event *event);
int orca_poll_cq(struct ibv_cq *cq, int ne, struct ibv_wc *wc);
int orca_arm_cq(struct ibv_cq *cq, int solicited_only);
void orca_cq_event(struct ibv_cq *cq);
void orca_qp_clean_cqs(struct orca_qp *qp, bool forget);
int orca_resize_cq(struct ibv_cq *cq, int cqe);

/* qp.c */
int orca_qp_rings_init(struct orca_context *ctx, struct orca_qp *qp,
		       struct ibv_qp_init_attr_ex *attr,
		       struct orca_ibv_create_qp *cmd);
void orca_qp_rings_setup(struct orca_qp *qp,
			 const struct ibv_qp_init_attr_ex *attr);
void orca_qp_rings_free(struct orca_qp *qp);
void orca_qp_reset_rings(struct orca_qp *qp);
void orca_qp_refs_get(struct ibv_qp *ibqp);
void orca_qp_refs_put(struct ibv_qp *ibqp);
int orca_qp_table_insert(struct orca_context *ctx, struct orca_qp *qp);
void orca_qp_table_remove(struct orca_context *ctx, struct orca_qp *qp);
struct orca_qp *orca_qp_lookup(struct orca_context *ctx, uint32_t qpn);
int orca_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr);
void orca_qp_kick(struct orca_qp *qp);

/* srq.c */
struct ibv_srq *orca_create_srq(struct ibv_pd *pd,
				struct ibv_srq_init_attr *attr);
struct ibv_srq *orca_create_srq_ex(struct ibv_context *context,
				   struct ibv_srq_init_attr_ex *attr);
int orca_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
		    int attr_mask);
int orca_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr);
int orca_destroy_srq(struct ibv_srq *srq);
int orca_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);
uint64_t orca_srq_complete(struct orca_srq *srq, uint32_t wqe_id);

/* wr.c */
int orca_wr_check(const struct orca_context *ctx,
		  const struct ibv_qp_init_attr_ex *attr);
void orca_wr_setup(struct orca_qp *qp, const struct ibv_qp_init_attr_ex *attr);
int orca_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr);

/* ah */
struct ibv_ah *orca_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int orca_destroy_ah(struct ibv_ah *ah);

/* mw (verbs.c; binding is a send WQE, qp.c) */
struct ibv_mw *orca_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type);
int orca_dealloc_mw(struct ibv_mw *mw);
int orca_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind);
int orca_mw_access(unsigned int ibv_access, uint32_t *access);
void orca_bind_wqe_fill(struct orca_bind_wqe *b, uint32_t rkey,
			const struct ibv_mw_bind_info *bi, uint32_t access);

/* mr */
struct ibv_mr *orca_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			   uint64_t hca_va, int access);
int orca_dereg_mr(struct verbs_mr *vmr);
int orca_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access);

int orca_set_ece(struct ibv_qp *qp, struct ibv_ece *ece);
int orca_query_ece(struct ibv_qp *qp, struct ibv_ece *ece);
int orca_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op,
				uint32_t flags);

#endif /* __ORCA_H__ */
