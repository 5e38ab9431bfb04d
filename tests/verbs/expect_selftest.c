// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * expect_selftest: the verb tests' configuration model (expect.c) on its
 * own, without a device.  tests/Makefile runs it at build time, so a
 * parser or rule that drifted from Documentation/infiniband/orca.rst fails
 * the build instead of making every VM test compare against a wrong value.
 * The expected values below are literals from orca.rst.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expect.h"

static int failed, total;

static void check(int pass, const char *what)
{
	total++;
	if (!pass) {
		failed++;
		printf("not ok %d - %s\n", total, what);
	} else {
		printf("ok %d - %s\n", total, what);
	}
}

/* expect_init on "prog ARGS..." (NULL-terminated); 0 or -1 */
static int run(struct expect *e, const char *first, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;
	const char *a;

	argv[argc++] = "selftest";
	va_start(ap, first);
	for (a = first; a && argc < 31; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	return expect_init(e, &argc, argv);
}

static char *write_file(const char *dir, const char *name, const char *text)
{
	static char path[3][512];
	static int n;
	char *p = path[n++ % 3];
	FILE *f;

	snprintf(p, sizeof(path[0]), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(p);
		exit(1);
	}
	return p;
}

int main(void)
{
	char dir[] = "/tmp/orca-expect.XXXXXX";
	struct expect e;
	char *conf, line[] = "/x/orca-emu --ram /dev/shm/a\\ b --set 'max_qp=8' --once";
	char *w[8];

	unsetenv("ORCA_JOB");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}

	/* the documented defaults and the derived values */
	check(!run(&e, NULL), "defaults parse");
	check(e.fw_version[0] == 1 && e.fw_version[1] == 4 &&
	      e.fw_version[2] == 7, "default fw_version 1.4.7");
	check(e.node_guid == 0x00ca7afffe000001ULL &&
	      e.sys_image_guid == 0x00ca7afffe000001ULL,
	      "default sys_image_guid = node_guid");
	check(e.port_guid == 0x00ca7afffe000002ULL,
	      "default port_guid = node_guid + 1");
	check(e.ece_vendor_id == 0x00ca7a && e.ece_options == 0xf &&
	      expect_has_ece(&e), "default ECE: vendor_id, options 0xf");
	check(e.dev_caps == 0x147cff, "default dev_caps 0x147cff");
	check(e.pkey == 0xffff && e.n_pkey_table == 1 &&
	      e.pkey_table[0] == 0xffff, "default P_Key table {0xffff}");
	check(expect_dio(&e, 0) == 3 && expect_dio(&e, 1) == 3 &&
	      expect_dio(&e, 2) == 2, "default dio 3,3,2");
	check(e.max_vl_num == 1 && e.max_mcast_grp == 256 &&
	      e.max_mcast_qp_attach == 16 &&
	      e.max_total_mcast_qp_attach == 1024 &&
	      e.max_fast_reg_page_list_len == 512 && e.max_dm_size == 256 * 1024,
	      "default max_vl_num 1, multicast 256/16/1024, 512-page fast registration, 256 KiB of device memory");
	check(e.hca_core_clock == 1000000 && e.completion_timestamp_mask == ~0ULL,
	      "default clock 1 GHz (1000000 kHz), 64 bits");
	check(e.max_srq == 1024 && e.max_srq_wr == 4096 &&
	      e.max_srq_sge == 16 && e.max_mw == 4096,
	      "default max_srq 1024, max_srq_wr 4096, max_srq_sge 16, max_mw 4096");

	/* value syntaxes */
	check(!run(&e, "--set", "node_guid=00:aa:bb:cc:dd:ee:ff:01", NULL) &&
	      e.node_guid == 0x00aabbccddeeff01ULL &&
	      e.sys_image_guid == 0x00aabbccddeeff01ULL &&
	      e.port_guid == 0x00aabbccddeeff02ULL,
	      "GUID with ':' separators; derived GUIDs follow");
	check(!run(&e, "--set", "fw_version=2.9.13", "--set", "lid=0x2a",
		   "--set", "max_qp=010", NULL) &&
	      e.fw_version[0] == 2 && e.fw_version[1] == 9 &&
	      e.fw_version[2] == 13 && e.lid == 0x2a && e.max_qp == 10,
	      "version, 0x hex, decimal with a leading zero");
	check(run(&e, "--set", "fw_version=1.2", NULL) &&
	      run(&e, "--set", "fw_version=65536.0.0", NULL) &&
	      run(&e, "--set", "max_qp=-1", NULL) &&
	      run(&e, "--set", "max_qp=0x", NULL) &&
	      run(&e, "--set", "max_qp=1 2", NULL) &&
	      run(&e, "--set", "max_qp=0x10000000000000000", NULL) &&
	      run(&e, "--set", "node_guid=0x11223344556677889", NULL) &&
	      run(&e, "--set", "ece=2", NULL) &&
	      run(&e, "--set", "max_qp", NULL),
	      "bad values are refused");
	check(run(&e, "--set", "no_such_key=1", NULL) &&
	      !run(&e, "--set", "fw_name=x", NULL),
	      "unknown key refused, ignore-listed key accepted");

	/* derivation rules */
	check(!run(&e, "--set", "ece=0", NULL) && !expect_has_ece(&e) &&
	      e.ece_vendor_id == 0 && e.ece_options == 0 &&
	      !(e.dev_caps & EXPECT_DEV_CAP_ECE), "ece=0 removes ECE");
	check(!run(&e, "--set", "ece_vendor_id=0", NULL) && !expect_has_ece(&e) &&
	      e.ece_options == 0 && !(e.dev_caps & EXPECT_DEV_CAP_ECE),
	      "ece_vendor_id=0 removes ECE");
	check(!run(&e, "--set", "dev_caps=0x0ce7", NULL) &&
	      expect_has_ece(&e) && e.ece_vendor_id == 0x00ca7a,
	      "dev_caps=0x0ce7 keeps ECE");
	check(!run(&e, "--set", "dev_caps=0x14e7", NULL) &&
	      !expect_has_ece(&e) && e.ece_vendor_id == 0,
	      "dev_caps without the ECE bit removes ECE");
	check(!run(&e, "--set", "vendor_id=0x00c0de", NULL) &&
	      e.ece_vendor_id == 0x00c0de,
	      "ece_vendor_id follows vendor_id unless set");
	check(!run(&e, "--set", "pci_write_end_padding=0", NULL) &&
	      !(e.dev_caps & EXPECT_DEV_CAP_PCI_WRITE_END_PADDING),
	      "pci_write_end_padding=0 clears the capability bit");
	check(!run(&e, "--set", "dev_caps=0x18e7", NULL) &&
	      e.pci_write_end_padding == 0,
	      "dev_caps without PCI_WRITE_END_PADDING clears the key");
	check(!run(&e, "--set", "max_mw=0", NULL) && e.max_mw == 0 &&
	      !(e.dev_caps & (EXPECT_DEV_CAP_MEM_WINDOW |
			      EXPECT_DEV_CAP_MW_TYPE_2B)),
	      "max_mw=0 clears both memory window bits");
	check(!run(&e, "--set", "dev_caps=0x0ce7", NULL) && e.max_mw == 0,
	      "dev_caps without MEM_WINDOW means max_mw 0");
	check(!run(&e, "--set", "hca_core_clock=0", NULL) &&
	      e.completion_timestamp_mask == 0,
	      "hca_core_clock=0: no clock, no timestamp mask");
	check(!run(&e, "--set", "completion_timestamp_mask=0", NULL) &&
	      e.hca_core_clock == 0,
	      "completion_timestamp_mask=0: no clock");
	check(run(&e, "--set", "max_dm_size=4097", NULL) != 0 &&
	      run(&e, "--set", "max_dm_size=0x81000", NULL) != 0,
	      "max_dm_size not whole pages, or past 512 KiB, is refused");
	check(run(&e, "--set", "completion_timestamp_mask=0xff00", NULL) != 0,
	      "completion_timestamp_mask=0xff00 (not 2^n - 1) is refused");
	check(!run(&e, "--set", "dev_caps=0x2007", NULL) && e.max_mw == 4096 &&
	      (e.dev_caps & EXPECT_DEV_CAP_MEM_WINDOW) &&
	      !(e.dev_caps & EXPECT_DEV_CAP_MW_TYPE_2B),
	      "MEM_WINDOW without MW_TYPE_2B: type 1 only");
	check(!run(&e, "--set", "dio_send=1", NULL) && expect_dio(&e, 0) == 3,
	      "dio WHOLE_MSG is reported with ALIGNED_128_BYTES");
	check(run(&e, "--set", "dev_caps=0x18", NULL) &&
	      run(&e, "--set", "max_mtu=3", NULL),
	      "no RC/UC/UD, or active_mtu > max_mtu, is refused");

	/* P_Key table */
	check(!run(&e, "--set", "pkey_tbl_len=2", "--set",
		   "pkey_table=0x8001, 0x7fff", NULL) &&
	      e.pkey == 0x8001 && e.n_pkey_table == 2 &&
	      e.pkey_table[1] == 0x7fff, "pkey_table sets pkey");
	check(run(&e, "--set", "pkey_tbl_len=1", "--set",
		  "pkey_table=0x8001,0x7fff", NULL) &&
	      run(&e, "--set", "pkey_tbl_len=2", "--set", "pkey=0x8002",
		  "--set", "pkey_table=0x8001,0x7fff", NULL) &&
	      run(&e, "--set", "pkey_tbl_len=2", "--set",
		  "pkey_table=0x8001,,1", NULL),
	      "pkey_table longer than pkey_tbl_len, pkey != entry 0, empty entry: refused");

	/* a file, then --set in order, whatever the order on the line */
	conf = write_file(dir, "c.conf",
			  "# comment\n\n port_guid = 0x42 # trailing\nmax_qp=5\n");
	check(!run(&e, "--set", "max_qp=6", "--config", conf, NULL) &&
	      e.port_guid == 0x42 && e.max_qp == 6,
	      "--config file, --set applied after it");
	check(run(&e, "--config", conf, "--config", conf, NULL),
	      "two --config are refused");

	/* the emulator command line of vm.sh */
	check(expect_split_q(line, w, 8) == 6 && !strcmp(w[2], "/dev/shm/a b") &&
	      !strcmp(w[4], "max_qp=8"), "expect_split_q");
	write_file(dir, "emu-cmdline.txt",
		   "/b/orca-emu --socket /tmp/s --once --config /nonexistent\\ x "
		   "--set max_qp=8 ");
	setenv("ORCA_JOB", dir, 1);
	check(run(&e, NULL), "emu-cmdline.txt with a missing --config file is an error");
	write_file(dir, "emu-cmdline.txt",
		   "/b/orca-emu --socket /tmp/s --once --set max_qp=8 --set lid=0x2a ");
	check(!run(&e, NULL) && e.max_qp == 8 && e.lid == 0x2a &&
	      strstr(e.source, "emu-cmdline.txt"), "emu-cmdline.txt is read");
	check(!run(&e, "--set", "max_qp=3", NULL) && e.max_qp == 3 &&
	      e.lid == 0x11, "options on the test's command line win");

	unlink(conf);
	unlink(write_file(dir, "emu-cmdline.txt", ""));
	rmdir(dir);
	printf("1..%d\n", total);
	return failed ? 1 : 0;
}
