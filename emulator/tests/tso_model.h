/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * A model checker for two-sided shared-memory protocols on x86-TSO:
 * every interleaving of two programs of stores, loads and full fences
 * over two shared words.  Each side's stores wait in its store buffer
 * until they drain (in order, at any moment); a load sees its own side's
 * newest buffered store first; a fence waits until the buffer drained.
 * explore() counts the end states (both programs ended, buffers
 * drained) and those the property @bad holds for.  Used by
 * test_dbhint_model.c and test_ring_model.c.
 */
#ifndef ORCA_EMU_TESTS_TSO_MODEL_H
#define ORCA_EMU_TESTS_TSO_MODEL_H

#include <stdbool.h>
#include <string.h>

enum op { ST, FENCE, LD, END };

struct step {
	enum op op;
	int var;		/* 0: awake, 1: record */
	int val;		/* ST: the value */
};

struct side {
	const struct step *prog;
	int pc;
	int buf_var[4], buf_val[4], nbuf;	/* FIFO store buffer */
	int loaded;				/* the value LD saw */
};

struct world {
	int mem[2];
	struct side s[2];	/* 0: poster, 1: device */
};

static unsigned long explored, bad_runs;
/* the property an end state must not have */
static bool (*bad)(const struct world *w);

static inline int load(const struct world *w, int who, int var)
{
	const struct side *s = &w->s[who];
	int i;

	for (i = s->nbuf - 1; i >= 0; i--)
		if (s->buf_var[i] == var)
			return s->buf_val[i];
	return w->mem[var];
}

static inline void explore(struct world w)
{
	int who;
	bool moved = false;

	for (who = 0; who < 2; who++) {
		struct side *s = &w.s[who];
		const struct step *st = &s->prog[s->pc];
		struct world n;

		/* drain the oldest buffered store */
		if (s->nbuf) {
			n = w;
			n.mem[n.s[who].buf_var[0]] = n.s[who].buf_val[0];
			memmove(n.s[who].buf_var, n.s[who].buf_var + 1,
				--n.s[who].nbuf * sizeof(int));
			memmove(n.s[who].buf_val, n.s[who].buf_val + 1,
				n.s[who].nbuf * sizeof(int));
			explore(n);
			moved = true;
		}
		if (st->op == END || (st->op == FENCE && s->nbuf))
			continue;
		n = w;
		switch (st->op) {
		case ST:
			n.s[who].buf_var[n.s[who].nbuf] = st->var;
			n.s[who].buf_val[n.s[who].nbuf++] = st->val;
			break;
		case LD:
			n.s[who].loaded = load(&n, who, st->var);
			break;
		default:
			break;
		}
		n.s[who].pc++;
		explore(n);
		moved = true;
	}
	if (!moved) {		/* both ended, buffers drained */
		explored++;
		if (bad(&w))
			bad_runs++;
	}
}

/*
 * Every run of @s0 (side 0) and @s1 (side 1) from mem = { @m0, @m1 };
 * how many end in a state @is_bad holds for (explored: how many ended).
 */
static inline unsigned long tso_check(const struct step *s0,
				      const struct step *s1, int m0, int m1,
				      bool (*is_bad)(const struct world *w))
{
	struct world w;

	bad = is_bad;
	memset(&w, 0, sizeof(w));
	w.mem[0] = m0;
	w.mem[1] = m1;
	w.s[0].prog = s0;
	w.s[1].prog = s1;
	w.s[0].loaded = w.s[1].loaded = -1;
	explored = bad_runs = 0;
	explore(w);
	return bad_runs;
}

#endif /* ORCA_EMU_TESTS_TSO_MODEL_H */
