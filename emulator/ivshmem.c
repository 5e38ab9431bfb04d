// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: ivshmem server protocol (QEMU 7.2 ivshmem-doorbell).
 *
 * Every server message is an 8-byte little-endian int64 sent with its own
 * sendmsg(), optionally carrying one fd.  On accept:
 *   1. protocol version 0
 *   2. the client's id
 *   3. -1 with the shared memory fd (BAR2 size = file size)
 *   4. per firmware vector k: peer id 0 with eventfd k (QEMU writes it when
 *      the guest rings (0 << 16) | k)
 *   5. per guest vector k: the client's id with eventfd k (we write it,
 *      QEMU turns it into MSI-X vector k)
 * The channel is one-way; QEMU exiting shows up as EOF/POLLHUP.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ivshmem.h"
#include "orca_log.h"

static int send_msg(int fd, int64_t val, int passfd)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	int64_t le = (int64_t)htole64((uint64_t)val);
	struct iovec iov = { .iov_base = &le, .iov_len = sizeof(le) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t r;

	if (passfd >= 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &passfd, sizeof(int));
	}
	do {
		r = sendmsg(fd, &msg, MSG_NOSIGNAL);
	} while (r < 0 && errno == EINTR);
	if (r != (ssize_t)sizeof(le)) {
		orca_log("ivshmem: sendmsg(%lld, fd %d): %s", (long long)val,
			 passfd, r < 0 ? strerror(errno) : "short write");
		return -1;
	}
	return 0;
}

