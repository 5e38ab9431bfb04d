/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef _ORCA_H_
#define _ORCA_H_

#include <linux/interrupt.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/orca-abi.h>
#include <rdma/uverbs_ioctl.h>

#include "orca_com.h"
#include "orca_hw.h"

#define DRV_MODULE_NAME		"orca"

struct orca_pci;

struct orca_dev {
	struct ib_device ibdev;
	struct pci_dev *pdev;
	struct orca_pci *opci;		/* the function; outlives this device */
	void __iomem *doorbell;		/* ivshmem BAR0 */
	void __iomem *regs;		/* BAR2 register block */
	u32 fw_peer_id;
	struct orca_com com;
	struct orca_caps caps;		/* as read from the device, LE */
	/* caps never change after QUERY_CAPS: translated once */
	struct ib_device_attr attr;
	struct orca_ibv_ex_query_device_resp query_device_resp;
	struct orca_ibv_alloc_ucontext_resp ucontext_resp;

	struct orca_qp_mirror *mirror;
	dma_addr_t mirror_dma;
	u32 mirror_entries;
	struct orca_port_mirror *port_mirror;	/* [phys_port_cnt] */
	dma_addr_t port_mirror_dma;
	/* QUERY_COUNTERS' last answer, kept when the device cannot answer */
	struct orca_query_counters_out counters;
	struct mutex counters_lock;	/* counters */

	/*
	 * port 1's GID and P_Key tables, read at probe and again when the
	 * subnet manager changes them (port_work)
	 */
	union ib_gid *gids;
	u16 *pkeys;
	u32 gid_tbl_len;
	u32 pkey_tbl_len;
	spinlock_t port_lock;		/* gids, pkeys contents */
	spinlock_t node_desc_lock;	/* ibdev.node_desc: set vs. MAD replies */
	struct work_struct port_work;	/* ORCA_PORT_EV_MGMT: re-read, tell */
	atomic_t port_changes;		/* ORCA_PORT_CHG_* not yet handled */

	/* completion events (orca_eq.c) */
	struct orca_eqe *ceq;
	dma_addr_t ceq_dma;
	u32 ceq_log_depth;
	u32 ceq_ci;
	u32 ceq_overflows;
	spinlock_t ceq_lock;		/* ceq_ci, completion handlers */

	struct xarray qps;		/* QPN -> orca_qp, for events */
	struct xarray cqs;		/* CQN -> orca_cq, for events */
	struct xarray srqs;		/* SRQN -> orca_srq, for events */
	wait_queue_head_t retired_wq;	/* a number stopped retiring */
	bool ib_registered;		/* under com.eq_lock */
	struct work_struct resync_work;	/* after the device dropped events */
	struct delayed_work health_work; /* an idle device's health */
	bool fw_back_noted;		/* said once: firmware back, no recovery */
	/* a dead device, stopped before its memory goes back (orca_dead.c) */
	struct work_struct quiesce_work;
	struct work_struct dead_comp_work; /* its completion events */
	bool reset_requested;		/* by quiesce_work, since it died */
	bool quiesced;			/* under held_lock: reset acknowledged */
	struct list_head held;		/* user buffers, page lists it may reach */
	spinlock_t held_lock;		/* held, quiesced */

	/* the user doorbell page (orca_udb.c) */
	bool udb_ok;			/* contexts may map it */
	bool udb_reserved_held;
	struct resource udb_reserved;	/* the rest of BAR0's page */
	/* the doorbell hint the device writes (orca_udb.c), or NULL */
	struct page *db_hint_page;
	dma_addr_t db_hint_dma;

	struct dentry *debugfs;
	bool query_qp_fw;		/* debugfs: query_qp by QUERY_QP */
	bool query_port_fw;		/* debugfs: query_port by QUERY_PORT */
};

struct orca_ucontext {
	struct ib_ucontext ibucontext;
	bool ece;		/* the provider speaks ECE and the device has it */
	struct rdma_user_mmap_entry *udb;	/* the doorbell page, or NULL */
	struct rdma_user_mmap_entry *db_hint;	/* the doorbell hint, or NULL */
	/* the kick ring (orca_udb.c), or no page */
	struct rdma_user_mmap_entry *kick_entry;
	struct page *kick_page;
	dma_addr_t kick_dma;
	u32 kick_ring;			/* the device's number for it */
	/* what alloc_ucontext answered: query_ucontext answers it again */
	struct orca_ibv_alloc_ucontext_resp resp;
};

