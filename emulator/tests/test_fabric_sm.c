// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Two devices on a real orca-fabric (started from the path the Makefile
 * passes), as its subnet manager sees them: LIDs from the SM, the port's
 * states and events, port-down / port-up, the fabric going and coming
 * back, a port with LMC 2.
 *
 * With the path of orca-emu too, two orca-emu processes on the fabric:
 * the connection from their poll loop, before and after the fabric is
 * there, LIDs in their stats, port-down / port-up through their control
 * sockets.
 *
 * usage: orca-emu-fabric-sm-tests [-v] PATH/TO/orca-fabric
 *                                 [PATH/TO/orca-emu]
 */
#include "be.h"
#include "fabric_fixture.h"

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
	CHECK_EQ(fx_stat(a, "fabric_lid"), la);
	CHECK_EQ(fx_stat(a, "fabric_links"), 1);
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
	CHECK_EQ(fx_stat(a, "fabric_links"), 2);
	CHECK(!bad_active);
	fx_free(a);
	fx_free(b);
	fabric_stop();
}

/* A PortInfo Get or Set (@method) of port 1 as another host's SMP
 * would come through the driver (a WC: M_Key checked), key @key. */
static uint8_t wc_port_info(struct fx *f, uint8_t method, uint64_t key,
			    uint8_t *r)
{
	struct orca_mad_ifc_in in = { .port = 1, .flags = ORCA_MAD_IFC_F_WC };
	struct orca_mad_ifc_out out = {};

	in.mad[0] = 1;
	in.mad[1] = 0x01;
	in.mad[2] = 1;
	in.mad[3] = method;
	put_be(in.mad + 16, 0x0015, 2);
	put_be(in.mad + 24, key, 8);
	if (method == 2) {
		/* its own Get written back, state "no change": a LID of 0x77 */
		CHECK_EQ(wc_port_info(f, 1, key, r), ORCA_MAD_IFC_REPLY);
		memcpy(in.mad + 64, r + 64, 64);
		in.mad[64 + 32] &= 0xf0;
		in.mad[64 + 33] &= 0x0f;
		put_be(in.mad + 64 + 16, 0x77, 2);
	}
	if (fx_cmd(f, ORCA_CMD_MAD_IFC, &in, sizeof(in), &out, sizeof(out)))
		return 0xff;
	memcpy(r, out.mad, 256);
	return out.result;
}

/*
 * Review finding 2: the built-in SM protects every port with an M_Key of
 * its own (protection level 1), so another host's PortInfo Set without
 * it is dropped and counted, a Get is answered with the key hidden; the
 * two ports' keys differ.  The SM's own key passes.
 */
static void fabric_mkeys(void)
{
	struct fx *a, *b;
	uint64_t ka, kb;
	uint8_t r[256];

	CHECK(fabric_start());
	a = fab_dev_cfg(GUID_A, NULL, true);
	b = fab_dev_cfg(GUID_B, NULL, false);
	CHECK(wait_port(a, b, ORCA_PORT_ACTIVE));
	ka = a->dev.mad->port[1].mkey;
	kb = b->dev.mad->port[1].mkey;
	CHECK(ka && kb && ka != kb);
	CHECK_EQ(a->dev.mad->port[1].mkey_protect, 1);
	CHECK_EQ(wc_port_info(a, 1, 0, r), ORCA_MAD_IFC_REPLY);
	CHECK_EQ(get_be(r + 64, 8), 0);			/* hidden */
	CHECK_EQ(wc_port_info(a, 2, kb, r), ORCA_MAD_IFC_DROP);
	CHECK_EQ(get_be(r + 64 + 44, 2), 0);	/* (the reply means nothing) */
	CHECK_EQ(lid_of(a), le16toh(port_of(a).lid));
	CHECK(lid_of(a) != 0x77);
	CHECK_EQ(a->dev.mad->port[1].mkey_violations, 1);
	/* with the key: a Get shows it */
	CHECK_EQ(wc_port_info(a, 1, ka, r), ORCA_MAD_IFC_REPLY);
	CHECK_EQ(get_be(r + 64, 8), ka);
	fx_free(a);
	fx_free(b);
	fabric_stop();
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
	bool verbose = fabric_args(argc, argv);

	orca_log_set_quiet(!verbose);
	emu_bin = argc > 2 + verbose ? argv[2 + verbose] : NULL;
	if (!fab_bin) {
		printf("# no orca-fabric given: the fabric cases are skipped\n");
		return tap_done();
	}
	RUN(fabric_lids);
	RUN(fabric_lmc);
	RUN(fabric_mkeys);
	if (emu_bin)
		RUN(fabric_processes);
	else
		printf("# no orca-emu given: fabric_processes skipped\n");
	return fabric_done();
}
