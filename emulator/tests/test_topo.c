// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Several switches cabled together (fabric/fabric_topo.h), without
 * sockets: a chain s1 - s2 - s3 with CA ports on s1 and s3.  The SM is
 * the test on the CA in s1 port 2, with SMPs written at IBA vol 1
 * offsets (13.4.2, 14.2.1.2, 14.2.5); what it expects comes from the
 * spec: a directed route crosses each switch by the rules of 14.2.2
 * (C14-9, C14-13) and comes back by its ReturnPath, each switch answers
 * with its own NodeInfo (LocalPortNum: the port the SMP came in by), a
 * LID-routed packet follows each switch's LFT (18.2.4.3), and a port the
 * SM takes DOWN retrains with its peer (7.2, PortStateChange).
 *
 * With the path of orca-fabric, the last cases run it with --topology;
 * with orca-emu's too, one with no guest behind it (port_pin=all) is a
 * CA port whose firmware answers the SM by itself.
 *
 * usage: orca-emu-topo-tests [-v] [ORCA-FABRIC [ORCA-EMU]]
 */
#include <endian.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fabric/fabric_topo.h"
#include "orca_log.h"
#include "fabric_sock.h"
#include "switch_fixture.h"

#define GUID(n)		(0x00ca7afffe000000ULL + (n))
#define SW_GUID(n)	(0x00ca7a0000f00000ULL + (n))
/* s1 port 2: the SM's CA (A); s3 port 3: B, pinned; s1 port 3: C */
#define SM_PORT		2
#define LID_A		1
#define LID_B		2
#define LID_S1		10
#define LID_S2		11
#define LID_S3		12
#define LID_NOWHERE	20

static const char chain[] =
	"# a chain of three switches\n"
	"switch s1 8\n"
	"switch s2 4 0x00ca7a0000f00001   # the default GUID spelt out\n"
	"switch s3 8\n"
	"link s1:1 s2:1\n"
	"link s2:2 s3:1\n"
	"ca 0x00ca7afffe000002 s3:3\n";

static struct fab_topo topo;
static long long now_ms_(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static struct fab_switch *S(const char *name)
{
	int i = fab_topo_find(&topo, name);

	return i < 0 ? NULL : topo.sw[i];
}

/* ---- packets ---- */

/* A data packet (VL0, QP 0x20 -> 0x21) of @len bytes of @pay, into wire. */
static void data_pkt(uint16_t dlid, uint16_t slid, const uint8_t *pay,
		     uint32_t len)
{
	ud(0, dlid, slid, 0x21, 0x20, 0x11111111, pay, len);
}

/* Everything between the switches carried, none left in flight. */
static void settle(void)
{
	fab_topo_carry(&topo, 100000);
	CHECK(!fab_topo_busy(&topo));
}

/* ---- the SM on A ---- */

/* The DR SMP of dr_smp(), with @data (64 bytes, or NULL) as its data. */
static void dr_smp_data(uint8_t method, uint16_t attr, uint32_t mod,
			uint8_t hops, const uint8_t *path, const uint8_t *data)
{
	dr_smp(method, attr, mod, hops, path);
	if (data)
		memcpy(mad + DATA, data, 64);
}

/*
 * The SMP from A by @path (path[0] is A's own port, 1), carried through
 * the fabric; the reply into resp; its status, or -1 if none came back.
 */
static int sm_dr(uint8_t method, uint16_t attr, uint32_t mod, uint8_t hops,
		 const uint8_t *path, const uint8_t *data)
{
	dr_smp_data(method, attr, mod, hops, path, data);
	smp_wire();
	fab_sw_input(S("s1"), SM_PORT, wire, wire_len);
	settle();
	if (!take_from(S("s1"), SM_PORT)) {
		printf("#   no reply to attribute 0x%x over %u hops\n", attr,
		       hops);
		return -1;
	}
	memcpy(resp, pout.payload, 256);
	CHECK_EQ(get_be(resp + 8, 8), tid);
	CHECK(resp[4] & 0x80);		/* D: on its way back */
	return get_be(resp + 4, 2) & 0x7fff;
}

/* the routes from A to each switch's port 0 */
static const uint8_t to_s1[] = { 1 }, to_s2[] = { 1, 1 },
		     to_s3[] = { 1, 1, 2 };
#define ROUTE(r)	(uint8_t)sizeof(r), r

static void pi_set(uint8_t hops, const uint8_t *path, unsigned int port,
		   void (*edit)(uint8_t *d, unsigned int arg),
		   unsigned int arg)
{
	uint8_t d[64];

	CHECK_EQ(sm_dr(1, 0x0015, port, hops, path, NULL), 0);
	memcpy(d, resp + DATA, 64);
	d[32] &= 0xf0;			/* PortState: no change */
	d[33] &= 0x0f;			/* PhysState: no change */
	edit(d, arg);
	CHECK_EQ(sm_dr(2, 0x0015, port, hops, path, d), 0);
}

static void set_lid(uint8_t *d, unsigned int lid)
{
	put_be(d + 16, lid, 2);
	put_be(d + 18, LID_A, 2);	/* MasterSMLID */
}

static void set_state(uint8_t *d, unsigned int state)
{
	d[32] = (d[32] & 0xf0) | state;
}

static uint8_t port_state(uint8_t hops, const uint8_t *path,
			  unsigned int port)
{
	CHECK_EQ(sm_dr(1, 0x0015, port, hops, path, NULL), 0);
	return resp[DATA + 32] & 0xf;
}

/* A's LFT for the switch: LIDs 0..63 (block 0), the rest unrouted. */
static void lft(uint8_t hops, const uint8_t *path, const uint8_t *ports)
{
	uint8_t d[64];

	CHECK_EQ(sm_dr(1, 0x0012, 0, hops, path, NULL), 0);
	memcpy(d, resp + DATA, 64);
	put_be(d + 6, 0x3f, 2);		/* LinearFDBTop */
	CHECK_EQ(sm_dr(2, 0x0012, 0, hops, path, d), 0);
	memcpy(d, ports, 64);
	CHECK_EQ(sm_dr(2, 0x0019, 0, hops, path, d), 0);
}

/* The fabric, CAs A (s1:2), C (s1:3) and B (pinned s3:3) cabled in. */
static void setup(void)
{
	char err[128] = "";
	unsigned int s = 99;

	fab_topo_free(&topo);
	CHECK_EQ(fab_topo_parse(&topo, chain, err, sizeof(err)), 0);
	if (*err)
		printf("#   %s\n", err);
	CHECK_EQ(fab_topo_attach(&topo, GUID(1), GUID(1) + 1, &s), SM_PORT);
	CHECK_EQ(s, 0);
	fab_sw_link(topo.sw[s], SM_PORT, true);
	CHECK_EQ(fab_topo_attach(&topo, GUID(2), GUID(2) + 1, &s), 3);
	CHECK_EQ(s, 2);
	fab_sw_link(topo.sw[s], 3, true);
	CHECK_EQ(fab_topo_attach(&topo, GUID(3), GUID(3) + 1, &s), 3);
	CHECK_EQ(s, 0);
	fab_sw_link(topo.sw[s], 3, true);
	settle();
	/* each CA hears LINK_UP first */
	CHECK_EQ(fab_sw_pop(S("s1"), SM_PORT, msg), sizeof(struct orca_fab_link));
	CHECK_EQ(msg[0], ORCA_FAB_LINK_UP);
	CHECK_EQ(fab_sw_pop(S("s3"), 3, msg), sizeof(struct orca_fab_link));
	CHECK_EQ(fab_sw_pop(S("s1"), 3, msg), sizeof(struct orca_fab_link));
}

/* ---- the cases ---- */

static void parse_errors(void)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "", "no switch" },
		{ "# only a comment\n", "no switch" },
		{ "switch a 8\nrouter b 8\n", "line 2: unknown statement 'router'" },
		{ "switch a 0\n", "PORTS 1..64" },
		{ "switch a 65\n", "PORTS 1..64" },
		{ "switch a 8\nswitch a 4\n", "declared twice" },
		{ "switch a:b 8\n", "no ':'" },
		{ "switch a 8 0\n", "bad GUID" },
		{ "switch a 8\nlink a:1 b:1\n", "no switch 'b' declared before" },
		{ "switch a 8\nswitch b 4\nlink a:1 b:5\n", "switch b has no port '5'" },
		{ "switch a 8\nswitch b 4\nlink a:1 b\n", "'b' is not SWITCH:PORT" },
		{ "switch a 8\nlink a:1 a:2\n", "to itself" },
		{ "switch a 8\nswitch b 4\nlink a:1 b:1\nlink a:1 b:2\n",
		  "line 4: a:1 is cabled already" },
		{ "switch a 8\nca 0x11 a:1\nca 0x11 a:2\n", "pinned twice" },
		{ "switch a 8\nswitch b 4\nca 0x11 a:1\nlink a:1 b:1\n",
		  "a:1 is cabled already" },
		{ "switch a 8\nca 0x11\n", "ca PORT-GUID SWITCH:PORT" },
	};
	char err[160];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(err, 0, sizeof(err));
		CHECK_EQ(fab_topo_parse(&topo, bad[i].text, err, sizeof(err)), -1);
		if (!strstr(err, bad[i].says)) {
			printf("#   case %u: '%s' does not say '%s'\n", i, err,
			       bad[i].says);
			CHECK(0);
		}
		CHECK_EQ(topo.n_sw, 0);
	}
}

