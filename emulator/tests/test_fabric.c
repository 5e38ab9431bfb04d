// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The fabric: packets as IBTA bytes (orca_pkt.c) and back, then two
 * devices on a real orca-fabric (started from @ORCA_FABRIC, the path
 * the Makefile passes): LIDs from the SM, the port's states and events,
 * every transport and operation between the two, RC through a lossy
 * link, a peer that leaves, a peer that sends garbage.
 *
 * With the path of orca-emu too, two orca-emu processes on the fabric:
 * the connection from their poll loop, before and after the fabric is
 * there, LIDs in their stats, port-down / port-up through their control
 * sockets.
 *
 * usage: orca-emu-fabric-tests [-v] PATH/TO/orca-fabric [PATH/TO/orca-emu]
 */
#include "fabric_fixture.h"

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A packet of @opcode with every field its headers have set at random. */
static void random_pkt(struct orca_pkt *p, uint8_t opcode, bool grh,
		       uint32_t paylen)
{
	uint32_t hdrs, i;
	bool payload;

	memset(p, 0, sizeof(*p));
	CHECK(orca_pkt_opcode_hdrs(opcode, &hdrs, &payload));
	p->opcode = opcode;
	p->hdrs = hdrs | (grh ? PKT_GRH : 0);
	p->dlid = rnd();
	p->slid = rnd();
	p->sl = rnd() & 0xf;
	if (grh) {
		for (i = 0; i < 16; i++) {
			p->sgid[i] = rnd();
			p->dgid[i] = rnd();
		}
	}
	p->se = rnd() & 1;
	p->ackreq = rnd() & 1;
	p->pkey = rnd();
	p->dqpn = rnd() & 0xffffff;
	p->psn = rnd() & 0xffffff;
	if (hdrs & PKT_DETH) {
		p->qkey = rnd();
		p->sqpn = rnd() & 0xffffff;
	}
	if (hdrs & (PKT_RETH | PKT_ATOMIC)) {
		p->va = rnd();
		p->rkey = rnd();
	}
	if (hdrs & PKT_RETH)
		p->dmalen = rnd();
	if (hdrs & PKT_ATOMIC) {
		p->swap_add = rnd();
		p->compare = rnd();
	}
	if (hdrs & PKT_AETH) {
		p->syndrome = rnd();
		p->msn = rnd() & 0xffffff;
	}
	if (hdrs & PKT_ATOMIC_ACK)
		p->orig = rnd();
	if (hdrs & PKT_IMM)
		p->imm = rnd();
	if (hdrs & PKT_IETH)
		p->inv_rkey = rnd();
	p->paylen = payload ? paylen : 0;
	for (i = 0; i < p->paylen; i++)
		p->payload[i] = rnd();
}

static bool pkt_same(const struct orca_pkt *a, const struct orca_pkt *b)
{
	return !memcmp(a, b, offsetof(struct orca_pkt, payload)) &&
	       !memcmp(a->payload, b->payload, a->paylen);
}

static const uint8_t transports[] = { IB_RC, IB_UC, IB_UD };
static const uint32_t paylens[] = { 0, 1, 2, 3, 4, 5, 255, 256, 1024,
				    4095, ORCA_MAX_PMTU };

/* Every opcode of every transport, with and without a GRH, round trips. */
static void pkt_round_trip(void)
{
	static struct orca_pkt a, b;
	static uint8_t wire[ORCA_PKT_WIRE_MAX];
	unsigned int t, op, g, l, n = 0, known = 0;
	uint32_t hdrs;
	bool payload;
	size_t len;

	for (t = 0; t < ARRAY_SIZE(transports); t++) {
		for (op = 0; op < 32; op++) {
			uint8_t opcode = transports[t] | op;

			if (!orca_pkt_opcode_hdrs(opcode, &hdrs, &payload))
				continue;
			known++;
			for (g = 0; g < 2; g++) {
				for (l = 0; l < ARRAY_SIZE(paylens); l++) {
					if (!payload && paylens[l])
						break;
					random_pkt(&a, opcode, g, paylens[l]);
					len = orca_pkt_encode(&a, wire);
					CHECK(len);
					CHECK_EQ(len % 4, 0);
					CHECK(len <= ORCA_PKT_WIRE_MAX);
					CHECK_EQ(orca_pkt_decode(wire, len, &b),
						 ORCA_PKT_OK);
					CHECK(pkt_same(&a, &b));
					n++;
				}
			}
		}
	}
	/* RC 0x00-0x14, 0x16, 0x17; UC 0x00-0x0b; UD 0x04, 0x05 */
	CHECK_EQ(known, 23 + 12 + 2);
	printf("# %u opcodes, %u packets round-tripped\n", known, n);
}

/* The exact bytes of one packet, against the IBTA layout. */
static void pkt_layout(void)
{
	static struct orca_pkt a;
	static uint8_t w[ORCA_PKT_WIRE_MAX];
	size_t len;

	memset(&a, 0, sizeof(a));
	a.opcode = IB_RC | IB_WRITE_ONLY_IMM;
	a.hdrs = PKT_RETH | PKT_IMM;
	a.dlid = 0x1234;
	a.slid = 0x0002;
	a.sl = 3;
	a.se = true;
	a.ackreq = true;
	a.pkey = 0xffff;
	a.dqpn = 0xabcdef;
	a.psn = 0x123456;
	a.va = 0x1122334455667788ULL;
	a.rkey = 0xdeadbeef;
	a.dmalen = 5;
	memcpy(&a.imm, "\x01\x02\x03\x04", 4);
	a.paylen = 5;
	memcpy(a.payload, "hello", 5);
	len = orca_pkt_encode(&a, w);
	/* 8 + 12 + 16 + 4 + 5 + 3 pad + 4 */
	CHECK_EQ(len, 52);
	CHECK_EQ(w[0], 0x00);			/* VL 0, LVer 0 */
	CHECK_EQ(w[1], 0x32);			/* SL 3, LNH local */
	CHECK_EQ(w[2] << 8 | w[3], 0x1234);	/* DLID */
	CHECK_EQ(w[4] << 8 | w[5], 13);		/* PktLen, words */
	CHECK_EQ(w[6] << 8 | w[7], 2);		/* SLID */
	CHECK_EQ(w[8], 0x0b);			/* RC WRITE_ONLY_IMM */
	CHECK_EQ(w[9], 0x80 | 0x40 | 3 << 4);	/* SE, M, PadCnt 3 */
	CHECK_EQ(w[10] << 8 | w[11], 0xffff);	/* P_Key */
	CHECK_EQ(w[13] << 16 | w[14] << 8 | w[15], 0xabcdef);
	CHECK_EQ(w[16], 0x80);			/* AckReq */
	CHECK_EQ(w[17] << 16 | w[18] << 8 | w[19], 0x123456);
	CHECK_EQ(w[20], 0x11);			/* RETH VA, big-endian */
	CHECK_EQ(w[27], 0x88);
	CHECK_EQ(w[28], 0xde);			/* R_Key */
	CHECK_EQ(w[35], 5);			/* DMA length */
	CHECK(!memcmp(w + 36, "\x01\x02\x03\x04", 4));	/* ImmDt */
	CHECK(!memcmp(w + 40, "hello\0\0\0", 8));
	/* the ICRC is over everything before it */
	CHECK_EQ(w[48] | w[49] << 8 | w[50] << 16 | (uint32_t)w[51] << 24,
		 orca_pkt_icrc(w, 48));
}

