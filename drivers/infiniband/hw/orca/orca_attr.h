/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Translation between ib_core's attribute structures and the device's
 * wire structures.  Pure functions: no device access, no locking.
 */
#ifndef _ORCA_ATTR_H_
#define _ORCA_ATTR_H_

#include <linux/sizes.h>
#include <rdma/ib_verbs.h>

#include "orca_hw.h"

/* QPNs index the QP mirror: one 4 MiB coherent allocation at most. */
#define ORCA_MAX_QP	(SZ_4M / sizeof(struct orca_qp_mirror) - ORCA_QPN_BASE)

int orca_caps_check(const struct orca_caps *caps, struct device *dev);
void orca_caps_to_ib_attr(const struct orca_caps *caps,
			  struct ib_device_attr *attr);
void orca_port_to_ib_attr(const struct orca_port_attr *port,
			  struct ib_port_attr *attr);
bool orca_port_mirror_read(const struct orca_port_mirror *m, u8 port,
			   struct orca_port_attr *attr);
u32 orca_caps_to_uapi_device_caps(const struct orca_caps *caps);
u32 orca_caps_to_uapi_dio(const struct orca_caps *caps);

enum ib_qp_state orca_qps_to_ib(u8 state);
u8 orca_qps_from_ib(enum ib_qp_state state);
bool orca_cqe_to_ib_wc(u8 status, u8 opcode, bool sq, struct ib_wc *wc);
int orca_qpt_from_ib(enum ib_qp_type type);
u32 orca_mr_access_from_ib(int access);
void orca_av_from_ib(const struct rdma_ah_attr *ah, struct orca_av *av);
void orca_av_to_ib(const struct orca_av *av, struct rdma_ah_attr *ah);
int orca_qp_attr_to_modify_in(const struct ib_qp_attr *attr, int mask,
			      struct orca_modify_qp_in *in);
struct orca_ibv_modify_qp;
int orca_ece_to_modify_in(const struct orca_caps *caps,
			  const struct orca_ibv_modify_qp *ucmd,
			  struct orca_modify_qp_in *in);
void orca_qp_ctx_to_ib(const struct orca_qp_ctx *ctx, struct ib_qp_attr *attr,
		       struct ib_qp_init_attr *init_attr);

#endif /* _ORCA_ATTR_H_ */