struct orca_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

/*
 * A queue buffer or region as the device was given it: its page list's
 * length and page size.  Kept for restrack; resize and rereg change it
 * (WRITE_ONCE), restrack reads it without a lock (READ_ONCE).
 */
struct orca_pbl_info {
	u32 npages;
	u8 page_shift;
};

/*
 * The queue buffer of a kernel consumer's CQ, QP or SRQ: coherent DMA
 * memory in the same format as a user ring, a page at a time, so that no
 * ring needs a high-order allocation (orca_kbuf_alloc()); or a fast
 * registration's page list, one piece, as the device reads it
 * (orca_kbuf_alloc_one()).
 */
struct orca_kbuf {
	void **va;			/* [n]: each piece's address */
	dma_addr_t *dma;		/* [n]: and its bus address */
	u32 n;
	size_t piece;			/* bytes a piece: PAGE_SIZE for rings */
};

/*
 * Byte @off of a ring.  A ring's entries are powers of two of at most a
 * page at offsets aligned to their size: none crosses a page.
 */
static inline void *orca_kbuf_ptr(const struct orca_kbuf *kbuf, size_t off)
{
	return kbuf->va[off >> PAGE_SHIFT] + offset_in_page(off);
}

struct orca_cq {
	struct ib_cq ibcq;
	u32 cqn;
	/*
	 * ib_uverbs resizes holding the CQ only for read: two processes
	 * sharing the context (fork) may resize at once, and each would
	 * release the same old ring.
	 */
	struct mutex resize_lock;
	struct ib_umem *umem;		/* ring + doorbell record */
	/* the ring as given to the device, for restrack */
	struct orca_pbl_info ring;
	u32 dbrec_off;
	u32 comp_vector;
	u8 log_depth;
	/* a kernel consumer's CQ (orca_kcq.c): ring in kbuf, polled here */
	bool kernel;
	struct orca_kbuf kbuf;
	spinlock_t lock;		/* ci, arm_sn, the ring */
	u32 ci;
	u32 arm_sn;			/* events received: the arm's number */
	struct orca_cq_dbrec *dbrec;
	/* its kernel QPs, by orca_qp.sq_node / rq_node; under lock */
	struct list_head send_qps, recv_qps;
};

/* the rights a region can have on the device */
#define ORCA_MR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
			 IB_ACCESS_MW_BIND)

struct orca_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;
	u64 start;			/* user address, for rereg */
	int access;			/* IB_ACCESS_* as registered */
	/* the page list as given to the device, for restrack */
	struct orca_pbl_info pbl;
	u32 first_off;
	bool dma_mr;			/* get_dma_mr(): the reserved lkey */
	/* alloc_mr(): the page list of the next REG_MR (orca_fastreg.c) */
	bool fast;
	struct orca_kbuf pl;
	u32 max_pages, npages;
};

/*
 * Device memory: pages of BAR2 the device gave out (handle), size bytes
 * from bar_offset, mapped through entry (orca_dm.c).
 */
struct orca_dm {
	struct ib_dm ibdm;
	struct orca_dev *dev;
	u32 handle;
	u64 bar_offset;
	u64 size;
	struct rdma_user_mmap_entry *entry;
};

/* A memory window: the device keeps it; ibmw.rkey names it (its index). */
struct orca_mw {
	struct ib_mw ibmw;
};

struct orca_ah {
	struct ib_ah ibah;
	u32 ahn;
	/* a kernel consumer's: no device object, its WQEs carry @av */
	bool in_wqe;
	struct orca_av av;
};

struct orca_srq {
	struct ib_srq ibsrq;
	u32 srqn;
	u32 max_wr;			/* as the device applied them */
	u32 max_sge;
	struct ib_umem *umem;		/* ring + doorbell record */
	/* a kernel consumer's SRQ (orca_ksrq.c): ring in kbuf */
	bool kernel;
	struct orca_kbuf kbuf;
	spinlock_t lock;		/* head, the ids */
	u32 depth;			/* entries, a power of two */
	u8 log_stride;
	u32 head;
	struct orca_srq_dbrec *dbrec;
	/*
	 * WQEs complete in any order across QPs: each carries a free id
	 * (wqe_id), under which the wr_id waits for its CQE.
	 */
	u64 *wrid;			/* [depth], by id */
	u32 *free_ids;			/* stack of nfree ids */
	u32 nfree;
	unsigned long *posted;		/* bitmap of the ids in use */
};

