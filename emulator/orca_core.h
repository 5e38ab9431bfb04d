/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca device model, layer 1: the core.  What every part of the device
 * stands on: its registers, DMA into guest memory (orca_core.c), the
 * event queue and the fatal state (orca_eq.c), port 1's attributes and
 * state (orca_port.c), the packet pool (orca_pktpool.c), and the port's
 * transmit operations, which the link installs from above.
 *
 * The layers, bottom to top (emulator/README): platform, core,
 * resources, transport, link, engine, commands, entry.  A file includes
 * and calls only its own layer and those below; what must go up is a
 * callback registered from above.  make check-layers enforces it.
 */
#ifndef ORCA_CORE_H
#define ORCA_CORE_H

#include <endian.h>
#include <stddef.h>
#include <string.h>

#include "orca_clock.h"
#include "orca_log.h"
#include "orca_names.h"
#include "orca_pkt.h"
#include "orca_result.h"
#include "orca_types.h"

/* The guest writes BAR2 concurrently: single-copy atomic accesses only. */
#define REG_RD32(dev, f) \
	le32toh(__atomic_load_n(&(dev)->regs->f, __ATOMIC_ACQUIRE))
#define REG_RD64(dev, f) \
	le64toh(__atomic_load_n(&(dev)->regs->f, __ATOMIC_ACQUIRE))
#define REG_WR32(dev, f, v) \
	__atomic_store_n(&(dev)->regs->f, htole32(v), __ATOMIC_RELEASE)
#define REG_WR64(dev, f, v) \
	__atomic_store_n(&(dev)->regs->f, htole64(v), __ATOMIC_RELEASE)

/* A capability as reported: the configuration unless a test overrides it. */
#define LIE(dev, f)	((dev)->lie.f ? (dev)->lie.f : (dev)->cfg.f)

/* every QP the device has; @qp may not be destroyed */
#define for_each_live_qp(dev, qp) \
	for ((qp) = (dev)->live_qps.head; (qp); (qp) = (qp)->live.next)

/*
 * The device's QP lists (live, unringed, run), each linked through its
 * own struct orca_qp_link member: @member names it.
 */
#define qp_list_add_tail(list, qp, member) \
	qp_list_add_tail_at(list, qp, offsetof(struct orca_qp, member))
#define qp_list_del(list, qp, member) \
	qp_list_del_at(list, qp, offsetof(struct orca_qp, member))

static inline struct orca_qp_link *qp_link_at(struct orca_qp *qp, size_t off)
{
	return (struct orca_qp_link *)((char *)qp + off);
}

static inline void qp_list_add_tail_at(struct orca_qp_list *l,
				       struct orca_qp *qp, size_t off)
{
	struct orca_qp_link *k = qp_link_at(qp, off);

	k->next = NULL;
	k->prev = l->tail;
	if (l->tail)
		qp_link_at(l->tail, off)->next = qp;
	else
		l->head = qp;
	l->tail = qp;
	l->n++;
}

static inline void qp_list_del_at(struct orca_qp_list *l, struct orca_qp *qp,
				  size_t off)
{
	struct orca_qp_link *k = qp_link_at(qp, off);

	if (k->prev)
		qp_link_at(k->prev, off)->next = k->next;
	else
		l->head = k->next;
	if (k->next)
		qp_link_at(k->next, off)->prev = k->prev;
	else
		l->tail = k->prev;
	k->prev = k->next = NULL;
	l->n--;
}

/* orca_core.c: DMA, MSI-X, the QP mirror */
bool dma_ok(const struct orca_dev *dev, uint64_t addr, uint64_t len);
void *dma_ptr(struct orca_dev *dev, uint64_t addr, size_t len);
int dma_read(struct orca_dev *dev, uint64_t addr, void *buf, size_t len);
int dma_write(struct orca_dev *dev, uint64_t addr, const void *buf,
	      size_t len);
bool ring_ok(const struct orca_dev *dev, uint64_t base,
	     unsigned int log_depth);
void flush_irq(struct orca_dev *dev);
uint32_t mirror_write(struct orca_dev *dev, uint32_t qpn,
		      const struct orca_qp_ctx *ctx);
struct orca_qp *qp_get(struct orca_dev *dev, uint32_t qpn);

/* orca_eq.c: the event queue, async events, the fatal state */
int eq_post(struct orca_dev *dev, const struct orca_eqe *eqe);
int eq_post_event(struct orca_dev *dev, const struct orca_eqe *eqe);
void go_fatal(struct orca_dev *dev, uint32_t syndrome, const char *why);
void post_async(struct orca_dev *dev, const struct orca_eqe *eqe);
bool post_async_kept(struct orca_dev *dev, const struct orca_eqe *eqe,
		     bool *pending);
void post_qp_event(struct orca_dev *dev, uint32_t qpn, uint8_t event,
		   uint8_t state, uint32_t seq);

/* orca_port.c: port 1 */
uint32_t port_cap_flags(const struct orca_dev *dev);
void port_attr_fill(struct orca_dev *dev, struct orca_port_attr *o);
void port_mirror_write(struct orca_dev *dev);
/* Port 1 to @state: mirror, then PORT_EVENT; nothing if no change. */
void port_set_state(struct orca_dev *dev, uint8_t state);
void port_mgmt_event(struct orca_dev *dev, uint16_t changes);
void port_count_violation(struct orca_dev *dev, bool pkey,
			  const struct orca_pkt *p);

/* orca_pktpool.c */
struct orca_pkt *pkt_alloc(struct orca_dev *dev);
void pkt_free(struct orca_dev *dev, struct orca_pkt *p);
void pkt_cache_free(struct orca_dev *dev);

/*
 * How the transport sends: through the port's operations, which the link
 * (orca_wire.c) provides and orca_dev_init() installs, so that the
 * transport below the link never calls up into it.
 */
struct orca_link_ops {
	/* Hand a packet to the port: routed, queued on the link, or dropped. */
	void (*xmit)(struct orca_dev *dev, struct orca_pkt *p);
	/*
	 * May the engine send a packet it can hold back (a request, a READ
	 * response, an atomic ACK)?  False while the fabric's egress queue
	 * is full: the caller stops, consuming nothing, until it drains.
	 */
	bool (*room)(struct orca_dev *dev);
	/*
	 * How many request packets one RC QP may have unacknowledged toward
	 * @dlid: what the way there holds without losing any.
	 */
	unsigned int (*window)(struct orca_dev *dev, uint16_t dlid);
};

static inline void port_xmit(struct orca_dev *dev, struct orca_pkt *p)
{
	dev->link->xmit(dev, p);
}

static inline bool port_room(struct orca_dev *dev)
{
	return dev->link->room(dev);
}

static inline unsigned int port_window(struct orca_dev *dev, uint16_t dlid)
{
	return dev->link->window(dev, dlid);
}

#endif /* ORCA_CORE_H */
