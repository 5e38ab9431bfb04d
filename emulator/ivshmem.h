/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca device model: ivshmem server glue.
 *
 * The emulator is the ivshmem server for exactly one QEMU client and also
 * its peer 0 ("firmware").  It owns the BAR2 memfd for its whole lifetime;
 * eventfds and the guest RAM mapping belong to one QEMU connection.
 */
#ifndef ORCA_IVSHMEM_H
#define ORCA_IVSHMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "orca_hw.h"

#define IVS_SHM_SIZE	(1U << 20)	/* BAR2: power of two, 1 MiB */
#define IVS_FW_PEER_ID	0

struct ivs_server {
	int listen_fd;
	char *sock_path;

	int shm_fd;			/* memfd, fixed for the process */
	void *shm;

	int client_fd;			/* -1: no QEMU connected */
	uint16_t client_id;
	uint16_t next_id;
	int fw_efd[ORCA_FW_NUM_VECS];	/* doorbells the driver rings */
	int guest_efd[ORCA_NUM_MSIX];	/* MSI-X vectors we raise */

	char *ram_path;
	int ram_fd;
	uint8_t *ram;
	uint64_t ram_size;
	bool ram_warned;
};

int ivs_open(struct ivs_server *s, const char *sock_path,
	     const char *ram_path);
void ivs_close(struct ivs_server *s);

/*
 * Accept a connection on the listening socket.  Returns 1 if a new QEMU
 * client is now connected, 0 if the connection was refused or failed.
 * @on_connect runs after the client id is chosen and before the shared
 * memory is handed out, so the register block is clean when QEMU maps it.
 */
int ivs_accept(struct ivs_server *s, void (*on_connect)(void *), void *arg);

/* Forget the client: close its socket and eventfds, unmap guest RAM. */
void ivs_drop_client(struct ivs_server *s, const char *why);

/*
 * Make sure guest RAM is mapped with its current size.  QEMU connects
 * before it creates the RAM file, so this is called lazily.  Returns 1 if
 * the mapping changed, 0 if unchanged, -1 if RAM is not available.
 */
int ivs_map_ram(struct ivs_server *s);

/* Raise guest MSI-X vector @vec. */
void ivs_raise(struct ivs_server *s, unsigned int vec);

/* Drain an eventfd; returns the count (0 if nothing was pending). */
uint64_t ivs_read_efd(int fd);

#endif /* ORCA_IVSHMEM_H */
