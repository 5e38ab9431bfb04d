/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca device model, layer 4: the link.  The port's cable to orca-fabric
 * (orca_fabric.c) and, above it, the port's link (orca_wire.c: routing,
 * link faults, loopback, the receive path into the transport).  The
 * transport sends through wire_link_ops, which orca_dev_init() installs
 * as the port's operations; the cable delivers what arrives through the
 * callback its caller passes.
 */
#ifndef ORCA_LINK_H
#define ORCA_LINK_H

#include <poll.h>

#include "orca_fabric_proto.h"
#include "orca_mad.h"
#include "orca_xport.h"

/* orca_fabric.c: the port's cable to orca-fabric (cfg fabric) */
int fabric_init(struct orca_dev *dev);
void fabric_destroy(struct orca_dev *dev);
/* No fabric, or the SM has given a LID and the port is not down. */
bool fabric_link_up(const struct orca_dev *dev);
/* Linked to a switch port, which a subnet manager programs (--sm none). */
bool fabric_sm_managed(const struct orca_dev *dev);
/* What port 1's state is after a reset: ACTIVE unless the link is not. */
uint8_t port_link_state(const struct orca_dev *dev);
/* ctl port-up / port-down with a fabric. */
void fabric_admin(struct orca_dev *dev, bool up);
/* Encode and send (or queue) a packet for another port. */
void fabric_xmit(struct orca_dev *dev, const struct orca_pkt *p);
/*
 * Room in the egress queue for @pending packets on their way to it and
 * one more, beyond what is kept for the ACKs that arriving packets call
 * for; true without a fabric connection (what is sent is dropped then).
 */
bool fabric_room(const struct orca_dev *dev, unsigned int pending);
/* The RC send window toward @dlid (orca_core.h, orca_link_ops.window). */
unsigned int fabric_window(struct orca_dev *dev, uint16_t dlid);
/*
 * The poll loop's part (orca_dev_fabric_pollfd(), orca_dev_fabric_io()):
 * fabric_pollfd() fills up to @max of @pfd (ORCA_FAB_POLLFDS at most:
 * the connection, then its direct links) and returns how many;
 * fabric_io() gets them back with their revents (0 after a timeout),
 * sends what waited, hands every packet that arrived to @deliver, and
 * returns true when the engine has work from it.  With the rings it
 * must be called on every pass.
 */
#define ORCA_FAB_POLLFDS	9	/* 1 + ORCA_FAB_DIRECT_MAX */
int fabric_pollfd(struct orca_dev *dev, struct pollfd *pfd,
		  unsigned int max);
/*
 * The loop is about to sleep: false if the shared-memory link has work
 * now (do not sleep); true once the fabric knows to kick the socket.
 */
bool fabric_may_sleep(struct orca_dev *dev);
bool fabric_io(struct orca_dev *dev, const struct pollfd *pfd,
	       unsigned int npfd,
	       void (*deliver)(struct orca_dev *dev, struct orca_pkt *p));
/* " fabric_...=..." counters, nothing without a fabric; the length. */
int fabric_format_stats(const struct orca_dev *dev, char *buf, size_t len);

/* orca_fw_mad.c: the firmware's management agents on port 1 */
int mad_node_reset(struct orca_dev *dev);
void mad_node_free(struct orca_dev *dev);
/*
 * A MAD of the host's (MAD_IFC on @port): the agents' result, the reply
 * in @out.  @ignore_mkey is the driver's IGNORE_MKEY; the host policy
 * (cfg port_pin) decides what of it holds.
 */
enum orca_mad_result fw_mad_host(struct orca_dev *dev, uint8_t port,
				 const uint8_t *mad, bool ignore_mkey,
				 uint16_t slid, uint8_t *out);
/*
 * A packet for QP0 off the link, for a pinned port: true if it was the
 * firmware's (an SMP request answered or dropped, or what is for an SM
 * when the host may not be one), false if QP0 takes it.
 */
bool fw_mad_wire(struct orca_dev *dev, const struct orca_pkt *p);
/*
 * The SMA's traps that are due (orca_trap.c), onto the wire to the SM:
 * on each heartbeat.  Only a port an SM manages through the switch has
 * one to tell.
 */
void fw_mad_traps(struct orca_dev *dev);
int fw_mad_format_stats(const struct orca_dev *dev, char *buf, size_t len);

/* orca_wire.c: the port's link */
extern const struct orca_link_ops wire_link_ops;
/* Deliver queued packets; returns how many. */
unsigned int wire_drain(struct orca_dev *dev);
/* Drop what is in flight (reset, destroy of everything). */
void wire_flush(struct orca_dev *dev);
/* When the link next releases a held packet (dp_now_ns() time); 0: none. */
uint64_t wire_next_deadline(const struct orca_dev *dev);
/* Link faults from now on (ctl link-faults); false if out of range. */
bool wire_set_faults(struct orca_dev *dev, uint32_t drop_ppm,
		     uint32_t dup_ppm, uint32_t reorder_ppm, uint32_t delay_us);
/* A packet that came from the fabric: to this port's receive path. */
void wire_rx(struct orca_dev *dev, struct orca_pkt *p);

#endif /* ORCA_LINK_H */
