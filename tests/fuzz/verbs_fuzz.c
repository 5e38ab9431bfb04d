// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_fuzz: random, seeded verbs calls against one RDMA device, through
 * libibverbs (this file) and through the raw uverbs command interfaces
 * (uverbs_raw.c).  Run in the test guest by tests/vm/verbs-fuzz.sh.
 *
 *   verbs_fuzz [-d orca0] [--seed N] [--calls N] [--fork-pct P] [-v]
 *              [--after-usr1 N]
 *
 * --after-usr1 N: SIGUSR1 ends the run N steps later (or at --calls,
 * whichever is first).  A test that kills the device under load runs the
 * fuzzer with an unbounded --calls and signals it once the device is
 * dead: the fuzzer is then certainly running when the device dies, and
 * certainly makes N calls on the dead device, however fast the host is.
 *
 * It prints its seed first ("# seed N"); --seed N replays the same
 * sequence of calls (the kernel's answers, and so the later choices, may
 * differ when a forked child runs concurrently).  Kernel-side errors are
 * expected: each verb's results are counted per errno and printed at the
 * end.  The exit status is 0 when the fuzzer and every child it forked
 * ran to the end; a child killed by a signal makes it 1.  One signal is
 * the kernel's answer, not a crash: SIGBUS on an access to the device's
 * mapping (/dev/infiniband/uverbsN) in a child.  ib_core zaps a device
 * mapping that fork() copies while or after the device is disassociated
 * (rdma_umap_open), and rdma_umap_fault then raises SIGBUS; a child forked
 * after the device died that rings an inherited doorbell gets exactly
 * that.  It is counted and reported apart (CHILD_EXIT_ZAPPED).
 *
 * Objects live in one table; most calls use live objects, some use
 * objects of another context (foreign).  Stale handles are only ever
 * passed through the raw interface: libibverbs dereferences its objects,
 * so a freed one would crash the fuzzer, not test the kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "fuzz.h"

pid_t fuzz_pid;
static int in_child;
struct ibv_device *fuzz_dev;
static uint64_t child_calls_min = 200, child_calls_span = 1500;
static unsigned int fork_pct = 2;	/* per mille of steps that fork */
static int children_crashed, children_run, children_live, children_zapped;
/* a child's exit status: SIGBUS on a device mapping ib_core zapped */
#define CHILD_EXIT_ZAPPED	86
uint64_t async_events, async_unknown, cq_events, device_fatal;
static volatile sig_atomic_t usr1_seen;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_seen = 1;
}

/* ------------------------------------------------------------ queries */
static void op_query(void)
{
	struct obj *c = pick(K_CTX);
	struct ibv_query_device_ex_input in;
	struct ibv_device_attr_ex ax;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	union ibv_gid gid;
	uint16_t pkey;
	uint8_t port = chance(85) ? 1 : (uint8_t)rn(4);

	if (!c)
		return;
	switch (rn(6)) {
	case 0:
		note("ibv_query_device", ibv_query_device(c->u.ctx, &da));
		break;
	case 1: {
		/* the provider's entry point takes the caller's attr size */
		struct verbs_context *vc = verbs_get_ctx_op(c->u.ctx, query_device_ex);

		in.comp_mask = chance(80) ? 0 : rnd_u32();
		if (!vc || chance(50)) {
			note("ibv_query_device_ex", ibv_query_device_ex(c->u.ctx,
					chance(30) ? NULL : &in, &ax));
			break;
		}
		note("ibv_query_device_ex(size)",
		     vc->query_device_ex(c->u.ctx, chance(30) ? NULL : &in, &ax,
					 rn(sizeof(ax) + 1)));
		break;
	}
	case 2:
		note("ibv_query_port", ibv_query_port(c->u.ctx, port, &pa));
		break;
	case 3:
		note("ibv_query_gid", ibv_query_gid(c->u.ctx, port,
				chance(80) ? (int)rn(4) : (int)rnd_u32(), &gid));
		break;
	case 4:
		note("ibv_query_pkey", ibv_query_pkey(c->u.ctx, port,
				chance(80) ? (int)rn(4) : (int)rnd_u32(), &pkey));
		break;
	default:
		op_query_qp();
		break;
	}
}