int ivs_open(struct ivs_server *s, const char *sock_path,
	     const char *ram_path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->listen_fd = s->shm_fd = s->client_fd = s->ram_fd = -1;
	for (i = 0; i < ORCA_FW_NUM_VECS; i++)
		s->fw_efd[i] = -1;
	for (i = 0; i < ORCA_NUM_MSIX; i++)
		s->guest_efd[i] = -1;
	s->next_id = 1;
	s->shm = MAP_FAILED;

	if (strlen(sock_path) >= sizeof(sa.sun_path)) {
		orca_log("socket path too long: %s", sock_path);
		return -1;
	}
	s->sock_path = strdup(sock_path);
	s->ram_path = strdup(ram_path);
	if (!s->sock_path || !s->ram_path)
		goto fail;

	s->shm_fd = memfd_create("orca-bar2", MFD_CLOEXEC);
	if (s->shm_fd < 0 || ftruncate(s->shm_fd, IVS_SHM_SIZE) < 0) {
		orca_log("memfd: %s", strerror(errno));
		goto fail;
	}
	s->shm = mmap(NULL, IVS_SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		      s->shm_fd, 0);
	if (s->shm == MAP_FAILED) {
		orca_log("mmap BAR2: %s", strerror(errno));
		goto fail;
	}

	s->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->listen_fd < 0) {
		orca_log("socket: %s", strerror(errno));
		goto fail;
	}
	strcpy(sa.sun_path, sock_path);
	unlink(sock_path);	/* a stale socket from a previous run */
	if (bind(s->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(s->listen_fd, 4) < 0) {
		orca_log("bind/listen %s: %s", sock_path, strerror(errno));
		goto fail;
	}
	return 0;
fail:
	ivs_close(s);
	return -1;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void unmap_ram(struct ivs_server *s)
{
	if (s->ram)
		munmap(s->ram, s->ram_size);
	s->ram = NULL;
	s->ram_size = 0;
	close_fd(&s->ram_fd);
	s->ram_warned = false;
}

void ivs_drop_client(struct ivs_server *s, const char *why)
{
	unsigned int i;

	if (s->client_fd < 0)
		return;
	orca_log("ivshmem: client %u disconnected (%s)", s->client_id, why);
	close_fd(&s->client_fd);
	for (i = 0; i < ORCA_FW_NUM_VECS; i++)
		close_fd(&s->fw_efd[i]);
	for (i = 0; i < ORCA_NUM_MSIX; i++)
		close_fd(&s->guest_efd[i]);
	unmap_ram(s);
}

void ivs_close(struct ivs_server *s)
{
	ivs_drop_client(s, "shutdown");
	if (s->listen_fd >= 0 && s->sock_path)
		unlink(s->sock_path);
	close_fd(&s->listen_fd);
	if (s->shm != MAP_FAILED && s->shm)
		munmap(s->shm, IVS_SHM_SIZE);
	s->shm = MAP_FAILED;
	close_fd(&s->shm_fd);
	free(s->sock_path);
	free(s->ram_path);
	s->sock_path = s->ram_path = NULL;
}

static int send_setup(struct ivs_server *s)
{
	unsigned int i;

	if (send_msg(s->client_fd, 0, -1) ||
	    send_msg(s->client_fd, s->client_id, -1) ||
	    send_msg(s->client_fd, -1, s->shm_fd))
		return -1;
	for (i = 0; i < ORCA_FW_NUM_VECS; i++)
		if (send_msg(s->client_fd, IVS_FW_PEER_ID, s->fw_efd[i]))
			return -1;
	for (i = 0; i < ORCA_NUM_MSIX; i++)
		if (send_msg(s->client_fd, s->client_id, s->guest_efd[i]))
			return -1;
	return 0;
}

int ivs_accept(struct ivs_server *s, void (*on_connect)(void *), void *arg)
{
	int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
	unsigned int i;

	if (fd < 0) {
		if (errno != EINTR && errno != EAGAIN)
			orca_log("ivshmem: accept: %s", strerror(errno));
		return 0;
	}
	if (s->client_fd >= 0) {
		/* one device instance per server */
		orca_log("ivshmem: refusing a second client (client %u is connected)",
			 s->client_id);
		close(fd);
		return 0;
	}
	s->client_fd = fd;
	s->client_id = s->next_id++;
	if (s->next_id == IVS_FW_PEER_ID || s->next_id > 0x7fff)
		s->next_id = 1;

	/* QEMU sets O_NONBLOCK on the fds it receives anyway. */
	for (i = 0; i < ORCA_FW_NUM_VECS; i++) {
		s->fw_efd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (s->fw_efd[i] < 0)
			goto fail;
	}
	for (i = 0; i < ORCA_NUM_MSIX; i++) {
		s->guest_efd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (s->guest_efd[i] < 0)
			goto fail;
	}
	if (on_connect)
		on_connect(arg);
	if (send_setup(s))
		goto fail;
	orca_log("ivshmem: client %u connected (BAR2 1 MiB, fw peer %d, %d doorbell vectors, %d MSI-X vectors)",
		 s->client_id, IVS_FW_PEER_ID, ORCA_FW_NUM_VECS,
		 ORCA_NUM_MSIX);
	/* Usually too early (QEMU creates RAM after the chardev): retried. */
	ivs_map_ram(s);
	return 1;
fail:
	ivs_drop_client(s, "setup failed");
	return 0;
}

int ivs_map_ram(struct ivs_server *s)
{
	struct stat st;
	void *p;

	if (s->ram_fd < 0) {
		s->ram_fd = open(s->ram_path, O_RDWR | O_CLOEXEC);
		if (s->ram_fd < 0) {
			if (!s->ram_warned)
				orca_log("guest RAM %s not available yet: %s",
					 s->ram_path, strerror(errno));
			s->ram_warned = true;
			return -1;
		}
	}
	if (fstat(s->ram_fd, &st) < 0 || st.st_size <= 0) {
		if (!s->ram_warned)
			orca_log("guest RAM %s is empty", s->ram_path);
		s->ram_warned = true;
		close_fd(&s->ram_fd);
		return -1;
	}
	/* Remap if the size changed: touching a shrunk mapping is SIGBUS. */
	if (s->ram && (uint64_t)st.st_size == s->ram_size)
		return 0;
	if (s->ram)
		munmap(s->ram, s->ram_size);
	s->ram = NULL;
	s->ram_size = 0;
	p = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 s->ram_fd, 0);
	if (p == MAP_FAILED) {
		orca_log("mmap guest RAM %s: %s", s->ram_path,
			 strerror(errno));
		close_fd(&s->ram_fd);
		return -1;
	}
	s->ram = p;
	s->ram_size = st.st_size;
	s->ram_warned = false;
	orca_log("guest RAM %s mapped, %llu MiB", s->ram_path,
		 (unsigned long long)(s->ram_size >> 20));
	return 1;
}

void ivs_raise(struct ivs_server *s, unsigned int vec)
{
	uint64_t one = 1;

	if (vec >= ORCA_NUM_MSIX || s->guest_efd[vec] < 0)
		return;
	/* EAGAIN = counter saturated: an interrupt is pending anyway */
	if (write(s->guest_efd[vec], &one, sizeof(one)) != sizeof(one) &&
	    errno != EAGAIN)
		orca_log("raise MSI-X %u: %s", vec, strerror(errno));
}

uint64_t ivs_read_efd(int fd)
{
	uint64_t cnt;
	ssize_t r;

	do {
		r = read(fd, &cnt, sizeof(cnt));
	} while (r < 0 && errno == EINTR);
	return r == sizeof(cnt) ? cnt : 0;
}
