// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Unit tests of the device model core: its configuration.  What
 * QUERY_CAPS and QUERY_PORT report by default, the GID and P_Key tables
 * from the configuration, and the configuration parser itself (keys,
 * values, files, the checks across keys).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "orca_log.h"

/* ------------------------------------------------------------------ */
/* Queries                                                            */
/* ------------------------------------------------------------------ */

static void query_caps_defaults(void)
{
	struct fx *f = fx_up();
	struct orca_caps c;

	memset(&c, 0xee, sizeof(c));
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_CAPS, NULL, 0, &c, sizeof(c)), 0);
	CHECK_EQ(f->out_len, sizeof(c));
	CHECK_EQ(le64toh(c.fw_version), ORCA_FW_VERSION(1, 4, 7));
	CHECK_EQ(le64toh(c.node_guid), 0x00ca7afffe000001ULL);
	CHECK_EQ(le64toh(c.sys_image_guid), 0x00ca7afffe000001ULL);
	CHECK_EQ(le64toh(c.max_mr_size), 1ULL << 40);
	CHECK_EQ(le64toh(c.page_size_cap), 0xfffff000ULL);
	CHECK_EQ(le32toh(c.vendor_id), 0x00ca7a);
	CHECK_EQ(le32toh(c.vendor_part_id), 1);
	CHECK_EQ(le32toh(c.hw_ver), 1);
	CHECK_EQ(le32toh(c.dev_caps),
		 ORCA_DEV_CAP_RC | ORCA_DEV_CAP_UC | ORCA_DEV_CAP_UD |
		 ORCA_DEV_CAP_BAD_PKEY_CNTR | ORCA_DEV_CAP_BAD_QKEY_CNTR |
		 ORCA_DEV_CAP_SYS_IMAGE_GUID | ORCA_DEV_CAP_RC_RNR_NAK_GEN |
		 ORCA_DEV_CAP_PORT_ACTIVE_EVENT |
		 ORCA_DEV_CAP_PCI_WRITE_END_PADDING | ORCA_DEV_CAP_ECE |
		 ORCA_DEV_CAP_SQD_ASYNC_NOTIFY |
		 ORCA_DEV_CAP_MEM_WINDOW | ORCA_DEV_CAP_MW_TYPE_2B |
		 ORCA_DEV_CAP_RESERVED_LKEY | ORCA_DEV_CAP_UD_AV |
		 ORCA_DEV_CAP_MAD_QPS | ORCA_DEV_CAP_FAST_REG |
		 ORCA_DEV_CAP_KICK_RING |
		 ORCA_DEV_CAP_ATOMIC_WRITE);
	CHECK_EQ(le32toh(c.max_qp), 1024);
	CHECK_EQ(le32toh(c.max_qp_wr), 4096);
	CHECK_EQ(le32toh(c.max_send_sge), 16);
	CHECK_EQ(le32toh(c.max_recv_sge), 16);
	CHECK_EQ(le32toh(c.max_sge_rd), 16);
	CHECK_EQ(le32toh(c.max_cq), 1024);
	CHECK_EQ(le32toh(c.max_cqe), 65535);
	CHECK_EQ(le32toh(c.max_mr), 4096);
	CHECK_EQ(le32toh(c.max_pd), 256);
	CHECK_EQ(le32toh(c.max_qp_rd_atom), 16);
	CHECK_EQ(le32toh(c.max_qp_init_rd_atom), 16);
	CHECK_EQ(le32toh(c.max_res_rd_atom), 16 * 1024);
	CHECK_EQ(le32toh(c.max_mw), 4096);
	CHECK_EQ(le32toh(c.max_srq), 1024);
	CHECK_EQ(le32toh(c.max_srq_wr), 4096);
	CHECK_EQ(le32toh(c.max_srq_sge), 16);
	CHECK_EQ(le32toh(c.max_ah), 4096);
	CHECK_EQ(le32toh(c.max_mcast_grp), 256);
	CHECK_EQ(le32toh(c.max_mcast_qp_attach), 16);
	CHECK_EQ(le32toh(c.max_total_mcast_qp_attach), 1024);
	CHECK_EQ(le32toh(c.max_inline_data), 256);
	CHECK_EQ(le16toh(c.max_pkeys), 64);		/* review-fabric 11 */
	CHECK_EQ(c.local_ca_ack_delay, 15);
	CHECK_EQ(c.phys_port_cnt, 1);
	CHECK_EQ(c.atomic_cap, ORCA_ATOMIC_HCA);
	CHECK_EQ(c.num_comp_vectors, 1);
	CHECK_EQ(c.dio_send, ORCA_DIO_WHOLE_MSG | ORCA_DIO_ALIGNED_128_BYTES);
	CHECK_EQ(c.dio_rdma_write, ORCA_DIO_WHOLE_MSG | ORCA_DIO_ALIGNED_128_BYTES);
	CHECK_EQ(c.dio_rdma_read, ORCA_DIO_ALIGNED_128_BYTES);
	CHECK_EQ(le32toh(c.ece_vendor_id), 0x00ca7a);
	CHECK_EQ(le32toh(c.ece_options), ORCA_ECE_OPT_ALL);
	CHECK_EQ(le64toh(c.hca_core_clock), 1000000);	/* 1 GHz, in kHz */
	CHECK_EQ(le64toh(c.completion_timestamp_mask), ~0ULL);
	CHECK_EQ(le64toh(c.max_dm_size), 256 * 1024);
	CHECK_EQ(le32toh(c.odp_general_caps), 0);
	CHECK_EQ(le32toh(c.max_tso), 0);
	CHECK_EQ(le32toh(c.max_fast_reg_page_list_len), 512);
	CHECK(c.reserved0[0] == 0 && c.reserved1[0] == 0 &&
	      c.reserved2[sizeof(c.reserved2) - 1] == 0);
	fx_free(f);
}

