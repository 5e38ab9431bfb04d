// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The verb tests' own reading of the emulator configuration (expect.h).
 *
 * Everything here is written from Documentation/infiniband/orca.rst,
 * "Configuration" and "Default configuration", and deliberately shares no
 * code with emulator/orca_cfg.c: the defaults are the documented values,
 * the parser accepts the documented syntax, and the derived values follow
 * the documented rules.  Where the emulator and the documentation
 * disagree, a test fails, which is the point.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"

enum kind {
	K_NUM,		/* decimal or 0x hex */
	K_GUID,		/* hex, optional 0x, optional ':' separators */
	K_VERSION,	/* MAJOR.MINOR.SUB, each 0..65535 */
	K_SWITCH,	/* 0 or 1 */
	K_PKEYS,	/* comma-separated 16-bit numbers */
};

struct key {
	const char *name;
	enum kind kind;
	size_t off;
};

#define KEY(f, k)	{ #f, k, offsetof(struct expect, f) }

/* Every key a verbs test depends on, directly or through a derivation */
static const struct key keys[] = {
	KEY(fw_version, K_VERSION),
	KEY(node_guid, K_GUID),
	KEY(sys_image_guid, K_GUID),
	KEY(port_guid, K_GUID),
	KEY(subnet_prefix, K_GUID),
	KEY(vendor_id, K_NUM),
	KEY(vendor_part_id, K_NUM),
	KEY(hw_ver, K_NUM),
	KEY(dev_caps, K_NUM),
	KEY(max_qp, K_NUM),
	KEY(max_qp_wr, K_NUM),
	KEY(max_send_sge, K_NUM),
	KEY(max_recv_sge, K_NUM),
	KEY(max_sge_rd, K_NUM),
	KEY(max_cq, K_NUM),
	KEY(max_cqe, K_NUM),
	KEY(max_mr, K_NUM),
	KEY(max_pd, K_NUM),
	KEY(max_qp_rd_atom, K_NUM),
	KEY(max_qp_init_rd_atom, K_NUM),
	KEY(max_res_rd_atom, K_NUM),
	KEY(max_mw, K_NUM),
	KEY(max_srq, K_NUM),
	KEY(max_srq_wr, K_NUM),
	KEY(max_srq_sge, K_NUM),
	KEY(max_ah, K_NUM),
	KEY(max_mcast_grp, K_NUM),
	KEY(max_mcast_qp_attach, K_NUM),
	KEY(max_total_mcast_qp_attach, K_NUM),
	KEY(max_fast_reg_page_list_len, K_NUM),
	KEY(max_inline_data, K_NUM),
	KEY(max_pkeys, K_NUM),
	KEY(local_ca_ack_delay, K_NUM),
	KEY(phys_port_cnt, K_NUM),
	KEY(atomic_cap, K_NUM),
	KEY(num_comp_vectors, K_NUM),
	KEY(page_size_cap, K_NUM),
	KEY(max_mr_size, K_NUM),
	KEY(dio_send, K_NUM),
	KEY(dio_rdma_write, K_NUM),
	KEY(dio_rdma_read, K_NUM),
	KEY(ece, K_SWITCH),
	KEY(ece_vendor_id, K_NUM),
	KEY(ece_options, K_NUM),
	KEY(pci_write_end_padding, K_SWITCH),
	KEY(hca_core_clock, K_NUM),
	KEY(completion_timestamp_mask, K_NUM),
	KEY(max_dm_size, K_NUM),
	KEY(port_cap_flags, K_NUM),
	KEY(max_msg_sz, K_NUM),
	KEY(lid, K_NUM),
	KEY(sm_lid, K_NUM),
	KEY(lmc, K_NUM),
	KEY(sm_sl, K_NUM),
	KEY(max_vl_num, K_NUM),
	KEY(gid_tbl_len, K_NUM),
	KEY(pkey_tbl_len, K_NUM),
	KEY(pkey, K_NUM),
	KEY(pkey_table, K_PKEYS),
	KEY(max_mtu, K_NUM),
	KEY(active_mtu, K_NUM),
	KEY(active_width, K_NUM),
	KEY(active_speed, K_NUM),
};

