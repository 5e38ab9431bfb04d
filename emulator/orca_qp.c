// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the IBTA QP state machine as enforced by the device.
 *
 * One row per legal (current, next) pair.  For each QP type the row lists
 * the attributes the transition requires and the ones it additionally
 * accepts; ORCA_QP_STATE itself is always accepted.  A pair without a row
 * is not a legal transition.  Staying in the same state (attr_mask without
 * ORCA_QP_STATE, or next == cur) is a row like any other: RESET->RESET,
 * INIT->INIT, RTS->RTS, SQD->SQD and ERR->ERR exist, RTR->RTR and SQE->SQE
 * do not.  RESET cannot go to ERR directly (IBTA: ERR is reachable from
 * every state except RESET).
 *
 * CUR_STATE appears only in rows whose source state is RTR, RTS, SQD or
 * SQE: the consumer may only assert the current state where the IBTA
 * allows the "current QP state" modifier.
 */
#include "orca_res.h"

enum { T_RC, T_UC, T_UD, T_NUM };

struct qp_transition {
	uint8_t cur, next;
	uint32_t req[T_NUM];
	uint32_t opt[T_NUM];
};

/* shorthand for the rows below */
#define CUR	ORCA_QP_CUR_STATE
#define SQDN	ORCA_QP_EN_SQD_ASYNC_NOTIFY
#define ACC	ORCA_QP_ACCESS_FLAGS
#define PKEY	ORCA_QP_PKEY_INDEX
#define PORT	ORCA_QP_PORT
#define QKEY	ORCA_QP_QKEY
#define AV	ORCA_QP_AV
#define MTU	ORCA_QP_PATH_MTU
#define TMO	ORCA_QP_TIMEOUT
#define RETRY	ORCA_QP_RETRY_CNT
#define RNR	ORCA_QP_RNR_RETRY
#define RQPSN	ORCA_QP_RQ_PSN
#define RDA	ORCA_QP_MAX_QP_RD_ATOMIC
#define ALT	ORCA_QP_ALT_PATH
#define MINRNR	ORCA_QP_MIN_RNR_TIMER
#define SQPSN	ORCA_QP_SQ_PSN
#define DRDA	ORCA_QP_MAX_DEST_RD_ATOMIC
#define MIG	ORCA_QP_PATH_MIG_STATE
#define DQPN	ORCA_QP_DEST_QPN

/* Attributes accepted while staying in (or returning to) RTS. */
#define RTS_OPT_RC	(CUR | ACC | ALT | MIG | MINRNR)
#define RTS_OPT_UC	(CUR | ACC | ALT | MIG)
#define RTS_OPT_UD	(CUR | QKEY)

#define TO_ANY(s)							\
	{ ORCA_QPS_##s, ORCA_QPS_RESET, { 0 }, { 0 } },			\
	{ ORCA_QPS_##s, ORCA_QPS_ERR, { 0 }, { 0 } }

static const struct qp_transition qp_table[] = {
	{ ORCA_QPS_RESET, ORCA_QPS_RESET, { 0 }, { 0 } },
	{ ORCA_QPS_RESET, ORCA_QPS_INIT,
	  .req = { [T_RC] = PKEY | PORT | ACC, [T_UC] = PKEY | PORT | ACC,
		   [T_UD] = PKEY | PORT | QKEY } },

	TO_ANY(INIT),
	{ ORCA_QPS_INIT, ORCA_QPS_INIT,
	  .opt = { [T_RC] = PKEY | PORT | ACC, [T_UC] = PKEY | PORT | ACC,
		   [T_UD] = PKEY | PORT | QKEY } },
	{ ORCA_QPS_INIT, ORCA_QPS_RTR,
	  .req = { [T_RC] = AV | MTU | DQPN | RQPSN | DRDA | MINRNR,
		   [T_UC] = AV | MTU | DQPN | RQPSN },
	  .opt = { [T_RC] = ALT | ACC | PKEY, [T_UC] = ALT | ACC | PKEY,
		   [T_UD] = PKEY | QKEY } },

	TO_ANY(RTR),
	{ ORCA_QPS_RTR, ORCA_QPS_RTS,
	  .req = { [T_RC] = TMO | RETRY | RNR | SQPSN | RDA,
		   [T_UC] = SQPSN, [T_UD] = SQPSN },
	  .opt = { [T_RC] = RTS_OPT_RC, [T_UC] = RTS_OPT_UC,
		   [T_UD] = RTS_OPT_UD } },

	TO_ANY(RTS),
	{ ORCA_QPS_RTS, ORCA_QPS_RTS,
	  .opt = { [T_RC] = RTS_OPT_RC, [T_UC] = RTS_OPT_UC,
		   [T_UD] = RTS_OPT_UD } },
	{ ORCA_QPS_RTS, ORCA_QPS_SQD,
	  .opt = { [T_RC] = SQDN, [T_UC] = SQDN, [T_UD] = SQDN } },

	TO_ANY(SQD),
	{ ORCA_QPS_SQD, ORCA_QPS_RTS,
	  .opt = { [T_RC] = RTS_OPT_RC, [T_UC] = RTS_OPT_UC,
		   [T_UD] = RTS_OPT_UD } },
	{ ORCA_QPS_SQD, ORCA_QPS_SQD,
	  .opt = { [T_RC] = PORT | AV | TMO | RETRY | RNR | RDA | DRDA |
			    ALT | ACC | PKEY | MINRNR | MIG,
		   [T_UC] = AV | ALT | ACC | PKEY | MIG,
		   [T_UD] = PKEY | QKEY } },

	TO_ANY(SQE),
	{ ORCA_QPS_SQE, ORCA_QPS_RTS,
	  .opt = { [T_UC] = CUR | ACC, [T_UD] = CUR | QKEY } },

	TO_ANY(ERR),
};

static int type_index(unsigned int qp_type)
{
	switch (qp_type) {
	case ORCA_QPT_RC:
		return T_RC;
	case ORCA_QPT_UC:
		return T_UC;
	case ORCA_QPT_UD:
		return T_UD;
	}
	return -1;
}

int orca_qp_check_transition(unsigned int qp_type, unsigned int cur,
			     unsigned int next, uint32_t attr_mask,
			     uint32_t *synd, const char **why)
{
	const struct qp_transition *t = NULL;
	uint32_t req, opt;
	int ti = type_index(qp_type);
	size_t i;

	if (ti < 0) {
		*synd = ORCA_SYND_QP_TYPE;
		*why = "unknown QP type";
		return ORCA_STATUS_INTERNAL;
	}
	for (i = 0; i < sizeof(qp_table) / sizeof(qp_table[0]); i++) {
		if (qp_table[i].cur == cur && qp_table[i].next == next) {
			t = &qp_table[i];
			break;
		}
	}
	if (!t) {
		*synd = ORCA_SYND_TRANSITION;
		*why = "transition not allowed";
		return ORCA_STATUS_BAD_QP_STATE;
	}
	req = t->req[ti];
	opt = t->opt[ti];
	if ((attr_mask & req) != req) {
		*synd = ORCA_SYND_MISSING_ATTR;
		*why = "required attribute missing";
		return ORCA_STATUS_BAD_PARAM;
	}
	if (attr_mask & ~(req | opt | ORCA_QP_STATE)) {
		*synd = ORCA_SYND_INVALID_ATTR;
		*why = "attribute not allowed for this transition";
		return ORCA_STATUS_BAD_PARAM;
	}
	*synd = ORCA_SYND_NONE;
	*why = NULL;
	return ORCA_STATUS_OK;
}
