/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca device model: configuration (capabilities, limits, port attributes).
 *
 * Every key of the "defaults" list in the protocol note is a field here.
 * Numeric fields are all uint64_t so that one parser handles every key;
 * the key table in orca_cfg.c carries each key's valid range.
 */
#ifndef ORCA_CFG_H
#define ORCA_CFG_H

#include <stddef.h>
#include <stdint.h>

/* Hard limits of this device model (object tables are sized from them). */
#define ORCA_EMU_MAX_OBJS	(1U << 18)
/* Multicast groups, and QPs attached to one (their tables are flat). */
#define ORCA_EMU_MAX_MCG	4096
#define ORCA_EMU_MAX_MCG_QPS	256
/* Longest pkey_table list a configuration may give. */
#define ORCA_EMU_MAX_PKEY_LIST	64

struct orca_cfg {
	uint64_t fw_version;
	char fw_name[32];
	uint64_t node_guid;
	uint64_t sys_image_guid;
	uint64_t vendor_id;
	uint64_t vendor_part_id;
	uint64_t hw_ver;
	uint64_t dev_caps;
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
	uint64_t max_total_mcast_qp_attach;
	uint64_t max_fast_reg_page_list_len;
	uint64_t max_inline_data;
	uint64_t max_pkeys;
	uint64_t local_ca_ack_delay;
	uint64_t phys_port_cnt;
	uint64_t atomic_cap;
	uint64_t num_comp_vectors;
	uint64_t page_size_cap;
	uint64_t max_mr_size;
	uint64_t dio_send;
	uint64_t dio_rdma_write;
	uint64_t dio_rdma_read;
	/* link faults, per million packets, and a hold in microseconds */
	uint64_t link_drop_ppm;
	uint64_t link_dup_ppm;
	uint64_t link_reorder_ppm;
	uint64_t link_delay_us;
	uint64_t link_seed;		/* of the fault generator */
	uint64_t ece;			/* 0 disables ECE entirely */
	uint64_t ece_vendor_id;
	uint64_t ece_options;
	uint64_t pci_write_end_padding;	/* 0 removes the capability */
	uint64_t db_hint;		/* 0: the device never says it is awake */
	uint64_t db_poll_us;		/* stay awake this long after work */
	/* the shared-memory link's slots a way (orca_ring.h); 0: socket */
	uint64_t fabric_ring_slots;
	uint64_t fabric_poll_us;	/* polls the rings this long after traffic */
	uint64_t fabric_direct;		/* takes direct links the fabric grants */
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
	/* the P_Key table from index 0 (pkey_table key); the rest is 0 */
	uint64_t pkey_table[ORCA_EMU_MAX_PKEY_LIST];
	unsigned int n_pkey_table;
	uint64_t max_mtu;
	uint64_t active_mtu;
	uint64_t active_width;
	uint64_t active_speed;
	/* the guest's memory map (orca_dma.h) */
	uint64_t guest_machine;		/* ORCA_MACHINE_* */
	uint64_t ram_below_4g;		/* 0: QEMU's split for the machine */
	/* orca-fabric's socket; empty: the port is a loopback */
	char fabric[108];
	/* what the host may not change on its own port (ORCA_PIN_*) */
	uint64_t port_pin;
	/* which derived keys the user set explicitly (ORCA_CFG_SET_*) */
	unsigned int explicit_set;
};

#define ORCA_CFG_SET_SYS_IMAGE_GUID	(1U << 0)
#define ORCA_CFG_SET_PORT_GUID		(1U << 1)
#define ORCA_CFG_SET_ECE_VENDOR_ID	(1U << 2)
#define ORCA_CFG_SET_PKEY		(1U << 3)

/*
 * port_pin: the port's configuration the host behind this device may not
 * change, as an SR-IOV physical function pins a virtual function's
 * (orca.rst, "Host policy").  Any pin makes the firmware answer the
 * subnet's SMPs itself, so that the host never sees the SM's M_Key.
 * GUIDs are always the configuration's: nothing sets them.
 */
#define ORCA_PIN_PKEYS	(1U << 0)	/* the P_Key table */
#define ORCA_PIN_LID	(1U << 1)	/* LID and LMC */
#define ORCA_PIN_SM	(1U << 2)	/* no SM here: M_Key, SM LID, QP0 sends */
#define ORCA_PIN_ALL	(ORCA_PIN_PKEYS | ORCA_PIN_LID | ORCA_PIN_SM)

void orca_cfg_defaults(struct orca_cfg *cfg);

/* Set one key.  Returns 0, or -1 with a message in err. */
int orca_cfg_set(struct orca_cfg *cfg, const char *key, const char *val,
		 char *err, size_t errlen);

/* Parse "key=value" (as given to --set). */
int orca_cfg_set_kv(struct orca_cfg *cfg, const char *kv, char *err,
		    size_t errlen);

/* Load a "key = value" file ('#' comments, blank lines ignored). */
int orca_cfg_load(struct orca_cfg *cfg, const char *path, char *err,
		  size_t errlen);

/*
 * Resolve derived defaults (sys_image_guid, port_guid, ece_vendor_id),
 * apply the ece / pci_write_end_padding / max_mw switches to dev_caps and check
 * cross-key consistency.  Call once after all keys are set.
 */
int orca_cfg_finalize(struct orca_cfg *cfg, char *err, size_t errlen);

/* Port 1's GID @i (16 bytes, network order) as the configuration gives it. */
void orca_gid_entry(const struct orca_cfg *g, uint32_t i, uint8_t *gid);

/* Is ECE enabled after finalize? */
static inline int orca_cfg_has_ece(const struct orca_cfg *cfg)
{
	return cfg->ece_vendor_id != 0;
}

#endif /* ORCA_CFG_H */
