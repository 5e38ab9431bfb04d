// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: which QPs the engine looks at.
 *
 * A kick names no queue.  Reading every doorbell record on every kick
 * and every stop costs the device in proportion to the QPs that exist,
 * and a QP's post then waits behind all of them.  So the engine visits a
 * run list: the QPs with work in flight, and those something has named
 * since: a kick ring entry (orca_hw_io.h, one ring per user context), a
 * packet for it, a timer, a MODIFY_QP.  A QP created without
 * ORCA_QP_CREATE_KICK_RING (a kernel QP, an older provider's) is on the
 * unringed list, which every round of the engine puts on the run list,
 * as every kick once read every record.  A ring that overflowed puts its
 * own QPs on it (CREATE_QP names the ring), and no other.  Once a second
 * every QP is looked at, whatever the rings say: a ring its user
 * corrupted only delays that user's posts.
 */
#include "orca_res.h"

void qp_sched(struct orca_dev *dev, struct orca_qp *qp)
{
	if (qp->on_run)
		return;
	qp->on_run = true;
	qp_list_add_tail(&dev->run_qps, qp, run);
}

void qp_unsched(struct orca_dev *dev, struct orca_qp *qp)
{
	if (!qp->on_run)
		return;
	qp_list_del(&dev->run_qps, qp, run);
	qp->on_run = false;
}

/* The first QP of the run list, off it; NULL if it is empty. */
struct orca_qp *qp_sched_pop(struct orca_dev *dev)
{
	struct orca_qp *qp = dev->run_qps.head;

	if (qp)
		qp_unsched(dev, qp);
	return qp;
}

/* Every QP with queues: once a second. */
void qp_sched_all(struct orca_dev *dev)
{
	struct orca_qp *qp;

	for_each_live_qp(dev, qp)
		if (qp->ring.n)
			qp_sched(dev, qp);
}

/* ---- kick rings ---- */

static struct orca_kick_ring *kick_ring_map(struct orca_dev *dev,
					    uint64_t addr)
{
	return dma_ptr(dev, addr, sizeof(struct orca_kick_ring));
}

/*
 * CREATE_KICK_RING's work: a free slot for the page at @addr.  Returns
 * the ring's number (1-based) or 0 if every slot is taken.
 */
uint32_t kick_ring_add(struct orca_dev *dev, uint64_t addr)
{
	uint32_t i;

	if (dev->n_kicks >= ORCA_MAX_KICK_RINGS)
		return 0;
	for (i = 0; i < ORCA_MAX_KICK_RINGS && dev->kicks[i].addr; i++)
		;
	if (i == ORCA_MAX_KICK_RINGS)
		return 0;
	/* the page is zeroed: nothing reserved, nothing taken */
	dev->kicks[i] = (struct orca_kick){ .addr = addr, .cons = 0 };
	dev->kicks_used[dev->n_kicks++] = i;
	return i + 1;
}

bool kick_ring_live(const struct orca_dev *dev, uint32_t ring)
{
	return ring && ring <= ORCA_MAX_KICK_RINGS && dev->kicks[ring - 1].addr;
}

/* DESTROY_KICK_RING's work; false if @ring names no ring. */
bool kick_ring_del(struct orca_dev *dev, uint32_t ring)
{
	uint32_t i;

	if (!kick_ring_live(dev, ring))
		return false;
	dev->kicks[ring - 1].addr = 0;
	for (i = 0; i < dev->n_kicks; i++) {
		if (dev->kicks_used[i] == ring - 1) {
			dev->kicks_used[i] = dev->kicks_used[--dev->n_kicks];
			break;
		}
	}
	return true;
}

void kick_ring_del_all(struct orca_dev *dev)
{
	if (dev->kicks)
		memset(dev->kicks, 0,
		       ORCA_MAX_KICK_RINGS * sizeof(*dev->kicks));
	dev->n_kicks = 0;
}

/*
 * Take what one ring announces (orca_hw_io.h): the QPs its entries name go
 * on the run list; if it had overflowed, every QP of its own.
 */
static void kick_ring_take(struct orca_dev *dev, struct orca_kick *k)
{
	struct orca_kick_ring *r = kick_ring_map(dev, k->addr);
	uint32_t n, cons = k->cons;
	struct orca_qp *qp;

	if (!r)
		return;		/* cannot happen: CREATE checked the range */
	if (__atomic_load_n(&r->overflow, __ATOMIC_ACQUIRE)) {
		/*
		 * Whoever reserved an entry before our read of prod had
		 * stored its doorbell record before: reading every record
		 * after it finds their posts.
		 */
		__atomic_store_n(&r->overflow, 0, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		cons = le32toh(__atomic_load_n(&r->prod, __ATOMIC_ACQUIRE));
		/* its own QPs: a context that breaks its ring costs no other */
		for (qp = k->qps.head; qp; qp = qp->unringed.next)
			if (qp->ring.n)
				qp_sched(dev, qp);
		dev->stats.kick_overflows++;
	}
	/* at most one lap: a ring cannot keep the engine here */
	for (n = 0; n < ORCA_KICK_RING_ENTRIES; n++, cons++) {
		struct orca_kick_entry *e = &r->e[cons % ORCA_KICK_RING_ENTRIES];

		/* reserved but not written yet: its poster will kick */
		if (le32toh(__atomic_load_n(&e->seq, __ATOMIC_ACQUIRE)) !=
		    cons + 1)
			break;
		qp = qp_get(dev, le32toh(__atomic_load_n(&e->qpn,
							  __ATOMIC_RELAXED)));
		/* another's QPN only makes us read that QP's record */
		if (qp && qp->ring.n)
			qp_sched(dev, qp);
	}
	dev->stats.kick_entries += n;
	if (cons != k->cons) {
		k->cons = cons;
		__atomic_store_n(&r->cons, htole32(cons), __ATOMIC_RELEASE);
	}
}

/*
 * The start of an engine round: the QPs the rings name, and every
 * unringed QP, go on the run list.
 */
void qp_sched_kicked(struct orca_dev *dev)
{
	struct orca_qp *qp;
	uint32_t i;

	for (i = 0; i < dev->n_kicks; i++)
		kick_ring_take(dev, &dev->kicks[dev->kicks_used[i]]);
	for (qp = dev->unringed_qps.head; qp; qp = qp->unringed.next)
		if (qp->ring.n)
			qp_sched(dev, qp);
}
