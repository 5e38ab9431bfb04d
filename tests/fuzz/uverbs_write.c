// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The verbs fuzzer's raw layer, write(): every command of
 * struct ib_uverbs_cmd_hdr and the extended header, built around live
 * handles with orca's driver data, then damaged (uverbs_raw.c says how).
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

/* ------------------------------------------------------------ write() */
#define H(s, f, k) { offsetof(struct s, f), k }
struct wcmd {
	const char *name;
	uint32_t cmd;		/* IB_USER_VERBS_CMD_FLAG_EXTENDED for ex */
	uint16_t in_size, out_size;
	uint8_t has_resp;
	enum drv drv;
	enum rkind makes;	/* the response starts with this handle */
	enum rkind destroys;	/* the command takes this handle away */
	struct { uint16_t off; enum rkind k; } h[4];
};

#define EX IB_USER_VERBS_CMD_FLAG_EXTENDED
static const struct wcmd wcmds[] = {
	{ "get_context", IB_USER_VERBS_CMD_GET_CONTEXT,
	  sizeof(struct ib_uverbs_get_context), sizeof(struct ib_uverbs_get_context_resp),
	  1, D_UCTX, R_NONE, R_NONE, {} },
	{ "query_device", IB_USER_VERBS_CMD_QUERY_DEVICE,
	  sizeof(struct ib_uverbs_query_device), sizeof(struct ib_uverbs_query_device_resp),
	  1, D_RAND, R_NONE, R_NONE, {} },
	{ "query_port", IB_USER_VERBS_CMD_QUERY_PORT,
	  sizeof(struct ib_uverbs_query_port), sizeof(struct ib_uverbs_query_port_resp),
	  1, D_NONE, R_NONE, R_NONE, {} },
	{ "alloc_pd", IB_USER_VERBS_CMD_ALLOC_PD,
	  sizeof(struct ib_uverbs_alloc_pd), sizeof(struct ib_uverbs_alloc_pd_resp),
	  1, D_RAND, R_PD, R_NONE, {} },
	{ "dealloc_pd", IB_USER_VERBS_CMD_DEALLOC_PD,
	  sizeof(struct ib_uverbs_dealloc_pd), 0, 0, D_NONE, R_NONE, R_PD,
	  { H(ib_uverbs_dealloc_pd, pd_handle, R_PD) } },
	{ "create_ah", IB_USER_VERBS_CMD_CREATE_AH,
	  sizeof(struct ib_uverbs_create_ah), sizeof(struct ib_uverbs_create_ah_resp),
	  1, D_RAND, R_AH, R_NONE, { H(ib_uverbs_create_ah, pd_handle, R_PD) } },
	{ "destroy_ah", IB_USER_VERBS_CMD_DESTROY_AH,
	  sizeof(struct ib_uverbs_destroy_ah), 0, 0, D_NONE, R_NONE, R_AH,
	  { H(ib_uverbs_destroy_ah, ah_handle, R_AH) } },
	{ "reg_mr", IB_USER_VERBS_CMD_REG_MR,
	  sizeof(struct ib_uverbs_reg_mr), sizeof(struct ib_uverbs_reg_mr_resp),
	  1, D_RAND, R_MR, R_NONE, { H(ib_uverbs_reg_mr, pd_handle, R_PD) } },
	{ "rereg_mr", IB_USER_VERBS_CMD_REREG_MR,
	  sizeof(struct ib_uverbs_rereg_mr), sizeof(struct ib_uverbs_rereg_mr_resp),
	  1, D_RAND, R_NONE, R_NONE,
	  { H(ib_uverbs_rereg_mr, mr_handle, R_MR), H(ib_uverbs_rereg_mr, pd_handle, R_PD) } },
	{ "dereg_mr", IB_USER_VERBS_CMD_DEREG_MR,
	  sizeof(struct ib_uverbs_dereg_mr), 0, 0, D_NONE, R_NONE, R_MR,
	  { H(ib_uverbs_dereg_mr, mr_handle, R_MR) } },
	{ "alloc_mw", IB_USER_VERBS_CMD_ALLOC_MW,
	  sizeof(struct ib_uverbs_alloc_mw), sizeof(struct ib_uverbs_alloc_mw_resp),
	  1, D_RAND, R_MW, R_NONE, { H(ib_uverbs_alloc_mw, pd_handle, R_PD) } },
	{ "dealloc_mw", IB_USER_VERBS_CMD_DEALLOC_MW,
	  sizeof(struct ib_uverbs_dealloc_mw), 0, 0, D_NONE, R_NONE, R_MW,
	  { H(ib_uverbs_dealloc_mw, mw_handle, R_MW) } },
	{ "create_comp_channel", IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL,
	  sizeof(struct ib_uverbs_create_comp_channel),
	  sizeof(struct ib_uverbs_create_comp_channel_resp), 1, D_NONE, R_NONE, R_NONE, {} },
	{ "create_cq", IB_USER_VERBS_CMD_CREATE_CQ,
	  sizeof(struct ib_uverbs_create_cq), sizeof(struct ib_uverbs_create_cq_resp),
	  1, D_CQ, R_CQ, R_NONE, {} },
	{ "resize_cq", IB_USER_VERBS_CMD_RESIZE_CQ,
	  sizeof(struct ib_uverbs_resize_cq), sizeof(struct ib_uverbs_resize_cq_resp),
	  1, D_CQ, R_NONE, R_NONE, { H(ib_uverbs_resize_cq, cq_handle, R_CQ) } },
	{ "destroy_cq", IB_USER_VERBS_CMD_DESTROY_CQ,
	  sizeof(struct ib_uverbs_destroy_cq), sizeof(struct ib_uverbs_destroy_cq_resp),
	  1, D_NONE, R_NONE, R_CQ, { H(ib_uverbs_destroy_cq, cq_handle, R_CQ) } },
	{ "poll_cq", IB_USER_VERBS_CMD_POLL_CQ,
	  sizeof(struct ib_uverbs_poll_cq), sizeof(struct ib_uverbs_poll_cq_resp),
	  1, D_NONE, R_NONE, R_NONE, { H(ib_uverbs_poll_cq, cq_handle, R_CQ) } },
	{ "req_notify_cq", IB_USER_VERBS_CMD_REQ_NOTIFY_CQ,
	  sizeof(struct ib_uverbs_req_notify_cq), 0, 0, D_NONE, R_NONE, R_NONE,
	  { H(ib_uverbs_req_notify_cq, cq_handle, R_CQ) } },
	{ "create_qp", IB_USER_VERBS_CMD_CREATE_QP,
	  sizeof(struct ib_uverbs_create_qp), sizeof(struct ib_uverbs_create_qp_resp),
	  1, D_QP, R_QP, R_NONE,
	  { H(ib_uverbs_create_qp, pd_handle, R_PD), H(ib_uverbs_create_qp, send_cq_handle, R_CQ),
	    H(ib_uverbs_create_qp, recv_cq_handle, R_CQ), H(ib_uverbs_create_qp, srq_handle, R_ANY) } },
	{ "query_qp", IB_USER_VERBS_CMD_QUERY_QP,
	  sizeof(struct ib_uverbs_query_qp), sizeof(struct ib_uverbs_query_qp_resp),
	  1, D_NONE, R_NONE, R_NONE, { H(ib_uverbs_query_qp, qp_handle, R_QP) } },
	{ "modify_qp", IB_USER_VERBS_CMD_MODIFY_QP,
	  sizeof(struct ib_uverbs_modify_qp), 0, 0, D_MODQP, R_NONE, R_NONE,
	  { H(ib_uverbs_modify_qp, qp_handle, R_QP) } },
	{ "destroy_qp", IB_USER_VERBS_CMD_DESTROY_QP,
	  sizeof(struct ib_uverbs_destroy_qp), sizeof(struct ib_uverbs_destroy_qp_resp),
	  1, D_NONE, R_NONE, R_QP, { H(ib_uverbs_destroy_qp, qp_handle, R_QP) } },
	{ "post_send", IB_USER_VERBS_CMD_POST_SEND,
	  sizeof(struct ib_uverbs_post_send), sizeof(struct ib_uverbs_post_send_resp),
	  1, D_NONE, R_NONE, R_NONE, { H(ib_uverbs_post_send, qp_handle, R_QP) } },
	{ "post_recv", IB_USER_VERBS_CMD_POST_RECV,
	  sizeof(struct ib_uverbs_post_recv), sizeof(struct ib_uverbs_post_recv_resp),
	  1, D_NONE, R_NONE, R_NONE, { H(ib_uverbs_post_recv, qp_handle, R_QP) } },
	{ "attach_mcast", IB_USER_VERBS_CMD_ATTACH_MCAST,
	  sizeof(struct ib_uverbs_attach_mcast), 0, 0, D_NONE, R_NONE, R_NONE,
	  { H(ib_uverbs_attach_mcast, qp_handle, R_QP) } },
	{ "detach_mcast", IB_USER_VERBS_CMD_DETACH_MCAST,
	  sizeof(struct ib_uverbs_detach_mcast), 0, 0, D_NONE, R_NONE, R_NONE,
	  { H(ib_uverbs_detach_mcast, qp_handle, R_QP) } },
	{ "create_srq", IB_USER_VERBS_CMD_CREATE_SRQ,
	  sizeof(struct ib_uverbs_create_srq), sizeof(struct ib_uverbs_create_srq_resp),
	  1, D_RAND, R_NONE, R_NONE, { H(ib_uverbs_create_srq, pd_handle, R_PD) } },
	{ "open_xrcd", IB_USER_VERBS_CMD_OPEN_XRCD,
	  sizeof(struct ib_uverbs_open_xrcd), sizeof(struct ib_uverbs_open_xrcd_resp),
	  1, D_RAND, R_NONE, R_NONE, {} },
	{ "open_qp", IB_USER_VERBS_CMD_OPEN_QP,
	  sizeof(struct ib_uverbs_open_qp), sizeof(struct ib_uverbs_create_qp_resp),
	  1, D_RAND, R_NONE, R_NONE, { H(ib_uverbs_open_qp, pd_handle, R_PD) } },
	{ "ex_query_device", EX | IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
	  sizeof(struct ib_uverbs_ex_query_device),
	  sizeof(struct ib_uverbs_ex_query_device_resp), 1, D_RAND, R_NONE, R_NONE, {} },
	{ "ex_create_cq", EX | IB_USER_VERBS_EX_CMD_CREATE_CQ,
	  sizeof(struct ib_uverbs_ex_create_cq), sizeof(struct ib_uverbs_ex_create_cq_resp),
	  1, D_CQ, R_CQ, R_NONE, {} },
	{ "ex_create_qp", EX | IB_USER_VERBS_EX_CMD_CREATE_QP,
	  sizeof(struct ib_uverbs_ex_create_qp), sizeof(struct ib_uverbs_ex_create_qp_resp),
	  1, D_QP, R_QP, R_NONE,
	  { H(ib_uverbs_ex_create_qp, pd_handle, R_PD), H(ib_uverbs_ex_create_qp, send_cq_handle, R_CQ),
	    H(ib_uverbs_ex_create_qp, recv_cq_handle, R_CQ),
	    H(ib_uverbs_ex_create_qp, rwq_ind_tbl_handle, R_ANY) } },
	{ "ex_modify_qp", EX | IB_USER_VERBS_EX_CMD_MODIFY_QP,
	  sizeof(struct ib_uverbs_ex_modify_qp), sizeof(struct ib_uverbs_ex_modify_qp_resp),
	  1, D_MODQP, R_NONE, R_NONE, { H(ib_uverbs_ex_modify_qp, base.qp_handle, R_QP) } },
	{ "ex_modify_cq", EX | IB_USER_VERBS_EX_CMD_MODIFY_CQ,
	  sizeof(struct ib_uverbs_ex_modify_cq), 0, 0, D_NONE, R_NONE, R_NONE,
	  { H(ib_uverbs_ex_modify_cq, cq_handle, R_CQ) } },
	{ "ex_create_wq", EX | IB_USER_VERBS_EX_CMD_CREATE_WQ,
	  sizeof(struct ib_uverbs_ex_create_wq), sizeof(struct ib_uverbs_ex_create_wq_resp),
	  1, D_RAND, R_NONE, R_NONE,
	  { H(ib_uverbs_ex_create_wq, pd_handle, R_PD), H(ib_uverbs_ex_create_wq, cq_handle, R_CQ) } },
	{ "ex_create_flow", EX | IB_USER_VERBS_EX_CMD_CREATE_FLOW,
	  sizeof(struct ib_uverbs_create_flow), sizeof(struct ib_uverbs_create_flow_resp),
	  1, D_RAND, R_NONE, R_NONE, { H(ib_uverbs_create_flow, qp_handle, R_QP) } },
};

