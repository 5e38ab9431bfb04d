// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Kernel bypass: posting and polling make no system call.
 *
 * A child process opens the device and sets up an RC pair (one QP made
 * with ibv_create_qp_ex for the ibv_wr_* API), an extended CQ and two
 * registered buffers.  Then it installs a seccomp filter that traps every
 * system call except exit, exit_group, rt_sigreturn (for the trap
 * handler) and clock_gettime (the test's own deadlines; the provider
 * never asks for the time) and counts the trapped ones in memory shared
 * with the parent.  In that state it posts receives, SENDs with
 * immediate, RDMA WRITEs, RDMA READs, ibv_wr_* batches, polls with
 * ibv_poll_cq and ibv_start_poll, arms the CQ, and checks every byte that
 * arrived.  The parent reports.
 *
 * With user_doorbell=0 (or a BAR0 that shares its page) the provider
 * kicks by write(): --expect-kick-syscalls checks that the counter does
 * see those (the trapped kicks are lost, so the device finds the work at
 * its next scan of the doorbell records).
 *
 *   verbs_bypass [-d orca0] [--expect-kick-syscalls]
 */
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "common.h"

#define ROUNDS		64
#define MSG		256
#define BUF_SIZE	(ROUNDS * MSG * 2)

/* What the child found out, in memory the parent reads after it exits. */
struct report {
	int stage;			/* last stage reached, see stage_name */
	int syscalls;			/* trapped while sandboxed */
	long first_nr, last_nr;		/* their numbers */
	int completions;
	int bad_status;			/* completions not IBV_WC_SUCCESS */
	int first_bad_status, first_bad_opcode;
	int data_errors;
	int timeouts;
	bool db_mapped;			/* the doorbell page is in our maps */
	int setup_errno;		/* why setup or the sandbox failed */
};

static const char *const stage_name[] = {
	"start", "setup", "sandboxed", "send", "write", "read", "wr_api",
	"cq_ex", "armed", "done",
};

static struct report *rep;

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq_ex *cqx;
static struct ibv_cq *cq;
static struct ibv_qp *qa, *qb;
static struct ibv_qp_ex *qax;
static uint8_t *src, *dst;
static struct ibv_mr *src_mr, *dst_mr;

static void on_sigsys(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (!rep->syscalls++)
		rep->first_nr = si->si_syscall;
	rep->last_nr = si->si_syscall;
}

static int sandbox(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit_group, 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_exit, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_rt_sigreturn, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clock_gettime, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	struct sigaction sa = { .sa_sigaction = on_sigsys,
				.sa_flags = SA_SIGINFO };

	if (sigaction(SIGSYS, &sa, NULL) ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static int setup(const char *name)
{
	struct ibv_cq_init_attr_ex cattr = {
		.cqe = 256,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM,
	};
	struct ibv_qp_init_attr_ex qattr = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 32, .max_recv_wr = 32,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_SEND_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_READ,
	};
	struct ibv_port_attr port;

	ctx = open_device_by_name(name);
	if (!ctx)
		return -1;
	pd = ibv_alloc_pd(ctx);
	cqx = ibv_create_cq_ex(ctx, &cattr);
	src = aligned_alloc(4096, BUF_SIZE);
	dst = aligned_alloc(4096, BUF_SIZE);
	if (!pd || !cqx || !src || !dst || ibv_query_port(ctx, 1, &port))
		return -1;
	cq = ibv_cq_ex_to_cq(cqx);
	src_mr = ibv_reg_mr(pd, src, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_READ);
	dst_mr = ibv_reg_mr(pd, dst, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_WRITE);
	qattr.send_cq = qattr.recv_cq = cq;
	qattr.pd = pd;
	qa = ibv_create_qp_ex(ctx, &qattr);
	qb = create_qp(pd, cq, IBV_QPT_RC);
	if (!src_mr || !dst_mr || !qa || !qb)
		return -1;
	qax = ibv_qp_to_qp_ex(qa);
	if (connect_to(qa, qb->qp_num, &port) ||
	    connect_to(qb, qa->qp_num, &port))
		return -1;
	return 0;
}

/*
 * Is the doorbell page in our maps?  It is the writable mapping of the
 * uverbs file that is device memory (VmFlags "io"); the doorbell hint is
 * read-only and the kick ring is memory.
 */
static bool doorbell_mapped(void)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512], perms[8];
	bool found = false, in_uverbs_w = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "VmFlags:", 8)) {
			if (in_uverbs_w && strstr(line, " io"))
				found = true;
			in_uverbs_w = false;
		} else if (strstr(line, "/dev/infiniband/uverbs")) {
			in_uverbs_w = sscanf(line, "%*s %7s", perms) == 1 &&
				      perms[1] == 'w';
		}
	}
	fclose(f);
	return found;
}

