// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The verbs fuzzer's raw layer: commands written straight to
 * /dev/infiniband/uverbsN, through write() (struct ib_uverbs_cmd_hdr, and
 * the extended header) and through ioctl(RDMA_VERBS_IOCTL) with
 * struct ib_uverbs_ioctl_hdr and its attributes.  Most commands are built
 * well-formed around live handles, with orca's driver data (orca-abi.h)
 * plausible, and then some of them are damaged: handles that are stale,
 * of another type or of another file; sizes, masks, attribute ids and
 * lengths out of range; driver data of every length.
 *
 * Response and attribute pointers point into out_arena / in_arena (or at
 * a bad address), ring and MR addresses into dma_arena: the kernel and
 * the device never write anywhere else in this process.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

char uverbs_path[96];

enum rkind { R_NONE, R_PD, R_CQ, R_QP, R_MR, R_AH, R_MW, R_ANY };

#define MAX_RAW_FD	4
#define MAX_EXTRA	8
struct rawfd {
	int fd;			/* -1: slot free */
	int extra[MAX_EXTRA];	/* async / completion channel fds it made */
	unsigned int nextra;
};
static struct rawfd rfd[MAX_RAW_FD];

#define MAX_HANDLES	192
struct rh {
	int used;
	enum rkind kind;
	uint32_t handle;
	int fdi;		/* raw fd slot it was made on */
	int fd;			/* that fd's number then (stale once closed) */
	int stale;
};
static struct rh handles[MAX_HANDLES];
static unsigned int next_handle;
static int devnull = -1;

/* ------------------------------------------------------------ fds */
/*
 * Fds the kernel makes for us (async event files, completion channels)
 * belong to the raw fd they came from and are closed with it; anything
 * else that shows up is closed by raw_sweep_fds() so that the fd table
 * cannot fill up.  Fds that exist at start (and libibverbs' own, kept in
 * the keep set by verbs_fuzz.c) are never touched.
 */
#define MAX_FDS 1024
static unsigned char fd_keep[MAX_FDS];

void fd_keep_set(int fd, int keep)
{
	if (fd >= 0 && fd < MAX_FDS)
		fd_keep[fd] = (unsigned char)keep;
}

/*
 * Every open fd not the raw layer's is kept: at start, and after
 * libibverbs opened a context or a channel (leftovers swept first).
 */
void fd_keep_all_open(void)
{
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		int fd = atoi(d->d_name);

		if (d->d_name[0] != '.' && fd != dirfd(dir) && !raw_fd_known(fd))
			fd_keep_set(fd, 1);
	}
	closedir(dir);
}

int raw_fd_known(int fd)
{
	unsigned int i, j;

	for (i = 0; i < MAX_RAW_FD; i++) {
		if (rfd[i].fd < 0)
			continue;
		if (rfd[i].fd == fd)
			return 1;
		for (j = 0; j < rfd[i].nextra; j++)
			if (rfd[i].extra[j] == fd)
				return 1;
	}
	return 0;
}

void raw_sweep_fds(void)
{
	int fds[MAX_FDS];
	unsigned int n = 0, i;
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");

	if (!dir)
		return;
	while ((d = readdir(dir)) && n < MAX_FDS) {
		int fd = atoi(d->d_name);

		if (d->d_name[0] == '.' || fd == dirfd(dir))
			continue;
		fds[n++] = fd;
	}
	closedir(dir);
	for (i = 0; i < n; i++)
		if (fds[i] >= MAX_FDS ||
		    (!fd_keep[fds[i]] && !raw_fd_known(fds[i]))) {
			close(fds[i]);
			stat_call("raw:leftover_fd_closed", 0);
		}
}

static void add_extra(int fdi, int fd)
{
	struct rawfd *r = &rfd[fdi];

	if (fd < 0 || fd >= MAX_FDS || fd_keep[fd] || raw_fd_known(fd))
		return;
	if (r->nextra < MAX_EXTRA)
		r->extra[r->nextra++] = fd;
	else
		close(fd);
}

/* ------------------------------------------------------------ handles */
static void handle_add(int fdi, enum rkind k, uint32_t h)
{
	struct rh *e = &handles[next_handle++ % MAX_HANDLES];

	e->used = 1;
	e->kind = k;
	e->handle = h;
	e->fdi = fdi;
	e->fd = rfd[fdi].fd;
	e->stale = 0;
}

static void handle_gone(int fdi, enum rkind k, uint32_t h)
{
	unsigned int i;

	for (i = 0; i < MAX_HANDLES; i++)
		if (handles[i].used && !handles[i].stale &&
		    handles[i].fdi == fdi && handles[i].fd == rfd[fdi].fd &&
		    (k == R_ANY || handles[i].kind == k) &&
		    handles[i].handle == h)
			handles[i].stale = 1;
}

