// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Host-only benchmark of the device model's data path: one device, an RC
 * QP pair looped back through its port (path MTU 4096), the send queue
 * kept full of RDMA WRITEs (or SENDs), the device kicked the way the
 * glue kicks it (orca_dev_doorbell(), then orca_dev_work() while
 * orca_dev_busy()), CQEs polled.  It measures what the device costs per
 * packet and per payload byte, beside plain memcpy on the same host.
 *
 *   orca-emu-bench-dp [seconds per case (1.5)] [memcpy|write64k|
 *                     write64k-stream|write4k|write8|send64k]
 *
 * Times are this process's CPU time (the device is one thread), so that
 * a busy host or nice(1) does not change the numbers much; wall time is
 * printed too.  "dev" is the CPU time spent inside the device's entry
 * points only (doorbell and work), "all" adds the bench's own posting
 * and polling (the driver's and provider's part).
 *
 * Not a test: not in make test or all (make -C emulator bench).
 */
#define RAM_SIZE	(256U << 20)	/* fixture.h's default is 4 MiB */

#include <string.h>
#include <time.h>

#include "dp_fixture.h"
#include "orca_log.h"

#define MTU4096		5
#define B_LOG_DEPTH	7		/* 128 WQEs a ring, like ib_write_bw */
#define B_CQ_LOG_DEPTH	10
#define SIG_EVERY	16		/* one signaled WQE in 16 */
#define STREAM_BYTES	(64ULL << 20)	/* the streaming buffers */
#define HOT_BYTES	(64ULL << 10)

static double case_secs = 1.5;

static uint64_t ns_of(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
	return ns_of(CLOCK_PROCESS_CPUTIME_ID);
}

static uint64_t wall_ns(void)
{
	return ns_of(CLOCK_MONOTONIC);
}

/* ------------------------------------------------------------------ */
/* memcpy                                                             */
/* ------------------------------------------------------------------ */

static void bench_memcpy(void)
{
	size_t big = 256ULL << 20, chunk = 64 << 10, off = 0;
	uint8_t *s = malloc(big), *d = malloc(big);
	uint64_t bytes = 0, t0, t;

	memset(s, 1, big);
	memset(d, 2, big);
	/* streaming: 64 KiB at a time over 256 MiB, beyond every cache */
	t0 = cpu_ns();
	do {
		memcpy(d + off, s + off, chunk);
		off = (off + chunk) % big;
		bytes += chunk;
	} while ((t = cpu_ns()) - t0 < case_secs * 1e9);
	printf("memcpy 64 KiB streaming (256 MiB buffers): %8.0f MiB/s\n",
	       bytes / ((t - t0) / 1e9) / (1 << 20));
	/* cache-hot: the same 64 KiB again and again */
	bytes = 0;
	t0 = cpu_ns();
	do {
		unsigned int i;

		for (i = 0; i < 64; i++) {
			memcpy(d, s, chunk);
			__asm__ volatile("" : : "r"(d) : "memory");
		}
		bytes += 64 * chunk;
	} while ((t = cpu_ns()) - t0 < case_secs * 1e9);
	printf("memcpy 64 KiB cache-hot (same buffers):     %8.0f MiB/s\n",
	       bytes / ((t - t0) / 1e9) / (1 << 20));
	free(s);
	free(d);
}

/* ------------------------------------------------------------------ */
/* Posting on the pair's rings, as deep as ib_write_bw's (B_LOG_DEPTH) */
/* ------------------------------------------------------------------ */

/* A send WQE and the producer index, no kick. */
static void bput_send(struct fx *f, struct ring_qp *qp, uint8_t op, bool sig,
		      uint64_t at, uint32_t len, uint32_t lkey,
		      uint64_t raddr, uint32_t rkey)
{
	put_send_ring(f, qp, B_LOG_DEPTH, op, sig ? ORCA_WQE_F_SIGNALED : 0, at,
		      len, lkey, raddr, rkey);
}

