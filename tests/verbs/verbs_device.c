// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_device: ibv_query_device_ex(3) on orca.
 *   usage: verbs_device [-d DEV] [--config FILE] [--set KEY=VALUE]...
 *
 * Every field of struct ibv_device_attr_ex and its sub-structures must be
 * what the device reported in QUERY_CAPS, i.e. what the emulator was
 * configured with (tests/verbs/expect.h: a boot with a non-default
 * configuration proves the values travel, rather than being invented on
 * the way).  Also: the input comp_mask rules, the legacy ibv_query_device,
 * the port attributes, PCI write end padding (capability bit and
 * IBV_QP_CREATE_PCI_WRITE_END_PADDING at QP creation), and that every
 * feature reported as 0 is refused by the verb that would use it.
 */
#include <sys/mman.h>

#include "common.h"
#include "expect.h"

static uint64_t expected_cap_flags(const struct expect *c)
{
	static const struct {
		uint64_t orca, ibv;
	} map[] = {
		{ EXPECT_DEV_CAP_BAD_PKEY_CNTR, IBV_DEVICE_BAD_PKEY_CNTR },
		{ EXPECT_DEV_CAP_BAD_QKEY_CNTR, IBV_DEVICE_BAD_QKEY_CNTR },
		{ EXPECT_DEV_CAP_SYS_IMAGE_GUID, IBV_DEVICE_SYS_IMAGE_GUID },
		{ EXPECT_DEV_CAP_RC_RNR_NAK_GEN, IBV_DEVICE_RC_RNR_NAK_GEN },
		{ EXPECT_DEV_CAP_PORT_ACTIVE_EVENT, IBV_DEVICE_PORT_ACTIVE_EVENT },
		{ EXPECT_DEV_CAP_CHANGE_PHY_PORT, IBV_DEVICE_CHANGE_PHY_PORT },
		{ EXPECT_DEV_CAP_UD_AV_PORT_ENFORCE, IBV_DEVICE_UD_AV_PORT_ENFORCE },
		{ EXPECT_DEV_CAP_PCI_WRITE_END_PADDING,
		  IBV_DEVICE_PCI_WRITE_END_PADDING },
		{ EXPECT_DEV_CAP_MEM_WINDOW, IBV_DEVICE_MEM_WINDOW },
		{ EXPECT_DEV_CAP_MW_TYPE_2B, IBV_DEVICE_MEM_WINDOW_TYPE_2B },
		/* fast registration: the kernel's REG_MR, LOCAL_INV, SEND_WITH_INV */
		{ EXPECT_DEV_CAP_FAST_REG, IBV_DEVICE_MEM_MGT_EXTENSIONS },
	};
	uint64_t f = 0;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (c->dev_caps & map[i].orca)
			f |= map[i].ibv;
	/* ATOMIC WRITE: uverbs has a bit for it from 6.2 on */
	if ((c->dev_caps & EXPECT_DEV_CAP_ATOMIC_WRITE) &&
	    kernel_at_least(6, 2))
		f |= UVERBS_DEVICE_ATOMIC_WRITE;
	return f;
}

static void eq_check(unsigned long long got, unsigned long long want,
		     const char *name)
{
	if (got == want)
		ok(true, "%s = %#llx", name, want);
	else
		ok(false, "%s = %#llx (got %#llx)", name, want, got);
}

#define EQ(got, want, name)                                                   \
	eq_check((unsigned long long)(got), (unsigned long long)(want), name)

