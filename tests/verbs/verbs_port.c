// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Port 1 as an admin sees it: ibv_query_port from the device's port
 * mirror, and the device's counters in rdma statistic.
 *
 *  1. ibv_query_port costs no firmware command (the emulator's
 *     op_QUERY_PORT does not move over 1000 queries) and returns what
 *     QUERY_PORT returns (debugfs query_port_fw=1 sends the command).
 *  2. Port down and up (hostctl): a query made as soon as
 *     IBV_EVENT_PORT_ERR / IBV_EVENT_PORT_ACTIVE arrives already sees the
 *     new state, and the whole change costs no QUERY_PORT either.
 *  3. N UD sends with a wrong Q_Key: the receiver drops them and
 *     qkey_viol_cntr grows by exactly N when the device reports
 *     IBV_DEVICE_BAD_QKEY_CNTR (and stays put when it does not).
 *  4. `rdma -j statistic show link DEV/1`: the device's counters
 *     (QUERY_COUNTERS, dev_*) move exactly with those N packets, and
 *     dev_cmds moves with the driver's fw_cmds.
 *
 *   verbs_port -d orca0
 */
#include "common.h"

static struct ibv_context *ctx;
static struct ibv_port_attr port;
static char knob[512];		/* debugfs query_port_fw */

static int knob_write(const char *v)
{
	int fd = open(knob, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, v, strlen(v));
	close(fd);
	return n == (ssize_t)strlen(v) ? 0 : -1;
}

static int knob_locate(const char *dev)
{
	char link[256], path[128];
	const char *pci;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device", dev);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return -1;
	link[n] = '\0';
	pci = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	snprintf(knob, sizeof(knob), "/sys/kernel/debug/orca/%s/query_port_fw",
		 pci);
	return access(knob, W_OK);
}

/* Every field libibverbs returns, as text, for a readable diff. */
static void port_str(char *buf, size_t len, const struct ibv_port_attr *a)
{
	snprintf(buf, len,
		 "state %d max_mtu %d active_mtu %d gid_tbl_len %d cap 0x%x max_msg_sz %u bad_pkey %u qkey_viol %u pkey_tbl_len %u lid %u sm_lid %u lmc %u max_vl %u sm_sl %u width %u speed %u phys_state %u link_layer %u cap2 0x%x",
		 a->state, a->max_mtu, a->active_mtu, a->gid_tbl_len,
		 a->port_cap_flags, a->max_msg_sz, a->bad_pkey_cntr,
		 a->qkey_viol_cntr, a->pkey_tbl_len, a->lid, a->sm_lid, a->lmc,
		 a->max_vl_num, a->sm_sl, a->active_width, a->active_speed,
		 a->phys_state, a->link_layer, a->port_cap_flags2);
}

static void test_no_command(void)
{
	unsigned long long q0 = emu_stat("op_QUERY_PORT"), q1;
	char mirror[512], fw[512];
	struct ibv_port_attr a, b;
	int i, fails = 0;

	for (i = 0; i < 1000; i++)
		fails += !!ibv_query_port(ctx, 1, &a);
	q1 = emu_stat("op_QUERY_PORT");
	ok(!fails && q1 == q0,
	   "1000 ibv_query_port: %d failed, %llu QUERY_PORT commands", fails,
	   q1 - q0);

	if (knob_locate(ibv_get_device_name(ctx->device))) {
		skip("no debugfs knob", "mirror and QUERY_PORT agree");
		return;
	}
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	ibv_query_port(ctx, 1, &a);
	if (knob_write("Y")) {
		ok(false, "write Y to %s", knob);
		return;
	}
	q0 = emu_stat("op_QUERY_PORT");
	fails = ibv_query_port(ctx, 1, &b);
	q1 = emu_stat("op_QUERY_PORT");
	knob_write("N");
	port_str(mirror, sizeof(mirror), &a);
	port_str(fw, sizeof(fw), &b);
	ok(!fails && q1 == q0 + 1, "query_port_fw=1: one QUERY_PORT (%llu)",
	   q1 - q0);
	ok(!strcmp(mirror, fw), "the mirror says what QUERY_PORT says");
	diag("mirror: %s", mirror);
	if (strcmp(mirror, fw))
		diag("fw:     %s", fw);
}

/* Wait for a port event, then query at once. */
static bool event_then_query(enum ibv_event_type type, const char *req,
			     enum ibv_port_state want)
{
	struct ibv_port_attr a;
	long long t0 = now_ms();
	bool got;

	if (hostctl(req, NULL, 0)) {
		ok(false, "hostctl %s", req);
		return false;
	}
	got = wait_event(ctx, type, NULL, wait_ms());
	if (!ok(got, "%s arrives after hostctl %s (%lld ms)", ev_str(type),
		req, now_ms() - t0))
		return false;
	memset(&a, 0, sizeof(a));
	got = !ibv_query_port(ctx, 1, &a);
	return ok(got && a.state == want, "queried right after %s: state %s",
		  ev_str(type), ibv_port_state_str(a.state));
}

