// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_import: ibv_import_device(3), ibv_import_pd(3), ibv_import_mr(3)
 * on orca.
 *   usage: verbs_import [-d DEV]
 *
 * A second context on a dup of the first one's uverbs file:
 *  - it is the same device: ibv_query_device_ex() and ibv_query_port()
 *    say the same in both, and a QP made in it reports the same ECE and
 *    data-in-order answers as one of the first (what the provider learns
 *    only from the kernel's answer for the context);
 *  - the PD imported by handle is the first context's PD: the region
 *    imported through it has the keys and length the first
 *    context registered, and while a QP of the second context uses the
 *    PD, the first context cannot free it (EBUSY);
 *  - traffic in the second context on the imported objects: an RDMA WRITE
 *    with the imported rkey lands in the first context's memory, a SEND
 *    gathered with the imported lkey arrives whole;
 *  - handles that name nothing are refused (NULL, errno set);
 *  - unimporting and closing the second context leave the objects to the
 *    first, which frees them.
 */
#include "common.h"

#define LEN	8192

static void same_device(struct ibv_context *a, struct ibv_context *b)
{
	struct ibv_device_attr_ex xa, xb;
	struct ibv_port_attr pa, pb;

	memset(&xa, 0, sizeof(xa));
	memset(&xb, 0, sizeof(xb));
	ok(!ibv_query_device_ex(a, NULL, &xa) &&
	   !ibv_query_device_ex(b, NULL, &xb) &&
	   !memcmp(&xa, &xb, sizeof(xa)),
	   "ibv_query_device_ex: the same attributes in both contexts");
	memset(&pa, 0, sizeof(pa));
	memset(&pb, 0, sizeof(pb));
	ok(!ibv_query_port(a, 1, &pa) && !ibv_query_port(b, 1, &pb) &&
	   pa.lid == pb.lid && pa.state == pb.state &&
	   pa.active_mtu == pb.active_mtu,
	   "ibv_query_port: the same port (LID %u)", pb.lid);
}

/* ECE and data-in-order: the provider knows them from the context answer */
static void same_extras(struct ibv_qp *qa, struct ibv_qp *qb)
{
	struct ibv_ece ea = {}, eb = {};
	int ra, rb, da, db;

	ra = ibv_query_ece(qa, &ea);
	rb = ibv_query_ece(qb, &eb);
	ok(ra == rb && ea.vendor_id == eb.vendor_id &&
	   ea.options == eb.options,
	   "ibv_query_ece: %d/%d, vendor %#x/%#x, options %#x/%#x in the two contexts",
	   ra, rb, ea.vendor_id, eb.vendor_id, ea.options, eb.options);
	da = ibv_query_qp_data_in_order(qa, IBV_WR_RDMA_WRITE,
					IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS);
	db = ibv_query_qp_data_in_order(qb, IBV_WR_RDMA_WRITE,
					IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS);
	ok(da == db, "ibv_query_qp_data_in_order(RDMA WRITE): %#x and %#x",
	   da, db);
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	struct ibv_context *c1, *c2 = NULL;
	struct ibv_qp *q1 = NULL, *qa = NULL, *qb = NULL;
	struct ibv_mr *mr1, *mr2 = NULL, *src_mr = NULL;
	struct ibv_pd *pd1, *pd2 = NULL, *bad_pd;
	struct ibv_port_attr port;
	struct ibv_cq *cq1 = NULL, *cq = NULL;
	struct ibv_mr *bad_mr;
	uint8_t *mem, *src;
	struct ibv_wc wc;
	int fd, ret;

	c1 = open_device_by_name(dev);
	if (!ok(c1 != NULL, "open %s", dev))
		return tap_done();
	pd1 = ibv_alloc_pd(c1);
	mem = calloc(1, LEN);
	src = calloc(1, LEN);
	mr1 = pd1 && mem ? ibv_reg_mr(pd1, mem, LEN, IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_REMOTE_WRITE) : NULL;
	cq1 = ibv_create_cq(c1, 4, NULL, NULL, 0);
	if (!ok(mr1 && cq1 && src && !ibv_query_port(c1, 1, &port),
		"first context: PD, region, CQ"))
		return tap_done();
	q1 = create_qp(pd1, cq1, IBV_QPT_RC);

	fd = dup(c1->cmd_fd);
	errno = 0;
	c2 = fd >= 0 ? ibv_import_device(fd) : NULL;
	if (!ok(c2 != NULL, "ibv_import_device(dup of its cmd_fd): %s",
		c2 ? "a context" : strerror(errno)))
		return tap_done();
	same_device(c1, c2);

	pd2 = ibv_import_pd(c2, pd1->handle);
	ok(pd2 && pd2->handle == pd1->handle && pd2->context == c2,
	   "ibv_import_pd(handle %u): %s", pd1->handle,
	   pd2 ? "the PD, in the second context" : strerror(errno));
	mr2 = pd2 ? ibv_import_mr(pd2, mr1->handle) : NULL;
	/* the address is not the kernel's to tell (ibv_import_mr(3)) */
	ok(mr2 && mr2->lkey == mr1->lkey && mr2->rkey == mr1->rkey &&
	   mr2->length == mr1->length && mr2->pd == pd2,
	   "ibv_import_mr(handle %u): lkey %#x rkey %#x length %zu, as registered",
	   mr1->handle, mr2 ? mr2->lkey : 0, mr2 ? mr2->rkey : 0,
	   mr2 ? mr2->length : 0);
	errno = 0;
	bad_pd = ibv_import_pd(c2, pd1->handle + 1000);
	ok(!bad_pd && errno, "ibv_import_pd of a handle that names no PD: NULL (%s)",
	   strerror(errno));
	errno = 0;
	bad_mr = pd2 ? ibv_import_mr(pd2, mr1->handle + 1000) : NULL;
	ok(!bad_mr && errno, "ibv_import_mr of a handle that names no region: NULL (%s)",
	   strerror(errno));
	if (!pd2 || !mr2)
		goto out;

	/* traffic in the second context, on the imported objects */
	cq = ibv_create_cq(c2, 8, NULL, NULL, 0);
	qa = cq ? create_qp(pd2, cq, IBV_QPT_RC) : NULL;
	qb = cq ? create_qp(pd2, cq, IBV_QPT_RC) : NULL;
	src_mr = ibv_reg_mr(pd2, src, LEN, IBV_ACCESS_LOCAL_WRITE);
	/* two new QPs, one of each context, before either is connected */
	if (q1 && qa)
		same_extras(q1, qa);
	if (!ok(qa && qb && src_mr && !connect_to(qa, qb->qp_num, &port) &&
		!connect_to(qb, qa->qp_num, &port),
		"second context: CQ, an RC pair on the imported PD, connected"))
		goto out;
	ret = ibv_dealloc_pd(pd1);
	ok(ret == EBUSY, "the first context cannot free the PD the second one's QPs use: %s",
	   strerror(ret));
	for (int i = 0; i < LEN; i++)
		src[i] = (uint8_t)(i * 11 + 1);
	{
		struct ibv_sge sge = { (uintptr_t)src, 4096, src_mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge,
					  .num_sge = 1,
					  .opcode = IBV_WR_RDMA_WRITE,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;

		wr.wr.rdma.remote_addr = (uintptr_t)mem;
		wr.wr.rdma.rkey = mr2->rkey;
		ret = ibv_post_send(qa, &wr, &bad);
		wc = next_wc(cq);
		ok(!ret && wc.status == IBV_WC_SUCCESS && !memcmp(mem, src, 4096),
		   "RDMA WRITE with the imported rkey lands in the first context's memory (%s)",
		   wc_status_name(&wc));
	}
	{
		/* the receive into the first region, the send from it */
		struct ibv_sge rs = { (uintptr_t)mem + 4096, 4096, mr2->lkey };
		struct ibv_sge ss = { (uintptr_t)mem, 1000, mr2->lkey };
		struct ibv_recv_wr rw = { .wr_id = 2, .sg_list = &rs,
					  .num_sge = 1 }, *rbad;
		struct ibv_send_wr sw = { .wr_id = 3, .sg_list = &ss,
					  .num_sge = 1, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED }, *sbad;
		struct ibv_wc w1, w2;

		ret = ibv_post_recv(qb, &rw, &rbad) ||
		      ibv_post_send(qa, &sw, &sbad);
		w1 = next_wc(cq);
		w2 = next_wc(cq);
		ok(!ret && w1.status == IBV_WC_SUCCESS &&
		   w2.status == IBV_WC_SUCCESS &&
		   !memcmp(mem + 4096, src, 1000),
		   "SEND gathered and scattered with the imported lkey: 1000 bytes whole (%s, %s)",
		   wc_status_name(&w1), wc_status_name(&w2));
	}
out:
	if (qa)
		ibv_destroy_qp(qa);
	if (qb)
		ibv_destroy_qp(qb);
	if (src_mr)
		ibv_dereg_mr(src_mr);
	if (cq)
		ibv_destroy_cq(cq);
	if (mr2)
		ibv_unimport_mr(mr2);
	if (pd2)
		ibv_unimport_pd(pd2);
	ok(!ibv_close_device(c2), "second context closed");
	if (q1)
		ibv_destroy_qp(q1);
	ret = ibv_dereg_mr(mr1);
	ok(!ret, "the first context still has its region, and frees it (%s)",
	   strerror(ret));
	ret = ibv_destroy_cq(cq1) || ibv_dealloc_pd(pd1);
	ok(!ret, "...and its PD");
	ibv_close_device(c1);
	free(mem);
	free(src);
	return tap_done();
}
