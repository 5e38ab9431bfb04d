/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the driver, written against the newest kernel's API, needs on an
 * older one.  Force-included (-include, by the top-level Kbuild) before
 * anything else in every file of an out-of-tree build; never part of the
 * upstream series.  Each HAVE_* comes from a compile probe run against the
 * kernel being built for (compat/configure.sh, probes/<name>.c): a
 * distribution kernel that backported a change gets the new form, whatever
 * its version number says.
 *
 * Only macros and declarations here, and no kernel header but
 * <linux/types.h>: this file comes before a driver file's own first line
 * (and its pr_fmt, were there one).  The op wrappers are in
 * orca_compat.c; configure.sh points the ops table at them.
 */
#ifndef ORCA_COMPAT_H
#define ORCA_COMPAT_H

#include <linux/types.h>

#include "orca_compat_config.h"

/* kzalloc_obj(): typed allocation of one object (7.x; checkpatch asks for it) */
#ifndef HAVE_KZALLOC_OBJ
#define kzalloc_obj(obj, gfp)					\
({								\
	typeof(obj) *__orca_obj = kzalloc(sizeof(obj), gfp);	\
	__orca_obj;						\
})
#endif

/* 6.3: vma->vm_flags is written through helpers only */
#ifndef HAVE_VM_FLAGS_SET
#define vm_flags_set(vma, flags) ((vma)->vm_flags |= (flags))
#define vm_flags_clear(vma, flags) ((vma)->vm_flags &= ~(flags))
#endif

/* 6.17: the unbound default workqueue got its new name */
#ifndef HAVE_SYSTEM_DFL_WQ
#define system_dfl_wq system_unbound_wq
#endif

/* 7.2: ib_umem_get() for a user virtual address became ib_umem_get_va() */
#ifndef HAVE_IB_UMEM_GET_VA
#define ib_umem_get_va ib_umem_get
#endif

/*
 * 6.2: the ATOMIC WRITE capability bit.  Before it, uverbs has no bit to
 * report it with; the provider learns it from orca's own device_caps.
 */
#ifndef HAVE_IB_DEVICE_ATOMIC_WRITE
#define IB_DEVICE_ATOMIC_WRITE 0ULL
#endif

struct ib_cq;
struct ib_cq_init_attr;
struct ib_mr;
struct ib_pd;
struct ib_udata;

/* 6.11: create_cq gets the attribute bundle */
#ifndef HAVE_CREATE_CQ_ATTRS
int orca_compat_create_cq(struct ib_cq *ibcq,
			  const struct ib_cq_init_attr *attr,
			  struct ib_udata *udata);
#endif

/* 6.17: reg_user_mr gets a DMA handle, which orca refuses */
#ifndef HAVE_REG_USER_MR_DMAH
struct ib_dmah;
struct ib_mr *orca_compat_reg_user_mr(struct ib_pd *ibpd, u64 start,
				      u64 length, u64 virt_addr,
				      int access_flags,
				      struct ib_udata *udata);
#endif

/*
 * reg_user_mr_dmabuf: 6.9 gave it the attribute bundle for the udata,
 * 6.17 a DMA handle before it, which orca refuses
 */
#ifndef HAVE_REG_USER_MR_DMABUF_DMAH
struct uverbs_attr_bundle;
#ifdef HAVE_REG_USER_MR_DMABUF_ATTRS
struct ib_mr *orca_compat_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					     u64 length, u64 virt_addr, int fd,
					     int access_flags,
					     struct uverbs_attr_bundle *attrs);
#else
struct ib_mr *orca_compat_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					     u64 length, u64 virt_addr, int fd,
					     int access_flags,
					     struct ib_udata *udata);
#endif
#endif

/* 7.1: resize_cq became resize_user_cq, with an unsigned size */
#ifndef HAVE_RESIZE_USER_CQ
int orca_compat_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
#endif

#endif /* ORCA_COMPAT_H */
