// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the orca device model core.
 *
 * The device is linked with a fake "guest RAM" buffer surrounded by canary
 * bytes and driven exactly like the ivshmem glue drives it: the test plays
 * the driver (writes command queue entries and mailboxes into fake RAM,
 * publishes cmdq_pi, calls orca_dev_doorbell()) and reads EQEs and the QP
 * mirror back from fake RAM.
 */
#include <endian.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "orca_dev.h"
#include "orca_log.h"
#include "ctl.h"
#include "tap.h"

#include "fixture.h"

/* ------------------------------------------------------------------ */
/* Object helpers                                                     */
/* ------------------------------------------------------------------ */

static struct orca_create_qp_in qp_in(struct fx *f, uint8_t type)
{
	struct orca_create_qp_in in;

	memset(&in, 0, sizeof(in));
	in.qp_type = type;
	in.pdn = htole32(f->pdn);
	in.send_cqn = htole32(f->cqn);
	in.recv_cqn = htole32(f->cqn);
	in.max_send_wr = htole32(16);
	in.max_recv_wr = htole32(16);
	in.max_send_sge = htole32(1);
	in.max_recv_sge = htole32(1);
	return in;
}

static uint32_t create_qp_in(struct fx *f, struct orca_create_qp_in *in,
			     struct orca_qp_ctx *out)
{
	struct orca_qp_ctx ctx;

	if (fx_cmd(f, ORCA_CMD_CREATE_QP, in, sizeof(*in), &ctx, sizeof(ctx)))
		return 0;
	if (out)
		*out = ctx;
	return le32toh(ctx.qpn);
}

static uint32_t create_qp(struct fx *f, uint8_t type)
{
	struct orca_create_qp_in in = qp_in(f, type);

	return create_qp_in(f, &in, NULL);
}

static int query_qp(struct fx *f, uint32_t qpn, struct orca_qp_ctx *ctx)
{
	struct orca_qp_handle h = { .qpn = htole32(qpn) };

	return fx_cmd(f, ORCA_CMD_QUERY_QP, &h, sizeof(h), ctx, sizeof(*ctx));
}

static int destroy_qp(struct fx *f, uint32_t qpn)
{
	struct orca_qp_handle h = { .qpn = htole32(qpn) };

	return fx_cmd(f, ORCA_CMD_DESTROY_QP, &h, sizeof(h), NULL, 0);
}

static int qp_state(struct fx *f, uint32_t qpn)
{
	struct orca_qp_ctx ctx;

	if (query_qp(f, qpn, &ctx))
		return -1;
	return ctx.state;
}

/* Valid values for every attribute. */
static void fill_attrs(struct orca_qp_ctx *a)
{
	memset(a, 0, sizeof(*a));
	a->en_sqd_async_notify = 1;
	a->access_flags = htole32(ORCA_ACCESS_REMOTE_WRITE |
				  ORCA_ACCESS_REMOTE_READ);
	a->pkey_index = htole16(0);
	a->port = 1;
	a->qkey = htole32(0x11111111);
	a->av.port = 1;
	a->av.dlid = htole16(0x12);
	a->av.sl = 3;
	a->path_mtu = 3;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->rq_psn = htole32(0x100);
	a->max_rd_atomic = 4;
	a->alt_av.port = 1;
	a->alt_av.dlid = htole16(0x13);
	a->alt_av.timeout = 14;
	a->min_rnr_timer = 12;
	a->sq_psn = htole32(0x200);
	a->max_dest_rd_atomic = 4;
	a->path_mig_state = ORCA_MIG_MIGRATED;
	a->dest_qpn = htole32(0x33);
}

static int modify_full(struct fx *f, uint32_t qpn, uint32_t mask,
		       const struct orca_qp_ctx *attrs, uint8_t state,
		       uint8_t cur, uint32_t flags, uint32_t ece,
		       struct orca_qp_ctx *out)
{
	struct orca_modify_qp_in in;
	struct orca_qp_ctx res;

	memset(&in, 0, sizeof(in));
	in.qpn = htole32(qpn);
	in.attr_mask = htole32(mask);
	in.cur_state = cur;
	in.flags = htole32(flags);
	in.ece_options = htole32(ece);
	if (attrs)
		in.ctx = *attrs;
	in.ctx.state = state;
	return fx_cmd(f, ORCA_CMD_MODIFY_QP, &in, sizeof(in),
		      out ? out : &res, sizeof(res));
}

static int modify(struct fx *f, uint32_t qpn, uint32_t mask, uint8_t state)
{
	struct orca_qp_ctx a;

	fill_attrs(&a);
	return modify_full(f, qpn, mask, &a, state, 0, 0, 0, NULL);
}

static const struct orca_qp_mirror *mirror(struct fx *f, uint32_t qpn)
{
	return (const struct orca_qp_mirror *)(f->ram + MIRROR_BASE +
					       qpn * sizeof(struct orca_qp_mirror));
}

/* ------------------------------------------------------------------ */
/* The IBTA modify-QP rules, written down a second time for the tests */
/* ------------------------------------------------------------------ */

enum { RC, UC, UD };

struct rule {
	bool valid;
	uint32_t req, opt;
};

static int tix(uint8_t type)
{
	return type == ORCA_QPT_RC ? RC : type == ORCA_QPT_UC ? UC : UD;
}

static struct rule rule_for(uint8_t type, int from, int to)
{
	const int t = tix(type);
	struct rule r = { false, 0, 0 };
	const uint32_t conn_rts = ORCA_QP_CUR_STATE | ORCA_QP_ACCESS_FLAGS |
				  ORCA_QP_ALT_PATH | ORCA_QP_PATH_MIG_STATE;

	/* RESET from anywhere; ERR from anywhere but RESET */
	if (to == ORCA_QPS_RESET || (to == ORCA_QPS_ERR &&
				     from != ORCA_QPS_RESET)) {
		r.valid = true;
		return r;
	}
	switch (from * 8 + to) {
	case ORCA_QPS_RESET * 8 + ORCA_QPS_INIT:
		r.valid = true;
		r.req = ORCA_QP_PKEY_INDEX | ORCA_QP_PORT |
			(t == UD ? ORCA_QP_QKEY : ORCA_QP_ACCESS_FLAGS);
		break;
	case ORCA_QPS_INIT * 8 + ORCA_QPS_INIT:
		r.valid = true;
		r.opt = ORCA_QP_PKEY_INDEX | ORCA_QP_PORT |
			(t == UD ? ORCA_QP_QKEY : ORCA_QP_ACCESS_FLAGS);
		break;
	case ORCA_QPS_INIT * 8 + ORCA_QPS_RTR:
		r.valid = true;
		if (t != UD)
			r.req = ORCA_QP_AV | ORCA_QP_PATH_MTU |
				ORCA_QP_DEST_QPN | ORCA_QP_RQ_PSN;
		if (t == RC)
			r.req |= ORCA_QP_MAX_DEST_RD_ATOMIC |
				 ORCA_QP_MIN_RNR_TIMER;
		r.opt = ORCA_QP_PKEY_INDEX |
			(t == UD ? ORCA_QP_QKEY :
				   ORCA_QP_ALT_PATH | ORCA_QP_ACCESS_FLAGS);
		break;
	case ORCA_QPS_RTR * 8 + ORCA_QPS_RTS:
		r.valid = true;
		r.req = ORCA_QP_SQ_PSN;
		if (t == RC)
			r.req |= ORCA_QP_TIMEOUT | ORCA_QP_RETRY_CNT |
				 ORCA_QP_RNR_RETRY | ORCA_QP_MAX_QP_RD_ATOMIC;
		r.opt = t == UD ? ORCA_QP_CUR_STATE | ORCA_QP_QKEY :
			t == UC ? conn_rts : conn_rts | ORCA_QP_MIN_RNR_TIMER;
		break;
	case ORCA_QPS_RTS * 8 + ORCA_QPS_RTS:
	case ORCA_QPS_SQD * 8 + ORCA_QPS_RTS:
		r.valid = true;
		r.opt = t == UD ? ORCA_QP_CUR_STATE | ORCA_QP_QKEY :
			t == UC ? conn_rts : conn_rts | ORCA_QP_MIN_RNR_TIMER;
		break;
	case ORCA_QPS_RTS * 8 + ORCA_QPS_SQD:
		r.valid = true;
		r.opt = ORCA_QP_EN_SQD_ASYNC_NOTIFY;
		break;
	case ORCA_QPS_SQD * 8 + ORCA_QPS_SQD:
		r.valid = true;
		if (t == UD)
			r.opt = ORCA_QP_PKEY_INDEX | ORCA_QP_QKEY;
		else if (t == UC)
			r.opt = ORCA_QP_AV | ORCA_QP_ALT_PATH |
				ORCA_QP_ACCESS_FLAGS | ORCA_QP_PKEY_INDEX |
				ORCA_QP_PATH_MIG_STATE;
		else
			r.opt = ORCA_QP_PORT | ORCA_QP_AV | ORCA_QP_TIMEOUT |
				ORCA_QP_RETRY_CNT | ORCA_QP_RNR_RETRY |
				ORCA_QP_MAX_QP_RD_ATOMIC |
				ORCA_QP_MAX_DEST_RD_ATOMIC | ORCA_QP_ALT_PATH |
				ORCA_QP_ACCESS_FLAGS | ORCA_QP_PKEY_INDEX |
				ORCA_QP_MIN_RNR_TIMER | ORCA_QP_PATH_MIG_STATE;
		break;
	case ORCA_QPS_SQE * 8 + ORCA_QPS_RTS:
		r.valid = true;
		r.opt = t == UD ? ORCA_QP_CUR_STATE | ORCA_QP_QKEY :
			t == UC ? ORCA_QP_CUR_STATE | ORCA_QP_ACCESS_FLAGS : 0;
		break;
	case ORCA_QPS_ERR * 8 + ORCA_QPS_ERR:
		r.valid = true;
		break;
	}
	return r;
}

/* Create a QP and walk it to @state with the required attributes. */
static uint32_t qp_in_state(struct fx *f, uint8_t type, int state)
{
	static const int path[] = { ORCA_QPS_INIT, ORCA_QPS_RTR, ORCA_QPS_RTS };
	uint32_t qpn = create_qp(f, type);
	int cur = ORCA_QPS_RESET;
	char err[128];
	unsigned int i;

	if (!qpn || state == ORCA_QPS_RESET)
		return qpn;
	for (i = 0; i < 3; i++) {
		if (modify(f, qpn, ORCA_QP_STATE |
			   rule_for(type, cur, path[i]).req, path[i]))
			return 0;
		cur = path[i];
		if (cur == state)
			return qpn;
		if (state == ORCA_QPS_ERR)
			return modify(f, qpn, ORCA_QP_STATE, ORCA_QPS_ERR) ?
			       0 : qpn;
	}
	if (state == ORCA_QPS_SQD) {
		if (modify(f, qpn, ORCA_QP_STATE, ORCA_QPS_SQD))
			return 0;
		orca_dev_tick(&f->dev);		/* drain */
		return qpn;
	}
	if (state == ORCA_QPS_SQE)
		return orca_dev_hook_sq_error(&f->dev, qpn, err, sizeof(err)) ?
		       0 : qpn;
	return 0;
}

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
/* Register block, bring-up, queries                                  */
/* ------------------------------------------------------------------ */