static void note_wc(enum ibv_wc_status status, enum ibv_wc_opcode opcode)
{
	rep->completions++;
	if (status != IBV_WC_SUCCESS && !rep->bad_status++) {
		rep->first_bad_status = status;
		rep->first_bad_opcode = opcode;
	}
}

/* Poll @n completions with ibv_poll_cq within wait_ms(). */
static void poll_n(int n)
{
	long long end = now_ms() + wait_ms();
	struct ibv_wc wc;

	while (n > 0) {
		if (ibv_poll_cq(cq, 1, &wc) == 1) {
			note_wc(wc.status, wc.opcode);
			n--;
		} else if (now_ms() > end) {
			rep->timeouts++;
			return;
		}
	}
}

/* The same with the extended CQ API. */
static void poll_n_ex(int n)
{
	long long end = now_ms() + wait_ms();
	struct ibv_poll_cq_attr attr = {};

	while (n > 0) {
		if (ibv_start_poll(cqx, &attr) == 0) {
			do {
				note_wc(cqx->status, ibv_wc_read_opcode(cqx));
				n--;
			} while (n > 0 && ibv_next_poll(cqx) == 0);
			ibv_end_poll(cqx);
		} else if (now_ms() > end) {
			rep->timeouts++;
			return;
		}
	}
}

static void fill(uint8_t *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + 1);
}

static void check(const uint8_t *a, const uint8_t *b, size_t len)
{
	if (memcmp(a, b, len))
		rep->data_errors++;
}

static int post_one(struct ibv_qp *qp, enum ibv_wr_opcode op, void *at,
		    uint32_t lkey, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)at, MSG, lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED, .imm_data = htobe32(7),
		.wr.rdma = { raddr, rkey },
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

static void traffic(void)
{
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_sge rsge;
	unsigned int i;

	rep->stage = 3;
	for (i = 0; i < ROUNDS; i++) {
		uint8_t *s = src + i * MSG, *d = dst + i * MSG;

		fill(s, MSG, i);
		rsge = (struct ibv_sge){ (uintptr_t)d, MSG, dst_mr->lkey };
		rwr = (struct ibv_recv_wr){ .wr_id = i, .sg_list = &rsge,
					    .num_sge = 1 };
		if (ibv_post_recv(qb, &rwr, &rbad) ||
		    post_one(qa, IBV_WR_SEND_WITH_IMM, s, src_mr->lkey, 0, 0))
			return;
		poll_n(2);
		check(s, d, MSG);
	}
	rep->stage = 4;
	memset(dst, 0, BUF_SIZE);
	for (i = 0; i < ROUNDS; i++) {
		uint8_t *s = src + i * MSG, *d = dst + i * MSG;

		fill(s, MSG, i + 1000);
		if (post_one(qa, IBV_WR_RDMA_WRITE, s, src_mr->lkey,
			     (uintptr_t)d, dst_mr->rkey))
			return;
		poll_n(1);
		check(s, d, MSG);
	}
	rep->stage = 5;
	for (i = 0; i < ROUNDS; i++) {
		uint8_t *s = src + i * MSG, *d = dst + BUF_SIZE / 2 + i * MSG;

		fill(s, MSG, i + 2000);
		/* qb reads qa's source into the upper half of dst */
		if (post_one(qb, IBV_WR_RDMA_READ, d, dst_mr->lkey,
			     (uintptr_t)s, src_mr->rkey))
			return;
		poll_n(1);
		check(s, d, MSG);
	}
	rep->stage = 6;
	memset(dst, 0, BUF_SIZE);
	for (i = 0; i < ROUNDS; i += 4) {
		unsigned int k;

		ibv_wr_start(qax);
		for (k = 0; k < 4; k++) {
			uint8_t *s = src + (i + k) * MSG;

			fill(s, MSG, i + k + 3000);
			qax->wr_id = i + k;
			qax->wr_flags = IBV_SEND_SIGNALED;
			ibv_wr_rdma_write(qax, dst_mr->rkey,
					  (uintptr_t)(dst + (i + k) * MSG));
			ibv_wr_set_sge(qax, src_mr->lkey, (uintptr_t)s, MSG);
		}
		if (ibv_wr_complete(qax))
			return;
		rep->stage = 7;
		poll_n_ex(4);
		check(src + i * MSG, dst + i * MSG, 4 * MSG);
	}
	rep->stage = 8;
	if (ibv_req_notify_cq(cq, 0))
		return;
	rep->stage = 9;
}

