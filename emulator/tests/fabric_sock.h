/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * A test talking to an orca-fabric process as emulators and admins do:
 * its socket (SOCK_SEQPACKET, orca_fabric_proto.h) and its control
 * socket (one request line, one reply line).
 */
#ifndef ORCA_EMU_TESTS_FABRIC_SOCK_H
#define ORCA_EMU_TESTS_FABRIC_SOCK_H

#include <endian.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "orca_fabric_proto.h"

static inline int sock_to(const char *path, int type)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, type, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* One message from @fd within 10 s; its length, 0 on EOF, -1 none. */
static inline ssize_t recv_msg(int fd, uint8_t *m, size_t len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, 10000) != 1)
		return -1;
	return recv(fd, m, len, 0);
}

/*
 * A new connection to @sock saying HELLO for port GUID @guid; the
 * switch port its LINK_UP names, or -1 (no connection, no LINK_UP).
 */
static inline int fab_hello(const char *sock, int *fd, uint64_t guid,
			    uint64_t node_guid)
{
	struct orca_fab_hello h;
	struct orca_fab_link l;
	uint8_t m[ORCA_FAB_MSG_MAX];

	*fd = sock_to(sock, SOCK_SEQPACKET);
	if (*fd < 0)
		return -1;
	memset(&h, 0, sizeof(h));
	h.h.type = ORCA_FAB_HELLO;
	h.h.version = ORCA_FAB_VERSION;
	h.node_guid = htole64(node_guid);
	h.port_guid = htole64(guid);
	if (send(*fd, &h, sizeof(h), 0) != sizeof(h))
		return -1;
	if (recv_msg(*fd, m, sizeof(m)) != sizeof(l))
		return -1;
	memcpy(&l, m, sizeof(l));
	if (l.h.type != ORCA_FAB_LINK_UP || l.h.version != ORCA_FAB_VERSION)
		return -1;
	return l.port;
}

/* The reply line to one control request @req, "" if none. */
static inline const char *ctl_line(const char *ctl, const char *req)
{
	static char line[16384];
	size_t got = 0, n = strlen(req);
	ssize_t r;
	int fd = sock_to(ctl, SOCK_STREAM);

	line[0] = '\0';
	if (fd < 0)
		return line;
	if (write(fd, req, n) == (ssize_t)n && write(fd, "\n", 1) == 1) {
		while (got < sizeof(line) - 1 && !memchr(line, '\n', got)) {
			r = read(fd, line + got, sizeof(line) - 1 - got);
			if (r <= 0)
				break;
			got += r;
		}
	}
	close(fd);
	line[got] = '\0';
	return line;
}

#endif /* ORCA_EMU_TESTS_FABRIC_SOCK_H */
