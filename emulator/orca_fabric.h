/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca device model, layer 4: the port's cable to orca-fabric from the
 * inside (orca_link.h is what the rest of the device sees).
 *
 *   orca_fabric_msg.c     what they share: complaints, headers, kicks,
 *                         a packet that arrived
 *   orca_fabric_ring.c    the shared-memory link to the fabric
 *   orca_fabric_direct.c  direct links to other ports of this machine,
 *                         as the fabric grants them
 *   orca_fabric.c         the connection: HELLO, LID_ASSIGN or LINK_UP,
 *                         the socket path, the other messages; it uses
 *                         the three above
 */
#ifndef ORCA_FABRIC_H
#define ORCA_FABRIC_H

#include "orca_link.h"
#include "orca_msgq.h"
#include "orca_ring.h"

#define ORCA_FAB_RETRY_MS	100	/* between connection attempts */
#define ORCA_FAB_QUEUE		256	/* messages waiting to go */
#define ORCA_FAB_RX_BATCH	64	/* messages read per poll */
#define ORCA_FAB_RESERVE	ORCA_FAB_RX_BATCH	/* for ACKs only */
#define ORCA_FAB_VL15_QUEUE	16	/* SMPs waiting, ahead of the rest */
#define ORCA_FAB_DIRECT_MAX	ORCA_FAB_DIRECT_PER_PORT

enum fab_state {
	FAB_IDLE,		/* no connection: retry at retry_at */
	FAB_WAIT,		/* connected, waiting for LID_ASSIGN or LINK_UP */
	FAB_UP,			/* LID assigned by the fabric's SM */
	FAB_LINKED,		/* in a switch port: the subnet's SM's port */
};

/*
 * A direct link to another port of this machine (orca_fabric_proto.h,
 * "Direct links"): two rings in a memfd the fabric made, and a socket
 * pair's end to that port for kicks and for noticing it is gone.
 */
struct fab_direct {
	int fd;
	uint32_t id;		/* the fabric's name for it */
	uint16_t peer_lid;	/* the peer's LIDs: peer_lid + 2^peer_lmc */
	uint8_t peer_lmc;
	uint16_t own_lid;	/* ours that the peer takes: own_lid + 2^own_lmc */
	uint8_t own_lmc;
	/* the P_Keys (15 bits) it carries each way; KEYS_ALL: any */
	uint8_t n_tx_keys, n_rx_keys;
	uint16_t tx_keys[ORCA_FAB_DIRECT_MAX_KEYS];
	uint16_t rx_keys[ORCA_FAB_DIRECT_MAX_KEYS];
	bool rx_sleeping;	/* told the peer to kick us */
	void *shm;		/* NULL: a free entry */
	size_t shm_size;
	struct orca_ring tx, rx;
	uint64_t tx_pkts, rx_pkts, kicks_sent, kicks_rcvd, drops;
};

struct orca_fab {
	int fd;
	enum fab_state state;
	uint8_t switch_port;	/* FAB_LINKED: the switch port we are in */
	bool admin_down;	/* ctl port-down, until port-up */
	uint64_t retry_at;	/* dp_now_ns() */
	/* in a row: connections refused, connections closed before a LID */
	unsigned int failures, refusals;
	struct msgq q15;	/* subnet management: sent first */
	struct msgq q;
	/* the shared-memory link, offered with HELLO, in use after SHM_ACK */
	void *shm;
	size_t shm_size;
	struct orca_ring tx, rx;	/* ring 0 to the fabric, ring 1 from it */
	bool shm_on;
	bool rx_sleeping;	/* told the fabric to kick us */
	uint64_t ring_active_ns;	/* last message through a ring */
	uint64_t kicks_sent, kicks_rcvd, ring_waits;
	/* direct links (orca_fabric_direct.c); n_direct in use */
	struct fab_direct direct[ORCA_FAB_DIRECT_MAX];
	unsigned int n_direct;
	uint64_t direct_opened, direct_refused;
	struct fab_direct direct_closed;	/* the counts of closed ones */
	uint64_t log_s;		/* second of the last complaint */
	uint64_t log_suppressed;
	uint8_t rx_msg[ORCA_FAB_MSG_MAX + 1];
};