static int live(const struct rh *e)
{
	return e->used && !e->stale && rfd[e->fdi].fd == e->fd;
}

/*
 * A handle for a field of kind @k on raw fd @fdi: mostly a live one of
 * that kind, else one of another kind, a stale one, one of another file
 * or a made-up number.
 */
static uint32_t get_handle(int fdi, enum rkind k)
{
	unsigned int i, n = 0, r = rn(100);
	struct rh *cand[MAX_HANDLES];

	for (i = 0; i < MAX_HANDLES; i++) {
		struct rh *e = &handles[i];
		int want;

		if (!e->used)
			continue;
		if (r < 75)
			want = live(e) && e->fdi == fdi && e->kind == k;
		else if (r < 83)
			want = live(e) && e->fdi == fdi && e->kind != k;
		else if (r < 91)
			want = !live(e) && e->kind == k;
		else
			want = e->fdi != fdi && e->kind == k;
		if (want)
			cand[n++] = e;
	}
	if (n && r < 96)
		return cand[rn(n)]->handle;
	return chance(50) ? rn(16) : rnd_u32();
}

/* ------------------------------------------------------------ fds of files */
static int any_fdi(void)
{
	unsigned int i, n = 0;
	int cand[MAX_RAW_FD];

	for (i = 0; i < MAX_RAW_FD; i++)
		if (rfd[i].fd >= 0)
			cand[n++] = (int)i;
	return n ? cand[rn(n)] : -1;
}

/* a completion channel for create_cq: one of this file's, or no fd */
static int32_t chan_fd(int fdi)
{
	struct rawfd *r = &rfd[fdi];

	switch (rn(16)) {
	case 0:
		return devnull;
	case 1:
		return (int32_t)rnd_u32();
	case 2:
	case 3:
	case 4:
		if (r->nextra)
			return r->extra[rn(r->nextra)];
		return -1;
	default:
		return -1;
	}
}

/* ------------------------------------------------------------ driver data */
enum drv { D_NONE, D_UCTX, D_CQ, D_QP, D_MODQP, D_RAND };

static unsigned int ilog2_up(uint64_t v)
{
	unsigned int n = 0;

	while (n < 63 && (1ULL << n) < v)
		n++;
	return n;
}

/* a ring buffer of @bytes in the DMA arena, page aligned */
static uint64_t dma_buf(uint64_t bytes)
{
	uint64_t pages = dma_arena.len / 4096;
	uint64_t need = (bytes + 4095) / 4096;

	if (need >= pages || chance(3))
		return chance(50) ? bad_ptr() : (uintptr_t)dma_arena.base;
	return (uintptr_t)dma_arena.base + rn((uint32_t)(pages - need)) * 4096;
}

/*
 * orca's driver data for a command: plausible for the core fields given
 * (cqe, caps), then sometimes damaged, at a random length.  Returns the
 * length written to @p (at most @max).
 */