static void query_port(void)
{
	struct fx *f = fx_up();
	struct orca_query_port_in in = { .port = 1 };
	struct orca_port_attr p;

	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_PORT, &in, sizeof(in), &p,
			sizeof(p)), 0);
	CHECK_EQ(le64toh(p.subnet_prefix), 0xfe80000000000000ULL);
	CHECK_EQ(le64toh(p.port_guid), 0x00ca7afffe000002ULL);
	CHECK_EQ(le32toh(p.max_msg_sz), 0x80000000U);
	CHECK_EQ(le16toh(p.lid), 0x11);
	CHECK_EQ(le16toh(p.sm_lid), 1);
	CHECK_EQ(le16toh(p.gid_tbl_len), 1);
	CHECK_EQ(le16toh(p.pkey_tbl_len), 64);
	CHECK_EQ(le16toh(p.pkey), 0xffff);
	CHECK_EQ(p.state, ORCA_PORT_ACTIVE);
	CHECK_EQ(p.phys_state, 5);
	CHECK_EQ(p.max_mtu, 5);
	CHECK_EQ(p.active_mtu, 5);
	CHECK_EQ(p.active_width, 2);
	CHECK_EQ(p.active_speed, 32);
	CHECK_EQ(p.link_layer, ORCA_LINK_LAYER_IB);
	in.port = 0;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_QUERY_PORT, &in, sizeof(in), &p,
			      sizeof(p)),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	in.port = 2;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_QUERY_PORT, &in, sizeof(in), &p,
			      sizeof(p)),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	in.port = 1;
	in.reserved[3] = 1;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_QUERY_PORT, &in, sizeof(in), &p,
			      sizeof(p)),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_RESERVED_NZ);
	fx_free(f);
}