/* One 4 KiB piece of a page list. */
struct orca_pbl_chunk {
	__le64 *va;
	dma_addr_t dma;
};

/*
 * A page list for one command (orca_pbl_build): one chunk (direct), or a
 * chain of them (ORCA_PBL_F_CHAINED).  Only order-0 pages, however long.
 */
struct orca_pbl_buf {
	struct orca_pbl_chunk *chunks;	/* [nchunks]; NULL: none */
	u32 nchunks;
};

/* A kernel QP's send or receive queue, as the provider keeps one. */
struct orca_kwq {
	spinlock_t lock;		/* head, the WQEs */
	struct orca_kbuf *kbuf;		/* the QP's */
	size_t off;			/* where the queue starts in it */
	u32 depth;			/* entries, a power of two; 0: none */
	u8 log_stride;
	u32 max_wr, max_sge;
	u32 head;			/* next to post */
	u32 tail;			/* oldest not completed (poll_cq) */
	u64 *wrid;			/* [depth] */
};

struct orca_qp {
	struct ib_qp ibqp;
	struct mutex lock;		/* serialises modify/query */
	/*
	 * Last state the device reported: by a command under lock, or by an
	 * event (READ_ONCE/WRITE_ONCE).  The mirror entry is newer still.
	 */
	enum ib_qp_state state;
	struct orca_qp_ctx ctx;		/* as last applied by the device */
	struct ib_umem *umem;		/* SQ + RQ + doorbell record */
	/* the rings as given to the device at create, for restrack */
	struct orca_pbl_info ring;
	u32 rq_off;
	u32 dbrec_off;
	u8 sq_log_depth;
	u8 sq_log_stride;
	u8 rq_log_depth;
	u8 rq_log_stride;
	/* a kernel consumer's QP (orca_kqp.c): rings in kbuf */
	bool kernel;
	bool sig_all;
	bool ud_av;			/* WQEs may carry an AV */
	bool fast_reg;			/* may post IB_WR_REG_MR */
	u8 port;			/* QP0 and QP1: theirs, from create */
	u32 max_inline;
	struct orca_kbuf kbuf;
	struct orca_kwq sq, rq;
	struct orca_qp_dbrec *dbrec;
	struct list_head sq_node, rq_node;	/* on its CQs' lists */
};

/* UD, and QP0 and QP1, which are UD QPs with special numbers. */
static inline bool orca_qpt_is_ud(enum ib_qp_type type)
{
	return type == IB_QPT_UD || type == IB_QPT_SMI || type == IB_QPT_GSI;
}

/**
 * orca_param_set_uint_range - set an unsigned int module parameter
 * @val: the value as given at load time
 * @kp: the parameter; kp->arg is its unsigned int
 * @min: smallest value accepted
 * @max: largest value accepted
 *
 * A value outside @min..@max is refused with a log line that names the
 * parameter and its range (load fails with -EINVAL).
 *
 * Return: 0, or a negative errno.
 */
static inline int orca_param_set_uint_range(const char *val,
					    const struct kernel_param *kp,
					    unsigned int min, unsigned int max)
{
	unsigned int v;
	int err;

	err = kstrtouint(val, 0, &v);
	if (err)
		return err;
	if (v < min || v > max) {
		pr_err("orca: %s=%u is outside %u..%u\n", kp->name, v, min,
		       max);
		return -EINVAL;
	}
	*(unsigned int *)kp->arg = v;
	return 0;
}

static inline struct orca_dev *to_odev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct orca_dev, ibdev);
}

static inline struct orca_pd *to_opd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct orca_pd, ibpd);
}

static inline struct orca_cq *to_ocq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct orca_cq, ibcq);
}

static inline struct orca_qp *to_oqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct orca_qp, ibqp);
}

static inline struct orca_ah *to_oah(struct ib_ah *ibah)
{
	return container_of(ibah, struct orca_ah, ibah);
}

static inline struct orca_srq *to_osrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct orca_srq, ibsrq);
}