static void check_orig(const struct ibv_device_attr *a, const struct expect *c)
{
	char fw[64];

	snprintf(fw, sizeof(fw), "%u.%u.%u",
		 c->fw_version[0], c->fw_version[1], c->fw_version[2]);
	ok(!strcmp(a->fw_ver, fw), "fw_ver = \"%s\" (got \"%s\")", fw,
	   a->fw_ver);
	EQ(be64toh(a->node_guid), c->node_guid, "node_guid");
	EQ(be64toh(a->sys_image_guid), c->sys_image_guid, "sys_image_guid");
	EQ(a->max_mr_size, c->max_mr_size, "max_mr_size");
	EQ(a->page_size_cap, c->page_size_cap, "page_size_cap");
	EQ(a->vendor_id, c->vendor_id, "vendor_id");
	EQ(a->vendor_part_id, c->vendor_part_id, "vendor_part_id");
	EQ(a->hw_ver, c->hw_ver, "hw_ver");
	EQ(a->max_qp, c->max_qp, "max_qp");
	EQ(a->max_qp_wr, c->max_qp_wr, "max_qp_wr");
	EQ(a->device_cap_flags,
	   expected_cap_flags(c) & 0xffffffffULL, "device_cap_flags");
	EQ(a->max_sge,
	   c->max_send_sge < c->max_recv_sge ? c->max_send_sge : c->max_recv_sge,
	   "max_sge (min of max_send_sge, max_recv_sge)");
	EQ(a->max_sge_rd, c->max_sge_rd, "max_sge_rd");
	EQ(a->max_cq, c->max_cq, "max_cq");
	EQ(a->max_cqe, c->max_cqe, "max_cqe");
	EQ(a->max_mr, c->max_mr, "max_mr");
	EQ(a->max_pd, c->max_pd, "max_pd");
	EQ(a->max_qp_rd_atom, c->max_qp_rd_atom, "max_qp_rd_atom");
	EQ(a->max_ee_rd_atom, 0, "max_ee_rd_atom (no EE contexts)");
	EQ(a->max_res_rd_atom, c->max_res_rd_atom, "max_res_rd_atom");
	EQ(a->max_qp_init_rd_atom, c->max_qp_init_rd_atom,
	   "max_qp_init_rd_atom");
	EQ(a->max_ee_init_rd_atom, 0, "max_ee_init_rd_atom");
	EQ(a->atomic_cap, c->atomic_cap, "atomic_cap");
	EQ(a->max_ee, 0, "max_ee");
	EQ(a->max_rdd, 0, "max_rdd");
	EQ(a->max_mw, c->max_mw, "max_mw");
	EQ(a->max_raw_ipv6_qp, 0, "max_raw_ipv6_qp");
	EQ(a->max_raw_ethy_qp, 0, "max_raw_ethy_qp");
	EQ(a->max_mcast_grp, c->max_mcast_grp, "max_mcast_grp");
	/* without groups no attach limit is advertised */
	EQ(a->max_mcast_qp_attach,
	   c->max_mcast_grp ? c->max_mcast_qp_attach : 0,
	   "max_mcast_qp_attach");
	EQ(a->max_total_mcast_qp_attach,
	   c->max_mcast_grp ? c->max_total_mcast_qp_attach : 0,
	   "max_total_mcast_qp_attach");
	EQ(a->max_ah, c->max_ah, "max_ah");
	EQ(a->max_fmr, 0, "max_fmr");
	EQ(a->max_map_per_fmr, 0, "max_map_per_fmr");
	EQ(a->max_srq, c->max_srq, "max_srq");
	EQ(a->max_srq_wr, c->max_srq_wr, "max_srq_wr");
	EQ(a->max_srq_sge, c->max_srq_sge, "max_srq_sge");
	EQ(a->max_pkeys, c->max_pkeys, "max_pkeys");
	EQ(a->local_ca_ack_delay, c->local_ca_ack_delay, "local_ca_ack_delay");
	EQ(a->phys_port_cnt, c->phys_port_cnt, "phys_port_cnt");
}

