// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit tests for the translation between ib_core attributes and the
 * device's wire structures (orca_attr.c).
 */

#include <kunit/test.h>
#include <rdma/orca-abi.h>

#include "orca_attr.h"

/* Distinct values so a field copied into the wrong place is caught. */
static void fill_caps(struct orca_caps *c)
{
	memset(c, 0, sizeof(*c));
	c->fw_version = cpu_to_le64(ORCA_FW_VERSION(2, 9, 13));
	c->node_guid = cpu_to_le64(0x0011223344556677ULL);
	c->sys_image_guid = cpu_to_le64(0x8899aabbccddeeffULL);
	c->max_mr_size = cpu_to_le64(1ULL << 40);
	c->page_size_cap = cpu_to_le64(0xfffff000ULL);
	c->vendor_id = cpu_to_le32(0x00ca7a);
	c->vendor_part_id = cpu_to_le32(0x1001);
	c->hw_ver = cpu_to_le32(3);
	c->max_qp = cpu_to_le32(1001);
	c->max_qp_wr = cpu_to_le32(1002);
	c->max_send_sge = cpu_to_le32(1003);
	c->max_recv_sge = cpu_to_le32(1004);
	c->max_sge_rd = cpu_to_le32(1005);
	c->max_cq = cpu_to_le32(1006);
	c->max_cqe = cpu_to_le32(1007);
	c->max_mr = cpu_to_le32(1008);
	c->max_pd = cpu_to_le32(1009);
	c->max_qp_rd_atom = cpu_to_le32(1010);
	c->max_qp_init_rd_atom = cpu_to_le32(1011);
	c->max_res_rd_atom = cpu_to_le32(1012);
	c->max_mw = cpu_to_le32(1013);
	c->max_srq = cpu_to_le32(1014);
	c->max_srq_wr = cpu_to_le32(1015);
	c->max_srq_sge = cpu_to_le32(1016);
	c->max_ah = cpu_to_le32(1017);
	c->max_mcast_grp = cpu_to_le32(1018);
	c->max_mcast_qp_attach = cpu_to_le32(1019);
	c->max_total_mcast_qp_attach = cpu_to_le32(1020);
	c->max_inline_data = cpu_to_le32(1021);
	c->max_pkeys = cpu_to_le16(1022);
	c->local_ca_ack_delay = 23;
	c->phys_port_cnt = 1;
	c->atomic_cap = ORCA_ATOMIC_GLOB;
	c->num_comp_vectors = 4;
	c->dio_send = ORCA_DIO_WHOLE_MSG | ORCA_DIO_ALIGNED_128_BYTES;
	c->dio_rdma_write = ORCA_DIO_WHOLE_MSG;
	c->dio_rdma_read = ORCA_DIO_ALIGNED_128_BYTES;
	c->ece_vendor_id = cpu_to_le32(0x00ca7a);
	c->ece_options = cpu_to_le32(ORCA_ECE_OPT_ALL);
	c->hca_core_clock = cpu_to_le64(1024);
	c->completion_timestamp_mask = cpu_to_le64(0xffffffffffULL);
	c->max_dm_size = cpu_to_le64(16 * ORCA_DM_PAGE);
	c->odp_general_caps = cpu_to_le32(1026);
	c->odp_rc_caps = cpu_to_le32(1027);
	c->odp_uc_caps = cpu_to_le32(1028);
	c->odp_ud_caps = cpu_to_le32(1029);
	c->odp_xrc_caps = cpu_to_le32(1030);
	c->rss_qpts = cpu_to_le32(1031);
	c->max_rwq_indirection_tables = cpu_to_le32(1032);
	c->max_rwq_indirection_table_size = cpu_to_le32(1033);
	c->max_wq_type_rq = cpu_to_le32(1034);
	c->raw_packet_caps = cpu_to_le32(1035);
	c->tm_max_rndv_hdr_size = cpu_to_le32(1036);
	c->tm_max_num_tags = cpu_to_le32(1037);
	c->tm_flags = cpu_to_le32(1038);
	c->tm_max_ops = cpu_to_le32(1039);
	c->tm_max_sge = cpu_to_le32(1040);
	c->max_cq_moderation_count = cpu_to_le16(1041);
	c->max_cq_moderation_period = cpu_to_le16(1042);
}