static void bput_recv(struct fx *f, struct ring_qp *qp, uint64_t at,
		      uint32_t len, uint32_t lkey)
{
	uint32_t slot = qp->rq_pi & ((1U << B_LOG_DEPTH) - 1);
	uint8_t *w = gpa(f, qp->base + qp->rq_off +
			 ((uint64_t)slot << RQ_LOG_STRIDE));
	struct orca_recv_wqe *h = (void *)w;
	struct orca_sge *s = (void *)(h + 1);
	__le32 *db = gpa(f, qp->base + qp->db_off + 4);

	memset(w, 0, sizeof(*h) + sizeof(*s));
	h->num_sge = htole32(1);
	s->addr = htole64(iova(at));
	s->length = htole32(len);
	s->lkey = htole32(lkey);
	__atomic_store_n(db, htole32(++qp->rq_pi), __ATOMIC_RELEASE);
}

struct bench {
	struct fx *f;
	struct ring_qp a, b;
	struct ring_cq cq;
	uint64_t src, dst;		/* STREAM_BYTES each */
	uint32_t slk, dlk;
};

static void bench_up(struct bench *t)
{
	uint8_t *s;
	uint64_t i;

	t->f = dp_up();
	t->src = heap_alloc(STREAM_BYTES);
	t->dst = heap_alloc(STREAM_BYTES);
	s = gpa(t->f, t->src);
	for (i = 0; i < STREAM_BYTES; i++)
		s[i] = (uint8_t)(i * 31 + (i >> 12) + 7);
	memset(gpa(t->f, t->dst), 0, STREAM_BYTES);
	CHECK_EQ(reg_mr(t->f, t->f->pdn, t->src, STREAM_BYTES,
			ORCA_ACCESS_LOCAL_WRITE, &t->slk), 0);
	CHECK_EQ(reg_mr(t->f, t->f->pdn, t->dst, STREAM_BYTES,
			ORCA_ACCESS_LOCAL_WRITE | ORCA_ACCESS_REMOTE_WRITE,
			&t->dlk), 0);
	CHECK(make_cq(t->f, &t->cq, B_CQ_LOG_DEPTH));
	make_qp_log_depth = B_LOG_DEPTH;
	CHECK(make_qp(t->f, &t->a, t->cq.cqn));
	CHECK(make_qp(t->f, &t->b, t->cq.cqn));
	/* no retransmission however long the host stops us (4.096 us << 20) */
	connect_timeout = 20;
	CHECK(connect_rc(t->f, &t->a, t->b.qpn, 0, MTU4096));
	CHECK(connect_rc(t->f, &t->b, t->a.qpn,
			 ORCA_ACCESS_REMOTE_WRITE, MTU4096));
}

/*
 * One case: @op messages of @len bytes, a to b, for case_secs of CPU
 * time; @span bytes of the buffers are walked (HOT_BYTES: the same 64 KiB
 * each time, as ib_write_bw does; STREAM_BYTES: past every cache).
 */
