/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Standalone replacement for the subset of rdma-core's libibverbs/driver.h
 * that the orca provider uses.  In-tree builds use the real header; the
 * provider source is identical for both.
 *
 * Three rdma-cores are supported, chosen by ORCA_RDMA_CORE (providers/Makefile
 * RDMA_CORE=44|56|65 passes it, with IBVERBS_PABI_VERSION, and puts that
 * release's public <infiniband/verbs.h> first on the include path):
 *   44  Debian 12, 44.0-2    IBVERBS_PRIVATE_34  verbs_register_driver_34
 *   56  Debian 13, 56.1-1    IBVERBS_PRIVATE_34  verbs_register_driver_34
 *   65  Debian sid, 65.0-1.1 IBVERBS_PRIVATE_65  verbs_register_driver_65
 * 44 and 56 share the private ABI's name and every private structure here
 * except one: v45 appended wr_flush to the public struct ibv_qp_ex without a
 * PABI bump, so struct verbs_qp (which libibverbs writes into: comp_mask,
 * xrcd) grew from 368 to 376 bytes.  A provider built for 44 must not be
 * loaded by libibverbs 45..56 and vice versa.  PABI 65 adds 17 ops, inserted
 * in alphabetical order, and changes three ibv_cmd_*() signatures.
 *
 * Every structure libibverbs and the provider share is declared in full,
 * in upstream member order, and pinned by the static_asserts at the end to
 * values measured from Debian's binaries of each release
 * (providers/tests/abi_binary.sh re-measures them):
 *   verbs_context_ops	0x260, 0x260, 0x2e8: nm -S libibverbs.a
 *			rdmacore<ver>_verbs_dummy_ops; slot order from the
 *			relocations of dummy_ops.c.o (one dummy per op)
 *   verbs_device_ops	0x48 (all): nm -S librxe-rdmav<N>.a verbs_provider_rxe,
 *			member offsets from the relocations of rxe_dev_ops
 *   verbs_sysfs_dev	0x3e0 (all): calloc() size in libibverbs.a ibdev_nl.c.o
 *   verbs_device	0x2c8 (all): rxe_device_alloc(): calloc(0x2d0), the
 *			int after the verbs_device stored at 0x2c8
 *   verbs_qp		comp_mask at 0x160, 0x168, 0x168: libibverbs.a
 *			cmd_qp.c.o stores 0 and VERBS_QP_XRCD there
 * Any other release, or PABI, is refused at compile time.
 */
#ifndef ORCA_COMPAT_DRIVER_H
#define ORCA_COMPAT_DRIVER_H

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <infiniband/verbs.h>
#include <infiniband/kern-abi.h>
#include <infiniband/cmd_ioctl.h>

/* Default: the host's rdma-core 44 */
#ifndef ORCA_RDMA_CORE
#if defined(IBVERBS_PABI_VERSION) && IBVERBS_PABI_VERSION == 65
#define ORCA_RDMA_CORE 65
#else
#define ORCA_RDMA_CORE 44
#endif
#endif

#if ORCA_RDMA_CORE == 44 || ORCA_RDMA_CORE == 56
#define ORCA_PABI 34
#elif ORCA_RDMA_CORE == 65
#define ORCA_PABI 65
#else
#error "orca compat driver.h: ORCA_RDMA_CORE must be 44, 56 or 65"
#endif

#ifndef IBVERBS_PABI_VERSION
#define IBVERBS_PABI_VERSION ORCA_PABI
#elif IBVERBS_PABI_VERSION != ORCA_PABI
#error "orca compat driver.h: IBVERBS_PABI_VERSION does not match ORCA_RDMA_CORE"
#endif

#ifndef container_of
#define container_of(ptr, type, member)                                        \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif

#define __orca_stringify(x) #x
#ifndef stringify
#define stringify(x) __orca_stringify(x)
#endif

/* Only ever used through pointers here */
struct ibv_command_buffer;
#if IBVERBS_PABI_VERSION >= 65
struct ibv_buf;
struct ibv_fd_arr;
struct verbs_create_cq_prov_attr;
struct ibv_dmah;
struct ibv_dmah_init_attr;
struct ibv_comp_cntr;
struct ibv_comp_cntr_init_attr;
struct ibv_comp_cntr_caps;
struct ibv_qp_attach_comp_cntr_attr;
struct ibv_mr_init_attr;
#endif

/* ccan/list.h node: two pointers */
struct list_node {
	struct list_node *next, *prev;
};

enum verbs_xrcd_mask {
	VERBS_XRCD_HANDLE	= 1 << 0,
	VERBS_XRCD_RESERVED	= 1 << 1
};

enum create_cq_cmd_flags {
	CREATE_CQ_CMD_FLAGS_TS_IGNORED_EX = 1 << 0,
};

struct verbs_xrcd {
	struct ibv_xrcd		xrcd;
	uint32_t		comp_mask;
	uint32_t		handle;
};

struct verbs_srq {
	struct ibv_srq		srq;
	enum ibv_srq_type	srq_type;
	struct verbs_xrcd	*xrcd;
	struct ibv_cq		*cq;
	uint32_t		srq_num;
};

enum verbs_qp_mask {
	VERBS_QP_XRCD		= 1 << 0,
	VERBS_QP_EX		= 1 << 1,
};

enum ibv_mr_type {
	IBV_MR_TYPE_MR,
	IBV_MR_TYPE_NULL_MR,
	IBV_MR_TYPE_IMPORTED_MR,
	IBV_MR_TYPE_DMABUF_MR,
};

struct verbs_mr {
	struct ibv_mr		ibv_mr;
	enum ibv_mr_type	mr_type;
	int			access;
};

struct verbs_dm {
	struct ibv_dm		dm;
	uint32_t		handle;
};

struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t		comp_mask;
	struct verbs_xrcd	*xrcd;
};