static void regs_and_bringup(void)
{
	struct fx *f = fx_new_cfg(NULL);

	CHECK_EQ(le64toh(f->regs->magic), ORCA_MAGIC);
	CHECK_EQ(le32toh(f->regs->if_version), ORCA_IF_VERSION);
	CHECK_EQ(le32toh(f->regs->fw_peer_id), 0);
	CHECK_EQ(le64toh(f->regs->fw_version), ORCA_FW_VERSION(1, 4, 7));
	CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_OK);
	CHECK_EQ(le64toh(f->regs->generation), 1);
	CHECK_EQ(le64toh(f->regs->ram_size), RAM_SIZE);
	CHECK(!strcmp((const char *)f->regs->fw_name, "orca-emu"));
	fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
	CHECK_EQ(f->status, 0);
	/* one entry consumed per command, one EQE per command */
	CHECK_EQ(le32toh(f->regs->cmdq_ci), 5);
	CHECK_EQ(le32toh(f->regs->eq_pi), 5);
	fx_free(f);
}

static void irq_only_after_init(void)
{
	struct fx *f = fx_new_cfg(NULL);
	struct orca_caps caps;
	struct orca_init_in init = { .flags = 0 };

	fx_program_queues(f, ORCA_EQ_LOG_DEPTH);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &caps, sizeof(caps)), 0);
	CHECK_EQ(f->irqs, 0);		/* polled: EQEs but no MSI-X */
	CHECK_EQ(fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0), 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &caps, sizeof(caps)), 0);
	CHECK_EQ(f->irqs, 0);		/* INIT without EQ_IRQ */
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	init.flags = htole32(ORCA_INIT_F_EQ_IRQ);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0), 0);
	CHECK_EQ(f->irqs, 0);		/* INIT's own completion: not yet armed */
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &caps, sizeof(caps)), 0);
	CHECK_EQ(f->irqs, 1);
	/* RESET issued while armed still signals its own completion */
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	CHECK_EQ(f->irqs, 2);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &caps, sizeof(caps)), 0);
	CHECK_EQ(f->irqs, 2);
	fx_free(f);
}

static void query_caps_defaults(void)
{
	struct fx *f = fx_up();
	struct orca_caps c;

	memset(&c, 0xee, sizeof(c));
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &c, sizeof(c)), 0);
	CHECK_EQ(f->out_len, sizeof(c));
	CHECK_EQ(le64toh(c.fw_version), ORCA_FW_VERSION(1, 4, 7));
	CHECK_EQ(le64toh(c.node_guid), 0x00ca7afffe000001ULL);
	CHECK_EQ(le64toh(c.sys_image_guid), 0x00ca7afffe000001ULL);
	CHECK_EQ(le64toh(c.max_mr_size), 1ULL << 40);
	CHECK_EQ(le64toh(c.page_size_cap), 0xfffff000ULL);
	CHECK_EQ(le32toh(c.vendor_id), 0x00ca7a);
	CHECK_EQ(le32toh(c.vendor_part_id), 1);
	CHECK_EQ(le32toh(c.hw_ver), 1);
	CHECK_EQ(le32toh(c.dev_caps),
		 ORCA_DEV_CAP_RC | ORCA_DEV_CAP_UC | ORCA_DEV_CAP_UD |
		 ORCA_DEV_CAP_BAD_PKEY_CNTR | ORCA_DEV_CAP_BAD_QKEY_CNTR |
		 ORCA_DEV_CAP_SYS_IMAGE_GUID | ORCA_DEV_CAP_RC_RNR_NAK_GEN |
		 ORCA_DEV_CAP_PORT_ACTIVE_EVENT |
		 ORCA_DEV_CAP_PCI_WRITE_END_PADDING | ORCA_DEV_CAP_ECE |
		 ORCA_DEV_CAP_SQD_ASYNC_NOTIFY |
		 ORCA_DEV_CAP_MEM_WINDOW | ORCA_DEV_CAP_MW_TYPE_2B);
	CHECK_EQ(le32toh(c.max_qp), 1024);
	CHECK_EQ(le32toh(c.max_qp_wr), 4096);
	CHECK_EQ(le32toh(c.max_send_sge), 16);
	CHECK_EQ(le32toh(c.max_recv_sge), 16);
	CHECK_EQ(le32toh(c.max_sge_rd), 16);
	CHECK_EQ(le32toh(c.max_cq), 1024);
	CHECK_EQ(le32toh(c.max_cqe), 65535);
	CHECK_EQ(le32toh(c.max_mr), 4096);
	CHECK_EQ(le32toh(c.max_pd), 256);
	CHECK_EQ(le32toh(c.max_qp_rd_atom), 16);
	CHECK_EQ(le32toh(c.max_qp_init_rd_atom), 16);
	CHECK_EQ(le32toh(c.max_res_rd_atom), 16 * 1024);
	CHECK_EQ(le32toh(c.max_mw), 4096);
	CHECK_EQ(le32toh(c.max_srq), 1024);
	CHECK_EQ(le32toh(c.max_srq_wr), 4096);
	CHECK_EQ(le32toh(c.max_srq_sge), 16);
	CHECK_EQ(le32toh(c.max_ah), 4096);
	CHECK_EQ(le32toh(c.max_mcast_grp), 0);
	CHECK_EQ(le32toh(c.max_inline_data), 256);
	CHECK_EQ(le16toh(c.max_pkeys), 1);
	CHECK_EQ(c.local_ca_ack_delay, 15);
	CHECK_EQ(c.phys_port_cnt, 1);
	CHECK_EQ(c.atomic_cap, ORCA_ATOMIC_HCA);
	CHECK_EQ(c.num_comp_vectors, 1);
	CHECK_EQ(c.dio_send, ORCA_DIO_WHOLE_MSG | ORCA_DIO_ALIGNED_128_BYTES);
	CHECK_EQ(c.dio_rdma_write, ORCA_DIO_WHOLE_MSG | ORCA_DIO_ALIGNED_128_BYTES);
	CHECK_EQ(c.dio_rdma_read, ORCA_DIO_ALIGNED_128_BYTES);
	CHECK_EQ(le32toh(c.ece_vendor_id), 0x00ca7a);
	CHECK_EQ(le32toh(c.ece_options), ORCA_ECE_OPT_ALL);
	CHECK_EQ(le64toh(c.hca_core_clock), 0);
	CHECK_EQ(le64toh(c.completion_timestamp_mask), 0);
	CHECK_EQ(le32toh(c.odp_general_caps), 0);
	CHECK_EQ(le32toh(c.max_tso), 0);
	CHECK(c.reserved0[0] == 0 && c.reserved1[0] == 0 &&
	      c.reserved2[0x3f] == 0);
	fx_free(f);
}

static void query_port(void)
{
	struct fx *f = fx_up();
	struct orca_query_port_in in = { .port = 1 };
	struct orca_port_attr p;

	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_PORT, &in, sizeof(in), &p,
			sizeof(p)), 0);
	CHECK_EQ(le64toh(p.subnet_prefix), 0xfe80000000000000ULL);
	CHECK_EQ(le64toh(p.port_guid), 0x00ca7afffe000002ULL);
	CHECK_EQ(le32toh(p.max_msg_sz), 0x80000000U);
	CHECK_EQ(le16toh(p.lid), 0x11);
	CHECK_EQ(le16toh(p.sm_lid), 1);
	CHECK_EQ(le16toh(p.gid_tbl_len), 1);
	CHECK_EQ(le16toh(p.pkey_tbl_len), 1);
	CHECK_EQ(le16toh(p.pkey), 0xffff);
	CHECK_EQ(p.state, ORCA_PORT_ACTIVE);
	CHECK_EQ(p.phys_state, 5);
	CHECK_EQ(p.max_mtu, 5);
	CHECK_EQ(p.active_mtu, 5);
	CHECK_EQ(p.active_width, 2);
	CHECK_EQ(p.active_speed, 32);
	CHECK_EQ(p.link_layer, ORCA_LINK_LAYER_IB);
	in.port = 0;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_QUERY_PORT, &in, sizeof(in), &p,
			      sizeof(p)),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	in.port = 2;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_QUERY_PORT, &in, sizeof(in), &p,
			      sizeof(p)),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	in.port = 1;
	in.reserved[3] = 1;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_QUERY_PORT, &in, sizeof(in), &p,
			      sizeof(p)),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_RESERVED_NZ);
	fx_free(f);
}

/* ------------------------------------------------------------------ */
/* PD / CQ / QP objects                                               */
/* ------------------------------------------------------------------ */

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
	ci.reserved[2] = 1;
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
	CREATE_FAILS(in.qp_type = 4, ORCA_STATUS_BAD_PARAM, ORCA_SYND_QP_TYPE);
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
	CREATE_FAILS(in.create_flags = htole32(2), ORCA_STATUS_BAD_PARAM,
		     ORCA_SYND_FLAGS);
	CREATE_FAILS(in.reserved0[1] = 1, ORCA_STATUS_BAD_PARAM,
		     ORCA_SYND_RESERVED_NZ);
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

static void not_ready_and_init_checks(void)
{
	struct fx *f = fx_new_cfg(NULL);
	struct orca_init_in init = { .flags = htole32(ORCA_INIT_F_EQ_IRQ) };
	struct orca_pd_handle pd;
	struct orca_qp_handle h = { .qpn = htole32(2) };
	struct orca_qp_ctx c;

	fx_program_queues(f, ORCA_EQ_LOG_DEPTH);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, &pd, sizeof(pd)),
		    ORCA_STATUS_NOT_READY, ORCA_SYND_NOT_INIT);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_QUERY_QP, &h, sizeof(h), &c,
			      sizeof(c)),
		    ORCA_STATUS_NOT_READY, ORCA_SYND_NOT_INIT);

	init.flags = htole32(0x2);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS);
	init.flags = 0;
	init.reserved = htole32(1);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_RESERVED_NZ);
	init.reserved = 0;
	/* mirror outside host memory, overflowing, misaligned */
	f->regs->qp_mirror_base = htole64(RAM_SIZE - 16);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0),
		    ORCA_STATUS_DMA_FAULT, ORCA_SYND_QUEUE_ADDR);
	f->regs->qp_mirror_base = htole64(~0ULL - 15);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0),
		    ORCA_STATUS_DMA_FAULT, ORCA_SYND_QUEUE_ADDR);
	f->regs->qp_mirror_base = htole64(MIRROR_BASE + 4);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0),
		    ORCA_STATUS_DMA_FAULT, ORCA_SYND_QUEUE_ADDR);
	f->regs->qp_mirror_base = htole64(MIRROR_BASE);
	f->regs->qp_mirror_entries = htole32(0x40000000);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0),
		    ORCA_STATUS_DMA_FAULT, ORCA_SYND_QUEUE_ADDR);
	f->regs->qp_mirror_entries = htole32(4);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0), 0);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0),
		    ORCA_STATUS_BAD_RES_STATE, ORCA_SYND_NONE);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, &pd, sizeof(pd)), 0);
	fx_free(f);
}

