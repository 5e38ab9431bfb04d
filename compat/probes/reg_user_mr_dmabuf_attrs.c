// SPDX-License-Identifier: GPL-2.0
/*
 * ib_device_ops.reg_user_mr_dmabuf takes the attribute bundle last (6.9),
 * with or without the DMA handle that came before it later (6.17)
 */
#include <rdma/ib_verbs.h>

struct ib_dmah;

typedef struct ib_mr *(orca_dmabuf_attrs_fn)(struct ib_pd *pd, u64 offset,
					     u64 length, u64 virt_addr,
					     int fd, int access,
					     struct uverbs_attr_bundle *attrs);
typedef struct ib_mr *(orca_dmabuf_dmah_fn)(struct ib_pd *pd, u64 offset,
					    u64 length, u64 virt_addr, int fd,
					    int access, struct ib_dmah *dmah,
					    struct uverbs_attr_bundle *attrs);

static const struct ib_device_ops orca_probe_ops;

#define ORCA_DMABUF_OP	typeof(*orca_probe_ops.reg_user_mr_dmabuf)

static_assert(__builtin_types_compatible_p(ORCA_DMABUF_OP, orca_dmabuf_attrs_fn) ||
	      __builtin_types_compatible_p(ORCA_DMABUF_OP, orca_dmabuf_dmah_fn));