#define N_KEYS	(sizeof(keys) / sizeof(keys[0]))

/*
 * Emulator keys whose effect no verbs test can see, accepted and not
 * modelled.  Any other unknown key is an error, so that a key the tests
 * should model cannot slip past them; a new emulator key goes either into
 * keys[] (if a verbs test could see it) or here (with the reason).
 */
static const char *const ignored_keys[] = {
	"fw_name",		/* not carried by any verb */
	"guest_machine",	/* QEMU machine / RAM layout: host side only */
	"ram_below_4g",		/* guest address layout: no verb reports it */
	/*
	 * orca-fabric's socket: the port's LID and SM LID are then the
	 * SM's, not lid / sm_lid (a test on a fabric must not expect those)
	 */
	"fabric",
	/* the host policy: SMPs and MAD_IFC Sets, which no verb makes */
	"port_pin",
};

struct parse {
	struct expect *e;
	bool set[N_KEYS];		/* key given explicitly */
	const char *config;		/* the one --config FILE, or NULL */
	const char *sets[256];		/* --set KEY=VALUE, in order */
	int n_sets;
};

/* ------------------------------------------------------------------ */
/* Defaults: orca.rst, "Default configuration"                        */
/* ------------------------------------------------------------------ */

static void defaults(struct expect *e)
{
	memset(e, 0, sizeof(*e));
	e->fw_version[0] = 1;
	e->fw_version[1] = 4;
	e->fw_version[2] = 7;
	e->node_guid = 0x00ca7afffe000001ULL;
	e->vendor_id = 0x00ca7a;
	e->vendor_part_id = 1;
	e->hw_ver = 1;
	e->max_qp = 1024;
	e->max_qp_wr = 4096;
	e->max_send_sge = 16;
	e->max_recv_sge = 16;
	e->max_sge_rd = 16;
	e->max_cq = 1024;
	e->max_cqe = 65535;
	e->max_mr = 4096;
	e->max_ah = 4096;
	e->max_mcast_grp = 256;
	e->max_mcast_qp_attach = 16;
	e->max_total_mcast_qp_attach = 1024;
	e->max_srq = 1024;
	e->max_srq_wr = 4096;
	e->max_srq_sge = 16;
	e->max_mw = 4096;
	e->max_pd = 256;
	e->max_qp_rd_atom = 16;
	e->max_qp_init_rd_atom = 16;
	e->max_res_rd_atom = 16384;
	e->max_inline_data = 256;
	e->max_pkeys = 64;
	e->local_ca_ack_delay = 15;
	e->phys_port_cnt = 1;
	e->atomic_cap = 1;
	e->num_comp_vectors = 1;
	e->page_size_cap = 0xfffff000ULL;
	e->max_mr_size = 1ULL << 40;
	e->dev_caps = EXPECT_DEV_CAP_RC | EXPECT_DEV_CAP_UC | EXPECT_DEV_CAP_UD |
		      EXPECT_DEV_CAP_BAD_PKEY_CNTR |
		      EXPECT_DEV_CAP_BAD_QKEY_CNTR |
		      EXPECT_DEV_CAP_SYS_IMAGE_GUID |
		      EXPECT_DEV_CAP_RC_RNR_NAK_GEN |
		      EXPECT_DEV_CAP_PORT_ACTIVE_EVENT |
		      EXPECT_DEV_CAP_PCI_WRITE_END_PADDING |
		      EXPECT_DEV_CAP_ECE | EXPECT_DEV_CAP_SQD_ASYNC_NOTIFY |
		      EXPECT_DEV_CAP_MEM_WINDOW | EXPECT_DEV_CAP_MW_TYPE_2B |
		      EXPECT_DEV_CAP_FAST_REG | EXPECT_DEV_CAP_ATOMIC_WRITE;
	e->max_fast_reg_page_list_len = 512;
	e->dio_send = 3;
	e->dio_rdma_write = 3;
	e->dio_rdma_read = 2;
	e->ece = 1;
	e->ece_options = 0xf;
	e->pci_write_end_padding = 1;
	/* "a 1 GHz clock of 64 bits" */
	e->hca_core_clock = 1000000;
	e->completion_timestamp_mask = ~0ULL;
	/* "256 KiB of device memory" */
	e->max_dm_size = 256 * 1024;
	/* "every other limit 0": memset */

	e->lid = 0x11;
	e->sm_lid = 1;
	e->max_mtu = 5;
	e->active_mtu = 5;
	e->gid_tbl_len = 1;
	e->pkey_tbl_len = 64;
	e->pkey = 0xffff;
	e->subnet_prefix = 0xfe80000000000000ULL;
	e->max_msg_sz = 0x80000000ULL;
	e->active_width = 2;
	e->active_speed = 32;
	e->max_vl_num = 1;
	/* orca.rst: SystemImageGUID (bit 11) and ClientReregister (bit 25) */
	e->port_cap_flags = 0x02000800;
	/* sys_image_guid, port_guid, ece_vendor_id, pkey_table: derive() */
}