/* async events: nonblocking; acked only for objects of ours */
static void op_get_async_event(void)
{
	struct obj *c = pick_own(K_CTX);
	struct ibv_async_event ev;
	struct pollfd pfd;
	int known = 0;

	if (!c)
		return;
	pfd.fd = c->u.ctx->async_fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 0) != 1)
		return;
	if (ibv_get_async_event(c->u.ctx, &ev)) {
		note("ibv_get_async_event", errno);
		return;
	}
	note("ibv_get_async_event", 0);
	async_events++;
	switch (ev.event_type) {
	case IBV_EVENT_CQ_ERR:
		known = !!find_ptr(K_CQ, ev.element.cq);
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		known = !!find_ptr(K_QP, ev.element.qp);
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		known = !!find_ptr(K_SRQ, ev.element.srq);
		break;
	case IBV_EVENT_WQ_FATAL:
		known = 0;	/* we have none of those */
		break;
	case IBV_EVENT_DEVICE_FATAL:
		device_fatal++;
		known = 1;
		break;
	default:
		known = 1;	/* port and device events carry no pointer */
		break;
	}
	if (known)
		ibv_ack_async_event(&ev);
	else
		async_unknown++;
}

/* ------------------------------------------------------------ fork */
static void reap(int block)
{
	int st;
	pid_t p;

	while (children_live &&
	       (p = waitpid(-1, &st, block ? 0 : WNOHANG)) > 0) {
		children_live--;
		if (WIFEXITED(st) && WEXITSTATUS(st) == CHILD_EXIT_ZAPPED) {
			children_zapped++;
			printf("# child %d: SIGBUS on a device mapping ib_core zapped (forked while or after the device was disassociated)\n",
			       (int)p);
		} else if (WIFSIGNALED(st) ||
			   (WIFEXITED(st) && WEXITSTATUS(st))) {
			children_crashed++;
			printf("# child %d: %s %d\n", (int)p,
			       WIFSIGNALED(st) ? "killed by signal" : "exit status",
			       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
		}
	}
}

static void step(void);
static void cleanup(void);

/* the operation under way, for the crash report */
static const char *volatile cur_op = "start";
static uint64_t cur_seed;

/*
 * Is @addr in a mapping of a uverbs device file?  Reads /proc/self/maps
 * with read(2) only: this runs in a signal handler.
 */
static int addr_in_uverbs_mapping(uintptr_t addr)
{
	static char buf[4096];
	static char line[512];
	size_t len = 0;
	ssize_t got;
	int fd, found = 0;

	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while (!found && (got = read(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < got && !found; i++) {
			unsigned long start, end;
			char *dash;

			if (buf[i] != '\n') {
				if (len < sizeof(line) - 1)
					line[len++] = buf[i];
				continue;
			}
			line[len] = '\0';
			len = 0;
			start = strtoul(line, &dash, 16);
			if (*dash != '-')
				continue;
			end = strtoul(dash + 1, NULL, 16);
			found = addr >= start && addr < end &&
				strstr(line, " /dev/infiniband/uverbs");
		}
	}
	close(fd);
	return found;
}

static void crash_report(int sig, siginfo_t *si, void *uctx)
{
	void *bt[32];
	char msg[200];
	int n;

	(void)uctx;
	if (in_child && sig == SIGBUS &&
	    addr_in_uverbs_mapping((uintptr_t)si->si_addr)) {
		n = snprintf(msg, sizeof(msg),
			     "# verbs_fuzz [%d]: SIGBUS at %p, a device mapping ib_core zapped, in %s\n",
			     (int)getpid(), si->si_addr, cur_op);
		if (write(2, msg, (size_t)n) < 0)
			n = 0;	/* the exit status says it all the same */
		_exit(CHILD_EXIT_ZAPPED);
	}
	n = snprintf(msg, sizeof(msg),
		     "# verbs_fuzz [%d]: fatal signal %d in %s (seed %llu)\n",
		     (int)getpid(), sig, cur_op, (unsigned long long)cur_seed);
	if (write(2, msg, (size_t)n) < 0)
		_exit(128 + sig);
	n = backtrace(bt, 32);
	backtrace_symbols_fd(bt, n, 2);
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * A child shares every context and raw fd with the parent: it makes random
 * calls on its own objects and non-destructive ones on the parent's, then
 * exits with its queues still mapped (or, sometimes, cleans up first).
 */
static void op_fork(void)
{
	uint64_t seed = rnd(), n = child_calls_min + rn(child_calls_span);
	pid_t p;

	if (in_child || children_live >= 2)
		return;
	fflush(stdout);
	fflush(stderr);
	p = fork();
	if (p < 0) {
		note("fork", errno);
		return;
	}
	if (p > 0) {
		note("fork", 0);
		children_run++;
		children_live++;
		return;
	}
	in_child = 1;
	fuzz_pid = getpid();
	rnd_seed(seed);
	raw_after_fork();
	while (n--)
		step();
	if (chance(25)) {
		cur_op = "cleanup (child)";
		cleanup();
	}
	_exit(0);
}

/* ------------------------------------------------------------ dispatch */
struct op {
	void (*fn)(void);
	unsigned int weight;
	const char *name;
};

static const struct op ops[] = {
	{ op_open_device, 3, "op_open_device" },
	{ op_close_device, 1, "op_close_device" },
	{ op_alloc_pd, 8, "op_alloc_pd" },
	{ op_reg_mr, 14, "op_reg_mr" },
	{ op_rereg_mr, 4, "op_rereg_mr" },
	{ op_create_cq, 10, "op_create_cq" },
	{ op_resize_cq, 4, "op_resize_cq" },
	{ op_poll_cq, 40, "op_poll_cq" },
	{ op_req_notify, 8, "op_req_notify" },
	{ op_create_comp_channel, 2, "op_create_comp_channel" },
	{ op_destroy_comp_channel, 1, "op_destroy_comp_channel" },
	{ op_get_cq_event, 6, "op_get_cq_event" },
	{ op_create_qp, 12, "op_create_qp" },
	{ op_modify_qp_random, 20, "op_modify_qp_random" },
	{ op_connect_qp, 10, "op_connect_qp" },
	{ op_query, 16, "op_query" },
	{ op_create_ah, 5, "op_create_ah" },
	{ op_post_send, 50, "op_post_send" },
	{ op_post_recv, 25, "op_post_recv" },
	{ op_get_async_event, 6, "op_get_async_event" },
	{ op_create_srq, 4, "op_create_srq" },
	{ op_modify_srq, 4, "op_modify_srq" },
	{ op_post_srq_recv, 12, "op_post_srq_recv" },
	{ op_alloc_mw, 4, "op_alloc_mw" },
	{ op_bind_mw, 6, "op_bind_mw" },
	{ op_destroy, 30, "op_destroy" },
	{ raw_step, 170, "raw_step" },
	{ raw_close_some, 1, "raw_close_some" },
};

/* --skip NAME,...: operations left out (to bisect a failure) */
static const char *skip_list = "";

/* also for the raw layer: "ioctl_get_context" (see uverbs_raw.c) */
int fuzz_skipped(const char *name)
{
	const char *p = strstr(skip_list, name);
	size_t n = strlen(name);

	return p && (p == skip_list || p[-1] == ',') && (p[n] == ',' || !p[n]);
}

static unsigned int weight_of(unsigned int i)
{
	return fuzz_skipped(ops[i].name + 3) ? 0 : ops[i].weight;
}

static void step(void)
{
	static unsigned int total;
	unsigned int i, r;

	if (!total)
		for (i = 0; i < ARRAY_SIZE(ops); i++)
			total += weight_of(i);
	if (!in_child && rn(1000) < fork_pct && strstr(skip_list, "fork") == NULL) {
		op_fork();
		return;
	}
	if (!nlive[K_CTX]) {
		op_open_device();
		return;
	}
	r = rn(total);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		if (r < weight_of(i)) {
			cur_op = ops[i].name;
			ops[i].fn();
			return;
		}
		r -= weight_of(i);
	}
}

/* destroy everything this process owns in random order, retrying what
 * depends on something else; then close the contexts */
static void cleanup(void)
{
	unsigned int i, tries;

	for (tries = 0; tries < 20; tries++) {
		unsigned int left = 0, start = rn(MAX_OBJ);

		for (i = 0; i < MAX_OBJ; i++) {
			struct obj *o = &objs[(start + i) % MAX_OBJ];

			if (o->kind == K_FREE || o->kind == K_CTX ||
			    o->owner != fuzz_pid)
				continue;
			if (destroy_obj(o))
				left++;
		}
		if (!left)
			break;
	}
	for (i = 0; i < MAX_OBJ; i++)
		if (objs[i].kind == K_CTX)
			destroy_obj(&objs[i]);
}

/* ------------------------------------------------------------ main */
void stats_print(FILE *f);

static void usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s [-d DEV] [--seed N] [--calls N] [--fork-pct PERMILLE]\n"
		"          [--skip OP,...] [--big] [--after-usr1 N] [-v]\n"
		"          (OP: open_device, post_send, raw_step, fork, ...)\n"
		"  --big: QP and CQ sizes up to 2^32 (hundreds of MB of rings: memory pressure, OOM)\n"
		"  --after-usr1 N: end N steps after SIGUSR1 (or at --calls)\n",
		argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "calls", required_argument, NULL, 'n' },
		{ "fork-pct", required_argument, NULL, 'f' },
		{ "dev", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "skip", required_argument, NULL, 'S' },
		{ "big", no_argument, NULL, 'B' },
		{ "after-usr1", required_argument, NULL, 'U' },
		{ NULL, 0, NULL, 0 },
	};
	const char *devname = "orca0";
	uint64_t seed, calls = 100000, i, after_usr1 = 0;
	int stop_on_usr1 = 0;
	struct ibv_device **list;
	struct timespec t0, t1;
	int opt, n, clean;
	unsigned int k;
	double secs;

	seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	while ((opt = getopt_long(argc, argv, "d:s:n:f:v", lo, NULL)) != -1) {
		switch (opt) {
		case 'd':
			devname = optarg;
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			calls = strtoull(optarg, NULL, 0);
			break;
		case 'f':
			fork_pct = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'v':
			verbose++;
			break;
		case 'S':
			skip_list = optarg;
			break;
		case 'B':
			big_sizes = 1;
			break;
		case 'U':
			after_usr1 = strtoull(optarg, NULL, 0);
			stop_on_usr1 = 1;
			break;
		default:
			usage(argv[0]);
		}
	}
	printf("# seed %" PRIu64 " (replay: --seed %" PRIu64 "), calls %" PRIu64
	       ", device %s\n", seed, seed, calls, devname);
	fflush(stdout);
	rnd_seed(seed);
	cur_seed = seed;
	signal(SIGPIPE, SIG_IGN);
	{
		struct sigaction sa = { .sa_sigaction = crash_report,
					.sa_flags = SA_SIGINFO };
		static const int fatal[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE };

		sigemptyset(&sa.sa_mask);
		for (k = 0; k < sizeof(fatal) / sizeof(fatal[0]); k++)
			sigaction(fatal[k], &sa, NULL);
	}
	if (stop_on_usr1)
		signal(SIGUSR1, on_usr1);
	fuzz_pid = getpid();
	if (stats_init() || arenas_init()) {
		perror("verbs_fuzz: setup");
		return 2;
	}
	list = ibv_get_device_list(&n);
	for (i = 0; list && (int)i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), devname))
			fuzz_dev = list[i];
	if (!fuzz_dev) {
		fprintf(stderr, "verbs_fuzz: no device %s\n", devname);
		return 2;
	}
	snprintf(uverbs_path, sizeof(uverbs_path), "/dev/infiniband/%s",
		 fuzz_dev->dev_name);
	raw_init();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < calls; i++) {
		if (usr1_seen == 1) {
			usr1_seen = 2;
			if (calls - i > after_usr1)
				calls = i + after_usr1;
			printf("# SIGUSR1 at step %" PRIu64 ": %" PRIu64
			       " more steps\n", i, calls - i);
			fflush(stdout);
		}
		step();
		if ((i & 255) == 0)
			reap(0);
		if (verbose && i && i % 2000 == 0) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			struct rusage ru;

			getrusage(RUSAGE_SELF, &ru);
			fprintf(stderr, "# %" PRIu64 " steps, %.1f s, max RSS %ld MiB\n", i,
				(double)(t1.tv_sec - t0.tv_sec) +
				(t1.tv_nsec - t0.tv_nsec) / 1e9, ru.ru_maxrss / 1024);
		}
	}
	reap(1);
	clean = chance(60);
	cur_op = "cleanup";
	if (clean)
		cleanup();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("# steps %" PRIu64 " in the parent, verb calls %" PRIu64
	       " (children included), %.1f s, %.0f calls/s\n",
	       calls, stats_total(), secs, stats_total() / (secs > 0 ? secs : 1));
	printf("# children: %d run, %d crashed, %d stopped by SIGBUS on a zapped device mapping; async events %" PRIu64
	       " (device fatal %" PRIu64 "), completion events %" PRIu64
	       ", events for unknown objects %" PRIu64 "\n",
	       children_run, children_crashed, children_zapped, async_events,
	       device_fatal,
	       cq_events, async_unknown);
	{
		struct rusage me, kids;

		getrusage(RUSAGE_SELF, &me);
		getrusage(RUSAGE_CHILDREN, &kids);
		printf("# max RSS: fuzzer %ld MiB, largest child %ld MiB\n",
		       me.ru_maxrss / 1024, kids.ru_maxrss / 1024);
	}
	printf("# live at exit:");
	for (k = 1; k < K_NKIND; k++)
		printf(" %s=%u", kind_name[k], nlive[k]);
	printf(" (%s)\n", clean ? "destroyed in random order, then closed" :
				  "left for the kernel to clean up at exit");
	stats_print(stdout);
	printf("# seed %" PRIu64 "\n", seed);
	ibv_free_device_list(list);
	return children_crashed ? 1 : 0;
}

