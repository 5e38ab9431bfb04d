// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_basic: device/port queries, PD, CQ, and the full RC/UC/UD QP state
 * machine through the orca provider.   usage: verbs_basic [-d DEV]
 */
#include <unistd.h>

#include "common.h"

static void check_query(struct ibv_qp *qp, enum ibv_qp_state want_state,
			const struct ibv_qp_attr *set, int set_mask)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	const char *t = qpt_str(qp->qp_type);
	int ret;

	memset(&a, 0, sizeof(a));
	ret = ibv_query_qp(qp, &a, IBV_QP_STATE | set_mask, &init);
	if (!ok(!ret, "%s: query_qp in %s: %s", t, qps_str(want_state),
		err_str(ret)))
		return;
	ok(a.qp_state == want_state, "%s: query_qp state %s (got %s)", t,
	   qps_str(want_state), qps_str(a.qp_state));
	ok(init.qp_type == qp->qp_type, "%s: init_attr.qp_type", t);
	ok(init.cap.max_send_wr >= 4 && init.cap.max_recv_wr >= 4 &&
		   init.cap.max_send_sge >= 1 && init.cap.max_recv_sge >= 1,
	   "%s: caps >= requested (send_wr %u recv_wr %u)", t,
	   init.cap.max_send_wr, init.cap.max_recv_wr);
	if (!set)
		return;

#define CHECK_FIELD(mask, field)                                               \
	do {                                                                   \
		if (set_mask & (mask))                                         \
			ok(a.field == set->field,                              \
			   "%s: %s: " #field " = %u (got %u)", t,              \
			   qps_str(want_state), (unsigned int)set->field,      \
			   (unsigned int)a.field);                             \
	} while (0)
	CHECK_FIELD(IBV_QP_PKEY_INDEX, pkey_index);
	CHECK_FIELD(IBV_QP_PORT, port_num);
	CHECK_FIELD(IBV_QP_ACCESS_FLAGS, qp_access_flags);
	CHECK_FIELD(IBV_QP_QKEY, qkey);
	CHECK_FIELD(IBV_QP_PATH_MTU, path_mtu);
	CHECK_FIELD(IBV_QP_DEST_QPN, dest_qp_num);
	CHECK_FIELD(IBV_QP_RQ_PSN, rq_psn);
	CHECK_FIELD(IBV_QP_MAX_DEST_RD_ATOMIC, max_dest_rd_atomic);
	CHECK_FIELD(IBV_QP_MIN_RNR_TIMER, min_rnr_timer);
	CHECK_FIELD(IBV_QP_AV, ah_attr.dlid);
	CHECK_FIELD(IBV_QP_AV, ah_attr.sl);
	CHECK_FIELD(IBV_QP_AV, ah_attr.port_num);
	CHECK_FIELD(IBV_QP_SQ_PSN, sq_psn);
	CHECK_FIELD(IBV_QP_TIMEOUT, timeout);
	CHECK_FIELD(IBV_QP_RETRY_CNT, retry_cnt);
	CHECK_FIELD(IBV_QP_RNR_RETRY, rnr_retry);
	CHECK_FIELD(IBV_QP_MAX_QP_RD_ATOMIC, max_rd_atomic);
#undef CHECK_FIELD
}

/* Modify cur->to with the required attributes, then verify via query_qp */
static void step(struct ibv_qp *qp, const struct ibv_port_attr *port,
		 enum ibv_qp_state cur, enum ibv_qp_state to)
{
	int mask = required_mask(qp->qp_type, cur, to);
	struct ibv_qp_attr a;
	int ret;

	fill_attr(&a, qp, port, to);
	ret = ibv_modify_qp(qp, &a, mask);
	ok(!ret, "%s: modify %s->%s: %s", qpt_str(qp->qp_type), qps_str(cur),
	   qps_str(to), err_str(ret));
	ok(qp->state == to, "%s: ibv_qp.state is %s after modify",
	   qpt_str(qp->qp_type), qps_str(to));
	check_query(qp, to, &a, mask & ~IBV_QP_STATE);
}

static void missing_attr(struct ibv_qp *qp, const struct ibv_port_attr *port,
			 enum ibv_qp_state cur, enum ibv_qp_state to,
			 int drop, const char *what)
{
	int mask = required_mask(qp->qp_type, cur, to) & ~drop;
	struct ibv_qp_attr a;
	int ret;

	fill_attr(&a, qp, port, to);
	ret = ibv_modify_qp(qp, &a, mask);
	ok(ret == EINVAL, "%s: %s->%s without %s fails with EINVAL (got %s)",
	   qpt_str(qp->qp_type), qps_str(cur), qps_str(to), what,
	   err_str(ret));
	ok(query_state(qp) == cur, "%s: still %s after the failed modify",
	   qpt_str(qp->qp_type), qps_str(cur));
}