static void caps_every_field(struct kunit *test)
{
	struct ib_device_attr a;
	struct orca_caps c;

	fill_caps(&c);
	memset(&a, 0xa5, sizeof(a));
	orca_caps_to_ib_attr(&c, &a);

	KUNIT_EXPECT_EQ(test, a.fw_ver, ORCA_FW_VERSION(2, 9, 13));
	KUNIT_EXPECT_EQ(test, be64_to_cpu(a.sys_image_guid),
			0x8899aabbccddeeffULL);
	KUNIT_EXPECT_EQ(test, a.max_mr_size, 1ULL << 40);
	KUNIT_EXPECT_EQ(test, a.page_size_cap, 0xfffff000ULL);
	KUNIT_EXPECT_EQ(test, a.vendor_id, 0x00ca7a);
	KUNIT_EXPECT_EQ(test, a.vendor_part_id, 0x1001);
	KUNIT_EXPECT_EQ(test, a.hw_ver, 3);
	KUNIT_EXPECT_EQ(test, a.max_qp, 1001);
	KUNIT_EXPECT_EQ(test, a.max_qp_wr, 1002);
	KUNIT_EXPECT_EQ(test, a.max_send_sge, 1003);
	KUNIT_EXPECT_EQ(test, a.max_recv_sge, 1004);
	KUNIT_EXPECT_EQ(test, a.max_sge_rd, 1005);
	KUNIT_EXPECT_EQ(test, a.max_cq, 1006);
	KUNIT_EXPECT_EQ(test, a.max_cqe, 1007);
	KUNIT_EXPECT_EQ(test, a.max_mr, 1008);
	KUNIT_EXPECT_EQ(test, a.max_pd, 1009);
	KUNIT_EXPECT_EQ(test, a.max_qp_rd_atom, 1010);
	KUNIT_EXPECT_EQ(test, a.max_qp_init_rd_atom, 1011);
	KUNIT_EXPECT_EQ(test, a.max_res_rd_atom, 1012);
	KUNIT_EXPECT_EQ(test, a.max_mw, 1013);
	KUNIT_EXPECT_EQ(test, a.max_srq, 1014);
	KUNIT_EXPECT_EQ(test, a.max_srq_wr, 1015);
	KUNIT_EXPECT_EQ(test, a.max_srq_sge, 1016);
	KUNIT_EXPECT_EQ(test, a.max_ah, 1017);
	KUNIT_EXPECT_EQ(test, a.max_mcast_grp, 1018);
	KUNIT_EXPECT_EQ(test, a.max_mcast_qp_attach, 1019);
	KUNIT_EXPECT_EQ(test, a.max_total_mcast_qp_attach, 1020);
	KUNIT_EXPECT_EQ(test, a.max_pkeys, 1022);
	KUNIT_EXPECT_EQ(test, a.local_ca_ack_delay, 23);
	KUNIT_EXPECT_EQ(test, a.atomic_cap, IB_ATOMIC_GLOB);
	KUNIT_EXPECT_EQ(test, a.masked_atomic_cap, IB_ATOMIC_NONE);
	/* the clock and its counter's bits, for CQE timestamps */
	KUNIT_EXPECT_EQ(test, a.hca_core_clock, 1024);
	KUNIT_EXPECT_EQ(test, a.timestamp_mask, 0xffffffffffULL);
	KUNIT_EXPECT_EQ(test, a.max_dm_size, 16 * ORCA_DM_PAGE);
	/* offered by the device, but no verb of this driver does them */
	KUNIT_EXPECT_EQ(test, a.odp_caps.general_caps, 0);
	KUNIT_EXPECT_EQ(test, a.odp_caps.per_transport_caps.rc_odp_caps, 0);
	KUNIT_EXPECT_EQ(test, a.odp_caps.per_transport_caps.uc_odp_caps, 0);
	KUNIT_EXPECT_EQ(test, a.odp_caps.per_transport_caps.ud_odp_caps, 0);
	KUNIT_EXPECT_EQ(test, a.odp_caps.per_transport_caps.xrc_odp_caps, 0);
	KUNIT_EXPECT_EQ(test, a.rss_caps.supported_qpts, 0);
	KUNIT_EXPECT_EQ(test, a.rss_caps.max_rwq_indirection_tables, 0);
	KUNIT_EXPECT_EQ(test, a.rss_caps.max_rwq_indirection_table_size, 0);
	KUNIT_EXPECT_EQ(test, a.max_wq_type_rq, 0);
	KUNIT_EXPECT_EQ(test, a.raw_packet_caps, 0);
	KUNIT_EXPECT_EQ(test, a.tm_caps.max_rndv_hdr_size, 0);
	KUNIT_EXPECT_EQ(test, a.tm_caps.max_num_tags, 0);
	KUNIT_EXPECT_EQ(test, a.tm_caps.flags, 0);
	KUNIT_EXPECT_EQ(test, a.tm_caps.max_ops, 0);
	KUNIT_EXPECT_EQ(test, a.tm_caps.max_sge, 0);
	KUNIT_EXPECT_EQ(test, a.cq_caps.max_cq_moderation_count, 0);
	KUNIT_EXPECT_EQ(test, a.cq_caps.max_cq_moderation_period, 0);
	/* nothing the device does not report is invented */
	KUNIT_EXPECT_EQ(test, a.kernel_cap_flags, 0);
	KUNIT_EXPECT_EQ(test, a.max_ee, 0);
	KUNIT_EXPECT_EQ(test, a.max_fast_reg_page_list_len, 0);
	KUNIT_EXPECT_EQ(test, a.device_cap_flags, 0);
}

/* Values the driver cannot trust refuse the device; the rest pass. */
/* No groups: the attach limits are not advertised either. */
static void caps_no_mcast(struct kunit *test)
{
	struct ib_device_attr a;
	struct orca_caps c;

	fill_caps(&c);
	c.max_mcast_grp = 0;
	memset(&a, 0xa5, sizeof(a));
	orca_caps_to_ib_attr(&c, &a);
	KUNIT_EXPECT_EQ(test, a.max_mcast_grp, 0);
	KUNIT_EXPECT_EQ(test, a.max_mcast_qp_attach, 0);
	KUNIT_EXPECT_EQ(test, a.max_total_mcast_qp_attach, 0);
}

static void caps_check_bounds(struct kunit *test)
{
	struct orca_caps c;

	fill_caps(&c);
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), 0);
	c.max_qp = cpu_to_le32(ORCA_MAX_QP);
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), 0);
	/* max_qp + ORCA_QPN_BASE wrapped, and multi-GiB mirrors */
	c.max_qp = cpu_to_le32(0xfffffffe);
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), -EINVAL);
	c.max_qp = cpu_to_le32(ORCA_MAX_QP + 1);
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), -EINVAL);
	c.max_qp = 0;
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), -EINVAL);
	fill_caps(&c);
	/* counts that would turn negative in struct ib_device_attr */
	c.max_cqe = cpu_to_le32(0x80000000);
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), -EINVAL);
	fill_caps(&c);
	c.max_mr = cpu_to_le32(U32_MAX);
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), -EINVAL);
	fill_caps(&c);
	c.phys_port_cnt = 2;
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), -EINVAL);
	fill_caps(&c);
	c.num_comp_vectors = 0;
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), -EINVAL);
	fill_caps(&c);
	c.local_ca_ack_delay = 32;
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), -EINVAL);
	fill_caps(&c);
	c.atomic_cap = ORCA_ATOMIC_GLOB + 1;
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), -EINVAL);
	/* MAD QPs need kernel QPs and address vectors in UD WQEs */
	fill_caps(&c);
	c.dev_caps = cpu_to_le32(ORCA_DEV_CAP_UD | ORCA_DEV_CAP_MAD_QPS |
				 ORCA_DEV_CAP_RESERVED_LKEY |
				 ORCA_DEV_CAP_UD_AV);
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), 0);
	c.dev_caps = cpu_to_le32(ORCA_DEV_CAP_UD | ORCA_DEV_CAP_MAD_QPS |
				 ORCA_DEV_CAP_RESERVED_LKEY);
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), -EINVAL);
	c.dev_caps = cpu_to_le32(ORCA_DEV_CAP_UD | ORCA_DEV_CAP_MAD_QPS |
				 ORCA_DEV_CAP_UD_AV);
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), -EINVAL);
	/* either alone, without MAD QPs, is a device's choice */
	c.dev_caps = cpu_to_le32(ORCA_DEV_CAP_UD | ORCA_DEV_CAP_UD_AV);
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), 0);
	/* device memory: whole pages of the window */
	fill_caps(&c);
	c.max_dm_size = cpu_to_le64(ORCA_DM_MAX_SIZE);
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), 0);
	c.max_dm_size = cpu_to_le64(ORCA_DM_MAX_SIZE + ORCA_DM_PAGE);
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), -EINVAL);
	c.max_dm_size = cpu_to_le64(ORCA_DM_PAGE + 4);
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), -EINVAL);
	/* a timestamp mask is the counter's low bits; none without a clock */
	fill_caps(&c);
	c.completion_timestamp_mask = cpu_to_le64(0xfffffffffeULL);
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), -EINVAL);
	c.completion_timestamp_mask = cpu_to_le64(U64_MAX);
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), 0);
	c.hca_core_clock = 0;
	c.completion_timestamp_mask = cpu_to_le64(0xfffffffffeULL);
	KUNIT_EXPECT_EQ(test, orca_caps_check(&c, NULL), 0);
}

