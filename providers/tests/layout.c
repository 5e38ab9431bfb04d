// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Layout checks for the standalone build of the orca provider, for the
 * rdma-core given by ORCA_RDMA_CORE (44, 56 or 65; -D from the Makefile or
 * intree_check.sh).  The compat headers already static_assert these; this
 * program re-checks them at run time and prints TAP, so the same source can
 * be compiled against rdma-core's real headers of that release and its
 * output compared (run_tests.sh).  The expected values are written out here
 * per release, not taken from the compat header.
 *
 *   layout                 TAP checks
 *   layout -s NAME         print one size (for comparisons with nm -S)
 *   layout -o              print "struct member offset" for every member of
 *                          verbs_context_ops and the pointer members of
 *                          verbs_device_ops (tests/abi_binary.sh)
 *   layout -d PATH.so      dlopen(PATH.so, RTLD_NOW) after libibverbs (not
 *                          in a build with -DORCA_LAYOUT_NO_LIBIBVERBS, the
 *                          one for an rdma-core this host cannot run)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/driver.h>
#include "orca-abi.h"
#ifndef ORCA_RDMA_CORE
#error "compile with -DORCA_RDMA_CORE=44|56|65"
#endif
/* the expected value for this release */
#if ORCA_RDMA_CORE == 44
#define EXP(v44, v56, v65) (v44)
#elif ORCA_RDMA_CORE == 56
#define EXP(v44, v56, v65) (v56)
#elif ORCA_RDMA_CORE == 65
#define EXP(v44, v56, v65) (v65)
#else
#error "ORCA_RDMA_CORE must be 44, 56 or 65"
#endif
/* the values the provider itself compiles with */
#include "orca.h"


static int test_num, failures;

static void check(const char *name, unsigned long got, unsigned long want)
{
	test_num++;
	if (got == want) {
		printf("ok %d - %s == %#lx\n", test_num, name, want);
	} else {
		printf("not ok %d - %s: got %#lx, want %#lx\n", test_num, name,
		       got, want);
		failures++;
	}
}

