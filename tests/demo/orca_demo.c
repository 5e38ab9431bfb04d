// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * orca-demo: open an orca device, bring an RC QP up in loopback
 * (RESET->INIT->RTR->RTS, destination = itself) with ECE requested, and print
 * what the device reports.  Exits non-zero if any verb fails or the QP does
 * not end in RTS.
 *   usage: orca-demo [-d DEV]     (default orca0)
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "verbs_compat.h"

static int failures;

static int verb(int ret, const char *what)
{
	if (ret) {
		fprintf(stderr, "orca-demo: %s failed: %s\n", what,
			strerror(ret));
		failures++;
	}
	return ret;
}

static const char *qp_state_str(enum ibv_qp_state s)
{
	switch (s) {
	case IBV_QPS_RESET: return "RESET";
	case IBV_QPS_INIT: return "INIT";
	case IBV_QPS_RTR: return "RTR";
	case IBV_QPS_RTS: return "RTS";
	case IBV_QPS_SQD: return "SQD";
	case IBV_QPS_SQE: return "SQE";
	case IBV_QPS_ERR: return "ERR";
	default: return "UNKNOWN";
	}
}

static int mtu_bytes(enum ibv_mtu m)
{
	return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? 128 << m : 0;
}

static void print_guid(const char *name, __be64 guid)
{
	uint64_t g = be64toh(guid);

	printf("  %-28s %04x:%04x:%04x:%04x\n", name,
	       (unsigned int)(g >> 48) & 0xffff,
	       (unsigned int)(g >> 32) & 0xffff,
	       (unsigned int)(g >> 16) & 0xffff, (unsigned int)g & 0xffff);
}

static void print_device(const struct ibv_device_attr_ex *a)
{
	const struct ibv_device_attr *o = &a->orig_attr;

	printf("ibv_query_device_ex:\n");
	printf("  %-28s %s\n", "fw_ver", o->fw_ver);
	print_guid("node_guid", o->node_guid);
	print_guid("sys_image_guid", o->sys_image_guid);
	printf("  %-28s 0x%06x\n", "vendor_id", o->vendor_id);
	printf("  %-28s 0x%x\n", "vendor_part_id", o->vendor_part_id);
	printf("  %-28s 0x%x\n", "hw_ver", o->hw_ver);
	printf("  %-28s 0x%" PRIx64 "\n", "max_mr_size", o->max_mr_size);
	printf("  %-28s 0x%" PRIx64 "\n", "page_size_cap", o->page_size_cap);
	printf("  %-28s %d\n", "max_qp", o->max_qp);
	printf("  %-28s %d\n", "max_qp_wr", o->max_qp_wr);
	printf("  %-28s 0x%x\n", "device_cap_flags", o->device_cap_flags);
	printf("  %-28s %d\n", "max_sge", o->max_sge);
	printf("  %-28s %d\n", "max_sge_rd", o->max_sge_rd);
	printf("  %-28s %d\n", "max_cq", o->max_cq);
	printf("  %-28s %d\n", "max_cqe", o->max_cqe);
	printf("  %-28s %d\n", "max_mr", o->max_mr);
	printf("  %-28s %d\n", "max_pd", o->max_pd);
	printf("  %-28s %d\n", "max_qp_rd_atom", o->max_qp_rd_atom);
	printf("  %-28s %d\n", "max_qp_init_rd_atom", o->max_qp_init_rd_atom);
	printf("  %-28s %d\n", "max_res_rd_atom", o->max_res_rd_atom);
	printf("  %-28s %d\n", "atomic_cap", o->atomic_cap);
	printf("  %-28s %d\n", "max_mw", o->max_mw);
	printf("  %-28s %d\n", "max_ah", o->max_ah);
	printf("  %-28s %d\n", "max_srq", o->max_srq);
	printf("  %-28s %u\n", "max_pkeys", o->max_pkeys);
	printf("  %-28s %u\n", "local_ca_ack_delay", o->local_ca_ack_delay);
	printf("  %-28s %u\n", "phys_port_cnt", o->phys_port_cnt);
	printf("  %-28s %u\n", "phys_port_cnt_ex", a->phys_port_cnt_ex);
	printf("  %-28s 0x%" PRIx64 "%s\n", "device_cap_flags_ex",
	       a->device_cap_flags_ex,
	       a->device_cap_flags_ex & IBV_DEVICE_PCI_WRITE_END_PADDING ?
		       " (PCI_WRITE_END_PADDING)" : "");
	printf("  %-28s 0x%" PRIx64 "\n", "completion_timestamp_mask",
	       a->completion_timestamp_mask);
	printf("  %-28s %" PRIu64 "\n", "hca_core_clock", a->hca_core_clock);
	printf("  %-28s max_tso %u qpts 0x%x\n", "tso_caps",
	       a->tso_caps.max_tso, a->tso_caps.supported_qpts);
	printf("  %-28s min %u max %u qpts 0x%x\n", "packet_pacing_caps",
	       a->packet_pacing_caps.qp_rate_limit_min,
	       a->packet_pacing_caps.qp_rate_limit_max,
	       a->packet_pacing_caps.supported_qpts);
	printf("  %-28s fetch_add 0x%x swap 0x%x cmp_swap 0x%x\n",
	       "pci_atomic_caps", a->pci_atomic_caps.fetch_add,
	       a->pci_atomic_caps.swap, a->pci_atomic_caps.compare_swap);
}