static void check_ex(const struct ibv_device_attr_ex *a, const struct expect *c)
{
	/* libibverbs 44 defines no ibv_device_attr_ex comp_mask bit */
	EQ(a->comp_mask, 0, "comp_mask");
	EQ(a->odp_caps.general_caps, 0, "odp_caps.general_caps (no ODP)");
	EQ(a->odp_caps.per_transport_caps.rc_odp_caps, 0,
	   "odp_caps.per_transport_caps.rc_odp_caps");
	EQ(a->odp_caps.per_transport_caps.uc_odp_caps, 0,
	   "odp_caps.per_transport_caps.uc_odp_caps");
	EQ(a->odp_caps.per_transport_caps.ud_odp_caps, 0,
	   "odp_caps.per_transport_caps.ud_odp_caps");
	EQ(a->completion_timestamp_mask, c->completion_timestamp_mask,
	   "completion_timestamp_mask (the clock's bits)");
	EQ(a->hca_core_clock, c->hca_core_clock, "hca_core_clock (kHz)");
	EQ(a->device_cap_flags_ex, expected_cap_flags(c),
	   "device_cap_flags_ex");
	EQ(a->tso_caps.max_tso, 0, "tso_caps.max_tso (no TSO)");
	EQ(a->tso_caps.supported_qpts, 0, "tso_caps.supported_qpts");
	EQ(a->rss_caps.supported_qpts, 0, "rss_caps.supported_qpts (no RSS)");
	EQ(a->rss_caps.max_rwq_indirection_tables, 0,
	   "rss_caps.max_rwq_indirection_tables");
	EQ(a->rss_caps.max_rwq_indirection_table_size, 0,
	   "rss_caps.max_rwq_indirection_table_size");
	EQ(a->rss_caps.rx_hash_fields_mask, 0, "rss_caps.rx_hash_fields_mask");
	EQ(a->rss_caps.rx_hash_function, 0, "rss_caps.rx_hash_function");
	EQ(a->max_wq_type_rq, 0, "max_wq_type_rq (no WQs)");
	EQ(a->packet_pacing_caps.qp_rate_limit_min, 0,
	   "packet_pacing_caps.qp_rate_limit_min (no pacing)");
	EQ(a->packet_pacing_caps.qp_rate_limit_max, 0,
	   "packet_pacing_caps.qp_rate_limit_max");
	EQ(a->packet_pacing_caps.supported_qpts, 0,
	   "packet_pacing_caps.supported_qpts");
	EQ(a->raw_packet_caps, 0, "raw_packet_caps (no raw packet QPs)");
	EQ(a->tm_caps.max_rndv_hdr_size, 0,
	   "tm_caps.max_rndv_hdr_size (no tag matching)");
	EQ(a->tm_caps.max_num_tags, 0, "tm_caps.max_num_tags");
	EQ(a->tm_caps.flags, 0, "tm_caps.flags");
	EQ(a->tm_caps.max_ops, 0, "tm_caps.max_ops");
	EQ(a->tm_caps.max_sge, 0, "tm_caps.max_sge");
	EQ(a->cq_mod_caps.max_cq_count, 0,
	   "cq_mod_caps.max_cq_count (no CQ moderation)");
	EQ(a->cq_mod_caps.max_cq_period, 0, "cq_mod_caps.max_cq_period");
	EQ(a->max_dm_size, c->max_dm_size, "max_dm_size (device memory)");
	EQ(a->pci_atomic_caps.fetch_add, 0, "pci_atomic_caps.fetch_add");
	EQ(a->pci_atomic_caps.swap, 0, "pci_atomic_caps.swap");
	EQ(a->pci_atomic_caps.compare_swap, 0, "pci_atomic_caps.compare_swap");
	EQ(a->xrc_odp_caps, 0, "xrc_odp_caps");
	EQ(a->phys_port_cnt_ex, c->phys_port_cnt, "phys_port_cnt_ex");
}


/*
 * ib_cm in the kernel: a module (/sys/module/ib_cm), or built in (the
 * debug kernel), where only its symbols say so.
 */
static bool ib_cm_present(void)
{
	char line[256];
	bool found = false;
	FILE *f;

	if (!access("/sys/module/ib_cm", F_OK))
		return true;
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " ib_cm_listen\n") ||
			strstr(line, " ib_cm_listen\t");
	fclose(f);
	return found;
}
static void check_port(struct ibv_context *ctx, const struct expect *c)
{
	struct ibv_port_attr p;
	union ibv_gid gid;
	uint16_t pkey;
	int ret;

	memset(&p, 0x5a, sizeof(p));
	ret = ibv_query_port(ctx, 1, &p);
	if (!ok(!ret, "query_port 1: %s", err_str(ret)))
		return;
	EQ(p.state, IBV_PORT_ACTIVE, "port.state");
	EQ(p.max_mtu, c->max_mtu, "port.max_mtu");
	EQ(p.active_mtu, c->active_mtu, "port.active_mtu");
	EQ(p.gid_tbl_len, c->gid_tbl_len, "port.gid_tbl_len");
	/* IsCM is ib_cm's to set (ib_modify_port) while it is there */
	EQ(p.port_cap_flags, c->port_cap_flags |
	   (ib_cm_present() ? IBV_PORT_CM_SUP : 0), "port.port_cap_flags");
	EQ(p.max_msg_sz, c->max_msg_sz, "port.max_msg_sz");
	EQ(p.pkey_tbl_len, c->pkey_tbl_len, "port.pkey_tbl_len");
	EQ(p.lid, c->lid, "port.lid");
	EQ(p.sm_lid, c->sm_lid, "port.sm_lid");
	EQ(p.lmc, c->lmc, "port.lmc");
	EQ(p.max_vl_num, c->max_vl_num, "port.max_vl_num");
	EQ(p.sm_sl, c->sm_sl, "port.sm_sl");
	EQ(p.active_width, c->active_width, "port.active_width");
	EQ(p.active_speed, c->active_speed, "port.active_speed");
	EQ(p.phys_state, 5, "port.phys_state (LinkUp)");
	EQ(p.link_layer, IBV_LINK_LAYER_INFINIBAND, "port.link_layer");
	ret = ibv_query_gid(ctx, 1, 0, &gid);
	ok(!ret && be64toh(gid.global.subnet_prefix) == c->subnet_prefix &&
		   be64toh(gid.global.interface_id) == c->port_guid,
	   "gid[0] = subnet_prefix %#llx : port_guid %#llx (got %#llx : %#llx)",
	   (unsigned long long)c->subnet_prefix,
	   (unsigned long long)c->port_guid,
	   (unsigned long long)be64toh(gid.global.subnet_prefix),
	   (unsigned long long)be64toh(gid.global.interface_id));
	ret = ibv_query_pkey(ctx, 1, 0, &pkey);
	ok(!ret && be16toh(pkey) == c->pkey, "pkey[0] = %#llx (got %#x)",
	   (unsigned long long)c->pkey, be16toh(pkey));
}

