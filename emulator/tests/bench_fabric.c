// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Host-only benchmark of the two-host data path without guests: two
 * devices of this process (one thread, as bench_dp.c's one device) on a
 * real orca-fabric process, an RC QP pair through it (path MTU 4096),
 * the send queue kept full of 64 KiB RDMA WRITEs as ib_write_bw keeps
 * it.  What the link between the emulators costs: the direct link the
 * fabric grants between two ring ports (the default), the rings through
 * the fabric (nodirect: fabric_direct=0), and the socket
 * (fabric_ring_slots=0).
 *
 *   orca-emu-bench-fabric PATH/TO/orca-fabric [seconds (2)] [ring slots (64)] [nodirect]
 *
 * Prints one BENCH_FABRIC line: the path the packets took (named from the
 * devices' counters, not from the arguments), MiB/s over the wall clock,
 * and CPU nanoseconds per 4 KiB packet of this process (both devices) and
 * of the fabric (from /proc), and the kicks.  Not a test: make bench runs
 * it.
 */
#define RAM_SIZE	(64U << 20)

#include <stdio.h>

#include "fabric_fixture.h"

#define MTU4096		5
#define B_LOG_DEPTH	7		/* 128 WQEs, like ib_write_bw */
#define SIG_EVERY	16
#define MSG_LEN		65536

static uint64_t clock_of(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The fabric process's CPU time so far, ns (utime + stime). */
static uint64_t fabric_cpu_ns(void)
{
	unsigned long long ut = 0, st = 0;
	char path[64], buf[1024], *p;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)fab_pid);
	fp = fopen(path, "r");
	if (!fp)
		return 0;
	if (!fgets(buf, sizeof(buf), fp))
		buf[0] = 0;
	fclose(fp);
	/* after the command's ")": state is field 3, utime 14, stime 15 */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return 0;
	return (ut + st) * (1000000000ULL / sysconf(_SC_CLK_TCK));
}

int main(int argc, char **argv)
{
	static char slots_set[48];
	const char *extra[] = { slots_set, NULL, NULL };
	const char *path;
	double secs = argc > 2 ? atof(argv[2]) : 2;
	struct ring_qp qa, qb;
	struct ring_cq ca, cb;
	struct orca_cqe c;
	struct fx *a, *b;
	uint64_t src, dst, posted = 0, done = 0, w0, c0, f0, wall, cpu, fcpu;
	uint32_t slk, dlk, depth = 1U << B_LOG_DEPTH;
	double pkts;

	if (argc < 2) {
		fprintf(stderr, "usage: %s PATH/TO/orca-fabric [seconds] [ring slots]\n",
			argv[0]);
		return 2;
	}
	fab_bin = argv[1];
	snprintf(slots_set, sizeof(slots_set), "fabric_ring_slots=%s",
		 argc > 3 ? argv[3] : "64");
	if (argc > 4 && !strcmp(argv[4], "nodirect"))
		extra[1] = "fabric_direct=0";
	orca_log_set_quiet(1);
	CHECK(fabric_start());
	a = fab_dev_cfg(GUID_A, extra, true);
	b = fab_dev_cfg(GUID_B, extra, false);
	CHECK(wait_port(a, b, ORCA_PORT_ACTIVE));
	src = heap_alloc(MSG_LEN);
	dst = heap_alloc(MSG_LEN);
	memset(gpa(a, src), 0x5a, MSG_LEN);
	CHECK_EQ(reg_mr(a, a->pdn, src, MSG_LEN, ORCA_ACCESS_LOCAL_WRITE,
			&slk), 0);
	CHECK_EQ(reg_mr(b, b->pdn, dst, MSG_LEN,
			ORCA_ACCESS_LOCAL_WRITE | ORCA_ACCESS_REMOTE_WRITE,
			&dlk), 0);
	CHECK(make_cq(a, &ca, 10));
	CHECK(make_cq(b, &cb, 10));
	make_qp_log_depth = B_LOG_DEPTH;
	CHECK(make_qp(a, &qa, ca.cqn));
	CHECK(make_qp(b, &qb, cb.cqn));
	/* no retransmission however long the host stops us */
	connect_timeout = 20;
	connect_dlid = lid_of(b);
	CHECK(connect_rc(a, &qa, qb.qpn, 0, MTU4096));
	connect_dlid = lid_of(a);
	CHECK(connect_rc(b, &qb, qa.qpn, ORCA_ACCESS_REMOTE_WRITE, MTU4096));
	connect_dlid = 0;
	w0 = clock_of(CLOCK_MONOTONIC);
	c0 = clock_of(CLOCK_PROCESS_CPUTIME_ID);
	f0 = fabric_cpu_ns();
	do {
		while (posted - done + SIG_EVERY <= depth) {
			unsigned int k;

			for (k = 0; k < SIG_EVERY; k++)
				put_send_ring(a, &qa, B_LOG_DEPTH,
					      ORCA_WR_RDMA_WRITE,
					      k == SIG_EVERY - 1 ?
					      ORCA_WQE_F_SIGNALED : 0, src,
					      MSG_LEN, slk, iova(dst), dlk);
			posted += SIG_EVERY;
		}
		orca_dev_doorbell(&a->dev, ORCA_FW_VEC_DB);
		pump(a, b);
		while (poll_cqe(a, &ca, &c)) {
			if (c.status != ORCA_CQE_SUCCESS) {
				printf("# CQE status %u\n", c.status);
				goto out;
			}
			done += SIG_EVERY;
		}
	} while (clock_of(CLOCK_MONOTONIC) - w0 < secs * 1e9);
	wall = clock_of(CLOCK_MONOTONIC) - w0;
	cpu = clock_of(CLOCK_PROCESS_CPUTIME_ID) - c0;
	fcpu = fabric_cpu_ns() - f0;
	pkts = (double)done * (MSG_LEN / 4096);
	/* what carried them: most packets through a direct link, or not */
	path = fx_stat(a, "fabric_direct_tx_pkts") * 2 > fx_stat(a, "fabric_tx_pkts") ?
	       "direct" : !fx_stat(a, "fabric_shm") ? "socket" : "rings";
	printf("BENCH_FABRIC %s ring_slots=%s MiB/s=%.0f dev_ns_per_pkt=%.0f fabric_ns_per_pkt=%.0f kicks_a=%lld kicks_b=%lld direct_kicks_a=%lld retries=%lld\n",
	       path, argc > 3 ? argv[3] : "64",
	       done * (double)MSG_LEN / (wall / 1e9) / (1 << 20), cpu / pkts,
	       fcpu / pkts, fx_stat(a, "fabric_kicks_sent"),
	       fx_stat(b, "fabric_kicks_sent"),
	       fx_stat(a, "fabric_direct_kicks_sent"), fx_stat(a, "retries"));
	CHECK(!memcmp(gpa(a, src), gpa(b, dst), MSG_LEN));
out:
	fx_free(a);
	fx_free(b);
	fabric_stop();
	return tap_done();
}
