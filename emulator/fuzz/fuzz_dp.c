// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libFuzzer harness: the data path as a hostile provider drives it.  Two
 * connected RC pairs (one whose peer grants remote access, one whose does
 * not) over registered regions, then a program of send and receive WQEs
 * with any opcode, flags, lengths, local and remote addresses and keys,
 * raw WQE bytes, producer indices that jump, ticks and CQ polling; and
 * memory windows of both types, bound, invalidated and used with any
 * range, rights and key; and a link that drops, duplicates, reorders and
 * delays packets.  All
 * guest memory the device was never given is filled with a pattern; the
 * device must leave it alone (and everything outside guest RAM), and
 * ASan/UBSan must stay quiet.
 */
#include "dp_fixture.h"
#include "fuzz_input.h"
#include "orca_log.h"

#define GUARD_BYTE	0x5a
#define MR_PAGES	8

static const char *const small[] = {
	"max_qp=16", "max_cq=16", "max_pd=8", "max_mr=16", "max_ah=16",
	"max_mw=4", "db_poll_us=2", NULL,
};

#define HINT_BASE	0x2fe000ULL	/* the doorbell hint, below the heap */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	orca_log_set_quiet(1);
	return 0;
}

struct world {
	struct fx *f;
	struct ring_cq cq;
	struct ring_qp qp[4];		/* a <-> b granted, c <-> d not */
	uint64_t mr, ro;		/* regions: remote access, local only */
	uint32_t lk, lk_ro;
	uint32_t mw[2];			/* a type 1 and a type 2 window */
	uint64_t guard;			/* first byte nobody was given */
};

static bool setup(struct world *w)
{
	const uint32_t remote = ORCA_ACCESS_REMOTE_WRITE |
				ORCA_ACCESS_REMOTE_READ |
				ORCA_ACCESS_REMOTE_ATOMIC;
	struct fx *f = w->f;
	int i;

	w->mr = heap_alloc(MR_PAGES * PAGE);
	w->ro = heap_alloc(2 * PAGE);
	if (reg_mr(f, f->pdn, w->mr, MR_PAGES * PAGE,
		   ORCA_ACCESS_LOCAL_WRITE | ORCA_ACCESS_MW_BIND | remote,
		   &w->lk) ||
	    reg_mr(f, f->pdn, w->ro, 2 * PAGE, ORCA_ACCESS_LOCAL_WRITE,
		   &w->lk_ro) ||
	    !make_cq(f, &w->cq, 6))
		return false;
	make_qp_type = ORCA_QPT_RC;
	for (i = 0; i < 4; i++)
		if (!make_qp(f, &w->qp[i], w->cq.cqn))
			return false;
	if (!connect_rc(f, &w->qp[0], w->qp[1].qpn, remote, 1) ||
	    !connect_rc(f, &w->qp[1], w->qp[0].qpn, remote, 3) ||
	    !connect_rc(f, &w->qp[2], w->qp[3].qpn, 0, 1) ||
	    !connect_rc(f, &w->qp[3], w->qp[2].qpn, 0, 2))
		return false;
	for (i = 0; i < 2; i++) {
		struct orca_alloc_mw_in in = { .pdn = htole32(f->pdn),
					       .type = i + 1 };
		struct orca_mw_handle out;

		if (fx_cmd(f, ORCA_CMD_ALLOC_MW, &in, sizeof(in), &out,
			   sizeof(out)))
			return false;
		w->mw[i] = le32toh(out.rkey);
	}
	w->guard = heap_next;
	memset(gpa(f, w->guard), GUARD_BYTE, RAM_SIZE - w->guard);
	return true;
}

/* An address around the regions: inside, across an edge, or outside. */
static uint64_t any_addr(struct world *w, struct fz *z)
{
	int64_t off = (int64_t)(fz_u32(z) % ((MR_PAGES + 6) * PAGE)) -
		      (int64_t)(2 * PAGE);

	return iova(w->mr) + off;
}

static uint32_t any_key(struct world *w, struct fz *z)
{
	switch (fz_u8(z) % 6) {
	case 0: return w->lk;
	case 1: return w->lk_ro;
	case 2: return w->lk ^ 0xff;	/* right index, stale key byte */
	case 3: return (w->mw[0] & ~0xffU) | fz_u8(z);
	case 4: return (w->mw[1] & ~0xffU) | fz_u8(z);
	default: return fz_u32(z);
	}
}

static void send(struct world *w, struct fz *z, struct ring_qp *qp)
{
	uint8_t op = fz_u8(z) % (ORCA_WR_BIND_MW + 2);
	uint64_t la = any_addr(w, z), ra = any_addr(w, z);
	uint32_t len = fz_u16(z) % (3 * PAGE), lk = any_key(w, z);
	uint32_t rk = any_key(w, z);

	wqe_extra_flags = fz_u8(z) & ~ORCA_WQE_F_SIGNALED;
	/* post_send() takes guest addresses and makes them iovas */
	post_send(w->f, qp, op, la - iova(0), len, lk, ra, rk);
	wqe_extra_flags = 0;
}

