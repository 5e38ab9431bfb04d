// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * twohost: the data path between two hosts (the two guests of
 * scripts/vm2.sh, one device each, joined by the fabric).  The QP numbers,
 * LIDs, keys and the ECE offer go over TCP on the guest link.
 *
 *   twohost -d orca0 --server PORT            (the other guest, via peer)
 *   twohost -d orca0 --connect ADDR:PORT      (prints TAP)
 *
 *   options (after those): --one-port  both ends on one port (one guest,
 *                          the server on 127.0.0.1): the LIDs are the same
 *                          --lossy     the link loses packets: UD may lose
 *                          a message (IBTA), each one received must be right
 *
 * ECE: the client sends its offer (ibv_query_ece); the server sets it
 * before RTR, which leaves it what both support, and answers with its own
 * offer and that result; the client sets the result before its RTR.  Both
 * must then read the intersection of the two offers.
 *
 * Data, every byte checked by the side that receives it: RC SENDs of 8 B,
 * 4 KiB and 200 KiB (many packets) and SEND_WITH_IMM, RDMA WRITE of
 * 256 KiB (checked by the server), WRITE_WITH_IMM, RDMA READ of 256 KiB,
 * FETCH_ADD and CMP_SWAP on the server's memory, an ATOMIC WRITE (IBA 1.5,
 * ibv_wr_atomic_write; both devices offer it, or it is a skip), then the
 * same SENDs from the server to the client; UD SENDs through an address
 * handle to the
 * server's LID (payload after the 40 bytes of GRH room, source QPN and
 * LID in the completion).
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "../verbs/common.h"

#define BIG		(200 * 1024)
#define RW_LEN		(256 * 1024)
/* where things are in each side's registered buffer */
#define SEND_SRC	0			/* SENDs, 210 KiB */
#define READ_SRC	(256 * 1024)		/* server: what the client reads */
#define RECV_AREA	(512 * 1024)		/* SENDs land here */
#define WRITE_AREA	(1024 * 1024)		/* client's source, server's target */
#define READ_DST	(1280 * 1024)		/* client: what it read */
#define UD_AREA		(1536 * 1024)		/* 3 x 1 KiB */
#define ATOMIC_RES	(1792 * 1024)		/* client: the old values */
#define BUF_SIZE	(2048 * 1024)
#define ATOMIC_OFF	(BUF_SIZE - 64)		/* server: the word */
#define AWRITE_OFF	(BUF_SIZE - 56)		/* server: ATOMIC WRITE's */
#define UD_QKEY		0x11111111
#define UD_MSG		512
#define IMM		0x12345678

/* what each side tells the other, in network order where it matters */
struct info {
	uint32_t lid, rc_qpn, ud_qpn, rkey;
	uint64_t addr;
	uint32_t ece_vendor, ece_offer, ece_result;
	uint32_t status;	/* server: 0, or what failed */
};

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *rc, *ud;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct ibv_port_attr port;
	struct ibv_ece ece;
	bool has_ece;
	bool has_awrite;	/* the RC QP takes ibv_wr_atomic_write */
	int sock;
};

/* what the client's ATOMIC WRITE puts at the server's AWRITE_OFF */
static const uint8_t awrite_bytes[8] = { 'o', 'r', 'c', 'a', 0xa7, 0x01, 0x5e, 0xed };

static bool server_role, one_port, lossy;

/* ------------------------------------------------------------ TCP */
static bool xfer(int fd, void *p, size_t len, bool out)
{
	uint8_t *b = p;

	while (len) {
		ssize_t n = out ? send(fd, b, len, MSG_NOSIGNAL) :
				  recv(fd, b, len, 0);

		if (n <= 0)
			return false;
		b += n;
		len -= (size_t)n;
	}
	return true;
}

static bool send_u32(int fd, uint32_t v)
{
	v = htonl(v);
	return xfer(fd, &v, sizeof(v), true);
}

static bool recv_u32(int fd, uint32_t *v)
{
	if (!xfer(fd, v, sizeof(*v), false))
		return false;
	*v = ntohl(*v);
	return true;
}

static int tcp_listen_accept(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port) };
	int one = 1, ls, fd;

	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0)
		return -1;
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 1)) {
		close(ls);
		return -1;
	}
	fd = accept(ls, NULL, NULL);
	close(ls);
	return fd;
}