static inline struct orca_dm *to_odm(struct ib_dm *ibdm)
{
	return container_of(ibdm, struct orca_dm, ibdm);
}

static inline struct orca_mr *to_omr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct orca_mr, ibmr);
}

static inline bool orca_has_ece(const struct orca_dev *dev)
{
	return dev->ucontext_resp.device_caps & ORCA_IBV_DEVICE_CAP_ECE;
}

/* ECE through udata only for contexts whose provider asked for it. */
static inline bool orca_udata_ece(struct ib_udata *udata)
{
	struct orca_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct orca_ucontext,
					  ibucontext);

	return uctx && uctx->ece;
}

/* Driver limits on what the device may report (orca_caps_check). */
#define ORCA_MAX_GID_TBL_LEN	1024
#define ORCA_MAX_PKEY_TBL_LEN	4096

/* orca_event.c */
void orca_async_event(struct orca_com *com, const struct orca_eqe *eqe);
void orca_events_lost(struct orca_com *com, u32 lost);
void orca_resync_work(struct work_struct *work);
void orca_port_work(struct work_struct *work);

static inline struct orca_dev *com_to_odev(struct orca_com *com)
{
	return container_of(com, struct orca_dev, com);
}

/* orca_ah.c */
int orca_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		   struct ib_udata *udata);
int orca_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *ah_attr);
int orca_destroy_ah(struct ib_ah *ibah, u32 flags);

/* orca_dead.c */
void orca_pbl_free(struct orca_dev *dev, struct orca_pbl_buf *buf);
void orca_umem_release(struct orca_dev *dev, struct ib_umem *umem);
void orca_kbuf_release(struct orca_dev *dev, struct orca_kbuf *kbuf);
void orca_page_release(struct orca_dev *dev, struct page *page,
		       dma_addr_t dma);
void orca_dead_quiesce_work(struct work_struct *work);
void orca_dead_stop(struct orca_dev *dev, bool quiesced);

/*
 * The device acknowledged a reset since it died: it reaches no memory,
 * so what kernel consumers had outstanding may complete flushed.
 */
static inline bool orca_dead_stopped(struct orca_dev *dev)
{
	return READ_ONCE(dev->quiesced);
}

/* orca_debugfs.c */
void orca_debugfs_init(void);
void orca_debugfs_cleanup(void);
void orca_debugfs_add(struct orca_dev *dev);
void orca_debugfs_remove(struct orca_dev *dev);

/* orca_eq.c */
#define ORCA_CEQ_LOG_DEPTH_MIN	6
#define ORCA_CEQ_LOG_DEPTH_MAX	12
int orca_ceq_alloc(struct orca_dev *dev);
void orca_ceq_free(struct orca_dev *dev, bool quiesced);
void orca_ceq_program(struct orca_dev *dev);
irqreturn_t orca_ceq_irq(int irq, void *data);
void orca_ceq_sync(struct orca_dev *dev);
void orca_ceq_drain(struct orca_dev *dev);
void orca_ceq_event_all(struct orca_dev *dev);
void orca_dead_comp_work(struct work_struct *work);

/* orca_kcq.c */
int orca_kcq_create(struct orca_dev *dev, struct orca_cq *cq, u32 cqe,
		    struct orca_create_cq_in *in, struct orca_pbl_buf *buf);
void orca_kcq_destroy(struct orca_dev *dev, struct orca_cq *cq);
void orca_kcq_event(struct orca_cq *cq);
bool orca_kcq_take_arm(struct orca_cq *cq);
void orca_kcq_attach(struct orca_qp *qp);
void orca_kcq_disown(struct orca_qp *qp);
void orca_kcq_reset(struct orca_qp *qp);
int orca_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int orca_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

/* orca_ksrq.c */
int orca_ksrq_create(struct orca_dev *dev, struct orca_srq *srq,
		     const struct ib_srq_attr *attr,
		     struct orca_create_srq_in *in, struct orca_pbl_buf *buf);
void orca_ksrq_setup(struct orca_srq *srq);
void orca_ksrq_destroy(struct orca_dev *dev, struct orca_srq *srq);
u64 orca_ksrq_complete(struct orca_dev *dev, struct orca_srq *srq, u32 id);
int orca_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr);

/* orca_kqp.c */
int orca_kqp_create(struct orca_dev *dev, struct orca_qp *qp,
		    struct ib_qp_init_attr *init_attr,
		    struct orca_create_qp_in *in, struct orca_pbl_buf *buf);