/* ------------------------------------------------------------------ */
/* Transport errors                                                   */
/* ------------------------------------------------------------------ */

/* Submit a raw entry and return its completion status. */
static int raw_cmd(struct fx *f, struct orca_cmdq_entry *e)
{
	struct orca_eqe eqe;

	e->token = htole16(f->next_token++);
	fx_put_entry(f, e);
	fx_ring(f);
	if (!fx_pop_cmd(f, &eqe))
		return 0xff;
	CHECK_EQ(eqe.cmd.token, e->token);
	f->synd = le32toh(eqe.cmd.syndrome);
	f->out_len = le16toh(eqe.cmd.out_len);
	return eqe.cmd.status;
}

static struct orca_cmdq_entry entry(uint16_t op, uint16_t in_len,
				    uint16_t out_len, uint64_t in_mbox,
				    uint64_t out_mbox)
{
	struct orca_cmdq_entry e;

	memset(&e, 0, sizeof(e));
	e.opcode = htole16(op);
	e.in_len = htole16(in_len);
	e.out_len = htole16(out_len);
	e.in_mbox = htole64(in_mbox);
	e.out_mbox = htole64(out_mbox);
	return e;
}

static void bad_opcode(void)
{
	struct fx *f = fx_up();
	static const uint16_t ops[] = { 0x00, 0x09, 0x12, 0x34, 0x7f, 0xff,
					0x100, 0xffff };
	unsigned int i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct orca_cmdq_entry e = entry(ops[i], 0, 0, 0, 0);

		EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_BAD_OPCODE,
			    ORCA_SYND_NONE);
		CHECK_EQ(f->out_len, 0);
	}
	fx_free(f);
}

static void length_errors(void)
{
	struct fx *f = fx_up();
	struct orca_cmdq_entry e;
	struct orca_pd_handle pd;

	/* shorter input than the device knows */
	e = entry(ORCA_CMD_DEALLOC_PD, 4, 0, 0, 0);
	EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_BAD_LEN, ORCA_SYND_IN_LEN);
	/* QUERY_CAPS output does not fit inline */
	e = entry(ORCA_CMD_QUERY_CAPS, 0, sizeof(struct orca_caps), 0, 0);
	EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_BAD_LEN, ORCA_SYND_OUT_LEN);
	/* CREATE_QP input does not fit inline */
	e = entry(ORCA_CMD_CREATE_QP, sizeof(struct orca_create_qp_in),
		  sizeof(struct orca_qp_ctx), 0, OUT_MBOX(0));
	EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_BAD_LEN, ORCA_SYND_IN_LEN);
	/* more input than a mailbox holds */
	e = entry(ORCA_CMD_MODIFY_QP, 0xffff, sizeof(struct orca_qp_ctx),
		  IN_MBOX(0), OUT_MBOX(0));
	EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_BAD_LEN, ORCA_SYND_IN_LEN);
	/* reserved entry field */
	e = entry(ORCA_CMD_ALLOC_PD, 0, 8, 0, 0);
	e.reserved = htole64(1);
	EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_RESERVED_NZ);
	/* more room than needed is fine; out_len reports what was written */
	e = entry(ORCA_CMD_ALLOC_PD, 0, 40, 0, 0);
	CHECK_EQ(raw_cmd(f, &e), 0);
	CHECK_EQ(f->out_len, 8);
	/* small output may also go to a mailbox */
	memset(f->ram + OUT_MBOX(3), 0xee, 16);
	e = entry(ORCA_CMD_ALLOC_PD, 0, 8, 0, OUT_MBOX(3));
	CHECK_EQ(raw_cmd(f, &e), 0);
	memcpy(&pd, f->ram + OUT_MBOX(3), sizeof(pd));
	CHECK_EQ(le32toh(pd.pdn), f->pdn + 2);
	CHECK_EQ(f->ram[OUT_MBOX(3) + 8], 0xee);	/* nothing beyond */
	fx_free(f);
}

/* orca_hw.h "Payload lengths": inputs may grow, outputs are cut. */
static void length_forward_compat(void)
{
	struct fx *f = fx_up();
	struct orca_cmdq_entry e;
	struct orca_cq_handle h = { .cqn = htole32(f->cqn) };
	uint8_t big[ORCA_MBOX_SIZE];
	struct orca_caps caps;

	/* a longer input with a zero tail is a known command */
	e = entry(ORCA_CMD_ALLOC_PD, 8, 8, 0, 0);
	CHECK_EQ(raw_cmd(f, &e), 0);
	CHECK_EQ(f->out_len, 8);
	memset(big, 0, sizeof(big));
	memcpy(big, &h, sizeof(h));
	memcpy(f->ram + IN_MBOX(2), big, sizeof(big));
	e = entry(ORCA_CMD_DESTROY_CQ, ORCA_MBOX_SIZE, 0, IN_MBOX(2), 0);
	CHECK_EQ(raw_cmd(f, &e), 0);
	CHECK_EQ(f->dev.n_cqs, 0);
	/* a non-zero byte past what the device knows asks too much */
	e = entry(ORCA_CMD_ALLOC_PD, 8, 8, 0, 0);
	e.inline_in[7] = 1;
	EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_RESERVED_NZ);
	big[sizeof(h) + 100] = 0x40;
	memcpy(f->ram + IN_MBOX(2), big, sizeof(big));
	e = entry(ORCA_CMD_DEALLOC_PD, 200, 0, IN_MBOX(2), 0);
	EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_RESERVED_NZ);
	/* less output room: the device writes what fits and says so */
	e = entry(ORCA_CMD_ALLOC_PD, 0, 4, 0, 0);
	CHECK_EQ(raw_cmd(f, &e), 0);
	CHECK_EQ(f->out_len, 4);
	memset(f->ram + OUT_MBOX(4), 0xee, ORCA_MBOX_SIZE);
	e = entry(ORCA_CMD_QUERY_CAPS, 0, 0x20, 0, OUT_MBOX(4));
	CHECK_EQ(raw_cmd(f, &e), 0);
	CHECK_EQ(f->out_len, 0x20);
	memcpy(&caps, f->ram + OUT_MBOX(4), sizeof(caps));
	CHECK_EQ(le64toh(caps.fw_version), f->cfg.fw_version);
	CHECK_EQ(f->ram[OUT_MBOX(4) + 0x20], 0xee);
	/* nothing at all is a valid (if useless) amount */
	e = entry(ORCA_CMD_QUERY_CAPS, 0, 0, 0, 0);
	CHECK_EQ(raw_cmd(f, &e), 0);
	CHECK_EQ(f->out_len, 0);
	fx_free(f);
}

static void dma_mailbox_out_of_range(void)
{
	struct fx *f = fx_up();
	static const uint64_t bad[] = {
		RAM_SIZE, RAM_SIZE - 8, RAM_SIZE + 0x1000, 1ULL << 40,
		~0ULL, ~0ULL - 0x20,
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct orca_cmdq_entry e;

		e = entry(ORCA_CMD_CREATE_QP, sizeof(struct orca_create_qp_in),
			  sizeof(struct orca_qp_ctx), bad[i], OUT_MBOX(1));
		EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_DMA_FAULT,
			    ORCA_SYND_IN_ADDR);
		e = entry(ORCA_CMD_QUERY_CAPS, 0, sizeof(struct orca_caps), 0,
			  bad[i]);
		EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_DMA_FAULT,
			    ORCA_SYND_OUT_ADDR);
		e = entry(ORCA_CMD_ALLOC_PD, 0, 8, 0, bad[i] == RAM_SIZE - 8 ?
			  RAM_SIZE - 7 : bad[i]);
		EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_DMA_FAULT,
			    ORCA_SYND_OUT_ADDR);
		CHECK(canaries_ok(f));
	}
	/* last byte in range is fine */
	{
		struct orca_cmdq_entry e = entry(ORCA_CMD_QUERY_CAPS, 0,
						 sizeof(struct orca_caps), 0,
						 RAM_SIZE - sizeof(struct orca_caps));

		CHECK_EQ(raw_cmd(f, &e), 0);
	}
	/* a refused output address has no side effect */
	{
		struct orca_create_qp_in in = qp_in(f, ORCA_QPT_RC);
		struct orca_cmdq_entry e;

		memcpy(f->ram + IN_MBOX(5), &in, sizeof(in));
		e = entry(ORCA_CMD_CREATE_QP, sizeof(in),
			  sizeof(struct orca_qp_ctx), IN_MBOX(5), RAM_SIZE - 8);
		EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_DMA_FAULT,
			    ORCA_SYND_OUT_ADDR);
		CHECK_EQ(f->dev.n_qps, 0);
		CHECK_EQ(f->dev.n_pds, 1);
	}
	CHECK(f->dev.stats.bad_addr >= 18);
	CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_OK);
	fx_free(f);
}

static void failed_command_writes_no_output(void)
{
	struct fx *f = fx_up();
	struct orca_query_port_in in = { .port = 9 };
	struct orca_cmdq_entry e = entry(ORCA_CMD_QUERY_PORT, sizeof(in),
					 sizeof(struct orca_port_attr), 0,
					 OUT_MBOX(7));
	size_t i;
	bool untouched = true;

	memcpy(e.inline_in, &in, sizeof(in));
	memset(f->ram + OUT_MBOX(7), 0xee, 0x1000);
	EXPECT_FAIL(f, raw_cmd(f, &e), ORCA_STATUS_BAD_PARAM,
		    ORCA_SYND_ATTR_RANGE);
	CHECK_EQ(f->out_len, 0);
	for (i = 0; i < 0x1000; i++)
		untouched &= f->ram[OUT_MBOX(7) + i] == 0xee;
	CHECK(untouched);
	fx_free(f);
}

/* A device whose queues are enabled at the given (bad) addresses. */
static struct fx *fx_enable_at(uint64_t cmdq_base, uint32_t cmdq_log,
			       uint64_t eq_base, uint32_t eq_log)
{
	struct fx *f = fx_new_cfg(NULL);

	fx_program_queues(f, ORCA_EQ_LOG_DEPTH);
	f->regs->cmdq_base = htole64(cmdq_base);
	f->regs->cmdq_log_depth = htole32(cmdq_log);
	f->regs->eq_base = htole64(eq_base);
	f->regs->eq_log_depth = htole32(eq_log);
	return f;
}