enum {
	VERBS_MATCH_SENTINEL = 0,
	VERBS_MATCH_PCI = 1,
	VERBS_MATCH_MODALIAS = 2,
	VERBS_MATCH_DRIVER_ID = 3,
};

struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;
};

#define VERBS_DRIVER_ID(_id)                                                   \
	{                                                                      \
		.u.driver_id = (_id), .kind = VERBS_MATCH_DRIVER_ID,           \
	}
#define VERBS_PCI_MATCH(_vendor, _device, _data)                               \
	{                                                                      \
		.driver_data = (void *)(_data),                                \
		.vendor = (_vendor),                                           \
		.device = (_device),                                           \
		.kind = VERBS_MATCH_PCI,                                       \
	}
#define VERBS_MODALIAS_MATCH(_mod_str, _data)                                  \
	{                                                                      \
		.driver_data = (void *)(_data),                                \
		.u.modalias = (_mod_str),                                      \
		.kind = VERBS_MATCH_MODALIAS,                                  \
	}
/* libibverbs globs "rdma_device:N<ibdev name>" against this */
#define VERBS_NAME_MATCH(_name_prefix, _data)                                  \
	{                                                                      \
		.driver_data = (_data),                                        \
		.u.modalias = "rdma_device:*N" _name_prefix "*",               \
		.kind = VERBS_MATCH_MODALIAS,                                  \
	}

/* An rdma device detected in sysfs/netlink; owned by libibverbs */
struct verbs_sysfs_dev {
	struct list_node entry;
	void *provider_data;
	const struct verbs_match_ent *match;
	unsigned int flags;
	char sysfs_name[IBV_SYSFS_NAME_MAX];
	dev_t sysfs_cdev;
	char ibdev_name[IBV_SYSFS_NAME_MAX];
	char ibdev_path[IBV_SYSFS_PATH_MAX];
	char modalias[512];
	uint64_t node_guid;
	uint32_t driver_id;
	enum ibv_node_type node_type;
	int ibdev_idx;
	uint32_t num_ports;
	uint32_t abi_ver;
	struct timespec time_created;
};

struct verbs_device;

struct verbs_device_ops {
	const char *name;

	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;

	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);

	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd,
					       void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);

	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