static void put32(uint8_t *p, size_t off, uint32_t v)
{
	memcpy(p + off, &v, sizeof(v));
}

static void put64(uint8_t *p, size_t off, uint64_t v)
{
	memcpy(p + off, &v, sizeof(v));
}

/* fields with meaning beyond "random": addresses, lengths, counts */
static size_t fixup(const struct wcmd *c, uint8_t *b, size_t room, int fdi)
{
	size_t len, n, i;

	switch (c->cmd & ~EX) {
	case IB_USER_VERBS_CMD_QUERY_PORT:
		if (!(c->cmd & EX))
			b[offsetof(struct ib_uverbs_query_port, port_num)] =
				chance(80) ? 1 : (uint8_t)rn(4);
		break;
	case IB_USER_VERBS_CMD_REG_MR:
	case IB_USER_VERBS_CMD_REREG_MR: {
		int re = (c->cmd & ~EX) == IB_USER_VERBS_CMD_REREG_MR;
		uint64_t start = chance(90) ? arena_ptr(&dma_arena, 1 << 18, &len) :
					      bad_ptr();

		if (chance(90))
			len = chance(5) ? rnd_u64() : len;
		put64(b, re ? offsetof(struct ib_uverbs_rereg_mr, start) :
			      offsetof(struct ib_uverbs_reg_mr, start), start);
		put64(b, re ? offsetof(struct ib_uverbs_rereg_mr, length) :
			      offsetof(struct ib_uverbs_reg_mr, length), len);
		put64(b, re ? offsetof(struct ib_uverbs_rereg_mr, hca_va) :
			      offsetof(struct ib_uverbs_reg_mr, hca_va),
		      chance(70) ? start : rnd_u64());
		put32(b, re ? offsetof(struct ib_uverbs_rereg_mr, access_flags) :
			      offsetof(struct ib_uverbs_reg_mr, access_flags),
		      chance(70) ? rn(16) : rnd_u32());
		if (re)
			put32(b, offsetof(struct ib_uverbs_rereg_mr, flags),
			      chance(80) ? rn(8) : rnd_u32());
		break;
	}
	case IB_USER_VERBS_CMD_CREATE_CQ:
		if (c->cmd & EX) {
			put32(b, offsetof(struct ib_uverbs_ex_create_cq, cqe),
			      chance(85) ? rn(300) + 1 : rnd_u32());
			put32(b, offsetof(struct ib_uverbs_ex_create_cq, comp_vector),
			      chance(90) ? 0 : rnd_u32());
			put32(b, offsetof(struct ib_uverbs_ex_create_cq, comp_channel),
			      (uint32_t)chan_fd(fdi));
			put32(b, offsetof(struct ib_uverbs_ex_create_cq, comp_mask),
			      chance(85) ? 0 : rnd_u32());
			put32(b, offsetof(struct ib_uverbs_ex_create_cq, flags),
			      chance(85) ? 0 : rnd_u32());
		} else {
			put32(b, offsetof(struct ib_uverbs_create_cq, cqe),
			      chance(85) ? rn(300) + 1 : rnd_u32());
			put32(b, offsetof(struct ib_uverbs_create_cq, comp_vector),
			      chance(90) ? 0 : rnd_u32());
			put32(b, offsetof(struct ib_uverbs_create_cq, comp_channel),
			      (uint32_t)chan_fd(fdi));
		}
		break;
	case IB_USER_VERBS_CMD_MODIFY_QP: {
		/* the legacy struct is the base of the extended one */
		size_t base = c->cmd & EX ? offsetof(struct ib_uverbs_ex_modify_qp, base) : 0;

		put32(b, base + offsetof(struct ib_uverbs_modify_qp, attr_mask),
		      chance(85) ? rnd_u32() & 0x1fffff : rnd_u32());
		put32(b, base + offsetof(struct ib_uverbs_modify_qp, qp_state), rn(8));
		put32(b, base + offsetof(struct ib_uverbs_modify_qp, cur_qp_state), rn(8));
		put32(b, base + offsetof(struct ib_uverbs_modify_qp, path_mtu), rn(6));
		put32(b, base + offsetof(struct ib_uverbs_modify_qp, dest_qp_num),
		      chance(50) ? rn(64) : rnd_u32());
		b[base + offsetof(struct ib_uverbs_modify_qp, port_num)] =
			chance(85) ? 1 : (uint8_t)rn(4);
		b[base + offsetof(struct ib_uverbs_modify_qp, alt_port_num)] = (uint8_t)rn(3);
		b[base + offsetof(struct ib_uverbs_modify_qp, dest.port_num)] =
			chance(85) ? 1 : (uint8_t)rn(4);
		if (c->cmd & EX)
			put32(b, offsetof(struct ib_uverbs_ex_modify_qp, rate_limit),
			      chance(80) ? 0 : rnd_u32());
		break;
	}
	case IB_USER_VERBS_CMD_RESIZE_CQ:
		put32(b, offsetof(struct ib_uverbs_resize_cq, cqe),
		      chance(85) ? rn(300) + 1 : rnd_u32());
		break;
	case IB_USER_VERBS_CMD_POLL_CQ:
		put32(b, offsetof(struct ib_uverbs_poll_cq, ne),
		      chance(90) ? rn(32) : rnd_u32());
		break;
	case IB_USER_VERBS_CMD_CREATE_QP: {
		size_t o = c->cmd & EX ? offsetof(struct ib_uverbs_ex_create_qp, max_send_wr) :
					 offsetof(struct ib_uverbs_create_qp, max_send_wr);

		for (i = 0; i < 5; i++)	/* wr, wr, sge, sge, inline */
			put32(b, o + 4 * i, chance(85) ? rn(i < 2 ? 64 : i < 4 ? 4 : 64) :
							 rnd_u32());
		o = c->cmd & EX ? offsetof(struct ib_uverbs_ex_create_qp, sq_sig_all) :
				  offsetof(struct ib_uverbs_create_qp, sq_sig_all);
		b[o] = (uint8_t)rn(2);
		b[o + 1] = chance(90) ? (uint8_t)(rn(3) == 0 ? IB_UVERBS_QPT_RC :
						   rn(2) ? IB_UVERBS_QPT_UC : IB_UVERBS_QPT_UD) :
					(uint8_t)rnd();
		b[o + 2] = chance(90) ? 0 : (uint8_t)rnd();
		b[o + 3] = 0;
		if (c->cmd & EX) {
			put32(b, offsetof(struct ib_uverbs_ex_create_qp, comp_mask),
			      chance(80) ? 0 : rnd_u32());
			put32(b, offsetof(struct ib_uverbs_ex_create_qp, create_flags),
			      chance(80) ? 0 : 1U << rn(32));
		}
		break;
	}
	case IB_USER_VERBS_CMD_POST_SEND:
	case IB_USER_VERBS_CMD_POST_RECV: {
		int send = (c->cmd & ~EX) == IB_USER_VERBS_CMD_POST_SEND;
		size_t wqe = send ? sizeof(struct ib_uverbs_send_wr) :
				    sizeof(struct ib_uverbs_recv_wr);
		uint32_t wrs = rn(4), sges = rn(6);
		uint8_t *p = b + c->in_size;

		if (chance(10))
			wqe = rn(128);
		n = wrs * wqe + sges * sizeof(struct ib_uverbs_sge);
		if (c->in_size + n > room)
			return c->in_size;
		put32(b, offsetof(struct ib_uverbs_post_send, wr_count),
		      chance(90) ? wrs : rnd_u32());
		put32(b, offsetof(struct ib_uverbs_post_send, sge_count),
		      chance(90) ? sges : rnd_u32());
		put32(b, offsetof(struct ib_uverbs_post_send, wqe_size),
		      (uint32_t)wqe);
		for (i = 0; i < n; i += 4)
			put32(p, i, rnd_u32());
		/* per WR: num_sge small, a real AH handle for UD */
		for (i = 0; i < wrs && wqe >= 16; i++)
			put32(p, i * wqe + 8, chance(80) ? rn(3) : rnd_u32());
		if (send)
			for (i = 0; i < wrs && wqe >= sizeof(struct ib_uverbs_send_wr); i++)
				put32(p, i * wqe + offsetof(struct ib_uverbs_send_wr, wr.ud.ah),
				      get_handle(fdi, R_AH));
		return c->in_size + n;
	}
	}
	return c->in_size;
}