static void cmdq_base_out_of_range(void)
{
	static const uint64_t bases[] = { RAM_SIZE - 64 * 32, RAM_SIZE,
					  ~0ULL - 63, CMDQ_BASE + 8 };
	unsigned int i;

	for (i = 0; i < 5; i++) {
		struct fx *f = fx_enable_at(i < 4 ? bases[i] : CMDQ_BASE,
					    i < 4 ? 6 : 9, EQ_BASE,
					    ORCA_EQ_LOG_DEPTH);
		struct orca_eqe eqe;

		fx_submit(f, ORCA_CMD_RESET, NULL, 0, 0);
		fx_ring(f);
		CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_FATAL);
		CHECK_EQ(le32toh(f->regs->fatal_syndrome), ORCA_FATAL_DMA);
		CHECK(!fx_pop(f, &eqe));
		/* a fatal device executes nothing, a new address included */
		f->regs->cmdq_base = htole64(CMDQ_BASE);
		f->regs->cmdq_log_depth = htole32(6);
		fx_ring(f);
		CHECK(!fx_pop(f, &eqe));
		/* a function reset brings it back */
		f->regs->dev_ctl = htole32(ORCA_DEV_CTL_RESET);
		orca_dev_doorbell(&f->dev, ORCA_FW_VEC_CMDQ);
		CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_OK);
		CHECK_EQ(le32toh(f->regs->dev_sts), ORCA_DEV_STS_RESET_DONE);
		fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
		CHECK_EQ(f->status, 0);
		CHECK(canaries_ok(f));
		fx_free(f);
	}
}

static void eq_base_out_of_range(void)
{
	static const uint64_t bases[] = { RAM_SIZE - 64 * 100, RAM_SIZE + 64,
					  ~0ULL - 63, EQ_BASE + 32 };
	unsigned int i;

	for (i = 0; i < 5; i++) {
		struct fx *f = fx_enable_at(CMDQ_BASE, 6,
					    i < 4 ? bases[i] : EQ_BASE,
					    i < 4 ? ORCA_EQ_LOG_DEPTH :
					    ORCA_EMU_EQ_MAX_LOG_DEPTH + 1);
		uint32_t ci = le32toh(f->regs->cmdq_ci);

		fx_submit(f, ORCA_CMD_QUERY_CAPS, NULL, 0, 0);
		fx_submit(f, ORCA_CMD_QUERY_CAPS, NULL, 0, 0);
		fx_ring(f);
		CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_FATAL);
		CHECK_EQ(le32toh(f->regs->fatal_syndrome), ORCA_FATAL_DMA);
		CHECK_EQ(le32toh(f->regs->cmdq_ci), ci + 2);
		CHECK(canaries_ok(f));
		/* further doorbells are ignored */
		fx_submit(f, ORCA_CMD_QUERY_CAPS, NULL, 0, 0);
		fx_ring(f);
		CHECK_EQ(le32toh(f->regs->cmdq_ci), ci + 2);
		fx_free(f);
	}
}

/* Once enabled, the queue registers are latched until a reset. */
static void queue_registers_latched(void)
{
	struct fx *f = fx_up();
	struct orca_pd_handle pd;

	f->regs->cmdq_base = htole64(RAM_SIZE + 0x1000);
	f->regs->cmdq_log_depth = htole32(31);
	f->regs->eq_base = htole64(~0ULL - 63);
	f->regs->eq_log_depth = htole32(31);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, &pd, sizeof(pd)), 0);
	CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_OK);
	CHECK_EQ(le32toh(f->regs->dev_sts), ORCA_DEV_STS_ENABLED);
	CHECK(canaries_ok(f));
	fx_free(f);
}

static void bad_producer_index(void)
{
	struct fx *f = fx_up();
	uint32_t ci = le32toh(f->regs->cmdq_ci);
	struct orca_eqe eqe;

	/* pi - ci > depth: ignored, nothing consumed */
	f->regs->cmdq_pi = htole32(ci + CMDQ_DEPTH + 1);
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_CMDQ);
	CHECK_EQ(le32toh(f->regs->cmdq_ci), ci);
	CHECK(!fx_pop(f, &eqe));
	CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_OK);
	/* the device recovers when pi is sane again */
	f->regs->cmdq_pi = htole32(ci);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, NULL,
			sizeof(struct orca_caps)), 0);
	fx_free(f);
}

/* ------------------------------------------------------------------ */
/* Concurrency, ordering, EQ full                                     */
/* ------------------------------------------------------------------ */

static void full_ring_one_doorbell(void)
{
	struct fx *f = fx_up();
	uint16_t tokens[CMDQ_DEPTH];
	struct orca_eqe eqe;
	unsigned int i, n = 0;
	uint32_t seen[CMDQ_DEPTH] = { 0 };
	bool distinct = true;

	for (i = 0; i < CMDQ_DEPTH; i++)
		tokens[i] = fx_submit(f, ORCA_CMD_ALLOC_PD, NULL, 0, 8);
	fx_ring(f);
	CHECK_EQ(le32toh(f->regs->cmdq_ci), f->pi);
	while (fx_pop(f, &eqe)) {
		CHECK_EQ(eqe.type, ORCA_EQE_CMD_DONE);
		CHECK_EQ(le16toh(eqe.cmd.token), tokens[n]);	/* in order */
		CHECK_EQ(eqe.cmd.status, n < 255 ? 0 : 0);
		seen[n] = le32toh(((struct orca_pd_handle *)eqe.cmd.inline_out)->pdn);
		n++;
	}
	CHECK_EQ(n, CMDQ_DEPTH);
	for (i = 1; i < n; i++)
		distinct &= seen[i] == seen[i - 1] + 1;
	CHECK(distinct);
	/* ALLOC_PD + CREATE_CQ of the bring-up, then one for the batch */
	CHECK_EQ(f->irqs, 2 + 1);
	fx_free(f);
}

static void reverse_completions(void)
{
	struct fx *f = fx_up();
	uint16_t tokens[10], t_reset, t_after;
	struct orca_eqe eqe;
	struct orca_init_in init = { .flags = htole32(ORCA_INIT_F_EQ_IRQ) };
	unsigned int i, n = 0;

	f->dev.reverse_completions = true;
	for (i = 0; i < 10; i++)
		tokens[i] = fx_submit(f, ORCA_CMD_ALLOC_PD, NULL, 0, 8);
	fx_ring(f);
	while (fx_pop(f, &eqe)) {
		CHECK_EQ(le16toh(eqe.cmd.token), tokens[9 - n]);
		CHECK_EQ(eqe.cmd.status, 0);
		/*
		 * the output matches the command: PDNs were allocated in
		 * submission order, so the last token holds the last PDN
		 */
		CHECK_EQ(le32toh(((struct orca_pd_handle *)eqe.cmd.inline_out)->pdn),
			 f->pdn + 1 + (9 - n));
		n++;
	}
	CHECK_EQ(n, 10);

	/* RESET ends its batch and completes after everything before it */
	tokens[0] = fx_submit(f, ORCA_CMD_ALLOC_PD, NULL, 0, 8);
	tokens[1] = fx_submit(f, ORCA_CMD_ALLOC_PD, NULL, 0, 8);
	t_reset = fx_submit(f, ORCA_CMD_RESET, NULL, 0, 0);
	t_after = fx_submit(f, ORCA_CMD_INIT, &init, sizeof(init), 0);
	fx_ring(f);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(le16toh(eqe.cmd.token), tokens[1]);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(le16toh(eqe.cmd.token), tokens[0]);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(le16toh(eqe.cmd.token), t_reset);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(le16toh(eqe.cmd.token), t_after);
	CHECK_EQ(eqe.cmd.status, 0);
	CHECK(!fx_pop(f, &eqe));
	fx_free(f);
}

static void eq_full(void)
{
	struct fx *f = fx_new_cfg(NULL);
	struct orca_init_in init = { .flags = htole32(ORCA_INIT_F_EQ_IRQ) };
	uint16_t tokens[7];
	struct orca_eqe eqe;
	char err[64];
	unsigned int i;

	fx_program_queues(f, 2);	/* 4 entries */
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0), 0);
	for (i = 0; i < 7; i++)
		tokens[i] = fx_submit(f, ORCA_CMD_ALLOC_PD, NULL, 0, 8);
	fx_ring(f);
	/* all 7 consumed, 4 completed, 3 pending inside the device */
	CHECK_EQ(le32toh(f->regs->cmdq_ci), f->pi);
	CHECK_EQ(le32toh(f->regs->eq_pi) - f->eq_ci, 4);
	CHECK_EQ(f->dev.n_pending, 3);
	/* async events are dropped and counted while full */
	CHECK_EQ(orca_dev_hook_port(&f->dev, false, err, sizeof(err)), 0);
	CHECK_EQ(le32toh(f->regs->eq_overflows), 1);
	/* new commands are not consumed while completions are stuck */
	fx_submit(f, ORCA_CMD_ALLOC_PD, NULL, 0, 8);
	fx_ring(f);
	CHECK_EQ(le32toh(f->regs->cmdq_ci), f->pi - 1);
	/* the driver consumes two: the EQ doorbell delivers two more */
	for (i = 0; i < 2; i++) {
		CHECK(fx_pop(f, &eqe));
		CHECK_EQ(le16toh(eqe.cmd.token), tokens[i]);
	}
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_EQ);
	CHECK_EQ(f->dev.n_pending, 1);
	for (i = 2; i < 6; i++) {
		CHECK(fx_pop(f, &eqe));
		CHECK_EQ(le16toh(eqe.cmd.token), tokens[i]);
	}
	/* the heartbeat tick retries too */
	orca_dev_tick(&f->dev);
	CHECK_EQ(f->dev.n_pending, 0);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(le16toh(eqe.cmd.token), tokens[6]);
	/* and the held-back command runs on the next doorbell */
	fx_ring(f);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(eqe.cmd.status, 0);
	CHECK_EQ(le32toh(f->regs->cmdq_ci), f->pi);
	CHECK(!fx_pop(f, &eqe));
	/* driver eq_ci garbage (ahead of pi): treated as full, no crash */
	f->regs->eq_ci = htole32(f->eq_ci + 100);
	fx_submit(f, ORCA_CMD_ALLOC_PD, NULL, 0, 8);
	fx_ring(f);
	CHECK_EQ(f->dev.n_pending, 1);
	f->regs->eq_ci = htole32(f->eq_ci);
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_EQ);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(eqe.type, ORCA_EQE_CMD_DONE);
	CHECK(canaries_ok(f));
	fx_free(f);
}

/* ------------------------------------------------------------------ */
/* TEARDOWN, RESET, reconnect                                         */
/* ------------------------------------------------------------------ */