struct verbs_device {
	struct ibv_device device; /* Must be first */
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

/*
 * Every op a provider may supply, sorted by name as in libibverbs: 76 slots
 * in PABI 34, 93 in PABI 65 (its 17 new ops marked PABI 65).
 */
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
#if IBVERBS_PABI_VERSION >= 65
	void *(*alloc_buf)(struct ibv_pd *pd, size_t size,
			   struct ibv_buf **buf);				/* PABI 65 */
#endif
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
#if IBVERBS_PABI_VERSION >= 65
	struct ibv_dmah *(*alloc_dmah)(
		struct ibv_context *context,
		struct ibv_dmah_init_attr *attr);			/* PABI 65 */
#endif
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
	struct ibv_pd *(*alloc_parent_domain)(
		struct ibv_context *context,
		struct ibv_parent_domain_init_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd,
				    struct ibv_ah_attr *attr);
#if IBVERBS_PABI_VERSION >= 65
	struct ibv_comp_cntr *(*create_comp_cntr)(
		struct ibv_context *context,
		struct ibv_comp_cntr_init_attr *attr);			/* PABI 65 */
#endif
	struct ibv_counters *(*create_counters)(
		struct ibv_context *context,
		struct ibv_counters_init_attr *init_attr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(
		struct ibv_context *context,
		struct ibv_cq_init_attr_ex *init_attr);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp,
					struct ibv_flow_attr *flow_attr);
	struct ibv_flow_action *(*create_flow_action_esp)(
		struct ibv_context *context,
		struct ibv_flow_action_esp_attr *attr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(
		struct ibv_context *context,
		struct ibv_qp_init_attr_ex *qp_init_attr_ex);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(
		struct ibv_context *context,
		struct ibv_rwq_ind_table_init_attr *init_attr);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *srq_init_attr);
	struct ibv_srq *(*create_srq_ex)(
		struct ibv_context *context,
		struct ibv_srq_init_attr_ex *srq_init_attr_ex);
	struct ibv_wq *(*create_wq)(struct ibv_context *context,
				    struct ibv_wq_init_attr *wq_init_attr);
#if IBVERBS_PABI_VERSION >= 65
	int (*dealloc_dmah)(struct ibv_dmah *dmah);			/* PABI 65 */
#endif
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dealloc_td)(struct ibv_td *td);
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
#if IBVERBS_PABI_VERSION >= 65
	int (*destroy_comp_cntr)(struct ibv_comp_cntr *comp_cntr);	/* PABI 65 */
#endif
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*destroy_flow)(struct ibv_flow *flow);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *rwq_ind_table);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*destroy_wq)(struct ibv_wq *wq);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
#if IBVERBS_PABI_VERSION >= 65
	int (*dm_export_dmabuf_fd)(struct ibv_dm *dm);			/* PABI 65 */
	void (*free_buf)(struct ibv_buf *buf);				/* PABI 65 */
#endif
	void (*free_context)(struct ibv_context *context);
	int (*free_dm)(struct ibv_dm *dm);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_dm *(*import_dm)(struct ibv_context *context,
				    uint32_t dm_handle);
	struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
	struct ibv_pd *(*import_pd)(struct ibv_context *context,
				    uint32_t pd_handle);
#if IBVERBS_PABI_VERSION >= 65
	int (*inc_comp_cntr)(struct ibv_comp_cntr *comp_cntr,
			     uint64_t amount);				/* PABI 65 */
	int (*inc_err_comp_cntr)(struct ibv_comp_cntr *comp_cntr,
				 uint64_t amount);			/* PABI 65 */
#endif
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	int (*modify_flow_action_esp)(struct ibv_flow_action *action,
				      struct ibv_flow_action_esp_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*modify_qp_rate_limit)(struct ibv_qp *qp,
				    struct ibv_qp_rate_limit_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
			  int srq_attr_mask);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *wq_attr);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(
		struct ibv_context *context,
		struct ibv_xrcd_init_attr *xrcd_init_attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op,
			    struct ibv_ops_wr **bad_op);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr,
			     struct ibv_recv_wr **bad_recv_wr);