/* Rewrite the ICRC after a deliberate change. */
static void refresh_icrc(uint8_t *w, size_t len)
{
	uint32_t c = htole32(orca_pkt_icrc(w, len - 4));

	memcpy(w + len - 4, &c, 4);
}

/*
 * Is bit @bit of byte @i a field the ICRC leaves out (IBTA 7.8.1) and
 * the decoder does not check on its own?
 */
static bool variant_bit(const uint8_t *w, size_t i, unsigned int bit)
{
	bool grh = (w[1] & 3) == 3;
	size_t bth = grh ? 48 : 8;

	if (i == 0 && bit >= 4)
		return true;			/* VL */
	/* a global packet's LRH but LVer, LNH and PktLen */
	if (grh && i < 8 && i != 0 && !(i == 1 && bit < 2) &&
	    !(i == 4 && bit < 3) && i != 5)
		return true;
	if (grh && i == 8 && bit < 4)
		return true;			/* TClass high nibble */
	if (grh && (i == 9 || i == 10 || i == 11 || i == 15))
		return true;		/* TClass, FlowLabel, HopLmt */
	return i == bth + 4;			/* BTH resv8 */
}

/*
 * Any single bit flipped outside the variant fields, any truncation and
 * any extension is refused; variant fields may change.
 */
static void pkt_corrupt(void)
{
	static struct orca_pkt a, b;
	static uint8_t w[ORCA_PKT_WIRE_MAX], c[ORCA_PKT_WIRE_MAX + 8];
	unsigned int g, bit, refused = 0, tries = 0;
	size_t len, i;

	for (g = 0; g < 2; g++) {
		random_pkt(&a, IB_RC | IB_SEND_ONLY_IMM, g, 37);
		len = orca_pkt_encode(&a, w);
		for (i = 0; i < len; i++) {
			for (bit = 0; bit < 8; bit++) {
				memcpy(c, w, len);
				c[i] ^= 1U << bit;
				tries++;
				if (variant_bit(w, i, bit)) {
					CHECK_EQ(orca_pkt_decode(c, len, &b),
						 ORCA_PKT_OK);
					continue;
				}
				CHECK(orca_pkt_decode(c, len, &b) !=
				      ORCA_PKT_OK);
				refused++;
			}
		}
		for (i = 0; i < len; i++)
			CHECK(orca_pkt_decode(w, i, &b) != ORCA_PKT_OK);
		memcpy(c, w, len);
		memset(c + len, 0, 8);
		CHECK(orca_pkt_decode(c, len + 4, &b) != ORCA_PKT_OK);
		CHECK(orca_pkt_decode(c, len + 8, &b) != ORCA_PKT_OK);
		/* a corrupted ICRC alone */
		memcpy(c, w, len);
		c[len - 1] ^= 0x40;
		CHECK_EQ(orca_pkt_decode(c, len, &b), ORCA_PKT_E_ICRC);
	}
	/*
	 * Local: VL and resv8.  Global: the LRH's 47 bits but LVer, LNH and
	 * PktLen, TClass, FlowLabel, HopLmt and resv8.
	 */
	CHECK_EQ(tries - refused, 12 + 47 + 36 + 8);
	printf("# %u single-bit changes, %u refused\n", tries, refused);
}

/*
 * Malformed packets with a correct ICRC: what the decoder refuses on its
 * own, whatever the sender computed.
 */
static void pkt_malformed(void)
{
	static struct orca_pkt a, b;
	static uint8_t w[ORCA_PKT_WIRE_MAX];
	static const uint8_t bad_ops[] = {
		IB_RC | 0x15, IB_RC | 0x18, IB_RC | 0x1f, IB_UC | 0x0c,
		IB_UC | IB_SEND_ONLY_INV, IB_UD | IB_SEND_FIRST,
		IB_UD | IB_ACK, 0x40, 0x80, 0xa0, 0xe0,
	};
	size_t len, i;

	for (i = 0; i < ARRAY_SIZE(bad_ops); i++) {
		random_pkt(&a, IB_RC | IB_SEND_ONLY, false, 8);
		len = orca_pkt_encode(&a, w);
		w[8] = bad_ops[i];
		refresh_icrc(w, len);
		CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_OPCODE);
	}
	/* LNH 0 and 1 (raw packets) */
	random_pkt(&a, IB_RC | IB_SEND_ONLY, false, 8);
	len = orca_pkt_encode(&a, w);
	w[1] &= ~3;
	refresh_icrc(w, len);
	CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_LRH);
	/* LVer, TVer */
	len = orca_pkt_encode(&a, w);
	w[0] |= 1;
	refresh_icrc(w, len);
	CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_LRH);
	len = orca_pkt_encode(&a, w);
	w[9] |= 1;
	refresh_icrc(w, len);
	CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_BTH);
	/* PktLen that does not match the message */
	len = orca_pkt_encode(&a, w);
	w[5]++;
	refresh_icrc(w, len);
	CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_LEN);
	/* a payload on an ACK */
	random_pkt(&a, IB_RC | IB_SEND_ONLY, false, 8);
	len = orca_pkt_encode(&a, w);
	w[8] = IB_RC | IB_ACK;
	refresh_icrc(w, len);
	CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_PAYLOAD);
	/* an atomic request cut short by its own PktLen */
	random_pkt(&a, IB_RC | IB_SEND_ONLY, false, 8);
	len = orca_pkt_encode(&a, w);
	w[8] = IB_RC | IB_CMP_SWAP;
	refresh_icrc(w, len);
	CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_SHORT);
	/* PadCnt larger than what follows the headers */
	random_pkt(&a, IB_RC | IB_ACK, false, 0);
	len = orca_pkt_encode(&a, w);
	w[9] |= 3 << 4;
	refresh_icrc(w, len);
	CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_LEN);
	/* GRH: IPVer, NxtHdr, PayLen */
	random_pkt(&a, IB_UD | IB_SEND_ONLY, true, 8);
	len = orca_pkt_encode(&a, w);
	w[8] = 0x40;
	refresh_icrc(w, len);
	CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_GRH);
	len = orca_pkt_encode(&a, w);
	w[14] = 0x11;
	refresh_icrc(w, len);
	CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_GRH);
	len = orca_pkt_encode(&a, w);
	w[13]++;
	refresh_icrc(w, len);
	CHECK_EQ(orca_pkt_decode(w, len, &b), ORCA_PKT_E_LEN);
	/* a payload over 4096 bytes */
	random_pkt(&a, IB_RC | IB_SEND_ONLY, false, ORCA_MAX_PMTU);
	a.paylen = ORCA_MAX_PMTU + 4;
	CHECK_EQ(orca_pkt_encode(&a, w), 0);
	/* the encoder refuses headers the opcode does not have */
	random_pkt(&a, IB_RC | IB_SEND_ONLY, false, 8);
	a.hdrs |= PKT_RETH;
	CHECK_EQ(orca_pkt_encode(&a, w), 0);
	random_pkt(&a, IB_RC | IB_ACK, false, 0);
	a.paylen = 4;
	CHECK_EQ(orca_pkt_encode(&a, w), 0);
	for (i = 0; i <= ORCA_PKT_E_NR; i++)
		CHECK(orca_pkt_strerror(i) != NULL);
}