static int tcp_connect(const char *hostport)
{
	char host[128], *colon;
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM }, *ai;
	long long deadline = now_ms() + wait_ms();
	int fd = -1;

	snprintf(host, sizeof(host), "%s", hostport);
	colon = strrchr(host, ':');
	if (!colon)
		return -1;
	*colon = 0;
	if (getaddrinfo(host, colon + 1, &hints, &ai))
		return -1;
	while (now_ms() < deadline) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd >= 0 && !connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
		sleep_ms(200);
	}
	freeaddrinfo(ai);
	return fd;
}

static bool info_xfer(int fd, struct info *i, bool out)
{
	uint32_t *w = (uint32_t *)i;
	size_t k, n = sizeof(*i) / sizeof(uint32_t);
	bool good = true;

	for (k = 0; k < n && good; k++)
		good = out ? send_u32(fd, w[k]) : recv_u32(fd, &w[k]);
	return good;
}

/* ------------------------------------------------------------ verbs */
static bool side_open(struct side *s, const char *dev)
{
	struct ibv_qp_init_attr init = {
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_init_attr_ex rc = {
		.cap = init.cap,
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_READ |
				  IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
				  IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
				  IBV_QP_EX_WITH_ATOMIC_WRITE,
	};

	s->ctx = open_device_by_name(dev);
	if (!s->ctx || ibv_query_port(s->ctx, 1, &s->port))
		return false;
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 256, NULL, NULL, 0);
	s->buf = aligned_alloc(4096, BUF_SIZE);
	if (!s->pd || !s->cq || !s->buf)
		return false;
	memset(s->buf, 0, BUF_SIZE);
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	/* an extended QP, so that it can post ATOMIC WRITE if offered */
	rc.send_cq = rc.recv_cq = s->cq;
	rc.pd = s->pd;
	s->rc = ibv_create_qp_ex(s->ctx, &rc);
	s->has_awrite = s->rc != NULL;
	if (!s->rc && errno == EOPNOTSUPP) {
		rc.send_ops_flags &= ~(uint64_t)IBV_QP_EX_WITH_ATOMIC_WRITE;
		s->rc = ibv_create_qp_ex(s->ctx, &rc);
	}
	init.qp_type = IBV_QPT_UD;
	s->ud = ibv_create_qp(s->pd, &init);
	if (!s->mr || !s->rc || !s->ud)
		return false;
	s->has_ece = !ibv_query_ece(s->rc, &s->ece);
	return true;
}

/* RESET -> RTS to the peer's RC QP; @ece (if any) is set in INIT */
static int rc_connect(struct side *s, const struct info *peer,
		      const struct ibv_ece *ece)
{
	struct ibv_qp_attr a;

	fill_attr(&a, s->rc, &s->port, IBV_QPS_INIT);
	a.qp_access_flags |= IBV_ACCESS_REMOTE_ATOMIC;
	if (ibv_modify_qp(s->rc, &a, required_mask(IBV_QPT_RC, IBV_QPS_RESET,
						    IBV_QPS_INIT)))
		return -1;
	if (ece && ibv_set_ece(s->rc, (struct ibv_ece *)ece))
		return -2;
	fill_attr(&a, s->rc, &s->port, IBV_QPS_RTR);
	a.dest_qp_num = peer->rc_qpn;
	a.ah_attr.dlid = (uint16_t)peer->lid;
	a.rq_psn = 100;
	a.max_dest_rd_atomic = 4;
	if (ibv_modify_qp(s->rc, &a, required_mask(IBV_QPT_RC, IBV_QPS_INIT,
						    IBV_QPS_RTR)))
		return -1;
	fill_attr(&a, s->rc, &s->port, IBV_QPS_RTS);
	a.sq_psn = 100;
	a.max_rd_atomic = 4;
	return ibv_modify_qp(s->rc, &a, required_mask(IBV_QPT_RC, IBV_QPS_RTR,
						       IBV_QPS_RTS));
}

static int ud_ready(struct side *s)
{
	enum ibv_qp_state st[] = { IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR,
				   IBV_QPS_RTS };
	int i;

	for (i = 0; i < 3; i++)
		if (walk_to(s->ud, &s->port, st[i], st[i + 1]))
			return -1;
	return 0;
}

