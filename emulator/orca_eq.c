// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the asynchronous event queue (EQ 0).  Command
 * completions and async events share it; an async event that finds it
 * full is dropped and counted (eq_overflows), unless it leaves no state
 * the driver could read back, which waits for room instead.  A device
 * whose EQ is unusable goes fatal, and says so on the EQ if it can.
 */
#include <errno.h>

#include "orca_core.h"

/*
 * Write one EQE.  Returns 0, -EAGAIN (EQ full), -ENODEV (no EQ configured
 * or DMA not allowed now) or -EFAULT (EQ unusable: the device is now fatal).
 * The caller decides about MSI-X.
 */
int eq_post(struct orca_dev *dev, const struct orca_eqe *eqe)
{
	uint64_t base = dev->eq_base;
	uint32_t log_depth = dev->eq_log_depth;
	uint32_t ci = REG_RD32(dev, eq_ci);
	uint32_t depth, used;

	if (!dev->latched || !dev->ram || !base || !log_depth)
		return -ENODEV;
	if (log_depth > ORCA_EMU_EQ_MAX_LOG_DEPTH || !ring_ok(dev, base,
							     log_depth)) {
		dev->stats.bad_addr++;
		if (!dev->fatal) {
			char why[96];

			snprintf(why, sizeof(why),
				 "EQ base 0x%llx log_depth %u unusable",
				 (unsigned long long)base, log_depth);
			go_fatal(dev, ORCA_FATAL_DMA, why);
		}
		return -EFAULT;
	}
	depth = 1U << log_depth;
	used = dev->eq_pi - ci;
	if (used >= depth) {
		if (used > depth)
			orca_log("EQ: eq_ci %u is ahead of eq_pi %u, treating EQ as full",
				 ci, dev->eq_pi);
		return -EAGAIN;
	}
	if (dma_write(dev, base + (uint64_t)(dev->eq_pi & (depth - 1)) * 64,
		      eqe, sizeof(*eqe)))
		return -EFAULT;	/* cannot happen: ring_ok() above */
	dev->stats.dma_writes++;
	/* entry first, then the producer index (release) */
	dev->eq_pi++;
	REG_WR32(dev, eq_pi, dev->eq_pi);
	return 0;
}

/* eq_post() an event, and when it is in: count it and ask for the MSI-X. */
int eq_post_event(struct orca_dev *dev, const struct orca_eqe *eqe)
{
	int ret = eq_post(dev, eqe);

	if (!ret) {
		dev->stats.events++;
		dev->irq_pending |= dev->irq_enabled;
	}
	return ret;
}

/* Async events: only while armed; dropped and counted when the EQ is full. */
void post_async(struct orca_dev *dev, const struct orca_eqe *eqe)
{
	int ret;

	if (!dev->armed || dev->fatal)
		return;
	ret = eq_post_event(dev, eqe);
	if (ret == -EAGAIN || ret == -ENODEV) {
		dev->eq_overflows++;
		dev->stats.events_lost++;
		REG_WR32(dev, eq_overflows, dev->eq_overflows);
		orca_log("EQ full: async event type %u dropped (eq_overflows %u)",
			 eqe->type, dev->eq_overflows);
	}
}

/*
 * An event that leaves no state the driver could read back (CQ_ERROR,
 * SRQ_LIMIT: a QP's state is in its mirror, these are not anywhere) is
 * never dropped: when the EQ is full it waits, *@pending set on its
 * object, until post_deferred() finds room.  Returns false if it waits.
 */
bool post_async_kept(struct orca_dev *dev, const struct orca_eqe *eqe,
		     bool *pending)
{
	if (!dev->armed || dev->fatal)
		return true;
	if (eq_post_event(dev, eqe)) {
		if (!*pending) {
			dev->n_deferred++;
			dev->stats.events_deferred++;
			orca_log("EQ full: async event type %u kept until there is room",
				 eqe->type);
		}
		*pending = true;
		return false;
	}
	*pending = false;
	return true;
}

void post_qp_event(struct orca_dev *dev, uint32_t qpn, uint8_t event,
		   uint8_t state, uint32_t seq)
{
	struct orca_eqe eqe;

	memset(&eqe, 0, sizeof(eqe));
	eqe.type = ORCA_EQE_QP_EVENT;
	eqe.qp.qpn = htole32(qpn);
	eqe.qp.event = event;
	eqe.qp.state = state;
	eqe.qp.mirror_seq = htole32(seq);
	post_async(dev, &eqe);
}

void go_fatal(struct orca_dev *dev, uint32_t syndrome, const char *why)
{
	struct orca_eqe eqe;

	if (dev->fatal)
		return;
	dev->fatal = true;
	REG_WR32(dev, fatal_syndrome, syndrome);
	REG_WR32(dev, health, ORCA_HEALTH_FATAL);
	orca_log("FATAL: device stopped (syndrome %u): %s", syndrome, why);
	if (!dev->armed)
		return;
	memset(&eqe, 0, sizeof(eqe));
	eqe.type = ORCA_EQE_DEVICE_FATAL;
	eqe.fatal.syndrome = htole32(syndrome);
	eq_post_event(dev, &eqe);
}