static void cabling(void)
{
	unsigned int s = 99;

	setup();
	CHECK_EQ(topo.n_sw, 3);
	CHECK_EQ(topo.n_links, 2);
	CHECK_EQ(S("s2")->node.node_guid, SW_GUID(1));
	CHECK_EQ(S("s3")->node.node_guid, SW_GUID(2));
	CHECK(!strcmp(S("s3")->node.desc, "orca-fabric s3"));
	/* the four ISL ends came up in INIT, nobody retrained anybody */
	CHECK_EQ(S("s1")->node.port[1].state, ORCA_MAD_PORT_INIT);
	CHECK_EQ(S("s2")->node.port[1].state, ORCA_MAD_PORT_INIT);
	CHECK_EQ(S("s2")->node.port[2].state, ORCA_MAD_PORT_INIT);
	CHECK_EQ(S("s3")->node.port[1].state, ORCA_MAD_PORT_INIT);
	CHECK_EQ(S("s2")->node.port[3].state, ORCA_MAD_PORT_DOWN);
	CHECK_EQ(topo.isl_retrains, 0);
	/* B's port is B's: C went elsewhere; a second B is refused */
	CHECK_EQ(fab_topo_attach(&topo, GUID(2), GUID(2) + 1, &s), -1);
	/* A leaves and comes back to the same port */
	fab_sw_detach(S("s1"), SM_PORT);
	CHECK_EQ(fab_topo_attach(&topo, GUID(1), GUID(1) + 1, &s), SM_PORT);
	CHECK_EQ(s, 0);
	/* the next new CA: s1 port 4 (1 is the ISL) */
	CHECK_EQ(fab_topo_attach(&topo, GUID(4), GUID(4) + 1, &s), 4);
	CHECK_EQ(s, 0);
}

/* NodeInfo and NodeDescription of each switch along the chain. */
static void dr_hops(void)
{
	static const struct {
		uint8_t hops;
		const uint8_t *path;
		uint64_t guid;
		uint8_t local_port;
		const char *desc;
	} at[] = {
		{ ROUTE(to_s1), SW_GUID(0), SM_PORT, "orca-fabric s1" },
		{ ROUTE(to_s2), SW_GUID(1), 1, "orca-fabric s2" },
		{ ROUTE(to_s3), SW_GUID(2), 1, "orca-fabric s3" },
	};
	unsigned int i;

	setup();
	for (i = 0; i < 3; i++) {
		CHECK_EQ(sm_dr(1, 0x0011, 0, at[i].hops, at[i].path, NULL), 0);
		CHECK_EQ(resp[DATA + 2], 2);			/* switch */
		CHECK_EQ(get_be(resp + DATA + 12, 8), at[i].guid);
		CHECK_EQ(resp[DATA + 36], at[i].local_port);
		/* the way back it took: ReturnPath[1..hops] */
		CHECK_EQ(resp[RET_PATH + 1], SM_PORT);
		if (i)
			CHECK_EQ(resp[RET_PATH + 2], 1);
		CHECK_EQ(sm_dr(1, 0x0010, 0, at[i].hops, at[i].path, NULL), 0);
		CHECK(!strcmp((char *)resp + DATA, at[i].desc));
	}
	/* s2's NumPorts: 4, as declared */
	CHECK_EQ(sm_dr(1, 0x0011, 0, ROUTE(to_s2), NULL), 0);
	CHECK_EQ(resp[DATA + 3], 4);
	/* two SMPs to each switch, 0, 2 and 4 crossings each, and one more */
	CHECK_EQ(topo.isl_pkts, 2 * (0 + 2 + 4) + 2);
}