static void teardown(void)
{
	struct fx *f = fx_up();
	struct orca_eqe eqe;
	uint8_t *snap;
	uint32_t qpn = create_qp(f, ORCA_QPT_RC);
	uint16_t t;

	CHECK(qpn);
	t = fx_submit(f, ORCA_CMD_TEARDOWN, NULL, 0, 0);
	fx_submit(f, ORCA_CMD_ALLOC_PD, NULL, 0, 8);	/* after TEARDOWN */
	fx_ring(f);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(le16toh(eqe.cmd.token), t);
	CHECK_EQ(eqe.cmd.status, 0);
	CHECK(!fx_pop(f, &eqe));
	CHECK_EQ(le64toh(f->regs->cmdq_base), 0);
	CHECK_EQ(le64toh(f->regs->eq_base), 0);
	CHECK_EQ(le64toh(f->regs->qp_mirror_base), 0);
	CHECK_EQ(f->dev.n_qps, 0);
	CHECK_EQ(f->dev.n_pds, 0);
	/* bring-up 2, CREATE_QP 1, TEARDOWN's own completion still 1 */
	CHECK_EQ(f->irqs, 4);

	/* No DMA at all afterwards: stray doorbells, ticks, hooks. */
	snap = malloc(RAM_SIZE);
	memcpy(snap, f->ram, RAM_SIZE);
	fx_ring(f);
	orca_dev_doorbell(&f->dev, ORCA_FW_VEC_EQ);
	orca_dev_tick(&f->dev);
	CHECK_EQ(orca_dev_hook_port(&f->dev, false, NULL, 0), 0);
	/* even with the driver's old addresses back in the registers */
	f->regs->eq_base = htole64(EQ_BASE);
	f->regs->qp_mirror_base = htole64(MIRROR_BASE);
	fx_ring(f);
	orca_dev_tick(&f->dev);
	CHECK(!memcmp(snap, f->ram, RAM_SIZE));
	free(snap);

	/*
	 * re-probe: program the queues, RESET, INIT; other commands in the
	 * torn-down state are dropped without DMA
	 */
	fx_program_queues(f, ORCA_EQ_LOG_DEPTH);
	fx_submit(f, ORCA_CMD_QUERY_CAPS, NULL, 0, sizeof(struct orca_caps));
	t = fx_submit(f, ORCA_CMD_RESET, NULL, 0, 0);
	fx_ring(f);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(le16toh(eqe.cmd.token), t);
	CHECK_EQ(eqe.cmd.status, 0);
	CHECK(!fx_pop(f, &eqe));
	fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
	CHECK_EQ(f->status, 0);
	CHECK(create_qp(f, ORCA_QPT_UD));
	fx_free(f);
}

/* dev_ctl reset: everything stops, held work included, before the ack. */
static void function_reset(void)
{
	struct fx *f = fx_up();
	uint8_t *snap = malloc(RAM_SIZE);
	unsigned int i;

	CHECK(create_qp(f, ORCA_QPT_RC));
	CHECK_EQ(le32toh(f->regs->dev_sts), ORCA_DEV_STS_ENABLED);
	/* a slow device holds this completion for 1 s */
	orca_dev_hook_cmd_delay(&f->dev, 1000);
	fx_submit(f, ORCA_CMD_ALLOC_PD, NULL, 0, 8);
	fx_ring(f);
	CHECK_EQ(f->dev.n_pending, 1);
	f->regs->dev_ctl = htole32(ORCA_DEV_CTL_RESET);
	orca_dev_tick(&f->dev);
	CHECK_EQ(le32toh(f->regs->dev_sts), ORCA_DEV_STS_RESET_DONE);
	CHECK_EQ(f->dev.n_qps + f->dev.n_pds + f->dev.n_cqs, 0);
	CHECK_EQ(f->dev.n_pending, 0);
	CHECK_EQ(f->dev.stats.func_resets, 1);
	/* no DMA at all afterwards: ticks, doorbells, hooks */
	memcpy(snap, f->ram, RAM_SIZE);
	for (i = 0; i < 20; i++) {
		orca_dev_tick(&f->dev);
		fx_ring(f);
	}
	CHECK_EQ(orca_dev_hook_port(&f->dev, false, NULL, 0), 0);
	f->regs->dev_ctl = 0;	/* the driver withdraws the request */
	fx_ring(f);
	orca_dev_tick(&f->dev);
	CHECK(!memcmp(snap, f->ram, RAM_SIZE));
	CHECK_EQ(f->dev.stats.func_resets, 1);
	/* enabled again, it works again */
	orca_dev_hook_cmd_delay(&f->dev, 0);
	fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
	CHECK_EQ(f->status, 0);
	free(snap);
	fx_free(f);
}

/* A stalled device resets first when it wakes: no stale completion. */
static void stall_then_reset_first(void)
{
	struct fx *f = fx_up();
	uint8_t *snap = malloc(RAM_SIZE);
	uint64_t hb = le64toh(f->regs->heartbeat);
	unsigned int i;

	orca_dev_hook_stall(&f->dev, 300);
	fx_submit(f, ORCA_CMD_ALLOC_PD, NULL, 0, 8);
	fx_ring(f);
	orca_dev_tick(&f->dev);
	CHECK_EQ(le64toh(f->regs->heartbeat), hb);	/* hung */
	/* the driver gave up and asked for a reset, then freed nothing yet */
	f->regs->dev_ctl = htole32(ORCA_DEV_CTL_RESET);
	memcpy(snap, f->ram, RAM_SIZE);
	for (i = 0; i < 10; i++) {
		orca_dev_tick(&f->dev);
		fx_ring(f);
	}
	CHECK(le64toh(f->regs->heartbeat) > hb);	/* awake again */
	CHECK_EQ(le32toh(f->regs->dev_sts), ORCA_DEV_STS_RESET_DONE);
	CHECK(!memcmp(snap, f->ram, RAM_SIZE));
	CHECK_EQ(f->dev.stats.completions, 5);	/* bring-up only */
	free(snap);
	fx_free(f);
}

static void gid_and_pkey_tables(void)
{
	static const char *const sets[] = {
		"gid_tbl_len=300", "pkey_tbl_len=4", "port_guid=0x1000",
		"subnet_prefix=0xfe80000000000042", "pkey_table=0x8001,0x7fff",
		NULL,
	};
	struct fx *f = fx_up_cfg(sets);
	struct orca_query_table_in in = { .port = 1 };
	uint8_t gids[ORCA_GIDS_PER_CMD][ORCA_GID_LEN];
	__le16 pk[4];
	uint64_t v;

	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_GID_TABLE, &in, sizeof(in), gids,
			sizeof(gids)), 0);
	memcpy(&v, gids[0], 8);
	CHECK_EQ(be64toh(v), 0xfe80000000000042ULL);
	memcpy(&v, gids[0] + 8, 8);
	CHECK_EQ(be64toh(v), 0x1000);
	memcpy(&v, gids[255] + 8, 8);
	CHECK_EQ(be64toh(v), 0x1000 + 255);
	/* the rest of the table in a second command */
	in.start = htole32(256);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_GID_TABLE, &in, sizeof(in), gids,
			44 * ORCA_GID_LEN), 0);
	CHECK_EQ(f->out_len, 44 * ORCA_GID_LEN);
	memcpy(&v, gids[43] + 8, 8);
	CHECK_EQ(be64toh(v), 0x1000 + 299);
	/* past the end, partial entries, bad port */
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_QUERY_GID_TABLE, &in, sizeof(in),
			      gids, 45 * ORCA_GID_LEN),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	in.start = 0;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_QUERY_GID_TABLE, &in, sizeof(in),
			      gids, 24),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	in.port = 2;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_QUERY_GID_TABLE, &in, sizeof(in),
			      gids, 16),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	in.port = 1;
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_PKEY_TABLE, &in, sizeof(in), pk,
			sizeof(pk)), 0);
	CHECK_EQ(le16toh(pk[0]), 0x8001);
	CHECK_EQ(le16toh(pk[1]), 0x7fff);
	CHECK_EQ(le16toh(pk[2]), 0);
	CHECK_EQ(le16toh(pk[3]), 0);
	in.start = htole32(3);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_QUERY_PKEY_TABLE, &in, sizeof(in),
			      pk, 4),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	fx_free(f);
}

static void pkey_table_config(void)
{
	struct orca_cfg c;
	char err[256];

	orca_cfg_defaults(&c);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), 0);
	CHECK_EQ(c.n_pkey_table, 1);
	CHECK_EQ(c.pkey_table[0], 0xffff);
	orca_cfg_defaults(&c);
	CHECK_EQ(orca_cfg_set_kv(&c, "pkey_table=0x8001,0x7fff", err,
				 sizeof(err)), 0);
	CHECK(orca_cfg_finalize(&c, err, sizeof(err)));	/* > pkey_tbl_len 1 */
	orca_cfg_defaults(&c);
	CHECK_EQ(orca_cfg_set_kv(&c, "pkey_tbl_len=2", err, sizeof(err)), 0);
	CHECK_EQ(orca_cfg_set_kv(&c, "pkey_table=0x8001,0x7fff", err,
				 sizeof(err)), 0);
	CHECK_EQ(orca_cfg_set_kv(&c, "pkey=0x8002", err, sizeof(err)), 0);
	CHECK(orca_cfg_finalize(&c, err, sizeof(err)));	/* entry 0 twice */
	CHECK(orca_cfg_set_kv(&c, "pkey_table=0x10000", err, sizeof(err)));
	CHECK(orca_cfg_set_kv(&c, "pkey_table=", err, sizeof(err)));
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

/* eq-flood: events beyond the EQ are dropped and counted, QP -> ERR. */
static void eq_flood_drops(void)
{
	struct fx *f = fx_new_cfg(NULL);
	uint32_t qpn, free_slots;
	char err[64];

	fx_bringup_eq(f, ORCA_INIT_F_EQ_IRQ, 4);	/* 16 entries */
	qpn = qp_in_state(f, ORCA_QPT_RC, ORCA_QPS_RTS);
	CHECK(qpn);
	free_slots = 16 - (le32toh(f->regs->eq_pi) - f->eq_ci);
	CHECK(orca_dev_hook_eq_flood(&f->dev, 99, 0, err, sizeof(err)));
	CHECK_EQ(orca_dev_hook_eq_flood(&f->dev, 20, qpn, err, sizeof(err)),
		 0);
	CHECK_EQ(le32toh(f->regs->eq_overflows), 20 + 1 - free_slots);
	CHECK_EQ(mirror(f, qpn)->state, ORCA_QPS_ERR);
	fx_free(f);
}

/* caps-override changes what is reported, not what the device holds. */
static void caps_override(void)
{
	struct fx *f = fx_up();
	struct orca_caps c;
	char err[64];

	CHECK_EQ(orca_dev_hook_caps_override(&f->dev, "max_qp", 0xfffffffe,
					     err, sizeof(err)), 0);
	CHECK(orca_dev_hook_caps_override(&f->dev, "fw_version", 1, err,
					  sizeof(err)));
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &c, sizeof(c)), 0);
	CHECK_EQ(le32toh(c.max_qp), 0xfffffffe);
	CHECK_EQ(le32toh(c.max_cq), f->cfg.max_cq);
	CHECK_EQ(orca_dev_hook_caps_override(&f->dev, "clear", 0, err,
					     sizeof(err)), 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &c, sizeof(c)), 0);
	CHECK_EQ(le32toh(c.max_qp), f->cfg.max_qp);
	fx_free(f);
}