#define SIZE(t, want) check("sizeof(struct " #t ")", sizeof(struct t), want)
#define OFF(t, m, want)                                                        \
	check("offsetof(" #t ", " #m ")", offsetof(struct t, m), want)
#define SLOT(m, n)                                                             \
	check("verbs_context_ops." #m " slot",                                 \
	      offsetof(struct verbs_context_ops, m) / sizeof(void *), n)

static const struct {
	const char *name;
	size_t size;
} sizes[] = {
	{ "verbs_context_ops", sizeof(struct verbs_context_ops) },
	{ "verbs_device_ops", sizeof(struct verbs_device_ops) },
	{ "verbs_sysfs_dev", sizeof(struct verbs_sysfs_dev) },
	{ "verbs_device", sizeof(struct verbs_device) },
	{ "verbs_qp", sizeof(struct verbs_qp) },
	{ "verbs_qp.comp_mask", offsetof(struct verbs_qp, comp_mask) },
	{ "verbs_context", sizeof(struct verbs_context) },
	{ "IBVERBS_PABI_VERSION", IBVERBS_PABI_VERSION },
};

#define OP(m) { "verbs_context_ops", #m, offsetof(struct verbs_context_ops, m) }
#define DOP(m) { "verbs_device_ops", #m, offsetof(struct verbs_device_ops, m) }
static const struct {
	const char *type, *member;
	size_t off;
} members[] = {
	OP(advise_mr),
#if IBVERBS_PABI_VERSION >= 65
	OP(alloc_buf),
#endif
	OP(alloc_dm),
#if IBVERBS_PABI_VERSION >= 65
	OP(alloc_dmah),
#endif
	OP(alloc_mw), OP(alloc_null_mr), OP(alloc_parent_domain), OP(alloc_pd),
	OP(alloc_td), OP(async_event), OP(attach_counters_point_flow),
	OP(attach_mcast), OP(bind_mw), OP(close_xrcd), OP(cq_event),
	OP(create_ah),
#if IBVERBS_PABI_VERSION >= 65
	OP(create_comp_cntr),
#endif
	OP(create_counters), OP(create_cq), OP(create_cq_ex), OP(create_flow),
	OP(create_flow_action_esp), OP(create_qp), OP(create_qp_ex),
	OP(create_rwq_ind_table), OP(create_srq), OP(create_srq_ex),
	OP(create_wq),
#if IBVERBS_PABI_VERSION >= 65
	OP(dealloc_dmah),
#endif
	OP(dealloc_mw), OP(dealloc_pd), OP(dealloc_td), OP(dereg_mr),
	OP(destroy_ah),
#if IBVERBS_PABI_VERSION >= 65
	OP(destroy_comp_cntr),
#endif
	OP(destroy_counters), OP(destroy_cq), OP(destroy_flow),
	OP(destroy_flow_action), OP(destroy_qp), OP(destroy_rwq_ind_table),
	OP(destroy_srq), OP(destroy_wq), OP(detach_mcast),
#if IBVERBS_PABI_VERSION >= 65
	OP(dm_export_dmabuf_fd), OP(free_buf),
#endif
	OP(free_context), OP(free_dm), OP(get_srq_num), OP(import_dm),
	OP(import_mr), OP(import_pd),
#if IBVERBS_PABI_VERSION >= 65
	OP(inc_comp_cntr), OP(inc_err_comp_cntr),
#endif
	OP(modify_cq), OP(modify_flow_action_esp), OP(modify_qp),
	OP(modify_qp_rate_limit), OP(modify_srq), OP(modify_wq), OP(open_qp),
	OP(open_xrcd), OP(poll_cq), OP(post_recv), OP(post_send),
	OP(post_srq_ops), OP(post_srq_recv),
#if IBVERBS_PABI_VERSION >= 65
	OP(qp_attach_comp_cntr), OP(query_comp_cntr_caps),
#endif
	OP(query_device_ex), OP(query_ece), OP(query_port),
#if IBVERBS_PABI_VERSION >= 65
	OP(query_port_speed),
#endif
	OP(query_qp), OP(query_qp_data_in_order), OP(query_rt_values),
	OP(query_srq),
#if IBVERBS_PABI_VERSION >= 65
	OP(read_comp_cntr),
#endif
	OP(read_counters),
#if IBVERBS_PABI_VERSION >= 65
	OP(read_err_comp_cntr),
#endif
	OP(reg_dm_mr), OP(reg_dmabuf_mr), OP(reg_mr),
#if IBVERBS_PABI_VERSION >= 65
	OP(reg_mr_ex),
#endif
	OP(req_notify_cq), OP(rereg_mr), OP(resize_cq),
#if IBVERBS_PABI_VERSION >= 65
	OP(set_comp_cntr),
#endif
	OP(set_ece),
#if IBVERBS_PABI_VERSION >= 65
	OP(set_err_comp_cntr),
#endif
	OP(unimport_dm), OP(unimport_mr), OP(unimport_pd),
	DOP(name), DOP(match_table), DOP(static_providers), DOP(match_device),
	DOP(alloc_context), DOP(import_context), DOP(alloc_device),
	DOP(uninit_device),
};

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "-s")) {
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			if (!strcmp(argv[2], sizes[i].name)) {
				printf("%zu\n", sizes[i].size);
				return 0;
			}
		return 1;
	}
	if (argc == 2 && !strcmp(argv[1], "-o")) {
		for (size_t i = 0; i < sizeof(members) / sizeof(members[0]); i++)
			printf("%s %s 0x%zx\n", members[i].type,
			       members[i].member, members[i].off);
		return 0;
	}
