// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the device model core: the QP state machine.  Every
 * transition out of every state for RC, UC and UD against the IBTA
 * modify-QP table (qp_fixture.h's rule_for()): required attributes
 * missing, attributes not allowed, CUR_STATE, the mirror after each
 * change; then MODIFY_QP's details: attribute ranges, CUR_STATE, RESET
 * clearing the attributes, attributes applied by mask, ECE negotiation.
 */
#include <string.h>

#include "orca_log.h"
#include "qp_fixture.h"

/* All transitions out of one state for one QP type. */
static void state_machine_from(uint8_t type, int from)
{
	struct fx *f = fx_up();
	uint32_t neg_qpn;
	int to, bit;

	if (type == ORCA_QPT_RC && from == ORCA_QPS_SQE) {
		/* RC never enters SQE; the hook refuses it */
		char err[128];
		uint32_t qpn = qp_in_state(f, type, ORCA_QPS_RTS);

		CHECK(orca_dev_hook_sq_error(&f->dev, qpn, err, sizeof(err)));
		CHECK_EQ(qp_state(f, qpn), ORCA_QPS_RTS);
		fx_free(f);
		return;
	}

	/* Failing modifies do not change the QP: one QP for all of them. */
	neg_qpn = qp_in_state(f, type, from);
	CHECK(neg_qpn);
	CHECK_EQ(qp_state(f, neg_qpn), from);
	for (to = ORCA_QPS_RESET; to <= ORCA_QPS_ERR; to++) {
		struct rule r = rule_for(type, from, to);

		if (!r.valid) {
			EXPECT_FAIL(f, modify(f, neg_qpn, ORCA_QP_STATE, to),
				    ORCA_STATUS_BAD_QP_STATE,
				    ORCA_SYND_TRANSITION);
			continue;
		}
		for (bit = 0; bit < 21; bit++) {
			uint32_t b = 1U << bit;

			if (b == ORCA_QP_STATE)
				continue;
			if (r.req & b)
				EXPECT_FAIL(f, modify(f, neg_qpn,
						      ORCA_QP_STATE | (r.req & ~b),
						      to),
					    ORCA_STATUS_BAD_PARAM,
					    ORCA_SYND_MISSING_ATTR);
			else if (!(r.opt & b) && b != ORCA_QP_CUR_STATE)
				EXPECT_FAIL(f, modify(f, neg_qpn,
						      ORCA_QP_STATE | r.req | b,
						      to),
					    ORCA_STATUS_BAD_PARAM,
					    ORCA_SYND_INVALID_ATTR);
		}
		/* CUR_STATE is only an option out of RTR/RTS/SQD/SQE */
		if (!(r.opt & ORCA_QP_CUR_STATE)) {
			struct orca_qp_ctx a;

			fill_attrs(&a);
			EXPECT_FAIL(f, modify_full(f, neg_qpn, ORCA_QP_STATE |
						   ORCA_QP_CUR_STATE | r.req,
						   &a, to, from, 0, 0, NULL),
				    ORCA_STATUS_BAD_PARAM,
				    ORCA_SYND_INVALID_ATTR);
		}
	}
	CHECK_EQ(qp_state(f, neg_qpn), from);
	CHECK_EQ(destroy_qp(f, neg_qpn), 0);

	/* Every valid transition: required only, then required + optional. */
	for (to = ORCA_QPS_RESET; to <= ORCA_QPS_ERR; to++) {
		struct rule r = rule_for(type, from, to);
		int variant;

		if (!r.valid)
			continue;
		for (variant = 0; variant < 2; variant++) {
			uint32_t mask = ORCA_QP_STATE | r.req |
					(variant ? r.opt : 0);
			struct orca_qp_ctx a, out;
			uint32_t qpn = qp_in_state(f, type, from);
			const struct orca_qp_mirror *m = mirror(f, qpn);
			uint32_t seq0 = le32toh(m->seq);

			fill_attrs(&a);
			CHECK(qpn);
			CHECK_EQ(modify_full(f, qpn, mask, &a, to, from, 0, 0,
					     &out), 0);
			CHECK_EQ(out.state, to);
			CHECK_EQ(qp_state(f, qpn), to);
			CHECK_EQ(m->state, to);
			CHECK_EQ(le32toh(m->seq), seq0 + 2);
			CHECK_EQ(le32toh(m->qpn), qpn);
			if (to == ORCA_QPS_RESET) {
				CHECK_EQ(out.port, 0);
				CHECK_EQ(le32toh(out.dest_qpn), 0);
				CHECK_EQ(le32toh(out.sq_psn), 0);
			}
			if ((mask & ORCA_QP_DEST_QPN) && to != ORCA_QPS_RESET)
				CHECK_EQ(le32toh(out.dest_qpn), 0x33);
			if ((mask & ORCA_QP_SQ_PSN) && to != ORCA_QPS_RESET)
				CHECK_EQ(le32toh(out.sq_psn), 0x200);
			CHECK_EQ(destroy_qp(f, qpn), 0);
		}
	}
	/* Staying in the state without ORCA_QP_STATE follows the same row. */
	if (rule_for(type, from, from).valid &&
	    !rule_for(type, from, from).req) {
		uint32_t qpn = qp_in_state(f, type, from);

		CHECK_EQ(modify(f, qpn, rule_for(type, from, from).opt &
				~ORCA_QP_CUR_STATE, from), 0);
		CHECK_EQ(qp_state(f, qpn), from);
		CHECK_EQ(destroy_qp(f, qpn), 0);
	} else if (from != ORCA_QPS_RESET) {
		EXPECT_FAIL(f, modify(f, neg_qpn = qp_in_state(f, type, from),
				      0, 0),
			    ORCA_STATUS_BAD_QP_STATE, ORCA_SYND_TRANSITION);
		CHECK_EQ(destroy_qp(f, neg_qpn), 0);
	}
	fx_free(f);
}

#define SM_TESTS(T, t)							\
	static void t##_from_reset(void) { state_machine_from(T, ORCA_QPS_RESET); } \
	static void t##_from_init(void) { state_machine_from(T, ORCA_QPS_INIT); } \
	static void t##_from_rtr(void) { state_machine_from(T, ORCA_QPS_RTR); } \
	static void t##_from_rts(void) { state_machine_from(T, ORCA_QPS_RTS); } \
	static void t##_from_sqd(void) { state_machine_from(T, ORCA_QPS_SQD); } \
	static void t##_from_sqe(void) { state_machine_from(T, ORCA_QPS_SQE); } \
	static void t##_from_err(void) { state_machine_from(T, ORCA_QPS_ERR); }

SM_TESTS(ORCA_QPT_RC, sm_rc)
SM_TESTS(ORCA_QPT_UC, sm_uc)
SM_TESTS(ORCA_QPT_UD, sm_ud)

/* ------------------------------------------------------------------ */
/* MODIFY_QP details                                                  */
/* ------------------------------------------------------------------ */

static void modify_ranges(void)
{
	struct fx *f = fx_up();
	uint32_t rc_init = qp_in_state(f, ORCA_QPT_RC, ORCA_QPS_INIT);
	uint32_t rc_rtr = qp_in_state(f, ORCA_QPT_RC, ORCA_QPS_RTR);
	uint32_t rc_reset = create_qp(f, ORCA_QPT_RC);
	const uint32_t to_init = ORCA_QP_STATE | ORCA_QP_PKEY_INDEX |
				 ORCA_QP_PORT | ORCA_QP_ACCESS_FLAGS;
	const uint32_t to_rtr = ORCA_QP_STATE |
				rule_for(ORCA_QPT_RC, ORCA_QPS_INIT,
					 ORCA_QPS_RTR).req;
	const uint32_t to_rts = ORCA_QP_STATE |
				rule_for(ORCA_QPT_RC, ORCA_QPS_RTR,
					 ORCA_QPS_RTS).req;
	struct orca_qp_ctx a;

#define RANGE_FAILS(qpn, mask, state, stmt)				\
	do {								\
		fill_attrs(&a);						\
		stmt;							\
		EXPECT_FAIL(f, modify_full(f, qpn, mask, &a, state, 0, 0, 0, \
					   NULL),			\
			    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE); \
	} while (0)

	RANGE_FAILS(rc_reset, to_init, ORCA_QPS_INIT, a.port = 0);
	RANGE_FAILS(rc_reset, to_init, ORCA_QPS_INIT, a.port = 2);
	/* one past the table (64 entries by default) */
	RANGE_FAILS(rc_reset, to_init, ORCA_QPS_INIT,
		    a.pkey_index = htole16(f->cfg.pkey_tbl_len));
	RANGE_FAILS(rc_reset, to_init, ORCA_QPS_INIT,
		    a.access_flags = htole32(1U << 0));
	RANGE_FAILS(rc_reset, to_init, ORCA_QPS_INIT,
		    a.access_flags = htole32(1U << 4));
	RANGE_FAILS(rc_init, to_rtr, ORCA_QPS_RTR, a.path_mtu = 0);
	RANGE_FAILS(rc_init, to_rtr, ORCA_QPS_RTR, a.path_mtu = 6);
	RANGE_FAILS(rc_init, to_rtr, ORCA_QPS_RTR, a.rq_psn = htole32(0x1000000));
	RANGE_FAILS(rc_init, to_rtr, ORCA_QPS_RTR,
		    a.dest_qpn = htole32(0x1000000));
	RANGE_FAILS(rc_init, to_rtr, ORCA_QPS_RTR, a.max_dest_rd_atomic = 17);
	RANGE_FAILS(rc_init, to_rtr, ORCA_QPS_RTR, a.min_rnr_timer = 32);
	RANGE_FAILS(rc_init, to_rtr, ORCA_QPS_RTR, a.av.sl = 16);
	RANGE_FAILS(rc_init, to_rtr, ORCA_QPS_RTR, a.av.port = 2);
	RANGE_FAILS(rc_init, to_rtr, ORCA_QPS_RTR, a.av.flags = 0x2);
	RANGE_FAILS(rc_init, to_rtr, ORCA_QPS_RTR,
		    a.av.flow_label = htole32(0x100000));
	RANGE_FAILS(rc_init, to_rtr, ORCA_QPS_RTR,
		    (a.av.flags = ORCA_AV_F_GRH, a.av.sgid_index = 1));
	RANGE_FAILS(rc_init, to_rtr | ORCA_QP_ALT_PATH, ORCA_QPS_RTR,
		    a.alt_av.timeout = 32);
	RANGE_FAILS(rc_init, to_rtr | ORCA_QP_ALT_PATH, ORCA_QPS_RTR,
		    a.alt_av.pkey_index = f->cfg.pkey_tbl_len);
	RANGE_FAILS(rc_init, to_rtr | ORCA_QP_ALT_PATH, ORCA_QPS_RTR,
		    a.alt_av.sl = 16);
	RANGE_FAILS(rc_rtr, to_rts, ORCA_QPS_RTS, a.timeout = 32);
	RANGE_FAILS(rc_rtr, to_rts, ORCA_QPS_RTS, a.retry_cnt = 8);
	RANGE_FAILS(rc_rtr, to_rts, ORCA_QPS_RTS, a.rnr_retry = 8);
	RANGE_FAILS(rc_rtr, to_rts, ORCA_QPS_RTS, a.sq_psn = htole32(0x1000000));
	RANGE_FAILS(rc_rtr, to_rts, ORCA_QPS_RTS, a.max_rd_atomic = 17);
	RANGE_FAILS(rc_rtr, to_rts | ORCA_QP_PATH_MIG_STATE, ORCA_QPS_RTS,
		    a.path_mig_state = 3);
	/* boundary values are accepted */
	fill_attrs(&a);
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 31;
	a.rq_psn = htole32(0xffffff);
	a.dest_qpn = htole32(0xffffff);
	a.path_mtu = 5;
	a.av.sl = 15;
	a.av.port = 0;		/* = the QP's port */
	a.av.flags = ORCA_AV_F_GRH;
	a.av.flow_label = htole32(0xfffff);
	CHECK_EQ(modify_full(f, rc_init, to_rtr, &a, ORCA_QPS_RTR, 0, 0, 0,
			     NULL), 0);
	/* state values beyond ERR */
	EXPECT_FAIL(f, modify(f, rc_rtr, ORCA_QP_STATE, 7),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	/* unknown mask bits and flags */
	EXPECT_FAIL(f, modify(f, rc_rtr, ORCA_QP_STATE | (1U << 21),
			      ORCA_QPS_RTS),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_INVALID_ATTR);
	fill_attrs(&a);
	EXPECT_FAIL(f, modify_full(f, rc_rtr, to_rts, &a, ORCA_QPS_RTS, 0, 0x2,
				   0, NULL),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS);
	a.reserved[5] = 1;
	EXPECT_FAIL(f, modify_full(f, rc_rtr, to_rts, &a, ORCA_QPS_RTS, 0, 0,
				   0, NULL),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_RESERVED_NZ);
	EXPECT_FAIL(f, modify(f, 999, ORCA_QP_STATE, ORCA_QPS_ERR),
		    ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE);
	/* none of that changed the QPs */
	CHECK_EQ(qp_state(f, rc_rtr), ORCA_QPS_RTR);
	CHECK_EQ(qp_state(f, rc_reset), ORCA_QPS_RESET);
	fx_free(f);
#undef RANGE_FAILS
}

static void cur_state_check(void)
{
	struct fx *f = fx_up();
	uint32_t qpn = qp_in_state(f, ORCA_QPT_RC, ORCA_QPS_RTS);
	struct orca_qp_ctx a;

	fill_attrs(&a);
	EXPECT_FAIL(f, modify_full(f, qpn, ORCA_QP_STATE | ORCA_QP_CUR_STATE,
				   &a, ORCA_QPS_RTS, ORCA_QPS_RTR, 0, 0, NULL),
		    ORCA_STATUS_BAD_QP_STATE, ORCA_SYND_TRANSITION);
	EXPECT_FAIL(f, modify_full(f, qpn, ORCA_QP_CUR_STATE, &a, 0, 9, 0, 0,
				   NULL),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	CHECK_EQ(modify_full(f, qpn, ORCA_QP_STATE | ORCA_QP_CUR_STATE, &a,
			     ORCA_QPS_RTS, ORCA_QPS_RTS, 0, 0, NULL), 0);
	CHECK_EQ(modify_full(f, qpn, ORCA_QP_CUR_STATE | ORCA_QP_MIN_RNR_TIMER,
			     &a, 0, ORCA_QPS_RTS, 0, 0, NULL), 0);
	fx_free(f);
}

static void reset_clears_attributes(void)
{
	struct fx *f = fx_up();
	struct orca_create_qp_in in = qp_in(f, ORCA_QPT_RC);
	struct orca_qp_ctx created, now;
	uint32_t qpn;

	in.create_flags = htole32(ORCA_QP_CREATE_PCI_WRITE_END_PADDING);
	qpn = create_qp_in(f, &in, &created);
	CHECK(qpn);
	CHECK_EQ(modify(f, qpn, ORCA_QP_STATE | ORCA_QP_PKEY_INDEX |
			ORCA_QP_PORT | ORCA_QP_ACCESS_FLAGS, ORCA_QPS_INIT), 0);
	CHECK_EQ(modify(f, qpn, ORCA_QP_STATE |
			rule_for(ORCA_QPT_RC, ORCA_QPS_INIT, ORCA_QPS_RTR).req,
			ORCA_QPS_RTR), 0);
	CHECK_EQ(modify_full(f, qpn, ORCA_QP_STATE, NULL, ORCA_QPS_RESET, 0, 0,
			     0, &now), 0);
	CHECK(!memcmp(&created, &now, sizeof(now)));
	CHECK_EQ(query_qp(f, qpn, &now), 0);
	CHECK_EQ(now.state, ORCA_QPS_RESET);
	CHECK_EQ(now.port, 0);
	CHECK_EQ(le32toh(now.access_flags), 0);
	CHECK_EQ(le16toh(now.av.dlid), 0);
	CHECK_EQ(le32toh(now.max_send_wr), 16);	/* caps survive */
	CHECK_EQ(le32toh(now.create_flags), ORCA_QP_CREATE_PCI_WRITE_END_PADDING);
	/* and the QP can be brought up again */
	CHECK_EQ(modify(f, qpn, ORCA_QP_STATE | ORCA_QP_PKEY_INDEX |
			ORCA_QP_PORT | ORCA_QP_ACCESS_FLAGS, ORCA_QPS_INIT), 0);
	fx_free(f);
}

static void attributes_applied(void)
{
	struct fx *f = fx_up();
	uint32_t qpn = qp_in_state(f, ORCA_QPT_RC, ORCA_QPS_RTS);
	struct orca_qp_ctx q, a;

	CHECK_EQ(query_qp(f, qpn, &q), 0);
	fill_attrs(&a);
	CHECK_EQ(q.port, 1);
	CHECK_EQ(le32toh(q.qkey), 0);		/* not an RC attribute */
	CHECK_EQ(le32toh(q.access_flags), le32toh(a.access_flags));
	CHECK(!memcmp(&q.av, &a.av, sizeof(a.av)));
	CHECK_EQ(q.path_mtu, 3);
	CHECK_EQ(q.timeout, 14);
	CHECK_EQ(q.retry_cnt, 7);
	CHECK_EQ(q.rnr_retry, 7);
	CHECK_EQ(le32toh(q.rq_psn), 0x100);
	CHECK_EQ(le32toh(q.sq_psn), 0x200);
	CHECK_EQ(q.max_rd_atomic, 4);
	CHECK_EQ(q.max_dest_rd_atomic, 4);
	CHECK_EQ(q.min_rnr_timer, 12);
	CHECK_EQ(le32toh(q.dest_qpn), 0x33);
	/* RTS->RTS changes only what the mask selects */
	a.min_rnr_timer = 5;
	a.timeout = 1;			/* not selected */
	CHECK_EQ(modify_full(f, qpn, ORCA_QP_MIN_RNR_TIMER, &a, 0, 0, 0, 0,
			     &q), 0);
	CHECK_EQ(q.min_rnr_timer, 5);
	CHECK_EQ(q.timeout, 14);
	CHECK_EQ(q.state, ORCA_QPS_RTS);
	/* alternate path + migration state */
	a.path_mig_state = ORCA_MIG_REARM;
	CHECK_EQ(modify_full(f, qpn, ORCA_QP_ALT_PATH | ORCA_QP_PATH_MIG_STATE,
			     &a, 0, 0, 0, 0, &q), 0);
	CHECK_EQ(q.path_mig_state, ORCA_MIG_REARM);
	CHECK_EQ(mirror(f, qpn)->path_mig_state, ORCA_MIG_REARM);
	CHECK_EQ(q.alt_av.timeout, 14);
	fx_free(f);
}

static void ece_negotiation(void)
{
	const char *const sets[] = { "ece_options=0x5", NULL };
	struct fx *f = fx_up_cfg(sets);
	uint32_t qpn = create_qp(f, ORCA_QPT_RC);
	struct orca_qp_ctx a, out;
	const uint32_t to_rtr = ORCA_QP_STATE |
				rule_for(ORCA_QPT_RC, ORCA_QPS_INIT,
					 ORCA_QPS_RTR).req;
	const uint32_t to_rts = ORCA_QP_STATE |
				rule_for(ORCA_QPT_RC, ORCA_QPS_RTR,
					 ORCA_QPS_RTS).req;

	fill_attrs(&a);
	/* RESET->INIT: the flag is ignored, the default (supported) stays */
	CHECK_EQ(modify_full(f, qpn, ORCA_QP_STATE | ORCA_QP_PKEY_INDEX |
			     ORCA_QP_PORT | ORCA_QP_ACCESS_FLAGS, &a,
			     ORCA_QPS_INIT, 0, ORCA_MODIFY_F_ECE, 0, &out), 0);
	CHECK_EQ(le32toh(out.ece_options), 0x5);
	/* INIT->RTR: unsupported bits dropped */
	CHECK_EQ(modify_full(f, qpn, to_rtr, &a, ORCA_QPS_RTR, 0,
			     ORCA_MODIFY_F_ECE, 0xf, &out), 0);
	CHECK_EQ(le32toh(out.ece_options), 0x5);
	/* RTR->RTS: renegotiated (narrowed) */
	CHECK_EQ(modify_full(f, qpn, to_rts, &a, ORCA_QPS_RTS, 0,
			     ORCA_MODIFY_F_ECE, 0x4, &out), 0);
	CHECK_EQ(le32toh(out.ece_options), 0x4);
	/* RTS->RTS: ignored */
	CHECK_EQ(modify_full(f, qpn, 0, &a, 0, 0, ORCA_MODIFY_F_ECE, 0x1,
			     &out), 0);
	CHECK_EQ(le32toh(out.ece_options), 0x4);
	/* without the flag nothing changes either */
	CHECK_EQ(query_qp(f, qpn, &out), 0);
	CHECK_EQ(le32toh(out.ece_options), 0x4);
	/* RESET restores the default offer */
	CHECK_EQ(modify_full(f, qpn, ORCA_QP_STATE, &a, ORCA_QPS_RESET, 0, 0, 0,
			     &out), 0);
	CHECK_EQ(le32toh(out.ece_options), 0x5);
	fx_free(f);

	/* ECE disabled */
	{
		const char *const off[] = { "ece=0", NULL };
		struct orca_caps caps;

		f = fx_up_cfg(off);
		CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &caps,
				sizeof(caps)), 0);
		CHECK_EQ(le32toh(caps.ece_vendor_id), 0);
		CHECK_EQ(le32toh(caps.ece_options), 0);
		CHECK(!(le32toh(caps.dev_caps) & ORCA_DEV_CAP_ECE));
		qpn = create_qp(f, ORCA_QPT_RC);
		CHECK_EQ(query_qp(f, qpn, &out), 0);
		CHECK_EQ(le32toh(out.ece_options), 0);
		EXPECT_FAIL(f, modify_full(f, qpn, ORCA_QP_STATE |
					   ORCA_QP_PKEY_INDEX | ORCA_QP_PORT |
					   ORCA_QP_ACCESS_FLAGS, &a,
					   ORCA_QPS_INIT, 0, ORCA_MODIFY_F_ECE,
					   1, NULL),
			    ORCA_STATUS_UNSUPPORTED, ORCA_SYND_ECE);
		CHECK_EQ(qp_state(f, qpn), ORCA_QPS_RESET);
		fx_free(f);
	}
}

int main(int argc, char **argv)
{
	/* the device logs every rejected command: keep TAP output readable */
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();

	RUN(sm_rc_from_reset);
	RUN(sm_rc_from_init);
	RUN(sm_rc_from_rtr);
	RUN(sm_rc_from_rts);
	RUN(sm_rc_from_sqd);
	RUN(sm_rc_from_sqe);
	RUN(sm_rc_from_err);
	RUN(sm_uc_from_reset);
	RUN(sm_uc_from_init);
	RUN(sm_uc_from_rtr);
	RUN(sm_uc_from_rts);
	RUN(sm_uc_from_sqd);
	RUN(sm_uc_from_sqe);
	RUN(sm_uc_from_err);
	RUN(sm_ud_from_reset);
	RUN(sm_ud_from_init);
	RUN(sm_ud_from_rtr);
	RUN(sm_ud_from_rts);
	RUN(sm_ud_from_sqd);
	RUN(sm_ud_from_sqe);
	RUN(sm_ud_from_err);
	RUN(modify_ranges);
	RUN(cur_state_check);
	RUN(reset_clears_attributes);
	RUN(attributes_applied);
	RUN(ece_negotiation);
	return tap_done();
}