static int post_recv(struct ibv_qp *qp, struct side *s, uint64_t off,
		     uint32_t len, uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)s->buf + off, len, s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 },
			   *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static int post_send(struct ibv_qp *qp, struct side *s, struct ibv_send_wr *wr,
		     uint64_t off, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)s->buf + off, len, s->mr->lkey };
	struct ibv_send_wr *bad;

	wr->sg_list = &sge;
	wr->num_sge = 1;
	wr->send_flags |= IBV_SEND_SIGNALED;
	return ibv_post_send(qp, wr, &bad);
}

/* one completion within @ms; status and opcode checked by the caller */
static bool poll_one(struct side *s, struct ibv_wc *wc, int ms)
{
	long long deadline = now_ms() + ms;
	int n;

	while ((n = ibv_poll_cq(s->cq, 1, wc)) == 0 && now_ms() < deadline)
		;
	return n == 1;
}

static void fill(uint8_t *p, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

static bool same(const uint8_t *p, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (uint8_t)(seed * 131 + i * 7 + (i >> 8)))
			return false;
	return true;
}

/* a result: TAP on the client; on the server a line and the status */
static bool check(bool pass, const char *what, uint32_t *status, uint32_t bit)
{
	if (server_role) {
		fprintf(stderr, "twohost server: %s: %s\n", what,
			pass ? "ok" : "FAILED");
		if (!pass)
			*status |= bit;
		return pass;
	}
	return ok(pass, "%s", what);
}

/*
 * The SEND part both sides run in turn: @sender sends 8 B, 4 KiB, 200 KiB
 * and 64 B with immediate, the receiver checks each.
 */
static uint32_t sends(struct side *s, bool sender, const char *dir)
{
	static const uint32_t len[] = { 8, 4096, BIG, 64 };
	uint32_t status = 0, i, off;
	struct ibv_wc wc;
	char what[160];
	bool good;

	for (i = 0, off = 0; i < 4; off += len[i], i++) {
		if (sender) {
			struct ibv_send_wr wr = {
				.wr_id = i,
				.opcode = i == 3 ? IBV_WR_SEND_WITH_IMM :
						   IBV_WR_SEND,
				.imm_data = htonl(IMM),
			};

			fill(s->buf + SEND_SRC + off, len[i], i + 1);
			good = !post_send(s->rc, s, &wr, SEND_SRC + off, len[i]) &&
			       poll_one(s, &wc, wait_ms()) && wc.status == IBV_WC_SUCCESS;
			snprintf(what, sizeof(what), "%s: RC SEND of %u B completes",
				 dir, len[i]);
			check(good, what, &status, 1);
			continue;
		}
		good = poll_one(s, &wc, wait_ms()) && wc.status == IBV_WC_SUCCESS &&
		       wc.wr_id == 100 + i && wc.byte_len == len[i] &&
		       same(s->buf + RECV_AREA + off, len[i], i + 1) &&
		       (i != 3 || ((wc.wc_flags & IBV_WC_WITH_IMM) &&
				   ntohl(wc.imm_data) == IMM));
		snprintf(what, sizeof(what),
			 "%s: RC SEND of %u B received whole and right%s",
			 dir, len[i], i == 3 ? ", with its immediate" : "");
		check(good, what, &status, 2);
	}
	return status;
}

static void post_send_recvs(struct side *s)
{
	static const uint32_t len[] = { 8, 4096, BIG, 64 };
	uint32_t i, off;

	for (i = 0, off = 0; i < 4; off += len[i], i++)
		post_recv(s->rc, s, RECV_AREA + off, len[i], 100 + i);
}

