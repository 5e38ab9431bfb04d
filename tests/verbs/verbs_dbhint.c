// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The doorbell hint: the page where the device says it is awake, so a
 * post may skip its kick (Documentation/infiniband/orca.rst).
 *
 * With the orca module's db_hint=Y (the default), every context maps it
 * read-only; nothing makes it writable or executable, a private mapping
 * is refused, and a second shared read-only mapping shows the same word.
 * A ping-pong between two RC QPs of the context, as ib_send_lat runs it
 * (a thread per side, each busy-polling its CQ), completes; the word is
 * only ever 0 or 1.  In the orca VM, from the emulator's counters: with
 * the device held awake (hostctl db-awake-hold 1) a second ping-pong
 * rings no kick at all: the device sees no kick beyond those the driver
 * rang for the kernel's QPs (hw_counters/kernel_kicks); left to itself
 * the device sleeps and wakes as the timing goes, and how many posts
 * skipped their kick is printed, not judged (a speed, make bench's).  With db_hint=N there is no such
 * mapping and every post kicks.
 *
 *   verbs_dbhint [-d orca0]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>

#include "common.h"

#define ROUNDS	500
#define MSG	64

struct map {
	void *addr;
	unsigned long pgoff;
	int n;
};

/* The read-only mappings of the uverbs file in our maps. */
static struct map hint_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	struct map m = {};
	char line[512], perms[8];
	unsigned long lo, off;

	if (!f)
		return m;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "/dev/infiniband/uverbs") ||
		    sscanf(line, "%lx-%*x %7s %lx", &lo, perms, &off) != 3 ||
		    strcmp(perms, "r--s"))
			continue;
		m.addr = (void *)lo;
		m.pgoff = off;
		m.n++;
	}
	fclose(f);
	return m;
}

static bool param_on(void)
{
	FILE *f = fopen("/sys/module/orca/parameters/db_hint", "r");
	int c = f ? fgetc(f) : 'Y';

	if (f)
		fclose(f);
	return c == 'Y';
}

static void mapping_checks(struct ibv_context *ctx, const struct map *m)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile uint32_t *word = m->addr;
	void *p;
	int err;

	ok(*word <= 1, "the word reads %u", *word);
	err = mprotect(m->addr, page, PROT_READ | PROT_WRITE) ? errno : 0;
	ok(err == EACCES, "mprotect(PROT_WRITE) refused: %s", err_str(err));
	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, ctx->cmd_fd,
		 m->pgoff);
	err = p == MAP_FAILED ? errno : 0;
	ok(err == EPERM, "a writable mapping is refused: %s", err_str(err));
	if (p != MAP_FAILED)
		munmap(p, page);
	p = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_SHARED, ctx->cmd_fd,
		 m->pgoff);
	err = p == MAP_FAILED ? errno : 0;
	ok(err == EPERM, "an executable mapping is refused: %s", err_str(err));
	if (p != MAP_FAILED)
		munmap(p, page);
	p = mmap(NULL, page, PROT_READ, MAP_PRIVATE, ctx->cmd_fd, m->pgoff);
	err = p == MAP_FAILED ? errno : 0;
	ok(err, "a private mapping is refused: %s", err_str(err));
	if (p != MAP_FAILED)
		munmap(p, page);
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, ctx->cmd_fd, m->pgoff);
	ok(p != MAP_FAILED && *(volatile uint32_t *)p <= 1,
	   "a second read-only mapping works: %s",
	   p == MAP_FAILED ? strerror(errno) : "word 0 or 1");
	if (p != MAP_FAILED)
		munmap(p, page);
}

/* One side of the ping-pong: its QP, its CQ, its half of the buffer. */
struct side {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	bool first;		/* sends first */
	int cpu;		/* runs there, if there are two */
	int done;		/* messages it received */
	int rounds;		/* messages each way */
	const struct map *m;
	int bad_word;		/* hint words above 1 seen before a post */
};

