/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The fabric between orca emulators: what a port (orca-emu, the
 * device's side in orca_fabric.c) and the switch and subnet manager
 * (orca-fabric, fabric/) say to each other.
 *
 * One UNIX SOCK_SEQPACKET connection per port, one message per packet.
 * Every message starts with struct orca_fab_hdr; the multi-byte fields
 * of the messages are little-endian (both ends are on one host, but the
 * format does not depend on it).  The conversation:
 *
 *   port -> SM    HELLO        node and port GUID, the LMC it wants
 *   SM -> port    LID_ASSIGN   its base LID (the same for the same port
 *                              GUID for the life of the SM) and the SM's
 *                              own LID; the port goes ACTIVE
 *   both ways     PKT          one packet as IBTA bytes (orca_pkt.h),
 *                              routed by the LRH's DLID
 *   port -> SM    PORT_DOWN    the link went down: the SM routes nothing
 *                              to it any more, its LID stays reserved
 *   port -> SM    PORT_UP      the link is back: LID_ASSIGN again
 *
 * Closing the connection is PORT_DOWN and leaving; a HELLO on a new
 * connection gets the same LID back.  Either side drops a message it
 * cannot use and counts it; neither ever blocks on the other.
 *
 * That is orca-fabric --sm builtin (the default).  With --sm none the
 * fabric is only a switch and a real SM (OpenSM in a guest) runs the
 * subnet through management packets (VL15 SMPs to QP0, PMA on QP1); the
 * messages are the same but for LID_ASSIGN:
 *
 *   port -> switch  HELLO      node and port GUID (the LMC is ignored);
 *                              the port GUID gets a switch port 1..N,
 *                              the same one for the life of the switch
 *   switch -> port  LINK_UP    the cable is in switch port N and the
 *                              physical link is up: PhysState LinkUp,
 *                              PortState INIT, no LID yet (the SM sets
 *                              LID and state through the port's SMA)
 *   both ways       PKT        as above; the switch forwards by the LFT
 *                              and MFT the SM wrote, and directed-route
 *                              SMPs by their paths
 *   port -> switch  PORT_DOWN  the link went down (switch port DOWN)
 *   port -> switch  PORT_UP    the link is back: LINK_UP again
 *
 * LINK_UP may also come unasked: the SM set the switch port DOWN, the
 * link trained again and both ends are back in INIT.  A HELLO the
 * switch has no port for closes the connection.
 *
 * Shared-memory link (orca_ring.h), both modes.  A port on the fabric's
 * machine may offer rings with its HELLO: ORCA_FAB_HELLO_SHM, and a
 * memfd (SCM_RIGHTS) holding struct orca_ring_layout and two rings
 * (orca_ring_map_size()).  A fabric that takes them answers SHM_ACK
 * before anything else; from then on every message but KICK, both ways,
 * goes through the rings (port to fabric: ring 0, fabric to port: ring
 * 1), and the socket carries only:
 *
 *   fabric -> port  SHM_ACK    the rings are in use
 *   both ways       KICK       look at the rings: a message came while
 *                              you slept, or room came while you waited
 *
 * A fabric that does not know the flag ignores it and the fd, and never
 * says SHM_ACK: the port goes on with one message per packet.  A ring
 * is lossless: a full one makes its producer wait (the switch holds the
 * ingress ring of the port whose packets cannot go on, as credits do);
 * the socket path drops when its queue is full, and RC recovers.
 *
 * In a ring a PKT may come without its ICRC (ORCA_FAB_F_NO_ICRC): two
 * processes' memory does not corrupt it, and the record's length is
 * checked.  The fabric computes the ICRC where such a packet leaves by
 * a socket, another switch or another machine, and refuses the flag on
 * a socket.
 *
 * Direct links.  Two ports on ring links that both said
 * ORCA_FAB_HELLO_DIRECT need not have the fabric's process between
 * them: once it forwards a packet from one to the other, the fabric
 * makes a memfd with two rings (orca_ring.h, its own layout, sealed) and
 * a SOCK_SEQPACKET socket pair, and gives each port the memfd and one
 * end of the pair with DIRECT_OPEN on its socket:
 *
 *   fabric -> port  DIRECT_OPEN   struct orca_fab_direct: the link's id,
 *                                 the other port's LIDs, the ring this
 *                                 port fills (the other one it reads)
 *   fabric -> port  DIRECT_CLOSE  that id: stop using it, unmap it
 *
 * A port then puts its unicast packets (not VL15) from its own LIDs
 * (as the message names them) for the other port's LIDs into its ring
 * of the pair, and kicks the other port on the pair's socket as it kicks
 * the fabric; a full ring holds it back, as a full egress does.  The fabric's routing decision is what it was: in
 * builtin mode a DLID in the port's LID range, with both ports up; with
 * --sm none the LFT of the one switch both are cabled to, both ways,
 * both switch ports ACTIVE, for the P_Keys their partition enforcement
 * passes (struct orca_fab_direct_keys).  It takes the
 * link back with DIRECT_CLOSE to both when either goes down or leaves,
 * or (--sm none) when a Set through the switch's SMA or a link change
 * may have changed the decision; a port that finds the pair's
 * socket closed drops the link itself.  Packets already in a ring are
 * still delivered; a packet in flight through the fabric when the link
 * opens may arrive after the first ones through it (RC recovers, as
 * from any reordering).  The receiver checks that a packet through the
 * link is a PKT from the other port's LIDs and for its own; the fabric
 * adds the rings' counts of packets (and bytes, ring index "bytes") to
 * the LIDs' counters, or to the switch ports' PMA counters.
 */
#ifndef ORCA_FABRIC_PROTO_H
#define ORCA_FABRIC_PROTO_H

#include <stdint.h>

#include "orca_pkt.h"

#define ORCA_FAB_VERSION	2
#define ORCA_FAB_SM_LID		1	/* the SM's own LID */
#define ORCA_FAB_FIRST_LID	2	/* ports get LIDs from here */
#define ORCA_FAB_MAX_LID	0xbfff	/* last unicast LID */
/*
 * Messages the switch holds for a port that does not read at once; one
 * more finds the queue full and is dropped.  The ports size their send
 * window from it (ORCA_MAX_UNACKED_PSNS, orca_xport.h).
 */
#define ORCA_FAB_PORT_QUEUE	128
/* Direct links a port has at once, at most. */
#define ORCA_FAB_DIRECT_PER_PORT	8

enum orca_fab_type {
	ORCA_FAB_HELLO		= 1,
	ORCA_FAB_LID_ASSIGN	= 2,
	ORCA_FAB_PKT		= 3,
	ORCA_FAB_PORT_DOWN	= 4,
	ORCA_FAB_PORT_UP	= 5,
	ORCA_FAB_LINK_UP	= 6,	/* --sm none, switch -> port */
	ORCA_FAB_SHM_ACK	= 7,	/* fabric -> port: rings in use */
	ORCA_FAB_KICK		= 8,	/* look at the rings */
	ORCA_FAB_DIRECT_OPEN	= 9,	/* fabric -> port: a direct link */
	ORCA_FAB_DIRECT_CLOSE	= 10,	/* fabric -> port: it is gone */
};

/* struct orca_fab_hdr flags */
#define ORCA_FAB_F_NO_ICRC	(1U << 0)	/* PKT in a ring: ICRC not computed */

struct orca_fab_hdr {
	uint8_t type;			/* ORCA_FAB_* */
	uint8_t version;		/* ORCA_FAB_VERSION */
	uint8_t flags;			/* ORCA_FAB_F_* */
	uint8_t reserved[5];		/* zero; keeps a packet 8-aligned */
};

/* struct orca_fab_hello flags */
#define ORCA_FAB_HELLO_SHM	(1U << 0)	/* rings offered: memfd attached */
#define ORCA_FAB_HELLO_DIRECT	(1U << 1)	/* takes direct links */

struct orca_fab_hello {
	struct orca_fab_hdr h;
	uint64_t node_guid;
	uint64_t port_guid;		/* the SM's key for the LID */
	uint8_t lmc;			/* LIDs lid .. lid + 2^lmc - 1 */
	uint8_t flags;			/* ORCA_FAB_HELLO_* */
	uint8_t reserved[6];
};

/*
 * LID_ASSIGN: the port's LIDs and SM, and the M_Key the SM protects it
 * with (0: none), which the port's SMA then requires as IBA 14.2.4 says
 * for M_KeyProtectBits @mkey_protect.
 */
struct orca_fab_lid {
	struct orca_fab_hdr h;
	uint16_t lid;
	uint16_t sm_lid;
	uint8_t lmc;
	uint8_t mkey_protect;		/* 0..3 */
	uint8_t reserved[2];
	uint64_t mkey;
};

/* LINK_UP: the switch port the emulator's cable is in, 1..N. */
struct orca_fab_link {
	struct orca_fab_hdr h;
	uint8_t port;
	uint8_t reserved[7];
};

/*
 * DIRECT_OPEN, with two descriptors (SCM_RIGHTS): the memfd of the
 * link's rings (orca_ring_map_size(nslots) bytes) and the port's end of
 * the socket pair; struct orca_fab_direct_keys follows.  DIRECT_CLOSE:
 * struct orca_fab_direct alone, only @id counts.
 */
struct orca_fab_direct {
	struct orca_fab_hdr h;
	uint32_t id;
	uint32_t nslots;		/* per ring */
	uint16_t peer_lid;		/* the other port: peer_lid .. + 2^lmc - 1 */
	uint8_t peer_lmc;
	uint8_t ring;			/* 0 or 1: the one this port fills */
	uint16_t own_lid;		/* this port's SLIDs the peer takes */
	uint8_t own_lmc;
	uint8_t reserved;
};

/*
 * DIRECT_OPEN goes on with the P_Keys that may cross the link (a switch
 * port that enforces partitions checks the key's 15 bits, IBA 10.9.4):
 * this port sends through the link only packets whose key is among its
 * n_tx (the others through the switch, which drops and traps them), and
 * takes from it only those among its n_rx.  ORCA_FAB_DIRECT_KEYS_ALL:
 * any key.  key[] holds the n_tx, then the n_rx, 15 bits each.
 */
#define ORCA_FAB_DIRECT_MAX_KEYS	64
#define ORCA_FAB_DIRECT_KEYS_ALL	0xff
struct orca_fab_direct_keys {
	uint8_t n_tx, n_rx;
	uint8_t reserved[6];
	uint16_t key[2 * ORCA_FAB_DIRECT_MAX_KEYS];
};

/* A PKT message: the header, then ORCA_PKT_WIRE_MAX bytes at most. */
#define ORCA_FAB_MSG_MAX \
	(sizeof(struct orca_fab_hdr) + ORCA_PKT_WIRE_MAX)

#endif /* ORCA_FABRIC_PROTO_H */