static void test_port_change(void)
{
	unsigned long long q0 = emu_stat("op_QUERY_PORT");

	drain_async(ctx, 0);
	n_seen_events = 0;
	event_then_query(IBV_EVENT_PORT_ERR, "port-down", IBV_PORT_DOWN);
	/* up again in any case: the tests after this need the port */
	event_then_query(IBV_EVENT_PORT_ACTIVE, "port-up", IBV_PORT_ACTIVE);
	ok(emu_stat("op_QUERY_PORT") == q0,
	   "port down/up and the queries after it cost %llu QUERY_PORT commands",
	   emu_stat("op_QUERY_PORT") - q0);
}

/* One counter of `rdma -j statistic show link DEV/1`; ~0 if absent. */
static unsigned long long stat_of(const char *json, const char *name)
{
	char key[80];
	const char *p;

	snprintf(key, sizeof(key), "\"%s\":", name);
	p = strstr(json, key);
	return p ? strtoull(p + strlen(key), NULL, 10) : ~0ULL;
}

static bool rdma_statistic(char *buf, size_t len)
{
	char cmd[160];
	size_t n;
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "rdma -j statistic show link %s/1 2>&1",
		 ibv_get_device_name(ctx->device));
	f = popen(cmd, "r");
	if (!f)
		return false;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	return pclose(f) == 0 && n > 0;
}

#define N_BAD	7
#define MSG	100

/*
 * The kernel's MAD clients have the port too: after a port event ib_sa
 * asks the SM for its ClassPortInfo, up to 4 times 4 s apart (a 3 s
 * timeout, 1 s between tries; sa_query.c), and without a fabric nobody
 * answers.  Before the counters are compared, wait until the device has
 * sent nothing for longer than that gap, at most wait_ms().
 */
static void wait_port_quiet(void)
{
	char json[8192];
	unsigned long long last = ~0ULL, v;
	long long since = now_ms(), end = now_ms() + wait_ms();

	while (now_ms() < end && rdma_statistic(json, sizeof(json))) {
		v = stat_of(json, "dev_tx_packets");
		if (v != last) {
			last = v;
			since = now_ms();
		} else if (now_ms() - since > 4500) {
			break;
		}
		sleep_ms(250);
	}
	diag("the port sent nothing for %lld ms before the counters are read",
	     now_ms() - since);
}

