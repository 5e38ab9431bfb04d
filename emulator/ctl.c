// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: control socket (test hooks) and its client mode.
 */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl.h"
#include "orca_log.h"

int ctl_open(struct ctl_server *c, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int i;

	memset(c, 0, sizeof(*c));
	c->listen_fd = -1;
	for (i = 0; i < CTL_MAX_CLIENTS; i++)
		c->clients[i].fd = -1;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		orca_log("ctl: path too long: %s", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	c->path = strdup(path);
	c->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (!c->path || c->listen_fd < 0)
		goto fail;
	unlink(path);
	if (bind(c->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(c->listen_fd, 4) < 0)
		goto fail;
	return 0;
fail:
	orca_log("ctl: %s: %s", path, strerror(errno));
	ctl_close(c);
	return -1;
}

void ctl_close(struct ctl_server *c)
{
	int i;

	for (i = 0; i < CTL_MAX_CLIENTS; i++) {
		if (c->clients[i].fd >= 0)
			close(c->clients[i].fd);
		c->clients[i].fd = -1;
	}
	if (c->listen_fd >= 0) {
		close(c->listen_fd);
		if (c->path)
			unlink(c->path);
	}
	c->listen_fd = -1;
	free(c->path);
	c->path = NULL;
}

int ctl_pollfds(struct ctl_server *c, struct pollfd *pfd)
{
	int i, n = 0;

	if (c->listen_fd < 0)
		return 0;
	pfd[n++] = (struct pollfd){ .fd = c->listen_fd, .events = POLLIN };
	for (i = 0; i < CTL_MAX_CLIENTS; i++)
		pfd[n++] = (struct pollfd){ .fd = c->clients[i].fd,
					    .events = POLLIN };
	return n;
}

static int parse_u32(const char *s, uint32_t *v)
{
	unsigned long long x;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end || x > 0xffffffffULL)
		return -1;
	*v = x;
	return 0;
}

/* Requests with two arguments. */
static int ctl_execute3(struct orca_dev *dev, const char *cmd,
			const char *arg, const char *arg2, char *reply,
			size_t len)
{
	unsigned long long val;
	char err[160], *end;
	uint32_t n, qpn;
	int ret;

	if (!strcmp(cmd, "eq-flood")) {
		if (parse_u32(arg, &n) || parse_u32(arg2, &qpn) || n > 65536) {
			snprintf(reply, len, "error usage: eq-flood N QPN");
			return 0;
		}
		ret = orca_dev_hook_eq_flood(dev, n, qpn, err, sizeof(err));
	} else if (!strcmp(cmd, "misbehave")) {
		if (parse_u32(arg2, &n)) {
			snprintf(reply, len, "error usage: misbehave KIND [N]");
			return 0;
		}
		ret = orca_dev_hook_misbehave(dev, arg, n, err, sizeof(err));
	} else if (!strcmp(cmd, "caps-override")) {
		errno = 0;
		val = strtoull(arg2, &end, 0);
		if (!isdigit((unsigned char)*arg2) || errno || *end) {
			snprintf(reply, len, "error bad value '%s'", arg2);
			return 0;
		}
		ret = orca_dev_hook_caps_override(dev, arg, val, err,
						  sizeof(err));
	} else {
		snprintf(reply, len, "error unknown request '%s'", cmd);
		return 0;
	}
	if (ret)
		snprintf(reply, len, "error %s", err);
	else
		snprintf(reply, len, "ok %s %s %s", cmd, arg, arg2);
	return 0;
}

int ctl_execute(struct orca_dev *dev, const char *line, char *reply,
		size_t len)
{
	char cmd[32] = "", arg[64] = "", arg2[32] = "", extra[8] = "";
	char err[160];
	uint32_t v = 0;
	int n;

	n = sscanf(line, "%31s %63s %31s %7s", cmd, arg, arg2, extra);
	if (n <= 0) {
		snprintf(reply, len, "error empty request");
		return 0;
	}
	if (n == 4)
		goto usage;
	if (n == 3)
		return ctl_execute3(dev, cmd, arg, arg2, reply, len);

	if (!strcmp(cmd, "ping") && n == 1) {
		snprintf(reply, len, "ok pong generation=%llu heartbeat=%llu",
			 (unsigned long long)le64toh(dev->regs->generation),
			 (unsigned long long)le64toh(dev->regs->heartbeat));
	} else if (!strcmp(cmd, "kill") && n == 1) {
		orca_log("ctl: kill: SIGKILL (simulated firmware crash)");
		snprintf(reply, len, "ok killing");
		return 1;
	} else if (!strcmp(cmd, "hang") && n == 1) {
		orca_dev_hook_hang(dev);
		snprintf(reply, len, "ok hung");
	} else if ((!strcmp(cmd, "qp-fatal") || !strcmp(cmd, "sq-error")) &&
		   n == 2) {
		int ret;

		if (parse_u32(arg, &v)) {
			snprintf(reply, len, "error bad QPN '%s'", arg);
			return 0;
		}
		ret = cmd[1] == 'p' ?
			orca_dev_hook_qp_fatal(dev, v, err, sizeof(err)) :
			orca_dev_hook_sq_error(dev, v, err, sizeof(err));
		if (ret)
			snprintf(reply, len, "error %s", err);
		else
			snprintf(reply, len, "ok qp %u", v);
	} else if ((!strcmp(cmd, "port-down") || !strcmp(cmd, "port-up")) &&
		   n == 1) {
		if (orca_dev_hook_port(dev, cmd[5] == 'u', err, sizeof(err)))
			snprintf(reply, len, "error %s", err);
		else
			snprintf(reply, len, "ok port 1 %s",
				 cmd[5] == 'u' ? "active" : "down");
	} else if (!strcmp(cmd, "fatal")) {
		v = ORCA_FATAL_INJECTED;
		if (n == 2 && (parse_u32(arg, &v) || !v)) {
			snprintf(reply, len, "error bad syndrome '%s'", arg);
			return 0;
		}
		orca_dev_hook_fatal(dev, v);
		snprintf(reply, len, "ok fatal syndrome=%u", v);
	} else if ((!strcmp(cmd, "stall") || !strcmp(cmd, "cmd-delay")) &&
		   n == 2) {
		if (parse_u32(arg, &v)) {
			snprintf(reply, len, "error bad milliseconds '%s'", arg);
			return 0;
		}
		if (cmd[1] == 't')
			orca_dev_hook_stall(dev, v);
		else
			orca_dev_hook_cmd_delay(dev, v);
		snprintf(reply, len, "ok %s %u ms", cmd, v);
	} else if (!strcmp(cmd, "link-faults") && n == 2) {
		unsigned int d = 0, u = 0, r = 0, us = 0;
		char tail;

		if (strcmp(arg, "off") &&
		    sscanf(arg, "%u,%u,%u,%u%c", &d, &u, &r, &us, &tail) != 4) {
			snprintf(reply, len,
				 "error usage: link-faults DROP,DUP,REORDER,DELAY (per million, per million, per million, us) | off");
			return 0;
		}
		if (!orca_dev_hook_link_faults(dev, d, u, r, us)) {
			snprintf(reply, len, "error link-faults out of range '%s'",
				 arg);
			return 0;
		}
		snprintf(reply, len,
			 "ok link-faults drop %u ppm, dup %u ppm, reorder %u ppm, delay %u us",
			 d, u, r, us);
	} else if (!strcmp(cmd, "place-delay") && n == 2 &&
		   !parse_u32(arg, &v) && v <= 10000000) {
		dev->place_delay_us = v;
		snprintf(reply, len, "ok place-delay %u us", v);
	} else if (!strcmp(cmd, "reuse-handles") && n == 2 &&
		   !parse_u32(arg, &v) && v <= 1) {
		dev->reuse_handles = v;
		snprintf(reply, len, "ok reuse-handles %u", v);
	} else if (!strcmp(cmd, "comp-irq-hold") && n == 2 &&
		   !parse_u32(arg, &v) && v <= 1) {
		orca_dev_hook_comp_irq_hold(dev, v);
		snprintf(reply, len, "ok comp-irq-hold %u", v);
	} else if (!strcmp(cmd, "db-awake-hold") && n == 2 &&
		   !parse_u32(arg, &v) && v <= 1) {
		orca_dev_hook_db_awake_hold(dev, v);
		snprintf(reply, len, "ok db-awake-hold %u", v);
	} else if (!strcmp(cmd, "caps-override") && n == 2 &&
		   !strcmp(arg, "clear")) {
		orca_dev_hook_caps_override(dev, arg, 0, err, sizeof(err));
		snprintf(reply, len, "ok caps-override clear");
	} else if (!strcmp(cmd, "misbehave") && n == 2) {
		if (orca_dev_hook_misbehave(dev, arg, 0, err, sizeof(err)))
			snprintf(reply, len, "error %s", err);
		else
			snprintf(reply, len, "ok misbehave %s", arg);
	} else if (!strcmp(cmd, "stats") && n == 1) {
		int off = snprintf(reply, len, "ok ");

		orca_dev_format_stats(dev, reply + off, len - off);
	} else {
		goto usage;
	}
	return 0;
usage:
	snprintf(reply, len,
		 "error unknown request '%s' (kill, hang, stall MS, cmd-delay MS, qp-fatal QPN, sq-error QPN, eq-flood N QPN, port-down, port-up, fatal [SYND], place-delay US, link-faults D,U,R,US|off, reuse-handles 0|1, comp-irq-hold 0|1, db-awake-hold 0|1, caps-override FIELD VALUE|clear, misbehave KIND [N], stats, ping)",
		 line);
	return 0;
}

static void client_drop(struct ctl_client *cl)
{
	close(cl->fd);
	cl->fd = -1;
	cl->len = 0;
}

static void reply_line(struct ctl_client *cl, const char *reply)
{
	size_t len = strlen(reply);

	/* replies are short: a blocking send of one line is fine */
	if (send(cl->fd, reply, len, MSG_NOSIGNAL) != (ssize_t)len ||
	    send(cl->fd, "\n", 1, MSG_NOSIGNAL) != 1)
		client_drop(cl);
}

static void client_input(struct ctl_client *cl, struct orca_dev *dev)
{
	char reply[4096];
	char *nl;
	ssize_t r;

	r = read(cl->fd, cl->buf + cl->len, sizeof(cl->buf) - 1 - cl->len);
	if (r <= 0) {
		if (r < 0 && errno == EINTR)
			return;
		client_drop(cl);
		return;
	}
	cl->len += r;
	cl->buf[cl->len] = '\0';
	while (cl->fd >= 0 && (nl = strchr(cl->buf, '\n'))) {
		int kill_self;

		*nl = '\0';
		if (nl > cl->buf && nl[-1] == '\r')
			nl[-1] = '\0';
		orca_log("ctl: request '%s'", cl->buf);
		kill_self = ctl_execute(dev, cl->buf, reply, sizeof(reply));
		orca_log("ctl: reply '%s'", reply);
		reply_line(cl, reply);
		if (kill_self)
			raise(SIGKILL);
		if (cl->fd < 0)
			return;
		cl->len -= nl + 1 - cl->buf;
		memmove(cl->buf, nl + 1, cl->len + 1);
	}
	if (cl->fd >= 0 && cl->len == sizeof(cl->buf) - 1) {
		reply_line(cl, "error request line too long");
		if (cl->fd >= 0)
			client_drop(cl);
	}
}

void ctl_handle(struct ctl_server *c, const struct pollfd *pfd, int n,
		struct orca_dev *dev)
{
	int i;

	if (!n)
		return;
	for (i = 0; i < CTL_MAX_CLIENTS && i + 1 < n; i++) {
		if (c->clients[i].fd >= 0 &&
		    (pfd[i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
			client_input(&c->clients[i], dev);
	}
	if (pfd[0].revents & POLLIN) {
		int fd = accept4(c->listen_fd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0)
			return;
		for (i = 0; i < CTL_MAX_CLIENTS; i++) {
			if (c->clients[i].fd < 0) {
				c->clients[i].fd = fd;
				c->clients[i].len = 0;
				return;
			}
		}
		orca_log("ctl: too many control clients, refusing one");
		close(fd);
	}
}

int ctl_send(const char *path, const char *line)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char reply[8192];
	size_t got = 0;
	ssize_t r;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "orca-emu: control socket path too long\n");
		return 1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "orca-emu: connect %s: %s\n", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (send(fd, line, strlen(line), MSG_NOSIGNAL) < 0 ||
	    send(fd, "\n", 1, MSG_NOSIGNAL) < 0) {
		fprintf(stderr, "orca-emu: send: %s\n", strerror(errno));
		close(fd);
		return 1;
	}
	shutdown(fd, SHUT_WR);
	while (got < sizeof(reply) - 1) {
		r = read(fd, reply + got, sizeof(reply) - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += r;
		if (memchr(reply, '\n', got))
			break;
	}
	close(fd);
	reply[got] = '\0';
	reply[strcspn(reply, "\n")] = '\0';
	if (!got) {
		fprintf(stderr, "orca-emu: no reply from %s\n", path);
		return 1;
	}
	printf("%s\n", reply);
	return strncmp(reply, "ok", 2) ? 1 : 0;
}
