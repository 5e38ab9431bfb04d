/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca device model: control socket for test hooks.
 *
 * SOCK_STREAM, one request per line, one reply line per request starting
 * with "ok" or "error".  See Documentation/infiniband/orca.rst.
 */
#ifndef ORCA_CTL_H
#define ORCA_CTL_H

#include <poll.h>
#include <stddef.h>

#include "orca_dev.h"

#define CTL_MAX_CLIENTS	8
#define CTL_LINE_MAX	256

struct ctl_client {
	int fd;
	size_t len;
	char buf[CTL_LINE_MAX];
};

struct ctl_server {
	int listen_fd;
	char *path;
	struct ctl_client clients[CTL_MAX_CLIENTS];
};

int ctl_open(struct ctl_server *c, const char *path);
void ctl_close(struct ctl_server *c);

/* Add our fds to a poll set; returns the number added. */
int ctl_pollfds(struct ctl_server *c, struct pollfd *pfd);
/* Handle the revents of the fds ctl_pollfds() added. */
void ctl_handle(struct ctl_server *c, const struct pollfd *pfd, int n,
		struct orca_dev *dev);

/*
 * Execute one request line against the device; the reply (without
 * newline) goes to @reply.  Returns 1 if the process must SIGKILL itself
 * after sending the reply.
 */
int ctl_execute(struct orca_dev *dev, const char *line, char *reply,
		size_t len);

/* Client mode: send @line, print the reply.  Exit status 0 on "ok". */
int ctl_send(const char *path, const char *line);

#endif /* ORCA_CTL_H */
