// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ud_probe: does a partition let UD SENDs through from one host to the
 * other?  The receiver has a UD QP on the P_Key asked for and a marker QP
 * on P_Key index 0 (the default partition); the sender sends N messages
 * on its own QP with that P_Key, waits until the device has sent them
 * all, then one marker.  One path, one VL, in order: once the marker is
 * in, every probe that was to arrive has arrived, so the count is final
 * without a pause.
 *
 *   ud_probe -d orca0 --server PORT --pkey P [-n N]     (prints the count)
 *   ud_probe -d orca0 --connect ADDR:PORT --pkey P [-n N] [--qkey Q]
 *            [--path-bits B]
 *
 * The server prints "received K of N with P_Key P ..., from LID L" and
 * exits 0 once the marker is in, 1 if it never came (ORCA_WAIT seconds,
 * default 60) or anything else failed.  The client exits 0 if each send
 * completed successfully (UD: sent, not delivered).  The QP numbers and
 * the LID go over TCP.  Each received probe's payload is checked, and the
 * source LIDs of all that came in (the marker's too) are listed.
 *
 * --qkey sends the probes with Q_Key Q instead of the receiver's (the
 * marker keeps the right one); --path-bits asks for source path bits B
 * in the address handle of both, i.e. for source LID LID | B, which the
 * device must cut to the port's LMC.
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "../verbs/common.h"

#define QKEY		0x0ca7f00d
#define MSG		64
#define GRH		40
#define MAX_N		256
#define MAX_SLIDS	4

struct ud_side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *probe, *marker;
	struct ibv_mr *mr;
	uint8_t *buf;			/* MAX_N + 1 slots of GRH + MSG */
	uint16_t lid, index;
};

static int fail(const char *what)
{
	fprintf(stderr, "ud_probe: %s: %s\n", what, strerror(errno));
	return 1;
}

/* the index of exactly @pkey in port 1's table; -1 if it is not there */
static int pkey_index(struct ibv_context *ctx, uint16_t pkey)
{
	struct ibv_device_attr da;
	__be16 v;
	int i;

	if (ibv_query_device(ctx, &da))
		return -1;
	for (i = 0; i < da.max_pkeys; i++)
		if (!ibv_query_pkey(ctx, 1, i, &v) && be16toh(v) == pkey)
			return i;
	return -1;
}

static struct ibv_qp *ud_qp(struct ud_side *s, uint16_t index)
{
	struct ibv_qp_init_attr init = {
		.send_cq = s->cq, .recv_cq = s->cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = MAX_N + 1, .max_recv_wr = MAX_N + 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = index, .port_num = 1,
		.qkey = QKEY,
	};
	struct ibv_qp *qp = ibv_create_qp(s->pd, &init);

	if (!qp)
		return NULL;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return NULL;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return NULL;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return NULL;
	return qp;
}

static int side_init(struct ud_side *s, const char *dev, uint16_t pkey)
{
	struct ibv_port_attr pa;
	int idx;

	s->ctx = open_device_by_name(dev);
	if (!s->ctx)
		return fail(dev);
	idx = pkey_index(s->ctx, pkey);
	if (idx < 0) {
		fprintf(stderr, "ud_probe: P_Key 0x%04x is not in %s's table\n",
			pkey, dev);
		return 1;
	}
	s->index = idx;
	if (ibv_query_port(s->ctx, 1, &pa))
		return fail("ibv_query_port");
	s->lid = pa.lid;
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = s->pd ? ibv_create_cq(s->ctx, 2 * MAX_N + 4, NULL, NULL, 0) :
			NULL;
	s->buf = calloc(MAX_N + 1, GRH + MSG);
	if (!s->cq || !s->buf)
		return fail("PD, CQ, buffer");
	s->mr = ibv_reg_mr(s->pd, s->buf, (MAX_N + 1) * (GRH + MSG),
			   IBV_ACCESS_LOCAL_WRITE);
	s->probe = s->mr ? ud_qp(s, s->index) : NULL;
	s->marker = s->probe ? ud_qp(s, 0) : NULL;
	if (!s->marker)
		return fail("UD QPs");
	return 0;
}

