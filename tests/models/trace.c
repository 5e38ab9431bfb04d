// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* The recorder of trace_atomics.h, and the trace in the models' words. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

#define MAX_OPS		256

struct mt_op {
	enum mt_kind kind;
	const volatile void *addr;
	int order;
};

static struct mt_op trace[MAX_OPS];
static int ntrace;
static bool tracing;

void mt_record(enum mt_kind kind, const volatile void *addr, int order)
{
	if (!tracing)
		return;
	if (ntrace == MAX_OPS) {
		fprintf(stderr, "models: more than %d operations traced\n",
			MAX_OPS);
		exit(2);
	}
	trace[ntrace++] = (struct mt_op){ kind, addr, order };
}

void trace_on(bool on)
{
	if (on)
		ntrace = 0;
	tracing = on;
}

struct region {
	const volatile char *addr;
	size_t len;
	const char *name;
};

static struct region regions[2048];
static int nregions;

void trace_forget_regions(void)
{
	nregions = 0;
}

void name_region(const volatile void *addr, size_t len, const char *name)
{
	if (nregions == (int)(sizeof(regions) / sizeof(regions[0]))) {
		fprintf(stderr, "models: too many regions\n");
		exit(2);
	}
	regions[nregions++] = (struct region){ addr, len, name };
}

/* NULL: leave it out; "?": memory the model does not know */
static const char *name_of(const volatile void *addr)
{
	const volatile char *a = addr;
	int i;

	for (i = 0; i < nregions; i++)
		if (a >= regions[i].addr && a < regions[i].addr + regions[i].len)
			return regions[i].name;
	return "?";
}

void collapse_runs(char *buf)
{
	char out[OPS_LEN], last[64] = "", *tok, *save = NULL;
	size_t n = 0;

	out[0] = 0;
	for (tok = strtok_r(buf, ";", &save); tok;
	     tok = strtok_r(NULL, ";", &save)) {
		while (*tok == ' ')
			tok++;
		if (!strcmp(tok, last))
			continue;
		snprintf(last, sizeof(last), "%s", tok);
		n += snprintf(out + n, sizeof(out) - n, "%s%s", n ? "; " : "",
			      tok);
		if (n >= sizeof(out))
			break;
	}
	strcpy(buf, out);
}

void trace_ops(char *buf, size_t len, bool collapse)
{
	size_t n = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < ntrace && n < len; i++) {
		const struct mt_op *o = &trace[i];
		const char *name = o->kind == MT_FENCE ? "" : name_of(o->addr);
		char what[48];

		if (!name)
			continue;
		switch (o->kind) {
		case MT_LOAD:
			snprintf(what, sizeof(what), "load %s", name);
			break;
		case MT_STORE:
			/* x86: a seq_cst store is a store and a full fence */
			snprintf(what, sizeof(what), "store %s%s", name,
				 o->order == __ATOMIC_SEQ_CST ? "; fence" : "");
			break;
		case MT_RMW:
			snprintf(what, sizeof(what), "rmw %s", name);
			break;
		case MT_FENCE:
			/* acquire and release fences: no instruction on x86 */
			if (o->order != __ATOMIC_SEQ_CST)
				continue;
			snprintf(what, sizeof(what), "fence");
			break;
		}
		n += snprintf(buf + n, len - n, "%s%s", n ? "; " : "", what);
	}
	if (collapse)
		collapse_runs(buf);
}

static int tests, failed;

void ok(bool pass, const char *what, const char *real, const char *model)
{
	tests++;
	if (!pass)
		failed++;
	printf("%sok %d - %s\n", pass ? "" : "not ", tests, what);
	printf("#   the code:  %s\n#   the model: %s\n", real, model);
}

int done_testing(void)
{
	printf("1..%d\n", tests);
	return failed ? 1 : 0;
}