#if IBVERBS_PABI_VERSION >= 65
	int (*qp_attach_comp_cntr)(
		struct ibv_qp *qp, struct ibv_comp_cntr *comp_cntr,
		struct ibv_qp_attach_comp_cntr_attr *attr);		/* PABI 65 */
	int (*query_comp_cntr_caps)(struct ibv_context *context,
				    struct ibv_comp_cntr_caps *caps,
				    size_t caps_size);			/* PABI 65 */
#endif
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
#if IBVERBS_PABI_VERSION >= 65
	int (*query_port_speed)(struct ibv_context *context,
				uint32_t port_num, uint64_t *speed);	/* PABI 65 */
#endif
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	int (*query_qp_data_in_order)(struct ibv_qp *qp, enum ibv_wr_opcode op,
				      uint32_t flags);
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr);
#if IBVERBS_PABI_VERSION >= 65
	int (*read_comp_cntr)(struct ibv_comp_cntr *comp_cntr,
			      uint64_t *value);				/* PABI 65 */
#endif
	int (*read_counters)(struct ibv_counters *counters,
			     uint64_t *counters_value, uint32_t ncounters,
			     uint32_t flags);
#if IBVERBS_PABI_VERSION >= 65
	int (*read_err_comp_cntr)(struct ibv_comp_cntr *comp_cntr,
				  uint64_t *value);			/* PABI 65 */
#endif
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
#if IBVERBS_PABI_VERSION >= 65
	struct ibv_mr *(*reg_mr_ex)(
		struct ibv_pd *pd,
		struct ibv_mr_init_attr *mr_init_attr);			/* PABI 65 */
#endif
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
#if IBVERBS_PABI_VERSION >= 65
	int (*set_comp_cntr)(struct ibv_comp_cntr *comp_cntr,
			     uint64_t value);				/* PABI 65 */
#endif
	int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
#if IBVERBS_PABI_VERSION >= 65
	int (*set_err_comp_cntr)(struct ibv_comp_cntr *comp_cntr,
				 uint64_t value);			/* PABI 65 */
#endif
	void (*unimport_dm)(struct ibv_dm *dm);
	void (*unimport_mr)(struct ibv_mr *mr);
	void (*unimport_pd)(struct ibv_pd *pd);
};

static inline struct verbs_device *
verbs_get_device(const struct ibv_device *dev)
{
	return container_of(dev, struct verbs_device, device);
}

/* The PABI number is part of the symbol name, as upstream */
#define ___make_verbs_register_driver(x) verbs_register_driver_##x
#define __make_verbs_register_driver(x) ___make_verbs_register_driver(x)
#define verbs_register_driver                                                  \
	__make_verbs_register_driver(IBVERBS_PABI_VERSION)

void verbs_register_driver(const struct verbs_device_ops *ops);

#define PROVIDER_DRIVER(provider_name, drv_struct)                             \
	extern const struct verbs_device_ops verbs_provider_##provider_name    \
		__attribute__((alias(stringify(drv_struct))));                 \
	static __attribute__((constructor)) void drv##__register_driver(void)  \
	{                                                                      \
		verbs_register_driver(&drv_struct);                            \
	}

void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);

#define verbs_init_and_alloc_context(ibdev, cmd_fd, drv_ctx_ptr, ctx_memb,     \
				     driver_id)                                \
	((typeof(drv_ctx_ptr))_verbs_init_and_alloc_context(                   \
		ibdev, cmd_fd, sizeof(*drv_ctx_ptr),                           \
		&((typeof(drv_ctx_ptr))NULL)->ctx_memb, (driver_id)))

void verbs_uninit_context(struct verbs_context *context);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);

/* PABI 65: an fd array (NULL: none) before the response */
int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
#if IBVERBS_PABI_VERSION >= 65
			struct ibv_fd_arr *fd_arr,
#endif
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
int ibv_cmd_query_context(struct ibv_context *ctx,
			  struct ibv_command_buffer *driver);
int ibv_cmd_query_mr(struct ibv_pd *pd, struct verbs_mr *vmr,
		     uint32_t mr_handle);