static void reset_destroys_everything(void)
{
	struct fx *f = fx_up();
	uint32_t qpn = create_qp(f, ORCA_QPT_RC);
	struct orca_eqe eqe;
	char err[64];

	CHECK(qpn);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	CHECK_EQ(f->dev.n_qps + f->dev.n_pds + f->dev.n_cqs, 0);
	/* disarmed: no async events, no NOT_READY-free commands */
	CHECK_EQ(orca_dev_hook_port(&f->dev, false, err, sizeof(err)), 0);
	CHECK(!fx_pop(f, &eqe));
	CHECK_EQ(le32toh(f->regs->eq_overflows), 0);
	EXPECT_FAIL(f, qp_state(f, qpn) == -1 ? f->status : 0,
		    ORCA_STATUS_NOT_READY, ORCA_SYND_NOT_INIT);
	/* registers survive RESET: the cmdq keeps working */
	CHECK_EQ(le64toh(f->regs->cmdq_base), CMDQ_BASE);
	CHECK_EQ(le64toh(f->regs->eq_base), EQ_BASE);
	fx_free(f);
}

static void reconnect_resets_state(void)
{
	struct fx *f = fx_up();

	CHECK(create_qp(f, ORCA_QPT_RC));
	orca_dev_hook_fatal(&f->dev, ORCA_FATAL_INJECTED);
	orca_dev_hook_hang(&f->dev);
	orca_dev_disconnect(&f->dev);
	CHECK_EQ(le64toh(f->regs->ram_size), 0);
	orca_dev_connect(&f->dev);
	orca_dev_set_ram(&f->dev, f->ram, RAM_SIZE);
	CHECK_EQ(le64toh(f->regs->generation), 2);
	CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_OK);
	CHECK_EQ(le32toh(f->regs->fatal_syndrome), 0);
	CHECK_EQ(le32toh(f->regs->cmdq_ci), 0);
	CHECK_EQ(le32toh(f->regs->eq_pi), 0);
	CHECK_EQ(le64toh(f->regs->cmdq_base), 0);
	CHECK_EQ(le64toh(f->regs->eq_base), 0);
	CHECK_EQ(le32toh(f->regs->qp_mirror_entries), 0);
	CHECK_EQ(le64toh(f->regs->magic), ORCA_MAGIC);
	CHECK_EQ(f->dev.n_qps, 0);
	CHECK(!f->dev.hung && !f->dev.fatal);
	memset(f->ram, 0, RAM_SIZE);
	fx_bringup_flags(f, ORCA_INIT_F_EQ_IRQ);
	CHECK_EQ(f->status, 0);
	CHECK_EQ(create_qp(f, ORCA_QPT_RC), ORCA_QPN_BASE);
	fx_free(f);
}

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
	RANGE_FAILS(rc_reset, to_init, ORCA_QPS_INIT, a.pkey_index = htole16(1));
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
		    a.alt_av.pkey_index = 1);
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

/* ------------------------------------------------------------------ */
/* Mirror, SQD drain, async events, hooks                             */
/* ------------------------------------------------------------------ */

static void mirror_protocol(void)
{
	struct fx *f = fx_up();
	uint32_t qpn = create_qp(f, ORCA_QPT_UC);
	const struct orca_qp_mirror *m = mirror(f, qpn);
	uint32_t seq = le32toh(m->seq);
	struct orca_qp_ctx a;
	int i;

	CHECK_EQ(seq, 2);
	CHECK_EQ(m->state, ORCA_QPS_RESET);
	for (i = 0; i < 3; i++) {
		static const uint8_t st[] = { ORCA_QPS_INIT, ORCA_QPS_RTR,
					      ORCA_QPS_RTS };
		static const uint8_t prev[] = { ORCA_QPS_RESET, ORCA_QPS_INIT,
						ORCA_QPS_RTR };

		CHECK_EQ(modify(f, qpn, ORCA_QP_STATE |
				rule_for(ORCA_QPT_UC, prev[i], st[i]).req,
				st[i]), 0);
		CHECK_EQ(le32toh(m->seq), seq + 2);
		CHECK_EQ(le32toh(m->seq) & 1, 0);
		CHECK_EQ(m->state, st[i]);
		CHECK_EQ(m->sq_draining, 0);
		CHECK_EQ(le32toh(m->qpn), qpn);
		CHECK_EQ(m->reserved, 0);
		seq += 2;
	}
	/* a failed modify writes nothing */
	fill_attrs(&a);
	CHECK(modify(f, qpn, ORCA_QP_STATE, ORCA_QPS_INIT));
	CHECK_EQ(le32toh(m->seq), seq);
	/* destroy publishes RESET */
	CHECK_EQ(destroy_qp(f, qpn), 0);
	CHECK_EQ(le32toh(m->seq), seq + 2);
	CHECK_EQ(m->state, ORCA_QPS_RESET);
	fx_free(f);

	/* QPNs beyond qp_mirror_entries are not mirrored (no stray write) */
	f = fx_new_cfg(NULL);
	fx_program_queues(f, ORCA_EQ_LOG_DEPTH);
	f->regs->qp_mirror_entries = htole32(3);	/* QPN 2 only */
	memset(f->ram + MIRROR_BASE, 0xcc, 0x100);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	{
		struct orca_init_in init = { 0 };
		struct orca_pd_handle pd;
		struct orca_create_cq_in ci = { .cqe = htole32(4) };
		struct orca_create_cq_out co;

		CHECK_EQ(fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0), 0);
		CHECK_EQ(fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, &pd, sizeof(pd)), 0);
		CHECK_EQ(fx_cmd(f, ORCA_CMD_CREATE_CQ, &ci, sizeof(ci), &co,
				sizeof(co)), 0);
		f->pdn = le32toh(pd.pdn);
		f->cqn = le32toh(co.cqn);
	}
	CHECK_EQ(create_qp(f, ORCA_QPT_RC), 2);
	CHECK_EQ(create_qp(f, ORCA_QPT_RC), 3);
	CHECK_EQ(le32toh(mirror(f, 2)->seq), 2);
	CHECK_EQ(f->ram[MIRROR_BASE + 3 * 16], 0xcc);
	CHECK_EQ(f->ram[MIRROR_BASE + 3 * 16 + 15], 0xcc);
	fx_free(f);
}

static void sqd_drain(void)
{
	struct fx *f = fx_up();
	uint32_t qpn = qp_in_state(f, ORCA_QPT_RC, ORCA_QPS_RTS);
	uint32_t quiet = qp_in_state(f, ORCA_QPT_UD, ORCA_QPS_RTS);
	const struct orca_qp_mirror *m = mirror(f, qpn);
	struct orca_qp_ctx a, out;
	struct orca_eqe eqe;
	uint32_t seq;

	fill_attrs(&a);
	a.en_sqd_async_notify = 1;
	CHECK_EQ(modify_full(f, qpn, ORCA_QP_STATE | ORCA_QP_EN_SQD_ASYNC_NOTIFY,
			     &a, ORCA_QPS_SQD, 0, 0, 0, &out), 0);
	CHECK_EQ(out.sq_draining, 1);
	CHECK_EQ(out.en_sqd_async_notify, 1);
	CHECK_EQ(m->state, ORCA_QPS_SQD);
	CHECK_EQ(m->sq_draining, 1);
	CHECK_EQ(modify(f, quiet, ORCA_QP_STATE, ORCA_QPS_SQD), 0);
	/* IBTA: SQD->SQD only once drained */
	EXPECT_FAIL(f, modify(f, qpn, ORCA_QP_STATE | ORCA_QP_TIMEOUT,
			      ORCA_QPS_SQD),
		    ORCA_STATUS_BAD_QP_STATE, ORCA_SYND_TRANSITION);
	seq = le32toh(m->seq);
	f->n_async = 0;
	orca_dev_tick(&f->dev);
	CHECK_EQ(m->sq_draining, 0);
	CHECK_EQ(le32toh(m->seq), seq + 2);
	CHECK_EQ(mirror(f, quiet)->sq_draining, 0);
	/* exactly one event: the QP that asked for it */
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(eqe.type, ORCA_EQE_QP_EVENT);
	CHECK_EQ(le32toh(eqe.qp.qpn), qpn);
	CHECK_EQ(eqe.qp.event, ORCA_QP_EV_SQ_DRAINED);
	CHECK_EQ(eqe.qp.state, ORCA_QPS_SQD);
	CHECK_EQ(le32toh(eqe.qp.mirror_seq), seq + 2);
	CHECK(!fx_pop(f, &eqe));
	CHECK_EQ(query_qp(f, qpn, &out), 0);
	CHECK_EQ(out.sq_draining, 0);
	/* now SQD->SQD works, and SQD->RTS */
	CHECK_EQ(modify(f, qpn, ORCA_QP_STATE | ORCA_QP_TIMEOUT, ORCA_QPS_SQD), 0);
	CHECK_EQ(modify(f, qpn, ORCA_QP_STATE, ORCA_QPS_RTS), 0);
	/* leaving SQD before the drain tick: no event later */
	CHECK_EQ(modify(f, qpn, ORCA_QP_STATE | ORCA_QP_EN_SQD_ASYNC_NOTIFY,
			ORCA_QPS_SQD), 0);
	CHECK_EQ(modify(f, qpn, ORCA_QP_STATE, ORCA_QPS_RTS), 0);
	CHECK_EQ(f->dev.n_draining, 0);
	orca_dev_tick(&f->dev);
	CHECK(!fx_pop(f, &eqe));
	fx_free(f);

	/* SQD async notify not in dev_caps */
	{
		const char *const sets[] = { "dev_caps=0x7", NULL };

		f = fx_up_cfg(sets);
		qpn = qp_in_state(f, ORCA_QPT_RC, ORCA_QPS_RTS);
		EXPECT_FAIL(f, modify(f, qpn, ORCA_QP_STATE |
				      ORCA_QP_EN_SQD_ASYNC_NOTIFY, ORCA_QPS_SQD),
			    ORCA_STATUS_UNSUPPORTED, ORCA_SYND_INVALID_ATTR);
		fx_free(f);
	}
}

static void async_events_only_when_armed(void)
{
	struct fx *f = fx_new_cfg(NULL);
	struct orca_init_in init = { .flags = htole32(ORCA_INIT_F_EQ_IRQ) };
	struct orca_eqe eqe;
	char err[64];

	fx_program_queues(f, ORCA_EQ_LOG_DEPTH);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	CHECK_EQ(orca_dev_hook_port(&f->dev, false, err, sizeof(err)), 0);
	orca_dev_tick(&f->dev);
	CHECK(!fx_pop(f, &eqe));
	CHECK_EQ(le32toh(f->regs->eq_overflows), 0);
	CHECK_EQ(f->irqs, 0);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_INIT, &init, sizeof(init), NULL, 0), 0);
	/* QUERY_PORT sees the state changed while disarmed */
	{
		struct orca_query_port_in in = { .port = 1 };
		struct orca_port_attr p;

		CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_PORT, &in, sizeof(in), &p,
				sizeof(p)), 0);
		CHECK_EQ(p.state, ORCA_PORT_DOWN);
		CHECK_EQ(p.phys_state, 2);
	}
	f->irqs = 0;
	CHECK_EQ(orca_dev_hook_port(&f->dev, true, err, sizeof(err)), 0);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(eqe.type, ORCA_EQE_PORT_EVENT);
	CHECK_EQ(eqe.port.port, 1);
	CHECK_EQ(eqe.port.event, ORCA_PORT_EV_ACTIVE);
	CHECK_EQ(f->irqs, 1);
	/* no transition, no event */
	CHECK_EQ(orca_dev_hook_port(&f->dev, true, err, sizeof(err)), 0);
	CHECK(!fx_pop(f, &eqe));
	CHECK_EQ(orca_dev_hook_port(&f->dev, false, err, sizeof(err)), 0);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(eqe.port.event, ORCA_PORT_EV_DOWN);
	fx_free(f);
}

