// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the device model core: PD, CQ and QP objects.  Create,
 * query and destroy, what CREATE_QP checks and rounds, the configured
 * limits, objects in use, handle numbers (round robin and reuse), and the
 * PCI write end padding create flag.
 */
#include <string.h>

#include "orca_log.h"
#include "qp_fixture.h"

static void pd_cq_happy(void)
{
	struct fx *f = fx_up();
	struct orca_pd_handle pd, pd2;
	struct orca_create_cq_in ci = { .cqe = htole32(100) };
	struct orca_create_cq_out co;
	struct orca_cq_handle ch;

	CHECK_EQ(f->pdn, 1);		/* 1-based */
	CHECK_EQ(f->cqn, 1);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, &pd, sizeof(pd)), 0);
	CHECK_EQ(f->out_len, sizeof(pd));
	CHECK_EQ(le32toh(pd.pdn), 2);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_DEALLOC_PD, &pd, sizeof(pd), NULL, 0), 0);
	CHECK_EQ(f->out_len, 0);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_DEALLOC_PD, &pd, sizeof(pd), NULL, 0),
		    ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE);
	/* not reused immediately */
	CHECK_EQ(fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, &pd2, sizeof(pd2)), 0);
	CHECK_EQ(le32toh(pd2.pdn), 3);
	pd2.reserved = htole32(1);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_DEALLOC_PD, &pd2, sizeof(pd2), NULL, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_RESERVED_NZ);

	/* CQ rounding: 2^n - 1 >= requested */
	CHECK_EQ(fx_cmd(f, ORCA_CMD_CREATE_CQ, &ci, sizeof(ci), &co,
			sizeof(co)), 0);
	CHECK_EQ(le32toh(co.cqe), 127);
	CHECK_EQ(le32toh(co.cqn), 2);
	ch.cqn = co.cqn;
	ch.reserved = 0;
	CHECK_EQ(fx_cmd(f, ORCA_CMD_DESTROY_CQ, &ch, sizeof(ch), NULL, 0), 0);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_DESTROY_CQ, &ch, sizeof(ch), NULL, 0),
		    ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE);
	ci.cqe = htole32(1);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_CREATE_CQ, &ci, sizeof(ci), &co,
			sizeof(co)), 0);
	CHECK_EQ(le32toh(co.cqe), 1);
	ci.cqe = htole32(65535);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_CREATE_CQ, &ci, sizeof(ci), &co,
			sizeof(co)), 0);
	CHECK_EQ(le32toh(co.cqe), 65535);
	ci.cqe = htole32(65536);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_CREATE_CQ, &ci, sizeof(ci), &co,
			      sizeof(co)),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	ci.cqe = 0;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_CREATE_CQ, &ci, sizeof(ci), &co,
			      sizeof(co)),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	ci.cqe = htole32(8);
	ci.comp_vector = htole32(1);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_CREATE_CQ, &ci, sizeof(ci), &co,
			      sizeof(co)),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	ci.comp_vector = 0;
	ci.reserved[1] = 1;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_CREATE_CQ, &ci, sizeof(ci), &co,
			      sizeof(co)),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_RESERVED_NZ);
	fx_free(f);
}

