/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The verbs fuzzer's raw layer, shared by uverbs_raw.c (files, fds,
 * handles, orca's driver data), uverbs_write.c and uverbs_ioctl.c.
 */
#ifndef ORCA_VERBS_FUZZ_UVERBS_RAW_H
#define ORCA_VERBS_FUZZ_UVERBS_RAW_H

#include <stddef.h>
#include <stdint.h>

enum rkind { R_NONE, R_PD, R_CQ, R_QP, R_MR, R_AH, R_MW, R_ANY };

#define MAX_RAW_FD	4
#define MAX_EXTRA	8
struct rawfd {
	int fd;			/* -1: slot free */
	int extra[MAX_EXTRA];	/* async / completion channel fds it made */
	unsigned int nextra;
};
extern struct rawfd rfd[MAX_RAW_FD];

#define MAX_HANDLES	192
struct rh {
	int used;
	enum rkind kind;
	uint32_t handle;
	int fdi;		/* raw fd slot it was made on */
	int fd;			/* that fd's number then (stale once closed) */
	int stale;
};
extern struct rh handles[MAX_HANDLES];
extern int devnull;

enum drv { D_NONE, D_UCTX, D_CQ, D_QP, D_MODQP, D_RAND };

/* uverbs_raw.c */
void add_extra(int fdi, int fd);	/* an fd the kernel made for fdi */
void handle_add(int fdi, enum rkind k, uint32_t h);
void handle_gone(int fdi, enum rkind k, uint32_t h);
/* a handle of kind k on fdi: mostly live, sometimes stale or foreign */
uint32_t get_handle(int fdi, enum rkind k);
int any_fdi(void);			/* a raw file slot in use, or -1 */
int32_t chan_fd(int fdi);		/* a completion channel fd, or junk */
unsigned int ilog2_up(uint64_t v);
uint64_t dma_buf(uint64_t bytes);	/* a ring in the DMA arena */
/* orca's driver data for a command, at a random length (returned) */
size_t gen_udata(enum drv d, uint8_t *p, size_t max, uint32_t cqe,
		 const uint32_t *qc);

/* uverbs_write.c */
void note_raw(const char *iface, const char *name, int err);
void raw_write(int fdi);
void raw_get_context(int fdi, int fd);

/* uverbs_ioctl.c */
void raw_ioctl(int fdi);

#endif /* ORCA_VERBS_FUZZ_UVERBS_RAW_H */