static void test_qkey_and_counters(void)
{
	static const char *const names[] = {
		"dev_tx_packets", "dev_tx_bytes", "dev_rx_packets",
		"dev_rx_bytes", "dev_dropped_packets", "dev_send_wqes",
		"dev_cqes", "dev_cmds", "fw_cmds",
	};
	enum { TXP, TXB, RXP, RXB, DROP, WQES, CQES, DCMDS, FCMDS, N };
	unsigned long long before[N], after[N];
	bool read_ok = false;
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_ah_attr ah_attr = { .dlid = port.lid, .port_num = 1 };
	static char json_a[16384], json_b[16384];
	struct ibv_port_attr p0, p1;
	struct ibv_device_attr da;
	struct ibv_qp *s = NULL, *r = NULL;
	struct ibv_ah *ah = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_wc wc[16];
	int i, n, done = 0, bad;
	bool counts;
	char *buf;

	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	buf = calloc(1, 4096);
	if (!ok(pd && cq && buf && !ibv_query_device(ctx, &da), "PD, CQ"))
		goto out;
	counts = da.device_cap_flags & IBV_DEVICE_BAD_QKEY_CNTR;
	if (!da.max_ah) {
		skip("the device has no address handles (max_ah 0)",
		     "Q_Key violations and counters over UD");
		goto out;
	}
	mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	init.send_cq = init.recv_cq = cq;
	s = ibv_create_qp(pd, &init);
	r = ibv_create_qp(pd, &init);
	ah = ibv_create_ah(pd, &ah_attr);
	if (!ok(mr && s && r && ah, "MR, two UD QPs, AH"))
		goto out;
	for (i = 0; i < 2; i++) {
		struct ibv_qp *qp = i ? r : s;

		if (walk_to(qp, &port, IBV_QPS_RESET, IBV_QPS_INIT) ||
		    walk_to(qp, &port, IBV_QPS_INIT, IBV_QPS_RTR) ||
		    walk_to(qp, &port, IBV_QPS_RTR, IBV_QPS_RTS)) {
			ok(false, "UD QPs to RTS");
			goto out;
		}
	}
	for (i = 0; i < N_BAD; i++) {
		struct ibv_sge sge = { (uintptr_t)buf + 2048, 2048, mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge,
					  .num_sge = 1 }, *badw;

		ibv_post_recv(r, &wr, &badw);
	}

	wait_port_quiet();
	if (!ok(!ibv_query_port(ctx, 1, &p0) && rdma_statistic(json_a,
							      sizeof(json_a)),
		"ibv_query_port and rdma -j statistic show link before"))
		goto out;
	for (i = 0; i < N; i++)
		before[i] = stat_of(json_a, names[i]);
	/* r's Q_Key is fill_attr()'s 0x11111111 */
	for (i = 0; i < N_BAD; i++) {
		struct ibv_sge sge = { (uintptr_t)buf, MSG, mr->lkey };
		struct ibv_send_wr wr = { .wr_id = i, .sg_list = &sge,
					  .num_sge = 1, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED },
				   *badw;

		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = r->qp_num;
		wr.wr.ud.remote_qkey = 0x22222222;
		if (ibv_post_send(s, &wr, &badw))
			break;
	}
	for (long long end = now_ms() + wait_ms(); done < N_BAD && now_ms() < end;) {
		n = ibv_poll_cq(cq, 16, wc);
		for (i = 0; i < n; i++)
			done += wc[i].qp_num == s->qp_num &&
				wc[i].status == IBV_WC_SUCCESS;
		if (n < 0)
			break;
	}
	ok(done == N_BAD, "%d UD sends with a wrong Q_Key complete at the sender (%d)",
	   N_BAD, done);
	/*
	 * The receiver's side may count after the sender's completions: read
	 * again until the device has received and dropped all N_BAD (and,
	 * with the counter, counted them), at most wait_ms(); then compare.
	 */
	for (long long end = now_ms() + wait_ms();;) {
		sleep_ms(50);	/* past the hw_counters lifespan (10 ms) */
		read_ok = !ibv_query_port(ctx, 1, &p1) &&
			  rdma_statistic(json_b, sizeof(json_b));
		if (!read_ok || now_ms() >= end ||
		    (stat_of(json_b, names[RXP]) - before[RXP] >= N_BAD &&
		     stat_of(json_b, names[DROP]) - before[DROP] >= N_BAD &&
		     (!counts ||
		      p1.qkey_viol_cntr >= p0.qkey_viol_cntr + N_BAD)))
			break;
	}
	if (!ok(read_ok, "ibv_query_port and rdma -j statistic show link after"))
		goto out;
	ok(p1.qkey_viol_cntr == p0.qkey_viol_cntr + (counts ? N_BAD : 0),
	   "qkey_viol_cntr %u -> %u (device %s IBV_DEVICE_BAD_QKEY_CNTR)",
	   p0.qkey_viol_cntr, p1.qkey_viol_cntr, counts ? "has" : "lacks");
	ok(ibv_poll_cq(cq, 16, wc) == 0, "the receiver got nothing");

	for (i = 0, bad = 0; i < N; i++) {
		after[i] = stat_of(json_b, names[i]);
		if (before[i] == ~0ULL || after[i] == ~0ULL) {
			diag("%s missing from rdma statistic", names[i]);
			bad++;
		}
	}
	if (!ok(!bad, "rdma statistic lists the device's counters"))
		goto out;
	ok(after[TXP] - before[TXP] == N_BAD && after[RXP] - before[RXP] == N_BAD &&
	   after[DROP] - before[DROP] == N_BAD,
	   "dev_tx_packets +%llu, dev_rx_packets +%llu, dev_dropped_packets +%llu (%d each)",
	   after[TXP] - before[TXP], after[RXP] - before[RXP],
	   after[DROP] - before[DROP], N_BAD);
	ok(after[TXB] - before[TXB] == N_BAD * MSG &&
	   after[RXB] - before[RXB] == N_BAD * MSG,
	   "dev_tx_bytes +%llu, dev_rx_bytes +%llu (%d)",
	   after[TXB] - before[TXB], after[RXB] - before[RXB], N_BAD * MSG);
	ok(after[WQES] - before[WQES] == N_BAD &&
	   after[CQES] - before[CQES] == N_BAD,
	   "dev_send_wqes +%llu, dev_cqes +%llu (%d)",
	   after[WQES] - before[WQES], after[CQES] - before[CQES], N_BAD);
	ok(after[DCMDS] - before[DCMDS] == after[FCMDS] - before[FCMDS] &&
	   after[DCMDS] > before[DCMDS],
	   "dev_cmds +%llu as the driver's fw_cmds +%llu",
	   after[DCMDS] - before[DCMDS], after[FCMDS] - before[FCMDS]);
out:
	if (ah)
		ibv_destroy_ah(ah);
	if (s)
		ibv_destroy_qp(s);
	if (r)
		ibv_destroy_qp(r);
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	free(buf);
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);

	if (!have_hostctl()) {
		skip("not in the orca VM (no hostctl)", "port mirror tests");
		return tap_done();
	}
	ctx = open_device_by_name(dev);
	if (!ok(ctx != NULL, "open %s", dev))
		return tap_done();
	if (ok(!ibv_query_port(ctx, 1, &port), "query port 1")) {
		test_no_command();
		test_port_change();
		test_qkey_and_counters();
	}
	ibv_close_device(ctx);
	return tap_done();
}