typedef void (*fab_deliver_fn)(struct orca_dev *dev, struct orca_pkt *p);
/*
 * One message from the fabric (@ring: through the shared-memory link);
 * true if it was a packet delivered (fab_on_msg(), orca_fabric.c).
 */
typedef bool (*fab_msg_fn)(struct orca_dev *dev, const uint8_t *m,
			   size_t len, bool ring, fab_deliver_fn deliver);

/* orca_fabric_msg.c */
/* What the peer sends is not ours to trust: one log line a second. */
void fab_complain(struct orca_dev *dev, const char *what, const char *why);
/* Say it for the first of a run of failures, then every 100th. */
bool fab_log_first(unsigned int n);
void fab_hdr(struct orca_fab_hdr *h, uint8_t type);
/* KICK on @fd; true if sent (a full socket's reader wakes anyway). */
bool fab_send_kick(int fd);
/* Does the list @keys of @n (or KEYS_ALL) hold @pkey's 15 bits? */
bool fab_direct_key_ok(const uint16_t *keys, uint8_t n, uint16_t pkey);
/*
 * The PKT message @m to @deliver; @ring: it came through shared memory
 * (it may lack its ICRC), @from: through that direct link (its SLID must
 * be the peer's).  True if delivered.
 */
bool fab_rx_pkt(struct orca_dev *dev, const uint8_t *m, size_t len,
		bool ring, const struct fab_direct *from,
		fab_deliver_fn deliver);

/* orca_fabric_ring.c: the shared-memory link to the fabric */
/* The rings to offer with HELLO: the memfd, or -1 (the socket path). */
int fab_ring_create(struct orca_dev *dev);
void fab_ring_unmap(struct orca_fab *fab);
/* Traffic through a ring, for the polling window (cfg fabric_poll_us). */
void fab_ring_traffic(struct orca_dev *dev);
/* The queues into ring 0; -1 if the fabric broke it. */
int fab_ring_flush(struct orca_dev *dev);
/* Ring 1, a batch at most, each to @on_msg: delivered, -1 if broken. */
int fab_ring_input(struct orca_dev *dev, fab_msg_fn on_msg,
		   fab_deliver_fn deliver);
bool fab_ring_may_sleep(struct orca_dev *dev);

/* orca_fabric_direct.c: direct links */
/* DIRECT_OPEN with its descriptors @fds (closed here, used or not). */
void fab_direct_open(struct orca_dev *dev, const uint8_t *m, size_t len,
		     int *fds, unsigned int nfds);
void fab_direct_close_msg(struct orca_dev *dev, const uint8_t *m,
			  size_t len);
void fab_direct_close_all(struct orca_dev *dev, const char *why);
/* The direct link from @slid to @dlid, or NULL. */
struct fab_direct *fab_direct_to(struct orca_dev *dev, uint16_t slid,
				 uint16_t dlid);
/* @p into the direct link to its DLID, if there is one with room. */
bool fab_direct_xmit(struct orca_dev *dev, const struct orca_pkt *p);
/* Every direct link has room for @pending more packets. */
bool fab_direct_room(const struct orca_dev *dev, unsigned int pending);
int fab_direct_pollfds(struct orca_dev *dev, struct pollfd *pfd,
		       unsigned int max);
/* The links' sockets' @revents (in pollfd order) and rings: delivered. */
unsigned int fab_direct_io(struct orca_dev *dev, const struct pollfd *pfd,
			   unsigned int n, fab_deliver_fn deliver);
bool fab_direct_may_sleep(struct orca_dev *dev);
int fab_direct_format_stats(const struct orca_dev *dev, char *buf,
			    size_t len);

/* orca_fabric.c */
bool fab_on_msg(struct orca_dev *dev, const uint8_t *m, size_t len,
		bool ring, fab_deliver_fn deliver);
void fab_link_lost(struct orca_dev *dev, const char *why);

#endif /* ORCA_FABRIC_H */
