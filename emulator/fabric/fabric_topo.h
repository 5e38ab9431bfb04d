/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca-fabric --sm none: the switches of one fabric process and the
 * cables between them.  Each switch is a fab_switch (fabric_switch.h),
 * with its own port 0 SMA that the subnet manager reaches by directed
 * route or by LID; an inter-switch link (ISL) joins an external port of
 * one to an external port of another, and what one switch queues to its
 * ISL port is what the other takes in on its end (fab_topo_carry()).
 * Emulators are cabled to the other external ports (fab_topo_attach()).
 *
 * A topology file, one statement per line, '#' to the end of a line:
 *
 *   switch NAME PORTS [GUID]      a switch with external ports 1..PORTS
 *                                 (at most ORCA_MAD_MAX_PORTS); GUID by
 *                                 default FAB_SW_DEFAULT_GUID + its index
 *   link NAME:PORT NAME:PORT      a cable between two switch ports
 *   ca PORT-GUID NAME:PORT        the CA port with that GUID goes into
 *                                 that switch port (else the first free
 *                                 port of the first switch that has one)
 *   remote NAME:PORT listen|connect A.B.C.D:PORT
 *                                 a cable to a switch of another
 *                                 orca-fabric, over TCP (fabric_remote.h)
 *
 * No sockets here: fabric.c moves the emulators' messages in and out.
 */
#ifndef ORCA_FABRIC_TOPO_H
#define ORCA_FABRIC_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric_remote.h"
#include "fabric_switch.h"

#define FAB_TOPO_MAX_SW		128
#define FAB_TOPO_NAME		24
#define FAB_TOPO_MAX_PINS	2048
#define FAB_TOPO_LINE		256
#define FAB_TOPO_MAX_REMOTE	16
/* fab_topo_end.sw of a port with no cable to a switch */
#define FAB_TOPO_NONE		(-1)
/* fab_topo_end.sw of a port cabled to another fabric: port is remote[] */
#define FAB_TOPO_REMOTE		(-2)

/*
 * One end of an inter-switch link: a switch of this fabric, FAB_TOPO_NONE
 * (no cable to a switch) or FAB_TOPO_REMOTE (to a switch of another
 * fabric, remote[port]).
 */
struct fab_topo_end {
	int sw;
	unsigned int port;
};

struct fab_topo_pin {
	uint64_t guid;
	unsigned int sw, port;
};

struct fab_topo {
	unsigned int n_sw;
	struct fab_switch *sw[FAB_TOPO_MAX_SW];
	char name[FAB_TOPO_MAX_SW][FAB_TOPO_NAME];
	struct fab_topo_end peer[FAB_TOPO_MAX_SW][ORCA_MAD_MAX_PORTS + 1];
	struct fab_topo_pin pin[FAB_TOPO_MAX_PINS];
	unsigned int n_pins, n_links;
	struct fab_remote remote[FAB_TOPO_MAX_REMOTE];
	unsigned int n_remote;
	int remote_pfd[FAB_TOPO_MAX_REMOTE];	/* in the last pollfds, -1 */
	/*
	 * the faults of what a local ISL end sends (link-faults), made on
	 * first use; the ends that have them, for the sweep of due messages
	 */
	struct fab_fault *isl_fault[FAB_TOPO_MAX_SW][ORCA_MAD_MAX_PORTS + 1];
	struct fab_topo_end faulty[FAB_TOPO_MAX_SW * ORCA_MAD_MAX_PORTS];
	unsigned int n_faulty;
	uint64_t isl_pkts;		/* carried from switch to switch */
	uint64_t isl_retrains;		/* an end retrained its peer */
};

/* Today's fabric: one switch "sw0" of @nports ports and node GUID @guid. */
int fab_topo_one(struct fab_topo *t, unsigned int nports, uint64_t guid,
		 char *err, size_t len);
/*
 * The topology in @text (the file format above) into @t, which holds
 * nothing (new, or fab_topo_free()d); 0, or -1 with @err and @t empty.
 */
int fab_topo_parse(struct fab_topo *t, const char *text, char *err,
		   size_t len);
/* The same from the file @path. */
int fab_topo_load(struct fab_topo *t, const char *path, char *err,
		  size_t len);
void fab_topo_free(struct fab_topo *t);

/* The index of the switch named @name, or -1. */
int fab_topo_find(const struct fab_topo *t, const char *name);

/*
 * A CA port with port GUID @guid is cabled in: its pinned switch port,
 * else the port it had, else the first free one; the port (and the
 * switch in @swi), or -1 if there is none or that port is taken.  The
 * caller brings the link up (fab_sw_link()).
 */
int fab_topo_attach(struct fab_topo *t, uint64_t guid, uint64_t node_guid,
		    unsigned int *swi);

/*
 * Move what the switches queued to their ISL ports into the switches at
 * the other ends, at most @budget messages; the number moved.  A link
 * that came up (again) on one end, because the SM set that port DOWN and
 * it retrained, retrains the other end too, as the peer of a real cable
 * sees its link go down and come back.
 */
unsigned int fab_topo_carry(struct fab_topo *t, unsigned int budget);
/*
 * Pull the cable of the inter-switch link at "NAME:PORT" @end (@up
 * false: both ends DOWN, PortStateChange raised at both switches, what
 * the link held lost) or put it back (both ends up in INIT); 0, or -1
 * with @err (no such switch or port, not an ISL).
 */
int fab_topo_link(struct fab_topo *t, const char *end, bool up, char *err,
		  size_t len);
/*
 * The faults of what the end "NAME:PORT" @end of an inter-switch link
 * sends, to a switch of this fabric or of another (fabric_fault.h); 0,
 * or -1 with @err (no such switch or port, not an ISL, out of range).
 */
int fab_topo_link_faults(struct fab_topo *t, const char *end,
			 uint32_t loss_ppm, uint32_t delay_us, char *err,
			 size_t len);
/* Is anything queued on an ISL port? */
bool fab_topo_busy(const struct fab_topo *t);
/* Does a delayed link hold messages? */
bool fab_topo_holding(const struct fab_topo *t);
/* The remote links' descriptors to poll now into @pfd; how many. */
int fab_topo_pollfds(struct fab_topo *t, struct pollfd *pfd);
/*
 * What poll() said of them (@pfd as fab_topo_pollfds() filled it, or
 * NULL: the timers only): connections made and lost, frames in and out.
 */
void fab_topo_io(struct fab_topo *t, const struct pollfd *pfd,
		 uint64_t now_ms);
/* fab_sw_tick() of every switch. */
void fab_topo_tick(struct fab_topo *t, uint64_t now_ms);

#endif /* ORCA_FABRIC_TOPO_H */