#ifndef ORCA_LAYOUT_NO_LIBIBVERBS
	if (argc == 3 && !strcmp(argv[1], "-d")) {
		/* Provider must resolve every symbol against libibverbs 44 */
		struct ibv_device **list = ibv_get_device_list(NULL);
		void *h;

		if (list)
			ibv_free_device_list(list);
		h = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			printf("%s\n", dlerror());
			return 1;
		}
		dlclose(h);
		return 0;
	}
#endif
	if (argc > 1) {
		fprintf(stderr, "usage: layout [-s NAME | -o | -d PATH.so]\n");
		return 2;
	}

	/*
	 * Private provider ABI: PABI 34 for 44 and 56, 65 for 65.  Slots as
	 * measured in each release's libibverbs.a (dummy_ops.c.o).
	 */
	check("IBVERBS_PABI_VERSION", IBVERBS_PABI_VERSION, EXP(34, 34, 65));
	SIZE(verbs_context_ops, EXP(0x260, 0x260, 0x2e8));
	check("verbs_context_ops slot count",
	      sizeof(struct verbs_context_ops) / sizeof(void *),
	      EXP(76, 76, 93));
	SLOT(advise_mr, 0);
	SLOT(alloc_pd, EXP(5, 5, 7));
	SLOT(create_cq, EXP(15, 15, 18));
	SLOT(create_qp, EXP(19, 19, 22));
	SLOT(create_qp_ex, EXP(20, 20, 23));
	SLOT(dealloc_pd, EXP(26, 26, 30));
	SLOT(destroy_cq, EXP(31, 31, 36));
	SLOT(destroy_qp, EXP(34, 34, 39));
	SLOT(free_context, EXP(39, 39, 46));
	SLOT(modify_qp, EXP(47, 47, 56));
	SLOT(query_device_ex, EXP(58, 58, 69));
	SLOT(query_ece, EXP(59, 59, 70));
	SLOT(query_port, EXP(60, 60, 71));
	SLOT(query_qp, EXP(61, 61, 73));
	SLOT(query_qp_data_in_order, EXP(62, 62, 74));
	SLOT(set_ece, EXP(72, 72, 88));
	SLOT(unimport_pd, EXP(75, 75, 92));
	SIZE(verbs_device_ops, 0x48);
	OFF(verbs_device_ops, match_table, 0x10);
	OFF(verbs_device_ops, match_device, 0x20);
	OFF(verbs_device_ops, alloc_context, 0x28);
	OFF(verbs_device_ops, alloc_device, 0x38);
	OFF(verbs_device_ops, uninit_device, 0x40);
	SIZE(verbs_match_ent, 24);
	OFF(verbs_match_ent, kind, 20);
	SIZE(verbs_sysfs_dev, 0x3e0);
	OFF(verbs_sysfs_dev, match, 0x18);
	OFF(verbs_sysfs_dev, ibdev_name, 0x70);
	OFF(verbs_sysfs_dev, ibdev_path, 0xb0);
	OFF(verbs_sysfs_dev, abi_ver, 0x3c8);
	SIZE(verbs_device, 0x2c8);
	OFF(verbs_device, ops, 0x298);
	OFF(verbs_device, sysfs, 0x2b8);
	SIZE(verbs_context, EXP(648, 648, 696));
	/* v45 appended ibv_qp_ex.wr_flush (same PABI 34) */
	SIZE(verbs_qp, EXP(368, 376, 376));
	OFF(verbs_qp, comp_mask, EXP(352, 360, 360));
	OFF(verbs_qp, xrcd, EXP(360, 368, 368));
	SIZE(verbs_srq, 160);
	OFF(verbs_srq, srq_num, 152);

	/* Write-command wrappers handed to ibv_cmd_*() */
	SIZE(ex_hdr, 24);
	SIZE(ibv_get_context, 16);
	SIZE(ibv_query_port, 24);
	SIZE(ibv_alloc_pd, 16);
	SIZE(ibv_alloc_mw, 24);
	SIZE(ib_uverbs_alloc_mw_resp, 8);
	SIZE(ibv_create_cq, 40);
	SIZE(ibv_query_qp, 24);
	SIZE(ibv_create_qp_ex, 88);
	SIZE(ibv_modify_qp_ex, 144);
	SIZE(ib_uverbs_get_context_resp, 8);
	SIZE(ib_uverbs_ex_query_device_resp, 304);
	SIZE(ib_uverbs_ex_create_qp_resp, 40);
	SIZE(ib_uverbs_ex_modify_qp_resp, 8);
	SIZE(ibv_create_srq, 40);
	SIZE(ibv_create_xsrq, 56);
	SIZE(ibv_modify_srq, 24);
	SIZE(ibv_query_srq, 24);
	SIZE(ib_uverbs_create_srq_resp, 16);

	/* orca driver payloads: no padding between core and driver parts */
	SIZE(orca_ibv_alloc_ucontext_cmd, 8);
	SIZE(orca_ibv_alloc_ucontext_resp, 72);
	OFF(orca_ibv_alloc_ucontext_resp, db_mmap_key, 24);
	OFF(orca_ibv_alloc_ucontext_resp, db_value, 36);
	OFF(orca_ibv_alloc_ucontext_resp, db_hint_mmap_key, 40);
	OFF(orca_ibv_alloc_ucontext_resp, db_hint_offset, 48);
	OFF(orca_ibv_alloc_ucontext_resp, kick_ring_mmap_key, 56);
	OFF(orca_ibv_alloc_ucontext_resp, kick_ring_entries, 64);
	SIZE(orca_ibv_ex_query_device_resp, 32);
	SIZE(orca_ibv_create_ah_resp, 8);
	SIZE(orca_ibv_create_cq, 24);
	SIZE(orca_ibv_create_cq_resp, 8);
	SIZE(orca_ibv_create_qp, 24);
	SIZE(orca_ibv_create_qp_resp, 8);
	SIZE(orca_ibv_create_srq, 24);
	SIZE(orca_ibv_create_srq_resp, 8);
	SIZE(orca_ibv_modify_qp, 8);
	SIZE(orca_ibv_modify_qp_resp, 16);
	SIZE(orca_alloc_ucontext, 24);
	OFF(orca_alloc_ucontext_resp, drv_payload, 8);
	SIZE(orca_alloc_ucontext_resp, 80);
	OFF(orca_query_device_ex_resp, drv_payload, 304);
	SIZE(orca_query_device_ex_resp, 336);
	SIZE(orca_create_cq, 64);
	OFF(orca_create_cq, drv_payload, 40);
	OFF(orca_create_cq_resp, drv_payload, 8);
	SIZE(orca_create_cq_resp, 16);
	SIZE(orca_create_qp_ex, 112);
	OFF(orca_create_qp_ex, drv_payload, 88);
	OFF(orca_create_qp_ex_resp, drv_payload, 40);
	SIZE(orca_create_qp_ex_resp, 48);
	OFF(orca_modify_qp_ex, drv_payload, 144);
	SIZE(orca_modify_qp_ex, 152);
	OFF(orca_modify_qp_ex_resp, drv_payload, 8);
	SIZE(orca_modify_qp_ex_resp, 24);
	OFF(orca_create_srq_ex, drv_payload, 56);
	SIZE(orca_create_srq_ex, 80);
	OFF(orca_create_srq_ex_resp, drv_payload, 16);
	SIZE(orca_create_srq_ex_resp, 24);

	/* Values the provider defines for libibverbs 44 (upstream's in 56, 65) */
	check("IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS",
	      IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS, 1);
	check("IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG",
	      IBV_QUERY_QP_DATA_IN_ORDER_WHOLE_MSG, 1);
	check("IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES",
	      IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES, 2);
	check("ORCA_UVERBS_ABI_VERSION", ORCA_UVERBS_ABI_VERSION, 1);

	printf("1..%d\n", test_num);
	return failures;
}
