// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: configuration defaults and "key = value" parsing.
 */
#include <ctype.h>
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orca_hw.h"
#include "orca_cfg.h"
#include "orca_ring.h"

enum cfg_kind {
	CFG_NUM,	/* decimal or 0x-hex, range-checked */
	CFG_GUID,	/* hex, optional 0x, optional ':' separators */
	CFG_VERSION,	/* maj.min.sub */
	CFG_STRING,	/* fw_name */
	CFG_PKEYS,	/* comma-separated 16-bit P_Keys */
	CFG_MACHINE,	/* pc or q35 */
	CFG_PATH,	/* a socket path, may be empty */
	CFG_PIN,	/* port_pin: none, all, or pkeys,lid,sm */
};

struct cfg_key {
	const char *name;
	enum cfg_kind kind;
	size_t off;
	uint64_t min, max;
	unsigned int explicit_bit;
};

#define U8	0xffULL
#define U16	0xffffULL
#define U32	0xffffffffULL
#define U64	~0ULL
#define NUM(f, lo, hi)	{ #f, CFG_NUM, offsetof(struct orca_cfg, f), lo, hi, 0 }
#define GUID(f, bit)	{ #f, CFG_GUID, offsetof(struct orca_cfg, f), 0, U64, bit }

static const struct cfg_key cfg_keys[] = {
	{ "fw_version", CFG_VERSION, offsetof(struct orca_cfg, fw_version), 0, U64, 0 },
	{ "fw_name", CFG_STRING, offsetof(struct orca_cfg, fw_name), 0, 0, 0 },
	GUID(node_guid, 0),
	GUID(sys_image_guid, ORCA_CFG_SET_SYS_IMAGE_GUID),
	GUID(port_guid, ORCA_CFG_SET_PORT_GUID),
	GUID(subnet_prefix, 0),
	NUM(vendor_id, 0, 0xffffff),
	NUM(vendor_part_id, 0, U32),
	NUM(hw_ver, 0, U32),
	NUM(dev_caps, 0, U32),
	NUM(max_qp, 1, ORCA_EMU_MAX_OBJS),
	NUM(max_qp_wr, 1, 1U << 20),
	NUM(max_send_sge, 1, 255),
	NUM(max_recv_sge, 1, 255),
	NUM(max_sge_rd, 0, 255),
	NUM(max_cq, 1, ORCA_EMU_MAX_OBJS),
	NUM(max_cqe, 1, (1U << 24) - 1),
	NUM(max_mr, 0, ORCA_EMU_MAX_OBJS),
	NUM(max_pd, 1, ORCA_EMU_MAX_OBJS),
	NUM(max_qp_rd_atom, 0, 255),
	NUM(max_qp_init_rd_atom, 0, 255),
	NUM(max_res_rd_atom, 0, U32),
	NUM(max_mw, 0, ORCA_EMU_MAX_OBJS),
	NUM(max_srq, 0, ORCA_EMU_MAX_OBJS),
	NUM(max_srq_wr, 0, 1U << 20),
	NUM(max_srq_sge, 0, 255),
	NUM(max_ah, 0, ORCA_EMU_MAX_OBJS),
	NUM(max_mcast_grp, 0, ORCA_EMU_MAX_MCG),
	NUM(max_mcast_qp_attach, 0, ORCA_EMU_MAX_MCG_QPS),
	NUM(max_total_mcast_qp_attach, 0, U32),
	NUM(max_fast_reg_page_list_len, 0, ORCA_PBL_MAX_PAGES),
	NUM(max_inline_data, 0, 4096),
	NUM(max_pkeys, 1, U16),
	NUM(local_ca_ack_delay, 0, 31),
	NUM(phys_port_cnt, 1, 1),	/* one port is modelled */
	NUM(atomic_cap, ORCA_ATOMIC_NONE, ORCA_ATOMIC_GLOB),
	NUM(num_comp_vectors, 1, U8),
	NUM(page_size_cap, 0, U64),
	NUM(max_mr_size, 0, U64),
	NUM(dio_send, 0, ORCA_DIO_WHOLE_MSG | ORCA_DIO_ALIGNED_128_BYTES),
	NUM(dio_rdma_write, 0, ORCA_DIO_WHOLE_MSG | ORCA_DIO_ALIGNED_128_BYTES),
	NUM(dio_rdma_read, 0, ORCA_DIO_WHOLE_MSG | ORCA_DIO_ALIGNED_128_BYTES),
	NUM(link_drop_ppm, 0, 1000000),
	NUM(link_dup_ppm, 0, 1000000),
	NUM(link_reorder_ppm, 0, 1000000),
	NUM(link_delay_us, 0, 1000000),
	NUM(link_seed, 1, U64),
	NUM(ece, 0, 1),
	{ "ece_vendor_id", CFG_NUM, offsetof(struct orca_cfg, ece_vendor_id),
	  0, 0xffffff, ORCA_CFG_SET_ECE_VENDOR_ID },
	NUM(ece_options, 0, ORCA_ECE_OPT_ALL),
	NUM(pci_write_end_padding, 0, 1),
	NUM(db_hint, 0, 1),
	NUM(db_poll_us, 0, 1000),
	NUM(hca_core_clock, 0, U64),
	NUM(completion_timestamp_mask, 0, U64),
	NUM(max_dm_size, 0, ORCA_DM_MAX_SIZE),	/* the window in BAR2 */
	NUM(port_cap_flags, 0, U32),
	{ "port_pin", CFG_PIN, offsetof(struct orca_cfg, port_pin), 0, 0, 0 },
	NUM(max_msg_sz, 1, 1ULL << 31),	/* IBA: a message is at most 2^31 bytes */
	NUM(lid, 0, U16),
	NUM(sm_lid, 0, U16),
	NUM(lmc, 0, 7),
	NUM(sm_sl, 0, 15),
	NUM(max_vl_num, 1, 5),
	NUM(gid_tbl_len, 1, U16),
	NUM(pkey_tbl_len, 1, U16),
	{ "pkey", CFG_NUM, offsetof(struct orca_cfg, pkey), 0, U16,
	  ORCA_CFG_SET_PKEY },
	{ "pkey_table", CFG_PKEYS, 0, 0, 0, 0 },
	NUM(max_mtu, 1, 5),
	NUM(active_mtu, 1, 5),
	NUM(active_width, 0, U8),
	NUM(active_speed, 0, U8),
	{ "guest_machine", CFG_MACHINE, offsetof(struct orca_cfg, guest_machine),
	  0, 1, 0 },
	NUM(ram_below_4g, 0, 4ULL << 30),
	{ "fabric", CFG_PATH, offsetof(struct orca_cfg, fabric), 0, 0, 0 },
	NUM(fabric_ring_slots, 0, ORCA_RING_MAX_SLOTS),
	NUM(fabric_poll_us, 0, 1000),
	NUM(fabric_direct, 0, 1),
};

