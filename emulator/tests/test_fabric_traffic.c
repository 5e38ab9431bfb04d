// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Two devices on a real orca-fabric (started from the path the Makefile
 * passes), traffic between them: every transport and operation, RC
 * through lossy links, a peer that leaves, a peer that sends garbage, a
 * fabric that stops reading, a port that reads nothing.
 *
 * usage: orca-emu-fabric-traffic-tests [-v] PATH/TO/orca-fabric
 */
#include <sys/mman.h>

#include "fabric_fixture.h"
#include "fabric_sock.h"
#include "orca_msgq.h"
#include "orca_ring.h"

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
	/*
	 * No loss here: no retransmission is meant to happen, and a packet
	 * crosses another process (orca-fabric) the scheduler may hold back
	 * for a while on a busy host.  The default (4 ms, one retry) ended a
	 * check run's first SEND in RETRY_EXC_ERR; 1 s and 7 retries bound
	 * only a real loss.
	 */
	pair_connect_rc_retry(&a, &b, 1, 7, 18);	/* 1.07 s */
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
	       fx_stat(a.f, "fabric_tx_pkts"), fx_stat(a.f, "fabric_rx_pkts"),
	       fx_stat(b.f, "fabric_tx_pkts"), fx_stat(b.f, "fabric_rx_pkts"));
	CHECK(fx_stat(a.f, "fabric_tx_pkts") > 40);
	CHECK(fx_stat(b.f, "fabric_rx_pkts") > 40);
	CHECK_EQ(fx_stat(a.f, "fabric_decode_drops"), 0);
	CHECK_EQ(fx_stat(b.f, "fabric_decode_drops"), 0);
	CHECK_EQ(fx_stat(a.f, "fabric_queue_drops"), 0);
	CHECK(fabric_ctl("stats", reply, sizeof(reply)));
	snprintf(key, sizeof(key), "lid%u_in", lid_of(a.f));
	CHECK_EQ(stat_of(reply, key), fx_stat(a.f, "fabric_tx_pkts"));
	snprintf(key, sizeof(key), "lid%u_dropped", lid_of(a.f));
	CHECK_EQ(stat_of(reply, key), 0);
	pair_down(&a, &b);
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
	CHECK_EQ(fx_stat(b.f, "fabric_decode_drops"), 0);
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
	pair_connect_rc_retry(&a, &b, mtu, 7, 10);	/* 4 ms */
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
	       fx_stat(a.f, "fabric_tx_pkts"), fx_stat(b.f, "fabric_tx_pkts"),
	       fx_stat(a.f, "fabric_queue_drops") +
	       fx_stat(b.f, "fabric_queue_drops"));
	CHECK(drops > 0);
	CHECK(retries > 0);
	CHECK(dups > 0);
	CHECK(reorders > 0);
	CHECK_EQ(fx_stat(a.f, "fabric_decode_drops") +
		 fx_stat(b.f, "fabric_decode_drops"), 0);
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
	pair_connect_rc_retry(&a, &b, 1, 3, 8);
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

