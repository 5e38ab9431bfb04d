// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca-emu: the orca HCA device model behind a QEMU ivshmem-doorbell
 * function.
 *
 *   orca-emu --socket PATH --ram PATH [--config FILE] [--set key=value]...
 *            [--ctl PATH] [--log FILE] [--once] [--reverse-completions]
 *            [--restart-after MS]
 *   orca-emu --ctl-send PATH 'request'
 *
 * With --restart-after the process is the PCI function and a child
 * process is its firmware: the function accepts QEMU and holds BAR2,
 * every eventfd and the control socket, so a firmware that dies (SIGKILL,
 * the 'kill' control request) is booted again MS milliseconds later on
 * the same function, as a device whose firmware crashed and rebooted.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "ivshmem.h"
#include "orca_dev.h"
#include "orca_log.h"

static_assert(IVS_SHM_SIZE == ORCA_BAR2_SIZE, "BAR2 is the device's");

#define MAX_SETS	128
#define NSEC_PER_MSEC	1000000ULL

static volatile sig_atomic_t stop_signal;

struct emu {
	struct ivs_server ivs;
	struct ctl_server ctl;
	struct orca_dev dev;
	bool once;
	int restart_ms;			/* -1: no supervisor */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: orca-emu --socket PATH --ram PATH [--config FILE] [--set key=value]...\n"
		"                [--ctl PATH] [--log FILE] [--once] [--reverse-completions]\n"
		"                [--restart-after MS]\n"
		"       orca-emu --ctl-send PATH 'request'\n"
		"\n"
		"  --socket PATH          ivshmem server socket (QEMU -chardev socket,path=PATH)\n"
		"  --ram PATH             guest RAM file (memory-backend-file mem-path, share=on)\n"
		"  --config FILE          'key = value' lines, '#' comments\n"
		"  --set key=value        override one configuration key (repeatable)\n"
		"  --ctl PATH             control socket for test hooks\n"
		"  --log FILE             log here instead of stderr\n"
		"  --once                 exit after the first QEMU disconnects\n"
		"  --reverse-completions  complete each doorbell batch in reverse order\n"
		"  --restart-after MS     run the firmware in a child process and boot it\n"
		"                         again MS ms after it dies (implies --once)\n"
		"  --ctl-send PATH LINE   send one control request, print the reply,\n"
		"                         exit 0 on 'ok', 1 otherwise\n");
}

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void raise_irq(void *priv, unsigned int vec)
{
	struct emu *e = priv;

	ivs_raise(&e->ivs, vec);
}

static void on_connect(void *arg)
{
	struct emu *e = arg;

	orca_dev_connect(&e->dev);
}

/* Track the guest RAM mapping (it appears after QEMU connects). */
static void sync_ram(struct emu *e)
{
	if (e->ivs.client_fd < 0)
		return;
	ivs_map_ram(&e->ivs);
	/* also catches a mapping made at accept time */
	if (e->dev.ram != e->ivs.ram || e->dev.ram_size != e->ivs.ram_size)
		orca_dev_set_ram(&e->dev, e->ivs.ram, e->ivs.ram_size);
}

static void client_gone(struct emu *e, const char *why)
{
	char stats[4096];

	orca_dev_format_stats(&e->dev, stats, sizeof(stats));
	orca_log("session stats: %s", stats);
	orca_dev_disconnect(&e->dev);
	ivs_drop_client(&e->ivs, why);
}

