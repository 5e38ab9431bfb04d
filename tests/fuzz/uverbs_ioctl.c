// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The verbs fuzzer's raw layer, ioctl(RDMA_VERBS_IOCTL): methods with
 * their attributes, built around live handles, then damaged (attribute
 * ids, lengths, flags; uverbs_raw.c says how).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/orca-abi.h>
#include <rdma/rdma_user_ioctl.h>

#include "fuzz.h"
#include "orca_hw_io.h"
#include "uverbs_raw.h"

/* ------------------------------------------------------------ ioctl() */
enum akind { A_NONE, A_CONST, A_IDR, A_IDR_NEW, A_FD_NEW, A_FD, A_U32, A_U64, A_U8, A_ENUM,
	     A_IN, A_OUT, A_UHW_IN, A_UHW_OUT };

struct iattr {
	uint16_t id;
	enum akind k;
	uint16_t len;		/* A_IN / A_OUT */
	enum rkind rk;		/* A_IDR */
};

struct imethod {
	const char *name;
	uint16_t obj, method;
	enum rkind makes, destroys;	/* via attribute 0 */
	enum drv drv;
	struct iattr a[12];
};

#define AT(id, k)	{ id, k, 0, R_NONE }
#define ATL(id, k, l)	{ id, k, l, R_NONE }
#define IDR(id, rk)	{ id, A_IDR, 0, rk }
#define CQA(x) UVERBS_ATTR_CREATE_CQ_##x
#define QPA(x) UVERBS_ATTR_CREATE_QP_##x
static const struct imethod imethods[] = {
	{ "device.get_context", UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT,
	  R_NONE, R_NONE, D_UCTX,
	  { ATL(UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, A_OUT, 4),
	    ATL(UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, A_OUT, 8),
	    AT(UVERBS_ATTR_UHW_IN, A_UHW_IN), ATL(UVERBS_ATTR_UHW_OUT, A_UHW_OUT, 24) } },
	{ "device.query_context", UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_CONTEXT,
	  R_NONE, R_NONE, D_NONE,
	  { ATL(UVERBS_ATTR_QUERY_CONTEXT_NUM_COMP_VECTORS, A_OUT, 4),
	    ATL(UVERBS_ATTR_QUERY_CONTEXT_CORE_SUPPORT, A_OUT, 8) } },
	{ "device.query_port", UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT,
	  R_NONE, R_NONE, D_NONE,
	  { AT(UVERBS_ATTR_QUERY_PORT_PORT_NUM, A_CONST),
	    ATL(UVERBS_ATTR_QUERY_PORT_RESP, A_OUT, 48) } },
	{ "device.info_handles", UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INFO_HANDLES,
	  R_NONE, R_NONE, D_NONE,
	  { AT(UVERBS_ATTR_INFO_OBJECT_ID, A_CONST),
	    ATL(UVERBS_ATTR_INFO_TOTAL_HANDLES, A_OUT, 4),
	    ATL(UVERBS_ATTR_INFO_HANDLES_LIST, A_OUT, 256) } },
	{ "device.query_gid_table", UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_TABLE,
	  R_NONE, R_NONE, D_NONE,
	  { AT(UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, A_CONST),
	    AT(UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, A_U32),
	    ATL(UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, A_OUT, 512),
	    ATL(UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, A_OUT, 8) } },
	{ "device.query_gid_entry", UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_ENTRY,
	  R_NONE, R_NONE, D_NONE,
	  { AT(UVERBS_ATTR_QUERY_GID_ENTRY_PORT, A_CONST),
	    AT(UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, A_CONST),
	    AT(UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, A_U32),
	    ATL(UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY, A_OUT, 32) } },
	{ "cq.create", UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE, R_CQ, R_NONE, D_CQ,
	  { AT(CQA(HANDLE), A_IDR_NEW), AT(CQA(CQE), A_U32), AT(CQA(USER_HANDLE), A_U64),
	    AT(CQA(COMP_VECTOR), A_U32), AT(CQA(FLAGS), A_U32), ATL(CQA(RESP_CQE), A_OUT, 4),
	    AT(UVERBS_ATTR_UHW_IN, A_UHW_IN), ATL(UVERBS_ATTR_UHW_OUT, A_UHW_OUT, 8) } },
	{ "cq.destroy", UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY, R_NONE, R_CQ, D_NONE,
	  { IDR(UVERBS_ATTR_DESTROY_CQ_HANDLE, R_CQ),
	    ATL(UVERBS_ATTR_DESTROY_CQ_RESP, A_OUT, 8) } },
	{ "qp.create", UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE, R_QP, R_NONE, D_QP,
	  { AT(QPA(HANDLE), A_IDR_NEW), IDR(QPA(PD_HANDLE), R_PD),
	    IDR(QPA(SEND_CQ_HANDLE), R_CQ), IDR(QPA(RECV_CQ_HANDLE), R_CQ),
	    AT(QPA(USER_HANDLE), A_U64), ATL(QPA(CAP), A_IN, 20), AT(QPA(TYPE), A_CONST),
	    AT(QPA(FLAGS), A_U32), ATL(QPA(RESP_CAP), A_OUT, 20), ATL(QPA(RESP_QP_NUM), A_OUT, 4),
	    AT(UVERBS_ATTR_UHW_IN, A_UHW_IN), ATL(UVERBS_ATTR_UHW_OUT, A_UHW_OUT, 8) } },
	{ "qp.destroy", UVERBS_OBJECT_QP, UVERBS_METHOD_QP_DESTROY, R_NONE, R_QP, D_NONE,
	  { IDR(UVERBS_ATTR_DESTROY_QP_HANDLE, R_QP),
	    ATL(UVERBS_ATTR_DESTROY_QP_RESP, A_OUT, 4) } },
	{ "pd.destroy", UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY, R_NONE, R_PD, D_NONE,
	  { IDR(UVERBS_ATTR_DESTROY_PD_HANDLE, R_PD) } },
	{ "mr.destroy", UVERBS_OBJECT_MR, UVERBS_METHOD_MR_DESTROY, R_NONE, R_MR, D_NONE,
	  { IDR(UVERBS_ATTR_DESTROY_MR_HANDLE, R_MR) } },
	{ "mr.query", UVERBS_OBJECT_MR, UVERBS_METHOD_QUERY_MR, R_NONE, R_NONE, D_NONE,
	  { IDR(UVERBS_ATTR_QUERY_MR_HANDLE, R_MR),
	    ATL(UVERBS_ATTR_QUERY_MR_RESP_LKEY, A_OUT, 4),
	    ATL(UVERBS_ATTR_QUERY_MR_RESP_RKEY, A_OUT, 4),
	    ATL(UVERBS_ATTR_QUERY_MR_RESP_LENGTH, A_OUT, 8),
	    ATL(UVERBS_ATTR_QUERY_MR_RESP_IOVA, A_OUT, 8) } },
	{ "mr.advise", UVERBS_OBJECT_MR, UVERBS_METHOD_ADVISE_MR, R_NONE, R_NONE, D_NONE,
	  { IDR(UVERBS_ATTR_ADVISE_MR_PD_HANDLE, R_PD),
	    AT(UVERBS_ATTR_ADVISE_MR_ADVICE, A_CONST), AT(UVERBS_ATTR_ADVISE_MR_FLAGS, A_U32),
	    ATL(UVERBS_ATTR_ADVISE_MR_SGE_LIST, A_IN, 16) } },
	{ "ah.destroy", UVERBS_OBJECT_AH, UVERBS_METHOD_AH_DESTROY, R_NONE, R_AH, D_NONE,
	  { IDR(UVERBS_ATTR_DESTROY_AH_HANDLE, R_AH) } },
	{ "async_event.alloc", UVERBS_OBJECT_ASYNC_EVENT, UVERBS_METHOD_ASYNC_EVENT_ALLOC,
	  R_NONE, R_NONE, D_NONE,
	  { AT(UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, A_FD_NEW) } },
	{ "device.invoke_write", UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE,
	  R_NONE, R_NONE, D_RAND,
	  { AT(UVERBS_ATTR_WRITE_CMD, A_CONST), ATL(UVERBS_ATTR_CORE_IN, A_IN, 64),
	    ATL(UVERBS_ATTR_CORE_OUT, A_OUT, 128),
	    AT(UVERBS_ATTR_UHW_IN, A_UHW_IN), ATL(UVERBS_ATTR_UHW_OUT, A_UHW_OUT, 32) } },
	{ "random", 0xffff, 0, R_NONE, R_NONE, D_RAND, {} },
};

