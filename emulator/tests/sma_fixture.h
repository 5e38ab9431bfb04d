/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * What the SMA tests of a CA and of a switch share: SMP constants, and
 * PortInfo read, edited and written back as an SM does, at IBA vol 1
 * 14.2.5.6 offsets.
 */
#ifndef ORCA_SMA_FIXTURE_H
#define ORCA_SMA_FIXTURE_H

#include <stdio.h>

#include "mad_fixture.h"

#define SUBN	0x01
#define DR	0x81
#define GET	0x01
#define SET	0x02
#define D	64		/* SMP data */
#define NODE_GUID	0x0011223344556677ULL
#define PORT_GUID	0x0011223344556678ULL
#define SYS_GUID	0x00112233445566ffULL

static uint64_t sm_key;		/* the M_Key the tests' SM sends */

/* The PortInfo of @port as a Get through port @in sees it, in pi. */
static uint8_t pi[64];

static void pi_get(uint8_t in, uint32_t port)
{
	mad_req(SUBN, GET, 0x0015, port);
	W64(24, sm_key);
	CHECK_EQ(mad_run(in), ORCA_MAD_REPLY);
	check_resp(0);
	memcpy(pi, rsp + D, 64);
}

/* A Get, made a Set that changes no state: OpenSM's read, edit, write. */
static void pi_get_nop(uint8_t in, uint32_t port)
{
	pi_get(in, port);
	pi[32] &= 0xf0;		/* PortState: no change */
	pi[33] &= 0x0f;		/* PortPhysicalState: no change */
}

static enum orca_mad_result pi_set(uint8_t in, uint32_t port)
{
	mad_req(SUBN, SET, 0x0015, port);
	W64(24, sm_key);
	memcpy(req + D, pi, 64);
	return mad_run(in);
}

/* Edits of a PortInfo Set that must be refused and change nothing. */
struct edit {
	unsigned int off;
	uint8_t mask, val;
};

#define REFUSED(in, port, ...)						\
	pi_refused(in, port, (const struct edit[]){ __VA_ARGS__ },	\
		   sizeof((const struct edit[]){ __VA_ARGS__ }) /	\
		   sizeof(struct edit))

static void pi_refused(uint8_t in, uint32_t port, const struct edit *e,
		       unsigned int n)
{
	uint8_t before[64];
	unsigned int i;
	uint32_t c;

	pi_get(in, port);
	memcpy(before, pi, 64);
	pi_get_nop(in, port);
	for (i = 0; i < n; i++)
		pi[e[i].off] = (pi[e[i].off] & ~e[i].mask) | e[i].val;
	CHECK_EQ(pi_set(in, port), ORCA_MAD_REPLY);
	c = chg;
	check_resp(0x001c);
	CHECK_EQ(c, 0);
	pi_get(in, port);
	CHECK(!memcmp(before, pi, 64));
	if (memcmp(before, pi, 64))
		printf("#   refused edit of byte %u applied\n", e[0].off);
}

/* A valid Set first: LIDs as an SM writes them. */
static void pi_assign(uint8_t in, uint32_t port, uint16_t lid)
{
	pi_get_nop(in, port);
	put_be(pi + 16, lid, 2);
	put_be(pi + 18, 1, 2);
	CHECK_EQ(pi_set(in, port), ORCA_MAD_REPLY);
	check_resp(0);
}

#endif /* ORCA_SMA_FIXTURE_H */