/* ------------------------------------------------------------ server */
static int server(struct side *s, int port)
{
	struct info me = {}, peer;
	uint32_t status = 0, go, got;
	struct ibv_wc wc;
	uint64_t *atom = (uint64_t *)(s->buf + ATOMIC_OFF);
	int i;

	server_role = true;
	s->sock = tcp_listen_accept(port);
	if (s->sock < 0 || !info_xfer(s->sock, &peer, false))
		return 1;
	me.lid = s->port.lid;
	me.rc_qpn = s->rc->qp_num;
	me.ud_qpn = s->ud->qp_num;
	me.rkey = s->mr->rkey;
	me.addr = (uintptr_t)s->buf;
	if (s->has_ece) {
		struct ibv_ece req = { .vendor_id = peer.ece_vendor,
				       .options = peer.ece_offer }, got;

		me.ece_vendor = s->ece.vendor_id;
		me.ece_offer = s->ece.options;
		/* the client's offer, as rdma_cm's passive side does */
		if (rc_connect(s, &peer, &req) || ibv_query_ece(s->rc, &got))
			status |= 128;
		me.ece_result = got.options;
	} else if (rc_connect(s, &peer, NULL)) {
		status |= 128;
	}
	if (ud_ready(s))
		status |= 128;
	/* the client's data: its SENDs, its WRITE, the READ source, atomics */
	fill(s->buf + READ_SRC, RW_LEN, 9);
	*atom = 1000;
	post_send_recvs(s);
	post_recv(s->rc, s, 0, 0, 200);			/* WRITE_WITH_IMM */
	for (i = 0; i < 3; i++)
		post_recv(s->ud, s, UD_AREA + i * 1024, UD_MSG + 40, 300 + i);
	me.status = status;
	if (!info_xfer(s->sock, &me, true))
		return 1;

	status |= sends(s, false, "client -> server");
	/* the client's WRITE is in place once it says so */
	if (!recv_u32(s->sock, &go))
		return 1;
	check(same(s->buf + WRITE_AREA, RW_LEN, 7),
	      "RDMA WRITE of 256 KiB is in the server's memory", &status, 4);
	check(poll_one(s, &wc, wait_ms()) && wc.status == IBV_WC_SUCCESS &&
	      wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM && wc.wr_id == 200 &&
	      ntohl(wc.imm_data) == IMM,
	      "RDMA WRITE_WITH_IMM: the server's receive completes with the immediate",
	      &status, 8);
	/*
	 * UD: each WQE takes the next message; on a lossy link a message may
	 * be missing (then the rest arrive in later WQEs), never wrong.
	 */
	for (i = 0, got = 0; i < 3; i++) {
		uint32_t seed;
		bool good;

		if (!poll_one(s, &wc, lossy ? 3000 : wait_ms())) {
			if (lossy)
				break;
			check(false, "UD SEND through an AH: received", &status, 16);
			continue;
		}
		/* which message this is (a lost one shifts the rest) */
		seed = 23;
		if (wc.wr_id == 300u + got)
			for (seed = 20; seed < 23; seed++)
				if (same(s->buf + UD_AREA + got * 1024 + 40,
					 UD_MSG, seed))
					break;
		good = wc.status == IBV_WC_SUCCESS &&
		       wc.wr_id == 300u + got && wc.byte_len == UD_MSG + 40 &&
		       wc.src_qp == peer.ud_qpn && wc.slid == peer.lid &&
		       seed < 23 && (lossy || seed == 20u + (uint32_t)i);
		check(good, "UD SEND through an AH: payload, source QPN and LID",
		      &status, 16);
		got++;
	}
	if (lossy)
		fprintf(stderr, "twohost server: %u of 3 UD messages arrived\n",
			got);
	/* atomics: 1000 + 5 * 3, then swapped for 77 */
	if (!recv_u32(s->sock, &go))
		return 1;
	check(*atom == 77, "atomics left the server's word at 77", &status, 32);
	if (s->has_awrite)
		check(!memcmp(s->buf + AWRITE_OFF, awrite_bytes, 8),
		      "the client's ATOMIC WRITE left its 8 bytes", &status, 256);
	/* now the server sends */
	if (!send_u32(s->sock, status) || !recv_u32(s->sock, &go))
		return 1;
	status |= sends(s, true, "server -> client");
	send_u32(s->sock, status);
	recv_u32(s->sock, &go);		/* the client is done */
	return status ? 1 : 0;
}