void note_raw(const char *iface, const char *name, int err)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s:%s", iface, name);
	stat_call(buf, err);
}

/* what a successful command made or took away */
static void after_write(const struct wcmd *c, int fdi, const uint8_t *resp,
			const uint8_t *cmdbuf)
{
	uint32_t h;
	int fd;

	if (c->makes != R_NONE && resp) {
		memcpy(&h, resp, sizeof(h));
		handle_add(fdi, c->makes, h);
	}
	if ((c->cmd & ~EX) == IB_USER_VERBS_CMD_GET_CONTEXT && resp) {
		memcpy(&fd, resp, sizeof(fd));
		add_extra(fdi, fd);
	}
	if ((c->cmd & ~EX) == IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL && resp) {
		memcpy(&fd, resp, sizeof(fd));
		add_extra(fdi, fd);
	}
	if (c->destroys != R_NONE && c->h[0].k == c->destroys) {
		memcpy(&h, cmdbuf + c->h[0].off, sizeof(h));
		handle_gone(fdi, c->destroys, h);
	}
}

static uint8_t wbuf[8192];

/* the core fields orca's driver data must agree with */
static uint32_t cmd_cqe(const struct wcmd *c, const uint8_t *b)
{
	size_t off;
	uint32_t v;

	switch (c->cmd) {
	case IB_USER_VERBS_CMD_CREATE_CQ:
		off = offsetof(struct ib_uverbs_create_cq, cqe);
		break;
	case EX | IB_USER_VERBS_EX_CMD_CREATE_CQ:
		off = offsetof(struct ib_uverbs_ex_create_cq, cqe);
		break;
	case IB_USER_VERBS_CMD_RESIZE_CQ:
		off = offsetof(struct ib_uverbs_resize_cq, cqe);
		break;
	default:
		return 0;
	}
	memcpy(&v, b + off, sizeof(v));
	return v;
}

