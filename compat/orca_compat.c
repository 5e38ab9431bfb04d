// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ops whose signature changed after the kernel being built for: each
 * takes the old form and calls the driver's, which has the newest one.
 * Linked into orca.ko only by an out-of-tree build that needs one of them
 * (compat/configure.sh); see orca_compat.h.
 */

#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "orca.h"

#ifndef HAVE_CREATE_CQ_ATTRS
int orca_compat_create_cq(struct ib_cq *ibcq,
			  const struct ib_cq_init_attr *attr,
			  struct ib_udata *udata)
{
	/* uverbs passes &attrs->driver_udata, a kernel consumer NULL */
	return orca_create_cq(ibcq, attr, udata ?
			      container_of(udata, struct uverbs_attr_bundle,
					   driver_udata) : NULL);
}
#endif

#ifndef HAVE_REG_USER_MR_DMAH
struct ib_mr *orca_compat_reg_user_mr(struct ib_pd *ibpd, u64 start,
				      u64 length, u64 virt_addr,
				      int access_flags,
				      struct ib_udata *udata)
{
	return orca_reg_user_mr(ibpd, start, length, virt_addr, access_flags,
				NULL, udata);
}
#endif

#ifndef HAVE_REG_USER_MR_DMABUF_DMAH
#ifdef HAVE_REG_USER_MR_DMABUF_ATTRS
struct ib_mr *orca_compat_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					     u64 length, u64 virt_addr, int fd,
					     int access_flags,
					     struct uverbs_attr_bundle *attrs)
{
	return orca_reg_user_mr_dmabuf(ibpd, offset, length, virt_addr, fd,
				       access_flags, NULL, attrs);
}
#else
struct ib_mr *orca_compat_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					     u64 length, u64 virt_addr, int fd,
					     int access_flags,
					     struct ib_udata *udata)
{
	/* uverbs passes &attrs->driver_udata */
	return orca_reg_user_mr_dmabuf(ibpd, offset, length, virt_addr, fd,
				       access_flags, NULL, udata ?
				       container_of(udata,
						    struct uverbs_attr_bundle,
						    driver_udata) : NULL);
}
#endif
#endif

#ifndef HAVE_RESIZE_USER_CQ
int orca_compat_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	if (cqe < 0)
		return -EINVAL;
	return orca_resize_cq(ibcq, cqe, udata);
}
#endif