/* v45..: a driver ioctl attribute chain at the end (NULL: none) */
int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			  uint64_t iova, int fd, int access,
			  struct verbs_mr *vmr
#if ORCA_RDMA_CORE != 44
			  , struct ibv_command_buffer *driver
#endif
			  );
int ibv_cmd_alloc_dm(struct ibv_context *ctx,
		     const struct ibv_alloc_dm_attr *dm_attr,
		     struct verbs_dm *dm,
		     struct ibv_command_buffer *link);
int ibv_cmd_free_dm(struct verbs_dm *dm);
int ibv_cmd_reg_dm_mr(struct ibv_pd *pd, struct verbs_dm *dm,
		      uint64_t offset, size_t length,
		      unsigned int access, struct verbs_mr *vmr,
		      struct ibv_command_buffer *link);
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size);
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size,
		     struct ib_uverbs_alloc_mw_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);
int ibv_cmd_create_cq(struct ibv_context *context, int cqe,
		      struct ibv_comp_channel *channel, int comp_vector,
		      struct ibv_cq *cq, struct ibv_create_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_create_cq_resp *resp,
		      size_t resp_size);
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		      size_t resp_size);
/* PABI 65: provider CQ buffer attributes (NULL: the kernel allocates) */
int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
#if IBVERBS_PABI_VERSION >= 65
			 struct verbs_create_cq_prov_attr *prov_attr,
#endif
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
/* PABI 65: a driver ioctl attribute chain at the end (NULL: none) */
int ibv_cmd_create_qp_ex2(struct ibv_context *context, struct verbs_qp *qp,
			  struct ibv_qp_init_attr_ex *attr_ex,
			  struct ibv_create_qp_ex *cmd, size_t cmd_size,
			  struct ib_uverbs_ex_create_qp_resp *resp,
			  size_t resp_size
#if IBVERBS_PABI_VERSION >= 65
			  , struct ibv_command_buffer *driver
#endif
			  );
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size);
int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask, struct ibv_modify_qp_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_modify_qp_resp *resp,
			 size_t resp_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_dontfork_range(void *base, size_t size);
int ibv_dofork_range(void *base, size_t size);
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
		     size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp,
		     size_t resp_sz);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp,
		       size_t resp_size);
int ibv_cmd_create_srq_ex(struct ibv_context *context,
			  struct verbs_srq *srq,
			  struct ibv_srq_init_attr_ex *attr_ex,
			  struct ibv_create_xsrq *cmd, size_t cmd_size,
			  struct ib_uverbs_create_srq_resp *resp,
			  size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct ibv_modify_srq *cmd,
		       size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);
int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr);
int ibv_cmd_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		      struct ibv_recv_wr **bad_wr);

