// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * orca libibverbs provider: verbs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orca.h"

/* the kernel's bits are libibverbs' (two enums: compared as numbers) */
static_assert((int)ORCA_IBV_DIO_WHOLE_MSG ==
		      (int)IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG,
	      "ORCA_IBV_DIO_WHOLE_MSG");
static_assert((int)ORCA_IBV_DIO_ALIGNED_128_BYTES ==
		      (int)IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES,
	      "ORCA_IBV_DIO_ALIGNED_128_BYTES");

void orca_cache_device_extras(struct orca_context *ctx)
{
	struct orca_query_device_ex_resp resp = {};
	struct orca_ibv_ex_query_device_resp *drv = &resp.drv_payload;
	struct ibv_device_attr_ex attr;
	size_t resp_size = sizeof(resp);

	if (ibv_cmd_query_device_any(&ctx->ibv_ctx.context, NULL, &attr,
				     sizeof(attr), &resp.ibv_resp, &resp_size))
		return;
	/*
	 * resp_size is the core response_length: it only tells whether the
	 * EX command (which carries our payload) was used rather than the
	 * legacy one.  Whether the kernel filled the driver part is announced
	 * by its comp_mask (zero-initialised above).
	 */
	if (resp_size <= sizeof(resp.ibv_resp.base))
		return;

	ctx->extras = drv->comp_mask;
	ctx->tso_caps.max_tso = drv->max_tso;
	ctx->tso_caps.supported_qpts = drv->tso_supported_qpts;
	ctx->packet_pacing_caps.qp_rate_limit_min = drv->qp_rate_limit_min;
	ctx->packet_pacing_caps.qp_rate_limit_max = drv->qp_rate_limit_max;
	ctx->packet_pacing_caps.supported_qpts =
		drv->packet_pacing_supported_qpts;
	ctx->pci_atomic_caps.fetch_add = drv->pci_atomic_fetch_add;
	ctx->pci_atomic_caps.swap = drv->pci_atomic_swap;
	ctx->pci_atomic_caps.compare_swap = drv->pci_atomic_compare_swap;
}

int orca_query_device_ex(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct orca_context *ctx = to_octx(context);
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int ret;

	/* core response only: the driver part was cached at context open */
	ret = ibv_cmd_query_device_any(context, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;

	/* the core fw_ver, in the device's major.minor.sub encoding */
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)((fw >> 32) & 0xffff),
		 (unsigned int)((fw >> 16) & 0xffff),
		 (unsigned int)(fw & 0xffff));

	if ((ctx->extras & ORCA_IBV_QUERY_DEVICE_RESP_TSO_CAPS) &&
	    attr_size >= offsetofend(struct ibv_device_attr_ex, tso_caps))
		attr->tso_caps = ctx->tso_caps;
	if ((ctx->extras & ORCA_IBV_QUERY_DEVICE_RESP_PACKET_PACING_CAPS) &&
	    attr_size >=
	    offsetofend(struct ibv_device_attr_ex, packet_pacing_caps))
		attr->packet_pacing_caps = ctx->packet_pacing_caps;
	if ((ctx->extras & ORCA_IBV_QUERY_DEVICE_RESP_PCI_ATOMIC_CAPS) &&
	    attr_size >=
	    offsetofend(struct ibv_device_attr_ex, pci_atomic_caps))
		attr->pci_atomic_caps = ctx->pci_atomic_caps;
	return 0;
}

/*
 * ibv_query_rt_values_ex(): the device's free-running clock, the one of
 * ibv_wc_read_completion_ts(), in ticks of hca_core_clock kHz as
 * raw_clock.tv_nsec with tv_sec 0 (as mlx5 has it).  The clock is in
 * the device: each read is a command.
 */
int orca_query_rt_values(struct ibv_context *context,
			 struct ibv_values_ex *values)
{
	struct orca_ibv_query_clock_resp resp = {};
	int ret;
	DECLARE_COMMAND_BUFFER(cmd, UVERBS_OBJECT_DEVICE,
			       ORCA_IBV_METHOD_QUERY_CLOCK, 1);