static int post_recv(struct ud_side *s, struct ibv_qp *qp, unsigned int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(s->buf + slot * (GRH + MSG)),
		.length = GRH + MSG, .lkey = s->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

static int tcp_line(int fd, char *line, size_t len)
{
	size_t n = 0;

	while (n + 1 < len) {
		if (read(fd, line + n, 1) != 1)
			return -1;
		if (line[n] == '\n')
			break;
		n++;
	}
	line[n] = 0;
	return 0;
}

/* the distinct source LIDs seen, as "L, L" ("none" for none) */
struct slid_set {
	uint16_t lid[MAX_SLIDS];
	unsigned int n, more;
};

static void slid_add(struct slid_set *set, uint16_t lid)
{
	unsigned int i;

	for (i = 0; i < set->n; i++)
		if (set->lid[i] == lid)
			return;
	if (set->n < MAX_SLIDS)
		set->lid[set->n++] = lid;
	else
		set->more++;
}

static void slid_print(const struct slid_set *set)
{
	unsigned int i;

	if (!set->n)
		printf("none");
	for (i = 0; i < set->n; i++)
		printf("%s%u", i ? ", " : "", set->lid[i]);
	if (set->more)
		printf(" and %u more", set->more);
}

static int server(const char *dev, int port, uint16_t pkey, unsigned int n)
{
	struct slid_set slids = { 0 };
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port) };
	unsigned int i, got = 0, bad = 0;
	bool marker = false;
	long long deadline;
	struct ibv_wc wc[16];
	char line[128];
	int one = 1, ls, fd, k, j;
	struct ud_side s = { 0 };

	if (side_init(&s, dev, pkey))
		return 1;
	for (i = 0; i < n; i++)
		if (post_recv(&s, s.probe, i))
			return fail("ibv_post_recv");
	if (post_recv(&s, s.marker, MAX_N))
		return fail("ibv_post_recv");
	ls = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(ls, 1))
		return fail("listen");
	fd = accept(ls, NULL, NULL);
	if (fd < 0)
		return fail("accept");
	snprintf(line, sizeof(line), "%u %u %u\n", s.lid, s.probe->qp_num,
		 s.marker->qp_num);
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		return fail("write");
	deadline = now_ms() + wait_ms();
	while (!marker && now_ms() < deadline) {
		k = ibv_poll_cq(s.cq, 16, wc);
		if (k < 0)
			return fail("ibv_poll_cq");
		for (j = 0; j < k; j++) {
			if (wc[j].status == IBV_WC_SUCCESS)
				slid_add(&slids, wc[j].slid);
			if (wc[j].wr_id == MAX_N) {
				marker = wc[j].status == IBV_WC_SUCCESS;
				continue;
			}
			got++;
			for (i = 0; i < MSG; i++)
				if (s.buf[wc[j].wr_id * (GRH + MSG) + GRH + i] !=
				    (uint8_t)(wc[j].wr_id + i))
					break;
			if (wc[j].status != IBV_WC_SUCCESS ||
			    wc[j].byte_len != GRH + MSG || i != MSG)
				bad++;
		}
		if (!k)
			sleep_ms(1);
	}
	/* the client's count, once it is done */
	if (tcp_line(fd, line, sizeof(line)))
		line[0] = 0;
	printf("received %u of %u with P_Key 0x%04x (index %u here), %u bad; marker %s; from LID ",
	       got, n, pkey, s.index, bad, marker ? "in" : "never came");
	slid_print(&slids);
	printf("; the sender: %s\n", line);
	close(fd);
	close(ls);
	return marker && !bad ? 0 : 1;
}

static int send_one(struct ud_side *s, struct ibv_qp *qp, struct ibv_ah *ah,
		    uint32_t dqpn, uint32_t qkey, unsigned int slot)
{
	uint8_t *p = s->buf + slot * (GRH + MSG);
	struct ibv_sge sge = { .addr = (uintptr_t)p, .length = MSG,
			       .lkey = s->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = slot, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = ah, .remote_qpn = dqpn, .remote_qkey = qkey },
	}, *bad;
	unsigned int i;

	for (i = 0; i < MSG; i++)
		p[i] = (uint8_t)(slot + i);
	return ibv_post_send(qp, &wr, &bad);
}