static int cfg_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int cfg_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

void orca_cfg_defaults(struct orca_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->fw_version = ORCA_FW_VERSION(1, 4, 7);
	snprintf(cfg->fw_name, sizeof(cfg->fw_name), "orca-emu");
	cfg->node_guid = 0x00ca7afffe000001ULL;
	cfg->vendor_id = 0x00ca7a;
	cfg->vendor_part_id = 0x0001;
	cfg->hw_ver = 1;
	cfg->dev_caps = ORCA_DEV_CAP_RC | ORCA_DEV_CAP_UC | ORCA_DEV_CAP_UD |
			ORCA_DEV_CAP_BAD_PKEY_CNTR |
			ORCA_DEV_CAP_BAD_QKEY_CNTR |
			ORCA_DEV_CAP_SYS_IMAGE_GUID |
			ORCA_DEV_CAP_RC_RNR_NAK_GEN |
			ORCA_DEV_CAP_PORT_ACTIVE_EVENT |
			ORCA_DEV_CAP_PCI_WRITE_END_PADDING |
			ORCA_DEV_CAP_ECE | ORCA_DEV_CAP_SQD_ASYNC_NOTIFY |
			ORCA_DEV_CAP_MEM_WINDOW | ORCA_DEV_CAP_MW_TYPE_2B |
			ORCA_DEV_CAP_RESERVED_LKEY | ORCA_DEV_CAP_UD_AV |
			ORCA_DEV_CAP_MAD_QPS | ORCA_DEV_CAP_FAST_REG |
			ORCA_DEV_CAP_KICK_RING | ORCA_DEV_CAP_ATOMIC_WRITE;
	cfg->db_hint = 1;
	cfg->db_poll_us = 20;
	cfg->fabric_ring_slots = 64;
	cfg->fabric_poll_us = 0;
	cfg->fabric_direct = 1;
	cfg->max_qp = 1024;
	cfg->max_qp_wr = 4096;
	cfg->max_send_sge = 16;
	cfg->max_recv_sge = 16;
	cfg->max_sge_rd = 16;
	cfg->max_cq = 1024;
	cfg->max_cqe = 65535;
	cfg->max_mr = 4096;
	cfg->max_ah = 4096;
	/* IPoIB's groups and rdma_cm's: a QP or two in each */
	cfg->max_mcast_grp = 256;
	cfg->max_mcast_qp_attach = 16;
	cfg->max_total_mcast_qp_attach = 1024;
	/* rxe's: nvme-rdma wants 257, rdma_rw 256 */
	cfg->max_fast_reg_page_list_len = 512;
	cfg->max_srq = 1024;
	cfg->max_srq_wr = 4096;
	cfg->max_srq_sge = 16;
	cfg->max_mw = 4096;
	cfg->max_pd = 256;
	cfg->max_qp_rd_atom = 16;
	cfg->max_qp_init_rd_atom = 16;
	cfg->max_res_rd_atom = 16 * 1024;
	cfg->max_inline_data = 256;
	cfg->max_pkeys = 64;
	cfg->local_ca_ack_delay = 15;
	cfg->phys_port_cnt = 1;
	cfg->atomic_cap = ORCA_ATOMIC_HCA;
	cfg->num_comp_vectors = 1;
	cfg->page_size_cap = 0xfffff000ULL;
	cfg->max_mr_size = 1ULL << 40;
	cfg->dio_send = ORCA_DIO_WHOLE_MSG | ORCA_DIO_ALIGNED_128_BYTES;
	cfg->dio_rdma_write = ORCA_DIO_WHOLE_MSG | ORCA_DIO_ALIGNED_128_BYTES;
	cfg->dio_rdma_read = ORCA_DIO_ALIGNED_128_BYTES;
	/* the clock counts ns, and never wraps in a device's life */
	cfg->hca_core_clock = 1000000;
	cfg->max_dm_size = 256 * 1024;
	cfg->completion_timestamp_mask = UINT64_MAX;
	cfg->link_seed = 1;
	cfg->ece = 1;
	cfg->ece_options = ORCA_ECE_OPT_ALL;
	cfg->pci_write_end_padding = 1;
	cfg->subnet_prefix = 0xfe80000000000000ULL;
	cfg->max_msg_sz = 0x80000000ULL;
	/*
	 * what the firmware's SMA supports: SystemImageGUID (11) and
	 * ClientReregister (25), without which OpenSM never asks a port to
	 * rejoin its groups after an SM change
	 */
	cfg->port_cap_flags = (1U << 11) | (1U << 25);
	cfg->lid = 0x11;
	cfg->sm_lid = 1;
	cfg->max_vl_num = 1;
	cfg->gid_tbl_len = 1;
	cfg->pkey_tbl_len = 64;
	cfg->pkey = 0xffff;
	cfg->max_mtu = 5;
	cfg->active_mtu = 5;
	cfg->active_width = 2;	/* 4x */
	cfg->active_speed = 32;	/* EDR */
}