#define MAX_ATTRS 24
static union {
	struct ib_uverbs_ioctl_hdr hdr;
	uint8_t raw[sizeof(struct ib_uverbs_ioctl_hdr) +
		    MAX_ATTRS * sizeof(struct ib_uverbs_attr)];
} ibuf;
static uint8_t udata_in[256];
static uint32_t qp_caps[5];	/* struct ib_uverbs_qp_cap of qp.create */

/* the value of a constant attribute, mostly one that makes sense */
static uint64_t const_value(const struct imethod *m, uint16_t id)
{
	if (chance(10))
		return rnd_u64();
	if (m->obj == UVERBS_OBJECT_DEVICE) {
		switch (m->method) {
		case UVERBS_METHOD_QUERY_PORT:
			return chance(85) ? 1 : rn(4);
		case UVERBS_METHOD_INFO_HANDLES:
			return rn(UVERBS_OBJECT_ASYNC_EVENT + 2);
		case UVERBS_METHOD_QUERY_GID_TABLE:	/* entry size */
			return chance(85) ? sizeof(struct ib_uverbs_gid_entry) : rn(64);
		case UVERBS_METHOD_QUERY_GID_ENTRY:
			return id == UVERBS_ATTR_QUERY_GID_ENTRY_PORT ?
			       (chance(85) ? 1 : rn(4)) : rn(8);
		case UVERBS_METHOD_INVOKE_WRITE:
			return rn(60);
		}
	}
	if (m->obj == UVERBS_OBJECT_QP)
		return rn(3) == 0 ? IB_UVERBS_QPT_RC : rn(2) ? IB_UVERBS_QPT_UC :
							   IB_UVERBS_QPT_UD;
	return rn(4);
}