/* One pass of the poll loop; returns false when the emulator must exit. */
static bool poll_once(struct emu *e, uint64_t *next_tick)
{
	struct pollfd pfd[4 + ORCA_FW_NUM_VECS + ORCA_FAB_POLLFDS +
			  CTL_MAX_CLIENTS];
	int n = 0, i, ret, ctl_first;
	struct timespec timeout;
	int fw_first = -1, client_idx = -1, fab_first, fab_n;
	uint64_t now = orca_mono_ns(), wake, deadline;

	pfd[n++] = (struct pollfd){ .fd = e->ivs.listen_fd, .events = POLLIN };
	if (e->ivs.client_fd >= 0) {
		client_idx = n;
		pfd[n++] = (struct pollfd){ .fd = e->ivs.client_fd,
					    .events = POLLIN };
		/* a hung device leaves its doorbells unread */
		if (!e->dev.hung) {
			fw_first = n;
			for (i = 0; i < ORCA_FW_NUM_VECS; i++)
				pfd[n++] = (struct pollfd){
					.fd = e->ivs.fw_efd[i],
					.events = POLLIN };
		}
	}
	/* the fabric's socket and direct links; connecting when it is time */
	fab_first = n;
	fab_n = orca_dev_fabric_pollfd(&e->dev, &pfd[n], ORCA_FAB_POLLFDS);
	n += fab_n;
	ctl_first = n;
	n += ctl_pollfds(&e->ctl, pfd + n);

	wake = *next_tick;
	deadline = orca_dev_next_deadline(&e->dev);
	if (deadline && deadline < wake)
		wake = deadline;
	/*
	 * To the nanosecond: a link delay or a retransmit timer far below
	 * a millisecond (packets crossing the fabric) is kept as set.
	 */
	if (wake <= now || orca_dev_busy(&e->dev) || orca_dev_idle(&e->dev) ||
	    !orca_dev_fabric_may_sleep(&e->dev))
		wake = now;
	timeout.tv_sec = (wake - now) / 1000000000ULL;
	timeout.tv_nsec = (wake - now) % 1000000000ULL;
	ret = ppoll(pfd, n, &timeout, NULL);
	if (ret < 0 && errno != EINTR) {
		orca_log("poll: %s", strerror(errno));
		return false;
	}
	if (stop_signal)
		return false;

	now = orca_mono_ns();
	if (now >= *next_tick) {
		sync_ram(e);
		orca_dev_tick(&e->dev);
		*next_tick += ORCA_HEARTBEAT_PERIOD_MS * NSEC_PER_MSEC;
		if (*next_tick < now)	/* we were stopped: do not burst */
			*next_tick = now + ORCA_HEARTBEAT_PERIOD_MS *
					   NSEC_PER_MSEC;
	}
	/* transport timers, and a transfer that stopped on its budget */
	if (orca_dev_busy(&e->dev) || (deadline && now >= deadline))
		orca_dev_work(&e->dev);
	/*
	 * packets in (a batch), queued packets out: the shared-memory link
	 * has no descriptor, so on every pass (a timeout leaves revents 0)
	 */
	if (fab_n) {
		if (ret <= 0)
			for (i = 0; i < fab_n; i++)
				pfd[fab_first + i].revents = 0;
		orca_dev_fabric_io(&e->dev, &pfd[fab_first], fab_n);
	}
	if (ret <= 0)
		return true;

	/* Doorbells: the count may be coalesced; registers tell the work. */
	for (i = 0; fw_first >= 0 && i < ORCA_FW_NUM_VECS; i++) {
		uint64_t writes;

		if (!(pfd[fw_first + i].revents & POLLIN))
			continue;
		writes = ivs_read_efd(e->ivs.fw_efd[i]);
		if (!writes)
			continue;
		sync_ram(e);
		orca_dev_doorbells(&e->dev, i, writes);
	}
	if (client_idx >= 0 &&
	    (pfd[client_idx].revents & (POLLIN | POLLHUP | POLLERR))) {
		char buf[64];
		ssize_t r = read(e->ivs.client_fd, buf, sizeof(buf));

		if (r > 0) {
			orca_log("ivshmem: ignoring %zd unexpected bytes from QEMU",
				 r);
		} else if (r == 0 || errno != EINTR) {
			client_gone(e, r == 0 ? "EOF" : strerror(errno));
			if (e->once) {
				orca_log("--once: exiting after the first session");
				return false;
			}
		}
	}
	ctl_handle(&e->ctl, pfd + ctl_first, n - ctl_first, &e->dev);
	if ((pfd[0].revents & POLLIN) && ivs_accept(&e->ivs, on_connect, e))
		sync_ram(e);
	return true;
}