static void hooks(void)
{
	struct fx *f = fx_up();
	uint32_t rc = qp_in_state(f, ORCA_QPT_RC, ORCA_QPS_RTS);
	uint32_t ud = qp_in_state(f, ORCA_QPT_UD, ORCA_QPS_RTS);
	uint32_t fresh = create_qp(f, ORCA_QPT_UC);
	uint32_t seq;
	struct orca_eqe eqe;
	char err[128];

	/* qp-fatal: ERR, mirror, then QP_EVENT FATAL carrying the seq */
	seq = le32toh(mirror(f, rc)->seq);
	CHECK_EQ(orca_dev_hook_qp_fatal(&f->dev, rc, err, sizeof(err)), 0);
	CHECK_EQ(mirror(f, rc)->state, ORCA_QPS_ERR);
	CHECK_EQ(le32toh(mirror(f, rc)->seq), seq + 2);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(eqe.type, ORCA_EQE_QP_EVENT);
	CHECK_EQ(le32toh(eqe.qp.qpn), rc);
	CHECK_EQ(eqe.qp.event, ORCA_QP_EV_FATAL);
	CHECK_EQ(eqe.qp.state, ORCA_QPS_ERR);
	CHECK_EQ(le32toh(eqe.qp.mirror_seq), seq + 2);
	CHECK_EQ(qp_state(f, rc), ORCA_QPS_ERR);
	CHECK(orca_dev_hook_qp_fatal(&f->dev, 777, err, sizeof(err)));
	CHECK(orca_dev_hook_qp_fatal(&f->dev, fresh, err, sizeof(err)));

	/* sq-error: UD RTS -> SQE, RC refused */
	CHECK_EQ(orca_dev_hook_sq_error(&f->dev, ud, err, sizeof(err)), 0);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(eqe.qp.event, ORCA_QP_EV_SQ_ERROR);
	CHECK_EQ(eqe.qp.state, ORCA_QPS_SQE);
	CHECK_EQ(qp_state(f, ud), ORCA_QPS_SQE);
	CHECK(orca_dev_hook_sq_error(&f->dev, ud, err, sizeof(err)));
	CHECK(orca_dev_hook_sq_error(&f->dev, rc, err, sizeof(err)));
	CHECK(orca_dev_hook_sq_error(&f->dev, fresh, err, sizeof(err)));
	/* SQE -> RTS recovers */
	CHECK_EQ(modify(f, ud, ORCA_QP_STATE, ORCA_QPS_RTS), 0);

	/* heartbeat */
	{
		uint64_t hb = le64toh(f->regs->heartbeat);

		orca_dev_tick(&f->dev);
		orca_dev_tick(&f->dev);
		CHECK_EQ(le64toh(f->regs->heartbeat), hb + 2);
	}

	/* fatal: health + DEVICE_FATAL EQE, then no more commands */
	orca_dev_hook_fatal(&f->dev, 0x42);
	CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_FATAL);
	CHECK_EQ(le32toh(f->regs->fatal_syndrome), 0x42);
	CHECK(fx_pop(f, &eqe));
	CHECK_EQ(eqe.type, ORCA_EQE_DEVICE_FATAL);
	CHECK_EQ(le32toh(eqe.fatal.syndrome), 0x42);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, NULL,
			sizeof(struct orca_caps)), 0xff);
	{
		uint64_t hb = le64toh(f->regs->heartbeat);

		orca_dev_tick(&f->dev);	/* firmware alive, device dead */
		CHECK_EQ(le64toh(f->regs->heartbeat), hb + 1);
		orca_dev_hook_hang(&f->dev);
		orca_dev_tick(&f->dev);
		orca_dev_tick(&f->dev);
		CHECK_EQ(le64toh(f->regs->heartbeat), hb + 1);
	}
	fx_free(f);

	/* hang: nothing consumed */
	f = fx_up();
	orca_dev_hook_hang(&f->dev);
	{
		uint32_t ci = le32toh(f->regs->cmdq_ci);

		CHECK_EQ(fx_cmd(f, ORCA_CMD_ALLOC_PD, NULL, 0, NULL, 8), 0xff);
		CHECK_EQ(le32toh(f->regs->cmdq_ci), ci);
	}
	fx_free(f);
}

static void control_requests(void)
{
	struct fx *f = fx_up();
	uint32_t qpn = qp_in_state(f, ORCA_QPT_UC, ORCA_QPS_RTS);
	char line[64], reply[2048];

	CHECK_EQ(ctl_execute(&f->dev, "ping", reply, sizeof(reply)), 0);
	CHECK(!strncmp(reply, "ok pong", 7));
	CHECK_EQ(ctl_execute(&f->dev, "stats", reply, sizeof(reply)), 0);
	CHECK(!strncmp(reply, "ok cmds=", 8));
	CHECK(strstr(reply, "op_CREATE_QP=1") != NULL);
	CHECK(strstr(reply, "op_MODIFY_QP=3") != NULL);
	ctl_execute(&f->dev, "bogus", reply, sizeof(reply));
	CHECK(!strncmp(reply, "error", 5));
	ctl_execute(&f->dev, "", reply, sizeof(reply));
	CHECK(!strncmp(reply, "error", 5));
	ctl_execute(&f->dev, "qp-fatal", reply, sizeof(reply));
	CHECK(!strncmp(reply, "error", 5));
	ctl_execute(&f->dev, "qp-fatal abc", reply, sizeof(reply));
	CHECK(!strncmp(reply, "error", 5));
	ctl_execute(&f->dev, "qp-fatal 5 6", reply, sizeof(reply));
	CHECK(!strncmp(reply, "error", 5));
	ctl_execute(&f->dev, "ping extra", reply, sizeof(reply));
	CHECK(!strncmp(reply, "error", 5));
	snprintf(line, sizeof(line), "sq-error %u", qpn);
	ctl_execute(&f->dev, line, reply, sizeof(reply));
	CHECK(!strncmp(reply, "ok", 2));
	CHECK_EQ(qp_state(f, qpn), ORCA_QPS_SQE);
	snprintf(line, sizeof(line), "qp-fatal 0x%x", qpn);
	ctl_execute(&f->dev, line, reply, sizeof(reply));
	CHECK(!strncmp(reply, "ok", 2));
	CHECK_EQ(qp_state(f, qpn), ORCA_QPS_ERR);
	ctl_execute(&f->dev, "port-down", reply, sizeof(reply));
	CHECK(!strcmp(reply, "ok port 1 down"));
	CHECK_EQ(f->dev.port_state, ORCA_PORT_DOWN);
	ctl_execute(&f->dev, "port-up", reply, sizeof(reply));
	CHECK_EQ(f->dev.port_state, ORCA_PORT_ACTIVE);
	ctl_execute(&f->dev, "fatal 0", reply, sizeof(reply));
	CHECK(!strncmp(reply, "error", 5));
	CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_OK);
	ctl_execute(&f->dev, "fatal", reply, sizeof(reply));
	CHECK(!strcmp(reply, "ok fatal syndrome=1"));
	CHECK_EQ(le32toh(f->regs->fatal_syndrome), ORCA_FATAL_INJECTED);
	CHECK_EQ(ctl_execute(&f->dev, "kill", reply, sizeof(reply)), 1);
	CHECK(!strncmp(reply, "ok", 2));
	ctl_execute(&f->dev, "hang", reply, sizeof(reply));
	CHECK(f->dev.hung);
	fx_free(f);
}

/* ------------------------------------------------------------------ */
/* Robustness: random guest input                                     */
/* ------------------------------------------------------------------ */

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* A guest address: mostly valid mailboxes, sometimes garbage. */
static uint64_t rnd_addr(unsigned int slot)
{
	switch (rnd() % 6) {
	case 0:
		return 0;
	case 1:
		return rnd();
	case 2:
		return RAM_SIZE - (rnd() % 512);
	default:
		return (rnd() & 1) ? IN_MBOX(slot) : OUT_MBOX(slot);
	}
}

static void fuzz_commands(void)
{
	static const uint16_t ops[] = {
		ORCA_CMD_QUERY_CAPS, ORCA_CMD_QUERY_PORT, ORCA_CMD_ALLOC_PD,
		ORCA_CMD_DEALLOC_PD, ORCA_CMD_CREATE_CQ, ORCA_CMD_DESTROY_CQ,
		ORCA_CMD_CREATE_QP, ORCA_CMD_MODIFY_QP, ORCA_CMD_QUERY_QP,
		ORCA_CMD_DESTROY_QP, ORCA_CMD_INIT, 0x77,
	};
	static const uint16_t in_sizes[] = {
		0, sizeof(struct orca_query_port_in), 0,
		sizeof(struct orca_pd_handle), sizeof(struct orca_create_cq_in),
		sizeof(struct orca_cq_handle), sizeof(struct orca_create_qp_in),
		sizeof(struct orca_modify_qp_in), sizeof(struct orca_qp_handle),
		sizeof(struct orca_qp_handle), sizeof(struct orca_init_in), 0,
	};
	const char *const sets[] = { "max_qp=16", "max_cq=8", "max_pd=8", NULL };
	struct fx *f = fx_up_cfg(sets);
	unsigned int round, i, completed = 0;
	struct orca_eqe eqe;

	for (round = 0; round < 3000; round++) {
		unsigned int n = 1 + rnd() % 8;

		for (i = 0; i < n; i++) {
			unsigned int slot = f->pi & (CMDQ_DEPTH - 1);
			struct orca_cmdq_entry e;
			uint8_t *mb = f->ram + IN_MBOX(slot);
			size_t k;

			unsigned int op = rnd() % 12;

			memset(&e, 0, sizeof(e));
			e.opcode = htole16(ops[op]);
			e.token = htole16(f->next_token++);
			/* mostly right lengths, sometimes not */
			e.in_len = htole16(rnd() % 4 ? in_sizes[op] : rnd());
			e.out_len = htole16(rnd() % 4 ? 0x1000 : rnd());
			e.in_mbox = htole64(rnd_addr(slot));
			e.out_mbox = htole64(rnd_addr(slot));
			if (!(rnd() % 16))
				e.reserved = rnd();
			for (k = 0; k < sizeof(e.inline_in); k++)
				e.inline_in[k] = k % 4 || rnd() % 4 ?
						 (rnd() % 8 ? 0 : rnd()) :
						 rnd() % 20;
			/* small numbers hit real handles, states and types */
			for (k = 0; k < 0x120; k++)
				mb[k] = rnd() % 3 ? rnd() % 8 : rnd();
			if (rnd() & 1) {
				struct orca_modify_qp_in *m = (void *)mb;

				memset(m->reserved0, 0, sizeof(m->reserved0));
				memset(m->reserved1, 0, sizeof(m->reserved1));
				memset(m->ctx.reserved, 0, sizeof(m->ctx.reserved));
				m->attr_mask &= htole32(ORCA_QP_ATTR_ALL);
				m->flags &= htole32(ORCA_MODIFY_F_ECE);
			}
			fx_put_entry(f, &e);
		}
		fx_ring(f);
		while (fx_pop(f, &eqe))
			completed += eqe.type == ORCA_EQE_CMD_DONE;
		if (!(round % 100)) {
			char err[64];

			orca_dev_hook_qp_fatal(&f->dev, 2 + rnd() % 16, err,
					       sizeof(err));
			orca_dev_tick(&f->dev);
		}
	}
	CHECK_EQ(le32toh(f->regs->health), ORCA_HEALTH_OK);
	CHECK_EQ(le32toh(f->regs->cmdq_ci), f->pi);
	CHECK(completed > 10000);
	CHECK(f->dev.stats.completions > 10000);
	CHECK(f->dev.n_qps <= 16 && f->dev.n_cqs <= 8 && f->dev.n_pds <= 8);
	/* reference counts stay consistent: everything can be torn down */
	CHECK_EQ(fx_cmd(f, ORCA_CMD_TEARDOWN, NULL, 0, NULL, 0), 0);
	CHECK(canaries_ok(f));
	fx_free(f);
}