/* No clock unless both its frequency and its bits are there. */
static void caps_clock(struct kunit *test)
{
	struct ib_device_attr a;
	struct orca_caps c;

	fill_caps(&c);
	c.hca_core_clock = 0;
	orca_caps_to_ib_attr(&c, &a);
	KUNIT_EXPECT_EQ(test, a.hca_core_clock, 0);
	KUNIT_EXPECT_EQ(test, a.timestamp_mask, 0);
	fill_caps(&c);
	c.completion_timestamp_mask = 0;
	orca_caps_to_ib_attr(&c, &a);
	KUNIT_EXPECT_EQ(test, a.hca_core_clock, 0);
	KUNIT_EXPECT_EQ(test, a.timestamp_mask, 0);
}

static void caps_dev_cap_flags(struct kunit *test)
{
	static const struct {
		u32 orca;
		u64 ib;
	} map[] = {
		{ ORCA_DEV_CAP_BAD_PKEY_CNTR, IB_DEVICE_BAD_PKEY_CNTR },
		{ ORCA_DEV_CAP_BAD_QKEY_CNTR, IB_DEVICE_BAD_QKEY_CNTR },
		{ ORCA_DEV_CAP_SYS_IMAGE_GUID, IB_DEVICE_SYS_IMAGE_GUID },
		{ ORCA_DEV_CAP_RC_RNR_NAK_GEN, IB_DEVICE_RC_RNR_NAK_GEN },
		{ ORCA_DEV_CAP_PORT_ACTIVE_EVENT, IB_DEVICE_PORT_ACTIVE_EVENT },
		{ ORCA_DEV_CAP_CHANGE_PHY_PORT, IB_DEVICE_CHANGE_PHY_PORT },
		{ ORCA_DEV_CAP_UD_AV_PORT_ENFORCE,
		  IB_DEVICE_UD_AV_PORT_ENFORCE },
		{ ORCA_DEV_CAP_PCI_WRITE_END_PADDING,
		  IB_DEVICE_PCI_WRITE_END_PADDING },
		{ ORCA_DEV_CAP_MEM_WINDOW, IB_DEVICE_MEM_WINDOW },
		{ ORCA_DEV_CAP_MW_TYPE_2B, IB_DEVICE_MEM_WINDOW_TYPE_2B },
		{ ORCA_DEV_CAP_FAST_REG, IB_DEVICE_MEM_MGT_EXTENSIONS },
		{ ORCA_DEV_CAP_ATOMIC_WRITE, IB_DEVICE_ATOMIC_WRITE },
	};
	struct ib_device_attr a;
	struct orca_caps c;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		memset(&c, 0, sizeof(c));
		c.dev_caps = cpu_to_le32(map[i].orca);
		orca_caps_to_ib_attr(&c, &a);
		KUNIT_EXPECT_EQ(test, a.device_cap_flags, map[i].ib);
	}
	/* transport and ECE bits have no ib_device_attr flag */
	c.dev_caps = cpu_to_le32(ORCA_DEV_CAP_RC | ORCA_DEV_CAP_UD |
				 ORCA_DEV_CAP_ECE);
	orca_caps_to_ib_attr(&c, &a);
	KUNIT_EXPECT_EQ(test, a.device_cap_flags, 0);
	KUNIT_EXPECT_EQ(test, a.kernel_cap_flags, 0);
	/* the reserved lkey is for kernel consumers only */
	c.dev_caps = cpu_to_le32(ORCA_DEV_CAP_RESERVED_LKEY);
	orca_caps_to_ib_attr(&c, &a);
	KUNIT_EXPECT_EQ(test, a.device_cap_flags, 0);
	KUNIT_EXPECT_EQ(test, a.kernel_cap_flags, IBK_LOCAL_DMA_LKEY);
	/* the page list length only with the capability */
	c.dev_caps = cpu_to_le32(ORCA_DEV_CAP_FAST_REG);
	c.max_fast_reg_page_list_len = cpu_to_le32(512);
	orca_caps_to_ib_attr(&c, &a);
	KUNIT_EXPECT_EQ(test, a.max_fast_reg_page_list_len, 512);
	c.dev_caps = 0;
	orca_caps_to_ib_attr(&c, &a);
	KUNIT_EXPECT_EQ(test, a.max_fast_reg_page_list_len, 0);
}

static void caps_atomic_cap(struct kunit *test)
{
	struct ib_device_attr a;
	struct orca_caps c = {};

	c.atomic_cap = ORCA_ATOMIC_NONE;
	orca_caps_to_ib_attr(&c, &a);
	KUNIT_EXPECT_EQ(test, a.atomic_cap, IB_ATOMIC_NONE);
	c.atomic_cap = ORCA_ATOMIC_HCA;
	orca_caps_to_ib_attr(&c, &a);
	KUNIT_EXPECT_EQ(test, a.atomic_cap, IB_ATOMIC_HCA);
	c.atomic_cap = 0x7f;
	orca_caps_to_ib_attr(&c, &a);
	KUNIT_EXPECT_EQ(test, a.atomic_cap, IB_ATOMIC_NONE);
}

static void caps_uapi_device_caps(struct kunit *test)
{
	struct orca_caps c = {};

	KUNIT_EXPECT_EQ(test, orca_caps_to_uapi_device_caps(&c), 0);

	c.dev_caps = cpu_to_le32(ORCA_DEV_CAP_ECE);
	/* ECE without a vendor id cannot be negotiated */
	KUNIT_EXPECT_EQ(test, orca_caps_to_uapi_device_caps(&c), 0);
	c.ece_vendor_id = cpu_to_le32(0x00ca7a);
	KUNIT_EXPECT_EQ(test, orca_caps_to_uapi_device_caps(&c),
			ORCA_IBV_DEVICE_CAP_ECE);

	c.dev_caps = cpu_to_le32(ORCA_DEV_CAP_PCI_WRITE_END_PADDING);
	KUNIT_EXPECT_EQ(test, orca_caps_to_uapi_device_caps(&c),
			ORCA_IBV_DEVICE_CAP_PCI_WRITE_END_PADDING);

	c.dev_caps = 0;
	c.dio_rdma_read = ORCA_DIO_ALIGNED_128_BYTES;
	KUNIT_EXPECT_EQ(test, orca_caps_to_uapi_device_caps(&c),
			ORCA_IBV_DEVICE_CAP_DATA_IN_ORDER);

	c.dio_rdma_read = 0;
	c.dev_caps = cpu_to_le32(ORCA_DEV_CAP_ATOMIC_WRITE);
	KUNIT_EXPECT_EQ(test, orca_caps_to_uapi_device_caps(&c),
			ORCA_IBV_DEVICE_CAP_ATOMIC_WRITE);
}