/* BIND_MW of either window, any region, range and rights. */
static void bind(struct world *w, struct fz *z, struct ring_qp *qp)
{
	uint8_t *slot = gpa(w->f, qp->base + ((uint64_t)(qp->sq_pi & 7)
					      << SQ_LOG_STRIDE));
	struct orca_bind_wqe *b = (void *)slot;
	__le32 *db = gpa(w->f, qp->base + qp->db_off);

	memset(slot, 0, 1U << SQ_LOG_STRIDE);
	b->opcode = ORCA_WR_BIND_MW;
	b->flags = ORCA_WQE_F_SIGNALED | (fz_u8(z) & ORCA_WQE_F_FENCE);
	b->rkey = htole32(any_key(w, z));
	b->mr_lkey = htole32(any_key(w, z));
	b->addr = htole64(any_addr(w, z));
	b->length = htole64(fz_u8(z) & 1 ? 0 : fz_u32(z) % (4 * PAGE));
	b->access = htole32(fz_u8(z) & 0x1f);
	*db = htole32(++qp->sq_pi);
	orca_dev_doorbell(&w->f->dev, ORCA_FW_VEC_DB);
}

static void raw_wqe(struct world *w, struct fz *z, struct ring_qp *qp)
{
	uint8_t *slot = gpa(w->f, qp->base + ((uint64_t)(qp->sq_pi & 7)
					      << SQ_LOG_STRIDE));
	__le32 *db = gpa(w->f, qp->base + qp->db_off);

	fz_bytes(z, slot, 1U << SQ_LOG_STRIDE);
	*db = htole32(++qp->sq_pi);
	orca_dev_doorbell(&w->f->dev, ORCA_FW_VEC_DB);
}

static void recv(struct world *w, struct fz *z, struct ring_qp *qp)
{
	uint64_t a = any_addr(w, z);

	post_recv(w->f, qp, a - iova(0), fz_u16(z) % (3 * PAGE),
		  any_key(w, z));
	orca_dev_doorbell(&w->f->dev, ORCA_FW_VEC_DB);
}

static void jump_pi(struct world *w, struct fz *z, struct ring_qp *qp)
{
	__le32 *db = gpa(w->f, qp->base + qp->db_off + 4 * (fz_u8(z) & 1));

	*db = htole32(fz_u32(z));
	orca_dev_doorbell(&w->f->dev, ORCA_FW_VEC_DB);
}

static void guard_check(struct world *w, const char *when)
{
	const uint8_t *g = gpa(w->f, w->guard);
	uint64_t i;

	for (i = 0; i < RAM_SIZE - w->guard; i++)
		FZ_ASSERT(g[i] == GUARD_BYTE,
			  "%s: guest address 0x%llx, given to nobody, written",
			  when, (unsigned long long)(w->guard + i));
	FZ_ASSERT(canaries_ok(w->f), "%s: a write outside guest RAM", when);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz z = { data, size };
	struct world w = {};
	struct orca_cqe cqe;
	unsigned int steps = 0, i;

	w.f = dp_up_hint(small, HINT_BASE);
	FZ_ASSERT(setup(&w), "the fixture could not set up its QPs");
	while (z.n && steps++ < 128) {
		struct ring_qp *qp = &w.qp[fz_u8(&z) % 4];

		switch (fz_u8(&z) % 10) {
		case 0: case 1: case 2:
			send(&w, &z, qp);
			break;
		case 3:
			raw_wqe(&w, &z, qp);
			break;
		case 4:
			recv(&w, &z, qp);
			break;
		case 5:
			jump_pi(&w, &z, qp);
			break;
		case 6:
			for (i = fz_u8(&z) % 4; i; i--)
				orca_dev_tick(&w.f->dev);
			orca_dev_work(&w.f->dev);
			/* the poll loop, up to its wait: the hint says asleep */
			for (i = 0; orca_dev_idle(&w.f->dev) && i < 100000; i++)
				;
			FZ_ASSERT(i < 100000, "the engine never settles");
			FZ_ASSERT(!w.f->dev.db_awake || w.f->dev.hung,
				  "the device would wait while saying it is awake");
			FZ_ASSERT(!le32toh(((struct orca_db_hint *)
					    gpa(w.f, HINT_BASE))->awake) ||
				  w.f->dev.db_awake,
				  "the hint says awake, the device does not");
			break;
		case 7:
			while (poll_cqe(w.f, &w.cq, &cqe))
				;
			break;
		case 8:
			bind(&w, &z, qp);
			break;
		case 9:
			/* a lossy link from here on */
			orca_dev_hook_link_faults(&w.f->dev,
						  fz_u32(&z) % 400000,
						  fz_u32(&z) % 400000,
						  fz_u32(&z) % 400000,
						  fz_u8(&z) % 100);
			break;
		}
		FZ_ASSERT(canaries_ok(w.f), "a write outside guest RAM");
	}
	for (i = 0; i < 4; i++)
		orca_dev_tick(&w.f->dev);
	guard_check(&w, "after the program");
	fx_free(w.f);
	FZ_ASSERT(!tap_case_failures, "a fixture check failed");
	return 0;
}