/* a route off the end (s3 port 5 is not cabled): dropped at s3 */
static void dr_dead_end(void)
{
	static const uint8_t off_end[] = { 1, 1, 2, 5 };

	setup();
	CHECK_EQ(sm_dr(1, 0x0011, 0, ROUTE(off_end), NULL), -1);
	CHECK_EQ(S("s3")->drops[FAB_SW_DROP_EGRESS], 1);
	CHECK_EQ(S("s1")->drops[FAB_SW_DROP_EGRESS], 0);
}

/*
 * What OpenSM does before data moves: LIDs, LFTs, every port on the
 * path ARMED then ACTIVE; then a packet from A to B crosses all three.
 */
static void program(void)
{
	uint8_t f1[64], f2[64], f3[64];
	unsigned int state;

	setup();
	memset(f1, 0xff, 64);
	memset(f2, 0xff, 64);
	memset(f3, 0xff, 64);
	f1[LID_A] = SM_PORT; f1[LID_B] = 1; f1[LID_S1] = 0;
	f1[LID_S2] = 1; f1[LID_S3] = 1; f1[LID_NOWHERE] = 1;
	f2[LID_A] = 1; f2[LID_B] = 2; f2[LID_S1] = 1; f2[LID_S2] = 0;
	f2[LID_S3] = 2;			/* LID_NOWHERE: no route at s2 */
	f3[LID_A] = 1; f3[LID_B] = 3; f3[LID_S1] = 1; f3[LID_S2] = 1;
	f3[LID_S3] = 0;
	pi_set(ROUTE(to_s1), 0, set_lid, LID_S1);
	pi_set(ROUTE(to_s2), 0, set_lid, LID_S2);
	pi_set(ROUTE(to_s3), 0, set_lid, LID_S3);
	lft(ROUTE(to_s1), f1);
	lft(ROUTE(to_s2), f2);
	lft(ROUTE(to_s3), f3);
	/* the far ends first, as OpenSM arms from the leaves in */
	for (state = 3; state <= 4; state++) {
		pi_set(ROUTE(to_s3), 3, set_state, state);
		pi_set(ROUTE(to_s3), 1, set_state, state);
		pi_set(ROUTE(to_s2), 2, set_state, state);
		pi_set(ROUTE(to_s2), 1, set_state, state);
		pi_set(ROUTE(to_s1), 1, set_state, state);
		pi_set(ROUTE(to_s1), SM_PORT, set_state, state);
	}
	CHECK_EQ(port_state(ROUTE(to_s2), 1), 4);
	CHECK_EQ(port_state(ROUTE(to_s3), 3), 4);
	CHECK_EQ(topo.isl_retrains, 0);
}

static void lid_routed(void)
{
	static uint8_t pay[1024];
	uint64_t rcv, xmit, isl;
	unsigned int i;

	program();
	for (i = 0; i < sizeof(pay); i++)
		pay[i] = (uint8_t)(i * 7 + 3);
	rcv = S("s2")->port[1].pma.c[ORCA_PMA_RCV_PKTS];
	xmit = S("s2")->port[2].pma.c[ORCA_PMA_XMIT_PKTS];
	isl = topo.isl_pkts;
	data_pkt(LID_B, LID_A, pay, sizeof(pay));
	fab_sw_input(S("s1"), SM_PORT, wire, wire_len);
	settle();
	CHECK(take_from(S("s3"), 3));
	CHECK(same_bytes());
	CHECK(!fab_sw_pending(S("s3"), 3));
	CHECK_EQ(S("s2")->port[1].pma.c[ORCA_PMA_RCV_PKTS], rcv + 1);
	CHECK_EQ(S("s2")->port[2].pma.c[ORCA_PMA_XMIT_PKTS], xmit + 1);
	CHECK_EQ(topo.isl_pkts, isl + 2);
	/* and back, B to A */
	data_pkt(LID_A, LID_B, pay, 100);
	fab_sw_input(S("s3"), 3, wire, wire_len);
	settle();
	CHECK(take_from(S("s1"), SM_PORT));
	CHECK(same_bytes());
	/* a LID s2 has no route for: dropped there, nothing comes out */
	data_pkt(LID_NOWHERE, LID_A, pay, 64);
	fab_sw_input(S("s1"), SM_PORT, wire, wire_len);
	settle();
	CHECK_EQ(S("s2")->drops[FAB_SW_DROP_NO_ROUTE], 1);
	CHECK(!fab_sw_pending(S("s3"), 3));
	CHECK(!fab_sw_pending(S("s1"), SM_PORT));
	/* a LID-routed SMP to s3's port 0 (its LID): answered from there */
	mad_hdr(0x01, 1, 0x0011, 0);
	ud(15, LID_S3, LID_A, 0, 0, 0, mad, 256);
	fab_sw_input(S("s1"), SM_PORT, wire, wire_len);
	settle();
	CHECK(take_from(S("s1"), SM_PORT));
	CHECK_EQ(get_be(pout.payload + 8, 8), tid);
	CHECK_EQ(get_be(pout.payload + 64 + 12, 8), SW_GUID(2));
	CHECK_EQ(pout.slid, LID_S3);
}

/* The SM takes s1 port 1 DOWN: it retrains, and so does s2's end. */
static void retrain(void)
{
	program();
	pi_set(ROUTE(to_s1), 1, set_state, 1);
	settle();
	CHECK_EQ(topo.isl_retrains, 1);
	CHECK_EQ(S("s1")->node.port[1].state, ORCA_MAD_PORT_INIT);
	CHECK_EQ(S("s2")->node.port[1].state, ORCA_MAD_PORT_INIT);
	CHECK_EQ(S("s2")->node.port[2].state, ORCA_MAD_PORT_ACTIVE);
	/* s2 saw its port change: PortStateChange in its SwitchInfo */
	CHECK_EQ(sm_dr(1, 0x0012, 0, ROUTE(to_s2), NULL), 0);
	CHECK(resp[DATA + 11] & 0x04);
	/* and the link comes back when the SM walks it up again */
	pi_set(ROUTE(to_s2), 1, set_state, 3);
	pi_set(ROUTE(to_s1), 1, set_state, 3);
	pi_set(ROUTE(to_s2), 1, set_state, 4);
	pi_set(ROUTE(to_s1), 1, set_state, 4);
	CHECK_EQ(port_state(ROUTE(to_s3), 3), 4);
	CHECK_EQ(topo.isl_retrains, 1);
}

/*
 * The SM takes both ends of the s1-s2 cable ARMED, then ACTIVE; A sends
 * B a packet of @len bytes of @pay across it.
 */
static void walk_up_and_send(const uint8_t *pay, uint32_t len)
{
	unsigned int state;

	for (state = 3; state <= 4; state++) {
		pi_set(ROUTE(to_s2), 1, set_state, state);
		pi_set(ROUTE(to_s1), 1, set_state, state);
	}
	data_pkt(LID_B, LID_A, pay, len);
	fab_sw_input(S("s1"), SM_PORT, wire, wire_len);
	settle();
}