static int parse_u64(const char *s, int base, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-' || isspace((unsigned char)*s))
		return -1;
	/* "decimal or 0x hex" (orca.rst): 010 is ten, not octal eight */
	if (!base)
		base = (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10;
	errno = 0;
	*out = strtoull(s, &end, base);
	if (errno || *end)
		return -1;
	return 0;
}

static int parse_guid(const char *s, uint64_t *out)
{
	char hex[17];
	size_t n = 0;

	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2))
		s += 2;
	for (; *s; s++) {
		if (*s == ':')
			continue;
		if (!isxdigit((unsigned char)*s) || n == 16)
			return -1;
		hex[n++] = *s;
	}
	if (!n)
		return -1;
	hex[n] = '\0';
	return parse_u64(hex, 16, out);
}

static int parse_version(const char *s, uint64_t *out)
{
	unsigned long maj, min, sub;
	char tail;

	if (sscanf(s, "%lu.%lu.%lu%c", &maj, &min, &sub, &tail) != 3 ||
	    !isdigit((unsigned char)s[0]) || maj > 0xffff ||
	    min > 0xffff || sub > 0xffff)
		return -1;
	*out = ORCA_FW_VERSION(maj, min, sub);
	return 0;
}

/* The next item of a comma-separated list (strtok_r), blanks skipped. */
static char *list_item(char *s, char **save)
{
	char *tok = strtok_r(s, ",", save);

	while (tok && isspace((unsigned char)*tok))
		tok++;
	return tok;
}

