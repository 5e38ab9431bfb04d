/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca-fabric in switch mode (--sm none): one InfiniBand switch with
 * external ports 1..N and base port 0, programmed by a real subnet
 * manager through port 0's SMA (orca_mad.h).  No sockets here: the poll
 * loop (fabric.c) hands each packet that arrives on a switch port to
 * fab_sw_input(), which leaves what the switch sends in the egress
 * ports' queues; the loop empties them with fab_sw_flush(), the tests
 * with fab_sw_pop().
 *
 *   fabric_switch.c  ports, LID-routed and multicast forwarding,
 *                    partition enforcement, port 0 (SMA on QP0, PMA on
 *                    QP1), counters, queues
 *   fabric_dr.c      directed-route SMPs (IBA 14.2.2)
 */
#ifndef ORCA_FABRIC_SWITCH_H
#define ORCA_FABRIC_SWITCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "orca_fabric_proto.h"
#include "orca_mad.h"
#include "orca_msgq.h"
#include "orca_pkt.h"
#include "orca_ring.h"

#define FAB_SW_DEFAULT_PORTS	8
#define FAB_SW_DEFAULT_GUID	0x00ca7a0000f00000ULL
#define FAB_SW_DESC		"orca-fabric"
/* each external port's P_Key table (SwitchInfo PartitionEnforcementCap) */
#define FAB_SW_ENFORCE_CAP	ORCA_MAD_PKEYS
/*
 * Per egress port: SMPs (VL15) have their own small queue, served
 * before the data queue, so a port busy with data never holds an SMP
 * back past the SM's 200 ms timeout; VL15 is not flow-controlled, so a
 * full VL15 queue drops (VL15Dropped) as a real port's buffer would.
 */
#define FAB_SW_VL15_QUEUE	16
#define FAB_SW_DATA_QUEUE	ORCA_FAB_PORT_QUEUE

/* Why the switch dropped a packet; for `stats`, beside the PMA's. */
enum fab_sw_drop {
	FAB_SW_DROP_MALFORMED,	/* orca_pkt_decode() refused it */
	FAB_SW_DROP_INGRESS,	/* ingress port's state forbids it */
	FAB_SW_DROP_EGRESS,	/* egress port's state forbids it */
	FAB_SW_DROP_NO_ROUTE,	/* LFT 0xff, past LinearFDBTop, loop */
	FAB_SW_DROP_MCAST,	/* MLID past MulticastFDBCap */
	FAB_SW_DROP_QUEUE,	/* egress queue full (data or VL15) */
	FAB_SW_DROP_DR,		/* DR SMP: bad hop, port, hop_cnt */
	FAB_SW_DROP_DR_LID,	/* DR SMP with a LID-routed part */
	FAB_SW_DROP_PORT0,	/* for port 0 but not a MAD it takes */
	FAB_SW_DROP_PKEY,	/* for port 0's QP1, a P_Key not its own */
	FAB_SW_DROP_PART_IN,	/* ingress port's partitions: not in them */
	FAB_SW_DROP_PART_OUT,	/* egress port's partitions: not in them */
	FAB_SW_DROP_NR
};

struct fab_sw_port {
	uint64_t guid;			/* port GUID cabled here, 0 */
	uint64_t node_guid;
	bool connected;			/* a connection holds it */
	bool up;			/* physical link up */
	uint64_t connects;
	struct msgq q15, q;		/* to the port: VL15 first, data */
	/* the port's shared-memory link (fabric_shm.c): the queues' outlet */
	struct orca_ring *ring;
	/* raw totals for the PMA (orca_mad_node.pma_read) */
	struct orca_pma_counters pma;
};

struct fab_switch {
	unsigned int nports;		/* external ports 1..nports */
	struct orca_mad_node node;	/* port 0's SMA/PMA and all tables */
	struct fab_sw_port port[ORCA_MAD_MAX_PORTS + 1];
	uint64_t drops[FAB_SW_DROP_NR];
	/*
	 * Bumped whenever what the switch decides for a packet may have
	 * changed: a Set through port 0's SMA (LFT, port states, P_Keys,
	 * enforcement), a link going up or down.  What caches a decision
	 * (fabric_direct.c) holds it only while this stays.
	 */
	uint64_t gen;
	/* scratch for re-encoding and replies */
	struct orca_pkt pkt, reply;
	uint8_t buf[ORCA_PKT_WIRE_MAX];
};

/* A switch with @nports external ports and node GUID @guid; 0 or -1. */
int fab_sw_init(struct fab_switch *sw, unsigned int nports, uint64_t guid);
void fab_sw_free(struct fab_switch *sw);

/*
 * The switch port of port GUID @guid: the one it had, else the lowest
 * that never had a GUID; -1 if none is left or that port is connected
 * already (two emulators with one port GUID).  Marks it connected.
 */
