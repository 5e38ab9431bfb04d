// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The host's memcpy, the ceiling of orca's data path: the device is a host
 * process that places every payload byte with a copy between two parts of
 * guest RAM.  make bench (tests/bench/run.sh) runs this on the host next to
 * the VM's perftest and prints ib_*_bw 64 KiB as a fraction of it.
 *
 *   streaming  64 KiB copies walking through two buffers far larger than
 *              the caches: every byte comes from and goes to DRAM
 *   hot        the same 64 KiB source copied again and again into one
 *              64 KiB destination: both stay in the cache, as perftest's
 *              reused buffer can
 *
 * Output, one line each, in MiB/s (2^20 bytes, perftest's MB/sec):
 *   MEMCPY streaming <MiB/s>
 *   MEMCPY hot <MiB/s>
 * Each figure is the best of several passes of about 0.2 s: the question is
 * what the machine can do, and a pass another process interrupted says less.
 *
 * usage: memcpy_bw [BUFFER_MIB]   (the streaming buffers, default 256 MiB)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK	(64u << 10)
#define PASSES	5

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Copy @chunks chunks of 64 KiB from @src to @dst, the offsets advancing by
 * @stride (0: the same chunk each time) modulo @span; MiB/s.
 */
static double pass(char *dst, const char *src, size_t span, size_t stride,
		   size_t chunks)
{
	size_t off = 0, i;
	double t0 = now(), dt;

	for (i = 0; i < chunks; i++) {
		memcpy(dst + off, src + off, CHUNK);
		off += stride;
		if (off + CHUNK > span)
			off = 0;
	}
	/* the copies must not be optimized away: the result is looked at */
	__asm__ __volatile__("" : : "r"(dst) : "memory");
	dt = now() - t0;
	return dt > 0 ? (double)chunks * CHUNK / dt / (1 << 20) : 0;
}

/* The best of PASSES passes, each sized to take about 0.2 s. */
static double best(char *dst, const char *src, size_t span, size_t stride)
{
	size_t chunks = 256;
	double bw = 0, b;
	int i;

	/* size a pass: double until one takes 0.05 s */
	for (;;) {
		double t0 = now();

		pass(dst, src, span, stride, chunks);
		if (now() - t0 >= 0.05 || chunks >= (1u << 26))
			break;
		chunks *= 2;
	}
	chunks *= 4;
	for (i = 0; i < PASSES; i++) {
		b = pass(dst, src, span, stride, chunks);
		if (b > bw)
			bw = b;
	}
	return bw;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
	size_t span;
	char *src, *dst;

	if (argc > 2 || mib < 1 || mib > 4096) {
		fprintf(stderr, "usage: memcpy_bw [BUFFER_MIB: 1..4096, default 256]\n");
		return 2;
	}
	span = mib << 20;
	src = malloc(span);
	dst = malloc(span);
	if (!src || !dst) {
		fprintf(stderr, "memcpy_bw: cannot allocate 2 x %zu MiB\n", mib);
		return 1;
	}
	/* touch every page first: page faults are not memcpy */
	memset(src, 0x5a, span);
	memset(dst, 0xa5, span);

	printf("MEMCPY streaming %.0f\n", best(dst, src, span, CHUNK));
	printf("MEMCPY hot %.0f\n", best(dst, src, CHUNK, 0));
	free(src);
	free(dst);
	return 0;
}