/* ------------------------------------------------------------------ */
/* Two devices on a real orca-fabric (fabric_fixture.h)               */
/* ------------------------------------------------------------------ */

static const char *emu_bin;

/*
 * LIDs from the SM: none and DOWN before it answers, distinct ones and
 * ACTIVE with a PORT_EVENT after; the same LID after port-down / up and
 * after the fabric restarts; never ACTIVE with LID 0.
 */
static void fabric_lids(void)
{
	struct orca_port_attr pa, pb;
	char reply[4096], key[32];
	uint16_t la, lb;
	struct fx *a, *b;
	char err[64];

	CHECK(fabric_start());
	a = fab_dev_cfg(GUID_A, NULL, true);
	b = fab_dev_cfg(GUID_B, NULL, false);
	bad_active = false;
	pa = port_of(a);
	CHECK_EQ(pa.state, ORCA_PORT_DOWN);
	CHECK_EQ(le16toh(pa.lid), 0);
	CHECK_EQ(le16toh(pa.sm_lid), 0);
	CHECK_EQ(port_events(a, ORCA_PORT_EV_ACTIVE), 0);
	CHECK(wait_port(a, b, ORCA_PORT_ACTIVE));
	pa = port_of(a);
	pb = port_of(b);
	la = le16toh(pa.lid);
	lb = le16toh(pb.lid);
	printf("# LIDs 0x%x and 0x%x, SM LID 0x%x\n", la, lb,
	       le16toh(pa.sm_lid));
	CHECK(la >= ORCA_FAB_FIRST_LID && lb >= ORCA_FAB_FIRST_LID);
	CHECK(la != lb);
	CHECK_EQ(le16toh(pa.sm_lid), ORCA_FAB_SM_LID);
	CHECK_EQ(le16toh(pb.sm_lid), ORCA_FAB_SM_LID);
	CHECK_EQ(port_events(a, ORCA_PORT_EV_ACTIVE), 1);
	CHECK_EQ(port_events(b, ORCA_PORT_EV_ACTIVE), 1);
	CHECK_EQ(dev_stat(a, "fabric_lid"), la);
	CHECK_EQ(dev_stat(a, "fabric_links"), 1);
	CHECK(fabric_ctl("stats", reply, sizeof(reply)));
	CHECK_EQ(stat_of(reply, "ports"), 2);
	snprintf(key, sizeof(key), "lid%u_guid", la);
	CHECK_EQ((unsigned long long)stat_of(reply, key), GUID_A + 1);
	CHECK(fabric_ctl("ping", reply, sizeof(reply)));
	CHECK(!fabric_ctl("bogus", reply, sizeof(reply)));

	/* port-down: off the fabric at once, the same LID when back */
	CHECK_EQ(orca_dev_hook_port(&b->dev, false, err, sizeof(err)), 0);
	CHECK_EQ(port_of(b).state, ORCA_PORT_DOWN);
	CHECK_EQ(port_events(b, ORCA_PORT_EV_DOWN), 1);
	snprintf(key, sizeof(key), "lid%u_state=down", lb);
	CHECK(pump_until(a, b, fabric_ctl("stats", reply, sizeof(reply)) &&
			 strstr(reply, key)));
	/* a function reset does not bring it back */
	CHECK_EQ(fx_cmd(b, ORCA_CMD_RESET, NULL, 0, NULL, 0), 0);
	CHECK_EQ(port_of(b).state, ORCA_PORT_DOWN);
	fx_bringup_flags(b, ORCA_INIT_F_EQ_IRQ);
	CHECK_EQ(orca_dev_hook_port(&b->dev, true, err, sizeof(err)), 0);
	CHECK(wait_port(b, NULL, ORCA_PORT_ACTIVE));
	CHECK_EQ(lid_of(b), lb);
	CHECK_EQ(port_events(b, ORCA_PORT_EV_ACTIVE), 1);

	/* the fabric goes away: DOWN; it comes back: ACTIVE again */
	fabric_stop();
	CHECK(wait_port(a, b, ORCA_PORT_DOWN));
	CHECK_EQ(port_events(a, ORCA_PORT_EV_DOWN), 1);
	CHECK(fabric_start());
	CHECK(wait_port(a, b, ORCA_PORT_ACTIVE));
	CHECK_EQ(port_events(a, ORCA_PORT_EV_ACTIVE), 1);
	CHECK(lid_of(a) != lid_of(b));
	CHECK_EQ(dev_stat(a, "fabric_links"), 2);
	CHECK(!bad_active);
	fx_free(a);
	fx_free(b);
	fabric_stop();
}