static void bench_case(const char *name, uint8_t op, uint32_t len,
		       uint64_t span)
{
	struct bench b;
	struct fx *f;
	uint32_t depth = 1U << B_LOG_DEPTH, pkts_per = (len + 4095) / 4096;
	uint64_t posted = 0, done = 0, recvs = 0, soff = 0, doff = 0;
	uint64_t t0, w0, tdev = 0, now, pkts0, bytes0, kicks = 0;
	struct orca_cqe c;
	bool send = op == ORCA_WR_SEND;
	double secs, dsecs, dpkts, allpkts;

	if (!pkts_per)
		pkts_per = 1;
	memset(&b, 0, sizeof(b));
	bench_up(&b);
	f = b.f;
	pkts0 = f->dev.stats.pkts;
	bytes0 = f->dev.stats.pkt_bytes;
	t0 = cpu_ns();
	w0 = wall_ns();
	do {
		uint64_t d0;

		/* the receive queue full (SEND), then the send queue */
		while (send && b.b.rq_pi - recvs < (1U << B_LOG_DEPTH)) {
			bput_recv(f, &b.b, b.dst + doff, len, b.dlk);
			doff = (doff + ((len + 63) & ~63U)) % span;
			if (doff + len > span)
				doff = 0;
		}
		while (posted - done + SIG_EVERY <= depth) {
			unsigned int k;

			for (k = 0; k < SIG_EVERY; k++) {
				bput_send(f, &b.a, op, k == SIG_EVERY - 1,
					  b.src + soff, len, b.slk,
					  send ? 0 : iova(b.dst + doff),
					  send ? 0 : b.dlk);
				soff = (soff + ((len + 63) & ~63U)) % span;
				if (soff + len > span)
					soff = 0;
				if (!send) {
					doff = (doff + ((len + 63) & ~63U)) %
					       span;
					if (doff + len > span)
						doff = 0;
				}
			}
			posted += SIG_EVERY;
		}
		d0 = cpu_ns();
		orca_dev_doorbell(&f->dev, ORCA_FW_VEC_DB);
		while (orca_dev_busy(&f->dev))
			orca_dev_work(&f->dev);
		tdev += cpu_ns() - d0;
		kicks++;
		while (poll_cqe(f, &b.cq, &c)) {
			if (c.status != ORCA_CQE_SUCCESS) {
				printf("# %s: CQE status %u\n", name, c.status);
				goto out;
			}
			if (c.flags & ORCA_CQE_F_SQ)
				done += SIG_EVERY;
			else
				recvs++;
		}
	} while ((now = cpu_ns()) - t0 < case_secs * 1e9);
	secs = (now - t0) / 1e9;
	dsecs = tdev / 1e9;
	dpkts = (double)done * pkts_per;
	allpkts = f->dev.stats.pkts - pkts0;
	printf("%-28s %8.0f MiB/s all %8.0f MiB/s dev | %9.0f pkt/s | %6.0f ns/pkt dev (%6.0f all) | %7.0f ns/msg dev | wall %.2fs, %.0f%% of it CPU\n",
	       name, done * (double)len / secs / (1 << 20),
	       done * (double)len / dsecs / (1 << 20), dpkts / dsecs,
	       tdev / dpkts, (now - t0) / dpkts, tdev / (double)done,
	       (wall_ns() - w0) / 1e9, 100.0 * (now - t0) / (wall_ns() - w0));
	printf("%-28s   %llu msgs, %llu kicks, wire pkts %.0f (%.2f per data pkt), payload %llu B, retries %llu, drops %llu\n",
	       "", (unsigned long long)done, (unsigned long long)kicks,
	       allpkts, allpkts / dpkts,
	       (unsigned long long)(f->dev.stats.pkt_bytes - bytes0),
	       (unsigned long long)f->dev.stats.retries,
	       (unsigned long long)f->dev.stats.pkts_dropped);
	CHECK_EQ(f->dev.stats.retries, 0);
	CHECK_EQ(f->dev.stats.pkts_dropped, 0);
	/* the bytes arrived: the last message, at its place */
	if (!send && span == HOT_BYTES && len <= HOT_BYTES)
		CHECK(!memcmp(gpa(f, b.dst), gpa(f, b.src), len));
out:
	CHECK(canaries_ok(f));
	fx_free(f);
}

int main(int argc, char **argv)
{
	const char *only = argc > 2 ? argv[2] : NULL;

	if (argc > 1)
		case_secs = atof(argv[1]);
	orca_log_set_quiet(true);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("# %.1f s of CPU per case; SQ %u deep, 1 WQE in %u signaled, path MTU 4096\n",
	       case_secs, 1U << B_LOG_DEPTH, SIG_EVERY);
	if (!only || !strcmp(only, "memcpy"))
		bench_memcpy();
	if (!only || !strcmp(only, "write64k"))
		bench_case("WRITE 64 KiB hot", ORCA_WR_RDMA_WRITE, 65536,
			   HOT_BYTES);
	if (!only || !strcmp(only, "write64k-stream"))
		bench_case("WRITE 64 KiB streaming", ORCA_WR_RDMA_WRITE, 65536,
			   STREAM_BYTES);
	if (!only || !strcmp(only, "write4k"))
		bench_case("WRITE 4 KiB hot", ORCA_WR_RDMA_WRITE, 4096,
			   HOT_BYTES);
	if (!only || !strcmp(only, "write8"))
		bench_case("WRITE 8 B hot", ORCA_WR_RDMA_WRITE, 8, HOT_BYTES);
	if (!only || !strcmp(only, "send64k"))
		bench_case("SEND 64 KiB hot", ORCA_WR_SEND, 65536, HOT_BYTES);
	return tap_case_failures ? 1 : 0;
}