static void qp_walk(struct ibv_pd *pd, struct ibv_cq *cq,
		    const struct ibv_port_attr *port,
		    const struct ibv_device_attr_ex *dattr,
		    enum ibv_qp_type type)
{
	const char *t = qpt_str(type);
	struct ibv_qp_attr a;
	struct ibv_qp *qp;
	int ret;

	qp = create_qp(pd, cq, type);
	if (!ok(qp != NULL, "%s: create_qp: %s", t,
		qp ? "success" : strerror(errno)))
		return;
	ok(qp->qp_num != 0 && qp->qp_num <= 0xffffff, "%s: qp_num %#x valid",
	   t, qp->qp_num);
	ok(qp->state == IBV_QPS_RESET, "%s: ibv_qp.state RESET after create",
	   t);
	check_query(qp, IBV_QPS_RESET, NULL, 0);

	/* Invalid transition */
	fill_attr(&a, qp, port, IBV_QPS_RTR);
	ret = ibv_modify_qp(qp, &a,
			    required_mask(type, IBV_QPS_INIT, IBV_QPS_RTR));
	ok(ret == EINVAL, "%s: RESET->RTR fails with EINVAL (got %s)", t,
	   err_str(ret));
	ok(query_state(qp) == IBV_QPS_RESET, "%s: still RESET", t);

	/* Missing required attribute and out-of-range value */
	missing_attr(qp, port, IBV_QPS_RESET, IBV_QPS_INIT, IBV_QP_PORT,
		     "IBV_QP_PORT");
	fill_attr(&a, qp, port, IBV_QPS_INIT);
	a.port_num = dattr->orig_attr.phys_port_cnt + 1;
	ret = ibv_modify_qp(qp, &a,
			    required_mask(type, IBV_QPS_RESET, IBV_QPS_INIT));
	ok(ret == EINVAL, "%s: RESET->INIT with port %u fails with EINVAL (got %s)",
	   t, a.port_num, err_str(ret));

	step(qp, port, IBV_QPS_RESET, IBV_QPS_INIT);
	if (type != IBV_QPT_UD)
		missing_attr(qp, port, IBV_QPS_INIT, IBV_QPS_RTR,
			     IBV_QP_DEST_QPN, "IBV_QP_DEST_QPN");
	step(qp, port, IBV_QPS_INIT, IBV_QPS_RTR);
	if (type == IBV_QPT_RC)
		missing_attr(qp, port, IBV_QPS_RTR, IBV_QPS_RTS,
			     IBV_QP_TIMEOUT, "IBV_QP_TIMEOUT");
	step(qp, port, IBV_QPS_RTR, IBV_QPS_RTS);
	step(qp, port, IBV_QPS_RTS, IBV_QPS_SQD);
	step(qp, port, IBV_QPS_SQD, IBV_QPS_RTS);
	step(qp, port, IBV_QPS_RTS, IBV_QPS_ERR);
	step(qp, port, IBV_QPS_ERR, IBV_QPS_RESET);
	/* RESET cleared the attributes: the QP can be brought up again */
	step(qp, port, IBV_QPS_RESET, IBV_QPS_INIT);

	ret = ibv_destroy_qp(qp);
	ok(!ret, "%s: destroy_qp: %s", t, err_str(ret));
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	struct ibv_query_device_ex_input input = {};
	struct ibv_device_attr_ex attr;
	struct ibv_device_attr legacy;
	struct ibv_port_attr port;
	struct ibv_context *ctx;
	struct ibv_qp *qp;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	long page = sysconf(_SC_PAGESIZE);
	int ret;

	ctx = open_device_by_name(dev);
	if (!ok(ctx != NULL, "open %s", dev))
		return tap_done();

	input.comp_mask = 1;
	ret = ibv_query_device_ex(ctx, &input, &attr);
	ok(ret == EINVAL, "query_device_ex with input comp_mask 1 -> EINVAL (got %s)",
	   err_str(ret));