/* SEND, SEND_WITH_IMM, WRITE, WRITE_WITH_IMM, READ, atomics over RC. */
static void fabric_rc_ops(void)
{
	struct side a = {}, b = {};
	uint8_t *sa, *sb;
	struct orca_cqe c, c2;
	uint64_t *word;
	char reply[4096], key[32];
	uint32_t imm = htobe32(0xfeedf00d);

	CHECK(pair_up(&a, &b, ORCA_QPT_RC, NULL));
	pair_connect_rc(&a, &b, 1);
	sa = gpa(a.f, a.buf);
	sb = gpa(b.f, b.buf);

	/* SEND, 20 packets */
	pattern(sa, MSG, 1);
	memset(sb, 0, MSG);
	post_recv(b.f, &b.qp, b.buf, 2 * PAGE, b.lk);
	post_send(a.f, &a.qp, ORCA_WR_SEND, a.buf, MSG, a.lk, 0, 0);
	CHECK(wait_cqe2(&a, &b, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(wait_cqe2(&b, &a, &c2));
	CHECK_EQ(c2.status, ORCA_CQE_SUCCESS);
	CHECK_EQ(le32toh(c2.byte_len), MSG);
	CHECK(!memcmp(sa, sb, MSG));

	/* SEND_WITH_IMM, the other way */
	pattern(sb, 300, 2);
	post_recv(a.f, &a.qp, a.buf + 2 * PAGE, PAGE, a.lk);
	put_send(b.f, &b.qp, ORCA_WR_SEND_WITH_IMM, b.buf, 300, b.lk, 0, 0);
	memcpy(&last_wqe(&b)->imm_data, &imm, 4);
	orca_dev_doorbell(&b.f->dev, ORCA_FW_VEC_DB);
	CHECK(wait_cqe2(&b, &a, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(wait_cqe2(&a, &b, &c2));
	CHECK_EQ(c2.status, ORCA_CQE_SUCCESS);
	CHECK(c2.flags & ORCA_CQE_F_IMM);
	CHECK(!memcmp(&c2.imm_data, &imm, 4));
	CHECK(!memcmp(sa + 2 * PAGE, sb, 300));

	/* RDMA WRITE, then WRITE_WITH_IMM into a receive */
	pattern(sa, MSG, 3);
	post_send(a.f, &a.qp, ORCA_WR_RDMA_WRITE, a.buf, MSG, a.lk,
		  iova(b.buf + PAGE), b.lk);
	CHECK(wait_cqe2(&a, &b, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK_EQ(c.opcode, ORCA_CQE_OP_RDMA_WRITE);
	CHECK(!memcmp(sa, sb + PAGE, MSG));
	post_recv(b.f, &b.qp, b.buf, PAGE, b.lk);
	put_send(a.f, &a.qp, ORCA_WR_RDMA_WRITE_WITH_IMM, a.buf + 100, 700,
		 a.lk, iova(b.buf + 3 * PAGE), b.lk);
	memcpy(&last_wqe(&a)->imm_data, &imm, 4);
	orca_dev_doorbell(&a.f->dev, ORCA_FW_VEC_DB);
	CHECK(wait_cqe2(&a, &b, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(wait_cqe2(&b, &a, &c2));
	CHECK_EQ(c2.status, ORCA_CQE_SUCCESS);
	CHECK(c2.flags & ORCA_CQE_F_IMM);
	CHECK(!memcmp(sa + 100, sb + 3 * PAGE, 700));

	/* RDMA READ of 20 packets */
	pattern(sb + PAGE, MSG, 4);
	memset(sa, 0, MSG);
	post_send(a.f, &a.qp, ORCA_WR_RDMA_READ, a.buf, MSG, a.lk,
		  iova(b.buf + PAGE), b.lk);
	CHECK(wait_cqe2(&a, &b, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK_EQ(c.opcode, ORCA_CQE_OP_RDMA_READ);
	CHECK(!memcmp(sa, sb + PAGE, MSG));

	/* FETCH_ADD then CMP_AND_SWP on a word of b */
	word = (uint64_t *)(sb + 3 * PAGE + 2048);
	*word = htole64(40);
	put_send(a.f, &a.qp, ORCA_WR_ATOMIC_FETCH_AND_ADD, a.buf, 8, a.lk,
		 iova(b.buf + 3 * PAGE + 2048), b.lk);
	last_wqe(&a)->compare_add = htole64(2);
	orca_dev_doorbell(&a.f->dev, ORCA_FW_VEC_DB);
	CHECK(wait_cqe2(&a, &b, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK_EQ(c.opcode, ORCA_CQE_OP_FETCH_ADD);
	CHECK_EQ(le64toh(*(uint64_t *)sa), 40);
	CHECK_EQ(le64toh(*word), 42);
	put_send(a.f, &a.qp, ORCA_WR_ATOMIC_CMP_AND_SWP, a.buf + 8, 8, a.lk,
		 iova(b.buf + 3 * PAGE + 2048), b.lk);
	last_wqe(&a)->compare_add = htole64(42);
	last_wqe(&a)->swap = htole64(0x1234567890ULL);
	orca_dev_doorbell(&a.f->dev, ORCA_FW_VEC_DB);
	CHECK(wait_cqe2(&a, &b, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK_EQ(c.opcode, ORCA_CQE_OP_COMP_SWAP);
	CHECK_EQ(le64toh(*(uint64_t *)(sa + 8)), 42);
	CHECK_EQ(le64toh(*word), 0x1234567890ULL);

	/* a remote access error crosses the fabric as a NAK */
	post_send(a.f, &a.qp, ORCA_WR_RDMA_WRITE, a.buf, 64, a.lk,
		  iova(b.buf), b.lk ^ 0x100);
	CHECK(wait_cqe2(&a, &b, &c));
	CHECK_EQ(c.status, ORCA_CQE_REM_ACCESS_ERR);

	printf("# a: fabric tx %lld rx %lld pkts; b: tx %lld rx %lld\n",
	       dev_stat(a.f, "fabric_tx_pkts"), dev_stat(a.f, "fabric_rx_pkts"),
	       dev_stat(b.f, "fabric_tx_pkts"), dev_stat(b.f, "fabric_rx_pkts"));
	CHECK(dev_stat(a.f, "fabric_tx_pkts") > 40);
	CHECK(dev_stat(b.f, "fabric_rx_pkts") > 40);
	CHECK_EQ(dev_stat(a.f, "fabric_decode_drops"), 0);
	CHECK_EQ(dev_stat(b.f, "fabric_decode_drops"), 0);
	CHECK_EQ(dev_stat(a.f, "fabric_queue_drops"), 0);
	CHECK(fabric_ctl("stats", reply, sizeof(reply)));
	snprintf(key, sizeof(key), "lid%u_in", lid_of(a.f));
	CHECK_EQ(stat_of(reply, key), dev_stat(a.f, "fabric_tx_pkts"));
	snprintf(key, sizeof(key), "lid%u_dropped", lid_of(a.f));
	CHECK_EQ(stat_of(reply, key), 0);
	pair_down(&a, &b);
}

/* UD and UC QPs: RTS with a Q_Key (UD) or a path (UC). */
static void ud_rts(struct fx *f, struct ring_qp *q)
{
	static const uint8_t st[] = { ORCA_QPS_INIT, ORCA_QPS_RTR,
				      ORCA_QPS_RTS };
	struct orca_modify_qp_in mi;
	struct orca_qp_ctx ctx;
	unsigned int k;

	for (k = 0; k < 3; k++) {
		memset(&mi, 0, sizeof(mi));
		mi.qpn = htole32(q->qpn);
		mi.attr_mask = htole32(ORCA_QP_STATE |
			(k == 0 ? ORCA_QP_PKEY_INDEX | ORCA_QP_PORT |
				  ORCA_QP_QKEY : 0) |
			(k == 2 ? ORCA_QP_SQ_PSN : 0));
		mi.ctx.state = st[k];
		mi.ctx.port = 1;
		mi.ctx.qkey = htole32(0x1234);
		CHECK_EQ(fx_cmd(f, ORCA_CMD_MODIFY_QP, &mi, sizeof(mi), &ctx,
				sizeof(ctx)), 0);
	}
}

/* An address handle to the other device: by LID, or with a GRH. */
static uint32_t ah_to(struct fx *f, struct fx *to, bool grh)
{
	struct orca_create_ah_in ai = {};
	struct orca_ah_handle ah = {};
	uint64_t prefix = htobe64(to->cfg.subnet_prefix);
	uint64_t guid = htobe64(to->cfg.port_guid);

	ai.pdn = htole32(f->pdn);
	ai.av.port = 1;
	ai.av.dlid = htole16(lid_of(to));
	if (grh) {
		ai.av.flags = ORCA_AV_F_GRH;
		ai.av.hop_limit = 64;
		memcpy(ai.av.dgid, &prefix, 8);
		memcpy(ai.av.dgid + 8, &guid, 8);
	}
	CHECK_EQ(fx_cmd(f, ORCA_CMD_CREATE_AH, &ai, sizeof(ai), &ah,
			sizeof(ah)), 0);
	return ah.ahn;
}

static void ud_send(struct side *a, struct side *b, uint32_t ahn,
		    uint32_t len, uint32_t seed)
{
	struct orca_send_wqe *w;
	struct orca_cqe c, c2;
	uint8_t *sb = gpa(b->f, b->buf);

	pattern(gpa(a->f, a->buf), len, seed);
	memset(sb, 0, 40 + len);
	post_recv(b->f, &b->qp, b->buf, PAGE, b->lk);
	put_send(a->f, &a->qp, ORCA_WR_SEND, a->buf, len, a->lk, 0, 0);
	w = last_wqe(a);
	w->ud_ah = ahn;
	w->ud_remote_qpn = htole32(b->qp.qpn);
	w->ud_remote_qkey = htole32(0x1234);
	orca_dev_doorbell(&a->f->dev, ORCA_FW_VEC_DB);
	CHECK(wait_cqe2(a, b, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(wait_cqe2(b, a, &c2));
	CHECK_EQ(c2.status, ORCA_CQE_SUCCESS);
	CHECK_EQ(le32toh(c2.byte_len), 40 + len);
	CHECK_EQ(le32toh(c2.src_qp), a->qp.qpn);
	CHECK(!memcmp(sb + 40, gpa(a->f, a->buf), len));
}

static void fabric_ud_uc(void)
{
	struct side a = {}, b = {};
	struct orca_cqe c, c2;
	uint8_t *sa, *sb;

	/* UD, by LID and with a GRH naming the other port's GID */
	CHECK(pair_up(&a, &b, ORCA_QPT_UD, NULL));
	ud_rts(a.f, &a.qp);
	ud_rts(b.f, &b.qp);
	ud_send(&a, &b, ah_to(a.f, b.f, false), 1000, 5);
	ud_send(&a, &b, ah_to(a.f, b.f, true), 4000, 6);
	ud_send(&b, &a, ah_to(b.f, a.f, true), 17, 7);
	CHECK_EQ(dev_stat(b.f, "fabric_decode_drops"), 0);
	pair_down(&a, &b);

	/* UC: a SEND of 20 packets and a WRITE */
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	CHECK(pair_up(&a, &b, ORCA_QPT_UC, NULL));
	connect_dlid = lid_of(b.f);
	CHECK(connect_uc(a.f, &a.qp, b.qp.qpn));
	connect_dlid = lid_of(a.f);
	CHECK(connect_qp(b.f, &b.qp, a.qp.qpn, ORCA_ACCESS_REMOTE_WRITE, 1,
			 false));
	connect_dlid = 0;
	sa = gpa(a.f, a.buf);
	sb = gpa(b.f, b.buf);
	pattern(sa, MSG, 8);
	post_recv(b.f, &b.qp, b.buf, 2 * PAGE, b.lk);
	post_send(a.f, &a.qp, ORCA_WR_SEND, a.buf, MSG, a.lk, 0, 0);
	CHECK(wait_cqe2(&a, &b, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(wait_cqe2(&b, &a, &c2));
	CHECK_EQ(c2.status, ORCA_CQE_SUCCESS);
	CHECK(!memcmp(sa, sb, MSG));
	pattern(sa, 3000, 9);
	post_send(a.f, &a.qp, ORCA_WR_RDMA_WRITE, a.buf, 3000, a.lk,
		  iova(b.buf + 2 * PAGE), b.lk);
	CHECK(wait_cqe2(&a, &b, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	/* UC completes at the sender when sent: wait for the bytes */
	CHECK(pump_until(a.f, b.f, !memcmp(sa, sb + 2 * PAGE, 3000)));
	pair_down(&a, &b);
}

/*
 * RC through lossy links on both devices: bursts of four SENDs (each
 * into its own receive buffer) and then a WRITE and a READ per round.
 * Every message arrives once, whole, in order; what was lost was sent
 * again.
 */
#define BURST	4
#define LMSG	1500
#define LROUNDS	12

static void rc_lossy_run(const char *const *faults, uint8_t mtu,
			 const char *what)
{
	struct side a = {}, b = {};
	unsigned int round, i, sends = 0, recvs = 0, bad = 0;
	uint64_t retries, drops, dups, reorders;
	struct orca_cqe c;
	uint8_t *sa, *sb;

	CHECK(pair_up(&a, &b, ORCA_QPT_RC, faults));
	connect_retry_cnt = 7;
	connect_timeout = 10;			/* 4 ms */
	pair_connect_rc(&a, &b, mtu);
	connect_retry_cnt = 1;
	connect_timeout = 10;
	/* the virtual clock, from the time the real one says */
	fx_now_ns = dp_now_ns();
	fx_clock_virtual();
	lossy_clock = true;
	sa = gpa(a.f, a.buf);
	sb = gpa(b.f, b.buf);
	for (round = 0; round < LROUNDS; round++) {
		uint32_t next_recv = b.qp.rq_pi;

		for (i = 0; i < BURST; i++) {
			pattern(sa + i * LMSG, LMSG, round * BURST + i);
			memset(sb + i * 2048, 0, LMSG);
			post_recv(b.f, &b.qp, b.buf + i * 2048, 2048, b.lk);
		}
		for (i = 0; i < BURST; i++)
			put_send(a.f, &a.qp, ORCA_WR_SEND, a.buf + i * LMSG,
				 LMSG, a.lk, 0, 0);
		orca_dev_doorbell(&a.f->dev, ORCA_FW_VEC_DB);
		for (i = 0; i < BURST; i++) {
			if (!wait_cqe2(&a, &b, &c) || c.status) {
				if (!bad)
					printf("# round %u: send status 0x%x\n",
					       round, c.status);
				bad++;
			} else {
				sends++;
			}
		}
		/* receives complete in order, each with its own message */
		for (i = 0; i < BURST; i++) {
			uint8_t want[LMSG];

			if (!wait_cqe2(&b, &a, &c) || c.status ||
			    le32toh(c.wqe_idx) != next_recv + i) {
				bad++;
				continue;
			}
			pattern(want, LMSG, round * BURST + i);
			if (le32toh(c.byte_len) == LMSG &&
			    !memcmp(sb + i * 2048, want, LMSG))
				recvs++;
			else
				bad++;
		}

		pattern(sa, MSG, round + 1000);
		post_send(a.f, &a.qp, ORCA_WR_RDMA_WRITE, a.buf, MSG, a.lk,
			  iova(b.buf + 2 * PAGE), b.lk);
		if (!wait_cqe2(&a, &b, &c) || c.status ||
		    memcmp(sa, sb + 2 * PAGE, MSG)) {
			printf("# round %u: write status 0x%x\n", round,
			       c.status);
			bad++;
		}
		pattern(sb + 2 * PAGE, MSG, round + 2000);
		post_send(b.f, &b.qp, ORCA_WR_RDMA_READ, b.buf, MSG, b.lk,
			  iova(a.buf + PAGE), a.lk);
		pattern(sa + PAGE, MSG, round + 3000);
		if (!wait_cqe2(&b, &a, &c) || c.status ||
		    memcmp(sa + PAGE, sb, MSG)) {
			printf("# round %u: read status 0x%x vendor %u\n",
			       round, c.status, c.vendor_err);
			bad++;
		}
	}
	/* nothing more: every message completed once */
	pump_ms(a.f, b.f, 20);
	CHECK(!poll_cqe(a.f, &a.cq, &c));
	CHECK(!poll_cqe(b.f, &b.cq, &c));
	CHECK_EQ(qp_state_of(a.f, a.qp.qpn), ORCA_QPS_RTS);
	CHECK_EQ(qp_state_of(b.f, b.qp.qpn), ORCA_QPS_RTS);
	CHECK_EQ(sends, LROUNDS * BURST);
	CHECK_EQ(recvs, LROUNDS * BURST);
	CHECK_EQ(bad, 0);
	retries = a.f->dev.stats.retries + b.f->dev.stats.retries;
	drops = a.f->dev.stats.link_drops + b.f->dev.stats.link_drops;
	dups = a.f->dev.stats.link_dups + b.f->dev.stats.link_dups;
	reorders = a.f->dev.stats.link_reorders +
		   b.f->dev.stats.link_reorders;
	printf("# %s: drops %llu dups %llu reorders %llu retries %llu, fabric tx %lld + %lld, queue drops %lld\n",
	       what, (unsigned long long)drops, (unsigned long long)dups,
	       (unsigned long long)reorders, (unsigned long long)retries,
	       dev_stat(a.f, "fabric_tx_pkts"), dev_stat(b.f, "fabric_tx_pkts"),
	       dev_stat(a.f, "fabric_queue_drops") +
	       dev_stat(b.f, "fabric_queue_drops"));
	CHECK(drops > 0);
	CHECK(retries > 0);
	CHECK(dups > 0);
	CHECK(reorders > 0);
	CHECK_EQ(dev_stat(a.f, "fabric_decode_drops") +
		 dev_stat(b.f, "fabric_decode_drops"), 0);
	lossy_clock = false;
	orca_dev_set_clock(NULL);
	pair_down(&a, &b);
}

static void fabric_rc_lossy(void)
{
	static const char *const five[] = {
		"link_drop_ppm=50000", "link_dup_ppm=50000",
		"link_reorder_ppm=50000", NULL };
	static const char *const twenty[] = {
		"link_drop_ppm=200000", "link_dup_ppm=50000",
		"link_reorder_ppm=50000", "link_delay_us=50", NULL };

	rc_lossy_run(five, 1, "5% loss, 5% dup, 5% reorder, 256 B MTU");
	/*
	 * A READ of 20 packets with 20% loss each way (a response out of
	 * order is as good as lost to the requester) now and then sees
	 * retry_cnt + 1 timeouts in a row without progress, as it would on
	 * any go-back-N link: 1 KiB packets here, 5 per message.
	 */
	rc_lossy_run(twenty, 3, "20% loss, 5% dup, 5% reorder, 50 us, 1 KiB MTU");
}

/*
 * The peer's port goes down: RC retries, then RETRY_EXC_ERR; the peer
 * comes back with the same LID and a new QP pair works.
 */
static void fabric_peer_down(void)
{
	struct side a = {}, b = {};
	struct orca_cqe c;
	uint16_t lb;
	char err[64];

	CHECK(pair_up(&a, &b, ORCA_QPT_RC, NULL));
	connect_retry_cnt = 3;
	connect_timeout = 8;
	pair_connect_rc(&a, &b, 1);
	connect_retry_cnt = 1;
	connect_timeout = 10;
	lb = lid_of(b.f);
	CHECK_EQ(orca_dev_hook_port(&b.f->dev, false, err, sizeof(err)), 0);
	pump_ms(a.f, b.f, 20);
	post_recv(b.f, &b.qp, b.buf, PAGE, b.lk);
	post_send(a.f, &a.qp, ORCA_WR_SEND, a.buf, 100, a.lk, 0, 0);
	CHECK(wait_cqe2(&a, &b, &c));
	CHECK_EQ(c.status, ORCA_CQE_RETRY_EXC_ERR);
	CHECK_EQ(qp_state_of(a.f, a.qp.qpn), ORCA_QPS_ERR);
	CHECK_EQ(a.f->dev.stats.retries, 3);
	/* b received nothing */
	CHECK(!poll_cqe(b.f, &b.cq, &c));
	CHECK_EQ(orca_dev_hook_port(&b.f->dev, true, err, sizeof(err)), 0);
	CHECK(wait_port(b.f, NULL, ORCA_PORT_ACTIVE));
	CHECK_EQ(lid_of(b.f), lb);
	pair_down(&a, &b);
}

/*
 * A port that sends garbage: corrupted, truncated and unknown packets
 * to a device are dropped and counted, and the device keeps working.
 */
static void fabric_hostile_peer(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static uint8_t m[ORCA_FAB_MSG_MAX];
	static struct orca_pkt p;
	struct side a = {}, b = {};
	struct orca_fab_hello h = {};
	struct orca_fab_lid lid;
	struct orca_cqe c;
	long long before;
	size_t len;
	int fd, i;

	CHECK(pair_up(&a, &b, ORCA_QPT_RC, NULL));
	pair_connect_rc(&a, &b, 3);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", fab_sock);
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	CHECK(fd >= 0 && !connect(fd, (struct sockaddr *)&sa, sizeof(sa)));
	h.h.type = ORCA_FAB_HELLO;
	h.h.version = ORCA_FAB_VERSION;
	h.port_guid = htole64(0xbad);
	CHECK_EQ(send(fd, &h, sizeof(h), 0), sizeof(h));
	CHECK_EQ(recv(fd, &lid, sizeof(lid), 0), sizeof(lid));
	CHECK_EQ(lid.h.type, ORCA_FAB_LID_ASSIGN);

	/* a packet to a's QP, then mangled in every way */
	memset(&p, 0, sizeof(p));
	p.opcode = IB_RC | IB_SEND_ONLY;
	p.dlid = lid_of(a.f);
	p.slid = le16toh(lid.lid);
	p.pkey = 0xffff;
	p.dqpn = a.qp.qpn;
	p.paylen = 64;
	m[0] = ORCA_FAB_PKT;
	m[1] = ORCA_FAB_VERSION;
	len = orca_pkt_encode(&p, m + 8);
	before = dev_stat(a.f, "fabric_decode_drops");
	m[8 + len - 1] ^= 1;				/* ICRC */
	CHECK(send(fd, m, 8 + len, 0) > 0);
	m[8 + len - 1] ^= 1;
	CHECK(send(fd, m, 8 + len - 4, 0) > 0);		/* truncated */
	CHECK(send(fd, m, 8 + 10, 0) > 0);
	for (i = 8 + 8; i < 8 + 20; i++)		/* garbage BTH */
		m[i] = 0xff;
	CHECK(send(fd, m, 8 + len, 0) > 0);
	m[0] = 0x77;					/* unknown type */
	CHECK(send(fd, m, 8 + len, 0) > 0);
	m[0] = ORCA_FAB_PKT;
	m[1] = 9;					/* other version */
	CHECK(send(fd, m, 8 + len, 0) > 0);
	CHECK(send(fd, m, 3, 0) > 0);			/* no header */
	/* the last three die at the switch, which counts them */
	CHECK(pump_until(a.f, b.f,
			 dev_stat(a.f, "fabric_decode_drops") - before >= 4 &&
			 fabric_ctl("stats", (char *)m, sizeof(m)) &&
			 stat_of((char *)m, "bad_msgs") >= 3));
	printf("# decode drops %lld\n",
	       dev_stat(a.f, "fabric_decode_drops") - before);
	CHECK_EQ(dev_stat(a.f, "fabric_decode_drops") - before, 4);
	CHECK(fabric_ctl("stats", (char *)m, sizeof(m)));
	CHECK_EQ(stat_of((char *)m, "bad_msgs"), 3);
	close(fd);

	/* and the device still works */
	pattern(gpa(a.f, a.buf), 500, 11);
	post_recv(b.f, &b.qp, b.buf, PAGE, b.lk);
	post_send(a.f, &a.qp, ORCA_WR_SEND, a.buf, 500, a.lk, 0, 0);
	CHECK(wait_cqe2(&a, &b, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(wait_cqe2(&b, &a, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(!memcmp(gpa(a.f, a.buf), gpa(b.f, b.buf), 500));
	pair_down(&a, &b);
}

/*
 * LMC: a port with LMC 2 gets a base LID that is a multiple of 4 and
 * every LID of its range reaches it (b sends from the one a sends to).
 */
static void fabric_lmc(void)
{
	static const char *const lmc2[] = { "lmc=2", NULL };
	struct side a = {}, b = {};
	struct orca_cqe c;
	uint16_t lb;

	CHECK(fabric_start());
	a.f = fab_dev_cfg(GUID_A, NULL, true);
	b.f = fab_dev_cfg(GUID_B, lmc2, false);
	CHECK(wait_port(a.f, b.f, ORCA_PORT_ACTIVE));
	lb = lid_of(b.f);
	printf("# LMC 2: base LID 0x%x\n", lb);
	CHECK_EQ(lb % 4, 0);
	CHECK_EQ(port_of(b.f).lmc, 2);
	a.buf = heap_alloc(PAGE);
	b.buf = heap_alloc(PAGE);
	CHECK_EQ(reg_mr(a.f, a.f->pdn, a.buf, PAGE, all_access, &a.lk), 0);
	CHECK_EQ(reg_mr(b.f, b.f->pdn, b.buf, PAGE, all_access, &b.lk), 0);
	CHECK(make_cq(a.f, &a.cq, 4));
	CHECK(make_cq(b.f, &b.cq, 4));
	CHECK(make_qp(a.f, &a.qp, a.cq.cqn));
	CHECK(make_qp(b.f, &b.qp, b.cq.cqn));
	/* to the last LID of b's range */
	connect_dlid = lb + 3;
	CHECK(connect_rc(a.f, &a.qp, b.qp.qpn, 0, 1));
	connect_dlid = lid_of(a.f);
	connect_path_bits = 3;
	CHECK(connect_rc(b.f, &b.qp, a.qp.qpn, 0, 1));
	connect_path_bits = 0;
	connect_dlid = 0;
	pattern(gpa(a.f, a.buf), 700, 12);
	post_recv(b.f, &b.qp, b.buf, PAGE, b.lk);
	post_send(a.f, &a.qp, ORCA_WR_SEND, a.buf, 700, a.lk, 0, 0);
	CHECK(wait_cqe2(&a, &b, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(wait_cqe2(&b, &a, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(!memcmp(gpa(a.f, a.buf), gpa(b.f, b.buf), 700));
	pair_down(&a, &b);
}

/*
 * The fabric stops reading (SIGSTOP): the device's socket and then its
 * queue fill up to the room kept for ACKs, and the requester waits there
 * instead of dropping; its timer still runs, so the RC WRITE ends in
 * RETRY_EXC_ERR after its retries (how long that took is only printed:
 * the host's business).  Once the fabric runs again the queue drains.
 */
static void fabric_backpressure(void)
{
	struct side a = {}, b = {};
	struct orca_cqe c;
	uint64_t t0;

	CHECK(pair_up(&a, &b, ORCA_QPT_RC, NULL));
	connect_retry_cnt = 7;
	connect_timeout = 8;
	pair_connect_rc(&a, &b, 1);
	connect_retry_cnt = 1;
	connect_timeout = 10;
	CHECK(!kill(fab_pid, SIGSTOP));
	t0 = now_ms();
	/* 64 packets a try, 8 tries */
	post_send(a.f, &a.qp, ORCA_WR_RDMA_WRITE, a.buf, 4 * PAGE, a.lk,
		  iova(b.buf), b.lk);
	CHECK(wait_cqe2(&a, &b, &c));
	CHECK_EQ(c.status, ORCA_CQE_RETRY_EXC_ERR);
	printf("# fabric stopped: RETRY_EXC_ERR after %llu ms, %lld sent, %lld queued, %lld dropped, %lld waits\n",
	       (unsigned long long)(now_ms() - t0),
	       dev_stat(a.f, "fabric_tx_pkts"), dev_stat(a.f, "fabric_queued"),
	       dev_stat(a.f, "fabric_queue_drops"),
	       dev_stat(a.f, "fabric_egress_waits"));
	CHECK_EQ(a.f->dev.stats.retries, 7);	/* retry_cnt, then the end */
	CHECK_EQ(dev_stat(a.f, "fabric_queue_drops"), 0);
	CHECK(dev_stat(a.f, "fabric_egress_waits") > 0);
	/* 256 slots, the last 64 kept for ACKs */
	CHECK_EQ(dev_stat(a.f, "fabric_queued"), 256 - 64);
	CHECK(!kill(fab_pid, SIGCONT));
	CHECK(pump_until(a.f, b.f, !dev_stat(a.f, "fabric_queued")));
	pair_down(&a, &b);
}

/*
 * A port that reads nothing (b, not polled): the switch's queue for it
 * fills and the rest is dropped and counted there; the switch keeps
 * serving everyone else.
 */
static void fabric_slow_port(void)
{
	struct side a = {}, b = {};
	struct orca_send_wqe *w;
	char reply[4096], key[48];
	struct orca_cqe c;
	uint32_t ahn;
	unsigned int i, k, done = 0;

	CHECK(pair_up(&a, &b, ORCA_QPT_UD, NULL));
	ud_rts(a.f, &a.qp);
	ud_rts(b.f, &b.qp);
	ahn = ah_to(a.f, b.f, false);
	/* each round's sends all complete, or that is the end of it */
	for (i = 0; i < 80 && done == 8 * i; i++) {
		for (k = 0; k < 8; k++) {
			put_send(a.f, &a.qp, ORCA_WR_SEND, a.buf, 4096, a.lk,
				 0, 0);
			w = last_wqe(&a);
			w->ud_ah = ahn;
			w->ud_remote_qpn = htole32(b.qp.qpn);
			w->ud_remote_qkey = htole32(0x1234);
		}
		orca_dev_doorbell(&a.f->dev, ORCA_FW_VEC_DB);
		for (k = 0; k < 8 && done == 8 * i + k; k++)
			if (pump_until(a.f, NULL, poll_cqe(a.f, &a.cq, &c)) &&
			    !c.status)
				done++;
	}
	CHECK_EQ(done, 640);
	snprintf(key, sizeof(key), "lid%u_queue_drops", lid_of(b.f));
	CHECK(pump_until(a.f, NULL,
			 fabric_ctl("stats", reply, sizeof(reply)) &&
			 stat_of(reply, key) > 0));
	CHECK(fabric_ctl("ping", reply, sizeof(reply)));
	CHECK(fabric_ctl("stats", reply, sizeof(reply)));
	printf("# b not reading: %lld of %lld dropped at the switch\n",
	       stat_of(reply, key), dev_stat(a.f, "fabric_tx_pkts"));
	CHECK(stat_of(reply, key) > 0);
	pair_down(&a, &b);
}

/* ---- two orca-emu processes ---- */

static void emu_files(uint64_t guid, char *ram, char *log, size_t len)
{
	snprintf(ram, len, "%s/emu-%llx.ram", fab_dir,
		 (unsigned long long)guid);
	snprintf(log, len, "%s/emu-%llx.log", fab_dir,
		 (unsigned long long)guid);
}

/* orca-emu for port GUID @guid + 1 on the fabric; its control socket. */
static pid_t emu_start(uint64_t guid, char *ctl, size_t len)
{
	char sock[128], ram[128], log[128], fabric[160], node[64];
	pid_t pid;
	int fd;

	snprintf(sock, sizeof(sock), "%s/emu-%llx.sock", fab_dir,
		 (unsigned long long)guid);
	emu_files(guid, ram, log, sizeof(ram));
	snprintf(ctl, len, "%s/emu-%llx.ctl", fab_dir,
		 (unsigned long long)guid);
	snprintf(fabric, sizeof(fabric), "fabric=%s", fab_sock);
	snprintf(node, sizeof(node), "node_guid=0x%llx",
		 (unsigned long long)guid);
	fd = open(ram, O_CREAT | O_RDWR | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, RAM_SIZE)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	pid = fork();
	if (!pid) {
		execl(emu_bin, "orca-emu", "--socket", sock, "--ram", ram,
		      "--ctl", ctl, "--log", log, "--set", fabric, "--set",
		      node, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/* Until the emulator behind @ctl reports @want in its stats (WAIT_MS). */
static bool emu_wait(const char *ctl, const char *want, char *reply,
		     size_t len)
{
	uint64_t end = now_ms() + WAIT_MS;

	while (now_ms() < end) {
		if (ctl_request(ctl, "stats", reply, len) &&
		    strstr(reply, want))
			return true;
		usleep(5000);
	}
	return false;
}

static bool emu_stop(pid_t pid)
{
	int status;

	if (pid <= 0)
		return false;
	kill(pid, SIGTERM);
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       !WEXITSTATUS(status);
}

/*
 * Emulators started before the fabric connect when it comes, get
 * distinct LIDs, leave and rejoin with port-down / port-up, and follow
 * the fabric going and coming back.
 */
static void fabric_processes(void)
{
	static char ra[16384], rb[16384], rf[16384];
	char ctl_a[128], ctl_b[128], key[128];
	long long la, lb;
	pid_t a, b;

	/* the fabric's directory, without the fabric */
	CHECK(fabric_start());
	fabric_stop();
	a = emu_start(GUID_A, ctl_a, sizeof(ctl_a));
	b = emu_start(GUID_B, ctl_b, sizeof(ctl_b));
	CHECK(a > 0 && b > 0);
	CHECK(emu_wait(ctl_a, " fabric_state=idle", ra, sizeof(ra)));
	CHECK_EQ(stat_of(ra, "fabric_lid"), 0);
	CHECK(fabric_start());
	CHECK(emu_wait(ctl_a, " fabric_state=up", ra, sizeof(ra)));
	CHECK(emu_wait(ctl_b, " fabric_state=up", rb, sizeof(rb)));
	la = stat_of(ra, "fabric_lid");
	lb = stat_of(rb, "fabric_lid");
	printf("# orca-emu processes: LIDs 0x%llx and 0x%llx\n", la, lb);
	CHECK(la >= ORCA_FAB_FIRST_LID && lb >= ORCA_FAB_FIRST_LID);
	CHECK(la != lb);
	CHECK_EQ(stat_of(ra, "fabric_sm_lid"), ORCA_FAB_SM_LID);
	/* the old stats keys are all still there */
	CHECK(stat_of(ra, "link_reorders") >= 0);
	CHECK(stat_of(ra, "pkts_dropped") >= 0);

	CHECK(ctl_request(ctl_b, "port-down", rb, sizeof(rb)));
	CHECK(emu_wait(ctl_b, " fabric_admin_down=1", rb, sizeof(rb)));
	CHECK(fabric_ctl("stats", rf, sizeof(rf)));
	snprintf(key, sizeof(key), "lid%lld_state=down", lb);
	CHECK(strstr(rf, key));
	CHECK(ctl_request(ctl_b, "port-up", rb, sizeof(rb)));
	CHECK(emu_wait(ctl_b, " fabric_links=2", rb, sizeof(rb)));
	CHECK_EQ(stat_of(rb, "fabric_lid"), lb);
	CHECK(fabric_ctl("stats", rf, sizeof(rf)));
	snprintf(key, sizeof(key), "lid%lld_state=active", lb);
	CHECK(strstr(rf, key));

	fabric_stop();
	CHECK(emu_wait(ctl_a, " fabric_state=idle", ra, sizeof(ra)));
	CHECK(fabric_start());
	CHECK(emu_wait(ctl_a, " fabric_state=up", ra, sizeof(ra)));
	CHECK(emu_stop(a));
	CHECK(emu_stop(b));
	fabric_stop();
	emu_files(GUID_A, ctl_a, key, sizeof(key));
	unlink(ctl_a);
	unlink(key);
	emu_files(GUID_B, ctl_b, key, sizeof(key));
	unlink(ctl_b);
	unlink(key);
}

int main(int argc, char **argv)
{
	bool verbose = argc > 1 && !strcmp(argv[1], "-v");

	orca_log_set_quiet(!verbose);
	signal(SIGPIPE, SIG_IGN);
	fab_bin = argc > 1 + verbose ? argv[1 + verbose] : NULL;
	emu_bin = argc > 2 + verbose ? argv[2 + verbose] : NULL;
	RUN(pkt_round_trip);
	RUN(pkt_layout);
	RUN(pkt_corrupt);
	RUN(pkt_malformed);
	if (!fab_bin) {
		printf("# no orca-fabric given: the fabric cases are skipped\n");
		return tap_done();
	}
	RUN(fabric_lids);
	RUN(fabric_rc_ops);
	RUN(fabric_ud_uc);
	RUN(fabric_rc_lossy);
	RUN(fabric_peer_down);
	RUN(fabric_hostile_peer);
	RUN(fabric_lmc);
	RUN(fabric_backpressure);
	RUN(fabric_slow_port);
	if (emu_bin)
		RUN(fabric_processes);
	else
		printf("# no orca-emu given: fabric_processes skipped\n");
	/* a case that failed half way may have left it running */
	if (fab_pid > 0) {
		kill(fab_pid, SIGKILL);
		waitpid(fab_pid, NULL, 0);
	}
	/* empty: every process removed its sockets */
	if (fab_dir[0] && rmdir(fab_dir))
		printf("# %s left behind: %s\n", fab_dir, strerror(errno));
	return tap_done();
}