static void fuzz_registers(void)
{
	unsigned int round;

	for (round = 0; round < 200; round++) {
		struct fx *f = fx_up();
		unsigned int k;

		for (k = 0; k < 8; k++) {
			switch (rnd() % 7) {
			case 0:
				f->regs->cmdq_base = htole64(rnd() % 3 ?
					rnd() % RAM_SIZE : rnd());
				break;
			case 1:
				f->regs->cmdq_log_depth = htole32(rnd() % 12);
				break;
			case 2:
				f->regs->cmdq_pi = htole32(rnd());
				break;
			case 3:
				f->regs->eq_base = htole64(rnd() % 3 ?
					rnd() % RAM_SIZE : rnd());
				break;
			case 4:
				f->regs->eq_log_depth = htole32(rnd() % 16);
				break;
			case 5:
				f->regs->eq_ci = htole32(rnd());
				break;
			case 6:
				f->regs->qp_mirror_entries = htole32(rnd());
				break;
			}
			orca_dev_doorbell(&f->dev, rnd() & 1);
			orca_dev_tick(&f->dev);
		}
		CHECK(canaries_ok(f));
		fx_free(f);
	}
}

/* ------------------------------------------------------------------ */
/* Configuration                                                      */
/* ------------------------------------------------------------------ */

static int try_set(struct orca_cfg *c, const char *kv)
{
	char err[256];

	return orca_cfg_set_kv(c, kv, err, sizeof(err));
}

static void config_good(void)
{
	struct orca_cfg c;
	char err[256];
	char path[] = "/tmp/orca-emu-test-XXXXXX";
	FILE *fp;
	int fd;

	orca_cfg_defaults(&c);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), 0);
	CHECK_EQ(c.sys_image_guid, c.node_guid);
	CHECK_EQ(c.port_guid, c.node_guid + 1);
	CHECK_EQ(c.ece_vendor_id, c.vendor_id);
	CHECK(orca_cfg_has_ece(&c));

	orca_cfg_defaults(&c);
	CHECK_EQ(try_set(&c, "fw_version=2.10.65535"), 0);
	CHECK_EQ(c.fw_version, ORCA_FW_VERSION(2, 10, 65535));
	CHECK_EQ(try_set(&c, "node_guid=0x1122334455667788"), 0);
	CHECK_EQ(c.node_guid, 0x1122334455667788ULL);
	CHECK_EQ(try_set(&c, "node_guid = 1122:3344:5566:7799"), 0);
	CHECK_EQ(c.node_guid, 0x1122334455667799ULL);
	CHECK_EQ(try_set(&c, "max_qp=10"), 0);
	CHECK_EQ(try_set(&c, "max_qp=010"), 0);	/* decimal, not octal */
	CHECK_EQ(c.max_qp, 10);
	CHECK_EQ(try_set(&c, "max_cqe=0x1000"), 0);
	CHECK_EQ(c.max_cqe, 0x1000);
	CHECK_EQ(try_set(&c, "fw_name=my fw"), 0);
	CHECK(!strcmp(c.fw_name, "my fw"));
	CHECK_EQ(try_set(&c, "lid=0x22"), 0);
	CHECK_EQ(try_set(&c, "dio_rdma_read=0"), 0);
	CHECK_EQ(try_set(&c, "vendor_id=0x123456"), 0);
	CHECK_EQ(try_set(&c, "max_msg_sz=0x80000000"), 0);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), 0);
	CHECK_EQ(c.sys_image_guid, 0x1122334455667799ULL);
	CHECK_EQ(c.port_guid, 0x112233445566779aULL);
	CHECK_EQ(c.ece_vendor_id, 0x123456);

	/* explicit values beat derived ones; ece=0 clears everything */
	orca_cfg_defaults(&c);
	CHECK_EQ(try_set(&c, "port_guid=0xabc"), 0);
	CHECK_EQ(try_set(&c, "sys_image_guid=0xdef"), 0);
	CHECK_EQ(try_set(&c, "ece=0"), 0);
	CHECK_EQ(try_set(&c, "pci_write_end_padding=0"), 0);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), 0);
	CHECK_EQ(c.port_guid, 0xabc);
	CHECK_EQ(c.sys_image_guid, 0xdef);
	CHECK_EQ(c.ece_vendor_id, 0);
	CHECK_EQ(c.ece_options, 0);
	CHECK(!(c.dev_caps & ORCA_DEV_CAP_ECE));
	CHECK(!(c.dev_caps & ORCA_DEV_CAP_PCI_WRITE_END_PADDING));
	CHECK(!orca_cfg_has_ece(&c));
	/* ece_vendor_id=0 also means no ECE */
	orca_cfg_defaults(&c);
	CHECK_EQ(try_set(&c, "ece_vendor_id=0"), 0);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), 0);
	CHECK(!(c.dev_caps & ORCA_DEV_CAP_ECE));

	/* file: comments, blank lines, spaces; --set applied afterwards */
	fd = mkstemp(path);
	CHECK(fd >= 0);
	fp = fdopen(fd, "w");
	fprintf(fp, "# orca config\n\n  max_pd = 17   # trailing comment\n"
		    "fw_version=3.0.1\nmax_qp = 64\n");
	fclose(fp);
	orca_cfg_defaults(&c);
	CHECK_EQ(orca_cfg_load(&c, path, err, sizeof(err)), 0);
	CHECK_EQ(try_set(&c, "max_qp=65"), 0);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), 0);
	CHECK_EQ(c.max_pd, 17);
	CHECK_EQ(c.max_qp, 65);
	CHECK_EQ(c.fw_version, ORCA_FW_VERSION(3, 0, 1));
	unlink(path);
}

static void config_bad(void)
{
	static const char *const bad[] = {
		"nosuchkey=1", "max_qp", "max_qp=", "=5", "max_qp=abc",
		"max_qp=0", "max_qp=-1", "max_qp=1e3", "max_qp=0x",
		"max_qp=99999999999999999999999", "max_qp=300000",
		"phys_port_cnt=2", "max_mtu=6", "lmc=8", "ece=2",
		"dio_send=4", "atomic_cap=3", "vendor_id=0x1000000",
		"fw_version=1.2", "fw_version=1.2.3.4", "fw_version=1.70000.0",
		"fw_version=65536.0.0",
		"fw_version=a.b.c", "fw_version=-1.2.3",
		"node_guid=xyz", "node_guid=0x11223344556677889",
		"fw_name=0123456789012345678901234567890123",
		"max_inline_data=4097",
		/* IBA: a message is at most 2^31 bytes */
		"max_msg_sz=0x80000001", "max_msg_sz=0xffffffff",
	};
	struct orca_cfg c;
	char err[256], path[] = "/tmp/orca-emu-test-XXXXXX";
	unsigned int i;
	FILE *fp;
	int fd;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		orca_cfg_defaults(&c);
		err[0] = '\0';
		if (orca_cfg_set_kv(&c, bad[i], err, sizeof(err)) != -1) {
			printf("#   accepted bad setting '%s'\n", bad[i]);
			CHECK(0);
		}
		CHECK(err[0] != '\0');
	}
	/* cross-key checks at finalize */
	orca_cfg_defaults(&c);
	CHECK_EQ(try_set(&c, "active_mtu=5"), 0);
	CHECK_EQ(try_set(&c, "max_mtu=4"), 0);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), -1);
	orca_cfg_defaults(&c);
	CHECK_EQ(try_set(&c, "dev_caps=0x8"), 0);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), -1);

	/* file errors carry the line number */
	fd = mkstemp(path);
	fp = fdopen(fd, "w");
	fprintf(fp, "max_qp = 5\n# ok\nmax_pd = lots\n");
	fclose(fp);
	orca_cfg_defaults(&c);
	CHECK_EQ(orca_cfg_load(&c, path, err, sizeof(err)), -1);
	CHECK(strstr(err, ":3:") != NULL);
	CHECK(strstr(err, "max_pd") != NULL);
	unlink(path);
	CHECK_EQ(orca_cfg_load(&c, "/nonexistent/orca.conf", err, sizeof(err)), -1);
}

int main(int argc, char **argv)
{
	/* the device logs every rejected command: keep TAP output readable */
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();
	(void)argv;

	RUN(regs_and_bringup);
	RUN(irq_only_after_init);
	RUN(query_caps_defaults);
	RUN(query_port);
	RUN(pd_cq_happy);
	RUN(qp_create_query_destroy);
	RUN(qp_create_checks);
	RUN(limits);
	RUN(in_use);
	RUN(not_ready_and_init_checks);
	RUN(bad_opcode);
	RUN(length_errors);
	RUN(length_forward_compat);
	RUN(dma_mailbox_out_of_range);
	RUN(failed_command_writes_no_output);
	RUN(cmdq_base_out_of_range);
	RUN(eq_base_out_of_range);
	RUN(queue_registers_latched);
	RUN(bad_producer_index);
	RUN(full_ring_one_doorbell);
	RUN(reverse_completions);
	RUN(eq_full);
	RUN(teardown);
	RUN(function_reset);
	RUN(stall_then_reset_first);
	RUN(gid_and_pkey_tables);
	RUN(pkey_table_config);
	RUN(handle_reuse);
	RUN(eq_flood_drops);
	RUN(caps_override);
	RUN(reset_destroys_everything);
	RUN(reconnect_resets_state);
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
	RUN(pci_write_end_padding);
	RUN(mirror_protocol);
	RUN(sqd_drain);
	RUN(async_events_only_when_armed);
	RUN(hooks);
	RUN(control_requests);
	RUN(fuzz_commands);
	RUN(fuzz_registers);
	RUN(config_good);
	RUN(config_bad);
	return tap_done();
}