static void gid_and_pkey_tables(void)
{
	static const char *const sets[] = {
		"gid_tbl_len=300", "pkey_tbl_len=4", "port_guid=0x1000",
		"subnet_prefix=0xfe80000000000042", "pkey_table=0x8001,0x7fff",
		NULL,
	};
	struct fx *f = fx_up_cfg(sets);
	struct orca_query_table_in in = { .port = 1 };
	uint8_t gids[ORCA_GIDS_PER_CMD][ORCA_GID_LEN];
	__le16 pk[4];
	uint64_t v;

	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_GID_TABLE, &in, sizeof(in), gids,
			sizeof(gids)), 0);
	memcpy(&v, gids[0], 8);
	CHECK_EQ(be64toh(v), 0xfe80000000000042ULL);
	memcpy(&v, gids[0] + 8, 8);
	CHECK_EQ(be64toh(v), 0x1000);
	memcpy(&v, gids[255] + 8, 8);
	CHECK_EQ(be64toh(v), 0x1000 + 255);
	/* the rest of the table in a second command */
	in.start = htole32(256);
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_GID_TABLE, &in, sizeof(in), gids,
			44 * ORCA_GID_LEN), 0);
	CHECK_EQ(f->out_len, 44 * ORCA_GID_LEN);
	memcpy(&v, gids[43] + 8, 8);
	CHECK_EQ(be64toh(v), 0x1000 + 299);
	/* past the end, partial entries, bad port */
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_QUERY_GID_TABLE, &in, sizeof(in),
			      gids, 45 * ORCA_GID_LEN),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	in.start = 0;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_QUERY_GID_TABLE, &in, sizeof(in),
			      gids, 24),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	in.port = 2;
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_QUERY_GID_TABLE, &in, sizeof(in),
			      gids, 16),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	in.port = 1;
	CHECK_EQ(fx_cmd(f, ORCA_CMD_QUERY_PKEY_TABLE, &in, sizeof(in), pk,
			sizeof(pk)), 0);
	CHECK_EQ(le16toh(pk[0]), 0x8001);
	CHECK_EQ(le16toh(pk[1]), 0x7fff);
	CHECK_EQ(le16toh(pk[2]), 0);
	CHECK_EQ(le16toh(pk[3]), 0);
	in.start = htole32(3);
	EXPECT_FAIL(f, fx_cmd(f, ORCA_CMD_QUERY_PKEY_TABLE, &in, sizeof(in),
			      pk, 4),
		    ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE);
	fx_free(f);
}

/* ------------------------------------------------------------------ */
/* Configuration                                                      */
/* ------------------------------------------------------------------ */

static void pkey_table_config(void)
{
	struct orca_cfg c;
	char err[256];

	orca_cfg_defaults(&c);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), 0);
	CHECK_EQ(c.n_pkey_table, 1);
	CHECK_EQ(c.pkey_table[0], 0xffff);
	orca_cfg_defaults(&c);
	CHECK_EQ(orca_cfg_set_kv(&c, "pkey_tbl_len=1", err, sizeof(err)), 0);
	CHECK_EQ(orca_cfg_set_kv(&c, "pkey_table=0x8001,0x7fff", err,
				 sizeof(err)), 0);
	CHECK(orca_cfg_finalize(&c, err, sizeof(err)));	/* > pkey_tbl_len 1 */
	orca_cfg_defaults(&c);
	CHECK_EQ(orca_cfg_set_kv(&c, "pkey_tbl_len=2", err, sizeof(err)), 0);
	CHECK_EQ(orca_cfg_set_kv(&c, "pkey_table=0x8001,0x7fff", err,
				 sizeof(err)), 0);
	CHECK_EQ(orca_cfg_set_kv(&c, "pkey=0x8002", err, sizeof(err)), 0);
	CHECK(orca_cfg_finalize(&c, err, sizeof(err)));	/* entry 0 twice */
	CHECK(orca_cfg_set_kv(&c, "pkey_table=0x10000", err, sizeof(err)));
	CHECK(orca_cfg_set_kv(&c, "pkey_table=", err, sizeof(err)));
}

static int try_set(struct orca_cfg *c, const char *kv)
{
	char err[256];

	return orca_cfg_set_kv(c, kv, err, sizeof(err));
}

/* port_pin (orca.rst "Host policy"): words, in any order, or none/all */
static void port_pin_config(void)
{
	struct orca_cfg c;

	orca_cfg_defaults(&c);
	CHECK_EQ(c.port_pin, 0);
	CHECK_EQ(try_set(&c, "port_pin=lid, pkeys"), 0);
	CHECK_EQ(c.port_pin, ORCA_PIN_LID | ORCA_PIN_PKEYS);
	CHECK_EQ(try_set(&c, "port_pin=sm"), 0);
	CHECK_EQ(c.port_pin, ORCA_PIN_SM);
	CHECK_EQ(try_set(&c, "port_pin=all"), 0);
	CHECK_EQ(c.port_pin, 7);
	CHECK_EQ(try_set(&c, "port_pin=none"), 0);
	CHECK_EQ(c.port_pin, 0);
	CHECK(try_set(&c, "port_pin=guids"));	/* always the host's */
	CHECK(try_set(&c, "port_pin=LID"));
}