	ret = ibv_query_device_ex(ctx, NULL, &attr);
	if (!ok(!ret, "query_device_ex: %s", err_str(ret)))
		goto out_close;
	ok(attr.orig_attr.node_guid != 0, "node_guid %#llx non-zero",
	   (unsigned long long)be64toh(attr.orig_attr.node_guid));
	ok(attr.orig_attr.sys_image_guid != 0, "sys_image_guid non-zero");
	ok(attr.orig_attr.vendor_id != 0, "vendor_id %#x non-zero",
	   attr.orig_attr.vendor_id);
	ok(attr.orig_attr.fw_ver[0] != '\0', "fw_ver \"%s\" non-empty",
	   attr.orig_attr.fw_ver);
	ok(attr.orig_attr.max_qp > 0, "max_qp %d", attr.orig_attr.max_qp);
	ok(attr.orig_attr.max_qp_wr > 0, "max_qp_wr %d",
	   attr.orig_attr.max_qp_wr);
	ok(attr.orig_attr.max_sge > 0, "max_sge %d", attr.orig_attr.max_sge);
	ok(attr.orig_attr.max_cq > 0, "max_cq %d", attr.orig_attr.max_cq);
	ok(attr.orig_attr.max_cqe > 0, "max_cqe %d", attr.orig_attr.max_cqe);
	ok(attr.orig_attr.max_mr > 0, "max_mr %d", attr.orig_attr.max_mr);
	ok(attr.orig_attr.max_pd > 0, "max_pd %d", attr.orig_attr.max_pd);
	ok(attr.orig_attr.max_mr_size > (uint64_t)page, "max_mr_size %#llx",
	   (unsigned long long)attr.orig_attr.max_mr_size);
	ok(attr.orig_attr.page_size_cap >= (uint64_t)page,
	   "page_size_cap %#llx covers the page size",
	   (unsigned long long)attr.orig_attr.page_size_cap);
	ok(attr.orig_attr.max_pkeys > 0, "max_pkeys %u",
	   attr.orig_attr.max_pkeys);
	ok(attr.orig_attr.phys_port_cnt >= 1, "phys_port_cnt %u",
	   attr.orig_attr.phys_port_cnt);
	ok(attr.phys_port_cnt_ex == attr.orig_attr.phys_port_cnt,
	   "phys_port_cnt_ex %u", attr.phys_port_cnt_ex);

	ret = ibv_query_device(ctx, &legacy);
	ok(!ret, "query_device (legacy): %s", err_str(ret));
	ok(!ret && legacy.node_guid == attr.orig_attr.node_guid &&
		   legacy.max_qp == attr.orig_attr.max_qp &&
		   !strcmp(legacy.fw_ver, attr.orig_attr.fw_ver),
	   "query_device agrees with query_device_ex");

	ret = ibv_query_port(ctx, 1, &port);
	if (!ok(!ret, "query_port 1: %s", err_str(ret)))
		goto out_close;
	ok(port.state == IBV_PORT_ACTIVE, "port 1 ACTIVE (%s)",
	   ibv_port_state_str(port.state));
	ok(port.link_layer == IBV_LINK_LAYER_INFINIBAND,
	   "port 1 link layer InfiniBand (%u)", port.link_layer);
	ok(port.lid != 0, "port 1 lid %#x non-zero", port.lid);
	ok(port.active_mtu >= IBV_MTU_256 && port.active_mtu <= port.max_mtu,
	   "active_mtu %d within 256..max_mtu %d", port.active_mtu,
	   port.max_mtu);
	ok(port.max_msg_sz > 0x1000, "max_msg_sz %#x", port.max_msg_sz);
	ok(port.gid_tbl_len > 0 && port.pkey_tbl_len > 0,
	   "gid_tbl_len %d pkey_tbl_len %u", port.gid_tbl_len,
	   port.pkey_tbl_len);
	ret = ibv_query_port(ctx, attr.orig_attr.phys_port_cnt + 1, &port);
	ok(ret == EINVAL, "query_port %u -> EINVAL (got %s)",
	   attr.orig_attr.phys_port_cnt + 1, err_str(ret));
	ibv_query_port(ctx, 1, &port);

	pd = ibv_alloc_pd(ctx);
	if (!ok(pd != NULL, "alloc_pd: %s", pd ? "success" : strerror(errno)))
		goto out_close;
	ret = ibv_dealloc_pd(pd);
	ok(!ret, "dealloc_pd: %s", err_str(ret));
	pd = ibv_alloc_pd(ctx);
	if (!ok(pd != NULL, "alloc_pd again"))
		goto out_close;

	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!ok(cq != NULL, "create_cq(16): %s",
		cq ? "success" : strerror(errno)))
		goto out_pd;
	ok(cq->cqe >= 16, "cq->cqe %d >= 16", cq->cqe);

	qp_walk(pd, cq, &port, &attr, IBV_QPT_RC);
	qp_walk(pd, cq, &port, &attr, IBV_QPT_UC);
	qp_walk(pd, cq, &port, &attr, IBV_QPT_UD);

	/* Destroy order: objects in use cannot go away */
	qp = create_qp(pd, cq, IBV_QPT_RC);
	if (ok(qp != NULL, "create RC QP for destroy-order checks")) {
		ret = ibv_destroy_cq(cq);
		ok(ret == EBUSY, "destroy_cq in use by a QP -> EBUSY (got %s)",
		   err_str(ret));
		ret = ibv_dealloc_pd(pd);
		ok(ret == EBUSY, "dealloc_pd in use by a QP -> EBUSY (got %s)",
		   err_str(ret));
		ret = ibv_destroy_qp(qp);
		ok(!ret, "destroy_qp: %s", err_str(ret));
	}
	ret = ibv_destroy_cq(cq);
	ok(!ret, "destroy_cq: %s", err_str(ret));
out_pd:
	ret = ibv_dealloc_pd(pd);
	ok(!ret, "dealloc_pd: %s", err_str(ret));
out_close:
	ret = ibv_close_device(ctx);
	ok(!ret, "close_device: %s", err_str(ret));
	return tap_done();
}
