// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: what every path of the port's cable to orca-fabric
 * shares (orca_fabric.h): complaints about the peer, message headers,
 * kicks, and a packet that arrived, decoded and handed on.
 */
#include <string.h>
#include <sys/socket.h>

#include "orca_fabric.h"

void fab_complain(struct orca_dev *dev, const char *what, const char *why)
{
	struct orca_fab *fab = dev->fab;
	uint64_t s = dp_now_ns() / 1000000000ULL;

	if (s == fab->log_s) {
		fab->log_suppressed++;
		return;
	}
	orca_log("fabric: %s: %s (%llu more not logged)", what, why,
		 (unsigned long long)fab->log_suppressed);
	fab->log_s = s;
	fab->log_suppressed = 0;
}

bool fab_log_first(unsigned int n)
{
	return n % 100 == 0;
}

void fab_hdr(struct orca_fab_hdr *h, uint8_t type)
{
	memset(h, 0, sizeof(*h));
	h->type = type;
	h->version = ORCA_FAB_VERSION;
}

bool fab_send_kick(int fd)
{
	struct orca_fab_hdr h = {
		.type = ORCA_FAB_KICK, .version = ORCA_FAB_VERSION,
	};

	/* errors show at the next read */
	return send(fd, &h, sizeof(h), MSG_DONTWAIT | MSG_NOSIGNAL) ==
	       sizeof(h);
}

bool fab_direct_key_ok(const uint16_t *keys, uint8_t n, uint16_t pkey)
{
	unsigned int i;

	if (n == ORCA_FAB_DIRECT_KEYS_ALL)
		return true;
	for (i = 0; i < n; i++)
		if ((pkey & 0x7fff) && keys[i] == (pkey & 0x7fff))
			return true;
	return false;
}

bool fab_rx_pkt(struct orca_dev *dev, const uint8_t *m, size_t len,
		bool ring, const struct fab_direct *from,
		fab_deliver_fn deliver)
{
	const size_t hl = sizeof(struct orca_fab_hdr);
	unsigned int flags = 0;
	enum orca_pkt_err err;
	struct orca_pkt *p;

	/* no ICRC to check only where nothing could have corrupted it */
	if (m[2] & ORCA_FAB_F_NO_ICRC) {
		if (!ring) {
			dev->stats.fabric_decode_drops++;
			fab_complain(dev, "packet dropped",
				 "no ICRC, and not through the ring");
			return false;
		}
		flags = ORCA_PKT_NO_ICRC;
	}
	p = pkt_alloc(dev);
	if (!p) {
		dev->stats.pkts_dropped++;
		return false;
	}
	/*
	 * The payload stays in the message (the ring's slot, the receive
	 * buffer) and is placed from there: deliver() is done with the
	 * packet before this returns (wire_rx() is synchronous)
	 */
	err = orca_pkt_decode_flags(m + hl, len - hl, p,
				    flags | ORCA_PKT_BORROW);
	if (err != ORCA_PKT_OK) {
		dev->stats.fabric_decode_drops++;
		fab_complain(dev, "packet dropped", orca_pkt_strerror(err));
		pkt_free(dev, p);
		return false;
	}
	/* no switch looked at it: it must be the peer's, as granted */
	if (from && !fab_direct_key_ok(from->rx_keys, from->n_rx_keys,
				       p->pkey)) {
		dev->stats.fabric_decode_drops++;
		fab_complain(dev, "packet dropped",
			     "through a direct link, with a P_Key the switch would not pass");
		pkt_free(dev, p);
		return false;
	}
	if (from && (p->slid < from->peer_lid ||
		     (unsigned int)(p->slid - from->peer_lid) >=
			     (1U << from->peer_lmc))) {
		dev->stats.fabric_decode_drops++;
		fab_complain(dev, "packet dropped",
			     "through a direct link, not from its peer's LIDs");
		pkt_free(dev, p);
		return false;
	}
	dev->stats.fabric_rx_pkts++;
	dev->stats.fabric_rx_bytes += len - hl;
	deliver(dev, p);
	return true;
}

