// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the port's shared-memory link to orca-fabric
 * (orca_ring.h; orca_fabric_proto.h, "Shared-memory link").
 *
 * The port makes the rings and offers them with HELLO; once the fabric
 * says SHM_ACK (orca_fabric.c), everything but KICK goes through them.
 * The queues stay in front of ring 0 for what does not fit: a full ring
 * makes the port wait for a kick, it is never a loss.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "orca_fabric.h"

/*
 * No clock read per packet while there is no polling window; real time,
 * the window is about the host's scheduler.
 */
void fab_ring_traffic(struct orca_dev *dev)
{
	if (dev->cfg.fabric_poll_us)
		dev->fab->ring_active_ns = orca_mono_ns();
}

void fab_ring_unmap(struct orca_fab *fab)
{
	if (fab->shm)
		munmap(fab->shm, fab->shm_size);
	fab->shm = NULL;
	fab->shm_on = false;
	fab->rx_sleeping = false;
}

int fab_ring_create(struct orca_dev *dev)
{
	struct orca_fab *fab = dev->fab;
	unsigned int n = dev->cfg.fabric_ring_slots;
	size_t size;
	void *mem;
	int fd;

	if (!n)
		return -1;
	/* a power of two, as the ring's index arithmetic wants */
	while (n & (n - 1))
		n &= n - 1;
	if (n < ORCA_RING_MIN_SLOTS)
		n = ORCA_RING_MIN_SLOTS;
	fd = orca_ring_memfd("orca-fabric-link", n, &mem, &size);
	if (fd < 0)
		goto fail;
	if (orca_ring_open(&fab->tx, mem, size, n, 0, false) ||
	    orca_ring_open(&fab->rx, mem, size, n, 1, false)) {
		munmap(mem, size);
		errno = EINVAL;
		goto fail;
	}
	fab->shm = mem;
	fab->shm_size = size;
	return fd;
fail:
	if (fab_log_first(fab->failures))
		orca_log("fabric: no shared-memory link (%s): one message per packet",
			 strerror(errno));
	if (fd >= 0)
		close(fd);
	return -1;
}

static void kick_fabric(struct orca_fab *fab)
{
	if (fab_send_kick(fab->fd))
		fab->kicks_sent++;
}

/*
 * What waits in the queues into the ring (the next fabric_pollfd()
 * kicks the fabric if it sleeps); a full ring asks the fabric for a
 * kick when it takes some.
 */
int fab_ring_flush(struct orca_dev *dev)
{
	struct orca_fab *fab = dev->fab;
	int n;

	do {
		n = msgq_flush_ring(&fab->q15, &fab->q, &fab->tx);
		if (n < 0)
			return -1;
		if (msgq_empty(&fab->q15) && msgq_empty(&fab->q))
			break;
		fab->ring_waits++;
	} while (!orca_ring_wait_room(&fab->tx));
	return fab->tx.broken ? -1 : 0;
}

bool fab_ring_may_sleep(struct orca_dev *dev)
{
	struct orca_fab *fab = dev->fab;

	/*
	 * Poll a while after traffic, as the fabric does: a burst's next
	 * packet then costs no kick and no wake-up on either side
	 */
	if (dev->cfg.fabric_poll_us &&
	    orca_mono_ns() - fab->ring_active_ns <
	    dev->cfg.fabric_poll_us * 1000)
		return false;
	fab->rx_sleeping = true;
	if (!orca_ring_sleep(&fab->rx))
		return false;
	/* queued for a full ring: a kick when the fabric takes some */
	return msgq_empty(&fab->q) && msgq_empty(&fab->q15) ?
	       true : orca_ring_wait_room(&fab->tx);
}

int fab_ring_input(struct orca_dev *dev, fab_msg_fn on_msg,
		   fab_deliver_fn deliver)
{
	struct orca_fab *fab = dev->fab;
	const uint8_t *m;
	unsigned int i;
	int delivered = 0;
	size_t len;

	if (fab->rx_sleeping) {
		orca_ring_wake(&fab->rx);
		fab->rx_sleeping = false;
	}
	for (i = 0; i < ORCA_FAB_RX_BATCH; i++) {
		m = orca_ring_peek(&fab->rx, &len);
		if (!m)
			break;
		delivered += on_msg(dev, m, len, true, deliver);
		orca_ring_pop(&fab->rx);
		/* a message may have ended the link (fab_link_lost()) */
		if (!fab->shm_on)
			return delivered;
	}
	if (fab->rx.broken)
		return -1;
	if (i)
		fab_ring_traffic(dev);
	if (orca_ring_room_kick_due(&fab->rx))
		kick_fabric(fab);
	return delivered;
}
