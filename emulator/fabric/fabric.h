/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca-fabric: a switch for orca emulators, with or without its own
 * subnet manager (protocol in ../orca_fabric_proto.h).
 *
 *   fabric.c         the poll loop, connections, options
 *   fabric_sm.c      --sm builtin: the v1 SM (LIDs) and LID-range routing
 *   fabric_switch.c  --sm none: a real switch node (fabric_switch.h)
 *   fabric_dr.c      --sm none: directed-route SMPs
 *   fabric_topo.c    --sm none: the switches and the links between them
 *   fabric_ctl.c     the control socket (stats, ping)
 *   fabric_shm.c     the shared-memory links to ports (orca_ring.h)
 *   fabric_direct.c  direct links between two of those ports (builtin)
 */
#ifndef ORCA_FABRIC_SW_H
#define ORCA_FABRIC_SW_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "orca_clock.h"
#include "orca_fabric_proto.h"
#include "orca_msgq.h"
#include "orca_ring.h"
#include "fabric_topo.h"

#define FAB_MAX_PORTS	2048	/* connections at once */
#define FAB_MAX_LIDS	256	/* port GUIDs the SM remembers */
#define FAB_QUEUE	ORCA_FAB_PORT_QUEUE	/* held for a slow port */
#define FAB_CTL_CLIENTS	8
#define FAB_MAX_DIRECT	256	/* direct links at once */
#define FAB_CTL_LINE	256

/*
 * What the SM knows of a port GUID, for its whole life: its LIDs and
 * its counters survive reconnects and link down / up.
 */
struct fab_lid {
	uint64_t port_guid, node_guid;
	uint16_t lid;
	uint8_t lmc;
	int conn;			/* in conns[]; -1: not connected */
	bool up;			/* routed to (HELLO'd, not PORT_DOWN) */
	uint64_t pkts_in, pkts_out;	/* forwarded from it, to it */
	uint64_t bytes_in, bytes_out;
	uint64_t dropped;		/* from it: no route, or it is down */
	uint64_t queue_drops;		/* to it: its queue was full */
	uint64_t connects;
};

/* One emulator's connection. */
struct fab_conn {
	int fd;				/* -1: free */
	int lid;			/* builtin: in lids[]; -1 */
	int sw;				/* switch mode: in topo->sw[] */
	int port;			/* switch: its port, -1 before HELLO */
	struct msgq q, q15;		/* builtin: to it (q15 stays empty) */
	/* the shared-memory link (fabric_shm.c), once SHM_ACK is sent */
	void *shm;
	size_t shm_size;
	struct orca_ring in, out;	/* ring 0 from the port, ring 1 to it */
	bool in_sleeping;		/* told the port to kick us */
	bool blocked;			/* its next packet waits for room */
	int hello_fd;			/* came with the message being read */
	bool direct_ok;			/* HELLO said it takes direct links */
	uint64_t direct_retry_ns;	/* a grant to it failed: not before */
	unsigned int n_direct;		/* its direct links, in f->direct[] */
	uint16_t direct[ORCA_FAB_DIRECT_PER_PORT];
	uint64_t kicks_sent, kicks_rcvd, blocks;
};

/*
 * A direct link: port a fills ring 0 of the memfd, port b ring 1.  Each
 * port's LIDs as the other sees them; in switch mode the one switch the
 * two are cabled to, its generation when it decided, and what of the
 * rings' counts is in its PMA counters already.
 */
struct fab_dlink {
	uint32_t id;
	int a, b;			/* in conns[] */
	uint16_t lid_a, lid_b;
	uint8_t lmc_a, lmc_b;
	uint64_t gen;			/* switch mode: fab_switch.gen */
	uint32_t counted_ab, counted_ba;	/* packets */
	/* the P_Keys each way may carry (orca_fab_direct_keys) */
	uint8_t n_ab, n_ba;
	uint16_t keys_ab[ORCA_FAB_DIRECT_MAX_KEYS];
	uint16_t keys_ba[ORCA_FAB_DIRECT_MAX_KEYS];
	uint64_t counted_ab_bytes, counted_ba_bytes;
	void *shm;			/* NULL: free */
	size_t shm_size;
	struct orca_ring r0, r1;	/* read only for their tails */
};

enum fab_sm_mode {
	FAB_SM_BUILTIN,			/* v1: LID_ASSIGN, LID ranges */
	FAB_SM_NONE,			/* a switch node for a real SM */
};

struct fab_ctl_client {
	int fd;
	size_t len;
	char buf[FAB_CTL_LINE];
};