static void run_device(struct emu *e)
{
	uint64_t next_tick = orca_mono_ns() + ORCA_HEARTBEAT_PERIOD_MS * NSEC_PER_MSEC;

	while (poll_once(e, &next_tick))
		;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (ms % 1000) * NSEC_PER_MSEC };

	/* a signal ends the wait early: the caller checks stop_signal */
	nanosleep(&ts, NULL);
}

/* The firmware: a child that dies with the function (the supervisor). */
static void __attribute__((noreturn))
run_firmware(struct emu *e, pid_t function, unsigned int incarnation)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != function)
		_exit(1);
	if (incarnation > 1)
		orca_dev_fw_restart(&e->dev);
	orca_log("firmware incarnation %u running (pid %d, generation %llu)",
		 incarnation, (int)getpid(),
		 (unsigned long long)le64toh(e->dev.regs->generation));
	run_device(e);
	/* the function owns every fd and path: no cleanup here */
	_exit(stop_signal || e->ivs.client_fd < 0 ? 0 : 1);
}

/*
 * --restart-after: accept QEMU here, then run the firmware in a child and
 * boot a new one each time it dies, until QEMU goes or we are told to
 * stop.  Returns the exit status.
 */
static int supervise(struct emu *e)
{
	unsigned int incarnation;
	pid_t pid;
	int st;

	while (!stop_signal && e->ivs.client_fd < 0) {
		struct pollfd p = { .fd = e->ivs.listen_fd, .events = POLLIN };

		if (poll(&p, 1, -1) < 0 && errno != EINTR) {
			orca_log("poll: %s", strerror(errno));
			return 1;
		}
		if (p.revents & POLLIN)
			ivs_accept(&e->ivs, on_connect, e);
	}
	for (incarnation = 1; !stop_signal; incarnation++) {
		pid = fork();
		if (pid < 0) {
			orca_log("fork: %s", strerror(errno));
			return 1;
		}
		if (!pid)
			run_firmware(e, getppid(), incarnation);
		while (waitpid(pid, &st, 0) < 0) {
			if (errno != EINTR) {
				orca_log("waitpid: %s", strerror(errno));
				return 1;
			}
			if (stop_signal)
				kill(pid, SIGTERM);
		}
		if (WIFEXITED(st) && !WEXITSTATUS(st))
			break;		/* QEMU went away, or a signal */
		if (WIFSIGNALED(st))
			orca_log("firmware incarnation %u (pid %d) died: signal %d; booting it again in %d ms",
				 incarnation, (int)pid, WTERMSIG(st),
				 e->restart_ms);
		else
			orca_log("firmware incarnation %u (pid %d) exited with status %d; booting it again in %d ms",
				 incarnation, (int)pid, WEXITSTATUS(st),
				 e->restart_ms);
		sleep_ms(e->restart_ms);
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct orca_cfg *cfg,
		      const char **sock, const char **ram, const char **ctl,
		      const char **logf, bool *once, bool *reverse,
		      int *restart_ms)
{
	static const struct option opts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "ram", required_argument, NULL, 'r' },
		{ "config", required_argument, NULL, 'c' },
		{ "set", required_argument, NULL, 'S' },
		{ "ctl", required_argument, NULL, 'C' },
		{ "log", required_argument, NULL, 'l' },
		{ "once", no_argument, NULL, '1' },
		{ "reverse-completions", no_argument, NULL, 'R' },
		{ "restart-after", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *sets[MAX_SETS];
	int nsets = 0, opt, i;
	char err[256];

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			*sock = optarg;
			break;
		case 'r':
			*ram = optarg;
			break;
		case 'c':
			config = optarg;
			break;
		case 'C':
			*ctl = optarg;
			break;
		case 'l':
			*logf = optarg;
			break;
		case '1':
			*once = true;
			break;
		case 'R':
			*reverse = true;
			break;
		case 'A': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || end == optarg || v < 0 || v > 600000) {
				fprintf(stderr, "orca-emu: --restart-after: 0..600000 ms\n");
				return -1;
			}
			*restart_ms = (int)v;
			break;
		}
		case 'h':
			usage(stdout);
			exit(0);
		case 'S':
			if (nsets == MAX_SETS) {
				fprintf(stderr, "orca-emu: too many --set\n");
				return -1;
			}
			sets[nsets++] = optarg;
			break;
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind != argc || !*sock || !*ram) {
		fprintf(stderr, "orca-emu: --socket and --ram are required\n");
		usage(stderr);
		return -1;
	}
	orca_cfg_defaults(cfg);
	/* the file first, then --set in command line order */
	if (config && orca_cfg_load(cfg, config, err, sizeof(err)))
		goto bad;
	for (i = 0; i < nsets; i++)
		if (orca_cfg_set_kv(cfg, sets[i], err, sizeof(err)))
			goto bad;
	if (orca_cfg_finalize(cfg, err, sizeof(err)))
		goto bad;
	return 0;
