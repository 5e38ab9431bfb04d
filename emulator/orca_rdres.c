// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: a QP's responder resources, the ring of the READs
 * and atomics it executed (max_dest_rd_atomic entries).  Here their
 * storage and what a state change does to it; orca_rdatom.c executes
 * the requests and answers from it.
 */
#include <stdlib.h>

#include "orca_res.h"

/*
 * A new size (MODIFY_QP's max_dest_rd_atomic): the newest entries stay,
 * so that duplicates of them are still answered.  -1: no memory.
 */
int rd_res_resize(struct orca_qp *qp, uint32_t n)
{
	struct orca_resp *s = &qp->resp;
	struct orca_rd_res *res = NULL;
	uint32_t i, keep = 0;

	if (n == qp->rd_res_n)
		return 0;
	if (n) {
		res = calloc(n, sizeof(*res));
		if (!res)
			return -1;
	}
	/* oldest first: the entry at rd_head is the next to be reused */
	for (i = 0; n && i < qp->rd_res_n; i++) {
		struct orca_rd_res *e =
			&qp->rd_res[(s->rd_head + i) % qp->rd_res_n];

		if (e->type == RD_RES_NONE)
			continue;
		if (keep == n) {
			memmove(res, res + 1, (n - 1) * sizeof(*res));
			keep--;
		}
		res[keep++] = *e;
	}
	free(qp->rd_res);
	qp->rd_res = res;
	qp->rd_res_n = n;
	s->rd_head = n ? keep % n : 0;
	s->rd_due = 0;
	for (i = 0; i < keep; i++)
		s->rd_due += res[i].due;
	return 0;
}

/* RESET: no history, nothing to answer. */
void rd_res_clear(struct orca_qp *qp)
{
	if (qp->rd_res)
		memset(qp->rd_res, 0, qp->rd_res_n * sizeof(*qp->rd_res));
	qp->resp.rd_head = qp->resp.rd_due = 0;
}

/* ERR: nothing more is answered. */
void rd_res_stop(struct orca_qp *qp)
{
	uint32_t i;

	for (i = 0; i < qp->rd_res_n; i++)
		qp->rd_res[i].due = false;
	qp->resp.rd_due = 0;
}

void rd_res_free(struct orca_qp *qp)
{
	free(qp->rd_res);
	qp->rd_res = NULL;
	qp->rd_res_n = 0;
}