	if (!check_comp_mask(values->comp_mask, IBV_VALUES_MASK_RAW_CLOCK))
		return EINVAL;
	if (!values->comp_mask)
		return 0;
	fill_attr_out_ptr(cmd, ORCA_IBV_ATTR_QUERY_CLOCK_RESP, &resp);
	ret = execute_ioctl(context, cmd);
	/* a kernel without the method has no clock to give either */
	if (ret == EPROTONOSUPPORT)
		ret = EOPNOTSUPP;
	if (ret)
		return ret;
	values->raw_clock.tv_sec = 0;
	values->raw_clock.tv_nsec = resp.free_running;
	values->comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	return 0;
}

int orca_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(context, port, attr, &cmd, sizeof(cmd));
}

struct ibv_pd *orca_alloc_pd(struct ibv_context *context)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ibv_alloc_pd cmd;
	struct orca_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;

	ret = ibv_cmd_alloc_pd(context, &pd->ibv_pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return &pd->ibv_pd;
}

/*
 * A parent domain is the provider's alone: the kernel sees only the
 * handle of the protection domain it names.  Busy while a parent domain
 * names the protection domain, or a buffer of its allocator lives.
 */
int orca_dealloc_pd(struct ibv_pd *ibpd)
{
	struct orca_pd *pd = to_opd(ibpd);
	int ret;

	if (atomic_load(&pd->refs))
		return EBUSY;
	if (pd->protection) {
		atomic_fetch_sub(&pd->protection->refs, 1);
		if (pd->td)
			atomic_fetch_sub(&pd->td->refs, 1);
		free(pd);
		return 0;
	}
	ret = ibv_cmd_dealloc_pd(ibpd);
	if (ret)
		return ret;

	free(pd);
	return 0;
}

/*
 * ibv_import_pd(): a PD of the uverbs file's context, by its handle (from
 * another process, or another context on the same file).  The kernel
 * says whether the handle names one (ORCA_IBV_METHOD_PD_QUERY); the
 * provider keeps nothing else about a PD.
 */
struct ibv_pd *orca_import_pd(struct ibv_context *context, uint32_t pd_handle)
{
	struct orca_pd *pd;
	int ret;
	DECLARE_COMMAND_BUFFER(cmd, UVERBS_OBJECT_PD, ORCA_IBV_METHOD_PD_QUERY,
			       1);

	fill_attr_in_obj(cmd, ORCA_IBV_ATTR_QUERY_PD_HANDLE, pd_handle);
	ret = execute_ioctl(context, cmd);
	if (ret) {
		errno = ret;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	pd->ibv_pd.context = context;
	pd->ibv_pd.handle = pd_handle;
	return &pd->ibv_pd;
}

/* ibv_unimport_pd(): this context forgets it; the PD stays. */
void orca_unimport_pd(struct ibv_pd *ibpd)
{
	free(to_opd(ibpd));
}

struct ibv_pd *orca_alloc_parent_domain(struct ibv_context *context,
					struct ibv_parent_domain_init_attr *attr)
{
	struct orca_pd *pd;