/* an attribute's data: what its kind wants, sometimes not */
static void fill_attr(struct ib_uverbs_attr *a, const struct iattr *s, int fdi,
		      const struct imethod *m, uint32_t cqe)
{
	size_t len;

	a->attr_id = s->id;
	a->flags = chance(95) ? UVERBS_ATTR_F_MANDATORY * rn(2) : (uint16_t)rnd();
	switch (s->k) {
	case A_NONE:
		break;
	case A_IDR:
		a->len = 0;
		a->data = get_handle(fdi, s->rk);
		break;
	case A_IDR_NEW:
	case A_FD_NEW:
		a->len = 0;
		a->data = chance(90) ? 0 : rnd_u64();
		break;
	case A_FD:
		a->len = 0;
		a->data = (uint64_t)(int64_t)chan_fd(fdi);
		break;
	case A_CONST:	/* UVERBS_ATTR_CONST_IN: always 8 bytes */
		a->len = 8;
		a->data = const_value(m, s->id);
		break;
	case A_U8:
		a->len = 1;
		a->data = chance(85) ? 1 : (uint8_t)rnd();
		break;
	case A_U32:
		a->len = 4;
		a->data = s->id == CQA(CQE) && m->obj == UVERBS_OBJECT_CQ ? cqe :
			  chance(50) ? rn(8) : rnd_u32();
		break;
	case A_U64:
		a->len = 8;
		a->data = chance(50) ? rn(64) : rnd_u64();
		break;
	case A_ENUM:
		a->len = 0;
		a->attr_data.enum_data.elem_id = chance(80) ? 0 : (uint8_t)rnd();
		a->data = chance(80) ? (uint8_t)(rn(3) == 0 ? IB_UVERBS_QPT_RC :
				rn(2) ? IB_UVERBS_QPT_UC : IB_UVERBS_QPT_UD) : rnd_u32();
		break;
	case A_IN:
		a->len = s->len;
		if (m->drv == D_QP && s->id == QPA(CAP)) {
			a->data = (uintptr_t)qp_caps;
			break;
		}
		a->data = (uintptr_t)in_arena.base + rn((uint32_t)(in_arena.len - s->len));
		break;
	case A_OUT:
	case A_UHW_OUT:
		a->len = s->len;
		a->data = (uintptr_t)out_arena.base + rn(1024) * 8;
		break;
	case A_UHW_IN:
		len = gen_udata(m->drv, udata_in, sizeof(udata_in), cqe,
				m->drv == D_QP ? qp_caps : NULL);
		a->len = (uint16_t)len;
		if (len <= 8)	/* inline in data */
			memcpy(&a->data, udata_in, len);
		else
			a->data = (uintptr_t)udata_in;
		break;
	}
	/* damage: id, length, pointer */
	if (chance(6)) {
		switch (rn(4)) {
		case 0:
			a->attr_id = chance(50) ? (uint16_t)rn(16) : (uint16_t)rnd();
			break;
		case 1:
			a->len = chance(50) ? (uint16_t)rn(64) : (uint16_t)rnd();
			if (a->len > 8 && s->k != A_OUT && s->k != A_UHW_OUT &&
			    s->k != A_IN)
				a->data = (uintptr_t)in_arena.base;
			if (s->k == A_OUT || s->k == A_UHW_OUT)
				a->data = (uintptr_t)out_arena.base;
			break;
		case 2:
			if (a->len > 8)
				a->data = bad_ptr();
			break;
		default:
			a->attr_data.reserved = (uint16_t)rnd();
			break;
		}
	}
}