/* The cable between s1 and s2 pulled, then put back. */
static void link_pulled(void)
{
	static uint8_t pay[200];
	char err[128];

	program();
	CHECK_EQ(fab_topo_link(&topo, "s1:2", false, err, sizeof(err)), -1);
	CHECK(strstr(err, "s1:2 is no inter-switch link") != NULL);
	CHECK_EQ(fab_topo_link(&topo, "s9:1", false, err, sizeof(err)), -1);
	CHECK_EQ(fab_topo_link(&topo, "s2:1", false, err, sizeof(err)), 0);
	settle();
	CHECK_EQ(S("s1")->node.port[1].state, ORCA_MAD_PORT_DOWN);
	CHECK_EQ(S("s2")->node.port[1].state, ORCA_MAD_PORT_DOWN);
	CHECK_EQ(S("s2")->node.port[2].state, ORCA_MAD_PORT_ACTIVE);
	/* both switches saw it (SwitchInfo PortStateChange) */
	CHECK_EQ(sm_dr(1, 0x0012, 0, ROUTE(to_s1), NULL), 0);
	CHECK(resp[DATA + 11] & 0x04);
	CHECK(S("s2")->node.sw.port_state_change);
	/* A's packets to B go nowhere now; s2 is out of the SM's reach */
	data_pkt(LID_B, LID_A, pay, sizeof(pay));
	fab_sw_input(S("s1"), SM_PORT, wire, wire_len);
	settle();
	CHECK(!fab_sw_pending(S("s3"), 3));
	CHECK_EQ(S("s1")->drops[FAB_SW_DROP_EGRESS], 1);
	CHECK_EQ(sm_dr(1, 0x0011, 0, ROUTE(to_s2), NULL), -1);
	/* back: both ends INIT, the SM walks them up, data flows */
	CHECK_EQ(fab_topo_link(&topo, "s1:1", true, err, sizeof(err)), 0);
	settle();
	CHECK_EQ(S("s1")->node.port[1].state, ORCA_MAD_PORT_INIT);
	CHECK_EQ(S("s2")->node.port[1].state, ORCA_MAD_PORT_INIT);
	CHECK_EQ(topo.isl_retrains, 0);
	walk_up_and_send(pay, sizeof(pay));
	CHECK(take_from(S("s3"), 3));
	CHECK(same_bytes());
}

/*
 * carry() moves at most its budget and leaves the rest for the next
 * pass; an LFT that sends a LID back out of the port it came in by is
 * a U-turn, which the switch drops (18.2.4.3), not a packet for ever
 * between two switches.
 */
static void carry_budget(void)
{
	uint8_t f[64];
	static uint8_t pay[64];
	unsigned int i, got = 0;

	program();
	data_pkt(LID_B, LID_A, pay, sizeof(pay));
	for (i = 0; i < 10; i++)
		fab_sw_input(S("s1"), SM_PORT, wire, wire_len);
	CHECK_EQ(fab_topo_carry(&topo, 5), 5);
	CHECK(fab_topo_busy(&topo));
	settle();
	while (take_from(S("s3"), 3))
		got++;
	CHECK_EQ(got, 10);

	memset(f, 0xff, 64);
	f[LID_A] = 1; f[LID_B] = 2; f[LID_S1] = 1; f[LID_S2] = 0;
	f[LID_S3] = 2; f[LID_NOWHERE] = 1;	/* back where it came from */
	lft(ROUTE(to_s2), f);
	data_pkt(LID_NOWHERE, LID_A, pay, sizeof(pay));
	fab_sw_input(S("s1"), SM_PORT, wire, wire_len);
	CHECK_EQ(fab_topo_carry(&topo, 50), 1);
	CHECK(!fab_topo_busy(&topo));
	CHECK_EQ(S("s2")->drops[FAB_SW_DROP_NO_ROUTE], 1);
	CHECK(!fab_sw_pending(S("s1"), SM_PORT));
}

/* A's packets to B that reached s3 port 3 now, each B's bytes. */
static unsigned int arrived_at_b(void)
{
	unsigned int n = 0;

	while (take_from(S("s3"), 3)) {
		CHECK(same_bytes());
		n++;
	}
	return n;
}

/*
 * Faults on a cable between two switches here (link-faults on a local
 * ISL end, fabric_fault.h): what s1 sends to s2 lost, every packet then
 * about half (every one accounted), held 200 ms (it comes, no sooner,
 * whole), and what a pulled cable held gone with it.
 */
static void isl_faults(void)
{
	static uint8_t pay[200];
	struct fab_fault *f;
	unsigned int i, got;
	uint64_t isl0, t0;
	char err[128];

	program();
	CHECK_EQ(fab_topo_link_faults(&topo, "s1:2", 0, 0, err, sizeof(err)), -1);
	CHECK(strstr(err, "s1:2 is no inter-switch link") != NULL);
	CHECK_EQ(fab_topo_link_faults(&topo, "s1:1", 1000001, 0, err, sizeof(err)), -1);
	/* none asked of an end that has none: nothing made */
	CHECK_EQ(fab_topo_link_faults(&topo, "s2:2", 0, 0, err, sizeof(err)), 0);
	CHECK(!topo.isl_fault[1][2]);
	for (i = 0; i < sizeof(pay); i++)
		pay[i] = i * 7;
	data_pkt(LID_B, LID_A, pay, sizeof(pay));

	/* all lost */
	CHECK_EQ(fab_topo_link_faults(&topo, "s1:1", 1000000, 0, err, sizeof(err)), 0);
	f = topo.isl_fault[0][1];
	CHECK(f != NULL);
	if (!f)
		return;
	isl0 = topo.isl_pkts;
	for (i = 0; i < 20; i++)
		fab_sw_input(S("s1"), SM_PORT, wire, wire_len);
	settle();
	CHECK_EQ(arrived_at_b(), 0);
	CHECK_EQ(f->drops, 20);
	CHECK_EQ(topo.isl_pkts, isl0);

	/* half lost */
	CHECK_EQ(fab_topo_link_faults(&topo, "s1:1", 500000, 0, err, sizeof(err)), 0);
	for (i = 0, got = 0; i < 200; i++) {
		fab_sw_input(S("s1"), SM_PORT, wire, wire_len);
		settle();
		got += arrived_at_b();
	}
	CHECK(f->drops - 20 >= 50 && f->drops - 20 <= 150);
	CHECK_EQ(f->drops - 20 + got, 200);

	/* no loss, 200 ms late */
	CHECK_EQ(fab_topo_link_faults(&topo, "s1:1", 0, 200000, err, sizeof(err)), 0);
	t0 = now_ms_();
	fab_sw_input(S("s1"), SM_PORT, wire, wire_len);
	settle();
	CHECK_EQ(arrived_at_b(), 0);
	CHECK(fab_topo_holding(&topo));
	for (got = 0; !got && now_ms_() - t0 < 5000; got = arrived_at_b()) {
		usleep(1000);
		settle();
	}
	CHECK_EQ(got, 1);
	CHECK(now_ms_() - t0 >= 200);
	CHECK_EQ(f->delayed, 1);
	CHECK(!fab_topo_holding(&topo));

	/* held when the cable goes: gone with it */
	fab_sw_input(S("s1"), SM_PORT, wire, wire_len);
	settle();
	CHECK(fab_topo_holding(&topo));
	CHECK_EQ(fab_topo_link(&topo, "s2:1", false, err, sizeof(err)), 0);
	CHECK(!fab_topo_holding(&topo));
	usleep(250000);
	settle();
	CHECK_EQ(arrived_at_b(), 0);

	/* none again, the cable back and walked up: as before */
	CHECK_EQ(fab_topo_link_faults(&topo, "s1:1", 0, 0, err, sizeof(err)), 0);
	CHECK_EQ(fab_topo_link(&topo, "s1:1", true, err, sizeof(err)), 0);
	settle();
	walk_up_and_send(pay, sizeof(pay));
	CHECK_EQ(arrived_at_b(), 1);
	CHECK_EQ(f->delayed, 2);
}