static void print_port(const struct ibv_port_attr *p)
{
	printf("ibv_query_port 1:\n");
	printf("  %-28s %s\n", "state", ibv_port_state_str(p->state));
	printf("  %-28s %d (%d bytes)\n", "max_mtu", p->max_mtu,
	       mtu_bytes(p->max_mtu));
	printf("  %-28s %d (%d bytes)\n", "active_mtu", p->active_mtu,
	       mtu_bytes(p->active_mtu));
	printf("  %-28s 0x%x\n", "lid", p->lid);
	printf("  %-28s 0x%x\n", "sm_lid", p->sm_lid);
	printf("  %-28s %s\n", "link_layer",
	       p->link_layer == IBV_LINK_LAYER_INFINIBAND ? "InfiniBand" :
	       p->link_layer == IBV_LINK_LAYER_ETHERNET   ? "Ethernet" :
							    "unspecified");
	printf("  %-28s %d / %u\n", "gid_tbl_len / pkey_tbl_len",
	       p->gid_tbl_len, p->pkey_tbl_len);
	printf("  %-28s 0x%x\n", "max_msg_sz", p->max_msg_sz);
}

static void print_ah(const char *name, const struct ibv_ah_attr *ah)
{
	printf("  %-28s dlid 0x%x sl %u src_path_bits %u static_rate %u "
	       "is_global %u port %u\n",
	       name, ah->dlid, ah->sl, ah->src_path_bits, ah->static_rate,
	       ah->is_global, ah->port_num);
	if (ah->is_global)
		printf("  %-28s sgid_index %u hop_limit %u tclass %u "
		       "flow_label 0x%x\n",
		       "", ah->grh.sgid_index, ah->grh.hop_limit,
		       ah->grh.traffic_class, ah->grh.flow_label);
}