static const uint32_t *cmd_caps(const struct wcmd *c, const uint8_t *b)
{
	static uint32_t caps[5];

	if (c->cmd == IB_USER_VERBS_CMD_CREATE_QP)
		memcpy(caps, b + offsetof(struct ib_uverbs_create_qp, max_send_wr),
		       sizeof(caps));
	else if (c->cmd == (EX | IB_USER_VERBS_EX_CMD_CREATE_QP))
		memcpy(caps, b + offsetof(struct ib_uverbs_ex_create_qp, max_send_wr),
		       sizeof(caps));
	else
		return NULL;
	return caps;
}

void raw_write(int fdi)
{
	const struct wcmd *c = &wcmds[rn(ARRAY_SIZE(wcmds))];
	struct ib_uverbs_cmd_hdr *hdr = (void *)wbuf;
	struct ib_uverbs_ex_cmd_hdr *ex = (void *)(hdr + 1);
	int is_ex = !!(c->cmd & EX), good_resp = 1, err;
	size_t hl = sizeof(*hdr) + (is_ex ? sizeof(*ex) : 0);
	uint8_t *body = wbuf + hl;
	size_t room = sizeof(wbuf) - hl - 256, core, drv, outlen, total, i;
	uint64_t resp = (uintptr_t)out_arena.base + rn(64) * 64;
	ssize_t ret;

	memset(wbuf, 0, sizeof(wbuf));
	for (i = 0; i < c->in_size; i += 4)
		put32(body, i, chance(70) ? 0 : rnd_u32());
	if (chance(5)) {
		resp = bad_ptr();
		good_resp = 0;
	}
	if (!is_ex && c->has_resp)
		put64(body, 0, resp);
	for (i = 0; i < ARRAY_SIZE(c->h) && c->h[i].k != R_NONE; i++)
		put32(body, c->h[i].off, get_handle(fdi, c->h[i].k == R_ANY ?
						    (enum rkind)(1 + rn(R_ANY - 1)) :
						    c->h[i].k));
	core = fixup(c, body, room, fdi);
	if (is_ex)	/* ex sizes are in 8-byte words */
		core = (core + 7) & ~(size_t)7;
	drv = gen_udata(c->drv, body + core, room - core, cmd_cqe(c, body),
			cmd_caps(c, body));
	outlen = c->out_size + (chance(80) ? 32 : rn(512));
	if (is_ex) {
		drv = (drv + 7) & ~(size_t)7;
		hdr->command = c->cmd;
		hdr->in_words = (uint16_t)(core / 8);
		hdr->out_words = c->has_resp ? (uint16_t)((c->out_size + 7) / 8) : 0;
		ex->provider_in_words = (uint16_t)(drv / 8);
		ex->provider_out_words = c->has_resp ? (uint16_t)(chance(80) ? 4 : rn(64)) : 0;
		ex->response = c->has_resp ? resp : 0;
		total = hl + core + drv;
	} else {
		total = (hl + core + drv + 3) & ~(size_t)3;
		hdr->command = c->cmd;
		hdr->in_words = (uint16_t)(total / 4);
		hdr->out_words = c->has_resp ? (uint16_t)(outlen / 4) : 0;
	}
	/* damage: sizes, the command number, the extended flag, a byte */
	if (chance(8)) {
		switch (rn(6)) {
		case 0:
			hdr->in_words = (uint16_t)rnd_u32();
			break;
		case 1:
			hdr->out_words = (uint16_t)rnd_u32();
			break;
		case 2:
			hdr->command = chance(50) ? rn(64) : rnd_u32();
			break;
		case 3:
			hdr->command ^= EX;
			break;
		case 4:
			total = rn((uint32_t)total + 16);
			break;
		default:
			wbuf[rn((uint32_t)total)] ^= (uint8_t)(1 << rn(8));
			break;
		}
		good_resp = 0;
	}
	if (is_ex && chance(3))
		ex->cmd_hdr_reserved = (uint32_t)rnd();
	ret = write(rfd[fdi].fd, wbuf, total);
	err = ret < 0 ? errno : 0;
	note_raw("write", c->name, err);
	if (!err && good_resp && hdr->command == c->cmd)
		after_write(c, fdi, c->has_resp ? (uint8_t *)(uintptr_t)resp : NULL, body);
}

/* GET_CONTEXT on a new raw file, its driver data plausible */
void raw_get_context(int fdi, int fd)
{
	const struct wcmd *c = &wcmds[0];
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_get_context cmd;
		uint8_t drv[64];
	} b;
	size_t drv;
	ssize_t ret;

	memset(&b, 0, sizeof(b));
	drv = gen_udata(D_UCTX, b.drv, sizeof(b.drv), 0, NULL);
	drv = (drv + 3) & ~(size_t)3;
	b.hdr.command = IB_USER_VERBS_CMD_GET_CONTEXT;
	b.hdr.in_words = (uint16_t)((sizeof(b.hdr) + sizeof(b.cmd) + drv) / 4);
	b.hdr.out_words = (uint16_t)((c->out_size + 24) / 4);
	b.cmd.response = (uintptr_t)out_arena.base;
	ret = write(fd, &b, sizeof(b.hdr) + sizeof(b.cmd) + drv);
	note_raw("write", "get_context(open)", ret < 0 ? errno : 0);
	if (ret >= 0)
		after_write(c, fdi, out_arena.base, NULL);
}
