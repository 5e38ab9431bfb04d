// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Layout checks for the standalone (PABI 34) build of the orca provider.
 * The compat headers already static_assert these; this program re-checks them
 * at run time and prints TAP, so the same source can be compiled against
 * rdma-core's real v44 headers and its output compared (run_tests.sh).
 *
 *   layout                 TAP checks
 *   layout -s NAME         print one size (for comparisons with nm -S)
 *   layout -d PATH.so      dlopen(PATH.so, RTLD_NOW) after libibverbs
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/driver.h>
#include "orca-abi.h"
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

	/* Private provider ABI (libibverbs 44, PABI 34) */
	SIZE(verbs_context_ops, 0x260);
	check("verbs_context_ops slot count",
	      sizeof(struct verbs_context_ops) / sizeof(void *), 76);
	SLOT(advise_mr, 0);
	SLOT(alloc_pd, 5);
	SLOT(create_cq, 15);
	SLOT(create_qp, 19);
	SLOT(create_qp_ex, 20);
	SLOT(dealloc_pd, 26);
	SLOT(destroy_cq, 31);
	SLOT(destroy_qp, 34);
	SLOT(free_context, 39);
	SLOT(modify_qp, 47);
	SLOT(query_device_ex, 58);
	SLOT(query_ece, 59);
	SLOT(query_port, 60);
	SLOT(query_qp, 61);
	SLOT(query_qp_data_in_order, 62);
	SLOT(set_ece, 72);
	SLOT(unimport_pd, 75);
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
	SIZE(verbs_context, 648);
	SIZE(verbs_qp, 368);
	OFF(verbs_qp, comp_mask, 352);
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

	/* Values the provider defines for libibverbs 44 */
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