static int print_qp(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY |
		   IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		   IBV_QP_QKEY | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_TIMEOUT |
		   IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_RQ_PSN |
		   IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_ALT_PATH |
		   IBV_QP_MIN_RNR_TIMER | IBV_QP_SQ_PSN |
		   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_PATH_MIG_STATE |
		   IBV_QP_CAP | IBV_QP_DEST_QPN;

	memset(&a, 0, sizeof(a));
	if (verb(ibv_query_qp(qp, &a, mask, &init), "ibv_query_qp"))
		return -1;

	printf("ibv_query_qp (qp_num 0x%x):\n", qp->qp_num);
	printf("  %-28s %s\n", "qp_state", qp_state_str(a.qp_state));
	printf("  %-28s %s\n", "cur_qp_state", qp_state_str(a.cur_qp_state));
	printf("  %-28s %d (%d bytes)\n", "path_mtu", a.path_mtu,
	       mtu_bytes(a.path_mtu));
	printf("  %-28s %d\n", "path_mig_state", a.path_mig_state);
	printf("  %-28s 0x%x\n", "qkey", a.qkey);
	printf("  %-28s 0x%x\n", "rq_psn", a.rq_psn);
	printf("  %-28s 0x%x\n", "sq_psn", a.sq_psn);
	printf("  %-28s 0x%x\n", "dest_qp_num", a.dest_qp_num);
	printf("  %-28s 0x%x\n", "qp_access_flags", a.qp_access_flags);
	printf("  %-28s send_wr %u recv_wr %u send_sge %u recv_sge %u "
	       "inline %u\n",
	       "cap", a.cap.max_send_wr, a.cap.max_recv_wr,
	       a.cap.max_send_sge, a.cap.max_recv_sge,
	       a.cap.max_inline_data);
	print_ah("ah_attr", &a.ah_attr);
	print_ah("alt_ah_attr", &a.alt_ah_attr);
	printf("  %-28s %u\n", "pkey_index", a.pkey_index);
	printf("  %-28s %u\n", "alt_pkey_index", a.alt_pkey_index);
	printf("  %-28s %u\n", "en_sqd_async_notify", a.en_sqd_async_notify);
	printf("  %-28s %u\n", "sq_draining", a.sq_draining);
	printf("  %-28s %u\n", "max_rd_atomic", a.max_rd_atomic);
	printf("  %-28s %u\n", "max_dest_rd_atomic", a.max_dest_rd_atomic);
	printf("  %-28s %u\n", "min_rnr_timer", a.min_rnr_timer);
	printf("  %-28s %u\n", "port_num", a.port_num);
	printf("  %-28s %u\n", "timeout", a.timeout);
	printf("  %-28s %u\n", "retry_cnt", a.retry_cnt);
	printf("  %-28s %u\n", "rnr_retry", a.rnr_retry);
	printf("  %-28s %u\n", "alt_port_num", a.alt_port_num);
	printf("  %-28s %u\n", "alt_timeout", a.alt_timeout);
	printf("  %-28s type %d sq_sig_all %d\n", "init_attr", init.qp_type,
	       init.sq_sig_all);
	return a.qp_state;
}

static void print_dio(struct ibv_qp *qp)
{
	static const struct {
		enum ibv_wr_opcode op;
		const char *name;
	} ops[] = {
		{ IBV_WR_SEND, "SEND" },
		{ IBV_WR_SEND_WITH_IMM, "SEND_WITH_IMM" },
		{ IBV_WR_RDMA_WRITE, "RDMA_WRITE" },
		{ IBV_WR_RDMA_WRITE_WITH_IMM, "RDMA_WRITE_WITH_IMM" },
		{ IBV_WR_RDMA_READ, "RDMA_READ" },
		{ IBV_WR_ATOMIC_FETCH_AND_ADD, "ATOMIC_FETCH_AND_ADD" },
	};

	printf("ibv_query_qp_data_in_order:\n");
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		int in_order = ibv_query_qp_data_in_order(qp, ops[i].op, 0);
		int caps = ibv_query_qp_data_in_order(
			qp, ops[i].op, IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS);

		printf("  %-28s flags 0: %d  RETURN_CAPS: 0x%x%s%s\n",
		       ops[i].name, in_order, caps,
		       caps & IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG ?
			       " WHOLE_MSG" : "",
		       caps & IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES ?
			       " ALIGNED_128_BYTES" : "");
	}
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list) {
		fprintf(stderr, "orca-demo: no RDMA devices: %s\n",
			strerror(errno));
		return NULL;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (i == n)
		fprintf(stderr, "orca-demo: device %s not found\n", name);
	else if (!(ctx = ibv_open_device(list[i])))
		fprintf(stderr, "orca-demo: ibv_open_device(%s): %s\n", name,
			strerror(errno));
	ibv_free_device_list(list);
	return ctx;
}

static int modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		  const char *what)
{
	int ret = verb(ibv_modify_qp(qp, a, mask), what);

	if (!ret)
		printf("modify_qp: %s ok\n", what);
	return ret;
}

/* RESET -> INIT -> RTR -> RTS, connected to QP @dest on the same port. */
static int to_rts(struct ibv_qp *qp, uint32_t dest,
		  const struct ibv_port_attr *port, struct ibv_ece *ece)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ;
	if (modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			   IBV_QP_ACCESS_FLAGS, "RESET->INIT"))
		return -1;

	if (ece) {
		/* Request everything the device offers before RTR */
		ece->comp_mask = 0;
		if (!verb(ibv_set_ece(qp, ece), "ibv_set_ece"))
			printf("ibv_set_ece: requested options 0x%x\n",
			       ece->options);
	}

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = port->active_mtu;
	a.dest_qp_num = dest;			/* through the port */
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.dlid = port->lid;
	a.ah_attr.sl = 0;
	a.ah_attr.port_num = 1;
	if (modify(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
		   "INIT->RTR"))
		return -1;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (modify(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
			   IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			   IBV_QP_MAX_QP_RD_ATOMIC,
		   "RTR->RTS"))
		return -1;

	return 0;
}