static void caps_data_in_order(struct kunit *test)
{
	struct orca_caps c = {};
	u32 dio;

	c.dio_send = ORCA_DIO_WHOLE_MSG | ORCA_DIO_ALIGNED_128_BYTES;
	c.dio_rdma_write = ORCA_DIO_WHOLE_MSG;
	c.dio_rdma_read = ORCA_DIO_ALIGNED_128_BYTES | 0x80;
	dio = orca_caps_to_uapi_dio(&c);

	KUNIT_EXPECT_EQ(test, (dio >> ORCA_IBV_DIO_SHIFT_SEND) & 0xff,
			ORCA_IBV_DIO_WHOLE_MSG | ORCA_IBV_DIO_ALIGNED_128_BYTES);
	KUNIT_EXPECT_EQ(test, (dio >> ORCA_IBV_DIO_SHIFT_RDMA_WRITE) & 0xff,
			ORCA_IBV_DIO_WHOLE_MSG);
	/* bits the driver does not know are not passed on */
	KUNIT_EXPECT_EQ(test, (dio >> ORCA_IBV_DIO_SHIFT_RDMA_READ) & 0xff,
			ORCA_IBV_DIO_ALIGNED_128_BYTES);
	KUNIT_EXPECT_EQ(test, dio >> 24, 0);
}

static void port_every_field(struct kunit *test)
{
	struct orca_port_attr p = {
		.subnet_prefix = cpu_to_le64(0xfe80000000000000ULL),
		.port_guid = cpu_to_le64(0x0011223344556678ULL),
		.port_cap_flags = cpu_to_le32(0x02010000),
		.max_msg_sz = cpu_to_le32(0x80000000),
		.bad_pkey_cntr = cpu_to_le32(7),
		.qkey_viol_cntr = cpu_to_le32(8),
		.lid = cpu_to_le16(0x2a),
		.sm_lid = cpu_to_le16(1),
		.gid_tbl_len = cpu_to_le16(1),
		.pkey_tbl_len = cpu_to_le16(1),
		.pkey = cpu_to_le16(0xffff),
		.state = ORCA_PORT_ACTIVE,
		.phys_state = 5,
		.max_mtu = IB_MTU_4096,
		.active_mtu = IB_MTU_2048,
		.lmc = 2,
		.sm_sl = 3,
		.active_width = IB_WIDTH_4X,
		.active_speed = IB_SPEED_EDR,
		.link_layer = ORCA_LINK_LAYER_IB,
		.max_vl_num = 1,
	};
	struct ib_port_attr a = {};

	orca_port_to_ib_attr(&p, &a);
	KUNIT_EXPECT_EQ(test, a.subnet_prefix, 0xfe80000000000000ULL);
	KUNIT_EXPECT_EQ(test, a.state, IB_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, a.phys_state, 5);
	KUNIT_EXPECT_EQ(test, a.max_mtu, IB_MTU_4096);
	KUNIT_EXPECT_EQ(test, a.active_mtu, IB_MTU_2048);
	KUNIT_EXPECT_EQ(test, a.phys_mtu, 4096);
	KUNIT_EXPECT_EQ(test, a.gid_tbl_len, 1);
	KUNIT_EXPECT_EQ(test, a.pkey_tbl_len, 1);
	KUNIT_EXPECT_EQ(test, a.port_cap_flags, 0x02010000);
	KUNIT_EXPECT_EQ(test, a.max_msg_sz, 0x80000000);
	KUNIT_EXPECT_EQ(test, a.bad_pkey_cntr, 7);
	KUNIT_EXPECT_EQ(test, a.qkey_viol_cntr, 8);
	KUNIT_EXPECT_EQ(test, a.lid, 0x2a);
	KUNIT_EXPECT_EQ(test, a.sm_lid, 1);
	KUNIT_EXPECT_EQ(test, a.lmc, 2);
	KUNIT_EXPECT_EQ(test, a.sm_sl, 3);
	KUNIT_EXPECT_EQ(test, a.max_vl_num, 1);
	KUNIT_EXPECT_EQ(test, a.active_width, IB_WIDTH_4X);
	KUNIT_EXPECT_EQ(test, a.active_speed, IB_SPEED_EDR);
}

/* The port mirror is used only when seq says the entry is whole. */
static void port_mirror_entry(struct kunit *test)
{
	struct orca_port_mirror m = {
		.seq = cpu_to_le32(4),
		.port = 1,
		.attr = {
			.state = ORCA_PORT_DOWN,
			.lid = cpu_to_le16(0x17),
			.qkey_viol_cntr = cpu_to_le32(3),
		},
	};
	struct orca_port_attr a;

	memset(&a, 0xa5, sizeof(a));
	KUNIT_ASSERT_TRUE(test, orca_port_mirror_read(&m, 1, &a));
	KUNIT_EXPECT_EQ(test, memcmp(&a, &m.attr, sizeof(a)), 0);

	/* the entry of another port */
	KUNIT_EXPECT_FALSE(test, orca_port_mirror_read(&m, 2, &a));
	/* never written */
	m.seq = 0;
	KUNIT_EXPECT_FALSE(test, orca_port_mirror_read(&m, 1, &a));
	/* being written, and nobody finishes */
	m.seq = cpu_to_le32(5);
	KUNIT_EXPECT_FALSE(test, orca_port_mirror_read(&m, 1, &a));
}

static void port_bad_values(struct kunit *test)
{
	struct orca_port_attr p = { .state = 0x33, .max_mtu = 9,
				    .active_mtu = 0 };
	struct ib_port_attr a = {};

	orca_port_to_ib_attr(&p, &a);
	KUNIT_EXPECT_EQ(test, a.state, IB_PORT_NOP);
	KUNIT_EXPECT_EQ(test, a.max_mtu, IB_MTU_256);
	KUNIT_EXPECT_EQ(test, a.active_mtu, IB_MTU_256);
}

static void qp_state_round_trip(struct kunit *test)
{
	enum ib_qp_state s;

	for (s = IB_QPS_RESET; s <= IB_QPS_ERR; s++)
		KUNIT_EXPECT_EQ(test, orca_qps_to_ib(orca_qps_from_ib(s)), s);
	KUNIT_EXPECT_EQ(test, orca_qps_from_ib(IB_QPS_RTS), ORCA_QPS_RTS);
	KUNIT_EXPECT_EQ(test, orca_qps_from_ib(IB_QPS_SQE), ORCA_QPS_SQE);
	/* an unknown device state is reported as an error state */
	KUNIT_EXPECT_EQ(test, orca_qps_to_ib(0x42), IB_QPS_ERR);
}

