// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * QP scale for make bench (issue 24): does a verb cost the same with 1 QP
 * as with 65,536?  One RC QP connected to itself is measured while more
 * and more QPs, each also connected to itself and in RTS (idle, as the
 * connections of a big MPI job or storage target are), are created
 * beside it.  At each step:
 *
 *   create_us  microseconds per QP created (create, INIT, RTR, RTS)
 *   query_ns   ibv_query_qp of the measured QP, median
 *   write_ns   an 8 B RDMA WRITE on it, posted and its completion polled,
 *              median
 *   slab_b     kernel slab per QP added (/proc/meminfo Slab), bytes
 *   mem_b      all memory per QP added (MemFree: the QP's user rings, its
 *              pinned pages and what the driver allocated), bytes
 *
 * Output, one line per step (and "QSCALE-FAIL <why>" if it stops short):
 *   QSCALE qps=<n> create_us=<> query_ns=<> write_ns=<> slab_b=<> mem_b=<>
 *
 * usage: qscale [-d DEV] [-n MAX_QPS] [-i ITERS]
 * The steps are 1, 16, 256, 4096, 65536 QPs, up to MAX_QPS (default: the
 * device's max_qp less the two of QP0/QP1, at most 65536).
 */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "self_rc.h"

#define QSCALE_MAX	65536

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_port_attr port;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

/* A field of /proc/meminfo, in bytes; -1 if it cannot be read. */
static long long meminfo(const char *key)
{
	char line[256];
	long long kb = -1;
	size_t len = strlen(key);
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			kb = atoll(line + len + 1);
			break;
		}
	fclose(f);
	return kb < 0 ? -1 : kb * 1024;
}

/* An RC QP connected to itself, in RTS; NULL on failure (errno set). */
static struct ibv_qp *qp_self_rts(void)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);
	int err;

	if (!qp)
		return NULL;
	err = self_rc_to_rts(qp, &port);
	if (err) {
		ibv_destroy_qp(qp);
		errno = err;
		return NULL;
	}
	return qp;
}

/* One 8 B RDMA WRITE on @qp within @mr, its completion polled; ns or 0. */
static uint64_t write_once(struct ibv_qp *qp, struct ibv_mr *mr)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)mr->addr, .length = 8, .lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)mr->addr + 64,
			     .rkey = mr->rkey },
	}, *bad;
	uint64_t t0 = now_ns(), deadline = t0 + 10000000000ull;
	struct ibv_wc wc;
	int n;

	if (ibv_post_send(qp, &wr, &bad))
		return 0;
	while (!(n = ibv_poll_cq(cq, 1, &wc)))
		if (now_ns() > deadline)
			return 0;
	if (n < 0 || wc.status != IBV_WC_SUCCESS)
		return 0;
	return now_ns() - t0;
}

int main(int argc, char **argv)
{
	const char *name = "orca0";
	int opt, iters = 1000, max = 0, n = 0, i, ndev;
	struct ibv_device **list;
	struct ibv_device_attr dattr;
	struct ibv_qp **qps, *meas;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct ibv_mr *mr;
	uint64_t *t;
	static char buf[4096];

	while ((opt = getopt(argc, argv, "d:n:i:")) != -1) {
		switch (opt) {
		case 'd':
			name = optarg;
			break;
		case 'n':
			max = atoi(optarg);
			break;
		case 'i':
			iters = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: qscale [-d DEV] [-n MAX_QPS] [-i ITERS]\n");
			return 2;
		}
	}
	if (iters < 1 || max < 0 || max > QSCALE_MAX) {
		fprintf(stderr, "qscale: -i must be >= 1, -n within 0..%d\n", QSCALE_MAX);
		return 2;
	}
	list = ibv_get_device_list(&ndev);
	for (i = 0; list && i < ndev; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (!ctx || ibv_query_device(ctx, &dattr) || ibv_query_port(ctx, 1, &port)) {
		printf("QSCALE-FAIL cannot open or query %s\n", name);
		return 1;
	}
	/* QP0 and QP1 are the device's; the measured QP is one more */
	if (!max || max > dattr.max_qp - 2)
		max = dattr.max_qp - 2 < QSCALE_MAX ? dattr.max_qp - 2 : QSCALE_MAX;
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	mr = cq ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE |
			     IBV_ACCESS_REMOTE_WRITE) : NULL;
	meas = mr ? qp_self_rts() : NULL;
	qps = calloc(max, sizeof(*qps));
	t = calloc(iters, sizeof(*t));
	if (!meas || !qps || !t) {
		printf("QSCALE-FAIL set-up: %s\n", strerror(errno));
		return 1;
	}
	n = 1;	/* the measured QP */
	for (int step = 1; ; step *= 16) {
		int want = step < max ? step : max, added = want - n;
		long long slab0 = meminfo("Slab"), free0 = meminfo("MemFree");
		uint64_t t0 = now_ns(), create_ns;

		for (; n < want; n++) {
			qps[n] = qp_self_rts();
			if (!qps[n]) {
				printf("QSCALE-FAIL QP %d of %d: %s\n", n + 1, want,
				       strerror(errno));
				return 1;
			}
		}
		create_ns = added > 0 ? (now_ns() - t0) / added : 0;
		for (i = 0; i < iters; i++) {
			uint64_t q0 = now_ns();

			if (ibv_query_qp(meas, &qa, IBV_QP_STATE | IBV_QP_CUR_STATE |
					 IBV_QP_AV | IBV_QP_DEST_QPN | IBV_QP_CAP, &qia)) {
				printf("QSCALE-FAIL query_qp at %d QPs\n", n);
				return 1;
			}
			t[i] = now_ns() - q0;
		}
		printf("QSCALE qps=%d create_us=%.1f query_ns=%llu", n,
		       create_ns / 1000.0, (unsigned long long)median(t, iters));
		for (i = 0; i < iters; i++) {
			t[i] = write_once(meas, mr);
			if (!t[i]) {
				printf("\nQSCALE-FAIL RDMA WRITE at %d QPs\n", n);
				return 1;
			}
		}
		printf(" write_ns=%llu", (unsigned long long)median(t, iters));
		if (added > 0 && slab0 >= 0 && free0 >= 0)
			printf(" slab_b=%lld mem_b=%lld\n",
			       (meminfo("Slab") - slab0) / added,
			       (free0 - meminfo("MemFree")) / added);
		else
			printf(" slab_b=- mem_b=-\n");
		fflush(stdout);
		if (want == max)
			break;
	}
	for (i = 1; i < n; i++)
		ibv_destroy_qp(qps[i]);
	ibv_destroy_qp(meas);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