/*
 * Move data: a SEND from @qp into a receive posted on @qp2, then an RDMA
 * WRITE from @qp into @qp2's buffer, and show what arrived.
 */
static int move_data(struct ibv_pd *pd, struct ibv_cq *cq, struct ibv_qp *qp,
		     struct ibv_qp *qp2)
{
	char src[64], dst[64];
	struct ibv_mr *smr, *dmr;
	struct ibv_sge sge;
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &sge, .num_sge = 1 };
	struct ibv_send_wr swr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				   .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_recv_wr *rbad;
	struct ibv_wc wc[2];
	int n = 0, i, tries, ret = -1;

	memset(dst, 0, sizeof(dst));
	smr = ibv_reg_mr(pd, src, sizeof(src), IBV_ACCESS_LOCAL_WRITE);
	dmr = ibv_reg_mr(pd, dst, sizeof(dst), IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE);
	if (!smr || !dmr) {
		verb(errno ? errno : EIO, "ibv_reg_mr");
		goto out;
	}
	printf("registered two 64-byte buffers: lkey 0x%x, lkey 0x%x rkey 0x%x\n",
	       smr->lkey, dmr->lkey, dmr->rkey);

	snprintf(src, sizeof(src), "hello from QP 0x%x", qp->qp_num);
	sge = (struct ibv_sge){ (uintptr_t)dst, sizeof(dst), dmr->lkey };
	if (verb(ibv_post_recv(qp2, &rwr, &rbad), "ibv_post_recv"))
		goto out;
	sge = (struct ibv_sge){ (uintptr_t)src, strlen(src) + 1, smr->lkey };
	swr.opcode = IBV_WR_SEND;
	if (verb(ibv_post_send(qp, &swr, &bad), "ibv_post_send(SEND)"))
		goto out;
	for (tries = 0; n < 2 && tries < 1000000; tries++) {
		i = ibv_poll_cq(cq, 2 - n, wc + n);
		if (i < 0)
			break;
		n += i;
	}
	for (i = 0; i < n; i++)
		printf("completion: wr_id %llu %s, %s, %u bytes, QP 0x%x\n",
		       (unsigned long long)wc[i].wr_id,
		       wc[i].opcode == IBV_WC_RECV ? "RECV" : "SEND",
		       ibv_wc_status_str(wc[i].status), wc[i].byte_len,
		       wc[i].qp_num);
	if (n != 2 || wc[0].status || wc[1].status) {
		fprintf(stderr, "orca-demo: SEND/RECV did not complete\n");
		failures++;
		goto out;
	}
	printf("QP 0x%x received: \"%s\"\n", qp2->qp_num, dst);

	snprintf(src, sizeof(src), "written by RDMA WRITE from QP 0x%x",
		 qp->qp_num);
	sge = (struct ibv_sge){ (uintptr_t)src, strlen(src) + 1, smr->lkey };
	swr.opcode = IBV_WR_RDMA_WRITE;
	swr.wr.rdma.remote_addr = (uintptr_t)dst;
	swr.wr.rdma.rkey = dmr->rkey;
	if (verb(ibv_post_send(qp, &swr, &bad), "ibv_post_send(RDMA_WRITE)"))
		goto out;
	for (n = 0, tries = 0; n < 1 && tries < 1000000; tries++)
		n = ibv_poll_cq(cq, 1, wc);
	if (n != 1 || wc[0].status) {
		fprintf(stderr, "orca-demo: RDMA WRITE did not complete\n");
		failures++;
		goto out;
	}
	printf("RDMA WRITE completed: %s; remote buffer now: \"%s\"\n",
	       ibv_wc_status_str(wc[0].status), dst);
	ret = strcmp(src, dst) ? -1 : 0;
	if (ret) {
		fprintf(stderr, "orca-demo: the written data differs\n");
		failures++;
	}