struct fabric {
	enum fab_sm_mode mode;
	struct fab_topo *topo;		/* FAB_SM_NONE */
	int listen_fd;
	const char *path;
	int ctl_fd;
	const char *ctl_path;
	struct fab_ctl_client ctl[FAB_CTL_CLIENTS];
	struct fab_conn conns[FAB_MAX_PORTS];
	struct fab_lid lids[FAB_MAX_LIDS];
	unsigned int n_lids;
	uint16_t next_lid;
	/* --sm builtin: the ports' M_Keys derive from it (0: none) */
	uint64_t mkey_seed;
	uint8_t mkey_protect;
	unsigned int n_conns;
	unsigned int conns_end;		/* past the last one in use: loops stop */
	unsigned int max_conns;		/* RLIMIT_NOFILE's room, <= FAB_MAX_PORTS */
	/* direct links (--direct 0 turns them off) */
	struct fab_dlink direct[FAB_MAX_DIRECT];
	unsigned int n_direct;
	uint32_t direct_ids;
	uint64_t direct_opened, direct_failed;
	bool direct_on;
	/* ring links: poll this long after their last traffic (--poll-us) */
	uint64_t poll_ns, ring_active_ns;
	bool had_conn;			/* --once: a port came */
	/* dropped with no port to blame: malformed, unknown sender */
	uint64_t bad_msgs;
	uint64_t log_suppressed;
	uint64_t last_log_s;
};

/* fabric.c */
void fab_complain(struct fabric *f, const char *what, int conn);
/* One message from the port of @c (@ring: ring 0, else its socket). */
void fab_on_msg(struct fabric *f, struct fab_conn *c, const uint8_t *m,
		size_t len, bool ring);
void fab_conn_close(struct fabric *f, struct fab_conn *c, const char *why);

/* fabric_shm.c: the rings of the port's memfd @fd (HELLO); 0 or -1 */
int fab_shm_attach(struct fabric *f, struct fab_conn *c, int fd);
void fab_shm_detach(struct fabric *f, struct fab_conn *c);
/* ring 0, a batch at most; false if the port broke it (closed then) */
bool fab_shm_input(struct fabric *f, struct fab_conn *c);
/* what is queued to the port into ring 1; false if it broke the ring */
bool fab_shm_flush(struct fabric *f, struct fab_conn *c);
/* about to sleep: false if ring 0 has a packet that can go on now */
bool fab_shm_may_sleep(struct fabric *f, struct fab_conn *c);
void fab_shm_kick(struct fab_conn *c);

/* fabric_direct.c */
/* --sm builtin: a packet went from @src to @dst (@lrh): a direct link? */
void fab_direct_consider(struct fabric *f, struct fab_conn *src,
			 struct fab_conn *dst, const uint8_t *lrh);
/* --sm none: the switch took the packet @pkt from @src: a direct link? */
void fab_direct_consider_sw(struct fabric *f, struct fab_conn *src,
			    const uint8_t *pkt, size_t len);
/*
 * Once a pass, switch mode: links whose switch changed its mind are
 * closed, and what went through the others is counted at its ports.
 */
void fab_direct_sweep(struct fabric *f);
/* @c goes down or away: its links closed, both ports told. */
void fab_direct_drop(struct fabric *f, struct fab_conn *c, const char *why);
/* Packets through @c's live direct links: from it, to it. */
void fab_direct_counts(const struct fabric *f, const struct fab_conn *c,
		       uint64_t *in, uint64_t *out);

/* fabric_sm.c: --sm builtin */
void fab_sm_hello(struct fabric *f, struct fab_conn *c,
		  const struct orca_fab_hello *h);
void fab_sm_link(struct fabric *f, struct fab_conn *c, bool up);
void fab_sm_forward(struct fabric *f, struct fab_conn *c, const uint8_t *m,
		    size_t len);
/* Would PKT @m wait for room at its egress (a ring link's, lossless)? */
bool fab_sm_blocked(struct fabric *f, const uint8_t *m, size_t len);
void fab_sm_close(struct fabric *f, struct fab_conn *c, const char *why);

/* fabric_ctl.c */
int fab_ctl_open(struct fabric *f, const char *path);
void fab_ctl_close(struct fabric *f);
int fab_ctl_pollfds(struct fabric *f, struct pollfd *pfd);
void fab_ctl_handle(struct fabric *f, const struct pollfd *pfd, int n);
/* One request; the reply without newline in @reply. */
void fab_ctl_execute(struct fabric *f, const char *line, char *reply,
		     size_t len);

#endif /* ORCA_FABRIC_SW_H */
