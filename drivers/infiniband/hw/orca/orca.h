/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef _ORCA_H_
#define _ORCA_H_

#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/orca-abi.h>

#include "orca_com.h"
#include "orca_hw.h"

#define DRV_MODULE_NAME		"orca"

struct orca_dev {
	struct ib_device ibdev;
	struct pci_dev *pdev;
	void __iomem *doorbell;		/* ivshmem BAR0 */
	void __iomem *regs;		/* BAR2 register block */
	u32 fw_peer_id;
	struct orca_com com;
	struct orca_caps caps;		/* as read from the device, LE */
	/* caps never change after QUERY_CAPS: translated once */
	struct ib_device_attr attr;
	struct orca_ibv_ex_query_device_resp query_device_resp;

	struct orca_qp_mirror *mirror;
	dma_addr_t mirror_dma;
	u32 mirror_entries;

	struct xarray qps;		/* QPN -> orca_qp, for events */
	struct xarray cqs;		/* CQN -> orca_cq, for events */
	bool ib_registered;		/* under com.eq_lock */
};

struct orca_ucontext {
	struct ib_ucontext ibucontext;
};

struct orca_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

struct orca_cq {
	struct ib_cq ibcq;
	u32 cqn;
};

struct orca_qp {
	struct ib_qp ibqp;
	struct mutex lock;		/* serialises modify/query */
	enum ib_qp_state state;		/* last state the device reported */
	struct orca_qp_ctx ctx;		/* as last applied by the device */
};

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

static inline bool orca_has_ece(const struct orca_dev *dev)
{
	return dev->query_device_resp.device_caps & ORCA_IBV_DEVICE_CAP_ECE;
}

/* orca_verbs.c */
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
int orca_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int orca_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int orca_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct ib_udata *udata);
int orca_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int orca_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		   struct ib_udata *udata);
int orca_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata);
int orca_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init_attr);
int orca_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);

#endif /* _ORCA_H_ */
