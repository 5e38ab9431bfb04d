/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Standalone stand-in for the header rdma-core generates from
 * kernel-headers/rdma/orca-abi.h (anonymous-field macros _STRUCT_<name>).
 * The compat DECLARE_DRV_CMD only exposes the named drv_payload member, so no
 * macros are needed; instead the UAPI layout the provider depends on is
 * pinned here (x86_64, ORCA_UVERBS_ABI_VERSION 1).  EX commands require the
 * driver structs to be multiples of 8 bytes.
 */
#ifndef ORCA_COMPAT_KERNEL_ABI_ORCA_ABI_H
#define ORCA_COMPAT_KERNEL_ABI_ORCA_ABI_H

#include <assert.h>
#include <stddef.h>
#include <rdma/orca-abi.h>

static_assert(ORCA_UVERBS_ABI_VERSION == 1, "orca uverbs ABI version");
static_assert(sizeof(struct orca_ibv_alloc_ucontext_cmd) == 8,
	      "orca_ibv_alloc_ucontext_cmd");
static_assert(sizeof(struct orca_ibv_alloc_ucontext_resp) == 72,
	      "orca_ibv_alloc_ucontext_resp");
static_assert(offsetof(struct orca_ibv_alloc_ucontext_resp,
		       max_inline_data) == 20,
	      "orca_ibv_alloc_ucontext_resp.max_inline_data");
static_assert(offsetof(struct orca_ibv_alloc_ucontext_resp,
		       db_mmap_key) == 24,
	      "orca_ibv_alloc_ucontext_resp.db_mmap_key");
static_assert(offsetof(struct orca_ibv_alloc_ucontext_resp,
		       db_hint_mmap_key) == 40,
	      "orca_ibv_alloc_ucontext_resp.db_hint_mmap_key");
static_assert(offsetof(struct orca_ibv_alloc_ucontext_resp,
		       kick_ring_mmap_key) == 56,
	      "orca_ibv_alloc_ucontext_resp.kick_ring_mmap_key");
static_assert(sizeof(struct orca_ibv_ex_query_device_resp) == 32,
	      "orca_ibv_ex_query_device_resp");
static_assert(offsetof(struct orca_ibv_ex_query_device_resp,
		       pci_atomic_fetch_add) == 24,
	      "orca_ibv_ex_query_device_resp.pci_atomic_fetch_add");
static_assert(sizeof(struct orca_ibv_create_cq) == 24, "orca_ibv_create_cq");
static_assert(sizeof(struct orca_ibv_create_cq_resp) == 8,
	      "orca_ibv_create_cq_resp");
static_assert(sizeof(struct orca_ibv_create_qp) == 24, "orca_ibv_create_qp");
static_assert(sizeof(struct orca_ibv_create_ah_resp) == 8,
	      "orca_ibv_create_ah_resp");
static_assert(sizeof(struct orca_ibv_create_qp_resp) == 8,
	      "orca_ibv_create_qp_resp");
static_assert(sizeof(struct orca_ibv_create_srq) == 24, "orca_ibv_create_srq");
static_assert(sizeof(struct orca_ibv_create_srq_resp) == 8,
	      "orca_ibv_create_srq_resp");
static_assert(sizeof(struct orca_ibv_modify_qp) == 8, "orca_ibv_modify_qp");
static_assert(sizeof(struct orca_ibv_modify_qp_resp) == 16,
	      "orca_ibv_modify_qp_resp");

#endif /* ORCA_COMPAT_KERNEL_ABI_ORCA_ABI_H */