bad:
	fprintf(stderr, "orca-emu: configuration error: %s\n", err);
	return -1;
}

int main(int argc, char **argv)
{
	const char *sock = NULL, *ram = NULL, *ctl = NULL, *logf = NULL;
	bool once = false, reverse = false;
	struct sigaction sa = { .sa_handler = on_signal };
	static struct emu e;	/* large: keep it off the stack */
	int restart_ms = -1, rc = 1;
	struct orca_cfg cfg;
	FILE *logfp = NULL;

	if (argc == 4 && !strcmp(argv[1], "--ctl-send"))
		return ctl_send(argv[2], argv[3]);
	if (parse_args(argc, argv, &cfg, &sock, &ram, &ctl, &logf, &once,
		       &reverse, &restart_ms))
		return 2;
	if (logf) {
		logfp = fopen(logf, "a");
		if (!logfp) {
			fprintf(stderr, "orca-emu: %s: %s\n", logf,
				strerror(errno));
			return 2;
		}
		orca_log_set_file(logfp);
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	e.once = once || restart_ms >= 0;
	e.restart_ms = restart_ms;
	e.ctl.listen_fd = -1;
	if (ivs_open(&e.ivs, sock, ram))
		goto out;
	if (orca_dev_init(&e.dev, &cfg, e.ivs.shm, raise_irq, &e)) {
		orca_log("out of memory");
		goto out_ivs;
	}
	e.dev.reverse_completions = reverse;
	if (ctl && ctl_open(&e.ctl, ctl))
		goto out_dev;

	orca_log("listening on %s (ram %s%s%s), fw %u.%u.%u '%s', max_qp %llu, ECE %s%s",
		 sock, ram, ctl ? ", ctl " : "", ctl ? ctl : "",
		 ORCA_FW_VERSION_MAJOR(cfg.fw_version),
		 ORCA_FW_VERSION_MINOR(cfg.fw_version),
		 ORCA_FW_VERSION_SUB(cfg.fw_version), cfg.fw_name,
		 (unsigned long long)cfg.max_qp,
		 orca_cfg_has_ece(&cfg) ? "on" : "off",
		 reverse ? ", reverse completions" : "");
	if (cfg.fabric[0])
		orca_log("port 1 on the fabric %s (DOWN until its SM assigns a LID)",
			 cfg.fabric);
	if (restart_ms >= 0) {
		orca_log("firmware restarts %d ms after it dies", restart_ms);
		rc = supervise(&e);
	} else {
		run_device(&e);
		rc = 0;
	}
	if (stop_signal)
		orca_log("signal %d: exiting", (int)stop_signal);
	if (restart_ms >= 0)	/* the firmware logged its own session */
		ivs_drop_client(&e.ivs, "shutdown");
	else if (e.ivs.client_fd >= 0)
		client_gone(&e, "shutdown");
	ctl_close(&e.ctl);
out_dev:
	orca_dev_destroy(&e.dev);
out_ivs:
	ivs_close(&e.ivs);
out:
	if (logfp)
		fclose(logfp);
	return rc;
}