static size_t gen_udata(enum drv d, uint8_t *p, size_t max, uint32_t cqe,
			const uint32_t *qc)
{
	size_t len = 0, i;

	memset(p, 0, max);
	switch (d) {
	case D_UCTX: {
		struct orca_ibv_alloc_ucontext_cmd c = {
			.comp_mask = chance(80) ? ORCA_IBV_ALLOC_UCONTEXT_CMD_ECE :
						  rnd_u32(),
		};

		if (chance(5))
			c.reserved_20[rn(4)] = (uint8_t)rnd();
		memcpy(p, &c, sizeof(c));
		len = sizeof(c);
		break;
	}
	case D_CQ: {
		struct orca_ibv_create_cq c = {};
		unsigned int k = ilog2_up((uint64_t)cqe + 1);

		if (k > 24)
			k = 24;
		c.log_depth = k;
		c.dbrec_off = 64U << k;
		c.buf_len = (c.dbrec_off + 64 + 4095) & ~4095U;	/* whole pages */
		c.buf_va = dma_buf(c.buf_len);
		if (chance(20))
			c.log_depth = chance(50) ? rn(40) : rnd_u32();
		if (chance(15))
			c.dbrec_off = rnd_u32();
		if (chance(15))
			c.buf_len = rnd_u32();
		if (chance(5))
			c.reserved = rnd_u32();
		memcpy(p, &c, sizeof(c));
		len = sizeof(c);
		break;
	}
	case D_QP: {
		struct orca_ibv_create_qp c = {};
		/* caps: max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, inline */
		uint32_t swr = qc ? qc[0] : 1, rwr = qc ? qc[1] : 1;
		uint32_t ssge = qc ? qc[2] : 1, rsge = qc ? qc[3] : 1;
		uint32_t inl = qc ? qc[4] : 0;
		uint64_t sq, rq;

		c.sq_log_depth = (uint8_t)ilog2_up(swr ? swr : 1);
		c.sq_log_stride = (uint8_t)orca_sq_log_stride(ssge, inl);
		c.rq_log_depth = (uint8_t)ilog2_up(rwr ? rwr : 1);
		c.rq_log_stride = (uint8_t)orca_rq_log_stride(rsge);
		sq = (uint64_t)1 << (c.sq_log_depth + c.sq_log_stride);
		rq = (uint64_t)1 << (c.rq_log_depth + c.rq_log_stride);
		if (sq > (1U << 22) || rq > (1U << 22))
			sq = rq = 4096;
		c.rq_off = (uint32_t)sq;
		c.dbrec_off = (uint32_t)(sq + rq);
		c.buf_len = (c.dbrec_off + 64 + 4095) & ~4095U;
		c.buf_va = dma_buf(c.buf_len);
		if (chance(15))
			c.sq_log_depth = (uint8_t)rnd();
		if (chance(15))
			c.sq_log_stride = (uint8_t)rn(16);
		if (chance(15))
			c.rq_log_stride = (uint8_t)rn(16);
		if (chance(15))
			c.rq_off = rnd_u32();
		if (chance(15))
			c.dbrec_off = rnd_u32();
		if (chance(10))
			c.buf_len = rnd_u32();
		memcpy(p, &c, sizeof(c));
		len = sizeof(c);
		break;
	}
	case D_MODQP: {
		struct orca_ibv_modify_qp c = {
			.comp_mask = chance(70) ? ORCA_IBV_MODIFY_QP_ECE_OPTIONS :
						  rnd_u32(),
			.ece_options = rnd_u32(),
		};

		memcpy(p, &c, sizeof(c));
		len = sizeof(c);
		break;
	}
	case D_RAND:	/* orca takes none: mostly none, else zeroes or garbage */
		if (chance(70))
			break;
		len = rn(64);
		if (chance(50))
			for (i = 0; i < len && i < max; i++)
				p[i] = (uint8_t)rnd();
		break;
	default:
		break;
	}
	/* every length 0..N: cut short, or longer with zeroes or garbage */
	if (chance(30)) {
		size_t l = rn(len + 24);

		if (l > len && chance(50))
			for (i = len; i < l && i < max; i++)
				p[i] = chance(80) ? 0 : (uint8_t)rnd();
		len = l;
	}
	return len < max ? len : max;
}

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

static void note_raw(const char *iface, const char *name, int err)
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

static void raw_write(int fdi)
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

static void raw_ioctl(int fdi)
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

/* ------------------------------------------------------------ files */
static void raw_open(void)
{
	unsigned int i;
	int fd;

	for (i = 0; i < MAX_RAW_FD; i++)
		if (rfd[i].fd < 0)
			break;
	if (i == MAX_RAW_FD)
		return;
	fd = open(uverbs_path, O_RDWR | O_CLOEXEC);
	note_raw("file", "open", fd < 0 ? errno : 0);
	if (fd < 0)
		return;
	rfd[i].fd = fd;
	rfd[i].nextra = 0;
	/* a context first, mostly: without one every command fails */
	if (chance(90)) {
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
			after_write(c, (int)i, out_arena.base, NULL);
	}
}

static void raw_close_fdi(int fdi)
{
	unsigned int j;

	for (j = 0; j < rfd[fdi].nextra; j++)
		close(rfd[fdi].extra[j]);
	note_raw("file", "close", close(rfd[fdi].fd) ? errno : 0);
	rfd[fdi].fd = -1;
	rfd[fdi].nextra = 0;
}

void raw_close_some(void)
{
	int fdi = any_fdi();

	if (fdi >= 0)
		raw_close_fdi(fdi);
}

void raw_init(void)
{
	unsigned int i;

	for (i = 0; i < MAX_RAW_FD; i++)
		rfd[i].fd = -1;
	fd_keep_all_open();
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	fd_keep_set(devnull, 1);
}

void raw_after_fork(void)
{
	/* the inherited fds are shared with the parent: both keep using them */
}

void raw_step(void)
{
	static unsigned int steps;
	int fdi = any_fdi();

	if (fdi < 0 || chance(1)) {
		raw_open();
		return;
	}
	if (chance(55))
		raw_write(fdi);
	else
		raw_ioctl(fdi);
	if (++steps % 128 == 0)
		raw_sweep_fds();
}