static int parse_pkeys(struct orca_cfg *cfg, const char *key,
		       const char *val, char *err, size_t errlen)
{
	char buf[512], *tok, *save = NULL;
	unsigned int n = 0;
	uint64_t v;

	if (strlen(val) >= sizeof(buf))
		return cfg_err(err, errlen, "%s: list too long", key);
	strcpy(buf, val);
	for (tok = list_item(buf, &save); tok; tok = list_item(NULL, &save)) {
		if (n == ORCA_EMU_MAX_PKEY_LIST)
			return cfg_err(err, errlen, "%s: more than %u entries",
				       key, ORCA_EMU_MAX_PKEY_LIST);
		if (parse_u64(tok, 0, &v) || v > U16)
			return cfg_err(err, errlen, "%s: '%s' is not a P_Key",
				       key, tok);
		cfg->pkey_table[n++] = v;
	}
	if (!n)
		return cfg_err(err, errlen, "%s: empty list", key);
	cfg->n_pkey_table = n;
	return 0;
}

/* "none", "all", or a comma-separated list of pkeys, lid, sm */
static int parse_pin(const char *key, const char *val, uint64_t *out,
		     char *err, size_t errlen)
{
	static const struct { const char *name; uint64_t bits; } words[] = {
		{ "none", 0 }, { "all", ORCA_PIN_ALL }, { "pkeys", ORCA_PIN_PKEYS },
		{ "lid", ORCA_PIN_LID }, { "sm", ORCA_PIN_SM },
	};
	char buf[128], *tok, *save = NULL;
	size_t i;

	if (strlen(val) >= sizeof(buf))
		return cfg_err(err, errlen, "%s: list too long", key);
	strcpy(buf, val);
	*out = 0;
	for (tok = list_item(buf, &save); tok; tok = list_item(NULL, &save)) {
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (!strcmp(tok, words[i].name))
				break;
		if (i == sizeof(words) / sizeof(words[0]))
			return cfg_err(err, errlen,
				       "%s: '%s' is not none, all, pkeys, lid or sm",
				       key, tok);
		*out |= words[i].bits;
	}
	return 0;
}