static int post_recv1(struct side *s)
{
	struct ibv_sge sge = { .addr = (uintptr_t)s->buf + MSG,
			       .length = MSG, .lkey = s->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(s->qp, &wr, &bad);
}

static int post_send1(struct side *s)
{
	struct ibv_sge sge = { .addr = (uintptr_t)s->buf, .length = MSG,
			       .lkey = s->mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	if (s->m->addr && *(volatile uint32_t *)s->m->addr > 1)
		s->bad_word++;
	return ibv_post_send(s->qp, &wr, &bad);
}

/*
 * Busy-poll until a receive completes (send completions pass by).  The
 * clock is read only now and then: in the TCG guest a clock read can be
 * an emulated device access, which would compete with the doorbells.
 */
static bool wait_recv(struct side *s)
{
	long long end = now_ms() + wait_ms();
	unsigned int spins = 0;
	struct ibv_wc wc;
	int got;

	for (;;) {
		got = ibv_poll_cq(s->cq, 1, &wc);
		if (got < 0 || (got == 1 && wc.status != IBV_WC_SUCCESS))
			return false;
		if (got == 1 && wc.opcode == IBV_WC_RECV)
			return true;
		if (!got && !(++spins % 65536) && now_ms() > end)
			return false;
	}
}

/* A ping-pong as ib_send_lat runs it: one thread per side, busy-polling. */
static void *run_side(void *arg)
{
	struct side *s = arg;
	cpu_set_t set;
	int i;

	/* as two processes would be: each side busy on a CPU of its own */
	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2) {
		CPU_ZERO(&set);
		CPU_SET(s->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}

	for (i = 0; i < s->rounds; i++) {
		if (s->first && post_send1(s))
			break;
		if (!wait_recv(s) || post_recv1(s))
			break;
		s->done++;
		if (!s->first && post_send1(s))
			break;
	}
	return NULL;
}

static void pingpong(struct ibv_context *ctx, const struct map *m, bool on,
		     bool held, int rounds)
{
	const char *dev = ibv_get_device_name(ctx->device);
	char reply[256];
	bool hold = held && !hostctl("db-awake-hold 1", reply, sizeof(reply));
	/* the driver's count first: the kernel's kicks are counted, then rung */
	unsigned long long d0 = hw_counter(dev, "kernel_kicks");
	unsigned long long k0, w0, k1, w1, d1;
	struct side sa = { .first = true, .m = m, .rounds = rounds },
		    sb = { .m = m, .cpu = 1, .rounds = rounds };
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	uint8_t *buf = aligned_alloc(4096, 4096);
	struct ibv_port_attr port;
	struct ibv_mr *mr = NULL;
	long long t0;
	pthread_t tb;
	bool up;

	sa.cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	sb.cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (pd && sa.cq && sb.cq && buf && !ibv_query_port(ctx, 1, &port)) {
		mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
		sa.qp = create_qp(pd, sa.cq, IBV_QPT_RC);
		sb.qp = create_qp(pd, sb.cq, IBV_QPT_RC);
	}
	sa.mr = sb.mr = mr;
	sa.buf = buf;
	sb.buf = buf + 2 * MSG;
	up = mr && sa.qp && sb.qp && !connect_to(sa.qp, sb.qp->qp_num, &port) &&
	     !connect_to(sb.qp, sa.qp->qp_num, &port) && !post_recv1(&sa) &&
	     !post_recv1(&sb);
	if (!ok(up, "an RC pair in one context, a receive posted on each"))
		goto out;
	k0 = emu_stat("db_writes");
	w0 = emu_stat("wqes");
	if (!ok(!pthread_create(&tb, NULL, run_side, &sb), "second thread"))
		goto out;
	t0 = now_ms();
	run_side(&sa);
	pthread_join(tb, NULL);
	ok(sa.done == rounds && sb.done == rounds && !sa.bad_word &&
	   !sb.bad_word,
	   "%s%d and %d of %d messages each way in %lld ms; the word was above 1 %d times",
	   held ? "held awake: " : "", sa.done, sb.done, rounds,
	   now_ms() - t0, sa.bad_word + sb.bad_word);
	k1 = emu_stat("db_writes");
	w1 = emu_stat("wqes");
	if (hold)
		hostctl("db-awake-hold 0", reply, sizeof(reply));
	sleep_ms(50);	/* past the hw_counters lifespan (10 ms) */
	d1 = hw_counter(dev, "kernel_kicks");
	if (!have_hostctl() || k0 == ~0ULL || k1 == ~0ULL) {
		skip("no emulator counters (outside the orca VM)",
		     "kicks against send WQEs");
		goto out;
	}
	/*
	 * The device counts every kick, the kernel's own QPs' too (ib_mad
	 * and IPoIB post sends and receives meanwhile, and kick for each);
	 * the driver counts those.  Its window holds the device's, so no
	 * post of ours kicked iff the device saw no more kicks than the
	 * driver rang.
	 */
	if (held)
		ok(hold && d0 != ~0ULL && d1 != ~0ULL &&
		   w1 - w0 >= 2ULL * rounds && k1 - k0 <= d1 - d0,
		   "the device held awake: no post kicked, %llu kicks, %llu of them the kernel's (hw_counters/kernel_kicks), for %llu send WQEs, %d of them ours",
		   k1 - k0, d1 - d0, w1 - w0, 2 * rounds);
	else if (on)
		diag("the device left to itself: %llu kicks for %llu send WQEs",
		     k1 - k0, w1 - w0);
	else
		ok(k1 - k0 >= w1 - w0,
		   "db_hint=N: every post kicked: %llu kicks for %llu send WQEs",
		   k1 - k0, w1 - w0);
out:
	if (sa.qp)
		ibv_destroy_qp(sa.qp);
	if (sb.qp)
		ibv_destroy_qp(sb.qp);
	if (mr)
		ibv_dereg_mr(mr);
	if (sa.cq)
		ibv_destroy_cq(sa.cq);
	if (sb.cq)
		ibv_destroy_cq(sb.cq);
	if (pd)
		ibv_dealloc_pd(pd);
	free(buf);
}

int main(int argc, char **argv)
{
	const char *name = parse_dev_arg(&argc, &argv);
	struct ibv_context *ctx = open_device_by_name(name);
	bool on = param_on();
	struct map m;

	if (!ok(ctx != NULL, "open %s", name))
		return tap_done();
	m = hint_maps();
	if (on) {
		ok(m.n == 1, "db_hint=Y: the hint page is mapped read-only (%d mappings)",
		   m.n);
		if (m.n == 1)
			mapping_checks(ctx, &m);
	} else {
		ok(m.n == 0, "db_hint=N: no hint page mapped (%d mappings)",
		   m.n);
	}
	pingpong(ctx, &m, on, false, ROUNDS);
	if (on)
		pingpong(ctx, &m, on, true, ROUNDS / 5);
	ibv_close_device(ctx);
	return tap_done();
}