static void config_good(void)
{
	struct orca_cfg c;
	char err[256];
	char path[] = "/tmp/orca-emu-test-XXXXXX";
	FILE *fp;
	int fd;

	orca_cfg_defaults(&c);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), 0);
	CHECK_EQ(c.sys_image_guid, c.node_guid);
	CHECK_EQ(c.port_guid, c.node_guid + 1);
	CHECK_EQ(c.ece_vendor_id, c.vendor_id);
	CHECK(orca_cfg_has_ece(&c));

	orca_cfg_defaults(&c);
	CHECK_EQ(try_set(&c, "fw_version=2.10.65535"), 0);
	CHECK_EQ(c.fw_version, ORCA_FW_VERSION(2, 10, 65535));
	CHECK_EQ(try_set(&c, "node_guid=0x1122334455667788"), 0);
	CHECK_EQ(c.node_guid, 0x1122334455667788ULL);
	CHECK_EQ(try_set(&c, "node_guid = 1122:3344:5566:7799"), 0);
	CHECK_EQ(c.node_guid, 0x1122334455667799ULL);
	CHECK_EQ(try_set(&c, "max_qp=10"), 0);
	CHECK_EQ(try_set(&c, "max_qp=010"), 0);	/* decimal, not octal */
	CHECK_EQ(c.max_qp, 10);
	CHECK_EQ(try_set(&c, "max_cqe=0x1000"), 0);
	CHECK_EQ(c.max_cqe, 0x1000);
	CHECK_EQ(try_set(&c, "fw_name=my fw"), 0);
	CHECK(!strcmp(c.fw_name, "my fw"));
	CHECK_EQ(try_set(&c, "lid=0x22"), 0);
	CHECK_EQ(try_set(&c, "dio_rdma_read=0"), 0);
	CHECK_EQ(try_set(&c, "vendor_id=0x123456"), 0);
	CHECK_EQ(try_set(&c, "max_msg_sz=0x80000000"), 0);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), 0);
	CHECK_EQ(c.sys_image_guid, 0x1122334455667799ULL);
	CHECK_EQ(c.port_guid, 0x112233445566779aULL);
	CHECK_EQ(c.ece_vendor_id, 0x123456);

	/* explicit values beat derived ones; ece=0 clears everything */
	orca_cfg_defaults(&c);
	CHECK_EQ(try_set(&c, "port_guid=0xabc"), 0);
	CHECK_EQ(try_set(&c, "sys_image_guid=0xdef"), 0);
	CHECK_EQ(try_set(&c, "ece=0"), 0);
	CHECK_EQ(try_set(&c, "pci_write_end_padding=0"), 0);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), 0);
	CHECK_EQ(c.port_guid, 0xabc);
	CHECK_EQ(c.sys_image_guid, 0xdef);
	CHECK_EQ(c.ece_vendor_id, 0);
	CHECK_EQ(c.ece_options, 0);
	CHECK(!(c.dev_caps & ORCA_DEV_CAP_ECE));
	CHECK(!(c.dev_caps & ORCA_DEV_CAP_PCI_WRITE_END_PADDING));
	CHECK(!orca_cfg_has_ece(&c));
	/* ece_vendor_id=0 also means no ECE */
	orca_cfg_defaults(&c);
	CHECK_EQ(try_set(&c, "ece_vendor_id=0"), 0);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), 0);
	CHECK(!(c.dev_caps & ORCA_DEV_CAP_ECE));
	/* no frequency or no bits: no clock at all */
	orca_cfg_defaults(&c);
	CHECK_EQ(try_set(&c, "hca_core_clock=0"), 0);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), 0);
	CHECK_EQ(c.completion_timestamp_mask, 0);
	orca_cfg_defaults(&c);
	CHECK_EQ(try_set(&c, "completion_timestamp_mask=0"), 0);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), 0);
	CHECK_EQ(c.hca_core_clock, 0);
	orca_cfg_defaults(&c);
	CHECK_EQ(try_set(&c, "completion_timestamp_mask=0xffffffffffff"), 0);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), 0);
	CHECK_EQ(c.hca_core_clock, 1000000);

	/* file: comments, blank lines, spaces; --set applied afterwards */
	fd = mkstemp(path);
	CHECK(fd >= 0);
	fp = fdopen(fd, "w");
	fprintf(fp, "# orca config\n\n  max_pd = 17   # trailing comment\n"
		    "fw_version=3.0.1\nmax_qp = 64\n");
	fclose(fp);
	orca_cfg_defaults(&c);
	CHECK_EQ(orca_cfg_load(&c, path, err, sizeof(err)), 0);
	CHECK_EQ(try_set(&c, "max_qp=65"), 0);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), 0);
	CHECK_EQ(c.max_pd, 17);
	CHECK_EQ(c.max_qp, 65);
	CHECK_EQ(c.fw_version, ORCA_FW_VERSION(3, 0, 1));
	unlink(path);
}