/*
 * Each CQE status and opcode against ib_core's by name, as IBA and
 * orca_hw_io.h list them; the values between are no CQE's.
 */
static void cqe_status_and_opcode(struct kunit *test)
{
	static const struct {
		u8 dev;
		enum ib_wc_status ib;
	} st[] = {
		{ 0, IB_WC_SUCCESS }, { 1, IB_WC_LOC_LEN_ERR },
		{ 2, IB_WC_LOC_QP_OP_ERR }, { 4, IB_WC_LOC_PROT_ERR },
		{ 5, IB_WC_WR_FLUSH_ERR }, { 6, IB_WC_MW_BIND_ERR },
		{ 7, IB_WC_BAD_RESP_ERR }, { 8, IB_WC_LOC_ACCESS_ERR },
		{ 9, IB_WC_REM_INV_REQ_ERR }, { 10, IB_WC_REM_ACCESS_ERR },
		{ 11, IB_WC_REM_OP_ERR }, { 12, IB_WC_RETRY_EXC_ERR },
		{ 13, IB_WC_RNR_RETRY_EXC_ERR }, { 19, IB_WC_FATAL_ERR },
		{ 21, IB_WC_GENERAL_ERR },
	};
	static const struct {
		u8 dev;
		enum ib_wc_opcode ib;
	} op[] = {
		{ 0, IB_WC_SEND }, { 1, IB_WC_RDMA_WRITE },
		{ 2, IB_WC_RDMA_READ }, { 3, IB_WC_COMP_SWAP },
		{ 4, IB_WC_FETCH_ADD }, { 5, IB_WC_BIND_MW },
		{ 6, IB_WC_LOCAL_INV }, { 8, IB_WC_REG_MR },
		{ 128, IB_WC_RECV }, { 129, IB_WC_RECV_RDMA_WITH_IMM },
	};
	static const u8 bad_st[] = { 3, 14, 15, 16, 17, 18, 20, 22, 64, 255 };
	static const u8 bad_op[] = { 7, 9, 127, 130, 255 };
	struct ib_wc wc;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(st); i++) {
		memset(&wc, 0xa5, sizeof(wc));
		KUNIT_EXPECT_TRUE(test, orca_cqe_to_ib_wc(st[i].dev, 0, true,
							  &wc));
		KUNIT_EXPECT_EQ(test, wc.status, st[i].ib);
		KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
	}
	for (i = 0; i < ARRAY_SIZE(op); i++) {
		memset(&wc, 0xa5, sizeof(wc));
		KUNIT_EXPECT_TRUE(test, orca_cqe_to_ib_wc(0, op[i].dev,
							  op[i].dev < 128, &wc));
		KUNIT_EXPECT_EQ(test, wc.opcode, op[i].ib);
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	}
	for (i = 0; i < ARRAY_SIZE(bad_st); i++) {
		KUNIT_EXPECT_FALSE(test, orca_cqe_to_ib_wc(bad_st[i], 128,
							   false, &wc));
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_GENERAL_ERR);
		KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	}
	for (i = 0; i < ARRAY_SIZE(bad_op); i++) {
		KUNIT_EXPECT_FALSE(test, orca_cqe_to_ib_wc(0, bad_op[i], true,
							   &wc));
		KUNIT_EXPECT_EQ(test, wc.status, IB_WC_GENERAL_ERR);
		KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_SEND);
		KUNIT_EXPECT_FALSE(test, orca_cqe_to_ib_wc(0, bad_op[i], false,
							   &wc));
		KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	}
}

static void qp_type(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, orca_qpt_from_ib(IB_QPT_RC), ORCA_QPT_RC);
	KUNIT_EXPECT_EQ(test, orca_qpt_from_ib(IB_QPT_UC), ORCA_QPT_UC);
	KUNIT_EXPECT_EQ(test, orca_qpt_from_ib(IB_QPT_UD), ORCA_QPT_UD);
	KUNIT_EXPECT_EQ(test, orca_qpt_from_ib(IB_QPT_SMI), ORCA_QPT_SMI);
	KUNIT_EXPECT_EQ(test, orca_qpt_from_ib(IB_QPT_GSI), ORCA_QPT_GSI);
	KUNIT_EXPECT_EQ(test, orca_qpt_from_ib(IB_QPT_XRC_INI), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, orca_qpt_from_ib(IB_QPT_RAW_PACKET),
			-EOPNOTSUPP);
}

static void fill_rtr_attr(struct ib_qp_attr *a)
{
	union ib_gid dgid = { .global = {
		.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL),
		.interface_id = cpu_to_be64(0x1122334455667788ULL) } };

	memset(a, 0, sizeof(*a));
	a->qp_state = IB_QPS_RTR;
	a->path_mtu = IB_MTU_2048;
	a->dest_qp_num = 0xabcdef;
	a->rq_psn = 0x123456;
	a->max_dest_rd_atomic = 4;
	a->min_rnr_timer = 12;
	a->ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(&a->ah_attr, 0x2a);
	rdma_ah_set_sl(&a->ah_attr, 5);
	rdma_ah_set_path_bits(&a->ah_attr, 1);
	rdma_ah_set_static_rate(&a->ah_attr, 3);
	rdma_ah_set_port_num(&a->ah_attr, 1);
	rdma_ah_set_grh(&a->ah_attr, &dgid, 0x12345, 0, 64, 7);
}

#define RTR_MASK (IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | \
		  IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER)

static void modify_rc_rtr_encoding(struct kunit *test)
{
	struct orca_modify_qp_in in = {};
	struct ib_qp_attr a;
	const struct orca_av *av = &in.ctx.av;

	fill_rtr_attr(&a);
	KUNIT_ASSERT_EQ(test, orca_qp_attr_to_modify_in(&a, RTR_MASK, &in), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(in.attr_mask), (u32)RTR_MASK);
	KUNIT_EXPECT_EQ(test, in.ctx.state, ORCA_QPS_RTR);
	KUNIT_EXPECT_EQ(test, in.ctx.path_mtu, IB_MTU_2048);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(in.ctx.dest_qpn), 0xabcdef);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(in.ctx.rq_psn), 0x123456);
	KUNIT_EXPECT_EQ(test, in.ctx.max_dest_rd_atomic, 4);
	KUNIT_EXPECT_EQ(test, in.ctx.min_rnr_timer, 12);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(av->dlid), 0x2a);
	KUNIT_EXPECT_EQ(test, av->sl, 5);
	KUNIT_EXPECT_EQ(test, av->src_path_bits, 1);
	KUNIT_EXPECT_EQ(test, av->static_rate, 3);
	KUNIT_EXPECT_EQ(test, av->port, 1);
	KUNIT_EXPECT_EQ(test, av->flags, ORCA_AV_F_GRH);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(av->flow_label), 0x12345);
	KUNIT_EXPECT_EQ(test, av->hop_limit, 64);
	KUNIT_EXPECT_EQ(test, av->traffic_class, 7);
	KUNIT_EXPECT_EQ(test, av->dgid[15], 0x88);
	/* attributes outside the mask stay zero */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(in.ctx.sq_psn), 0);
	KUNIT_EXPECT_EQ(test, in.ctx.timeout, 0);
	KUNIT_EXPECT_EQ(test, in.ctx.port, 0);
}