void orca_kqp_setup(struct orca_qp *qp, const struct ib_qp_init_attr *attr);
void orca_kqp_destroy(struct orca_dev *dev, struct orca_qp *qp);
void orca_kqp_reset(struct orca_qp *qp);
u8 orca_kwqe_flags(const struct orca_qp *qp, const struct ib_send_wr *wr);
int orca_kqp_post_send(struct orca_dev *dev, struct orca_qp *qp,
		       const struct ib_send_wr *wr,
		       const struct ib_send_wr **bad_wr);
int orca_kqp_post_recv(struct orca_dev *dev, struct orca_qp *qp,
		       const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr);

/* orca_mad.c */
int orca_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		     const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		     const struct ib_mad *in, struct ib_mad *out,
		     size_t *out_mad_size, u16 *out_mad_pkey_index);

/* orca_fastreg.c */
struct ib_mr *orca_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			    u32 max_num_sg);
int orca_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset);
void orca_fastreg_release(struct orca_dev *dev, struct orca_mr *mr);
int orca_fastreg_wqe(struct orca_qp *qp, const struct ib_send_wr *wr,
		     u8 flags, struct orca_reg_wqe *w);

/* orca_buf.c */
unsigned long orca_pgsz_bitmap(struct orca_dev *dev);
int orca_kbuf_alloc(struct orca_dev *dev, struct orca_kbuf *kbuf, size_t len,
		    struct orca_pbl *pbl, struct orca_pbl_buf *buf);
int orca_kbuf_alloc_one(struct orca_dev *dev, struct orca_kbuf *kbuf,
			size_t len);
void orca_kbuf_free(struct orca_dev *dev, struct orca_kbuf *kbuf);
void orca_pbl_buf_destroy(struct orca_dev *dev, struct orca_pbl_buf *buf);
int orca_pbl_build(struct orca_dev *dev, struct ib_umem *umem,
		   unsigned long pgsz_bitmap, u64 iova, struct orca_pbl *pbl,
		   struct orca_pbl_buf *buf, u32 *first_off);

/* orca_dm.c */
void orca_dm_probe(struct orca_dev *dev);
struct ib_dm *orca_alloc_dm(struct ib_device *ibdev,
			    struct ib_ucontext *ibucontext,
			    struct ib_dm_alloc_attr *attr,
			    struct uverbs_attr_bundle *attrs);
int orca_dealloc_dm(struct ib_dm *ibdm, struct uverbs_attr_bundle *attrs);
struct ib_mr *orca_reg_dm_mr(struct ib_pd *ibpd, struct ib_dm *ibdm,
			     struct ib_dm_mr_attr *attr,
			     struct uverbs_attr_bundle *attrs);

/* orca_mr.c */
struct ib_mr *orca_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_umem *orca_umem_ring(struct orca_dev *dev, u64 va, u32 len,
			       int access, struct orca_pbl *pbl,
			       struct orca_pbl_buf *buf);
struct ib_mr *orca_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			       u64 virt_addr, int access_flags,
			       struct ib_dmah *dmah, struct ib_udata *udata);
struct ib_mr *orca_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
				      u64 length, u64 virt_addr, int fd,
				      int access_flags, struct ib_dmah *dmah,
				      struct uverbs_attr_bundle *attrs);
int orca_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
int orca_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int orca_dealloc_mw(struct ib_mw *ibmw);
struct ib_mr *orca_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				 u64 length, u64 virt_addr, int access,
				 struct ib_pd *pd, struct ib_udata *udata);

/* orca_qp.c */
void orca_qp_dispatch_event(struct orca_qp *qp, enum ib_event_type type);
int orca_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr);
int orca_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr);

/* orca_restrack.c */
int orca_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int orca_fill_res_qp_entry_raw(struct sk_buff *msg, struct ib_qp *ibqp);
int orca_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);
int orca_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr);
int orca_fill_res_mr_entry_raw(struct sk_buff *msg, struct ib_mr *ibmr);

static inline void orca_pbl_info_set(struct orca_pbl_info *info,
				     const struct orca_pbl *pbl)
{
	WRITE_ONCE(info->npages, le32_to_cpu(pbl->npages));
	WRITE_ONCE(info->page_shift, pbl->page_shift);
}

