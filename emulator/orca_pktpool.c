// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: packets, from a small per-device free list (a
 * packet is sent and freed many times a millisecond).
 */
#include <stdlib.h>
#include <string.h>

#include "orca_core.h"

#define PKT_CACHE_MAX	64

struct orca_pkt *pkt_alloc(struct orca_dev *dev)
{
	struct orca_pkt *p = dev->pkt_cache;
	/*
	 * Hidden from the compiler, which would inline a 140-byte memset as
	 * "rep stos" (some 14 ns on a current x86, libc's memset under 2):
	 * it runs for every packet, ACKs too.
	 */
	size_t hdr = offsetof(struct orca_pkt, payload);

	__asm__("" : "+r"(hdr));
	if (p) {
		dev->pkt_cache = p->next;
		dev->n_pkt_cache--;
	} else {
		p = malloc(sizeof(*p));
		if (!p)
			return NULL;
	}
	memset(p, 0, hdr);
	return p;
}

void pkt_free(struct orca_dev *dev, struct orca_pkt *p)
{
	if (dev->n_pkt_cache >= PKT_CACHE_MAX) {
		free(p);
		return;
	}
	p->next = dev->pkt_cache;
	dev->pkt_cache = p;
	dev->n_pkt_cache++;
}

void pkt_cache_free(struct orca_dev *dev)
{
	struct orca_pkt *p;

	while ((p = dev->pkt_cache)) {
		dev->pkt_cache = p->next;
		free(p);
	}
	dev->n_pkt_cache = 0;
}