static void modify_masked_only(struct kunit *test)
{
	struct orca_modify_qp_in in = {};
	struct ib_qp_attr a;

	fill_rtr_attr(&a);
	a.sq_psn = 77;
	a.timeout = 14;
	KUNIT_ASSERT_EQ(test, orca_qp_attr_to_modify_in(&a, IB_QP_SQ_PSN, &in),
			0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(in.ctx.sq_psn), 77);
	KUNIT_EXPECT_EQ(test, in.ctx.state, ORCA_QPS_RESET);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(in.ctx.dest_qpn), 0);
	KUNIT_EXPECT_EQ(test, in.ctx.timeout, 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(in.ctx.av.dlid), 0);
}

static void modify_rejects_nonstandard_mask(struct kunit *test)
{
	struct orca_modify_qp_in in = {};
	struct ib_qp_attr a = {};

	KUNIT_EXPECT_EQ(test, orca_qp_attr_to_modify_in(&a, IB_QP_RATE_LIMIT,
							&in), -EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, orca_qp_attr_to_modify_in(&a, IB_QP_STATE |
							IB_QP_RATE_LIMIT, &in),
			-EOPNOTSUPP);
}

static void modify_access_flags_remote_only(struct kunit *test)
{
	struct orca_modify_qp_in in = {};
	struct ib_qp_attr a = {
		.qp_access_flags = IB_ACCESS_LOCAL_WRITE |
				   IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_READ |
				   IB_ACCESS_REMOTE_ATOMIC,
	};

	KUNIT_ASSERT_EQ(test, orca_qp_attr_to_modify_in(&a, IB_QP_ACCESS_FLAGS,
							&in), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(in.ctx.access_flags),
			ORCA_ACCESS_REMOTE_WRITE | ORCA_ACCESS_REMOTE_READ |
			ORCA_ACCESS_REMOTE_ATOMIC);
}

static void modify_init_and_rts_fields(struct kunit *test)
{
	struct orca_modify_qp_in in = {};
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_RTS,
		.cur_qp_state = IB_QPS_RTR,
		.pkey_index = 0,
		.port_num = 1,
		.qkey = 0x11111111,
		.sq_psn = 0xfffffe,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 6,
		.max_rd_atomic = 2,
		.path_mig_state = IB_MIG_REARM,
		.en_sqd_async_notify = 1,
	};
	int mask = IB_QP_STATE | IB_QP_CUR_STATE | IB_QP_PKEY_INDEX |
		   IB_QP_PORT | IB_QP_QKEY | IB_QP_SQ_PSN | IB_QP_TIMEOUT |
		   IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC |
		   IB_QP_PATH_MIG_STATE | IB_QP_EN_SQD_ASYNC_NOTIFY;

	KUNIT_ASSERT_EQ(test, orca_qp_attr_to_modify_in(&a, mask, &in), 0);
	KUNIT_EXPECT_EQ(test, in.ctx.state, ORCA_QPS_RTS);
	KUNIT_EXPECT_EQ(test, in.cur_state, ORCA_QPS_RTR);
	KUNIT_EXPECT_EQ(test, in.ctx.port, 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(in.ctx.qkey), 0x11111111);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(in.ctx.sq_psn), 0xfffffe);
	KUNIT_EXPECT_EQ(test, in.ctx.timeout, 14);
	KUNIT_EXPECT_EQ(test, in.ctx.retry_cnt, 7);
	KUNIT_EXPECT_EQ(test, in.ctx.rnr_retry, 6);
	KUNIT_EXPECT_EQ(test, in.ctx.max_rd_atomic, 2);
	KUNIT_EXPECT_EQ(test, in.ctx.path_mig_state, ORCA_MIG_REARM);
	KUNIT_EXPECT_EQ(test, in.ctx.en_sqd_async_notify, 1);
}

static void modify_alt_path_and_cap(struct kunit *test)
{
	struct orca_modify_qp_in in = {};
	struct ib_qp_attr a = {};

	a.alt_ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	rdma_ah_set_dlid(&a.alt_ah_attr, 0x33);
	a.alt_port_num = 1;
	a.alt_timeout = 9;
	a.alt_pkey_index = 0;
	a.cap.max_send_wr = 10;
	a.cap.max_recv_wr = 11;
	a.cap.max_send_sge = 2;
	a.cap.max_recv_sge = 3;
	a.cap.max_inline_data = 64;
	KUNIT_ASSERT_EQ(test, orca_qp_attr_to_modify_in(&a, IB_QP_ALT_PATH |
							IB_QP_CAP, &in), 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(in.ctx.alt_av.dlid), 0x33);
	KUNIT_EXPECT_EQ(test, in.ctx.alt_av.port, 1);
	KUNIT_EXPECT_EQ(test, in.ctx.alt_av.timeout, 9);
	KUNIT_EXPECT_EQ(test, in.ctx.alt_av.flags, 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(in.ctx.max_send_wr), 10);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(in.ctx.max_recv_wr), 11);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(in.ctx.max_send_sge), 2);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(in.ctx.max_recv_sge), 3);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(in.ctx.max_inline_data), 64);
}