/* ------------------------------------------------------------------ */
/* Values: orca.rst, "Configuration"                                  */
/* ------------------------------------------------------------------ */

static int digit_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return 99;
}

/* "Numbers are decimal or 0x hex": no sign, no octal, no blanks. */
static int parse_num(const char *s, uint64_t *out)
{
	unsigned int base = 10;
	uint64_t v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -1;
	for (; *s; s++) {
		unsigned int d = digit_value((unsigned char)*s);

		if (d >= base || v > (UINT64_MAX - d) / base)
			return -1;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/* "GUIDs are hex, with an optional 0x and optional ':' separators." */
static int parse_guid(const char *s, uint64_t *out)
{
	unsigned int ndig = 0;
	uint64_t v = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; *s; s++) {
		unsigned int d;

		if (*s == ':')
			continue;
		d = digit_value((unsigned char)*s);
		if (d >= 16 || ++ndig > 16)
			return -1;
		v = v << 4 | d;
	}
	if (!ndig)
		return -1;
	*out = v;
	return 0;
}

/* MAJOR.MINOR.SUB, decimal, each 0..65535 */
static int parse_version(const char *s, unsigned int out[3])
{
	for (int i = 0; i < 3; i++) {
		unsigned long v = 0;
		const char *start = s;

		while (*s >= '0' && *s <= '9') {
			v = v * 10 + (unsigned long)(*s - '0');
			if (v > 0xffff)
				return -1;
			s++;
		}
		if (s == start || *s != (i < 2 ? '.' : '\0'))
			return -1;
		if (i < 2)
			s++;
		out[i] = (unsigned int)v;
	}
	return 0;
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* pkey_table: the P_Key table from index 0, "0x8001,0x7fff" */
static int parse_pkeys(struct expect *e, const char *val)
{
	char *copy = strdup(val), *tok, *save = NULL;
	unsigned int n = 0;
	uint64_t v;
	int ret = -1;

	if (!copy)
		return -1;
	/* strtok_r would skip an empty entry ("1,,2"): refuse it instead */
	if (val[0] == ',' || strstr(val, ",,") ||
	    (*val && val[strlen(val) - 1] == ','))
		goto out;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (n == EXPECT_MAX_PKEYS || parse_num(trim(tok), &v) ||
		    v > 0xffff)
			goto out;
		e->pkey_table[n++] = v;
	}
	if (n) {
		e->n_pkey_table = n;
		ret = 0;
	}
out:
	free(copy);
	return ret;
}

static int key_index(const char *name)
{
	for (size_t i = 0; i < N_KEYS; i++)
		if (!strcmp(keys[i].name, name))
			return (int)i;
	return -1;
}

static bool was_set(const struct parse *p, const char *name)
{
	int i = key_index(name);

	return i >= 0 && p->set[i];
}

/* Set one key; @where names the option or file line for the message */
static int set_key(struct parse *p, const char *name, const char *val,
		   const char *where)
{
	int i = key_index(name);
	uint64_t *field;
	const char *why = NULL;

	if (i < 0) {
		for (size_t j = 0; j < sizeof(ignored_keys) /
					   sizeof(ignored_keys[0]); j++)
			if (!strcmp(ignored_keys[j], name))
				return 0;
		fprintf(stderr,
			"expect: %s: unknown configuration key '%s' (tests/verbs/expect.c: model it, or add it to ignored_keys if no verbs test can see it)\n",
			where, name);
		return -1;
	}
	/* K_NUM, K_SWITCH and K_GUID fields are uint64_t */
	field = (uint64_t *)((char *)p->e + keys[i].off);
	switch (keys[i].kind) {
	case K_NUM:
		if (parse_num(val, field))
			why = "not a decimal or 0x-hex number";
		break;
	case K_SWITCH:
		if (parse_num(val, field) || *field > 1)
			why = "not 0 or 1";
		break;
	case K_GUID:
		if (parse_guid(val, field))
			why = "not a GUID of at most 16 hex digits";
		break;
	case K_VERSION:
		if (parse_version(val, p->e->fw_version))
			why = "not MAJOR.MINOR.SUB (each 0..65535)";
		break;
	case K_PKEYS:
		if (parse_pkeys(p->e, val))
			why = "not a list of at most 64 comma-separated 16-bit numbers";
		break;
	}
	if (why) {
		fprintf(stderr, "expect: %s: %s = '%s' is %s\n", where, name,
			val, why);
		return -1;
	}
	p->set[i] = true;
	return 0;
}

/* One "key = value" (a file line or a --set word) */
static int set_line(struct parse *p, char *line, const char *where)
{
	char *eq = strchr(line, '='), *name, *val;

	if (!eq) {
		fprintf(stderr, "expect: %s: '%s' is not 'key = value'\n",
			where, line);
		return -1;
	}
	*eq = '\0';
	name = trim(line);
	val = trim(eq + 1);
	if (!*name || !*val) {
		fprintf(stderr, "expect: %s: empty key or value\n", where);
		return -1;
	}
	return set_key(p, name, val, where);
}

/* "key = value" lines, '#' starts a comment, blank lines are skipped */
static int load_file(struct parse *p, const char *path)
{
	char *line = NULL, where[600];
	size_t cap = 0;
	unsigned int lineno = 0;
	FILE *f = fopen(path, "r");
	int ret = 0;

	if (!f) {
		fprintf(stderr, "expect: --config %s: %m\n", path);
		return -1;
	}
	while (!ret && getline(&line, &cap, f) >= 0) {
		char *s;

		lineno++;
		line[strcspn(line, "#")] = '\0';
		s = trim(line);
		if (!*s)
			continue;
		snprintf(where, sizeof(where), "%s:%u", path, lineno);
		ret = set_line(p, s, where);
	}
	free(line);
	fclose(f);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Derivation rules: orca.rst, "Configuration"                        */
/* ------------------------------------------------------------------ */

static int derive(struct parse *p)
{
	struct expect *e = p->e;

	/* derived identities, unless given */
	if (!was_set(p, "sys_image_guid"))
		e->sys_image_guid = e->node_guid;
	if (!was_set(p, "port_guid"))
		e->port_guid = e->node_guid + 1;
	if (!was_set(p, "ece_vendor_id"))
		e->ece_vendor_id = e->vendor_id;

	/* pkey is entry 0 of the table pkey_table lists from index 0 */
	if (was_set(p, "pkey_table")) {
		if (was_set(p, "pkey") && e->pkey != e->pkey_table[0]) {
			fprintf(stderr,
				"expect: pkey %#llx and pkey_table[0] %#llx differ\n",
				(unsigned long long)e->pkey,
				(unsigned long long)e->pkey_table[0]);
			return -1;
		}
		e->pkey = e->pkey_table[0];
	} else {
		e->pkey_table[0] = e->pkey;
		e->n_pkey_table = 1;
	}
	if (e->n_pkey_table > e->pkey_tbl_len) {
		fprintf(stderr,
			"expect: pkey_table has %u entries, more than pkey_tbl_len %llu\n",
			e->n_pkey_table, (unsigned long long)e->pkey_tbl_len);
		return -1;
	}

	/*
	 * ECE is one switch: ece=0, ece_vendor_id 0 or dev_caps without the
	 * ECE bit all mean no ECE at all.
	 */
	if (!e->ece || !e->ece_vendor_id ||
	    !(e->dev_caps & EXPECT_DEV_CAP_ECE)) {
		e->ece = 0;
		e->ece_vendor_id = 0;
		e->ece_options = 0;
		e->dev_caps &= ~(uint64_t)EXPECT_DEV_CAP_ECE;
	}
	/* likewise PCI write end padding: the key and the bit go together */
	if (!e->pci_write_end_padding ||
	    !(e->dev_caps & EXPECT_DEV_CAP_PCI_WRITE_END_PADDING)) {
		e->pci_write_end_padding = 0;
		e->dev_caps &= ~(uint64_t)EXPECT_DEV_CAP_PCI_WRITE_END_PADDING;
	}

	/* memory windows: max_mw 0 or no MEM_WINDOW bit turns them off */
	if (!e->max_mw || !(e->dev_caps & EXPECT_DEV_CAP_MEM_WINDOW)) {
		e->max_mw = 0;
		e->dev_caps &= ~(uint64_t)(EXPECT_DEV_CAP_MEM_WINDOW |
					   EXPECT_DEV_CAP_MW_TYPE_2B);
	}

	/* the clock: no frequency or no bits turns it off */
	if (!e->hca_core_clock || !e->completion_timestamp_mask) {
		e->hca_core_clock = 0;
		e->completion_timestamp_mask = 0;
	}

	/* fast registration: no page list length or no bit turns it off */
	if (!e->max_fast_reg_page_list_len ||
	    !(e->dev_caps & EXPECT_DEV_CAP_FAST_REG)) {
		e->max_fast_reg_page_list_len = 0;
		e->dev_caps &= ~(uint64_t)EXPECT_DEV_CAP_FAST_REG;
	}

	/* configurations the documentation forbids */
	if (!(e->dev_caps &
	      (EXPECT_DEV_CAP_RC | EXPECT_DEV_CAP_UC | EXPECT_DEV_CAP_UD))) {
		fprintf(stderr, "expect: dev_caps %#llx has none of RC, UC, UD\n",
			(unsigned long long)e->dev_caps);
		return -1;
	}
	if (e->active_mtu > e->max_mtu) {
		fprintf(stderr, "expect: active_mtu %llu > max_mtu %llu\n",
			(unsigned long long)e->active_mtu,
			(unsigned long long)e->max_mtu);
		return -1;
	}
	/* "a multiple of 4096, at most 512 KiB" */
	if (e->max_dm_size % 4096 || e->max_dm_size > 512 * 1024) {
		fprintf(stderr, "expect: max_dm_size %llu is not a multiple of 4096 up to 512 KiB\n",
			(unsigned long long)e->max_dm_size);
		return -1;
	}
	/* "the low bits of a counter": 2^n - 1 */
	if (e->completion_timestamp_mask &
	    (e->completion_timestamp_mask + 1)) {
		fprintf(stderr, "expect: completion_timestamp_mask %#llx is not 2^n - 1\n",
			(unsigned long long)e->completion_timestamp_mask);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Where the options come from                                        */
/* ------------------------------------------------------------------ */

/*
 * Note one option word pair (or "--opt=value" word).  Returns 1 if @opt
 * was --config/--set (and @val was used), 0 if not, -1 on an error.
 */
static int take_option(struct parse *p, const char *opt, const char *val)
{
	if (!strncmp(opt, "--config=", 9)) {
		val = opt + 9;
		opt = "--config";
	} else if (!strncmp(opt, "--set=", 6)) {
		val = opt + 6;
		opt = "--set";
	}
	if (strcmp(opt, "--config") && strcmp(opt, "--set"))
		return 0;
	if (!val) {
		fprintf(stderr, "expect: %s needs a value\n", opt);
		return -1;
	}
	if (!strcmp(opt, "--config")) {
		/* orca.rst documents one file; which of two wins is not said */
		if (p->config) {
			fprintf(stderr, "expect: more than one --config (%s, %s)\n",
				p->config, val);
			return -1;
		}
		p->config = val;
	} else {
		if (p->n_sets == (int)(sizeof(p->sets) / sizeof(p->sets[0]))) {
			fprintf(stderr, "expect: too many --set\n");
			return -1;
		}
		p->sets[p->n_sets++] = val;
	}
	return 1;
}

/* "--set options are applied after the file, in order" */
static int apply(struct parse *p)
{
	char where[64];

	defaults(p->e);
	if (p->config && load_file(p, p->config))
		return -1;
	for (int i = 0; i < p->n_sets; i++) {
		char *kv = strdup(p->sets[i]);
		int ret;

		if (!kv)
			return -1;
		snprintf(where, sizeof(where), "--set #%d", i + 1);
		ret = set_line(p, kv, where);
		free(kv);
		if (ret)
			return -1;
	}
	return derive(p);
}

int expect_split_q(char *line, char **words, int max)
{
	char *r = line, *w;
	int n = 0;

	for (;;) {
		while (*r == ' ' || *r == '\t' || *r == '\n')
			r++;
		if (!*r)
			return n;
		/* $'...' (non-printable characters) is not understood */
		if (n == max || *r == '$')
			return -1;
		words[n++] = w = r;
		while (*r && *r != ' ' && *r != '\t' && *r != '\n') {
			if (*r == '\\' && r[1]) {
				*w++ = r[1];
				r += 2;
			} else if (*r == '\'') {
				r++;
				while (*r && *r != '\'')
					*w++ = *r++;
				if (*r != '\'')
					return -1;
				r++;
			} else {
				*w++ = *r++;
			}
		}
		if (*r)
			r++;
		*w = '\0';
	}
}

/* Options of the emulator command line vm.sh recorded in the job dir */
static int from_job(struct parse *p, const char *job, char *source,
		    size_t len)
{
	/* static: p->config and p->sets point into it until apply() */
	static char line[16384];
	static char *words[256];
	char path[512];
	size_t got;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/emu-cmdline.txt", job);
	f = fopen(path, "r");
	if (!f)
		return 0;	/* not started by vm.sh: the defaults */
	got = fread(line, 1, sizeof(line) - 1, f);
	fclose(f);
	line[got] = '\0';
	if (got == sizeof(line) - 1) {
		fprintf(stderr, "expect: %s is too long\n", path);
		return -1;
	}
	n = expect_split_q(line, words, 256);
	if (n < 0) {
		fprintf(stderr, "expect: cannot parse %s\n", path);
		return -1;
	}
	/* words[0] is the emulator; its other options take no part */
	for (int i = 1; i < n; i++) {
		int r = take_option(p, words[i], i + 1 < n ? words[i + 1] : NULL);

		if (r < 0)
			return -1;
		if (r && !strchr(words[i], '='))
			i++;
	}
	snprintf(source, len, "%s", path);
	return 0;
}

int expect_init(struct expect *e, int *argc, char **argv)
{
	struct parse p;
	const char *job = getenv("ORCA_JOB");
	char source[sizeof(e->source)];
	int i, j;

	memset(&p, 0, sizeof(p));
	p.e = e;
	snprintf(source, sizeof(source),
		 "the documented defaults (orca.rst)");
	for (i = 1, j = 1; i < *argc; i++) {
		if ((!strcmp(argv[i], "--config") || !strcmp(argv[i], "--set")) &&
		    i + 1 < *argc) {
			if (take_option(&p, argv[i], argv[i + 1]) < 0)
				return -1;
			i++;
		} else {
			argv[j++] = argv[i];
		}
	}
	*argc = j;
	if (p.config || p.n_sets)
		snprintf(source, sizeof(source), "the command line");
	else if (job && *job && from_job(&p, job, source, sizeof(source)))
		return -1;
	if (apply(&p))
		return -1;
	snprintf(e->source, sizeof(e->source), "%s", source);
	return 0;
}

bool expect_has_ece(const struct expect *e)
{
	return e->ece && e->ece_vendor_id &&
	       (e->dev_caps & EXPECT_DEV_CAP_ECE);
}

int expect_dio(const struct expect *e, int idx)
{
	uint64_t v = idx == 0 ? e->dio_send :
		     idx == 1 ? e->dio_rdma_write : e->dio_rdma_read;

	if (v & EXPECT_DIO_WHOLE_MSG)
		v |= EXPECT_DIO_ALIGNED_128_BYTES;
	return (int)v;
}
