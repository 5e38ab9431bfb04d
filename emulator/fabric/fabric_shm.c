// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca-fabric: the shared-memory links to ports on this machine
 * (orca_fabric_proto.h, "Shared-memory link"; orca_ring.h).
 *
 * A port offers a memfd with HELLO; fab_shm_attach() maps it, checks
 * its layout and answers SHM_ACK on the socket before anything else.
 * From then on the port's messages come through ring 0 and what the
 * switch sends it goes into ring 1: straight from the forwarding
 * (msgq_out_slot()), or through the port's queues when the ring is full.
 *
 * Lossless: a packet whose egress has no room stays at the head of its
 * ingress ring (the port is "blocked") until that egress drains, as a
 * link without credits holds the sender; its port then waits on a full
 * ring.  The egress port's kick, when it takes from its full ring,
 * wakes the fabric to go on.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabric.h"
#include "orca_log.h"

#define SHM_RX_BATCH	64	/* messages taken from one port per pass */

static void send_hdr(struct fab_conn *c, uint8_t type)
{
	struct orca_fab_hdr h = { .type = type, .version = ORCA_FAB_VERSION };

	/* a full socket is one the port has not read: it wakes anyway */
	send(c->fd, &h, sizeof(h), MSG_DONTWAIT | MSG_NOSIGNAL);
}

void fab_shm_kick(struct fab_conn *c)
{
	send_hdr(c, ORCA_FAB_KICK);
	c->kicks_sent++;
}

int fab_shm_attach(struct fabric *f, struct fab_conn *c, int fd)
{
	const struct orca_ring_layout *l;
	struct stat st;
	uint32_t nslots;
	void *mem;

	/*
	 * Only a memfd sealed against shrinking: a mapping past the end of
	 * a file that shrank would fault (SIGBUS) in this process
	 */
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(*l) ||
	    st.st_size > (off_t)orca_ring_map_size(ORCA_RING_MAX_SLOTS) ||
	    (fcntl(fd, F_GET_SEALS) & F_SEAL_SHRINK) != F_SEAL_SHRINK) {
		fab_complain(f, "shared-memory link refused: not a memfd sealed against shrinking",
			     c - f->conns);
		return -1;
	}
	mem = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   0);
	if (mem == MAP_FAILED)
		return -1;
	l = mem;
	/* read once: the port may change it, the rings check it */
	nslots = __atomic_load_n(&l->nslots, __ATOMIC_RELAXED);
	if (orca_ring_open(&c->in, mem, st.st_size, nslots, 0, false) ||
	    orca_ring_open(&c->out, mem, st.st_size, nslots, 1, false)) {
		munmap(mem, st.st_size);
		fab_complain(f, "shared-memory link refused: bad layout",
			     c - f->conns);
		return -1;
	}
	c->shm = mem;
	c->shm_size = st.st_size;
	c->in_sleeping = false;
	c->blocked = false;
	/* before LINK_UP or LID_ASSIGN: from now on they come by ring 1 */
	send_hdr(c, ORCA_FAB_SHM_ACK);
	return 0;
}

void fab_shm_detach(struct fabric *f, struct fab_conn *c)
{
	(void)f;
	if (!c->shm)
		return;
	munmap(c->shm, c->shm_size);
	c->shm = NULL;
	memset(&c->in, 0, sizeof(c->in));
	memset(&c->out, 0, sizeof(c->out));
}

/* Would the message @m wait for room where the switch sends it? */
static bool blocked(struct fabric *f, struct fab_conn *c, const uint8_t *m,
		    size_t len)
{
	const size_t hdr = sizeof(struct orca_fab_hdr);

	if (m[0] != ORCA_FAB_PKT || len <= hdr)
		return false;
	if (f->mode == FAB_SM_BUILTIN)
		return c->lid >= 0 && fab_sm_blocked(f, m, len);
	return c->port >= 0 &&
	       fab_sw_blocked(f->topo->sw[c->sw], c->port, m + hdr, len - hdr);
}

bool fab_shm_input(struct fabric *f, struct fab_conn *c)
{
	const uint8_t *m;
	unsigned int i;
	size_t len;

	if (c->in_sleeping) {
		orca_ring_wake(&c->in);
		c->in_sleeping = false;
	}
	c->blocked = false;
	for (i = 0; i < SHM_RX_BATCH && c->shm; i++) {
		m = orca_ring_peek(&c->in, &len);
		if (!m)
			break;
		if (blocked(f, c, m, len)) {
			c->blocked = true;
			c->blocks++;
			break;
		}
		fab_on_msg(f, c, m, len, true);
		/* a message may have closed the connection */
		if (!c->shm)
			return false;
		orca_ring_pop(&c->in);
	}
	if (c->in.broken) {
		fab_conn_close(f, c, "the port broke its ring");
		return false;
	}
	if (i && f->poll_ns)
		f->ring_active_ns = orca_mono_ns();
	if (orca_ring_room_kick_due(&c->in))
		fab_shm_kick(c);
	return true;
}

bool fab_shm_flush(struct fabric *f, struct fab_conn *c)
{
	struct msgq *q15, *q;
	int n;

	if (c->port >= 0) {
		q15 = &f->topo->sw[c->sw]->port[c->port].q15;
		q = &f->topo->sw[c->sw]->port[c->port].q;
	} else {
		q15 = &c->q15;
		q = &c->q;
	}
	do {
		n = msgq_flush_ring(q15, q, &c->out);
		if (n < 0)
			return false;
		if (msgq_empty(q15) && msgq_empty(q))
			break;
	} while (!orca_ring_wait_room(&c->out));
	if (c->out.published && f->poll_ns)
		f->ring_active_ns = orca_mono_ns();
	if (orca_ring_kick_due(&c->out))
		fab_shm_kick(c);
	return !c->out.broken;
}

bool fab_shm_may_sleep(struct fabric *f, struct fab_conn *c)
{
	const uint8_t *m;
	size_t len;

	c->in_sleeping = true;
	if (orca_ring_sleep(&c->in))
		return true;
	m = orca_ring_peek(&c->in, &len);
	/*
	 * what waits for room waits for the egress's kick (its queue is
	 * not empty: fab_shm_flush() asked for one); asked again now, as
	 * the egress may have drained since the input stopped
	 */
	return !m || blocked(f, c, m, len);
}