static void ctx_to_ib_every_field(struct kunit *test)
{
	struct orca_qp_ctx ctx = {
		.qpn = cpu_to_le32(9),
		.dest_qpn = cpu_to_le32(0x123),
		.qkey = cpu_to_le32(0x80010000),
		.rq_psn = cpu_to_le32(11),
		.sq_psn = cpu_to_le32(12),
		.access_flags = cpu_to_le32(ORCA_ACCESS_REMOTE_READ),
		.pkey_index = cpu_to_le16(0),
		.state = ORCA_QPS_SQD,
		.qp_type = ORCA_QPT_RC,
		.path_mtu = IB_MTU_1024,
		.path_mig_state = ORCA_MIG_ARMED,
		.sq_draining = 1,
		.en_sqd_async_notify = 1,
		.max_rd_atomic = 3,
		.max_dest_rd_atomic = 4,
		.min_rnr_timer = 5,
		.port = 1,
		.timeout = 6,
		.retry_cnt = 7,
		.rnr_retry = 1,
		.sq_sig_all = 1,
		.max_send_wr = cpu_to_le32(64),
		.max_recv_wr = cpu_to_le32(32),
		.max_send_sge = cpu_to_le32(4),
		.max_recv_sge = cpu_to_le32(2),
		.max_inline_data = cpu_to_le32(48),
		.create_flags = cpu_to_le32(ORCA_QP_CREATE_PCI_WRITE_END_PADDING),
		.av = { .dlid = cpu_to_le16(0x2a), .sl = 2, .port = 1 },
		.alt_av = { .dlid = cpu_to_le16(0x2b), .port = 1, .timeout = 8,
			    .pkey_index = 0 },
	};
	struct ib_qp_init_attr init = {};
	struct ib_qp_attr a;

	orca_qp_ctx_to_ib(&ctx, &a, &init);
	KUNIT_EXPECT_EQ(test, a.qp_state, IB_QPS_SQD);
	KUNIT_EXPECT_EQ(test, a.cur_qp_state, IB_QPS_SQD);
	KUNIT_EXPECT_EQ(test, a.path_mtu, IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, a.path_mig_state, IB_MIG_ARMED);
	KUNIT_EXPECT_EQ(test, a.qkey, 0x80010000);
	KUNIT_EXPECT_EQ(test, a.rq_psn, 11);
	KUNIT_EXPECT_EQ(test, a.sq_psn, 12);
	KUNIT_EXPECT_EQ(test, a.dest_qp_num, 0x123);
	KUNIT_EXPECT_EQ(test, a.qp_access_flags, IB_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, a.sq_draining, 1);
	KUNIT_EXPECT_EQ(test, a.en_sqd_async_notify, 1);
	KUNIT_EXPECT_EQ(test, a.max_rd_atomic, 3);
	KUNIT_EXPECT_EQ(test, a.max_dest_rd_atomic, 4);
	KUNIT_EXPECT_EQ(test, a.min_rnr_timer, 5);
	KUNIT_EXPECT_EQ(test, a.port_num, 1);
	KUNIT_EXPECT_EQ(test, a.timeout, 6);
	KUNIT_EXPECT_EQ(test, a.retry_cnt, 7);
	KUNIT_EXPECT_EQ(test, a.rnr_retry, 1);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_dlid(&a.ah_attr), 0x2a);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_sl(&a.ah_attr), 2);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_ah_flags(&a.ah_attr), 0);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_dlid(&a.alt_ah_attr), 0x2b);
	KUNIT_EXPECT_EQ(test, a.alt_port_num, 1);
	KUNIT_EXPECT_EQ(test, a.alt_timeout, 8);
	KUNIT_EXPECT_EQ(test, a.cap.max_send_wr, 64);
	KUNIT_EXPECT_EQ(test, a.cap.max_recv_wr, 32);
	KUNIT_EXPECT_EQ(test, a.cap.max_send_sge, 4);
	KUNIT_EXPECT_EQ(test, a.cap.max_recv_sge, 2);
	KUNIT_EXPECT_EQ(test, a.cap.max_inline_data, 48);
	KUNIT_EXPECT_EQ(test, init.cap.max_send_wr, 64);
	KUNIT_EXPECT_EQ(test, init.cap.max_inline_data, 48);
	KUNIT_EXPECT_EQ(test, init.sq_sig_type, IB_SIGNAL_ALL_WR);
	KUNIT_EXPECT_EQ(test, init.create_flags,
			IB_QP_CREATE_PCI_WRITE_END_PADDING);
}

static void rtr_round_trip(struct kunit *test)
{
	struct orca_modify_qp_in in = {};
	struct ib_qp_init_attr init = {};
	struct ib_qp_attr a, back;
	const struct ib_global_route *grh;

	fill_rtr_attr(&a);
	KUNIT_ASSERT_EQ(test, orca_qp_attr_to_modify_in(&a, RTR_MASK, &in), 0);
	orca_qp_ctx_to_ib(&in.ctx, &back, &init);
	KUNIT_EXPECT_EQ(test, back.qp_state, IB_QPS_RTR);
	KUNIT_EXPECT_EQ(test, back.path_mtu, a.path_mtu);
	KUNIT_EXPECT_EQ(test, back.dest_qp_num, a.dest_qp_num);
	KUNIT_EXPECT_EQ(test, back.rq_psn, a.rq_psn);
	KUNIT_EXPECT_EQ(test, back.max_dest_rd_atomic, a.max_dest_rd_atomic);
	KUNIT_EXPECT_EQ(test, back.min_rnr_timer, a.min_rnr_timer);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_dlid(&back.ah_attr), 0x2a);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_static_rate(&back.ah_attr), 3);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_path_bits(&back.ah_attr), 1);
	KUNIT_ASSERT_TRUE(test, rdma_ah_get_ah_flags(&back.ah_attr) & IB_AH_GRH);
	grh = rdma_ah_read_grh(&back.ah_attr);
	KUNIT_EXPECT_EQ(test, grh->flow_label, 0x12345);
	KUNIT_EXPECT_EQ(test, grh->hop_limit, 64);
	KUNIT_EXPECT_EQ(test, grh->traffic_class, 7);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(grh->dgid.global.interface_id),
			0x1122334455667788ULL);
}

/*
 * For every QP type and transition, the mask ib_core requires is valid
 * and reaches the device bit for bit.
 */