static void qp_create_query_destroy(void)
{
	struct fx *f = fx_up();
	static const uint8_t types[] = { ORCA_QPT_RC, ORCA_QPT_UC, ORCA_QPT_UD };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct orca_create_qp_in in = qp_in(f, types[i]);
		struct orca_qp_ctx c, q;
		uint32_t qpn;

		in.max_send_wr = htole32(100);
		in.max_recv_wr = htole32(0);
		in.max_send_sge = htole32(3);
		in.max_recv_sge = htole32(16);
		in.max_inline_data = htole32(17);
		in.sq_sig_all = 1;
		qpn = create_qp_in(f, &in, &c);
		CHECK_EQ(f->status, 0);
		CHECK_EQ(qpn, ORCA_QPN_BASE + i);
		CHECK_EQ(c.qp_type, types[i]);
		CHECK_EQ(c.state, ORCA_QPS_RESET);
		CHECK_EQ(le32toh(c.max_send_wr), 128);
		CHECK_EQ(le32toh(c.max_recv_wr), 0);
		CHECK_EQ(le32toh(c.max_send_sge), 3);
		CHECK_EQ(le32toh(c.max_recv_sge), 16);
		CHECK_EQ(le32toh(c.max_inline_data), 32);
		CHECK_EQ(c.sq_sig_all, 1);
		CHECK_EQ(le32toh(c.pdn), f->pdn);
		CHECK_EQ(le32toh(c.send_cqn), f->cqn);
		CHECK_EQ(le32toh(c.recv_cqn), f->cqn);
		CHECK_EQ(le32toh(c.ece_options), ORCA_ECE_OPT_ALL);
		CHECK_EQ(le32toh(c.create_flags), 0);
		CHECK_EQ(query_qp(f, qpn, &q), 0);
		CHECK(!memcmp(&c, &q, sizeof(c)));
		/* mirror: created in RESET, seq even */
		CHECK_EQ(mirror(f, qpn)->state, ORCA_QPS_RESET);
		CHECK_EQ(le32toh(mirror(f, qpn)->seq), 2);
	}
	/* rounding caps at the limit */
	{
		struct orca_create_qp_in in = qp_in(f, ORCA_QPT_RC);
		struct orca_qp_ctx c;

		in.max_send_wr = htole32(4096);
		in.max_inline_data = htole32(250);
		CHECK(create_qp_in(f, &in, &c));
		CHECK_EQ(le32toh(c.max_send_wr), 4096);
		CHECK_EQ(le32toh(c.max_inline_data), 256);
	}
	for (i = 0; i < 3; i++) {
		CHECK_EQ(destroy_qp(f, ORCA_QPN_BASE + i), 0);
		CHECK_EQ(le32toh(mirror(f, ORCA_QPN_BASE + i)->seq), 4);
		EXPECT_FAIL(f, destroy_qp(f, ORCA_QPN_BASE + i),
			    ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE);
		EXPECT_FAIL(f, qp_state(f, ORCA_QPN_BASE + i) == -1 ?
			    f->status : 0,
			    ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE);
	}
	/* special and out-of-range QPNs */
	EXPECT_FAIL(f, qp_state(f, 0) == -1 ? f->status : 0,
		    ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE);
	EXPECT_FAIL(f, qp_state(f, 1) == -1 ? f->status : 0,
		    ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE);
	EXPECT_FAIL(f, qp_state(f, 0xffffffff) == -1 ? f->status : 0,
		    ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE);
	fx_free(f);
}

static void qp_create_checks(void)
{
	const char *const sets[] = { "max_qp_wr=1000", NULL };
	struct fx *f = fx_up_cfg(sets);
	struct orca_create_qp_in in;
	struct orca_qp_ctx c;

#define CREATE_FAILS(field_stmt, st, sy)				\
	do {								\
		in = qp_in(f, ORCA_QPT_RC);				\
		field_stmt;						\
		CHECK_EQ(create_qp_in(f, &in, NULL), 0);		\
		CHECK_EQ(f->status, st);				\
		CHECK_EQ(f->synd, sy);					\
	} while (0)

	CREATE_FAILS(in.qp_type = 0, ORCA_STATUS_BAD_PARAM, ORCA_SYND_QP_TYPE);
	CREATE_FAILS(in.qp_type = 6, ORCA_STATUS_BAD_PARAM, ORCA_SYND_QP_TYPE);
	CREATE_FAILS(in.pdn = htole32(99), ORCA_STATUS_BAD_RESOURCE,
		     ORCA_SYND_HANDLE);
	CREATE_FAILS(in.send_cqn = htole32(0), ORCA_STATUS_BAD_RESOURCE,
		     ORCA_SYND_HANDLE);
	CREATE_FAILS(in.recv_cqn = htole32(7), ORCA_STATUS_BAD_RESOURCE,
		     ORCA_SYND_HANDLE);
	CREATE_FAILS(in.max_send_wr = htole32(1001), ORCA_STATUS_BAD_PARAM,
		     ORCA_SYND_ATTR_RANGE);
	CREATE_FAILS(in.max_recv_wr = htole32(1001), ORCA_STATUS_BAD_PARAM,
		     ORCA_SYND_ATTR_RANGE);
	CREATE_FAILS(in.max_send_sge = htole32(17), ORCA_STATUS_BAD_PARAM,
		     ORCA_SYND_ATTR_RANGE);
	CREATE_FAILS(in.max_recv_sge = htole32(17), ORCA_STATUS_BAD_PARAM,
		     ORCA_SYND_ATTR_RANGE);
	CREATE_FAILS(in.max_inline_data = htole32(257), ORCA_STATUS_BAD_PARAM,
		     ORCA_SYND_ATTR_RANGE);
	CREATE_FAILS(in.sq_sig_all = 2, ORCA_STATUS_BAD_PARAM,
		     ORCA_SYND_ATTR_RANGE);
	CREATE_FAILS(in.create_flags = htole32(32), ORCA_STATUS_BAD_PARAM,
		     ORCA_SYND_FLAGS);
	/* fast registration on RC and UC only */
	CREATE_FAILS((in.qp_type = ORCA_QPT_UD,
		      in.create_flags = htole32(ORCA_QP_CREATE_FAST_REG)),
		     ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS);
	/* a kick ring named without the flag; the flag and no such ring */
	CREATE_FAILS(in.kick_ring = htole16(1), ORCA_STATUS_BAD_PARAM,
		     ORCA_SYND_RESERVED_NZ);
	CREATE_FAILS((in.kick_ring = htole16(1),
		      in.create_flags = htole32(ORCA_QP_CREATE_KICK_RING)),
		     ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE);
	CREATE_FAILS(in.srqn = htole32(1), ORCA_STATUS_BAD_RESOURCE,
		     ORCA_SYND_HANDLE);
	CHECK_EQ(f->dev.n_qps, 0);
	/* rounding is capped by a non-power-of-two max_qp_wr */
	in = qp_in(f, ORCA_QPT_UD);
	in.max_send_wr = htole32(1000);
	CHECK(create_qp_in(f, &in, &c));
	CHECK_EQ(le32toh(c.max_send_wr), 1000);
	fx_free(f);

	/* a QP type removed from dev_caps is UNSUPPORTED */
	{
		const char *const s2[] = { "dev_caps=0x1", NULL };

		f = fx_up_cfg(s2);
		CREATE_FAILS(in.qp_type = ORCA_QPT_UD, ORCA_STATUS_UNSUPPORTED,
			     ORCA_SYND_QP_TYPE);
		in = qp_in(f, ORCA_QPT_RC);
		CHECK(create_qp_in(f, &in, NULL));
		fx_free(f);
	}
#undef CREATE_FAILS
}

