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
 *
 * This file keeps the files, their fds and handles and orca's driver data;
 * uverbs_write.c and uverbs_ioctl.c build the commands.
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
#include "uverbs_raw.h"

char uverbs_path[96];
struct rawfd rfd[MAX_RAW_FD];
struct rh handles[MAX_HANDLES];
static unsigned int next_handle;
int devnull = -1;

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

void add_extra(int fdi, int fd)
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
void handle_add(int fdi, enum rkind k, uint32_t h)
{
	struct rh *e = &handles[next_handle++ % MAX_HANDLES];

	e->used = 1;
	e->kind = k;
	e->handle = h;
	e->fdi = fdi;
	e->fd = rfd[fdi].fd;
	e->stale = 0;
}

void handle_gone(int fdi, enum rkind k, uint32_t h)
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
uint32_t get_handle(int fdi, enum rkind k)
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
int any_fdi(void)
{
	unsigned int i, n = 0;
	int cand[MAX_RAW_FD];

	for (i = 0; i < MAX_RAW_FD; i++)
		if (rfd[i].fd >= 0)
			cand[n++] = (int)i;
	return n ? cand[rn(n)] : -1;
}

/* a completion channel for create_cq: one of this file's, or no fd */
int32_t chan_fd(int fdi)
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

unsigned int ilog2_up(uint64_t v)
{
	unsigned int n = 0;

	while (n < 63 && (1ULL << n) < v)
		n++;
	return n;
}

/* a ring buffer of @bytes in the DMA arena, page aligned */
uint64_t dma_buf(uint64_t bytes)
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
size_t gen_udata(enum drv d, uint8_t *p, size_t max, uint32_t cqe,
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
		if (chance(5)) {
			uint32_t r = rnd_u32();

			memcpy(c.reserved_a0, &r, sizeof(c.reserved_a0));
		}
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
	if (chance(90))
		raw_get_context((int)i, fd);
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