static int skip_get_context(uint16_t obj, uint16_t method)
{
	return obj == UVERBS_OBJECT_DEVICE && method == UVERBS_METHOD_GET_CONTEXT &&
	       fuzz_skipped("ioctl_get_context");
}

void raw_ioctl(int fdi)
{
	const struct imethod *m = &imethods[rn(ARRAY_SIZE(imethods))];
	struct ib_uverbs_ioctl_hdr *h = &ibuf.hdr;
	unsigned int n = 0, i;
	uint32_t cqe = chance(85) ? rn(300) + 1 : rnd_u32();
	int err, ret, damaged = 0;

	/*
	 * Linux 6.1's ioctl GET_CONTEXT leaks a task_struct reference when it
	 * fails (its error path frees the ucontext without
	 * rdma_restrack_put()): kmemleak on the debug kernel reports every
	 * process that made one.  --skip ioctl_get_context leaves it out.
	 */
	if (skip_get_context(m->obj, m->method))
		return;
	memset(&ibuf, 0, sizeof(ibuf));
	h->object_id = m->obj;
	h->method_id = m->method;
	for (i = 0; i < 5; i++)
		qp_caps[i] = chance(85) ? rn(i < 2 ? 64 : i < 4 ? 4 : 64) : rnd_u32();
	for (i = 0; i < ARRAY_SIZE(m->a) && m->a[i].k != A_NONE; i++) {
		if (chance(4))	/* a missing attribute */
			continue;
		fill_attr(&h->attrs[n++], &m->a[i], fdi, m, cqe);
	}
	if (m->obj == 0xffff) {	/* anything: ids and attributes made up */
		struct iattr s;

		h->object_id = chance(50) ? (uint16_t)rn(20) : (uint16_t)rnd();
		h->method_id = chance(50) ? (uint16_t)rn(8) : (uint16_t)rnd();
		if (skip_get_context(h->object_id, h->method_id))
			h->method_id = UVERBS_METHOD_QUERY_CONTEXT;
		n = rn(8);
		for (i = 0; i < n; i++) {
			s.id = chance(70) ? (uint16_t)rn(16) :
			       chance(50) ? (uint16_t)(UVERBS_ATTR_UHW_IN + rn(2)) :
					    (uint16_t)rnd();
			s.k = (enum akind)(1 + rn(A_UHW_OUT));
			s.len = (uint16_t)rn(256);
			s.rk = (enum rkind)(1 + rn(R_ANY - 1));
			fill_attr(&h->attrs[i], &s, fdi, m, cqe);
		}
		damaged = 1;
	}
	if (chance(5) && n < MAX_ATTRS) {	/* an attribute twice */
		if (n)
			h->attrs[n] = h->attrs[rn(n)];
		n++;
		damaged = 1;
	}
	h->num_attrs = (uint16_t)n;
	h->length = (uint16_t)(sizeof(*h) + n * sizeof(struct ib_uverbs_attr));
	h->driver_id = chance(90) ? 0 : rnd_u32();
	if (chance(4)) {
		switch (rn(4)) {
		case 0:
			h->reserved1 = rnd_u64();
			break;
		case 1:
			h->reserved2 = rnd_u32();
			break;
		case 2:	/* the count no longer matches the length */
			h->num_attrs = (uint16_t)rnd();
			break;
		default:
			h->length = (uint16_t)rnd();
			break;
		}
		damaged = 1;
	}
	/* never let the kernel read past our buffer as attributes */
	if (h->length > sizeof(ibuf) &&
	    h->length == sizeof(*h) + h->num_attrs * sizeof(struct ib_uverbs_attr))
		h->num_attrs = 0;
	ret = ioctl(rfd[fdi].fd, RDMA_VERBS_IOCTL, h);
	err = ret < 0 ? errno : 0;
	note_raw("ioctl", m->name, err);
	if (err || damaged)
		return;
	for (i = 0; i < n; i++) {
		struct ib_uverbs_attr *a = &h->attrs[i];

		if (a->attr_id == 0 && m->makes != R_NONE)
			handle_add(fdi, m->makes, (uint32_t)a->data);
		if (a->attr_id == 0 && m->destroys != R_NONE)
			handle_gone(fdi, m->destroys, (uint32_t)a->data);
		if (m->obj == UVERBS_OBJECT_ASYNC_EVENT && a->attr_id == 0)
			add_extra(fdi, (int)a->data);
	}
}