static void limits(void)
{
	const char *const sets[] = { "max_pd=4", "max_cq=3", "max_qp=5", NULL };
	struct fx *f = fx_up_cfg(sets);	/* has 1 PD and 1 CQ */
	struct orca_create_cq_in ci = { .cqe = htole32(4) };
	struct orca_create_cq_out co;
	struct orca_pd_handle pd;
	struct orca_cq_handle ch = { 0 };
	uint32_t qpns[5];
	int i;

	for (i = 0; i < 3; i++)
		CHECK_EQ(fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, &pd, sizeof(pd)), 0);
	CHECK_EQ(le32toh(pd.pdn), 4);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, &pd, sizeof(pd)),
		    ORCA_STATUS_NO_RESOURCES, ORCA_SYND_LIMIT);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_DEALLOC_PD, &pd, sizeof(pd), NULL, 0), 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, &pd, sizeof(pd)), 0);
	CHECK_EQ(le32toh(pd.pdn), 4);	/* the only free one */

	for (i = 0; i < 2; i++)
		CHECK_EQ(fx_cmd(f, ORCA_CMD_CREATE_CQ, &ci, sizeof(ci), &co,
				sizeof(co)), 0);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_CREATE_CQ, &ci, sizeof(ci), &co,
			      sizeof(co)),
		    ORCA_STATUS_NO_RESOURCES, ORCA_SYND_LIMIT);
	ch.cqn = co.cqn;
	CHECK_EQ(fx_cmd(f, ORCA_CMD_DESTROY_CQ, &ch, sizeof(ch), NULL, 0), 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_CREATE_CQ, &ci, sizeof(ci), &co,
			sizeof(co)), 0);

	for (i = 0; i < 5; i++) {
		qpns[i] = create_qp(f, ORCA_QPT_RC);
		CHECK_EQ(qpns[i], ORCA_QPN_BASE + i);
	}
	CHECK_EQ(create_qp(f, ORCA_QPT_UD), 0);
	CHECK_EQ(f->status, ORCA_STATUS_NO_RESOURCES);
	CHECK_EQ(f->synd, ORCA_SYND_LIMIT);
	/* QPNs stay in [2, max_qp + 2) and are not reused immediately */
	CHECK_EQ(destroy_qp(f, qpns[1]), 0);
	CHECK_EQ(create_qp(f, ORCA_QPT_RC), qpns[1]);	/* only free QPN */
	CHECK_EQ(destroy_qp(f, qpns[0]), 0);
	CHECK_EQ(destroy_qp(f, qpns[3]), 0);
	CHECK_EQ(create_qp(f, ORCA_QPT_RC), qpns[3]);	/* round robin */
	CHECK_EQ(create_qp(f, ORCA_QPT_RC), qpns[0]);
	fx_free(f);
}