/* An RC SEND of 500 bytes a -> b, both completions good, landed whole. */
static void send_a_to_b(struct side *a, struct side *b, unsigned int seed)
{
	struct orca_cqe c = {};

	pattern(gpa(a->f, a->buf), 500, seed);
	post_recv(b->f, &b->qp, b->buf, PAGE, b->lk);
	post_send(a->f, &a->qp, ORCA_WR_SEND, a->buf, 500, a->lk, 0, 0);
	CHECK(wait_cqe2(a, b, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(wait_cqe2(b, a, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(!memcmp(gpa(a->f, a->buf), gpa(b->f, b->buf), 500));
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
	before = fx_stat(a.f, "fabric_decode_drops");
	m[8 + len - 1] ^= 1;				/* ICRC */
	CHECK(send(fd, m, 8 + len, 0) > 0);
	m[8 + len - 1] ^= 1;
	m[2] = ORCA_FAB_F_NO_ICRC;		/* on a socket: refused */
	CHECK(send(fd, m, 8 + len, 0) > 0);
	m[2] = 0;
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
	/* the last three and the ICRC-less one die at the switch */
	CHECK(pump_until(a.f, b.f,
			 fx_stat(a.f, "fabric_decode_drops") - before >= 4 &&
			 fabric_ctl("stats", (char *)m, sizeof(m)) &&
			 stat_of((char *)m, "bad_msgs") >= 4));
	printf("# decode drops %lld\n",
	       fx_stat(a.f, "fabric_decode_drops") - before);
	CHECK_EQ(fx_stat(a.f, "fabric_decode_drops") - before, 4);
	CHECK(fabric_ctl("stats", (char *)m, sizeof(m)));
	CHECK_EQ(stat_of((char *)m, "bad_msgs"), 4);
	close(fd);

	/* and the device still works */
	send_a_to_b(&a, &b, 11);
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
	pair_connect_rc_retry(&a, &b, 1, 7, 8);
	CHECK(!kill(fab_pid, SIGSTOP));
	t0 = now_ms();
	/* 64 packets a try, 8 tries */
	post_send(a.f, &a.qp, ORCA_WR_RDMA_WRITE, a.buf, 4 * PAGE, a.lk,
		  iova(b.buf), b.lk);
	CHECK(wait_cqe2(&a, &b, &c));
	CHECK_EQ(c.status, ORCA_CQE_RETRY_EXC_ERR);
	printf("# fabric stopped: RETRY_EXC_ERR after %llu ms, %lld sent, %lld queued, %lld dropped, %lld waits\n",
	       (unsigned long long)(now_ms() - t0),
	       fx_stat(a.f, "fabric_tx_pkts"), fx_stat(a.f, "fabric_queued"),
	       fx_stat(a.f, "fabric_queue_drops"),
	       fx_stat(a.f, "fabric_egress_waits"));
	CHECK_EQ(a.f->dev.stats.retries, 7);	/* retry_cnt, then the end */
	CHECK_EQ(fx_stat(a.f, "fabric_queue_drops"), 0);
	CHECK(fx_stat(a.f, "fabric_egress_waits") > 0);
	/* 256 slots, the last 64 kept for ACKs */
	CHECK_EQ(fx_stat(a.f, "fabric_queued"), 256 - 64);
	CHECK(!kill(fab_pid, SIGCONT));
	CHECK(pump_until(a.f, b.f, !fx_stat(a.f, "fabric_queued")));
	pair_down(&a, &b);
}

/*
 * One port on the shared-memory link, the other on the socket: the
 * ring's packets go without their ICRC, and the switch gives them one
 * on the way to the socket, where the port checks it; every operation
 * each way, byte for byte, and no packet refused.
 */
static void fabric_mixed_links(void)
{
	static const char *const socket_link[] = { "fabric_ring_slots=0",
						   NULL };
	struct side a = {}, b = {};
	struct orca_cqe c;

	CHECK(fabric_start());
	a.f = fab_dev_cfg(GUID_A, NULL, true);
	b.f = fab_dev_cfg(GUID_B, socket_link, false);
	CHECK(wait_port(a.f, b.f, ORCA_PORT_ACTIVE));
	CHECK_EQ(fx_stat(a.f, "fabric_shm"), 1);
	CHECK_EQ(fx_stat(b.f, "fabric_shm"), 0);
	a.buf = heap_alloc(4 * PAGE);
	b.buf = heap_alloc(4 * PAGE);
	CHECK_EQ(reg_mr(a.f, a.f->pdn, a.buf, 4 * PAGE, all_access, &a.lk), 0);
	CHECK_EQ(reg_mr(b.f, b.f->pdn, b.buf, 4 * PAGE, all_access, &b.lk), 0);
	CHECK(make_cq(a.f, &a.cq, 5));
	CHECK(make_cq(b.f, &b.cq, 5));
	CHECK(make_qp_srq(a.f, &a.qp, a.cq.cqn, ORCA_QPT_RC, 0));
	CHECK(make_qp_srq(b.f, &b.qp, b.cq.cqn, ORCA_QPT_RC, 0));
	pair_connect_rc_retry(&a, &b, 5, 7, 18);
	/* SEND a -> b: 3 packets of 4 KiB, through the ICRC computed */
	pattern(gpa(a.f, a.buf), 3 * PAGE, 21);
	post_recv(b.f, &b.qp, b.buf, 4 * PAGE, b.lk);
	post_send(a.f, &a.qp, ORCA_WR_SEND, a.buf, 3 * PAGE, a.lk, 0, 0);
	CHECK(wait_cqe2(&a, &b, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(wait_cqe2(&b, &a, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(!memcmp(gpa(a.f, a.buf), gpa(b.f, b.buf), 3 * PAGE));
	/* READ b -> a's memory, and WRITE back: both directions */
	pattern(gpa(a.f, a.buf), PAGE, 22);
	post_send(b.f, &b.qp, ORCA_WR_RDMA_READ, b.buf + PAGE, PAGE, b.lk,
		  iova(a.buf), a.lk);
	CHECK(wait_cqe2(&b, &a, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(!memcmp(gpa(a.f, a.buf), gpa(b.f, b.buf + PAGE), PAGE));
	pattern(gpa(b.f, b.buf), 2 * PAGE, 23);
	post_send(b.f, &b.qp, ORCA_WR_RDMA_WRITE, b.buf, 2 * PAGE, b.lk,
		  iova(a.buf + 2 * PAGE), a.lk);
	CHECK(wait_cqe2(&b, &a, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(!memcmp(gpa(b.f, b.buf), gpa(a.f, a.buf + 2 * PAGE), 2 * PAGE));
	CHECK_EQ(fx_stat(a.f, "fabric_decode_drops"), 0);
	CHECK_EQ(fx_stat(b.f, "fabric_decode_drops"), 0);
	CHECK(fx_stat(b.f, "fabric_rx_pkts") >= 3);
	CHECK_EQ(fx_stat(a.f, "retries") + fx_stat(b.f, "retries"), 0);
	pair_down(&a, &b);
}

/*
 * A HELLO from @fd offering the memfd of @nslots rings, @sealed against
 * shrinking or not, with the layout's magic @magic; the type of the
 * fabric's first answer (SHM_ACK if it took the rings).
 */
static int offer_rings(int fd, uint64_t guid, unsigned int nslots,
		       bool sealed, uint32_t magic)
{
	struct orca_fab_hello h = {};
	size_t size = orca_ring_map_size(nslots);
	struct orca_ring r;
	uint8_t m[ORCA_FAB_MSG_MAX];
	void *mem;
	int mfd;

	mfd = memfd_create("test-rings", MFD_ALLOW_SEALING);
	CHECK(mfd >= 0 && !ftruncate(mfd, size));
	if (sealed)
		CHECK(!fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW));
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	CHECK(mem != MAP_FAILED);
	CHECK(!orca_ring_open(&r, mem, size, nslots, 0, true));
	((struct orca_ring_layout *)mem)->magic = magic;
	h.h.type = ORCA_FAB_HELLO;
	h.h.version = ORCA_FAB_VERSION;
	h.port_guid = htole64(guid);
	h.flags = ORCA_FAB_HELLO_SHM;
	CHECK_EQ(msgq_send_fds(fd, &h, sizeof(h), &mfd, 1), 0);
	close(mfd);
	munmap(mem, size);
	return recv_msg(fd, m, sizeof(m)) > 0 ? m[0] : -1;
}

/*
 * The fabric takes only rings it can map safely: a memfd sealed against
 * shrinking (else a port that shrank it would fault the fabric), with
 * the layout it knows; refused rings leave the port on its socket.
 */
static void fabric_ring_offers(void)
{
	int fd;

	CHECK(fabric_start());
	fd = sock_to(fab_sock, SOCK_SEQPACKET);
	CHECK_EQ(offer_rings(fd, 0xa1, 64, false, ORCA_RING_MAGIC),
		 ORCA_FAB_LID_ASSIGN);
	close(fd);
	fd = sock_to(fab_sock, SOCK_SEQPACKET);
	CHECK_EQ(offer_rings(fd, 0xa2, 64, true, 0x12345678),
		 ORCA_FAB_LID_ASSIGN);
	close(fd);
	fd = sock_to(fab_sock, SOCK_SEQPACKET);
	CHECK_EQ(offer_rings(fd, 0xa3, 64, true, ORCA_RING_MAGIC),
		 ORCA_FAB_SHM_ACK);
	close(fd);
	CHECK(fabric_ctl("ping", (char[64]){ 0 }, 64));
	fabric_stop();
}

/* The CQEs @s has now, all successful, counted into @done. */
static bool reap(struct side *s, unsigned int *done)
{
	struct orca_cqe c;

	while (poll_cqe(s->f, &s->cq, &c)) {
		CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
		(*done)++;
	}
	return true;
}

/* 8 UD SENDs of 4 KiB from a to b's QP. */
static void send8(struct side *a, struct side *b, uint32_t ahn)
{
	struct orca_send_wqe *w;
	unsigned int k;

	for (k = 0; k < 8; k++) {
		put_send(a->f, &a->qp, ORCA_WR_SEND, a->buf, 4096, a->lk, 0, 0);
		w = last_wqe(a);
		w->ud_ah = ahn;
		w->ud_remote_qpn = htole32(b->qp.qpn);
		w->ud_remote_qkey = htole32(0x1234);
	}
	orca_dev_doorbell(&a->f->dev, ORCA_FW_VEC_DB);
}

/*
 * A port that reads nothing (b, not polled), on the socket link: the
 * switch's queue for it fills and the rest is dropped and counted
 * there; the switch keeps serving everyone else.
 */
static void fabric_slow_port(void)
{
	static const char *const socket_link[] = { "fabric_ring_slots=0",
						   NULL };
	struct side a = {}, b = {};
	char reply[4096], key[48];
	struct orca_cqe c;
	uint32_t ahn;
	unsigned int i, k, done = 0;

	CHECK(pair_up(&a, &b, ORCA_QPT_UD, socket_link));
	CHECK_EQ(fx_stat(a.f, "fabric_shm"), 0);
	ud_rts(a.f, &a.qp);
	ud_rts(b.f, &b.qp);
	ahn = ah_to(a.f, b.f, false);
	/* each round's sends all complete, or that is the end of it */
	for (i = 0; i < 80 && done == 8 * i; i++) {
		send8(&a, &b, ahn);
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
	       stat_of(reply, key), fx_stat(a.f, "fabric_tx_pkts"));
	CHECK(stat_of(reply, key) > 0);
	pair_down(&a, &b);
}

/*
 * The same on the shared-memory link (the default): lossless.  b's ring
 * and the switch's queue for it fill, then a's ring: the switch holds
 * a's packets where they are, a's device stops sending (its UD SENDs do
 * not complete), nothing is dropped, and the switch still answers.  Once
 * b reads again, every SEND goes and completes.
 */
static void fabric_slow_port_rings(void)
{
	/* the fabric's own holding: no direct link around it */
	static const char *const no_direct[] = { "fabric_direct=0", NULL };
	struct side a = {}, b = {};
	char reply[4096], key[48];
	unsigned int i, done = 0, posted = 0;
	uint32_t ahn;

	CHECK(pair_up(&a, &b, ORCA_QPT_UD, no_direct));
	CHECK_EQ(fx_stat(a.f, "fabric_shm"), 1);
	CHECK_EQ(fx_stat(b.f, "fabric_shm"), 1);
	ud_rts(a.f, &a.qp);
	ud_rts(b.f, &b.qp);
	ahn = ah_to(a.f, b.f, false);
	/*
	 * rounds of 8 until one does not complete: the switch gave b all it
	 * can hold, its ring (cfg fabric_ring_slots, 64) and its queue, and
	 * a's own ring and queue are full behind it
	 */
	snprintf(key, sizeof(key), "lid%u_out", lid_of(b.f));
	for (i = 0; i < 80 && done == posted; i++) {
		send8(&a, &b, ahn);
		posted += 8;
		CHECK(pump_until(a.f, NULL,
				 reap(&a, &done) &&
				 (done == posted ||
				  (fabric_ctl("stats", reply, sizeof(reply)) &&
				   stat_of(reply, key) ==
				   64 + ORCA_FAB_PORT_QUEUE))));
		/* b is full: what a holds may still be going on */
		if (done < posted) {
			pump_ms(a.f, NULL, 300);
			CHECK(reap(&a, &done));
		}
	}
	CHECK(done < posted);
	CHECK(fx_stat(a.f, "fabric_egress_waits") > 0);
	/* and stays so */
	i = done;
	pump_ms(a.f, NULL, 300);
	CHECK(reap(&a, &done));
	CHECK_EQ(done, i);
	CHECK(fabric_ctl("stats", reply, sizeof(reply)));
	CHECK_EQ(stat_of(reply, key), 64 + ORCA_FAB_PORT_QUEUE);
	printf("# b not reading: a stopped after %u of %u SENDs, %lld ring waits, b holds %lld\n",
	       done, posted, fx_stat(a.f, "fabric_ring_waits"),
	       stat_of(reply, key));
	CHECK(fabric_ctl("ping", reply, sizeof(reply)));
	snprintf(key, sizeof(key), "lid%u_queue_drops", lid_of(b.f));
	CHECK(fabric_ctl("stats", reply, sizeof(reply)));
	CHECK_EQ(stat_of(reply, key), 0);
	/* b reads again: the rest goes, and all of it arrives */
	CHECK(pump_until(a.f, b.f, reap(&a, &done) && done == posted &&
			 fx_stat(b.f, "fabric_rx_pkts") ==
			 fx_stat(a.f, "fabric_tx_pkts")));
	CHECK_EQ(done, posted);
	CHECK(fabric_ctl("stats", reply, sizeof(reply)));
	CHECK_EQ(stat_of(reply, key), 0);
	CHECK_EQ(fx_stat(a.f, "fabric_queue_drops"), 0);
	CHECK_EQ(fx_stat(b.f, "fabric_rx_pkts"), fx_stat(a.f, "fabric_tx_pkts"));
	printf("# a: %lld packets, %lld kicks sent, %lld received\n",
	       fx_stat(a.f, "fabric_tx_pkts"), fx_stat(a.f, "fabric_kicks_sent"),
	       fx_stat(a.f, "fabric_kicks_rcvd"));
	/* a kick per pass of the loop at most, and a pass sends 8 or more */
	CHECK(fx_stat(a.f, "fabric_kicks_sent") * 8 <=
	      fx_stat(a.f, "fabric_tx_pkts"));
	pair_down(&a, &b);
}

/* Until @f's "fabric_direct_links" stat is @n (with @g pumped too). */
static bool direct_links_are(struct fx *f, struct fx *g, long long n)
{
	return pump_until(f, g, fx_stat(f, "fabric_direct_links") == n);
}

/* An RDMA WRITE of MSG bytes a -> b, completed and landed. */
static void write_a_to_b(struct side *a, struct side *b, unsigned int seed)
{
	uint8_t *sa = gpa(a->f, a->buf), *sb = gpa(b->f, b->buf);
	struct orca_cqe c = {};

	pattern(sa, MSG, seed);
	post_send(a->f, &a->qp, ORCA_WR_RDMA_WRITE, a->buf, MSG, a->lk,
		  iova(b->buf + PAGE), b->lk);
	CHECK(wait_cqe2(a, b, &c));
	CHECK_EQ(c.status, ORCA_CQE_SUCCESS);
	CHECK(!memcmp(sa, sb + PAGE, MSG));
}

/*
 * Direct links (orca_fabric_proto.h): once the switch forwards a packet
 * between two ports on rings, it gives them a link of their own.  The
 * data then goes through it, the switch's per-port counters still see
 * every packet, and the link goes with a port going down (both ends and
 * the fabric let go), comes back after it is up, and goes when a port's
 * emulator leaves.
 */
static void fabric_direct_links(void)
{
	struct side a = {}, b = {};
	char reply[4096], key[48], err[64];
	long long before;
	unsigned int i;

	CHECK(pair_up(&a, &b, ORCA_QPT_RC, NULL));
	pair_connect_rc_retry(&a, &b, 1, 7, 18);
	write_a_to_b(&a, &b, 1);
	CHECK(direct_links_are(a.f, b.f, 1));
	CHECK(direct_links_are(b.f, a.f, 1));
	before = fx_stat(a.f, "fabric_direct_tx_pkts");
	for (i = 0; i < 3; i++)
		write_a_to_b(&a, &b, 2 + i);
	/* 3 WRITEs of 20 packets each went through it, their ACKs back */
	printf("# direct link: a sent %lld packets through it, b %lld\n",
	       fx_stat(a.f, "fabric_direct_tx_pkts"),
	       fx_stat(b.f, "fabric_direct_tx_pkts"));
	CHECK(fx_stat(a.f, "fabric_direct_tx_pkts") - before >= 3 * 20);
	CHECK(fx_stat(b.f, "fabric_direct_tx_pkts") >= 3);
	CHECK_EQ(fx_stat(b.f, "fabric_direct_rx_pkts"),
		 fx_stat(a.f, "fabric_direct_tx_pkts"));
	CHECK(fabric_ctl("stats", reply, sizeof(reply)));
	CHECK_EQ(stat_of(reply, "direct_links"), 1);
	CHECK_EQ(stat_of(reply, "direct_opened"), 1);
	/* the switch's counters: through it and through the link alike */
	snprintf(key, sizeof(key), "lid%u_in", lid_of(a.f));
	CHECK_EQ(stat_of(reply, key), fx_stat(a.f, "fabric_tx_pkts"));
	snprintf(key, sizeof(key), "lid%u_out", lid_of(b.f));
	CHECK_EQ(stat_of(reply, key), fx_stat(b.f, "fabric_rx_pkts"));

	/* b down: the link is gone at both ends and at the fabric */
	CHECK_EQ(orca_dev_hook_port(&b.f->dev, false, err, sizeof(err)), 0);
	CHECK(direct_links_are(a.f, b.f, 0));
	CHECK_EQ(fx_stat(b.f, "fabric_direct_links"), 0);
	CHECK(fabric_ctl("stats", reply, sizeof(reply)));
	CHECK_EQ(stat_of(reply, "direct_links"), 0);
	/* up again: the next traffic gets a new one */
	CHECK_EQ(orca_dev_hook_port(&b.f->dev, true, err, sizeof(err)), 0);
	CHECK(wait_port(b.f, a.f, ORCA_PORT_ACTIVE));
	write_a_to_b(&a, &b, 7);
	CHECK(direct_links_are(a.f, b.f, 1));
	write_a_to_b(&a, &b, 8);
	CHECK(fabric_ctl("stats", reply, sizeof(reply)));
	CHECK_EQ(stat_of(reply, "direct_opened"), 2);
	CHECK_EQ(stat_of(reply, "direct_links"), 1);
	/* b's emulator leaves: a finds the link's socket closed */
	CHECK(canaries_ok(b.f));
	fx_free(b.f);
	CHECK(direct_links_are(a.f, NULL, 0));
	CHECK(fabric_ctl("stats", reply, sizeof(reply)));
	CHECK_EQ(stat_of(reply, "direct_links"), 0);
	CHECK(canaries_ok(a.f));
	fx_free(a.f);
	fabric_stop();
}

/*
 * The RC send window: toward a port behind a direct link it is the
 * link's ring (ORCA_DIRECT_UNACKED_PSNS), toward one through the switch
 * half the switch's queue (ORCA_MAX_UNACKED_PSNS).  b reads nothing, a
 * WRITEs 100 packets: all of them go into the direct link, but only 64
 * toward the switch.
 */
static void window_to_b(bool direct, long long want)
{
	static const char *const no_direct[] = { "fabric_direct=0", NULL };
	struct side a = {}, b = {};
	uint64_t ba, bb;
	long long before;
	uint32_t lka, lkb;

	CHECK(pair_up(&a, &b, ORCA_QPT_RC, direct ? NULL : no_direct));
	ba = heap_alloc(8 * PAGE);
	bb = heap_alloc(8 * PAGE);
	CHECK_EQ(reg_mr(a.f, a.f->pdn, ba, 8 * PAGE, all_access, &lka), 0);
	CHECK_EQ(reg_mr(b.f, b.f->pdn, bb, 8 * PAGE, all_access, &lkb), 0);
	pair_connect_rc_retry(&a, &b, 1, 7, 18);
	write_a_to_b(&a, &b, 1);
	CHECK(direct_links_are(a.f, b.f, direct));
	before = fx_stat(a.f, "fabric_tx_pkts");
	/* 100 packets of 256 bytes; b is not pumped: no ACK comes */
	post_send(a.f, &a.qp, ORCA_WR_RDMA_WRITE, ba, 100 * 256, lka, iova(bb),
		  lkb);
	pump_ms(a.f, NULL, 200);
	printf("# %s: %lld of 100 packets sent before an ACK\n",
	       direct ? "direct link" : "through the switch",
	       fx_stat(a.f, "fabric_tx_pkts") - before);
	CHECK_EQ(fx_stat(a.f, "fabric_tx_pkts") - before, want);
	/* b reads: the rest goes, and the WRITE completes */
	CHECK(pump_until(a.f, b.f, fx_stat(a.f, "fabric_tx_pkts") - before >=
			 100));
	pair_down(&a, &b);
}

static void fabric_direct_window(void)
{
	window_to_b(true, 100);
	window_to_b(false, ORCA_MAX_UNACKED_PSNS);
}

/*
 * A full direct link holds its sender back as a full ring to the switch
 * does: b reads nothing, a's UD SENDs stop once b's ring of the link
 * (256 slots) and what the switch holds for it are full, nothing is
 * lost, and everything arrives once b reads.
 */
static void fabric_direct_slow_port(void)
{
	struct side a = {}, b = {};
	unsigned int i, done = 0, posted = 0;
	char reply[4096], key[48];
	uint32_t ahn;

	CHECK(pair_up(&a, &b, ORCA_QPT_UD, NULL));
	ud_rts(a.f, &a.qp);
	ud_rts(b.f, &b.qp);
	ahn = ah_to(a.f, b.f, false);
	/* one round with b reading: the link opens */
	send8(&a, &b, ahn);
	posted = 8;
	CHECK(pump_until(a.f, b.f, reap(&a, &done) && done == posted &&
			 fx_stat(a.f, "fabric_direct_links") == 1 &&
			 fx_stat(b.f, "fabric_direct_links") == 1));
	/* b stops reading: rounds until one does not complete */
	for (i = 0; i < 80 && done == posted; i++) {
		send8(&a, &b, ahn);
		posted += 8;
		pump_ms(a.f, NULL, 20);
		CHECK(reap(&a, &done));
	}
	CHECK(done < posted);
	i = done;
	pump_ms(a.f, NULL, 300);
	CHECK(reap(&a, &done));
	CHECK_EQ(done, i);
	printf("# b not reading: a stopped after %u of %u SENDs, %lld through the link\n",
	       done, posted, fx_stat(a.f, "fabric_direct_tx_pkts"));
	/* the link's ring is full: exactly its slots wait in it */
	CHECK(fx_stat(a.f, "fabric_direct_tx_pkts") -
	      fx_stat(b.f, "fabric_direct_rx_pkts") == 256);
	CHECK(fabric_ctl("stats", reply, sizeof(reply)));
	snprintf(key, sizeof(key), "lid%u_queue_drops", lid_of(b.f));
	CHECK_EQ(stat_of(reply, key), 0);
	CHECK_EQ(fx_stat(a.f, "fabric_queue_drops"), 0);
	/* b reads again: all of it goes and arrives */
	CHECK(pump_until(a.f, b.f, reap(&a, &done) && done == posted &&
			 fx_stat(b.f, "fabric_rx_pkts") ==
			 fx_stat(a.f, "fabric_tx_pkts")));
	CHECK_EQ(done, posted);
	CHECK(fx_stat(a.f, "fabric_direct_kicks_sent") * 8 <=
	      fx_stat(a.f, "fabric_direct_tx_pkts"));
	pair_down(&a, &b);
}

/*
 * A port that misuses its direct link: a raw port on rings that takes
 * direct links sends one packet to a through the switch, which gives
 * them a link.  Through it, a packet with another port's SLID and a
 * message that is not a packet are dropped and counted at a; one with
 * the port's own SLID is taken; a slot length past the slot breaks the
 * ring, and a drops the link and goes on working with b.
 */
static void fabric_direct_hostile(void)
{
	static uint8_t m[ORCA_FAB_MSG_MAX];
	static struct orca_pkt p;
	struct side a = {}, b = {};
	struct orca_fab_hello h = {};
	struct orca_fab_direct d;
	struct {
		struct orca_fab_direct d;
		struct orca_fab_direct_keys k;
	} om;
	struct orca_ring r0, r1, tx;
	long long drops, rx;
	unsigned int nfds;
	size_t size = orca_ring_map_size(64), dsize, len, got;
	const uint8_t *msg;
	uint16_t my_lid = 0;
	void *mem, *dmem;
	int fd, mfd, fds[2];
	uint8_t *slot;

	CHECK(pair_up(&a, &b, ORCA_QPT_RC, NULL));
	pair_connect_rc(&a, &b, 3);
	fd = sock_to(fab_sock, SOCK_SEQPACKET);
	mfd = orca_ring_memfd("test-rings", 64, &mem, &size);
	CHECK(fd >= 0 && mfd >= 0);
	CHECK(!orca_ring_open(&r0, mem, size, 64, 0, false));
	CHECK(!orca_ring_open(&r1, mem, size, 64, 1, false));
	h.h.type = ORCA_FAB_HELLO;
	h.h.version = ORCA_FAB_VERSION;
	h.port_guid = htole64(0xbadd);
	h.flags = ORCA_FAB_HELLO_SHM | ORCA_FAB_HELLO_DIRECT;
	CHECK_EQ(msgq_send_fds(fd, &h, sizeof(h), &mfd, 1), 0);
	close(mfd);
	CHECK_EQ(recv_msg(fd, m, sizeof(m)), sizeof(struct orca_fab_hdr));
	CHECK_EQ(m[0], ORCA_FAB_SHM_ACK);
	/* LID_ASSIGN comes through ring 1 now */
	CHECK(pump_until(a.f, b.f, (msg = orca_ring_peek(&r1, &got))));
	CHECK(msg && got == sizeof(struct orca_fab_lid) &&
	      msg[0] == ORCA_FAB_LID_ASSIGN);
	if (msg)
		my_lid = le16toh(((const struct orca_fab_lid *)msg)->lid);
	orca_ring_pop(&r1);

	/* one packet to a through the switch (on the socket, with ICRC) */
	memset(&p, 0, sizeof(p));
	p.opcode = IB_RC | IB_SEND_ONLY;
	p.dlid = lid_of(a.f);
	p.slid = my_lid;
	p.pkey = 0xffff;
	p.dqpn = 0x77777;
	p.paylen = 64;
	memset(m, 0, 8);
	m[0] = ORCA_FAB_PKT;
	m[1] = ORCA_FAB_VERSION;
	len = orca_pkt_encode(&p, m + 8);
	CHECK(len > 0);
	CHECK(send(fd, m, 8 + len, 0) > 0);
	/* the switch's answer: a direct link to a */
	CHECK(pump_until(a.f, b.f, fx_stat(a.f, "fabric_direct_links") == 1));
	CHECK(poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1,
		   WAIT_MS) == 1);
	CHECK_EQ(msgq_recv_fds(fd, &om, sizeof(om), fds, &nfds), sizeof(om));
	d = om.d;
	/* the built-in SM's switch enforces no partitions */
	CHECK_EQ(om.k.n_tx, ORCA_FAB_DIRECT_KEYS_ALL);
	CHECK_EQ(om.k.n_rx, ORCA_FAB_DIRECT_KEYS_ALL);
	CHECK_EQ(d.h.type, ORCA_FAB_DIRECT_OPEN);
	CHECK_EQ(nfds, 2);
	CHECK_EQ(le16toh(d.peer_lid), lid_of(a.f));
	dsize = orca_ring_map_size(le32toh(d.nslots));
	dmem = mmap(NULL, dsize, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	CHECK(dmem != MAP_FAILED);
	CHECK(!orca_ring_open(&tx, dmem, dsize, le32toh(d.nslots), d.ring,
			      false));
	drops = fx_stat(a.f, "fabric_decode_drops");
	rx = fx_stat(a.f, "fabric_direct_rx_pkts");

	/* another port's SLID: dropped; a KICK in the ring: dropped */
	p.slid = lid_of(b.f);
	slot = orca_ring_slot(&tx);
	memcpy(slot, m, 8);
	slot[2] = ORCA_FAB_F_NO_ICRC;
	orca_ring_publish(&tx, 8 + orca_pkt_encode_flags(&p, slot + 8,
							 ORCA_PKT_NO_ICRC));
	slot = orca_ring_slot(&tx);
	memset(slot, 0, 8);
	slot[0] = ORCA_FAB_KICK;
	slot[1] = ORCA_FAB_VERSION;
	orca_ring_publish(&tx, 8);
	/* its own SLID: taken */
	p.slid = my_lid;
	slot = orca_ring_slot(&tx);
	memcpy(slot, m, 8);
	slot[2] = ORCA_FAB_F_NO_ICRC;
	orca_ring_publish(&tx, 8 + orca_pkt_encode_flags(&p, slot + 8,
							 ORCA_PKT_NO_ICRC));
	CHECK(pump_until(a.f, b.f,
			 fx_stat(a.f, "fabric_decode_drops") - drops == 2 &&
			 fx_stat(a.f, "fabric_direct_rx_pkts") - rx == 1));
	CHECK_EQ(fx_stat(a.f, "fabric_direct_links"), 1);
	/* a slot longer than a slot: the ring is broken, the link gone */
	slot = orca_ring_slot(&tx);
	orca_ring_publish(&tx, ORCA_RING_SLOT);
	CHECK(direct_links_are(a.f, b.f, 0));
	CHECK_EQ(fx_stat(a.f, "fabric_decode_drops") - drops, 2);
	munmap(dmem, dsize);
	close(fds[0]);
	close(fds[1]);
	munmap(mem, size);
	close(fd);

	/* and a still works with b */
	send_a_to_b(&a, &b, 12);
	pair_down(&a, &b);
}

int main(int argc, char **argv)
{
	bool verbose = fabric_args(argc, argv);

	orca_log_set_quiet(!verbose);
	if (!fab_bin) {
		printf("# no orca-fabric given: the fabric cases are skipped\n");
		return tap_done();
	}
	RUN(fabric_rc_ops);
	RUN(fabric_ud_uc);
	RUN(fabric_rc_lossy);
	RUN(fabric_peer_down);
	RUN(fabric_hostile_peer);
	RUN(fabric_backpressure);
	RUN(fabric_slow_port);
	RUN(fabric_slow_port_rings);
	RUN(fabric_mixed_links);
	RUN(fabric_ring_offers);
	RUN(fabric_direct_links);
	RUN(fabric_direct_slow_port);
	RUN(fabric_direct_hostile);
	RUN(fabric_direct_window);
	return fabric_done();
}