/* ------------------------------------------------------------------ */
/* PCI write end padding                                              */
/* ------------------------------------------------------------------ */

static struct ibv_qp *create_ex(struct ibv_context *ctx, struct ibv_pd *pd,
				struct ibv_cq *cq, enum ibv_qp_type type,
				uint32_t comp_mask, uint32_t create_flags)
{
	struct ibv_qp_init_attr_ex a = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = type,
		.comp_mask = IBV_QP_INIT_ATTR_PD | comp_mask,
		.pd = pd,
		.create_flags = create_flags,
	};

	errno = 0;
	return ibv_create_qp_ex(ctx, &a);
}

static void pci_padding(struct ibv_context *ctx, struct ibv_pd *pd,
			struct ibv_cq *cq, const struct ibv_device_attr_ex *attr,
			const struct ibv_port_attr *port, const struct expect *c)
{
	static const enum ibv_qp_type types[] = { IBV_QPT_RC, IBV_QPT_UC,
						  IBV_QPT_UD };
	static const struct {
		uint32_t flag;
		const char *name;
	} other[] = {
		{ IBV_QP_CREATE_BLOCK_SELF_MCAST_LB, "BLOCK_SELF_MCAST_LB" },
		{ IBV_QP_CREATE_SCATTER_FCS, "SCATTER_FCS" },
		{ IBV_QP_CREATE_CVLAN_STRIPPING, "CVLAN_STRIPPING" },
		{ IBV_QP_CREATE_SOURCE_QPN, "SOURCE_QPN" },
		{ 1u << 30, "bit 30 (undefined)" },
	};
	bool has = c->pci_write_end_padding;
	struct ibv_qp *qp;
	int ret;

	ok(!!(attr->device_cap_flags_ex & IBV_DEVICE_PCI_WRITE_END_PADDING) == has,
	   "device_cap_flags_ex %s IBV_DEVICE_PCI_WRITE_END_PADDING (configured pci_write_end_padding=%d)",
	   has ? "has" : "lacks", has);
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		const char *t = qpt_str(types[i]);

		qp = create_ex(ctx, pd, cq, types[i],
			       IBV_QP_INIT_ATTR_CREATE_FLAGS,
			       IBV_QP_CREATE_PCI_WRITE_END_PADDING);
		if (has && types[i] != IBV_QPT_UD) {
			/*
			 * Linux 6.1 ib_uverbs (uverbs_std_types_qp.c
			 * check_creation_flags) accepts create flags only for
			 * UD and raw packet QPs: EINVAL before the driver.
			 */
			ok(!qp && errno == EINVAL,
			   "%s: create_qp_ex with IBV_QP_CREATE_PCI_WRITE_END_PADDING fails with EINVAL (ib_uverbs allows create flags only on UD/raw packet QPs) (got %s)",
			   t, qp ? "success" : strerror(errno));
			if (qp)
				ibv_destroy_qp(qp);
		} else if (has) {
			if (!ok(qp != NULL,
				"%s: create_qp_ex with IBV_QP_CREATE_PCI_WRITE_END_PADDING is accepted: %s",
				t, qp ? "success" : strerror(errno)))
				continue;
			ret = walk_to(qp, port, IBV_QPS_RESET, IBV_QPS_INIT) ||
			      walk_to(qp, port, IBV_QPS_INIT, IBV_QPS_RTR) ||
			      walk_to(qp, port, IBV_QPS_RTR, IBV_QPS_RTS);
			ok(!ret && query_state(qp) == IBV_QPS_RTS,
			   "%s: the padded QP goes to RTS and query_qp works", t);
			ret = ibv_destroy_qp(qp);
			ok(!ret, "%s: destroy the padded QP: %s", t,
			   err_str(ret));
		} else {
			ok(!qp && errno == EOPNOTSUPP,
			   "%s: create_qp_ex with IBV_QP_CREATE_PCI_WRITE_END_PADDING on a device without it fails with EOPNOTSUPP (got %s)",
			   t, qp ? "success" : strerror(errno));
			if (qp)
				ibv_destroy_qp(qp);
		}
	}
	/* create_flags 0 with the comp_mask bit: an ordinary QP */
	qp = create_ex(ctx, pd, cq, IBV_QPT_RC, IBV_QP_INIT_ATTR_CREATE_FLAGS, 0);
	ok(qp != NULL, "RC: create_qp_ex with IBV_QP_INIT_ATTR_CREATE_FLAGS and create_flags 0: %s",
	   qp ? "success" : strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		qp = create_ex(ctx, pd, cq, IBV_QPT_UD,
			       IBV_QP_INIT_ATTR_CREATE_FLAGS, other[i].flag);
		ok(!qp && errno == EOPNOTSUPP,
		   "UD: create_qp_ex with unsupported create flag %s fails with EOPNOTSUPP (got %s)",
		   other[i].name, qp ? "success" : strerror(errno));
		if (qp)
			ibv_destroy_qp(qp);
	}
}