out:
	if (smr)
		ibv_dereg_mr(smr);
	if (dmr)
		ibv_dereg_mr(dmr);
	return ret;
}

int main(int argc, char **argv)
{
	const char *dev = "orca0";
	struct ibv_device_attr_ex dattr;
	struct ibv_qp_init_attr init = {};
	struct ibv_port_attr port;
	struct ibv_context *ctx;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp = NULL, *qp2 = NULL;
	struct ibv_ece ece;
	bool have_ece = false;
	uint32_t qpn = 0;
	int opt, ret, state = -1;

	while ((opt = getopt(argc, argv, "d:h")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-d DEV]\n", argv[0]);
			return 2;
		}
	}

	ctx = open_dev(dev);
	if (!ctx)
		return 1;
	printf("device %s\n", dev);

	if (verb(ibv_query_device_ex(ctx, NULL, &dattr), "ibv_query_device_ex"))
		goto out;
	print_device(&dattr);
	if (verb(ibv_query_port(ctx, 1, &port), "ibv_query_port"))
		goto out;
	print_port(&port);

	pd = ibv_alloc_pd(ctx);
	if (!pd) {
		verb(errno ? errno : EIO, "ibv_alloc_pd");
		goto out;
	}
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!cq) {
		verb(errno ? errno : EIO, "ibv_create_cq");
		goto out;
	}
	init.send_cq = cq;
	init.recv_cq = cq;
	init.qp_type = IBV_QPT_RC;
	init.cap.max_send_wr = 16;
	init.cap.max_recv_wr = 16;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &init);
	if (!qp) {
		verb(errno ? errno : EIO, "ibv_create_qp");
		goto out;
	}
	qp2 = ibv_create_qp(pd, &init);
	if (!qp2) {
		verb(errno ? errno : EIO, "ibv_create_qp");
		goto out;
	}
	qpn = qp->qp_num;
	printf("created RC QPs 0x%x and 0x%x (pd %u, cq cqe %d)\n",
	       qp->qp_num, qp2->qp_num, pd->handle, cq->cqe);

	/* ECE as offered by the device for this QP */
	memset(&ece, 0, sizeof(ece));
	ret = ibv_query_ece(qp, &ece);
	switch (ret) {
	case 0:
		have_ece = true;
		printf("ibv_query_ece after create: vendor_id 0x%06x options "
		       "0x%x comp_mask 0x%x\n",
		       ece.vendor_id, ece.options, ece.comp_mask);
		break;
	case EOPNOTSUPP:
		printf("ibv_query_ece: not supported by this device\n");
		break;
	default:
		verb(ret, "ibv_query_ece");
	}

	if (to_rts(qp, qp2->qp_num, &port, have_ece ? &ece : NULL) ||
	    to_rts(qp2, qp->qp_num, &port, NULL))
		goto out;

	state = print_qp(qp);
	if (have_ece) {
		memset(&ece, 0, sizeof(ece));
		if (!verb(ibv_query_ece(qp, &ece), "ibv_query_ece"))
			printf("ibv_query_ece in RTS: vendor_id 0x%06x options "
			       "0x%x (accepted) comp_mask 0x%x\n",
			       ece.vendor_id, ece.options, ece.comp_mask);
	}
	print_dio(qp);
	if (state == IBV_QPS_RTS)
		move_data(pd, cq, qp, qp2);

out:
	if (qp)
		verb(ibv_destroy_qp(qp), "ibv_destroy_qp");
	if (qp2)
		verb(ibv_destroy_qp(qp2), "ibv_destroy_qp");
	if (cq)
		verb(ibv_destroy_cq(cq), "ibv_destroy_cq");
	if (pd)
		verb(ibv_dealloc_pd(pd), "ibv_dealloc_pd");
	verb(ibv_close_device(ctx), "ibv_close_device");

	if (state != IBV_QPS_RTS) {
		fprintf(stderr, "orca-demo: QP did not reach RTS\n");
		return 1;
	}
	if (failures) {
		fprintf(stderr, "orca-demo: %d verb(s) failed\n", failures);
		return 1;
	}
	printf("orca-demo: QP 0x%x reached RTS, moved data, all verbs succeeded\n",
	       qpn);
	return 0;
}