int orca_cfg_set(struct orca_cfg *cfg, const char *key, const char *val,
		 char *err, size_t errlen)
{
	const struct cfg_key *k = NULL;
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < sizeof(cfg_keys) / sizeof(cfg_keys[0]); i++) {
		if (!strcmp(cfg_keys[i].name, key)) {
			k = &cfg_keys[i];
			break;
		}
	}
	if (!k)
		return cfg_err(err, errlen, "unknown configuration key '%s'",
			       key);

	switch (k->kind) {
	case CFG_PKEYS:
		return parse_pkeys(cfg, key, val, err, errlen);
	case CFG_PIN:
		if (parse_pin(key, val, &v, err, errlen))
			return -1;
		break;
	case CFG_MACHINE:
		if (strcmp(val, "pc") && strcmp(val, "q35"))
			return cfg_err(err, errlen,
				       "%s: '%s' is not pc or q35", key, val);
		v = !strcmp(val, "q35");
		break;
	case CFG_PATH:
		if (strlen(val) >= sizeof(cfg->fabric))
			return cfg_err(err, errlen,
				       "%s: '%s' is longer than %zu characters",
				       key, val, sizeof(cfg->fabric) - 1);
		snprintf(cfg->fabric, sizeof(cfg->fabric), "%s", val);
		return 0;
	case CFG_STRING:
		if (strlen(val) >= sizeof(cfg->fw_name))
			return cfg_err(err, errlen,
				       "%s: '%s' is longer than %zu characters",
				       key, val, sizeof(cfg->fw_name) - 1);
		snprintf(cfg->fw_name, sizeof(cfg->fw_name), "%s", val);
		return 0;
	case CFG_VERSION:
		if (parse_version(val, &v))
			return cfg_err(err, errlen,
				       "%s: '%s' is not MAJOR.MINOR.SUB (each <= 65535)",
				       key, val);
		break;
	case CFG_GUID:
		if (parse_guid(val, &v))
			return cfg_err(err, errlen,
				       "%s: '%s' is not a 64-bit hex GUID", key,
				       val);
		break;
	case CFG_NUM:
		if (parse_u64(val, 0, &v))
			return cfg_err(err, errlen, "%s: '%s' is not a number",
				       key, val);
		if (v < k->min || v > k->max)
			return cfg_err(err, errlen,
				       "%s: %s out of range [%llu, %llu]", key,
				       val, (unsigned long long)k->min,
				       (unsigned long long)k->max);
		break;
	}
	memcpy((char *)cfg + k->off, &v, sizeof(v));
	cfg->explicit_set |= k->explicit_bit;
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Split "key = value" (in place) and set it. */
static int set_line(struct orca_cfg *cfg, char *line, char *err,
		    size_t errlen)
{
	char *eq = strchr(line, '=');
	char *key, *val;

	if (!eq)
		return cfg_err(err, errlen, "expected 'key = value', got '%s'",
			       line);
	*eq = '\0';
	key = trim(line);
	val = trim(eq + 1);
	/* "fabric=" is the loopback, as if the key were not there */
	if (!*key || (!*val && strcmp(key, "fabric")))
		return cfg_err(err, errlen, "empty key or value in '%s=%s'",
			       key, val);
	return orca_cfg_set(cfg, key, val, err, errlen);
}

int orca_cfg_set_kv(struct orca_cfg *cfg, const char *kv, char *err,
		    size_t errlen)
{
	char *copy = strdup(kv);
	int ret;

	if (!copy)
		return cfg_err(err, errlen, "out of memory");
	ret = set_line(cfg, copy, err, errlen);
	free(copy);
	return ret;
}

int orca_cfg_load(struct orca_cfg *cfg, const char *path, char *err,
		  size_t errlen)
{
	char line[512], msg[256];
	unsigned int lineno = 0;
	FILE *f = fopen(path, "r");
	int ret = 0;

	if (!f)
		return cfg_err(err, errlen, "%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *hash, *s;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			ret = cfg_err(err, errlen, "%s:%u: line too long", path,
				      lineno);
			break;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		s = trim(line);
		if (!*s)
			continue;
		if (set_line(cfg, s, msg, sizeof(msg))) {
			ret = cfg_err(err, errlen, "%s:%u: %s", path, lineno,
				      msg);
			break;
		}
	}
	if (!ret && ferror(f))
		ret = cfg_err(err, errlen, "%s: read error", path);
	fclose(f);
	return ret;
}