int ibv_read_ibdev_sysfs_file(char *buf, size_t size,
			      struct verbs_sysfs_dev *sysfs_dev,
			      const char *fnfmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * A parent domain as libibverbs sees it: the context and kernel handle
 * of the protection domain it stands for, so that every command naming
 * it names that one.
 */
static inline void ibv_initialize_parent_domain(struct ibv_pd *parent_domain,
						struct ibv_pd *contained_pd)
{
	parent_domain->context = contained_pd->context;
	parent_domain->handle = contained_pd->handle;
}

static inline bool check_comp_mask(uint64_t input, uint64_t supported)
{
	return (input & ~supported) == 0;
}

/*
 * Layout pinned to the binaries of ORCA_RDMA_CORE (x86_64); see the top of
 * this file for where each value was measured.
 */
#if ORCA_RDMA_CORE == 44
#define ORCA_OPS_SLOTS		76
#define ORCA_VERBS_QP_SIZE	368	/* ibv_qp_ex without wr_flush */
#define ORCA_VERBS_CTX_SIZE	648
#elif ORCA_RDMA_CORE == 56
#define ORCA_OPS_SLOTS		76
#define ORCA_VERBS_QP_SIZE	376	/* v45+: ibv_qp_ex.wr_flush */
#define ORCA_VERBS_CTX_SIZE	648
#else /* 65 */
#define ORCA_OPS_SLOTS		93
#define ORCA_VERBS_QP_SIZE	376
#define ORCA_VERBS_CTX_SIZE	696
#endif
/* slot of an op that moved in PABI 65: ORCA_SLOT(PABI 34 index, PABI 65 index) */
#if IBVERBS_PABI_VERSION >= 65
#define ORCA_SLOT(s34, s65)	(s65)
#else
#define ORCA_SLOT(s34, s65)	(s34)
#endif

#if defined(__x86_64__)
static_assert(sizeof(struct list_node) == 16, "list_node");
static_assert(sizeof(struct verbs_match_ent) == 24, "verbs_match_ent");
static_assert(sizeof(struct verbs_sysfs_dev) == 0x3e0, "verbs_sysfs_dev");
static_assert(offsetof(struct verbs_sysfs_dev, ibdev_name) == 0x70,
	      "verbs_sysfs_dev.ibdev_name");
static_assert(offsetof(struct verbs_sysfs_dev, abi_ver) == 0x3c8,
	      "verbs_sysfs_dev.abi_ver");
static_assert(sizeof(struct verbs_device_ops) == 0x48, "verbs_device_ops");
static_assert(offsetof(struct verbs_device_ops, match_device) == 0x20,
	      "verbs_device_ops.match_device");
static_assert(offsetof(struct verbs_device_ops, uninit_device) == 0x40,
	      "verbs_device_ops.uninit_device");
static_assert(sizeof(struct ibv_device) == 664, "ibv_device");
static_assert(sizeof(struct verbs_device) == 0x2c8, "verbs_device");
static_assert(offsetof(struct verbs_device, sysfs) == 0x2b8,
	      "verbs_device.sysfs");
static_assert(sizeof(struct verbs_context_ops) ==
		      ORCA_OPS_SLOTS * sizeof(void *),
	      "verbs_context_ops slots");
static_assert(offsetof(struct verbs_context_ops, alloc_pd) ==
		      ORCA_SLOT(5, 7) * 8,
	      "alloc_pd slot");
static_assert(offsetof(struct verbs_context_ops, create_qp_ex) ==
		      ORCA_SLOT(20, 23) * 8,
	      "create_qp_ex slot");
static_assert(offsetof(struct verbs_context_ops, free_context) ==
		      ORCA_SLOT(39, 46) * 8,
	      "free_context slot");
static_assert(offsetof(struct verbs_context_ops, modify_qp) ==
		      ORCA_SLOT(47, 56) * 8,
	      "modify_qp slot");
static_assert(offsetof(struct verbs_context_ops, query_device_ex) ==
		      ORCA_SLOT(58, 69) * 8,
	      "query_device_ex slot");
static_assert(offsetof(struct verbs_context_ops, query_qp_data_in_order) ==
		      ORCA_SLOT(62, 74) * 8,
	      "query_qp_data_in_order slot");
static_assert(offsetof(struct verbs_context_ops, set_ece) ==
		      ORCA_SLOT(72, 88) * 8,
	      "set_ece slot");
static_assert(offsetof(struct verbs_context_ops, unimport_pd) ==
		      (ORCA_OPS_SLOTS - 1) * 8,
	      "last slot");
static_assert(sizeof(struct verbs_context) == ORCA_VERBS_CTX_SIZE,
	      "verbs_context");
static_assert(sizeof(struct verbs_qp) == ORCA_VERBS_QP_SIZE, "verbs_qp");
static_assert(offsetof(struct verbs_qp, comp_mask) == ORCA_VERBS_QP_SIZE - 16,
	      "verbs_qp.comp_mask");
static_assert(offsetof(struct ibv_qp_ex, qp_base) == 0, "ibv_qp_ex.qp_base");
static_assert(sizeof(struct verbs_mr) == 56, "verbs_mr");
static_assert(offsetof(struct verbs_dm, handle) == 32, "verbs_dm.handle");
static_assert(sizeof(struct verbs_srq) == 160, "verbs_srq");
#endif

#endif /* ORCA_COMPAT_DRIVER_H */
