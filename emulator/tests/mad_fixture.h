/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * What the SMA and PMA tests share: one node, a request and a reply
 * buffer, and big-endian fields put and read at the byte offsets IBA
 * gives (vol 1 13.4.2, 14.2.1, 16.1), written here anew so that no
 * expectation goes through the library's own encoders.
 */
#ifndef ORCA_MAD_FIXTURE_H
#define ORCA_MAD_FIXTURE_H

#include <stdint.h>
#include <string.h>

#include "orca_mad.h"
#include "tap.h"
#include "be.h"

#define TID 0x0123456789abcdefULL

static struct orca_mad_node node;
static uint8_t req[256], rsp[256];
static uint32_t chg;
static uint16_t in_slid;	/* the request's source LID, for traps */

/* the request's and the reply's fields at MAD offsets */
#define W8(off, v)	(req[off] = (v))
#define W16(off, v)	put_be(req + (off), (v), 2)
#define W32(off, v)	put_be(req + (off), (v), 4)
#define W64(off, v)	put_be(req + (off), (v), 8)
#define R16(off)	get_be(rsp + (off), 2)
#define R32(off)	get_be(rsp + (off), 4)
#define R64(off)	get_be(rsp + (off), 8)
#define STATUS()	R16(4)

/* A request: common header (13.4.2), all else 0. */
static void mad_req(uint8_t class, uint8_t method, uint16_t attr,
		    uint32_t mod)
{
	memset(req, 0, sizeof(req));
	req[0] = 1;		/* BaseVersion */
	req[1] = class;
	req[2] = 1;		/* ClassVersion */
	req[3] = method;
	W64(8, TID);
	W16(16, attr);
	W32(20, mod);
}

/* Hand req to the node as arriving on @port; the reply lands in rsp. */
static enum orca_mad_result mad_run_flags(uint8_t port, uint32_t flags)
{
	struct orca_mad_in in = {
		.mad = req, .port = port, .flags = flags, .slid = in_slid,
	};

	memset(rsp, 0xa5, sizeof(rsp));
	chg = 0xdeadbeef;
	return orca_mad_process(&node, &in, rsp, &chg);
}

static enum orca_mad_result mad_run(uint8_t port)
{
	return mad_run_flags(port, 0);
}

/* A reply's common header: GetResp to this request, with @status. */
static void check_resp(uint16_t status)
{
	CHECK_EQ(rsp[0], 1);
	CHECK_EQ(rsp[1], req[1]);
	CHECK_EQ(rsp[2], 1);
	CHECK_EQ(rsp[3], 0x81);
	CHECK_EQ(STATUS(), status);
	CHECK_EQ(R64(8), TID);
	CHECK_EQ(R16(16), get_be(req + 16, 2));
	CHECK_EQ(R32(20), get_be(req + 20, 4));
}

#endif /* ORCA_MAD_FIXTURE_H */
