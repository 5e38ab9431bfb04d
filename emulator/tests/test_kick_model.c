// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The kick ring's protocol (orca_hw.h, "Kick rings"), model-checked as
 * test_dbhint_model.c checks the doorbell hint: every interleaving of up
 * to two posters and the device's stop steps, on x86-TSO (each side's
 * stores wait in its FIFO store buffer until they drain, a load sees its
 * own side's newest buffered store first, a full fence waits until the
 * buffer has drained, a locked RMW is a full fence that reads and writes
 * memory at once).  The ring has N = 2 entries so that a handful of
 * posts wrap it and fill it.
 *
 *   poster p, on QP q = p + 1 (the provider's post):
 *     store record[q] = 1; load prod; i = fetch_add(prod, 1); load cons;
 *     if i - cons >= N: store overflow = 1
 *     else: store e[i % N].qpn = q; store e[i % N].seq = i + 1
 *     fence; load awake; kick if awake was 0
 *   device (orca_dev_idle(), its stop):
 *     store awake = 0; fence; load overflow
 *     if set: store overflow = 0; fence; load prod; cons = prod; every
 *             QP is named
 *     then:   while e[cons % N].seq == cons + 1: load e[cons % N].qpn,
 *             cons++; store cons if it moved; load the records of the
 *             QPs named
 *     sleep if no record it loaded was 1, else stay awake
 *
 * The provider reserves its entry with a compare-and-swap loop: a load
 * of prod as its first guess, then a locked cmpxchg until one succeeds.
 * The model has the load and the successful cmpxchg, as a fetch_add; a
 * failed cmpxchg is one more locked instruction, a full fence, and can
 * only order more.
 *
 * A kick, and a device that stays awake, make one more pass later: it
 * takes the ring as above (or scans, if overflow is set), from the
 * device's cons, once everything has drained.  That pass is all a kick
 * buys a ringed QP: it does not read every record (orca_hw.h).
 *
 * The end states that must not happen:
 *   lost wakeup  the device slept, no poster kicked, and the stop pass
 *                did not see some poster's record
 *   lost post    neither the stop pass nor the later pass, if there is
 *                one, saw a poster's record: the post waits for the
 *                heartbeat
 *   ring broken  the device took an entry and read a QPN that its
 *                writer did not write, or took more than N in one pass
 * With every fence and the documented store and load orders none of
 * these happens in any interleaving; drop a fence or swap an order and
 * one does (so the checker can find one).
 *
 * Not "every poster that skipped its kick was seen": a post behind an
 * entry reserved but not yet written is not taken by the stop pass, and
 * its poster may have read awake = 1 first.  The earlier poster's kick
 * covers it (orca_hw.h: the device may stop at such an entry, whose
 * poster will kick), and the test shows that this happens.
 *
 * Three sides with a dozen steps each have too many interleavings to
 * walk one by one, so the walk is memoized on the whole state (memory,
 * store buffers, every side's registers): a state's count of complete
 * runs, and of bad ones, is the sum over its successors'.  The counts
 * are still those of every interleaving.
 *
 * The steps are those of the real code: kick_model_poster_ops() and
 * kick_model_device_ops() give the shared-memory operations one side makes
 * alone, in order, which tests/models/ties.c holds against what the
 * provider's post (providers/orca/qp.c) and the device's stop
 * (emulator/orca_kick.c, orca_dbhint.c) really do, traced.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#define N		2	/* ring entries */
#define NQP		3	/* q0: older posts' QP, q1, q2: the posters' */
#define NPOST		2
#define BUFMAX		4	/* deeper than any side's stores in flight */

/* the shared memory: the ring, the hint, the doorbell records */
enum {
	PROD, CONS, OVF, AWAKE, E0,
	NVAR = E0 + 2 * N + NQP
};

#define SEQ(slot)	(E0 + 2 * (slot))
#define QPN(slot)	(E0 + 2 * (slot) + 1)
#define REC(q)		(E0 + 2 * N + (q))

enum { P_REC, P_PROD, P_RMW, P_CONS, P_ST1, P_ST2, P_FENCE, P_AWAKE, P_END };
enum {
	D_AWAKE, D_FENCE, D_OVF, D_CLR_OVF, D_OVF_FENCE, D_PROD, D_SEQ, D_QPN,
	D_PUBLISH, D_REC_NAMED, D_END
};

/* the device's observations, for the properties and the coverage */
#define F_SCANNED	0x01	/* took the overflow path */
#define F_TOOK_POST	0x02	/* took a poster's entry from the ring */
#define F_WRAPPED	0x04	/* ... in slot 0 after a lap: the index wrapped */
#define F_WRONG_QPN	0x08	/* read a QPN its entry's writer did not write */
#define F_OVERTAKEN	0x10	/* took more than N entries in one pass */

struct side {
	signed char pc, nbuf;
	signed char bvar[BUFMAX], bval[BUFMAX];	/* FIFO store buffer */
};

struct poster {
	struct side s;
	signed char i, cons, awake;	/* what RMW and the loads saw */
};

struct device {
	struct side s;
	signed char cons, prod, k, qpn, flags, taken;
	signed char named, seen;	/* QP bitmaps */
};

/* chars only: no padding, so memcmp() and the hash see just the state */
struct state {
	signed char mem[NVAR];
	struct poster p[NPOST];
	struct device d;
};

/* where the device starts: its cons, prod, and what older laps left */
struct start {
	const char *name;
	int cons, prod;
	int seq[N];		/* qpn: all q0, whose record stays 0 */
};

enum dev_mode { DEV_STOPS, DEV_RUNS, DEV_ASLEEP };

/* the protocol, or one with a rule broken */
struct variant {
	bool no_post_fence;	/* poster: no fence before loading awake */
	bool seq_first;		/* poster: seq stored before qpn */
	bool no_dev_fence;	/* device: no fence after awake = 0 */
	bool no_ovf_fence;	/* device: no fence after overflow = 0 */
	bool qpn_load_first;	/* device: qpn loaded before seq */
	enum dev_mode dev;
};

/* what an end state is counted for: the bad, then the coverage */
enum prop {
	LOST_WAKEUP, LOST_POST, RING_BROKEN, SOME_KICK, SOME_NO_KICK,
	COV_TOOK, COV_WRAP, COV_POSTER_OVF, COV_POSTER_ENTRY, COV_SCAN,
	COV_OTHERS_KICK, NPROP
};

#define NCNT		(NPROP + 1)	/* [NPROP]: runs */

static const struct start *start;
static const struct variant *var;
static int posters;
static bool sat;			/* a count overflowed */

/* ---- the memo: state -> counts of runs from it --------------------- */

struct slot {
	struct state key;
	bool used;
	unsigned long long cnt[NCNT];
};

static struct slot *tab;
static size_t tab_size, tab_used;

static unsigned long long hash(const struct state *st)
{
	const unsigned char *b = (const unsigned char *)st;
	unsigned long long h = 14695981039346656037ULL;	/* FNV-1a */
	size_t i;

	for (i = 0; i < sizeof(*st); i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

static struct slot *lookup(const struct state *st)
{
	size_t i = hash(st) & (tab_size - 1);

	while (tab[i].used && memcmp(&tab[i].key, st, sizeof(*st)))
		i = (i + 1) & (tab_size - 1);
	return &tab[i];
}

static void insert(const struct state *st, const unsigned long long *cnt)
{
	struct slot *s;

	if (2 * (tab_used + 1) > tab_size) {	/* keep probes short */
		struct slot *old = tab;
		size_t i, n = tab_size;

		tab_size = 2 * n;
		tab = calloc(tab_size, sizeof(*tab));
		if (!tab)
			abort();
		for (i = 0; i < n; i++)
			if (old[i].used)
				*lookup(&old[i].key) = old[i];
		free(old);
	}
	s = lookup(st);
	s->key = *st;
	s->used = true;
	memcpy(s->cnt, cnt, sizeof(s->cnt));
	tab_used++;
}

/* ---- the steps' operations, for tests/models/ties.c ---------------- */

/* "store rec; rmw prod; ...": what the side run alone did, in order */
static char *oplog;
static size_t oplog_len;

static void op(const char *what)
{
	size_t n;

	if (!oplog)
		return;
	n = strlen(oplog);
	snprintf(oplog + n, oplog_len - n, "%s%s", n ? "; " : "", what);
}

static const char *var_name(int v)
{
	static const char *const slot_names[] = { "seq", "qpn" };

	switch (v) {
	case PROD:
		return "prod";
	case CONS:
		return "cons";
	case OVF:
		return "ovf";
	case AWAKE:
		return "awake";
	}
	return v >= REC(0) ? "rec" : slot_names[(v - E0) % 2];
}

/* ---- the machine --------------------------------------------------- */

static struct side *side(struct state *st, int who)
{
	return who < NPOST ? &st->p[who].s : &st->d.s;
}

static int load(const struct state *st, int who, int v)
{
	const struct side *s = who < NPOST ? &st->p[who].s : &st->d.s;
	char what[16];
	int i;

	snprintf(what, sizeof(what), "load %s", var_name(v));
	op(what);
	for (i = s->nbuf - 1; i >= 0; i--)
		if (s->bvar[i] == v)
			return s->bval[i];
	return st->mem[v];
}

static void store(struct side *s, int v, int val)
{
	char what[16];

	snprintf(what, sizeof(what), "store %s", var_name(v));
	op(what);
	if (s->nbuf == BUFMAX)
		abort();
	s->bvar[s->nbuf] = v;
	s->bval[s->nbuf++] = val;
}

static void drain(struct state *st, struct side *s)
{
	st->mem[s->bvar[0]] = s->bval[0];
	s->nbuf--;
	memmove(s->bvar, s->bvar + 1, s->nbuf);
	memmove(s->bval, s->bval + 1, s->nbuf);
}

/* i - cons >= N as the poster's u32 arithmetic has it: cons past i too */
static bool full(int i, int cons)
{
	return (unsigned int)(i - cons) >= N;
}

/* Runs poster @p's next step; false if it cannot (fence, RMW, end). */
static bool poster_step(struct state *st, int p)
{
	struct poster *po = &st->p[p];
	struct side *s = &po->s;
	int q = p + 1, slot = po->i % N;
	int first = var->seq_first ? SEQ(slot) : QPN(slot);
	int second = var->seq_first ? QPN(slot) : SEQ(slot);
	int after = var->no_post_fence ? P_AWAKE : P_FENCE;

	switch (s->pc) {
	case P_REC:
		store(s, REC(q), 1);
		s->pc = P_PROD;
		break;
	case P_PROD:		/* the CAS loop's first guess */
		load(st, p, PROD);
		s->pc = P_RMW;
		break;
	case P_RMW:		/* lock xadd: drains, then reads and writes */
		if (s->nbuf)
			return false;
		op("rmw prod");
		po->i = st->mem[PROD]++;
		s->pc = P_CONS;
		break;
	case P_CONS:
		po->cons = load(st, p, CONS);
		s->pc = P_ST1;
		break;
	case P_ST1:
		if (full(po->i, po->cons)) {
			store(s, OVF, 1);
			s->pc = after;
		} else {
			store(s, first, first == SEQ(slot) ? po->i + 1 : q);
			s->pc = P_ST2;
		}
		break;
	case P_ST2:
		store(s, second, second == SEQ(slot) ? po->i + 1 : q);
		s->pc = after;
		break;
	case P_FENCE:
		if (s->nbuf)
			return false;
		op("fence");
		s->pc = P_AWAKE;
		break;
	case P_AWAKE:
		po->awake = load(st, p, AWAKE);
		if (!po->awake)
			op("store kick");	/* the device asleep: kick */
		s->pc = P_END;
		break;
	default:
		return false;
	}
	return true;
}

/*
 * The QP whose post wrote entry @idx: q0 for the entries older posts
 * left in the ring, else the poster that reserved @idx; -1 if none did.
 */
static int owner(const struct state *st, int idx)
{
	int p;

	if (idx < start->prod)
		return 0;
	for (p = 0; p < posters; p++)
		if (st->p[p].s.pc > P_RMW && st->p[p].i == idx)
			return p + 1;
	return -1;
}

/* The device takes entry cons, whose QPN it read as @qpn. */
static void take(struct state *st, int qpn)
{
	struct device *d = &st->d;

	if (qpn != owner(st, d->cons))
		d->flags |= F_WRONG_QPN;
	if (qpn >= 0 && qpn < NQP)	/* any QP named is read */
		d->named |= 1 << qpn;
	if (d->cons >= start->prod) {
		d->flags |= F_TOOK_POST;
		if (d->cons >= N && d->cons % N == 0)
			d->flags |= F_WRAPPED;
	}
	d->cons++;
	if (++d->taken > N)
		d->flags |= F_OVERTAKEN;
}

static void next_named(struct device *d)
{
	while (d->k < NQP && !(d->named & 1 << d->k))
		d->k++;
	d->s.pc = d->k < NQP ? D_REC_NAMED : D_END;
}

static bool device_step(struct state *st)
{
	struct device *d = &st->d;
	struct side *s = &d->s;
	int who = NPOST, slot = d->cons % N;

	switch (s->pc) {
	case D_AWAKE:
		store(s, AWAKE, 0);
		s->pc = var->no_dev_fence ? D_OVF : D_FENCE;
		break;
	case D_FENCE:
	case D_OVF_FENCE:
		if (s->nbuf)
			return false;
		op("fence");
		s->pc = s->pc == D_FENCE ? D_OVF : D_PROD;
		break;
	case D_OVF:
		s->pc = load(st, who, OVF) ? D_CLR_OVF : D_SEQ;
		break;
	case D_CLR_OVF:
		store(s, OVF, 0);
		d->flags |= F_SCANNED;
		s->pc = var->no_ovf_fence ? D_PROD : D_OVF_FENCE;
		break;
	case D_PROD:
		/* on from prod; every QP of the context is read */
		d->prod = load(st, who, PROD);
		d->cons = d->prod;
		d->named = (1 << NQP) - 1;
		s->pc = D_SEQ;
		break;
	case D_SEQ:
		if (var->qpn_load_first && d->qpn < 0) {
			d->qpn = load(st, who, QPN(slot));
			break;	/* then seq, at this pc again */
		}
		if (load(st, who, SEQ(slot)) != d->cons + 1)
			s->pc = D_PUBLISH;
		else if (var->qpn_load_first)
			take(st, d->qpn);
		else
			s->pc = D_QPN;
		d->qpn = -1;
		break;
	case D_QPN:
		take(st, load(st, who, QPN(slot)));
		s->pc = D_SEQ;
		break;
	case D_PUBLISH:
		if (d->cons != start->cons)
			store(s, CONS, d->cons);
		d->k = 0;
		next_named(d);
		break;
	case D_REC_NAMED:
		if (load(st, who, REC(d->k)))
			d->seen |= 1 << d->k;
		d->k++;
		next_named(d);
		break;
	default:
		return false;
	}
	return true;
}

/*
 * The pass a kick or a device still awake makes later, everything
 * drained: which QPs' records it sees at 1.
 */
static int later_pass(const struct state *st)
{
	int cons = st->d.cons, seen = 0, q;

	if (st->mem[OVF]) {
		for (q = 0; q < NQP; q++)
			if (st->mem[REC(q)])
				seen |= 1 << q;
		return seen;
	}
	while (st->mem[SEQ(cons % N)] == cons + 1) {
		q = st->mem[QPN(cons % N)];
		if (q >= 0 && q < NQP && st->mem[REC(q)])
			seen |= 1 << q;
		cons++;
	}
	return seen;
}

/* Every run has ended in @st: which properties it has. */
static unsigned int judge(const struct state *st)
{
	const struct device *d = &st->d;
	bool slept = var->dev == DEV_STOPS ? !d->seen : var->dev == DEV_ASLEEP;
	bool kick = false, again;
	unsigned int props = 0;
	int p, later;

	for (p = 0; p < posters; p++) {
		if (st->p[p].awake == 0)
			kick = true;
		else
			props |= 1 << SOME_NO_KICK;
		if (full(st->p[p].i, st->p[p].cons))
			props |= 1 << COV_POSTER_OVF;
		else
			props |= 1 << COV_POSTER_ENTRY;
	}
	again = kick || !slept;
	later = again ? later_pass(st) : 0;
	for (p = 0; p < posters; p++) {
		int q = 1 << (p + 1);

		if (d->seen & q)
			continue;
		if (slept && !kick)
			props |= 1 << LOST_WAKEUP;
		if (!(later & q))
			props |= 1 << LOST_POST;
		else if (slept && st->p[p].awake != 0)
			props |= 1 << COV_OTHERS_KICK;
	}
	if (kick)
		props |= 1 << SOME_KICK;
	if (d->flags & (F_WRONG_QPN | F_OVERTAKEN))
		props |= 1 << RING_BROKEN;
	if (d->flags & F_TOOK_POST)
		props |= 1 << COV_TOOK;
	if (d->flags & F_WRAPPED)
		props |= 1 << COV_WRAP;
	if (d->flags & F_SCANNED)
		props |= 1 << COV_SCAN;
	return props;
}

static void add(unsigned long long *sum, const unsigned long long *cnt)
{
	int i;

	for (i = 0; i < NCNT; i++)
		if (__builtin_add_overflow(sum[i], cnt[i], &sum[i]))
			sat = true;
}

/* @cnt = the runs from @st, and how many of them end with each prop */
static void explore(const struct state *st, unsigned long long *cnt)
{
	unsigned long long sub[NCNT];
	struct slot *memo = lookup(st);
	bool moved = false;
	int who;

	if (memo->used) {
		memcpy(cnt, memo->cnt, sizeof(memo->cnt));
		return;
	}
	memset(cnt, 0, NCNT * sizeof(*cnt));
	for (who = 0; who <= NPOST; who++) {
		struct state n = *st;

		/* drain the oldest buffered store */
		if (side(&n, who)->nbuf) {
			drain(&n, side(&n, who));
			explore(&n, sub);
			add(cnt, sub);
			moved = true;
			n = *st;
		}
		if (who < NPOST ? poster_step(&n, who) : device_step(&n)) {
			explore(&n, sub);
			add(cnt, sub);
			moved = true;
		}
	}
	if (!moved) {		/* every side ended, buffers drained */
		unsigned int props = judge(st);
		int i;

		for (i = 0; i < NPROP; i++)
			cnt[i] = props >> i & 1;
		cnt[NPROP] = 1;
	}
	insert(st, cnt);
}

static unsigned long long runs, states;

/*
 * Every run of @np posters and the device from @sp under @v; returns
 * how many end with @prop (runs and states: how many there were).
 */
static unsigned long long check(const struct start *sp, int np,
				const struct variant *v, enum prop prop)
{
	unsigned long long cnt[NCNT];
	struct state st;
	int p, slot;

	start = sp;
	posters = np;
	var = v;
	sat = false;
	memset(&st, 0, sizeof(st));
	st.mem[PROD] = sp->prod;
	st.mem[CONS] = sp->cons;
	st.mem[AWAKE] = v->dev != DEV_ASLEEP;
	for (slot = 0; slot < N; slot++)
		st.mem[SEQ(slot)] = sp->seq[slot];
	for (p = 0; p < NPOST; p++) {
		st.p[p].s.pc = p < np ? P_REC : P_END;
		st.p[p].awake = -1;
	}
	st.d.s.pc = v->dev == DEV_STOPS ? D_AWAKE : D_END;
	st.d.cons = sp->cons;
	st.d.qpn = -1;
	tab_size = 1024;
	tab = calloc(tab_size, sizeof(*tab));
	if (!tab)
		abort();
	explore(&st, cnt);
	states = tab_used;
	free(tab);
	tab = NULL;
	tab_size = 0;
	tab_used = 0;
	runs = cnt[NPROP];
	CHECK(!sat);
	return cnt[prop];
}

/* ---- the cases ----------------------------------------------------- */

/* the ring as a start leaves it; qpn of every entry: q0 */
static const struct start empty = { "empty ring", 0, 0, { 0, 0 } };
/* older laps took indices 0..2: the posts reuse slot 1, then slot 0 */
static const struct start wrap = { "wrap", 3, 3, { 3, 2 } };
/* index 1 for q0 not yet taken: one post fits, the next overflows */
static const struct start one_left = { "one slot left", 1, 2, { 1, 2 } };
/*
 * indices 1, 2 for q0 not yet taken: a post overflows unless the device
 * took them first
 */
static const struct start ring_full = { "full ring", 1, 3, { 3, 2 } };

static const struct variant protocol = { .dev = DEV_STOPS };

/* ---- one side alone, its operations (tests/models/ties.c) ---------- */

/* run @who (a poster, or NPOST: the device) alone to its end */
static void solo(struct state *st, int who)
{
	struct side *s = side(st, who);

	for (;;) {
		if (who < NPOST ? poster_step(st, who) : device_step(st))
			continue;
		if (!s->nbuf)
			break;
		drain(st, s);
	}
	while (s->nbuf)
		drain(st, s);
}

static void solo_start(struct state *st, const struct start *sp, int awake,
		       int ovf)
{
	int slot;

	start = sp;
	var = &protocol;
	posters = 1;
	memset(st, 0, sizeof(*st));
	st->mem[PROD] = sp->prod;
	st->mem[CONS] = sp->cons;
	st->mem[AWAKE] = awake;
	st->mem[OVF] = ovf;
	for (slot = 0; slot < N; slot++)
		st->mem[SEQ(slot)] = sp->seq[slot];
	st->p[0].s.pc = P_END;
	st->p[1].s.pc = P_END;
	st->d.s.pc = D_END;
	st->d.cons = sp->cons;
	st->d.qpn = -1;
}

/* @who alone from @st, its operations into @buf */
static void solo_ops(struct state *st, int who, char *buf, size_t len)
{
	buf[0] = 0;
	oplog = buf;
	oplog_len = len;
	solo(st, who);
	oplog = NULL;
}

/*
 * The operations of one post alone, as the protocol has them, into @buf:
 * a ring with @cons and @prod (a full one overflows), the hint @awake.
 */
void kick_model_poster_ops(int cons, int prod, int awake, char *buf,
			   size_t len);
void kick_model_poster_ops(int cons, int prod, int awake, char *buf,
			   size_t len)
{
	struct start sp = { "solo", cons, prod, { 0, 0 } };
	struct state st;

	solo_start(&st, &sp, awake, 0);
	st.p[0].s.pc = P_REC;
	solo_ops(&st, 0, buf, len);
}

/*
 * The operations of the device's stop alone, as the protocol has them,
 * into @buf: a ring with @cons and @prod whose entries from cons on carry
 * their sequence numbers and name q1, q2 (@ovf: overflow set instead);
 * the records of q1 and q2 at 1.
 */
void kick_model_device_ops(int cons, int prod, int ovf, char *buf,
			   size_t len);
void kick_model_device_ops(int cons, int prod, int ovf, char *buf,
			   size_t len)
{
	struct start sp = { "solo", cons, prod, { 0, 0 } };
	struct state st;
	int i;

	solo_start(&st, &sp, 1, ovf);
	for (i = cons; !ovf && i < prod && i < cons + N; i++) {
		st.mem[SEQ(i % N)] = i + 1;
		st.mem[QPN(i % N)] = 1 + (i - cons) % 2;
	}
	st.mem[REC(1)] = 1;
	st.mem[REC(2)] = 1;
	st.d.s.pc = D_AWAKE;
	solo_ops(&st, NPOST, buf, len);
}

static void loses_nothing(const struct start *sp, int np)
{
	CHECK_EQ(check(sp, np, &protocol, LOST_WAKEUP), 0);
	CHECK_EQ(check(sp, np, &protocol, LOST_POST), 0);
	CHECK_EQ(check(sp, np, &protocol, RING_BROKEN), 0);
	CHECK(runs > 100);		/* it did explore */
	printf("# %s, %d poster%s: %llu interleavings (%llu states), none loses a post\n",
	       sp->name, np, np > 1 ? "s" : "", runs, states);
}

/* How many of the protocol's runs from @sp with 2 posters have @prop. */
static unsigned long long covered(const struct start *sp, enum prop prop)
{
	return check(sp, NPOST, &protocol, prop);
}

/* one poster, then two: each start, each path it is there for taken */
static void empty_ring_loses_nothing(void)
{
	loses_nothing(&empty, 1);
	loses_nothing(&empty, 2);
	CHECK(covered(&empty, COV_TOOK) > 0);
	/* a post that skipped its kick, found by the other's kick */
	CHECK(covered(&empty, COV_OTHERS_KICK) > 0);
}

static void wrapped_ring_loses_nothing(void)
{
	loses_nothing(&wrap, 1);
	loses_nothing(&wrap, 2);
	CHECK(covered(&wrap, COV_WRAP) > 0);
}

static void last_slot_loses_nothing(void)
{
	loses_nothing(&one_left, 1);
	loses_nothing(&one_left, 2);
	CHECK(covered(&one_left, COV_TOOK) > 0);
	CHECK(covered(&one_left, COV_POSTER_OVF) > 0);
}

static void full_ring_loses_nothing(void)
{
	loses_nothing(&ring_full, 1);
	loses_nothing(&ring_full, 2);
	CHECK(covered(&ring_full, COV_POSTER_OVF) > 0);
	CHECK(covered(&ring_full, COV_SCAN) > 0);
	/* after the device took the old entries: for its later pass */
	CHECK(covered(&ring_full, COV_POSTER_ENTRY) > 0);
}

/* a rule broken: some run of @np posters from @sp must end with @prop */
static void must_fail(const struct start *sp, int np, const struct variant *v,
		      enum prop prop, const char *what)
{
	unsigned long long n = check(sp, np, v, prop);

	CHECK(n > 0);
	printf("# %s: %llu of %llu interleavings from %s\n", what, n, runs,
	       sp->name);
}

/* store buffering: each side's load may miss the other's store */
static void each_fence_is_needed(void)
{
	static const struct variant no_post = { .no_post_fence = true };
	static const struct variant no_dev = { .no_dev_fence = true };

	must_fail(&empty, 1, &no_post, LOST_WAKEUP,
		  "no poster fence: lost wakeup");
	must_fail(&empty, 1, &no_dev, LOST_WAKEUP,
		  "no device fence: lost wakeup");
}

/*
 * Without the fence after overflow = 0 the device may read prod before
 * that store lands; a poster that reserves after the read and overflows
 * then has its overflow = 1 overwritten, and no pass scans for it.
 */
static void overflow_fence_is_needed(void)
{
	static const struct variant no_ovf = { .no_ovf_fence = true };

	must_fail(&ring_full, 2, &no_ovf, LOST_POST,
		  "no fence after overflow = 0: lost post");
}

/*
 * seq before qpn: the device may see seq and read the QPN an older lap
 * left, take the entry for the wrong QP, and no later pass finds it.
 * The same if the device loads the QPN before the seq.
 */
static void entry_orders_are_needed(void)
{
	static const struct variant seq_first = { .seq_first = true };
	static const struct variant qpn_load_first = { .qpn_load_first = true };

	must_fail(&wrap, 1, &seq_first, RING_BROKEN,
		  "seq stored first: wrong QPN read");
	must_fail(&wrap, 1, &seq_first, LOST_POST,
		  "seq stored first: lost post");
	must_fail(&wrap, 1, &qpn_load_first, RING_BROKEN,
		  "QPN loaded first: wrong QPN read");
	must_fail(&wrap, 1, &qpn_load_first, LOST_POST,
		  "QPN loaded first: lost post");
}

/*
 * A device asleep from the start (awake 0) is kicked by every post and
 * its next pass finds each; one that is awake and stays so (it does not
 * stop) is never kicked and finds them too: the hint saves kicks.
 */
static void kick_only_when_needed(void)
{
	static const struct variant asleep = { .dev = DEV_ASLEEP };
	static const struct variant running = { .dev = DEV_RUNS };

	CHECK_EQ(check(&empty, 2, &asleep, SOME_NO_KICK), 0);
	CHECK_EQ(check(&empty, 2, &asleep, LOST_POST), 0);
	CHECK_EQ(check(&ring_full, 2, &asleep, LOST_POST), 0);
	CHECK(runs > 0);
	CHECK_EQ(check(&empty, 2, &running, SOME_KICK), 0);
	CHECK_EQ(check(&wrap, 2, &running, LOST_POST), 0);
	CHECK(runs > 0);
}

int main(void)
{
	RUN(empty_ring_loses_nothing);
	RUN(wrapped_ring_loses_nothing);
	RUN(last_slot_loses_nothing);
	RUN(full_ring_loses_nothing);
	RUN(each_fence_is_needed);
	RUN(overflow_fence_is_needed);
	RUN(entry_orders_are_needed);
	RUN(kick_only_when_needed);
	return tap_done();
}
