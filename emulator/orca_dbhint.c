// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the doorbell hint (orca_hw.h) and polling after a
 * kick.  The device says in host memory when it is awake, so posts skip
 * their kicks; before it waits for the next kick it takes that back and
 * reads every doorbell record once more.  The emulator's poll loop calls
 * orca_dev_idle() before every wait.
 */
#include "orca_engine.h"

#define DB_POLL_START_NS	4000	/* first window after a ping-pong */
#define DB_POLL_MIN_NS		1000	/* below this, no polling */

/* Write the doorbell hint's awake word (orca_hw.h), if it changes. */
void db_hint_set(struct orca_dev *dev, bool awake)
{
	struct orca_db_hint *h;

	if (!dev->db_hint_base || dev->db_awake == awake)
		return;
	/* a dead device never invites posts to skip their kicks */
	if (awake && (dev->fatal || dev->hung))
		return;
	h = dma_ptr(dev, dev->db_hint_base, sizeof(*h));
	if (!h)
		return;	/* cannot happen: INIT checked the range */
	__atomic_store_n(&h->awake, htole32(awake), __ATOMIC_RELAXED);
	dev->db_awake = awake;
	dev->stats.dma_writes++;
}

/*
 * Polling after a kick, adaptive as KVM's halt polling.  In a ping-pong
 * between two local QPs (ib_send_lat, ib_write_lat), the QP that a kick
 * delivered to answers a few microseconds later: if the device is still
 * awake then, the answer needs no kick and the device no wake-up, which
 * on the emulator are a trapped MMIO write and a host scheduler wake-up.
 * Polling cannot help a kicker that waits for its own completion: that
 * kicker is often the vCPU the device preempted, stuck until the device
 * sleeps.  So the window (db_poll_ns, up to cfg db_poll_us) grows only on
 * evidence of a ping-pong, a kick from another QP than the last one soon
 * after the engine stopped, and halves whenever a poll finds nothing; a
 * poll ends at the first post it finds.
 */
void db_poll_kicked(struct orca_dev *dev)
{
	uint64_t max = dev->cfg.db_poll_us * 1000, now;
	uint32_t qpn = dev->db_poster;

	if (!max || !dev->db_awake)
		return;
	now = dp_now_ns();
	if (qpn && dev->db_kick_qpn && qpn != dev->db_kick_qpn &&
	    now - dev->db_stop_ns < max) {
		dev->db_poll_ns = dev->db_poll_ns ? 2 * dev->db_poll_ns :
						    DB_POLL_START_NS;
		if (dev->db_poll_ns > max)
			dev->db_poll_ns = max;
	}
	if (qpn)
		dev->db_kick_qpn = qpn;
	if (dev->db_poll_ns)
		dev->db_poll_until = now + dev->db_poll_ns;
}

/*
 * The device is about to sleep.  With the doorbell hint, posts made while
 * it said "awake" rang no kick, so: awake = 0, a full fence, and every
 * doorbell record read once more (the device's half of the store-fence-
 * load pairing in orca_hw.h).  Returns true if that read found work,
 * which it did; the device then stays awake and the caller does not
 * sleep.
 */
bool orca_dev_idle(struct orca_dev *dev)
{
	/* a hung device does nothing, not even tidy its hint */
	if (!dev->db_awake || dev->hung)
		return false;
	/* held awake (a test's hook): read the records, never sleep */
	if (dev->db_awake_held) {
		if (dp_run(dev))
			flush_irq(dev);
		return true;
	}
	if (dev->db_poll_until) {
		if (dp_now_ns() < dev->db_poll_until) {
			/* the answer: stop, its kicker may want this CPU */
			if (dp_run(dev)) {
				dev->db_poll_until = 0;
				dev->stats.db_poll_catches++;
			}
			flush_irq(dev);
			return true;
		}
		/* nothing came: a shorter window next time */
		dev->db_poll_until = 0;
		dev->db_poll_ns /= 2;
		if (dev->db_poll_ns < DB_POLL_MIN_NS)
			dev->db_poll_ns = 0;
		dev->stats.db_poll_misses++;
	}
	db_hint_set(dev, false);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	dev->stats.db_hint_stops++;
	dev->db_stop_ns = dp_now_ns();
	if (!dp_run(dev))
		return false;
	flush_irq(dev);
	dev->stats.db_hint_catches++;
	db_hint_set(dev, true);
	return true;
}