int fab_sw_attach(struct fab_switch *sw, uint64_t guid, uint64_t node_guid);
/* The connection of @port closed: link down, queues emptied. */
void fab_sw_detach(struct fab_switch *sw, unsigned int port);
/*
 * The physical link of @port came up (HELLO, PORT_UP: PortState INIT,
 * and LINK_UP queued to the port) or went down (PORT_DOWN).
 */
void fab_sw_link(struct fab_switch *sw, unsigned int port, bool up);

/* One packet (IBTA bytes LRH..ICRC) that arrived on external @port. */
void fab_sw_input(struct fab_switch *sw, unsigned int port,
		  const uint8_t *pkt, size_t len);
/*
 * The same for a packet without its ICRC (@flags ORCA_PKT_NO_ICRC, from
 * a ring): it goes on so to a port's ring, and gets its ICRC computed
 * where it leaves otherwise (a socket, another switch, another fabric).
 */
void fab_sw_input_flags(struct fab_switch *sw, unsigned int port,
			const uint8_t *pkt, size_t len, unsigned int flags);

/*
 * Port 0's traps (orca_trap.c) that are due by @now_ms (monotonic) into
 * the egress queues: the loop calls it after each round of input and at
 * least once a second.
 */
void fab_sw_tick(struct fab_switch *sw, uint64_t now_ms);

/*
 * Would the packet @pkt arriving on @port wait for room at its egress?
 * Only a unicast data packet to a port whose data queue is full, and
 * whose ring (if any) too, does: the caller leaves it where it is (the
 * ingress ring, the inter-switch queue) as an IB link without credits.
 * VL15 is not flow-controlled; multicast and what will be dropped
 * anyway never wait.
 */
bool fab_sw_blocked(const struct fab_switch *sw, unsigned int port,
		    const uint8_t *pkt, size_t len);

/*
 * The LFT's external port for unicast @dlid arriving on @in, without
 * counting anything; -1 if the switch would not forward it to one.
 */
int fab_sw_route(const struct fab_switch *sw, unsigned int in, uint16_t dlid);
/* Would data from @in go out of @out: both cabled and ACTIVE? */
bool fab_sw_passes_data(const struct fab_switch *sw, unsigned int in,
			unsigned int out);
/*
 * The P_Keys (15 bits) data from @in to @out passes both ports'
 * partition enforcement with, into @keys (ORCA_MAD_PKEYS at most): how
 * many, or ORCA_FAB_DIRECT_KEYS_ALL if neither port enforces.
 */
unsigned int fab_sw_passing_keys(const struct fab_switch *sw, unsigned int in,
				 unsigned int out, uint16_t *keys);
/*
 * @pkts unicast packets of @bytes that went from @in to @out around the
 * switch (a direct link): its PMA counters as if it forwarded them.
 */
void fab_sw_count_passed(struct fab_switch *sw, unsigned int in,
			 unsigned int out, uint64_t pkts, uint64_t bytes);

/* Does @port have messages queued to it? */
bool fab_sw_pending(const struct fab_switch *sw, unsigned int port);
/*
 * The next message (struct orca_fab_hdr and what follows) queued to
 * @port into @msg (ORCA_FAB_MSG_MAX bytes), VL15 first; its length, or
 * 0 if none.
 */
size_t fab_sw_pop(struct fab_switch *sw, unsigned int port, uint8_t *msg);
/* The same in place: the next message and its length, 0 if none. */
size_t fab_sw_peek(const struct fab_switch *sw, unsigned int port,
		   const uint8_t **msg);
void fab_sw_drop_head(struct fab_switch *sw, unsigned int port);
/* Send what the socket @fd takes now, VL15 first; <0: socket error. */
int fab_sw_flush(struct fab_switch *sw, unsigned int port, int fd);

const char *fab_sw_state_name(uint8_t state);
const char *fab_sw_drop_name(enum fab_sw_drop d);

/* fabric_switch.c, for fabric_dr.c */
bool fab_sw_emit(struct fab_switch *sw, unsigned int port,
		 const uint8_t *pkt, size_t len, bool vl15);
/* Port 0's SMA/PMA: true with the GetResp in @out. */
bool fab_sw_port0(struct fab_switch *sw, unsigned int in_port,
		  const struct orca_pkt *p, uint8_t *out);
/* Port 0's reply to @req carrying @mad, to @dlid, into sw->buf; its length. */
size_t fab_sw_reply(struct fab_switch *sw, const struct orca_pkt *req,
		    const uint8_t *mad, uint16_t dlid);
/* fabric_dr.c: a DR SMP (VL15, QP0, class 0x81) from @port, decoded */
void fab_sw_dr(struct fab_switch *sw, unsigned int port,
	       struct orca_pkt *p);

#endif /* ORCA_FABRIC_SWITCH_H */