/* ------------------------------------------------------------------ */
/* Multicast attach: what max_mcast_* promise, and no more            */
/* ------------------------------------------------------------------ */

static void mgid_of(union ibv_gid *g, unsigned int i)
{
	/* ff12:401b::/16-style IPoIB-like groups, one per index */
	memset(g, 0, sizeof(*g));
	g->raw[0] = 0xff;
	g->raw[1] = 0x12;
	g->raw[2] = 0x40;
	g->raw[3] = 0x1b;
	g->raw[14] = i >> 8;
	g->raw[15] = i & 0xff;
}

static void multicast(struct ibv_pd *pd, struct ibv_cq *cq,
		      const struct ibv_device_attr_ex *a)
{
	uint32_t ngrp = a->orig_attr.max_mcast_grp;
	uint32_t total = a->orig_attr.max_total_mcast_qp_attach;
	uint32_t fit = ngrp < total ? ngrp : total, n, i;
	struct ibv_qp *ud, *rc;
	union ibv_gid g;
	int ret, bad;

	/* one UD QP in as many groups as fit; 4096 commands at most */
	if (!ngrp || !a->orig_attr.max_mcast_qp_attach || fit > 4096)
		return;
	ud = create_qp(pd, cq, IBV_QPT_UD);
	rc = create_qp(pd, cq, IBV_QPT_RC);
	if (!ok(ud && rc, "multicast: a UD and an RC QP"))
		goto out;
	mgid_of(&g, 0);
	ret = ibv_attach_mcast(ud, &g, 0xc000);
	ok(!ret, "ibv_attach_mcast of a UD QP to ff12:401b::0/0xc000: %s",
	   err_str(ret));
	ret = ibv_attach_mcast(ud, &g, 0xc000);
	ok(!ret, "the same attach again succeeds (attached once): %s",
	   err_str(ret));
	ret = ibv_attach_mcast(rc, &g, 0xc000);
	ok(ret == EINVAL, "an RC QP cannot attach: EINVAL (got %s)",
	   err_str(ret));
	ret = ibv_attach_mcast(ud, &g, 0x0011);
	ok(ret == EINVAL, "a unicast LID is no group: EINVAL (got %s)",
	   err_str(ret));
	for (n = 1, ret = 0; n < fit && !ret; n++) {
		mgid_of(&g, n);
		ret = ibv_attach_mcast(ud, &g, 0xc000 + n);
	}
	ok(!ret && n == fit, "%u groups attached (min of max_mcast_grp %u, max_total_mcast_qp_attach %u): %s",
	   ret ? n - 1 : n, ngrp, total, err_str(ret));
	mgid_of(&g, fit);
	ret = ibv_attach_mcast(ud, &g, 0xc000 + fit);
	ok(ret == ENOMEM, "one group more: ENOMEM (got %s)", err_str(ret));
	if (!ret)
		ibv_detach_mcast(ud, &g, 0xc000 + fit);
	for (i = 0, bad = 0; i < n; i++) {
		mgid_of(&g, i);
		bad += !!ibv_detach_mcast(ud, &g, 0xc000 + i);
	}
	ok(!bad, "ibv_detach_mcast of each: %d failed", bad);
	mgid_of(&g, 0);
	ret = ibv_detach_mcast(ud, &g, 0xc000);
	ok(ret == EINVAL, "detaching again: EINVAL (got %s)", err_str(ret));
	ret = ibv_attach_mcast(ud, &g, 0xc000);
	ok(!ret, "every group gone: a new attach succeeds: %s", err_str(ret));
out:
	if (ud)
		ibv_destroy_qp(ud);
	if (rc)
		ibv_destroy_qp(rc);
}