/* ------------------------------------------------------------ client */
static int client(struct side *s, const char *hostport)
{
	struct info me = {}, peer;
	uint64_t *old = (uint64_t *)(s->buf + ATOMIC_RES);
	uint32_t status, dummy = 0;
	struct ibv_ah_attr aa = {};
	struct ibv_ece got = {};
	struct ibv_wc wc;
	struct ibv_ah *ah;
	bool good;
	int i;

	s->sock = tcp_connect(hostport);
	if (!ok(s->sock >= 0, "connected to the server at %s", hostport))
		return tap_done();
	me.lid = s->port.lid;
	me.rc_qpn = s->rc->qp_num;
	me.ud_qpn = s->ud->qp_num;
	me.rkey = s->mr->rkey;
	me.addr = (uintptr_t)s->buf;
	me.ece_vendor = s->has_ece ? s->ece.vendor_id : 0;
	me.ece_offer = s->has_ece ? s->ece.options : 0;
	if (!info_xfer(s->sock, &me, true) || !info_xfer(s->sock, &peer, false))
		return tap_done();
	diag("client LID %u QPN %u/%u, server LID %u QPN %u/%u", me.lid,
	     me.rc_qpn, me.ud_qpn, peer.lid, peer.rc_qpn, peer.ud_qpn);
	ok(peer.status == 0 && me.lid && peer.lid &&
	   (one_port ? me.lid == peer.lid : me.lid != peer.lid),
	   "the server is ready; the ports have %s LIDs (%u, %u)",
	   one_port ? "the same" : "distinct", me.lid, peer.lid);
	if (s->has_ece) {
		struct ibv_ece req = { .vendor_id = s->ece.vendor_id,
				       .options = peer.ece_result };
		uint32_t both = me.ece_offer & peer.ece_offer;

		ok(!rc_connect(s, &peer, &req),
		   "RC QP connected to the other host, set_ece(the server's result 0x%x) in INIT",
		   peer.ece_result);
		good = !ibv_query_ece(s->rc, &got);
		ok(good && got.options == both && peer.ece_result == both,
		   "ECE: offers 0x%x and 0x%x; both sides read their intersection 0x%x (client 0x%x, server 0x%x)",
		   me.ece_offer, peer.ece_offer, both, got.options,
		   peer.ece_result);
	} else {
		ok(!rc_connect(s, &peer, NULL), "RC QP connected to the other host");
		skip("the device has no ECE", "ECE between the hosts");
	}
	ok(!ud_ready(s), "UD QP ready");

	sends(s, true, "client -> server");
	/* RDMA WRITE 256 KiB, then WRITE_WITH_IMM of 0 bytes */
	{
		struct ibv_send_wr wr = { .opcode = IBV_WR_RDMA_WRITE };

		fill(s->buf + WRITE_AREA, RW_LEN, 7);
		wr.wr.rdma.remote_addr = peer.addr + WRITE_AREA;
		wr.wr.rdma.rkey = peer.rkey;
		good = !post_send(s->rc, s, &wr, WRITE_AREA, RW_LEN) &&
		       poll_one(s, &wc, wait_ms()) && wc.status == IBV_WC_SUCCESS &&
		       wc.opcode == IBV_WC_RDMA_WRITE;
		ok(good, "RDMA WRITE of 256 KiB to the other host completes");
		memset(&wr, 0, sizeof(wr));
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htonl(IMM);
		wr.wr.rdma.remote_addr = peer.addr;
		wr.wr.rdma.rkey = peer.rkey;
		good = !post_send(s->rc, s, &wr, 0, 0) && poll_one(s, &wc, wait_ms()) &&
		       wc.status == IBV_WC_SUCCESS;
		ok(good, "RDMA WRITE_WITH_IMM completes");
	}
	/* RDMA READ 256 KiB of what the server filled */
	{
		struct ibv_send_wr wr = { .opcode = IBV_WR_RDMA_READ };

		wr.wr.rdma.remote_addr = peer.addr + READ_SRC;
		wr.wr.rdma.rkey = peer.rkey;
		good = !post_send(s->rc, s, &wr, READ_DST, RW_LEN) &&
		       poll_one(s, &wc, wait_ms()) && wc.status == IBV_WC_SUCCESS &&
		       wc.opcode == IBV_WC_RDMA_READ &&
		       same(s->buf + READ_DST, RW_LEN, 9);
		ok(good, "RDMA READ of 256 KiB from the other host: every byte right");
	}
	/* UD: three SENDs through an AH to the server's LID */
	aa.dlid = (uint16_t)peer.lid;
	aa.port_num = 1;
	ah = ibv_create_ah(s->pd, &aa);
	ok(ah != NULL, "UD address handle to LID %u", peer.lid);
	for (i = 0; ah && i < 3; i++) {
		struct ibv_send_wr wr = { .opcode = IBV_WR_SEND };

		fill(s->buf + UD_AREA + i * 1024, UD_MSG, 20 + i);
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = peer.ud_qpn;
		wr.wr.ud.remote_qkey = UD_QKEY;
		good = !post_send(s->ud, s, &wr, UD_AREA + i * 1024, UD_MSG) &&
		       poll_one(s, &wc, wait_ms()) && wc.status == IBV_WC_SUCCESS;
		ok(good, "UD SEND %d to the other host completes", i);
	}
	send_u32(s->sock, 1);		/* the server checks WRITE and UD */
	/* atomics: three FETCH_ADD 5 from 1000, then CMP_SWAP 1015 -> 77 */
	for (i = 0; i < 4; i++) {
		struct ibv_send_wr wr = {
			.opcode = i < 3 ? IBV_WR_ATOMIC_FETCH_AND_ADD :
					  IBV_WR_ATOMIC_CMP_AND_SWP,
		};

		wr.wr.atomic.remote_addr = peer.addr + ATOMIC_OFF;
		wr.wr.atomic.rkey = peer.rkey;
		wr.wr.atomic.compare_add = i < 3 ? 5 : 1015;
		wr.wr.atomic.swap = 77;
		*old = 0;
		good = !post_send(s->rc, s, &wr, ATOMIC_RES, 8) &&
		       poll_one(s, &wc, wait_ms()) && wc.status == IBV_WC_SUCCESS &&
		       *old == 1000u + 5 * (i < 3 ? i : 3);
		ok(good, "%s on the other host returns the old value %llu",
		   i < 3 ? "FETCH_ADD 5" : "CMP_SWAP 1015 -> 77",
		   (unsigned long long)*old);
	}
	/* ATOMIC WRITE: 8 bytes the server checks */
	if (s->has_awrite) {
		struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(s->rc);

		ibv_wr_start(qpx);
		qpx->wr_id = 0xa7;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_atomic_write(qpx, peer.rkey, peer.addr + AWRITE_OFF,
				    awrite_bytes);
		good = !ibv_wr_complete(qpx) && poll_one(s, &wc, wait_ms()) &&
		       wc.status == IBV_WC_SUCCESS &&
		       wc.opcode == IBV_WC_ATOMIC_WRITE && wc.wr_id == 0xa7;
		ok(good, "ATOMIC WRITE of 8 bytes to the other host completes IBV_WC_ATOMIC_WRITE");
	} else {
		skip("this device has no ATOMIC_WRITE", "ATOMIC WRITE to the other host");
	}
	send_u32(s->sock, 1);
	/* the server's checks so far, then its SENDs */
	post_send_recvs(s);
	if (recv_u32(s->sock, &status))
		ok(status == 0, "the server checked the WRITE, WRITE_WITH_IMM, UD, atomics, ATOMIC WRITE and SENDs (failures 0x%x)",
		   status);
	send_u32(s->sock, 1);
	sends(s, false, "server -> client");
	if (recv_u32(s->sock, &status))
		ok(status == 0, "the server's sends completed (failures 0x%x)", status);
	send_u32(s->sock, dummy);
	if (ah)
		ibv_destroy_ah(ah);
	return tap_done();
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	struct side s = {};
	int ret;

	for (; argc > 3; argc--) {
		if (!strcmp(argv[argc - 1], "--one-port"))
			one_port = true;
		else if (!strcmp(argv[argc - 1], "--lossy"))
			lossy = true;
		else
			break;
	}
	if (argc != 3 || (strcmp(argv[1], "--server") && strcmp(argv[1], "--connect"))) {
		fprintf(stderr, "usage: twohost [-d DEV] --server PORT | --connect ADDR:PORT [--one-port] [--lossy]\n");
		return 2;
	}
	if (!side_open(&s, dev)) {
		fprintf(stderr, "twohost: cannot set up %s: %s\n", dev,
			strerror(errno));
		if (!strcmp(argv[1], "--connect"))
			ok(false, "set up %s", dev);
		return strcmp(argv[1], "--connect") ? 1 : tap_done();
	}
	if (!strcmp(argv[1], "--server"))
		ret = server(&s, atoi(argv[2]));
	else
		ret = client(&s, argv[2]);
	if (s.sock >= 0)
		close(s.sock);
	ibv_destroy_qp(s.ud);
	ibv_destroy_qp(s.rc);
	ibv_dereg_mr(s.mr);
	ibv_destroy_cq(s.cq);
	ibv_dealloc_pd(s.pd);
	ibv_close_device(s.ctx);
	free(s.buf);
	return ret;
}