static void in_use(void)
{
	struct fx *f = fx_up();
	struct orca_pd_handle pd = { .pdn = htole32(f->pdn) };
	struct orca_cq_handle cq = { .cqn = htole32(f->cqn) };
	struct orca_create_cq_in ci = { .cqe = htole32(4) };
	struct orca_create_cq_out co;
	struct orca_create_qp_in in = qp_in(f, ORCA_QPT_RC);
	struct orca_cq_handle cq2;
	uint32_t qpn, qpn2;

	CHECK_EQ(fx_cmd(f, ORCA_CMD_CREATE_CQ, &ci, sizeof(ci), &co,
			sizeof(co)), 0);
	cq2.cqn = co.cqn;
	cq2.reserved = 0;
	in.recv_cqn = co.cqn;		/* send CQ 1, recv CQ 2 */
	qpn = create_qp_in(f, &in, NULL);
	qpn2 = create_qp(f, ORCA_QPT_UD);
	CHECK(qpn && qpn2);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_DEALLOC_PD, &pd, sizeof(pd), NULL, 0),
		    ORCA_STATUS_BAD_RES_STATE, ORCA_SYND_IN_USE);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_DESTROY_CQ, &cq, sizeof(cq), NULL, 0),
		    ORCA_STATUS_BAD_RES_STATE, ORCA_SYND_IN_USE);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_DESTROY_CQ, &cq2, sizeof(cq2), NULL, 0),
		    ORCA_STATUS_BAD_RES_STATE, ORCA_SYND_IN_USE);
	CHECK_EQ(destroy_qp(f, qpn), 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_DESTROY_CQ, &cq2, sizeof(cq2), NULL, 0), 0);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_DESTROY_CQ, &cq, sizeof(cq), NULL, 0),
		    ORCA_STATUS_BAD_RES_STATE, ORCA_SYND_IN_USE);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_DEALLOC_PD, &pd, sizeof(pd), NULL, 0),
		    ORCA_STATUS_BAD_RES_STATE, ORCA_SYND_IN_USE);
	CHECK_EQ(destroy_qp(f, qpn2), 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_DESTROY_CQ, &cq, sizeof(cq), NULL, 0), 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_DEALLOC_PD, &pd, sizeof(pd), NULL, 0), 0);
	fx_free(f);
}

/* reuse-handles: the lowest free number at once, as a free list would. */
static void handle_reuse(void)
{
	struct fx *f = fx_up();
	struct orca_pd_handle a, b, c;

	CHECK_EQ(fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, &a, sizeof(a)), 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_DEALLOC_PD, &a, sizeof(a), NULL, 0), 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, &b, sizeof(b)), 0);
	CHECK(b.pdn != a.pdn);		/* round robin by default */
	f->dev.reuse_handles = true;
	CHECK_EQ(fx_cmd(f, ORCA_CMD_DEALLOC_PD, &b, sizeof(b), NULL, 0), 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, &c, sizeof(c)), 0);
	CHECK_EQ(le32toh(c.pdn), f->pdn + 1);	/* the lowest free one */
	fx_free(f);
}

static void pci_write_end_padding(void)
{
	struct fx *f = fx_up();
	struct orca_create_qp_in in = qp_in(f, ORCA_QPT_UD);
	struct orca_qp_ctx c;
	struct orca_caps caps;

	in.create_flags = htole32(ORCA_QP_CREATE_PCI_WRITE_END_PADDING);
	CHECK(create_qp_in(f, &in, &c));
	CHECK_EQ(le32toh(c.create_flags), ORCA_QP_CREATE_PCI_WRITE_END_PADDING);
	CHECK_EQ(query_qp(f, le32toh(c.qpn), &c), 0);
	CHECK_EQ(le32toh(c.create_flags), ORCA_QP_CREATE_PCI_WRITE_END_PADDING);
	fx_free(f);
	{
		const char *const off[] = { "pci_write_end_padding=0", NULL };

		f = fx_up_cfg(off);
		CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &caps,
				sizeof(caps)), 0);
		CHECK(!(le32toh(caps.dev_caps) &
			ORCA_DEV_CAP_PCI_WRITE_END_PADDING));
		in = qp_in(f, ORCA_QPT_RC);
		in.create_flags = htole32(ORCA_QP_CREATE_PCI_WRITE_END_PADDING);
		CHECK_EQ(create_qp_in(f, &in, NULL), 0);
		CHECK_EQ(f->status, ORCA_STATUS_UNSUPPORTED);
		CHECK_EQ(f->synd, ORCA_SYND_FLAGS);
		CHECK_EQ(f->dev.n_qps, 0);
		fx_free(f);
	}
}

int main(int argc, char **argv)
{
	/* the device logs every rejected command: keep TAP output readable */
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();

	RUN(pd_cq_happy);
	RUN(qp_create_query_destroy);
	RUN(qp_create_checks);
	RUN(limits);
	RUN(in_use);
	RUN(handle_reuse);
	RUN(pci_write_end_padding);
	return tap_done();
}
