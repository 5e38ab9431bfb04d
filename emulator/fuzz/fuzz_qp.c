// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libFuzzer harness: the QP state machine under random transitions.
 * Four QPs of random types, then a program of MODIFY_QP commands with any
 * attribute mask and context, queries of any QPN, destroy and re-create,
 * and device-initiated changes (QP fatal, SQ error, event floods, port
 * down/up).  After every step the device must agree with itself: QUERY_QP
 * and the QP mirror give the same state, a refused MODIFY_QP changed
 * nothing, an accepted one reached the state it asked for.
 */
#include "dp_fixture.h"
#include "fuzz_input.h"
#include "orca_log.h"

#define NQP	4

static const char *const small[] = {
	"max_qp=16", "max_cq=16", "max_pd=8", "max_mr=16", "max_ah=16", NULL,
};

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	orca_log_set_quiet(1);
	return 0;
}

/* The mirror's state of @qpn, 0xff if the entry is not usable. */
static uint8_t mirror_state(struct fx *f, uint32_t qpn)
{
	const struct orca_qp_mirror *m = gpa(f, MIRROR_BASE + 16ULL * qpn);

	if ((le32toh(m->seq) & 1) || le32toh(m->qpn) != qpn)
		return 0xff;
	return m->state;
}

static void agree(struct fx *f, uint32_t qpn, const char *after)
{
	uint8_t q = qp_state_of(f, qpn), m = mirror_state(f, qpn);

	FZ_ASSERT(q != 0xff, "QUERY_QP %u failed after %s", qpn, after);
	FZ_ASSERT(q == m, "QP %u: QUERY_QP says %u, the mirror %u (after %s)",
		  qpn, q, m, after);
}

static void modify(struct fx *f, struct fz *z, struct ring_qp *qp)
{
	struct orca_modify_qp_in in;
	struct orca_qp_ctx out;
	uint8_t before = qp_state_of(f, qp->qpn);
	int st;

	memset(&in, 0, sizeof(in));
	in.qpn = htole32(qp->qpn);
	in.attr_mask = htole32(fz_u32(z));
	fz_bytes(z, &in.ctx, fz_u8(z) % (sizeof(in.ctx) + 1));
	in.ctx.state = fz_u8(z) % 8;
	in.cur_state = fz_u8(z) % 8;
	if (fz_u8(z) < 16)
		in.flags = htole32(ORCA_MODIFY_F_ECE);
	st = fx_cmd(f, ORCA_CMD_MODIFY_QP, &in, sizeof(in), &out,
		    sizeof(out));
	FZ_ASSERT(st != 0xff, "MODIFY_QP %u got no completion", qp->qpn);
	if (st) {
		FZ_ASSERT(qp_state_of(f, qp->qpn) == before,
			  "refused MODIFY_QP (status %d) moved QP %u from %u",
			  st, qp->qpn, before);
	} else if (le32toh(in.attr_mask) & ORCA_QP_STATE) {
		FZ_ASSERT(qp_state_of(f, qp->qpn) == in.ctx.state ||
			  qp_state_of(f, qp->qpn) == ORCA_QPS_ERR,
			  "MODIFY_QP %u to %u accepted, now %u", qp->qpn,
			  in.ctx.state, qp_state_of(f, qp->qpn));
	}
	agree(f, qp->qpn, "MODIFY_QP");
}

static void recreate(struct fx *f, struct fz *z, struct ring_qp *qp)
{
	struct orca_qp_handle h = { .qpn = htole32(qp->qpn) };

	if (qp->qpn)
		FZ_ASSERT(!fx_cmd(f, ORCA_CMD_DESTROY_QP, &h, sizeof(h), NULL, 0),
			  "DESTROY_QP %u refused", qp->qpn);
	qp->qpn = 0;
	make_qp_type = 1 + fz_u8(z) % 3;
	if (make_qp(f, qp, f->cqn))
		agree(f, qp->qpn, "CREATE_QP");
	else
		qp->qpn = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz z = { data, size };
	struct ring_qp qps[NQP] = {};
	struct fx *f;
	unsigned int i, steps = 0;
	char err[128];

	heap_next = HEAP_BASE;
	f = fx_up_cfg(small);
	for (i = 0; i < NQP; i++)
		recreate(f, &z, &qps[i]);
	while (z.n && steps++ < 256) {
		struct ring_qp *qp = &qps[fz_u8(&z) % NQP];
		struct orca_qp_handle h;
		struct orca_qp_ctx ctx;

		if (heap_next > RAM_SIZE - 64 * PAGE)
			break;		/* re-creating used the fake RAM up */
		switch (fz_u8(&z) % 8) {
		case 0: case 1: case 2: case 3:
			if (qp->qpn)
				modify(f, &z, qp);
			break;
		case 4:		/* any QPN at all */
			h.qpn = htole32(fz_u16(&z));
			h.reserved = 0;
			fx_cmd(f, ORCA_CMD_QUERY_QP, &h, sizeof(h), &ctx,
			       sizeof(ctx));
			break;
		case 5:
			recreate(f, &z, qp);
			break;
		case 6:
			if (!qp->qpn)
				break;
			if (fz_u8(&z) & 1)
				orca_dev_hook_qp_fatal(&f->dev, qp->qpn, err,
						       sizeof(err));
			else
				orca_dev_hook_sq_error(&f->dev, qp->qpn, err,
						       sizeof(err));
			agree(f, qp->qpn, "a device-initiated change");
			break;
		case 7:
			if (fz_u8(&z) & 1)
				orca_dev_hook_port(&f->dev, fz_u8(&z) & 1, err,
						   sizeof(err));
			else if (qp->qpn)
				orca_dev_hook_eq_flood(&f->dev,
						       fz_u8(&z) % 300,
						       qp->qpn, err,
						       sizeof(err));
			orca_dev_tick(&f->dev);
			break;
		}
		FZ_ASSERT(canaries_ok(f), "a write outside guest RAM");
	}
	fx_free(f);
	FZ_ASSERT(!tap_case_failures, "a fixture check failed");
	return 0;
}