/* ------------------------------------------------------------------ */
/* Features reported as 0 must be refused by their verbs              */
/* ------------------------------------------------------------------ */

#define REFUSED(cond, got_err, what, ...)                                     \
	ok((cond) && (got_err) == EOPNOTSUPP,                                 \
	   what " fails with EOPNOTSUPP (got %s)", ##__VA_ARGS__,             \
	   (cond) ? strerror(got_err) : "success")

static void unsupported(struct ibv_context *ctx, struct ibv_pd *pd,
			struct ibv_cq *cq, const struct ibv_device_attr_ex *a,
			const struct ibv_port_attr *port)
{
	struct ibv_qp *ud = create_qp(pd, cq, IBV_QPT_UD);
	void *buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int ret;

	if (a->orig_attr.max_srq == 0) {
		struct ibv_srq_init_attr sa = { .attr = { .max_wr = 4,
							  .max_sge = 1 } };
		struct ibv_srq *srq;

		errno = 0;
		srq = ibv_create_srq(pd, &sa);
		REFUSED(!srq, errno, "max_srq 0: ibv_create_srq");
		if (srq)
			ibv_destroy_srq(srq);
	}
	if (a->tm_caps.max_num_tags == 0) {
		struct ibv_srq_init_attr_ex sa = {
			.attr = { .max_wr = 4, .max_sge = 1 },
			.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
				     IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_TM,
			.srq_type = IBV_SRQT_TM,
			.pd = pd,
			.cq = cq,
			.tm_cap = { .max_num_tags = 1, .max_ops = 1 },
		};
		struct ibv_srq *srq;

		errno = 0;
		srq = ibv_create_srq_ex(ctx, &sa);
		REFUSED(!srq, errno,
			"tm_caps.max_num_tags 0: ibv_create_srq_ex(IBV_SRQT_TM)");
		if (srq)
			ibv_destroy_srq(srq);
	}
	if (a->orig_attr.max_mw == 0) {
		struct ibv_mw *mw;

		errno = 0;
		mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
		REFUSED(!mw, errno, "max_mw 0: ibv_alloc_mw");
		if (mw)
			ibv_dealloc_mw(mw);
		errno = 0;
		mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
		REFUSED(!mw, errno, "max_mw 0: ibv_alloc_mw(IBV_MW_TYPE_2)");
		if (mw)
			ibv_dealloc_mw(mw);
	}
	if (a->orig_attr.max_ah == 0) {
		struct ibv_ah_attr aa = { .dlid = port->lid, .port_num = 1 };
		struct ibv_ah *ah;

		errno = 0;
		ah = ibv_create_ah(pd, &aa);
		REFUSED(!ah, errno, "max_ah 0: ibv_create_ah");
		if (ah)
			ibv_destroy_ah(ah);
	}
	if (a->orig_attr.max_mcast_grp == 0 && ud) {
		union ibv_gid mgid = { .raw = { 0xff, 0x12, 0x40, 0x1b } };

		ret = ibv_attach_mcast(ud, &mgid, 0xc001);
		REFUSED(ret, ret, "max_mcast_grp 0: ibv_attach_mcast");
		if (!ret)
			ibv_detach_mcast(ud, &mgid, 0xc001);
	}
	if (a->odp_caps.general_caps == 0 && buf != MAP_FAILED) {
		struct ibv_mr *mr;

		errno = 0;
		mr = ibv_reg_mr(pd, buf, 4096,
				IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
		REFUSED(!mr, errno,
			"odp_caps 0: ibv_reg_mr(IBV_ACCESS_ON_DEMAND)");
		if (mr)
			ibv_dereg_mr(mr);
	}
	if (a->completion_timestamp_mask == 0) {
		struct ibv_cq_init_attr_ex ca = {
			.cqe = 4,
			.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
		};
		struct ibv_cq_ex *cqx;

		errno = 0;
		cqx = ibv_create_cq_ex(ctx, &ca);
		REFUSED(!cqx, errno,
			"completion_timestamp_mask 0: ibv_create_cq_ex(WITH_COMPLETION_TIMESTAMP)");
		if (cqx)
			ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
		ca.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK;
		errno = 0;
		cqx = ibv_create_cq_ex(ctx, &ca);
		REFUSED(!cqx, errno,
			"completion_timestamp_mask 0: ibv_create_cq_ex(WITH_COMPLETION_TIMESTAMP_WALLCLOCK)");
		if (cqx)
			ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
	}
	if (a->hca_core_clock == 0) {
		struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };

		ret = ibv_query_rt_values_ex(ctx, &v);
		REFUSED(ret, ret, "hca_core_clock 0: ibv_query_rt_values_ex(RAW_CLOCK)");
	}
	if (a->tso_caps.max_tso == 0) {
		struct ibv_qp_init_attr_ex qa = {
			.send_cq = cq, .recv_cq = cq,
			.cap = { .max_send_wr = 4, .max_recv_wr = 4,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.qp_type = IBV_QPT_UD,
			.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_MAX_TSO_HEADER,
			.pd = pd,
			.max_tso_header = 64,
		};
		struct ibv_qp *qp;

		errno = 0;
		qp = ibv_create_qp_ex(ctx, &qa);
		REFUSED(!qp, errno,
			"tso_caps.max_tso 0: ibv_create_qp_ex(MAX_TSO_HEADER)");
		if (qp)
			ibv_destroy_qp(qp);
	}
	if (a->max_wq_type_rq == 0) {
		struct ibv_wq_init_attr wa = {
			.wq_type = IBV_WQT_RQ, .max_wr = 4, .max_sge = 1,
			.pd = pd, .cq = cq,
			.comp_mask = IBV_WQ_INIT_ATTR_FLAGS,
			.create_flags = IBV_WQ_FLAGS_PCI_WRITE_END_PADDING,
		};
		struct ibv_wq *wq;

		errno = 0;
		wq = ibv_create_wq(ctx, &wa);
		REFUSED(!wq, errno,
			"max_wq_type_rq 0: ibv_create_wq (IBV_WQ_FLAGS_PCI_WRITE_END_PADDING has no WQ to go on)");
		if (wq)
			ibv_destroy_wq(wq);
	}
	if (a->rss_caps.max_rwq_indirection_tables == 0) {
		struct ibv_rwq_ind_table_init_attr ra = { .log_ind_tbl_size = 0 };
		struct ibv_rwq_ind_table *t;

		errno = 0;
		t = ibv_create_rwq_ind_table(ctx, &ra);
		REFUSED(!t, errno,
			"rss_caps 0: ibv_create_rwq_ind_table");
		if (t)
			ibv_destroy_rwq_ind_table(t);
	}
	if (a->packet_pacing_caps.qp_rate_limit_max == 0 && ud) {
		struct ibv_qp_rate_limit_attr rl = { .rate_limit = 1000 };
		struct ibv_qp_attr qa = { .qp_state = IBV_QPS_RESET,
					  .rate_limit = 1000 };

		ret = ibv_modify_qp_rate_limit(ud, &rl);
		REFUSED(ret, ret, "packet_pacing_caps 0: ibv_modify_qp_rate_limit");
		ret = ibv_modify_qp(ud, &qa, IBV_QP_STATE | IBV_QP_RATE_LIMIT);
		REFUSED(ret, ret,
			"packet_pacing_caps 0: ibv_modify_qp with IBV_QP_RATE_LIMIT");
	}
	if (a->raw_packet_caps == 0) {
		struct ibv_qp *qp = create_qp(pd, cq, IBV_QPT_RAW_PACKET);

		REFUSED(!qp, errno,
			"raw_packet_caps 0: ibv_create_qp(IBV_QPT_RAW_PACKET)");
		if (qp)
			ibv_destroy_qp(qp);
	}
	if (a->cq_mod_caps.max_cq_count == 0) {
		struct ibv_modify_cq_attr ma = {
			.attr_mask = IBV_CQ_ATTR_MODERATE,
			.moderate = { .cq_count = 1, .cq_period = 1 },
		};

		ret = ibv_modify_cq(cq, &ma);
		REFUSED(ret, ret, "cq_mod_caps 0: ibv_modify_cq(MODERATE)");
	}
	if (a->max_dm_size == 0) {
		struct ibv_alloc_dm_attr da = { .length = 64 };
		struct ibv_dm *dm;

		errno = 0;
		dm = ibv_alloc_dm(ctx, &da);
		REFUSED(!dm, errno, "max_dm_size 0: ibv_alloc_dm");
		if (dm)
			ibv_free_dm(dm);
	}
	if (a->xrc_odp_caps == 0 &&
	    !(a->orig_attr.device_cap_flags & IBV_DEVICE_XRC)) {
		struct ibv_xrcd_init_attr xa = {
			.comp_mask = IBV_XRCD_INIT_ATTR_FD |
				     IBV_XRCD_INIT_ATTR_OFLAGS,
			.fd = -1,
			.oflags = O_CREAT,
		};
		struct ibv_xrcd *x;

		errno = 0;
		x = ibv_open_xrcd(ctx, &xa);
		REFUSED(!x, errno, "no IBV_DEVICE_XRC: ibv_open_xrcd");
		if (x)
			ibv_close_xrcd(x);
	}
	if (ud)
		ibv_destroy_qp(ud);
	if (buf != MAP_FAILED)
		munmap(buf, 4096);
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	struct ibv_query_device_ex_input input;
	struct ibv_device_attr_ex attr, again, poison;
	struct ibv_device_attr legacy;
	struct ibv_port_attr port;
	struct ibv_context *ctx;
	struct expect ex;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	static const uint32_t bad_masks[] = { 1, 2, 0x80000000u, ~0u };
	int ret;

	if (expect_init(&ex, &argc, argv) || argc > 1) {
		fprintf(stderr,
			"usage: %s [-d DEV] [--config FILE] [--set KEY=VALUE]...\n",
			argv[0]);
		return 125;
	}
	diag("expected configuration from %s", ex.source);

	ctx = open_device_by_name(dev);
	if (!ok(ctx != NULL, "open %s", dev))
		return tap_done();

	/* input rules: NULL or comp_mask 0; anything else is EINVAL */
	memset(&attr, 0x5a, sizeof(attr));
	ret = ibv_query_device_ex(ctx, NULL, &attr);
	if (!ok(!ret, "query_device_ex(input NULL) returns 0: %s", err_str(ret)))
		goto out;
	memset(&again, 0x5a, sizeof(again));
	memset(&input, 0, sizeof(input));
	ret = ibv_query_device_ex(ctx, &input, &again);
	ok(!ret && !memcmp(&attr, &again, sizeof(attr)),
	   "query_device_ex(input comp_mask 0) returns 0 and the same attributes: %s",
	   err_str(ret));
	for (size_t i = 0; i < sizeof(bad_masks) / sizeof(bad_masks[0]); i++) {
		memset(&again, 0x5a, sizeof(again));
		memset(&poison, 0x5a, sizeof(poison));
		input.comp_mask = bad_masks[i];
		ret = ibv_query_device_ex(ctx, &input, &again);
		ok(ret == EINVAL && !memcmp(&again, &poison, sizeof(again)),
		   "query_device_ex(input comp_mask %#x) returns EINVAL and leaves attr alone (got %s)",
		   bad_masks[i], err_str(ret));
	}

	check_orig(&attr.orig_attr, &ex);
	check_ex(&attr, &ex);

	memset(&legacy, 0x5a, sizeof(legacy));
	ret = ibv_query_device(ctx, &legacy);
	ok(!ret && !memcmp(&legacy, &attr.orig_attr, sizeof(legacy)),
	   "ibv_query_device returns exactly orig_attr: %s", err_str(ret));
	/* one completion EQ on one vector, even where the device offers more */
	EQ(ctx->num_comp_vectors, 1,
	   "ibv_context num_comp_vectors (one completion vector)");
	check_port(ctx, &ex);

	ret = ibv_query_port(ctx, 1, &port);
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!ok(!ret && pd && cq, "alloc_pd + create_cq"))
		goto out;
	pci_padding(ctx, pd, cq, &attr, &port, &ex);
	unsupported(ctx, pd, cq, &attr, &port);
	multicast(pd, cq, &attr);

out:
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return tap_done();
}