/* wait for @n send completions; the number that succeeded, -1 on error */
static int sent(struct ud_side *s, unsigned int n)
{
	long long deadline = now_ms() + wait_ms();
	unsigned int done = 0, good = 0;
	struct ibv_wc wc[16];
	int k, j;

	while (done < n && now_ms() < deadline) {
		k = ibv_poll_cq(s->cq, 16, wc);
		if (k < 0)
			return -1;
		for (j = 0; j < k; j++, done++)
			good += wc[j].status == IBV_WC_SUCCESS;
		if (!k)
			sleep_ms(1);
	}
	return done == n ? (int)good : -1;
}

static int client(const char *dev, const char *hostport, uint16_t pkey,
		  unsigned int n, uint32_t qkey, uint8_t path_bits)
{
	struct addrinfo hints = { .ai_family = AF_INET,
				  .ai_socktype = SOCK_STREAM }, *ai;
	unsigned int lid, probe_qpn, marker_qpn, i;
	struct ibv_ah_attr aa = { .port_num = 1 };
	long long deadline = now_ms() + wait_ms();
	char host[128], line[128], *colon;
	struct ud_side s = { 0 };
	struct ibv_ah *ah;
	int fd = -1, good;

	if (side_init(&s, dev, pkey))
		return 1;
	snprintf(host, sizeof(host), "%s", hostport);
	colon = strrchr(host, ':');
	if (!colon)
		return 1;
	*colon = 0;
	if (getaddrinfo(host, colon + 1, &hints, &ai))
		return fail("getaddrinfo");
	while (fd < 0 && now_ms() < deadline) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen)) {
			close(fd);
			fd = -1;
			sleep_ms(200);
		}
	}
	freeaddrinfo(ai);
	if (fd < 0 || tcp_line(fd, line, sizeof(line)) ||
	    sscanf(line, "%u %u %u", &lid, &probe_qpn, &marker_qpn) != 3)
		return fail("the server's QPs");
	aa.dlid = lid;
	aa.src_path_bits = path_bits;
	ah = ibv_create_ah(s.pd, &aa);
	if (!ah)
		return fail("ibv_create_ah");
	for (i = 0; i < n; i++)
		if (send_one(&s, s.probe, ah, probe_qpn, qkey, i))
			return fail("ibv_post_send");
	good = sent(&s, n);
	/* all of them out of the device: now the marker, behind them */
	if (good >= 0 && (send_one(&s, s.marker, ah, marker_qpn, QKEY, MAX_N) ||
			  sent(&s, 1) != 1))
		good = -1;
	snprintf(line, sizeof(line),
		 "sent %d of %u with P_Key 0x%04x (index %u), Q_Key 0x%08x, path bits 0x%02x (LID %u), then the marker\n",
		 good, n, pkey, s.index, qkey, path_bits, s.lid);
	printf("%s", line);
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		return fail("write");
	close(fd);
	return good == (int)n ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *dev = "orca0", *server_port = NULL, *peer = NULL;
	unsigned long n = 50, pkey = 0x10000, qkey = QKEY, path_bits = 0;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-d") && i + 1 < argc)
			dev = argv[++i];
		else if (!strcmp(argv[i], "--server") && i + 1 < argc)
			server_port = argv[++i];
		else if (!strcmp(argv[i], "--connect") && i + 1 < argc)
			peer = argv[++i];
		else if (!strcmp(argv[i], "--pkey") && i + 1 < argc)
			pkey = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--qkey") && i + 1 < argc)
			qkey = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--path-bits") && i + 1 < argc)
			path_bits = strtoul(argv[++i], NULL, 0);
		else
			break;
	}
	if (i != argc || !!server_port == !!peer || pkey > 0xffff || !n ||
	    n > MAX_N || qkey > 0xffffffffUL || path_bits > 0x7f) {
		fprintf(stderr, "usage: ud_probe [-d DEV] --server PORT | --connect ADDR:PORT [--qkey Q] [--path-bits 0..127] --pkey P [-n 1..%u]\n",
			MAX_N);
		return 1;
	}
	if (server_port)
		return server(dev, atoi(server_port), pkey, n);
	return client(dev, peer, pkey, n, qkey, path_bits);
}