/* ---- a link to another fabric, over TCP ---- */

static struct fab_topo tx_, ty_;	/* "two machines" */

/* Both fabrics' work for @ms at most, until @done() (NULL: the time). */
static bool pump(unsigned int ms, bool (*done)(void))
{
	struct pollfd pfd[2 * FAB_TOPO_MAX_REMOTE];
	uint64_t end = (uint64_t)now_ms_() + ms;
	int nx, ny;

	for (;;) {
		nx = fab_topo_pollfds(&tx_, pfd);
		ny = fab_topo_pollfds(&ty_, pfd + nx);
		poll(pfd, nx + ny, 5);
		fab_topo_io(&tx_, pfd, now_ms_());
		fab_topo_io(&ty_, pfd + nx, now_ms_());
		fab_topo_carry(&tx_, 100000);
		fab_topo_carry(&ty_, 100000);
		if (done && done())
			return true;
		if ((uint64_t)now_ms_() > end)
			return !done;
	}
}

static bool both_init(void)
{
	return tx_.sw[0]->node.port[1].state == ORCA_MAD_PORT_INIT &&
	       ty_.sw[0]->node.port[1].state == ORCA_MAD_PORT_INIT;
}

static bool both_down(void)
{
	return tx_.sw[0]->node.port[1].state == ORCA_MAD_PORT_DOWN &&
	       ty_.sw[0]->node.port[1].state == ORCA_MAD_PORT_DOWN;
}

static bool reply_at_a(void)
{
	return fab_sw_pending(tx_.sw[0], SM_PORT);
}

/* A DR SMP from A (x1 port 2) by @path, pumped until its reply is back. */
static int sm_dr_x(uint8_t method, uint16_t attr, uint32_t mod,
		   uint8_t hops, const uint8_t *path, const uint8_t *data)
{
	dr_smp_data(method, attr, mod, hops, path, data);
	smp_wire();
	fab_sw_input(tx_.sw[0], SM_PORT, wire, wire_len);
	if (!pump(5000, reply_at_a) || !take_from(tx_.sw[0], SM_PORT))
		return -1;
	memcpy(resp, pout.payload, 256);
	CHECK_EQ(get_be(resp + 8, 8), tid);
	return get_be(resp + 4, 2) & 0x7fff;
}

static void remote_state(uint8_t hops, const uint8_t *path, unsigned int port,
			 uint8_t state)
{
	uint8_t d[64];

	CHECK_EQ(sm_dr_x(1, 0x0015, port, hops, path, NULL), 0);
	memcpy(d, resp + DATA, 64);
	d[32] = (d[32] & 0xf0) | state;
	d[33] &= 0x0f;
	CHECK_EQ(sm_dr_x(2, 0x0015, port, hops, path, d), 0);
}

/* A TCP port of the loopback nobody uses now (the kernel's choice). */
static unsigned int free_tcp_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	unsigned int port = 0;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd >= 0 && !bind(fd, (struct sockaddr *)&sa, sizeof(sa)) &&
	    !getsockname(fd, (struct sockaddr *)&sa, &sl))
		port = ntohs(sa.sin_port);
	if (fd >= 0)
		close(fd);
	CHECK(port != 0);
	return port;
}

/* The two fabrics' files: x1 and y1, cabled by port 1 over TCP @tcp. */
static void remote_files(char *x, char *y, size_t len, unsigned int tcp)
{
	snprintf(x, len,
		 "switch x1 4 0x00ca7a0000f0a000\nremote x1:1 listen 127.0.0.1:%u\n",
		 tcp);
	snprintf(y, len,
		 "switch y1 4 0x00ca7a0000f0b000\nremote y1:1 connect 127.0.0.1:%u\n",
		 tcp);
}