static int child(const char *name)
{
	if (setup(name)) {
		rep->setup_errno = errno;
		_exit(2);
	}
	rep->stage = 1;
	rep->db_mapped = doorbell_mapped();
	if (sandbox()) {
		/* e.g. a kernel without CONFIG_SECCOMP_FILTER */
		rep->setup_errno = errno;
		_exit(3);
	}
	rep->stage = 2;
	traffic();
	/* no cleanup: exit_group is all we may call, the kernel cleans up */
	syscall(__NR_exit_group, rep->stage == 9 ? 0 : 4);
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = parse_dev_arg(&argc, &argv);
	bool expect_kicks = argc > 1 &&
			    !strcmp(argv[1], "--expect-kick-syscalls");
	long long end;
	int status = -1;
	pid_t pid, w = 0;

	rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!ok(rep != MAP_FAILED, "shared report page"))
		return tap_done();
	memset(rep, 0, sizeof(*rep));
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		return child(name);
	/* a hang guard for the whole child (each of its waits is wait_ms()) */
	end = now_ms() + 2LL * wait_ms();
	while (pid > 0 && (w = waitpid(pid, &status, WNOHANG)) == 0 &&
	       now_ms() < end)
		usleep(20000);
	if (pid > 0 && w == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		diag("the child hung in stage %s: killed", stage_name[rep->stage]);
	}
	if (WIFEXITED(status) && (WEXITSTATUS(status) == 2 ||
				  WEXITSTATUS(status) == 3))
		diag("%s failed: %s", WEXITSTATUS(status) == 2 ?
		     "setting up the verbs objects" : "installing the seccomp filter",
		     strerror(rep->setup_errno));
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	   "child ran every stage sandboxed and exited 0 (status 0x%x, last stage %s)",
	   status, stage_name[rep->stage]);
	if (expect_kicks) {
		ok(!rep->db_mapped,
		   "user_doorbell off: no doorbell page mapped");
		ok(rep->syscalls > 0 && rep->first_nr == __NR_write &&
		   rep->last_nr == __NR_write,
		   "the sandbox sees the write() kicks: %d system calls, first %ld, last %ld (write is %d)",
		   rep->syscalls, rep->first_nr, rep->last_nr, __NR_write);
	} else {
		ok(rep->db_mapped, "the doorbell page is mapped");
		ok(rep->syscalls == 0,
		   "posting, polling and arming made no system call (%d; first nr %ld)",
		   rep->syscalls, rep->syscalls ? rep->first_nr : -1L);
	}
	ok(rep->completions == ROUNDS * 2 + ROUNDS * 3 && !rep->timeouts,
	   "%d completions of %d (%d polls timed out)", rep->completions,
	   ROUNDS * 5, rep->timeouts);
	ok(!rep->bad_status, "every completion IBV_WC_SUCCESS (%d not; first status %d opcode %d)",
	   rep->bad_status, rep->first_bad_status, rep->first_bad_opcode);
	ok(!rep->data_errors && rep->stage == 9,
	   "every byte arrived: %d sends with immediate, %d writes, %d reads, %d ibv_wr_* writes checked, %d mismatches",
	   ROUNDS, ROUNDS, ROUNDS, ROUNDS, rep->data_errors);
	return tap_done();
}
