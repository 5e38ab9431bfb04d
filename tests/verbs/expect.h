/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Expected device configuration for the verb tests.
 *
 * The device's capabilities come from the emulator's configuration.  The
 * tests state on their own what that configuration means, from
 * Documentation/infiniband/orca.rst ("Configuration" and "Default
 * configuration"): expect.c has the documented defaults written out, its
 * own parser of the "key = value" syntax and the documented derivation
 * rules.  Nothing of the emulator is compiled in (tests/Makefile checks
 * that), so a bug in the emulator's configuration code makes the tests
 * fail instead of moving the expectation along with it.
 *
 * The options are taken, in order of preference, from:
 *
 *   1. --config FILE / --set KEY=VALUE on the test's command line;
 *   2. the emulator command line scripts/vm.sh recorded in
 *      $ORCA_JOB/emu-cmdline.txt (the job dir is visible in the guest);
 *   3. nothing: the documented defaults.
 */
#ifndef ORCA_TESTS_EXPECT_H
#define ORCA_TESTS_EXPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * dev_caps bits, ECE option bits and data-in-order bits as orca.rst
 * ("Configuration") numbers them: a configuration file writes these
 * numbers, so the tests read them from the documentation as well, not
 * from the driver's or the emulator's headers.
 */
#define EXPECT_DEV_CAP_RC			(1u << 0)
#define EXPECT_DEV_CAP_UC			(1u << 1)
#define EXPECT_DEV_CAP_UD			(1u << 2)
#define EXPECT_DEV_CAP_BAD_PKEY_CNTR		(1u << 3)
#define EXPECT_DEV_CAP_BAD_QKEY_CNTR		(1u << 4)
#define EXPECT_DEV_CAP_SYS_IMAGE_GUID		(1u << 5)
#define EXPECT_DEV_CAP_RC_RNR_NAK_GEN		(1u << 6)
#define EXPECT_DEV_CAP_PORT_ACTIVE_EVENT	(1u << 7)
#define EXPECT_DEV_CAP_CHANGE_PHY_PORT		(1u << 8)
#define EXPECT_DEV_CAP_UD_AV_PORT_ENFORCE	(1u << 9)
#define EXPECT_DEV_CAP_PCI_WRITE_END_PADDING	(1u << 10)
#define EXPECT_DEV_CAP_ECE			(1u << 11)
#define EXPECT_DEV_CAP_SQD_ASYNC_NOTIFY		(1u << 12)
#define EXPECT_DEV_CAP_MEM_WINDOW		(1u << 13)
#define EXPECT_DEV_CAP_MW_TYPE_2B		(1u << 14)
#define EXPECT_DEV_CAP_FAST_REG			(1u << 18)
#define EXPECT_DEV_CAP_ATOMIC_WRITE		(1u << 20)

/* SELECTIVE_REPEAT, CC_DCQCN, CC_ZTR, LARGE_ACK: bits 0..3 */
#define EXPECT_ECE_OPT_ALL			0xfu

#define EXPECT_DIO_WHOLE_MSG			(1u << 0)
#define EXPECT_DIO_ALIGNED_128_BYTES		(1u << 1)

/* Longest pkey_table list the parser keeps */
#define EXPECT_MAX_PKEYS			64

/*
 * One field per configuration key the tests use, named like the key, after
 * the derivation rules (so e.g. port_guid is node_guid + 1 unless set, and
 * ece_vendor_id is 0 when ECE is off).
 */
struct expect {
	unsigned int fw_version[3];	/* MAJOR, MINOR, SUB */
	uint64_t node_guid;
	uint64_t sys_image_guid;
	uint64_t vendor_id;
	uint64_t vendor_part_id;
	uint64_t hw_ver;
	uint64_t dev_caps;		/* EXPECT_DEV_CAP_* */
	uint64_t max_qp;
	uint64_t max_qp_wr;
	uint64_t max_send_sge;
	uint64_t max_recv_sge;
	uint64_t max_sge_rd;
	uint64_t max_cq;
	uint64_t max_cqe;
	uint64_t max_mr;
	uint64_t max_pd;
	uint64_t max_qp_rd_atom;
	uint64_t max_qp_init_rd_atom;
	uint64_t max_res_rd_atom;
	uint64_t max_mw;
	uint64_t max_srq;
	uint64_t max_srq_wr;
	uint64_t max_srq_sge;
	uint64_t max_ah;
	uint64_t max_mcast_grp;
	uint64_t max_mcast_qp_attach;
	uint64_t max_fast_reg_page_list_len;
	uint64_t max_total_mcast_qp_attach;
	uint64_t max_inline_data;
	uint64_t max_pkeys;
	uint64_t local_ca_ack_delay;
	uint64_t phys_port_cnt;
	uint64_t atomic_cap;		/* 0 none, 1 HCA, 2 global */
	uint64_t num_comp_vectors;
	uint64_t page_size_cap;
	uint64_t max_mr_size;
	uint64_t dio_send;		/* EXPECT_DIO_* */
	uint64_t dio_rdma_write;
	uint64_t dio_rdma_read;
	uint64_t ece;			/* 1 iff ECE is on */
	uint64_t ece_vendor_id;
	uint64_t ece_options;		/* EXPECT_ECE_OPT_* */
	uint64_t pci_write_end_padding;	/* 1 iff the capability is on */
	uint64_t hca_core_clock;
	uint64_t completion_timestamp_mask;
	uint64_t max_dm_size;
	/* port 1 */
	uint64_t port_guid;
	uint64_t subnet_prefix;
	uint64_t port_cap_flags;
	uint64_t max_msg_sz;
	uint64_t lid;
	uint64_t sm_lid;
	uint64_t lmc;
	uint64_t sm_sl;
	uint64_t max_vl_num;
	uint64_t gid_tbl_len;
	uint64_t pkey_tbl_len;
	uint64_t pkey;			/* P_Key table entry 0 */
	uint64_t pkey_table[EXPECT_MAX_PKEYS];	/* from index 0 */
	unsigned int n_pkey_table;
	uint64_t max_mtu;
	uint64_t active_mtu;
	uint64_t active_width;
	uint64_t active_speed;

	char source[600];		/* where the configuration came from */
};

/*
 * Take --config FILE / --set KEY=VALUE out of argv (the other arguments
 * stay, *argc is updated) and fill @e: the documented defaults, the
 * options (from argv, else from $ORCA_JOB/emu-cmdline.txt), the derivation
 * rules.  Returns 0, or -1 after printing why to stderr (an unknown key, a
 * bad value, a configuration the documentation forbids).
 */
int expect_init(struct expect *e, int *argc, char **argv);

/* ECE on after the rules (ece=1, ece_vendor_id != 0, EXPECT_DEV_CAP_ECE)? */
bool expect_has_ece(const struct expect *e);

/*
 * RETURN_CAPS of ibv_query_qp_data_in_order for SEND (@idx 0), RDMA_WRITE
 * (1) or RDMA_READ (2): the dio_* key, with ALIGNED_128_BYTES added to
 * WHOLE_MSG (orca.rst, "Configuration").
 */
int expect_dio(const struct expect *e, int idx);

/*
 * Split a printf-%q command line (scripts/vm.sh writes emu-cmdline.txt
 * that way) in place: backslash escapes and '...' quoting.  Returns the
 * number of words, -1 on a format it does not understand.
 */
int expect_split_q(char *line, char **words, int max);

#endif /* ORCA_TESTS_EXPECT_H */