static void remote_link(void)
{
	static const uint8_t to_x1[] = { 1 }, to_y1[] = { 1, 1 };
	char x[256], y[256], err[128];
	unsigned int s, state, tcp = free_tcp_port();
	int fd;

	remote_files(x, y, sizeof(x), tcp);
	CHECK_EQ(fab_topo_parse(&tx_, x, err, sizeof(err)), 0);
	CHECK_EQ(fab_topo_parse(&ty_, y, err, sizeof(err)), 0);
	/* a second listener on that port: refused at start, with its line */
	fab_topo_free(&topo);
	CHECK_EQ(fab_topo_parse(&topo, x, err, sizeof(err)), -1);
	CHECK(strstr(err, "line 2: remote x1:1: listen on 127.0.0.1:") != NULL);
	CHECK_EQ(fab_topo_parse(&topo, "switch a 2\nremote a:1 connect 1.2.3:4\n",
				err, sizeof(err)), -1);
	CHECK(strstr(err, "not A.B.C.D:PORT") != NULL);
	if (!tx_.n_sw || !ty_.n_sw)
		return;
	/* the remote port is no CA's: A goes to port 2 */
	CHECK_EQ(fab_topo_attach(&tx_, GUID(1), GUID(1) + 1, &s), SM_PORT);
	fab_sw_link(tx_.sw[0], SM_PORT, true);
	CHECK(fab_sw_pop(tx_.sw[0], SM_PORT, msg));	/* A's LINK_UP */
	/* the connection made: both ends up in INIT, nobody retrained */
	CHECK(pump(5000, both_init));
	CHECK_EQ(tx_.isl_retrains + ty_.isl_retrains, 0);
	/* A's SM asks y1, one hop past x1 and the TCP link */
	CHECK_EQ(sm_dr_x(1, 0x0011, 0, ROUTE(to_y1), NULL), 0);
	CHECK_EQ(get_be(resp + DATA + 12, 8), 0x00ca7a0000f0b000ULL);
	CHECK_EQ(resp[DATA + 36], 1);
	CHECK_EQ(ty_.isl_pkts, 1);
	CHECK_EQ(tx_.isl_pkts, 1);
	/* both ends ACTIVE, then the SM takes x1's DOWN: y1's retrains too */
	for (state = 3; state <= 4; state++) {
		remote_state(ROUTE(to_y1), 1, state);
		remote_state(ROUTE(to_x1), 1, state);
	}
	CHECK_EQ(ty_.sw[0]->node.port[1].state, ORCA_MAD_PORT_ACTIVE);
	remote_state(ROUTE(to_x1), 1, 1);
	CHECK(pump(5000, both_init));
	CHECK_EQ(ty_.isl_retrains, 1);
	/* pulled at x1 (the control socket's link down): both ends DOWN */
	CHECK_EQ(fab_topo_link(&tx_, "x1:1", false, err, sizeof(err)), 0);
	CHECK(pump(5000, both_down));
	/* y1 keeps trying; x1 does not listen while pulled */
	pump(600, NULL);
	CHECK(both_down());
	CHECK_EQ(fab_topo_link(&tx_, "x1:1", true, err, sizeof(err)), 0);
	CHECK(pump(5000, both_init));
	/* a frame no fabric sends ends the connection, not the fabric */
	CHECK_EQ(fab_topo_link(&ty_, "y1:1", false, err, sizeof(err)), 0);
	CHECK(pump(5000, both_down));
	fd = socket(AF_INET, SOCK_STREAM, 0);
	{
		struct sockaddr_in sa = { .sin_family = AF_INET,
					  .sin_port = htons(tcp) };

		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		CHECK_EQ(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	}
	pump(300, NULL);
	CHECK_EQ(tx_.sw[0]->node.port[1].state, ORCA_MAD_PORT_INIT);
	CHECK_EQ(write(fd, "\xff\xff\xff\xff", 4), 4);
	pump(300, NULL);
	CHECK_EQ(tx_.remote[0].bad_frames, 1);
	CHECK_EQ(tx_.sw[0]->node.port[1].state, ORCA_MAD_PORT_DOWN);
	close(fd);
	fab_topo_free(&tx_);
	fab_topo_free(&ty_);
}

/*
 * The faults of a link to another fabric, at its sending end: packets
 * lost (every one, then about half), frames held for a delay (the reply
 * of a DR SMP across comes no sooner), LINK_UP messages never lost.
 */
static void remote_faults(void)
{
	static const uint8_t to_y1[] = { 1, 1 };
	struct fab_remote *rx = &tx_.remote[0];
	char x[256], y[256], err[128];
	unsigned int s, i, tcp = free_tcp_port();
	uint64_t out0, sends0, t0, ms;

	remote_files(x, y, sizeof(x), tcp);
	CHECK_EQ(fab_topo_parse(&tx_, x, err, sizeof(err)), 0);
	CHECK_EQ(fab_topo_parse(&ty_, y, err, sizeof(err)), 0);
	if (!tx_.n_sw || !ty_.n_sw)
		return;
	CHECK_EQ(fab_topo_attach(&tx_, GUID(1), GUID(1) + 1, &s), SM_PORT);
	fab_sw_link(tx_.sw[0], SM_PORT, true);
	CHECK(fab_sw_pop(tx_.sw[0], SM_PORT, msg));
	CHECK(pump(5000, both_init));

	/* only links to other fabrics, only in range */
	CHECK_EQ(fab_topo_link_faults(&tx_, "x1:2", 0, 0, err, sizeof(err)), -1);
	CHECK(strstr(err, "x1:2 is no inter-switch link") != NULL);
	CHECK_EQ(fab_topo_link_faults(&tx_, "x1:1", 1000001, 0, err,
				      sizeof(err)), -1);
	CHECK_EQ(fab_topo_link_faults(&tx_, "x1:1", 0, FAB_FAULT_MAX_DELAY_US + 1,
				      err, sizeof(err)), -1);

	/* all lost: the SMP never reaches y1, and is counted */
	CHECK_EQ(fab_topo_link_faults(&tx_, "x1:1", 1000000, 0, err,
				      sizeof(err)), 0);
	out0 = rx->frames_out;
	dr_smp_data(1, 0x0011, 0, ROUTE(to_y1), NULL);
	smp_wire();
	fab_sw_input(tx_.sw[0], SM_PORT, wire, wire_len);
	CHECK(!pump(300, reply_at_a));
	CHECK_EQ(rx->fault.drops, 1);
	CHECK_EQ(rx->frames_out, out0);
	CHECK_EQ(ty_.isl_pkts, 0);

	/* half lost: of 200, some of each, and every one accounted */
	CHECK_EQ(fab_topo_link_faults(&tx_, "x1:1", 500000, 0, err,
				      sizeof(err)), 0);
	for (i = 0; i < 200; i++) {
		fab_sw_input(tx_.sw[0], SM_PORT, wire, wire_len);
		fab_topo_carry(&tx_, 100000);
	}
	pump(300, NULL);
	CHECK(rx->fault.drops - 1 >= 50 && rx->fault.drops - 1 <= 150);
	CHECK_EQ(rx->fault.drops - 1 + rx->frames_out - out0, 200);
	CHECK_EQ(ty_.isl_pkts, rx->frames_out - out0);
	while (fab_sw_pop(tx_.sw[0], SM_PORT, msg))
		;

	/* no loss, 300 ms late: the reply comes, no sooner */
	CHECK_EQ(fab_topo_link_faults(&tx_, "x1:1", 0, 300000, err,
				      sizeof(err)), 0);
	t0 = now_ms_();
	CHECK_EQ(sm_dr_x(1, 0x0011, 0, ROUTE(to_y1), NULL), 0);
	ms = now_ms_() - t0;
	CHECK(ms >= 300);
	CHECK_EQ(get_be(resp + DATA + 12, 8), 0x00ca7a0000f0b000ULL);
	CHECK_EQ(rx->fault.delayed, 1);
	CHECK(!fab_topo_holding(&tx_));
	/* and none again */
	CHECK_EQ(fab_topo_link_faults(&tx_, "x1:1", 0, 0, err, sizeof(err)), 0);
	CHECK_EQ(sm_dr_x(1, 0x0011, 0, ROUTE(to_y1), NULL), 0);
	CHECK_EQ(rx->fault.delayed, 1);
	/*
	 * a pass's frames (as many SMPs as the VL15 queue holds) go in one
	 * send(), not one a frame
	 */
	out0 = rx->frames_out;
	sends0 = rx->sends;
	for (i = 0; i < FAB_SW_VL15_QUEUE; i++)
		fab_sw_input(tx_.sw[0], SM_PORT, wire, wire_len);
	fab_topo_carry(&tx_, 100000);
	CHECK_EQ(rx->frames_out - out0, FAB_SW_VL15_QUEUE);
	CHECK(rx->sends - sends0 >= 1 && rx->sends - sends0 <= 2);
	printf("# %u frames to the other fabric in %llu send()s\n",
	       FAB_SW_VL15_QUEUE, (unsigned long long)(rx->sends - sends0));
	pump(300, NULL);
	while (fab_sw_pop(tx_.sw[0], SM_PORT, msg))
		;
	fab_topo_free(&tx_);
	fab_topo_free(&ty_);
}

/* ---- orca-fabric --topology ---- */

static const char *fab_bin, *emu_bin;
static bool verbose;
static char dir[64], sock_path[96], ctl_path[96];

/* orca-fabric's exit status with these options; its output into @out. */
static int fabric_exit(const char *topofile, const char *extra, char *out,
		       size_t len)
{
	char cmd[512];
	FILE *p;
	size_t n;
	int st;

	snprintf(cmd, sizeof(cmd),
		 "%s --socket %s/x.sock --sm none --topology %s %s 2>&1 </dev/null",
		 fab_bin, dir, topofile, extra);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static const char *ctl(const char *req)
{
	return ctl_line(ctl_path, req);
}

/*
 * A's NodeInfo request by directed route @path over its connection @fd
 * to the fabric process; true with the reply decoded into pout.
 */
static bool sock_node_info(int fd, uint8_t hops, const uint8_t *path)
{
	const struct orca_fab_hdr h = {
		.type = ORCA_FAB_PKT, .version = ORCA_FAB_VERSION,
	};
	ssize_t n;

	dr_smp(1, 0x0011, 0, hops, path);
	smp_wire();
	memcpy(msg, &h, sizeof(h));
	memcpy(msg + sizeof(h), wire, wire_len);
	CHECK_EQ(send(fd, msg, sizeof(h) + wire_len, 0),
		 (ssize_t)(sizeof(h) + wire_len));
	n = recv_msg(fd, msg, sizeof(msg));
	CHECK(n > (ssize_t)sizeof(h));
	if (n <= (ssize_t)sizeof(h))
		return false;
	CHECK_EQ(orca_pkt_decode(msg + sizeof(h), n - sizeof(h), &pout),
		 ORCA_PKT_OK);
	CHECK_EQ(get_be(pout.payload + 8, 8), tid);
	return true;
}

static void fabric_process(void)
{
	char path[128], out[512];
	int a = -1, b = -1, status, i;
	pid_t pid;

	snprintf(dir, sizeof(dir), "/tmp/orca-topo.XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	/* a topology it refuses: exit 2, the line and what is wrong */
	snprintf(path, sizeof(path), "%s/bad.topo", dir);
	write_file(path, "switch a 8\nlink a:1 a:2\n");
	CHECK_EQ(fabric_exit(path, "", out, sizeof(out)), 2);
	CHECK(strstr(out, "line 2: a link from switch a to itself") != NULL);
	CHECK_EQ(fabric_exit("/nonexistent.topo", "", out, sizeof(out)), 2);
	CHECK(strstr(out, "No such file") != NULL);
	/* not with the one switch's options */
	snprintf(path, sizeof(path), "%s/chain.topo", dir);
	write_file(path, chain);
	CHECK_EQ(fabric_exit(path, "--ports 4", out, sizeof(out)), 2);
	CHECK(strstr(out, "--topology goes with --sm none") != NULL);

	/* the chain, and two emulators' connections */
	snprintf(sock_path, sizeof(sock_path), "%s/fabric.sock", dir);
	snprintf(ctl_path, sizeof(ctl_path), "%s/fabric.ctl", dir);
	pid = fork();
	if (pid < 0)
		return;
	if (!pid) {
		execl(fab_bin, "orca-fabric", "--socket", sock_path, "--ctl",
		      ctl_path, "--sm", "none", "--topology", path,
		      (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 10000 && !*ctl("ping"); i++)
		usleep(1000);
	CHECK(strstr(ctl("ping"), "switches=3") != NULL);
	CHECK(strstr(ctl("stats s3"), "switch=s3 switches=3 links=2") != NULL);
	CHECK(strstr(ctl("stats s9"), "error no switch 's9'") != NULL);
	CHECK_EQ(fab_hello(sock_path, &a, GUID(1), GUID(1) + 1), SM_PORT);	/* s1: port 1 is the ISL */
	CHECK_EQ(fab_hello(sock_path, &b, GUID(2), GUID(2) + 1), 3);	/* pinned: s3 port 3 */
	CHECK(strstr(ctl("stats s3"), " p3_guid=0x00ca7afffe000002 ") != NULL);
	/* A asks s3 for its NodeInfo, three hops away */
	if (sock_node_info(a, ROUTE(to_s3))) {
		CHECK_EQ(get_be(pout.payload + DATA + 12, 8), SW_GUID(2));
		CHECK_EQ(pout.payload[DATA + 36], 1);
	}
	CHECK(strstr(ctl("stats"), " isl_pkts=4 ") != NULL);
	CHECK(strstr(ctl("link s2:2 down"), "ok link s2:2 down") != NULL);
	CHECK(strstr(ctl("stats s3"), " p1_state=down ") != NULL);
	CHECK(strstr(ctl("link s2:2 up"), "ok link s2:2 up") != NULL);
	CHECK(strstr(ctl("stats s3"), " p1_state=init ") != NULL);
	CHECK(strstr(ctl("link s1:2 down"), "error s1:2 is no inter-switch link") != NULL);
	CHECK(strstr(ctl("link s1:1 sideways"), "error link SWITCH:PORT up|down") != NULL);
	close(a);
	close(b);
	kill(pid, SIGTERM);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(access(sock_path, F_OK) && access(ctl_path, F_OK));
	unlink(path);
	snprintf(path, sizeof(path), "%s/bad.topo", dir);
	unlink(path);
	rmdir(dir);
}

/*
 * An orca-emu with no QEMU (vm2.sh --guestless): cabled into s2, it
 * answers a directed-route NodeInfo from A through s1 and s2 with its
 * own GUIDs, as a CA whose firmware holds the SMA.
 */
static void guestless_port(void)
{
	char topo_path[128], emu_sock[128], guid[32], fabric[128];
	static const uint8_t to_ca[] = { 1, 3 };	/* s1, then its port 3 */
	pid_t fpid, epid;
	int a = -1, i, status;

	snprintf(dir, sizeof(dir), "/tmp/orca-topo.XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(topo_path, sizeof(topo_path), "%s/chain.topo", dir);
	write_file(topo_path, chain);
	snprintf(sock_path, sizeof(sock_path), "%s/fabric.sock", dir);
	snprintf(ctl_path, sizeof(ctl_path), "%s/fabric.ctl", dir);
	snprintf(emu_sock, sizeof(emu_sock), "%s/emu.sock", dir);
	snprintf(fabric, sizeof(fabric), "fabric=%s", sock_path);
	snprintf(guid, sizeof(guid), "node_guid=0x%016llx",
		 (unsigned long long)GUID(0x100));
	fpid = fork();
	if (!fpid) {
		execl(fab_bin, "orca-fabric", "--socket", sock_path, "--ctl",
		      ctl_path, "--sm", "none", "--topology", topo_path,
		      (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 10000 && !*ctl("ping"); i++)
		usleep(1000);
	/* A first, into s1 port 2; then the emulator, s1's next free: 3 */
	CHECK_EQ(fab_hello(sock_path, &a, GUID(1), GUID(1) + 1), SM_PORT);
	epid = fork();
	if (!epid) {
		execl(emu_bin, "orca-emu", "--socket", emu_sock, "--ram",
		      "/nonexistent", "--set", fabric, "--set", guid,
		      "--set", "port_pin=all", "--log",
		      verbose ? "/dev/stderr" : "/dev/null", (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 10000 && !strstr(ctl("stats"), " p3_state=init "); i++)
		usleep(1000);
	CHECK(strstr(ctl("stats"), " p3_state=init ") != NULL);
	/* A asks it: out of s1 port 3 */
	if (sock_node_info(a, ROUTE(to_ca))) {
		CHECK_EQ(pout.payload[DATA + 2], 1);		/* a CA */
		CHECK_EQ(get_be(pout.payload + DATA + 12, 8), GUID(0x100));
		CHECK_EQ(get_be(pout.payload + DATA + 20, 8), GUID(0x101));
	}
	close(a);
	kill(epid, SIGTERM);
	CHECK_EQ(waitpid(epid, &status, 0), epid);
	kill(fpid, SIGTERM);
	CHECK_EQ(waitpid(fpid, &status, 0), fpid);
	unlink(topo_path);
	unlink(emu_sock);
	rmdir(dir);
}

/*
 * More CA ports than the 1024 descriptors a shell often allows and than
 * the 64 connections the fabric once held: two switches of 64 ports
 * (ORCA_MAD_MAX_PORTS), 126 CA ports, the fabric started with a soft
 * RLIMIT_NOFILE of 64 which it raises itself.  Then with a hard limit of
 * 80: the ports past what that leaves room for (80 less FAB_FD_RESERVE,
 * 32) are refused, and the process goes on answering.
 */
static pid_t fabric_limited(const char *topo_path, rlim_t soft, rlim_t hard)
{
	pid_t pid = fork();
	struct rlimit r = { .rlim_cur = soft, .rlim_max = hard };
	int i;

	if (!pid) {
		if (setrlimit(RLIMIT_NOFILE, &r))
			_exit(126);
		execl(fab_bin, "orca-fabric", "--socket", sock_path, "--ctl",
		      ctl_path, "--sm", "none", "--topology", topo_path,
		      (char *)NULL);
		_exit(127);
	}
	for (i = 0; pid > 0 && i < 10000 && !*ctl("ping"); i++)
		usleep(1000);
	return pid;
}

static void many_ports(void)
{
	enum { N = 126, ROOM = 80 - 32 };
	static int fd[N];
	char topo_path[128], want[64];
	int i, port, got, status;
	pid_t pid;

	snprintf(dir, sizeof(dir), "/tmp/orca-topo.XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(topo_path, sizeof(topo_path), "%s/two.topo", dir);
	write_file(topo_path, "switch a 64\nswitch b 64\nlink a:64 b:64\n");
	snprintf(sock_path, sizeof(sock_path), "%s/fabric.sock", dir);
	snprintf(ctl_path, sizeof(ctl_path), "%s/fabric.ctl", dir);

	pid = fabric_limited(topo_path, 64, 4096);
	CHECK(pid > 0);
	for (i = 0, got = 0; i < N; i++) {
		port = fab_hello(sock_path, &fd[i], GUID(0x1000 + i), GUID(0x1000 + i) - 1);
		/* a's ports 1..63, then b's */
		got += port == (i < 63 ? i + 1 : i - 62);
	}
	CHECK_EQ(got, N);
	CHECK(strstr(ctl("stats"), " ports=126 ") != NULL);
	snprintf(want, sizeof(want), " p63_guid=0x%016llx ",
		 (unsigned long long)GUID(0x1000 + N - 1));
	CHECK(strstr(ctl("stats b"), want) != NULL);
	for (i = 0; i < N; i++)
		close(fd[i]);
	kill(pid, SIGTERM);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	pid = fabric_limited(topo_path, 80, 80);
	CHECK(pid > 0);
	for (i = 0, got = 0; i < ROOM + 10; i++)
		got += fab_hello(sock_path, &fd[i], GUID(0x1000 + i), GUID(0x1000 + i) - 1) > 0;
	CHECK_EQ(got, ROOM);
	snprintf(want, sizeof(want), " ports=%d ", ROOM);
	CHECK(strstr(ctl("stats"), want) != NULL);
	for (i = 0; i < ROOM + 10; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	kill(pid, SIGTERM);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	unlink(topo_path);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	verbose = argc > 1 && !strcmp(argv[1], "-v");
	if (argc > 1 + verbose)
		fab_bin = argv[1 + verbose];
	if (argc > 2 + verbose)
		emu_bin = argv[2 + verbose];
	orca_log_set_quiet(!verbose);
	RUN(parse_errors);
	RUN(cabling);
	RUN(dr_hops);
	RUN(dr_dead_end);
	RUN(program);
	RUN(lid_routed);
	RUN(retrain);
	RUN(link_pulled);
	RUN(carry_budget);
	RUN(isl_faults);
	RUN(remote_link);
	RUN(remote_faults);
	fab_topo_free(&topo);
	if (fab_bin) {
		RUN(fabric_process);
		RUN(many_ports);
	}
	if (fab_bin && emu_bin)
		RUN(guestless_port);
	return tap_done();
}