static void config_bad(void)
{
	static const char *const bad[] = {
		"nosuchkey=1", "max_qp", "max_qp=", "=5", "max_qp=abc",
		"max_qp=0", "max_qp=-1", "max_qp=1e3", "max_qp=0x",
		"max_qp=99999999999999999999999", "max_qp=300000",
		"phys_port_cnt=2", "max_mtu=6", "lmc=8", "ece=2",
		"dio_send=4", "atomic_cap=3", "vendor_id=0x1000000",
		"fw_version=1.2", "fw_version=1.2.3.4", "fw_version=1.70000.0",
		"fw_version=65536.0.0",
		"fw_version=a.b.c", "fw_version=-1.2.3",
		"node_guid=xyz", "node_guid=0x11223344556677889",
		"fw_name=0123456789012345678901234567890123",
		"max_inline_data=4097",
		/* IBA: a message is at most 2^31 bytes */
		"max_msg_sz=0x80000001", "max_msg_sz=0xffffffff",
		/* device memory is a 512 KiB window of BAR2 */
		"max_dm_size=0x80001",
	};
	struct orca_cfg c;
	char err[256], path[] = "/tmp/orca-emu-test-XXXXXX";
	unsigned int i;
	FILE *fp;
	int fd;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		orca_cfg_defaults(&c);
		err[0] = '\0';
		if (orca_cfg_set_kv(&c, bad[i], err, sizeof(err)) != -1) {
			printf("#   accepted bad setting '%s'\n", bad[i]);
			CHECK(0);
		}
		CHECK(err[0] != '\0');
	}
	/* cross-key checks at finalize */
	orca_cfg_defaults(&c);
	CHECK_EQ(try_set(&c, "active_mtu=5"), 0);
	CHECK_EQ(try_set(&c, "max_mtu=4"), 0);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), -1);
	orca_cfg_defaults(&c);
	CHECK_EQ(try_set(&c, "dev_caps=0x8"), 0);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), -1);
	/* device memory in whole pages */
	orca_cfg_defaults(&c);
	CHECK_EQ(try_set(&c, "max_dm_size=4097"), 0);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), -1);
	CHECK(strstr(err, "max_dm_size") != NULL);
	/* a clock's bits are the low ones */
	orca_cfg_defaults(&c);
	CHECK_EQ(try_set(&c, "completion_timestamp_mask=0xfffe"), 0);
	CHECK_EQ(orca_cfg_finalize(&c, err, sizeof(err)), -1);
	CHECK(strstr(err, "completion_timestamp_mask") != NULL);

	/* file errors carry the line number */
	fd = mkstemp(path);
	fp = fdopen(fd, "w");
	fprintf(fp, "max_qp = 5\n# ok\nmax_pd = lots\n");
	fclose(fp);
	orca_cfg_defaults(&c);
	CHECK_EQ(orca_cfg_load(&c, path, err, sizeof(err)), -1);
	CHECK(strstr(err, ":3:") != NULL);
	CHECK(strstr(err, "max_pd") != NULL);
	unlink(path);
	CHECK_EQ(orca_cfg_load(&c, "/nonexistent/orca.conf", err, sizeof(err)), -1);
}

int main(int argc, char **argv)
{
	/* the device logs every rejected command: keep TAP output readable */
	orca_log_set_quiet(!(argc > 1 && !strcmp(argv[1], "-v")));
	fx_clock_virtual();

	RUN(query_caps_defaults);
	RUN(query_port);
	RUN(gid_and_pkey_tables);
	RUN(pkey_table_config);
	RUN(port_pin_config);
	RUN(config_good);
	RUN(config_bad);
	return tap_done();
}