	if (!check_comp_mask(attr->comp_mask,
			     IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
			     IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/*
	 * a protection domain (not a parent) and thread domain of this
	 * context; both allocators or none
	 */
	if (!attr->pd || attr->pd->context != context ||
	    to_opd(attr->pd)->protection ||
	    (attr->td && attr->td->context != context) ||
	    ((attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) &&
	     (!attr->alloc || !attr->free))) {
		errno = EINVAL;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	pd->protection = to_opd(attr->pd);
	if (attr->td) {
		pd->td = container_of(attr->td, struct orca_td, ibv_td);
		atomic_fetch_add(&pd->td->refs, 1);
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) {
		pd->alloc = attr->alloc;
		pd->free = attr->free;
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		pd->pd_context = attr->pd_context;
	atomic_fetch_add(&pd->protection->refs, 1);
	ibv_initialize_parent_domain(&pd->ibv_pd, attr->pd);
	return &pd->ibv_pd;
}

struct ibv_td *orca_alloc_td(struct ibv_context *context,
			     struct ibv_td_init_attr *init_attr)
{
	struct orca_td *td;

	if (init_attr->comp_mask) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (!td)
		return NULL;
	td->ibv_td.context = context;
	return &td->ibv_td;
}

int orca_dealloc_td(struct ibv_td *ibtd)
{
	struct orca_td *td = container_of(ibtd, struct orca_td, ibv_td);

	if (atomic_load(&td->refs))
		return EBUSY;
	free(td);
	return 0;
}

static int orca_check_qp_init_attr(struct orca_context *ctx,
				   const struct ibv_qp_init_attr_ex *attr)
{
	if (!check_comp_mask(attr->comp_mask, IBV_QP_INIT_ATTR_PD |
					      IBV_QP_INIT_ATTR_CREATE_FLAGS |
					      IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return EOPNOTSUPP;
	if (orca_wr_check(ctx, attr))
		return EOPNOTSUPP;

	switch (attr->qp_type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
		break;
	default:
		return EOPNOTSUPP;
	}

	if (attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) {
		if (!check_comp_mask(attr->create_flags,
				     IBV_QP_CREATE_PCI_WRITE_END_PADDING))
			return EOPNOTSUPP;
		if ((attr->create_flags & IBV_QP_CREATE_PCI_WRITE_END_PADDING) &&
		    !(ctx->device_caps &
		      ORCA_IBV_DEVICE_CAP_PCI_WRITE_END_PADDING))
			return EOPNOTSUPP;
	}

	if (attr->cap.max_inline_data > ctx->max_inline_data)
		return EINVAL;

	/*
	 * Objects of another context: the kernel would look their handles
	 * up in this one, and the QP would keep pointers (the CQs cleaned
	 * at RESET) to objects that live and die elsewhere.
	 */
	if (!attr->send_cq || !attr->recv_cq ||
	    attr->send_cq->context != &ctx->ibv_ctx.context ||
	    attr->recv_cq->context != &ctx->ibv_ctx.context ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_PD) && attr->pd &&
	     attr->pd->context != &ctx->ibv_ctx.context) ||
	    (attr->srq && attr->srq->context != &ctx->ibv_ctx.context))
		return EINVAL;

	return 0;
}

struct ibv_qp *orca_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr)
{
	struct orca_context *ctx = to_octx(context);
	struct orca_create_qp_ex_resp resp = {};
	struct orca_create_qp_ex cmd = {};
	struct orca_qp *qp;
	int ret;

	ret = orca_check_qp_init_attr(ctx, attr);
	if (ret) {
		errno = ret;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	ret = orca_qp_rings_init(ctx, qp, attr, &cmd.drv_payload);
	if (ret)
		goto err_free;

	ret = ibv_cmd_create_qp_ex2(context, &qp->vqp, attr, &cmd.ibv_cmd,
				    sizeof(cmd), &resp.ibv_resp, sizeof(resp),
				    NULL);
	if (ret)
		goto err_rings;
	orca_qp_rings_setup(qp, attr);
	orca_wr_setup(qp, attr);
	ret = orca_qp_table_insert(ctx, qp);
	if (ret)
		goto err_destroy;
	orca_qp_refs_get(&qp->vqp.qp);

	if ((ctx->device_caps & ORCA_IBV_DEVICE_CAP_ECE) &&
	    (resp.drv_payload.comp_mask & ORCA_IBV_CREATE_QP_RESP_ECE_OPTIONS))
		qp->ece_supported = resp.drv_payload.ece_options;
	qp->ece_current = qp->ece_supported;

	return &qp->vqp.qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_rings:
	orca_qp_rings_free(qp);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}

struct ibv_qp *orca_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex attr_ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ibv_qp *qp;

	qp = orca_create_qp_ex(pd->context, &attr_ex);
	if (qp)
		attr->cap = attr_ex.cap;	/* report the applied caps */
	return qp;
}

int orca_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask)
{
	struct orca_qp *qp = to_oqp(ibqp);
	struct orca_modify_qp_ex_resp resp = {};
	struct orca_modify_qp_ex cmd = {};
	enum ibv_qp_state cur_state;
	int ret;

	cur_state = (attr_mask & IBV_QP_CUR_STATE) ? attr->cur_qp_state :
						      ibqp->state;

	if (qp->ece_pending_valid) {
		cmd.drv_payload.comp_mask = ORCA_IBV_MODIFY_QP_ECE_OPTIONS;
		cmd.drv_payload.ece_options = qp->ece_pending;
	}

	ret = ibv_cmd_modify_qp_ex(ibqp, attr, attr_mask, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret)
		return ret;

	if (resp.drv_payload.comp_mask & ORCA_IBV_MODIFY_QP_RESP_ECE_OPTIONS)
		qp->ece_current = resp.drv_payload.ece_options;

	/*
	 * The kernel says whether this modify negotiated the request (from
	 * the state the device had: ours may be stale after the device moved
	 * the QP on its own); an older kernel leaves it to our state.
	 */
	if (resp.drv_payload.comp_mask &
	    ORCA_IBV_MODIFY_QP_RESP_ECE_NEGOTIATED) {
		if (resp.drv_payload.ece_negotiated)
			qp->ece_pending_valid = false;
	} else if ((attr_mask & IBV_QP_STATE) &&
		   ((cur_state == IBV_QPS_INIT &&
		     attr->qp_state == IBV_QPS_RTR) ||
		    (cur_state == IBV_QPS_RTR &&
		     attr->qp_state == IBV_QPS_RTS))) {
		qp->ece_pending_valid = false;
	}
	if (attr_mask & IBV_QP_STATE) {
		ibqp->state = attr->qp_state;
		if (attr->qp_state == IBV_QPS_RESET) {
			orca_qp_clean_cqs(qp, false);
			orca_qp_reset_rings(qp);
		}
	}
	return 0;
}

int orca_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int attr_mask,
		  struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd;

	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

int orca_destroy_qp(struct ibv_qp *ibqp)
{
	struct orca_qp *qp = to_oqp(ibqp);
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;
	/*
	 * its completions nobody will poll go (an SRQ's WQEs come back), and
	 * no poller holds it once it has left the QPN table
	 */
	orca_qp_clean_cqs(qp, true);
	orca_qp_refs_put(ibqp);
	orca_qp_rings_free(qp);
	free(qp);
	return 0;
}

struct ibv_mr *orca_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			   uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *vmr;
	int ret;

	/* no on-demand paging (odp_caps are 0): say so, as the man page asks */
	if (access & IBV_ACCESS_ON_DEMAND) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

int orca_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;

	if (access & IBV_ACCESS_ON_DEMAND) {
		errno = EOPNOTSUPP;
		return errno;
	}
	/*
	 * A PD of another context: the kernel would look its handle up in
	 * this one, and libibverbs would make the MR that context's, to be
	 * deregistered through it after it is closed (the verbs fuzzer).
	 */
	if ((flags & IBV_REREG_MR_CHANGE_PD) &&
	    (!pd || pd->context != vmr->ibv_mr.context)) {
		errno = EINVAL;
		return errno;
	}
	return ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
				access, pd, &cmd, sizeof(cmd), &resp,
				sizeof(resp));
}

/* ibv_import_mr(): a region of the context by its handle, as the kernel has it. */
struct ibv_mr *orca_import_mr(struct ibv_pd *pd, uint32_t mr_handle)
{
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	ret = ibv_cmd_query_mr(pd, vmr, mr_handle);
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

/* ibv_unimport_mr(): this context forgets it; the region stays. */
void orca_unimport_mr(struct ibv_mr *ibmr)
{
	free(container_of(ibmr, struct verbs_mr, ibv_mr));
}

/*
 * ibv_reg_dmabuf_mr(): the kernel pins the dma-buf's pages and the device
 * maps them like any page list.
 */
struct ibv_mr *orca_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				  size_t length, uint64_t iova, int fd,
				  int access)
{
	struct verbs_mr *vmr;
	int ret;

	if (access & IBV_ACCESS_ON_DEMAND) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;
	ret = ibv_cmd_reg_dmabuf_mr(pd, offset, length, iova, fd, access, vmr,
				    NULL);
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

int orca_dereg_mr(struct verbs_mr *vmr)
{
	int ret;

	ret = ibv_cmd_dereg_mr(vmr);
	if (ret)
		return ret;
	free(vmr);
	return 0;
}

/* ECE: requests are cached and sent with the next modify_qp (no syscall) */
int orca_set_ece(struct ibv_qp *ibqp, struct ibv_ece *ece)
{
	struct orca_context *ctx = to_octx(ibqp->context);
	struct orca_qp *qp = to_oqp(ibqp);

	if (ece->comp_mask) {
		errno = EINVAL;
		return errno;
	}
	if (!(ctx->device_caps & ORCA_IBV_DEVICE_CAP_ECE)) {
		errno = EOPNOTSUPP;
		return errno;
	}
	/*
	 * Any of orca's options may be asked for: a peer's offer (as
	 * rdma_cm's passive side sets it) names what the other device has,
	 * and the device keeps what it supports itself.  Bits that are no
	 * orca option are invalid.
	 */
	if (ece->vendor_id != ctx->ece_vendor_id ||
	    !check_comp_mask(ece->options, ORCA_IBV_ECE_OPT_ALL)) {
		errno = EINVAL;
		return errno;
	}

	qp->ece_pending = ece->options;
	qp->ece_pending_valid = true;
	return 0;
}

int orca_query_ece(struct ibv_qp *ibqp, struct ibv_ece *ece)
{
	struct orca_context *ctx = to_octx(ibqp->context);

	if (!(ctx->device_caps & ORCA_IBV_DEVICE_CAP_ECE)) {
		errno = EOPNOTSUPP;
		return errno;
	}

	ece->vendor_id = ctx->ece_vendor_id;
	ece->options = to_oqp(ibqp)->ece_current;
	ece->comp_mask = 0;
	return 0;
}

/*
 * libibverbs 44 returns the provider's value unchanged, so the full
 * ibv_query_qp_data_in_order(3) semantics are implemented here: flags 0
 * returns 1 iff the whole message is written in order; RETURN_CAPS returns
 * the capability vector (WHOLE_MSG implies ALIGNED_128_BYTES, as upstream
 * libibverbs adds).  Unknown flags and other opcodes return 0.
 */
int orca_query_qp_data_in_order(struct ibv_qp *ibqp, enum ibv_wr_opcode op,
				uint32_t flags)
{
	struct orca_context *ctx = to_octx(ibqp->context);
	unsigned int shift;
	int caps;

	if (!check_comp_mask(flags, IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS))
		return 0;
	if (!(ctx->device_caps & ORCA_IBV_DEVICE_CAP_DATA_IN_ORDER))
		return 0;

	switch (op) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
		shift = ORCA_IBV_DIO_SHIFT_SEND;
		break;
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		shift = ORCA_IBV_DIO_SHIFT_RDMA_WRITE;
		break;
	case IBV_WR_RDMA_READ:
		shift = ORCA_IBV_DIO_SHIFT_RDMA_READ;
		break;
	default:
		return 0;
	}

	/* ORCA_IBV_DIO_* use the IBV_QUERY_QP_DATA_IN_ORDER_* values */
	caps = (ctx->dio_caps >> shift) &
	       (IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG |
		IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES);
	if (caps & IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG)
		caps |= IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES;

	if (flags & IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS)
		return caps;
	return !!(caps & IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG);
}

struct ibv_ah *orca_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct orca_create_ah_resp resp = {};
	struct orca_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;
	ret = ibv_cmd_create_ah(pd, &ah->ibv_ah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	ah->ahn = resp.drv_payload.ahn;
	return &ah->ibv_ah;
}

int orca_destroy_ah(struct ibv_ah *ibah)
{
	int ret;

	ret = ibv_cmd_destroy_ah(ibah);
	if (ret)
		return ret;
	free(to_oah(ibah));
	return 0;
}

/*
 * Memory windows: the kernel asks the device for one (the type is the
 * kernel's to check: an unknown one is EINVAL there) and returns its
 * key; binding and invalidating are send WQEs.
 */
struct ibv_mw *orca_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int ret;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

int orca_dealloc_mw(struct ibv_mw *mw)
{
	int ret = ibv_cmd_dealloc_mw(mw);

	if (ret)
		return ret;
	free(mw);
	return 0;
}