/* orca_srq.c */
int orca_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init_attr,
		    struct ib_udata *udata);
int orca_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata);
int orca_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int orca_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);

/* orca_udb.c */
void orca_kick(struct orca_dev *dev);
void orca_kick_kernel(struct orca_dev *dev);
void orca_udb_probe(struct orca_dev *dev);
void orca_udb_remove(struct orca_dev *dev);
int orca_udb_alloc(struct orca_dev *dev, struct orca_ucontext *uctx,
		   struct orca_ibv_alloc_ucontext_resp *resp);
void orca_udb_free(struct orca_ucontext *uctx);
int orca_db_hint_alloc(struct orca_dev *dev);
void orca_db_hint_free(struct orca_dev *dev);
int orca_db_hint_map(struct orca_dev *dev, struct orca_ucontext *uctx,
		     struct orca_ibv_alloc_ucontext_resp *resp);
int orca_kick_ring_alloc(struct orca_dev *dev, struct orca_ucontext *uctx,
			 struct orca_ibv_alloc_ucontext_resp *resp);
void orca_kick_ring_free(struct orca_dev *dev, struct orca_ucontext *uctx);
int orca_mmap(struct ib_ucontext *ibucontext, struct vm_area_struct *vma);
void orca_mmap_free(struct rdma_user_mmap_entry *rdma_entry);
struct rdma_user_mmap_entry *
orca_mmap_insert_wc(struct orca_ucontext *uctx, phys_addr_t address,
		    size_t size, void (*release)(void *owner), void *owner);

/* orca_verbs.c */
int orca_check_udata_in(struct orca_dev *dev, struct ib_udata *udata,
			size_t known);
int orca_respond(struct ib_udata *udata, void *resp, size_t len);
int orca_track(struct orca_dev *dev, struct xarray *xa, u32 index, void *obj,
	       const char *what);
void orca_retire(struct orca_dev *dev, struct xarray *xa, u32 index,
		 void *obj);
void orca_unretire(struct orca_dev *dev, struct xarray *xa, u32 index,
		   void *obj);
void orca_release_number(struct orca_dev *dev, struct xarray *xa, u32 index);
bool orca_read_mirror(struct orca_dev *dev, u32 qpn, struct orca_qp_ctx *ctx);
int orca_read_port_tables(struct orca_dev *dev);
int orca_refresh_port_tables(struct orca_dev *dev);
int orca_modify_device(struct ib_device *ibdev, int mask,
		       struct ib_device_modify *props);
int orca_modify_port(struct ib_device *ibdev, u32 port, int mask,
		     struct ib_port_modify *props);
int orca_port_attr_get(struct orca_dev *dev, u32 port,
		       struct orca_port_attr *pa);
void orca_free_port_tables(struct orca_dev *dev);
struct rdma_hw_stats *orca_alloc_hw_port_stats(struct ib_device *ibdev,
					       u32 port_num);
int orca_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		      u32 port, int index);
void orca_cache_device_attr(struct orca_dev *dev);
int orca_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		      struct ib_udata *udata);
int orca_query_port(struct ib_device *ibdev, u32 port,
		    struct ib_port_attr *attr);
int orca_query_gid(struct ib_device *ibdev, u32 port, int index,
		   union ib_gid *gid);
int orca_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey);
int orca_get_port_immutable(struct ib_device *ibdev, u32 port,
			    struct ib_port_immutable *immutable);
void orca_get_dev_fw_str(struct ib_device *ibdev, char *str);
int orca_alloc_ucontext(struct ib_ucontext *ibucontext,
			struct ib_udata *udata);
void orca_dealloc_ucontext(struct ib_ucontext *ibucontext);
int orca_query_ucontext(struct ib_ucontext *ibucontext,
			struct uverbs_attr_bundle *attrs);
extern const struct uapi_definition orca_uapi_defs[];
void orca_disassociate_ucontext(struct ib_ucontext *ibucontext);
int orca_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int orca_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int orca_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct uverbs_attr_bundle *attrs);
int orca_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int orca_resize_cq(struct ib_cq *ibcq, unsigned int cqe,
		   struct ib_udata *udata);
int orca_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		   struct ib_udata *udata);
int orca_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata);
int orca_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init_attr);
int orca_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int orca_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int orca_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);

#endif /* _ORCA_H_ */