static void required_masks_per_transition(struct kunit *test)
{
	static const struct {
		enum ib_qp_type type;
		enum ib_qp_state cur, next;
		int mask;
	} cases[] = {
		{ IB_QPT_RC, IB_QPS_RESET, IB_QPS_INIT, IB_QP_STATE |
		  IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS },
		{ IB_QPT_UC, IB_QPS_RESET, IB_QPS_INIT, IB_QP_STATE |
		  IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS },
		{ IB_QPT_UD, IB_QPS_RESET, IB_QPS_INIT, IB_QP_STATE |
		  IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY },
		{ IB_QPT_RC, IB_QPS_INIT, IB_QPS_RTR, RTR_MASK },
		{ IB_QPT_UC, IB_QPS_INIT, IB_QPS_RTR, IB_QP_STATE | IB_QP_AV |
		  IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN },
		{ IB_QPT_UD, IB_QPS_INIT, IB_QPS_RTR, IB_QP_STATE },
		{ IB_QPT_RC, IB_QPS_RTR, IB_QPS_RTS, IB_QP_STATE |
		  IB_QP_SQ_PSN | IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
		  IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC },
		{ IB_QPT_UC, IB_QPS_RTR, IB_QPS_RTS, IB_QP_STATE |
		  IB_QP_SQ_PSN },
		{ IB_QPT_UD, IB_QPS_RTR, IB_QPS_RTS, IB_QP_STATE |
		  IB_QP_SQ_PSN },
		{ IB_QPT_RC, IB_QPS_RTS, IB_QPS_SQD, IB_QP_STATE },
		{ IB_QPT_RC, IB_QPS_SQD, IB_QPS_RTS, IB_QP_STATE },
		{ IB_QPT_UD, IB_QPS_SQE, IB_QPS_RTS, IB_QP_STATE },
		{ IB_QPT_RC, IB_QPS_RTS, IB_QPS_ERR, IB_QP_STATE },
		{ IB_QPT_UD, IB_QPS_ERR, IB_QPS_RESET, IB_QP_STATE },
	};
	struct ib_qp_attr a = {};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct orca_modify_qp_in in = {};

		KUNIT_EXPECT_TRUE_MSG(test,
				      ib_modify_qp_is_ok(cases[i].cur,
							 cases[i].next,
							 cases[i].type,
							 cases[i].mask),
				      "case %u", i);
		a.qp_state = cases[i].next;
		KUNIT_ASSERT_EQ(test, orca_qp_attr_to_modify_in(&a,
								cases[i].mask,
								&in), 0);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(in.attr_mask),
				(u32)cases[i].mask);
		KUNIT_EXPECT_EQ(test, orca_qps_to_ib(in.ctx.state),
				cases[i].next);
	}
}

/* Masks the driver refuses before the device sees them. */
static void rejected_masks_per_transition(struct kunit *test)
{
	static const struct {
		enum ib_qp_type type;
		enum ib_qp_state cur, next;
		int mask;
	} cases[] = {
		/* RC RESET->INIT without ACCESS_FLAGS */
		{ IB_QPT_RC, IB_QPS_RESET, IB_QPS_INIT,
		  IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT },
		/* UD RESET->INIT with an RC-only attribute */
		{ IB_QPT_UD, IB_QPS_RESET, IB_QPS_INIT,
		  IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY |
		  IB_QP_ACCESS_FLAGS },
		/* RESET->RTR skips INIT */
		{ IB_QPT_RC, IB_QPS_RESET, IB_QPS_RTR, RTR_MASK },
		/* RC INIT->RTR without the address vector */
		{ IB_QPT_RC, IB_QPS_INIT, IB_QPS_RTR, RTR_MASK & ~IB_QP_AV },
		/* RC RTR->RTS without the retry counts */
		{ IB_QPT_RC, IB_QPS_RTR, IB_QPS_RTS,
		  IB_QP_STATE | IB_QP_SQ_PSN },
		/* UC has no atomics */
		{ IB_QPT_UC, IB_QPS_INIT, IB_QPS_RTR,
		  IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
		  IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_FALSE_MSG(test,
				       ib_modify_qp_is_ok(cases[i].cur,
							  cases[i].next,
							  cases[i].type,
							  cases[i].mask),
				       "case %u", i);
}

static void ece_request(struct kunit *test)
{
	struct orca_ibv_modify_qp ucmd = {};
	struct orca_modify_qp_in in = {};
	struct orca_caps c;

	fill_caps(&c);
	c.dev_caps = cpu_to_le32(ORCA_DEV_CAP_ECE);

	/* no request: the device keeps what it negotiated */
	KUNIT_EXPECT_EQ(test, orca_ece_to_modify_in(&c, &ucmd, &in), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(in.flags), 0);

	ucmd.comp_mask = ORCA_IBV_MODIFY_QP_ECE_OPTIONS;
	ucmd.ece_options = ORCA_ECE_OPT_SELECTIVE_REPEAT | 0x100;
	KUNIT_EXPECT_EQ(test, orca_ece_to_modify_in(&c, &ucmd, &in), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(in.flags), ORCA_MODIFY_F_ECE);
	/* the device, not the driver, drops what it does not support */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(in.ece_options),
			ORCA_ECE_OPT_SELECTIVE_REPEAT | 0x100);
}

static void ece_request_refused(struct kunit *test)
{
	struct orca_ibv_modify_qp ucmd = { .comp_mask = ORCA_IBV_MODIFY_QP_ECE_OPTIONS };
	struct orca_modify_qp_in in = {};
	struct orca_caps c;

	fill_caps(&c);
	c.dev_caps = 0;
	KUNIT_EXPECT_EQ(test, orca_ece_to_modify_in(&c, &ucmd, &in),
			-EOPNOTSUPP);
	c.dev_caps = cpu_to_le32(ORCA_DEV_CAP_ECE);
	c.ece_vendor_id = 0;
	KUNIT_EXPECT_EQ(test, orca_ece_to_modify_in(&c, &ucmd, &in),
			-EOPNOTSUPP);
	c.ece_vendor_id = cpu_to_le32(0x00ca7a);
	ucmd.comp_mask |= 1U << 7;
	KUNIT_EXPECT_EQ(test, orca_ece_to_modify_in(&c, &ucmd, &in),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(in.flags), 0);
}

static struct kunit_case orca_attr_cases[] = {
	KUNIT_CASE(caps_every_field),
	KUNIT_CASE(caps_no_mcast),
	KUNIT_CASE(caps_check_bounds),
	KUNIT_CASE(caps_clock),
	KUNIT_CASE(caps_dev_cap_flags),
	KUNIT_CASE(caps_atomic_cap),
	KUNIT_CASE(caps_uapi_device_caps),
	KUNIT_CASE(caps_data_in_order),
	KUNIT_CASE(port_every_field),
	KUNIT_CASE(port_bad_values),
	KUNIT_CASE(port_mirror_entry),
	KUNIT_CASE(qp_state_round_trip),
	KUNIT_CASE(qp_type),
	KUNIT_CASE(cqe_status_and_opcode),
	KUNIT_CASE(modify_rc_rtr_encoding),
	KUNIT_CASE(modify_masked_only),
	KUNIT_CASE(modify_rejects_nonstandard_mask),
	KUNIT_CASE(modify_access_flags_remote_only),
	KUNIT_CASE(modify_init_and_rts_fields),
	KUNIT_CASE(modify_alt_path_and_cap),
	KUNIT_CASE(ctx_to_ib_every_field),
	KUNIT_CASE(rtr_round_trip),
	KUNIT_CASE(required_masks_per_transition),
	KUNIT_CASE(rejected_masks_per_transition),
	KUNIT_CASE(ece_request),
	KUNIT_CASE(ece_request_refused),
	{}
};

static struct kunit_suite orca_attr_suite = {
	.name = "orca_attr",
	.test_cases = orca_attr_cases,
};

kunit_test_suite(orca_attr_suite);