int orca_cfg_finalize(struct orca_cfg *cfg, char *err, size_t errlen)
{
	if (!(cfg->explicit_set & ORCA_CFG_SET_SYS_IMAGE_GUID))
		cfg->sys_image_guid = cfg->node_guid;
	if (!(cfg->explicit_set & ORCA_CFG_SET_PORT_GUID))
		cfg->port_guid = cfg->node_guid + 1;
	if (!(cfg->explicit_set & ORCA_CFG_SET_ECE_VENDOR_ID))
		cfg->ece_vendor_id = cfg->vendor_id;

	/* pkey is entry 0 of the P_Key table; pkey_table lists it whole */
	if (!cfg->n_pkey_table) {
		cfg->pkey_table[0] = cfg->pkey;
		cfg->n_pkey_table = 1;
	} else if ((cfg->explicit_set & ORCA_CFG_SET_PKEY) &&
		   cfg->pkey != cfg->pkey_table[0]) {
		return cfg_err(err, errlen,
			       "pkey 0x%llx differs from pkey_table[0] 0x%llx",
			       (unsigned long long)cfg->pkey,
			       (unsigned long long)cfg->pkey_table[0]);
	}
	cfg->pkey = cfg->pkey_table[0];
	if (cfg->n_pkey_table > cfg->pkey_tbl_len)
		return cfg_err(err, errlen,
			       "pkey_table has %u entries, pkey_tbl_len is %llu",
			       cfg->n_pkey_table,
			       (unsigned long long)cfg->pkey_tbl_len);

	/* ECE is one switch: off means no vendor id, no options, no cap. */
	if (!cfg->ece || !cfg->ece_vendor_id ||
	    !(cfg->dev_caps & ORCA_DEV_CAP_ECE)) {
		cfg->ece = 0;
		cfg->ece_vendor_id = 0;
		cfg->ece_options = 0;
		cfg->dev_caps &= ~(uint64_t)ORCA_DEV_CAP_ECE;
	}
	if (!cfg->pci_write_end_padding)
		cfg->dev_caps &= ~(uint64_t)ORCA_DEV_CAP_PCI_WRITE_END_PADDING;
	if (!(cfg->dev_caps & ORCA_DEV_CAP_PCI_WRITE_END_PADDING))
		cfg->pci_write_end_padding = 0;

	/*
	 * Memory windows: max_mw 0 or dev_caps without MEM_WINDOW turns them
	 * off (type 2 too); type 2 needs type 1.
	 */
	if (!cfg->max_mw || !(cfg->dev_caps & ORCA_DEV_CAP_MEM_WINDOW)) {
		cfg->max_mw = 0;
		cfg->dev_caps &= ~(uint64_t)(ORCA_DEV_CAP_MEM_WINDOW |
					     ORCA_DEV_CAP_MW_TYPE_2B);
	}

	/*
	 * The clock: no frequency or no bits turns it off (no timestamps,
	 * no QUERY_CLOCK); its bits are the low ones of a counter.
	 */
	if (!cfg->hca_core_clock || !cfg->completion_timestamp_mask) {
		cfg->hca_core_clock = 0;
		cfg->completion_timestamp_mask = 0;
	} else if (cfg->completion_timestamp_mask &
		   (cfg->completion_timestamp_mask + 1)) {
		return cfg_err(err, errlen,
			       "completion_timestamp_mask 0x%llx is not 2^n - 1",
			       (unsigned long long)cfg->completion_timestamp_mask);
	}

	/* device memory is given out in pages */
	if (cfg->max_dm_size % ORCA_DM_PAGE)
		return cfg_err(err, errlen,
			       "max_dm_size %llu is not a multiple of %u",
			       (unsigned long long)cfg->max_dm_size,
			       ORCA_DM_PAGE);

	/* fast registration: one switch, the page list length or the cap */
	if (!cfg->max_fast_reg_page_list_len ||
	    !(cfg->dev_caps & ORCA_DEV_CAP_FAST_REG)) {
		cfg->max_fast_reg_page_list_len = 0;
		cfg->dev_caps &= ~(uint64_t)ORCA_DEV_CAP_FAST_REG;
	}

	if (!(cfg->dev_caps &
	      (ORCA_DEV_CAP_RC | ORCA_DEV_CAP_UC | ORCA_DEV_CAP_UD)))
		return cfg_err(err, errlen,
			       "dev_caps: at least one of RC/UC/UD is required");
	if (cfg->active_mtu > cfg->max_mtu)
		return cfg_err(err, errlen, "active_mtu %llu > max_mtu %llu",
			       (unsigned long long)cfg->active_mtu,
			       (unsigned long long)cfg->max_mtu);
	return 0;
}

/*
 * GID i is the subnet prefix and the port GUID + i: index 0 is the
 * port's default GID, the others its alias GUIDs, assigned in order.
 */
void orca_gid_entry(const struct orca_cfg *g, uint32_t i, uint8_t *gid)
{
	uint64_t prefix = htobe64(g->subnet_prefix);
	uint64_t guid = htobe64(g->port_guid + i);

	memcpy(gid, &prefix, 8);
	memcpy(gid + 8, &guid, 8);
}
