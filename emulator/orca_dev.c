// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model core: register block, command queue, event queue,
 * QP state mirror, command handlers.
 *
 * Everything the guest controls (register values, queue entries, mailbox
 * contents) is copied into device memory before it is interpreted, and
 * every guest address goes through dma_ok() before it is touched, so no
 * guest input can make the device read or write outside the host memory
 * mapping or act on a value that changes under its feet.
 */
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orca_dev.h"
#include "orca_log.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------ */
/* Names for logs                                                     */
/* ------------------------------------------------------------------ */

const char *orca_opcode_name(unsigned int opcode)
{
	switch (opcode) {
	case ORCA_CMD_RESET:		return "RESET";
	case ORCA_CMD_INIT:		return "INIT";
	case ORCA_CMD_TEARDOWN:		return "TEARDOWN";
	case ORCA_CMD_QUERY_CAPS:	return "QUERY_CAPS";
	case ORCA_CMD_QUERY_PORT:	return "QUERY_PORT";
	case ORCA_CMD_QUERY_GID_TABLE:	return "QUERY_GID_TABLE";
	case ORCA_CMD_QUERY_PKEY_TABLE:	return "QUERY_PKEY_TABLE";
	case ORCA_CMD_ALLOC_PD:		return "ALLOC_PD";
	case ORCA_CMD_DEALLOC_PD:	return "DEALLOC_PD";
	case ORCA_CMD_CREATE_CQ:	return "CREATE_CQ";
	case ORCA_CMD_DESTROY_CQ:	return "DESTROY_CQ";
	case ORCA_CMD_CREATE_QP:	return "CREATE_QP";
	case ORCA_CMD_MODIFY_QP:	return "MODIFY_QP";
	case ORCA_CMD_QUERY_QP:		return "QUERY_QP";
	case ORCA_CMD_DESTROY_QP:	return "DESTROY_QP";
	}
	return "UNKNOWN";
}

const char *orca_status_name(unsigned int status)
{
	static const char *const names[] = {
		"OK", "BAD_OPCODE", "BAD_PARAM", "BAD_RESOURCE",
		"BAD_RES_STATE", "BAD_QP_STATE", "NO_RESOURCES", "UNSUPPORTED",
		"BAD_LEN", "DMA_FAULT", "NOT_READY", "INTERNAL",
	};

	return status < ARRAY_SIZE(names) ? names[status] : "?";
}

const char *orca_synd_name(unsigned int synd)
{
	static const char *const names[] = {
		"NONE", "IN_LEN", "OUT_LEN", "IN_ADDR", "OUT_ADDR",
		"QUEUE_ADDR", "LIMIT", "HANDLE", "IN_USE", "QP_TYPE",
		"TRANSITION", "MISSING_ATTR", "INVALID_ATTR", "ATTR_RANGE",
		"FLAGS", "ECE", "RESERVED_NZ", "NOT_INIT",
	};

	return synd < ARRAY_SIZE(names) ? names[synd] : "?";
}

const char *orca_qps_name(unsigned int state)
{
	static const char *const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};

	return state < ARRAY_SIZE(names) ? names[state] : "?";
}

/* ------------------------------------------------------------------ */
/* Register block and DMA                                             */
/* ------------------------------------------------------------------ */

/* The guest writes BAR2 concurrently: single-copy atomic accesses only. */
#define REG_RD32(dev, f) \
	le32toh(__atomic_load_n(&(dev)->regs->f, __ATOMIC_ACQUIRE))
#define REG_RD64(dev, f) \
	le64toh(__atomic_load_n(&(dev)->regs->f, __ATOMIC_ACQUIRE))
#define REG_WR32(dev, f, v) \
	__atomic_store_n(&(dev)->regs->f, htole32(v), __ATOMIC_RELEASE)
#define REG_WR64(dev, f, v) \
	__atomic_store_n(&(dev)->regs->f, htole64(v), __ATOMIC_RELEASE)

/*
 * Is [addr, addr + len) guest RAM, all in one region of the guest's
 * memory map?  Overflow-safe.
 */
static bool dma_ok(const struct orca_dev *dev, uint64_t addr, uint64_t len)
{
	uint64_t off;

	return dev->ram && orca_memmap_translate(&dev->map, addr, len, &off);
}

/* Where [addr, addr + len) is in the RAM file; NULL (counted) if not RAM. */
static uint8_t *dma_xlate(struct orca_dev *dev, uint64_t addr, uint64_t len)
{
	uint64_t off;

	if (!dev->ram || !orca_memmap_translate(&dev->map, addr, len, &off)) {
		dev->stats.bad_addr++;
		return NULL;
	}
	if (len && addr + len > dev->stats.dma_high)
		dev->stats.dma_high = addr + len;
	return dev->ram + off;
}

static int dma_read(struct orca_dev *dev, uint64_t addr, void *buf,
		    size_t len)
{
	uint8_t *p = dma_xlate(dev, addr, len);

	if (!p)
		return -EFAULT;
	memcpy(buf, p, len);
	return 0;
}

static int dma_write(struct orca_dev *dev, uint64_t addr, const void *buf,
		     size_t len)
{
	uint8_t *p = dma_xlate(dev, addr, len);

	if (!p)
		return -EFAULT;
	memcpy(p, buf, len);
	return 0;
}

static void *dma_ptr(struct orca_dev *dev, uint64_t addr, size_t len)
{
	return dma_xlate(dev, addr, len);
}

/* A ring of 2^log_depth 64-byte entries at base: aligned and in memory. */
static bool ring_ok(const struct orca_dev *dev, uint64_t base,
		    unsigned int log_depth)
{
	return !(base & 63) && dma_ok(dev, base, 64ULL << log_depth);
}

static void flush_irq(struct orca_dev *dev)
{
	if (!dev->irq_pending)
		return;
	dev->irq_pending = false;
	dev->stats.irqs++;
	if (dev->raise_irq)
		dev->raise_irq(dev->irq_priv, ORCA_MSIX_EQ);
}

/* ------------------------------------------------------------------ */
/* Fatal state, event queue, QP mirror                                */
/* ------------------------------------------------------------------ */

static int eq_post(struct orca_dev *dev, const struct orca_eqe *eqe);

static void go_fatal(struct orca_dev *dev, uint32_t syndrome, const char *why)
{
	struct orca_eqe eqe;

	if (dev->fatal)
		return;
	dev->fatal = true;
	REG_WR32(dev, fatal_syndrome, syndrome);
	REG_WR32(dev, health, ORCA_HEALTH_FATAL);
	orca_log("FATAL: device stopped (syndrome %u): %s", syndrome, why);
	if (!dev->armed)
		return;
	memset(&eqe, 0, sizeof(eqe));
	eqe.type = ORCA_EQE_DEVICE_FATAL;
	eqe.fatal.syndrome = htole32(syndrome);
	if (!eq_post(dev, &eqe)) {
		dev->stats.events++;
		dev->irq_pending |= dev->irq_enabled;
	}
}

/*
 * Write one EQE.  Returns 0, -EAGAIN (EQ full), -ENODEV (no EQ configured
 * or DMA not allowed now) or -EFAULT (EQ unusable: the device is now fatal).
 * The caller decides about MSI-X.
 */
static int eq_post(struct orca_dev *dev, const struct orca_eqe *eqe)
{
	uint64_t base = dev->eq_base;
	uint32_t log_depth = dev->eq_log_depth;
	uint32_t ci = REG_RD32(dev, eq_ci);
	uint32_t depth, used;

	if (!dev->latched || !dev->ram || !base || !log_depth)
		return -ENODEV;
	if (log_depth > ORCA_EMU_EQ_MAX_LOG_DEPTH || !ring_ok(dev, base,
							     log_depth)) {
		dev->stats.bad_addr++;
		if (!dev->fatal) {
			char why[96];

			snprintf(why, sizeof(why),
				 "EQ base 0x%llx log_depth %u unusable",
				 (unsigned long long)base, log_depth);
			go_fatal(dev, ORCA_FATAL_DMA, why);
		}
		return -EFAULT;
	}
	depth = 1U << log_depth;
	used = dev->eq_pi - ci;
	if (used >= depth) {
		if (used > depth)
			orca_log("EQ: eq_ci %u is ahead of eq_pi %u, treating EQ as full",
				 ci, dev->eq_pi);
		return -EAGAIN;
	}
	if (dma_write(dev, base + (uint64_t)(dev->eq_pi & (depth - 1)) * 64,
		      eqe, sizeof(*eqe)))
		return -EFAULT;	/* cannot happen: ring_ok() above */
	dev->stats.dma_writes++;
	/* entry first, then the producer index (release) */
	dev->eq_pi++;
	REG_WR32(dev, eq_pi, dev->eq_pi);
	return 0;
}

/* Async events: only while armed; dropped and counted when the EQ is full. */
static void post_async(struct orca_dev *dev, const struct orca_eqe *eqe)
{
	int ret;

	if (!dev->armed || dev->fatal)
		return;
	ret = eq_post(dev, eqe);
	if (!ret) {
		dev->stats.events++;
		dev->irq_pending |= dev->irq_enabled;
	} else if (ret == -EAGAIN || ret == -ENODEV) {
		dev->eq_overflows++;
		REG_WR32(dev, eq_overflows, dev->eq_overflows);
		orca_log("EQ full: async event type %u dropped (eq_overflows %u)",
			 eqe->type, dev->eq_overflows);
	}
}

static void post_qp_event(struct orca_dev *dev, uint32_t qpn, uint8_t event,
			  uint8_t state, uint32_t seq)
{
	struct orca_eqe eqe;

	memset(&eqe, 0, sizeof(eqe));
	eqe.type = ORCA_EQE_QP_EVENT;
	eqe.qp.qpn = htole32(qpn);
	eqe.qp.event = event;
	eqe.qp.state = state;
	eqe.qp.mirror_seq = htole32(seq);
	post_async(dev, &eqe);
}

/*
 * Publish a QP's state in the host mirror: seq odd, fields, seq even
 * (release).  Returns the new even seq, or 0 when no mirror entry exists.
 */
static uint32_t mirror_write(struct orca_dev *dev, uint32_t qpn,
			     const struct orca_qp_ctx *ctx)
{
	struct orca_qp_mirror *m;
	uint32_t seq;

	if (!dev->armed || !dev->mirror_entries || qpn >= dev->mirror_entries ||
	    qpn >= dev->cfg.max_qp + ORCA_QPN_BASE)
		return 0;
	m = dma_ptr(dev, dev->mirror_base + (uint64_t)qpn * sizeof(*m),
		    sizeof(*m));
	if (!m)
		return 0;	/* cannot happen: INIT checked the range */
	seq = dev->mirror_seq[qpn];
	__atomic_store_n(&m->seq, htole32(seq + 1), __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	m->state = ctx ? ctx->state : ORCA_QPS_RESET;
	m->sq_draining = ctx ? ctx->sq_draining : 0;
	m->path_mig_state = ctx ? ctx->path_mig_state : ORCA_MIG_MIGRATED;
	m->reserved = 0;
	m->qpn = htole32(qpn);
	m->reserved2 = 0;
	seq += 2;
	__atomic_store_n(&m->seq, htole32(seq), __ATOMIC_RELEASE);
	dev->mirror_seq[qpn] = seq;
	dev->stats.mirror_writes++;
	dev->stats.dma_writes++;
	return seq;
}

/* ------------------------------------------------------------------ */
/* Objects                                                            */
/* ------------------------------------------------------------------ */

static void destroy_all(struct orca_dev *dev)
{
	uint32_t i;

	for (i = 0; i < dev->cfg.max_qp + ORCA_QPN_BASE; i++) {
		free(dev->qps[i]);
		dev->qps[i] = NULL;
	}
	memset(dev->pds, 0, (dev->cfg.max_pd + 1) * sizeof(*dev->pds));
	memset(dev->cqs, 0, (dev->cfg.max_cq + 1) * sizeof(*dev->cqs));
	dev->n_pds = dev->n_cqs = dev->n_qps = dev->n_draining = 0;
}

static void disarm(struct orca_dev *dev)
{
	dev->armed = false;
	dev->irq_enabled = false;
	dev->mirror_base = 0;
	dev->mirror_entries = 0;
}

static struct orca_pd *pd_get(struct orca_dev *dev, uint32_t pdn)
{
	if (!pdn || pdn > dev->cfg.max_pd || !dev->pds[pdn].used)
		return NULL;
	return &dev->pds[pdn];
}

static struct orca_cq *cq_get(struct orca_dev *dev, uint32_t cqn)
{
	if (!cqn || cqn > dev->cfg.max_cq || !dev->cqs[cqn].used)
		return NULL;
	return &dev->cqs[cqn];
}

static struct orca_qp *qp_get(struct orca_dev *dev, uint32_t qpn)
{
	if (qpn < ORCA_QPN_BASE || qpn >= dev->cfg.max_qp + ORCA_QPN_BASE)
		return NULL;
	return dev->qps[qpn];
}

/*
 * Round-robin search of a free slot in [lo, hi): handles are not reused
 * immediately, so a stale handle in a buggy driver fails loudly.  With
 * reuse_handles (ctl "reuse-handles 1") the lowest free handle is taken,
 * the way a device with a free list reuses a number at once.
 */
static uint32_t rr_next(uint32_t *cursor, uint32_t lo, uint32_t hi,
			bool (*busy)(struct orca_dev *, uint32_t),
			struct orca_dev *dev)
{
	uint32_t i, h;

	if (dev->reuse_handles)
		*cursor = lo;
	for (i = 0; i < hi - lo; i++) {
		h = *cursor;
		if (h < lo || h >= hi)
			h = lo;
		*cursor = h + 1;
		if (!busy(dev, h))
			return h;
	}
	return 0;
}

static bool pd_busy(struct orca_dev *dev, uint32_t h)
{
	return dev->pds[h].used;
}

static bool cq_busy(struct orca_dev *dev, uint32_t h)
{
	return dev->cqs[h].used;
}

static bool qp_busy(struct orca_dev *dev, uint32_t h)
{
	return dev->qps[h] != NULL;
}

static uint32_t roundup_pow2(uint32_t v)
{
	uint32_t r = 1;

	if (!v)
		return 0;
	while (r < v)
		r <<= 1;
	return r;
}

/* ------------------------------------------------------------------ */
/* Command framework                                                  */
/* ------------------------------------------------------------------ */

struct cmd {
	unsigned int opcode;
	uint16_t token;
	uint32_t in_len, out_len;
	uint64_t in_mbox, out_mbox;
	const void *in;		/* dev->in_buf, in_len bytes */
	void *out;		/* dev->out_buf, zeroed, out_size bytes */
	uint32_t out_size;	/* min(out_len, what the command returns) */
	uint8_t status;
	uint32_t synd;
	char why[192];
};

static int fail(struct cmd *c, uint8_t status, uint32_t synd,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(struct cmd *c, uint8_t status, uint32_t synd,
		const char *fmt, ...)
{
	va_list ap;

	c->status = status;
	c->synd = synd;
	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
	return status;
}

static bool all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len--)
		if (*b++)
			return false;
	return true;
}

#define CHECK_RESERVED(c, field)					\
	do {								\
		if (!all_zero(&(field), sizeof(field)))			\
			return fail(c, ORCA_STATUS_BAD_PARAM,		\
				    ORCA_SYND_RESERVED_NZ,		\
				    "reserved field '%s' not zero", #field); \
	} while (0)

/* ---- RESET / INIT / TEARDOWN ---- */

static int cmd_reset(struct orca_dev *dev, struct cmd *c)
{
	(void)c;
	destroy_all(dev);
	disarm(dev);
	dev->state = ORCA_DEV_S_RESET;
	dev->port_state = ORCA_PORT_ACTIVE;
	orca_log("RESET: all objects destroyed, events/mirror/MSI-X disarmed");
	return ORCA_STATUS_OK;
}

static int cmd_init(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_init_in *in = c->in;
	uint32_t flags = le32toh(in->flags);
	uint64_t mbase = REG_RD64(dev, qp_mirror_base);
	uint32_t mentries = REG_RD32(dev, qp_mirror_entries);

	CHECK_RESERVED(c, in->reserved);
	if (flags & ~ORCA_INIT_F_EQ_IRQ)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS,
			    "unknown INIT flags 0x%x", flags);
	if (dev->state == ORCA_DEV_S_ACTIVE)
		return fail(c, ORCA_STATUS_BAD_RES_STATE, ORCA_SYND_NONE,
			    "INIT twice without RESET");
	if (mentries && ((mbase & 15) ||
			 !dma_ok(dev, mbase, (uint64_t)mentries *
				 sizeof(struct orca_qp_mirror)))) {
		dev->stats.bad_addr++;
		return fail(c, ORCA_STATUS_DMA_FAULT, ORCA_SYND_QUEUE_ADDR,
			    "QP mirror 0x%llx x %u entries outside host memory or misaligned",
			    (unsigned long long)mbase, mentries);
	}
	dev->mirror_base = mentries ? mbase : 0;
	dev->mirror_entries = mentries;
	dev->armed = true;
	dev->irq_enabled = flags & ORCA_INIT_F_EQ_IRQ;
	dev->state = ORCA_DEV_S_ACTIVE;
	orca_log("INIT: armed, MSI-X %s, mirror 0x%llx x %u",
		 dev->irq_enabled ? "on" : "off",
		 (unsigned long long)dev->mirror_base, dev->mirror_entries);
	return ORCA_STATUS_OK;
}

static int cmd_teardown(struct orca_dev *dev, struct cmd *c)
{
	(void)c;
	destroy_all(dev);
	disarm(dev);
	dev->state = ORCA_DEV_S_TORN_DOWN;
	dev->teardown_cpl_pending = true;
	orca_log("TEARDOWN: all objects destroyed, DMA stops after completion");
	return ORCA_STATUS_OK;
}

/* Runs once the TEARDOWN completion is in the EQ. */
static void finish_teardown(struct orca_dev *dev)
{
	dev->teardown_cpl_pending = false;
	dev->latched = false;
	REG_WR32(dev, dev_sts, 0);
	REG_WR64(dev, cmdq_base, 0);
	REG_WR64(dev, eq_base, 0);
	REG_WR64(dev, qp_mirror_base, 0);
}

/* ---- queries ---- */

/* A capability as reported: the configuration unless a test overrides it. */
#define LIE(dev, f)	((dev)->lie.f ? (dev)->lie.f : (dev)->cfg.f)

static int cmd_query_caps(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_cfg *g = &dev->cfg;
	struct orca_caps *o = c->out;

	o->fw_version = htole64(g->fw_version);
	o->node_guid = htole64(g->node_guid);
	o->sys_image_guid = htole64(g->sys_image_guid);
	o->max_mr_size = htole64(g->max_mr_size);
	o->page_size_cap = htole64(g->page_size_cap);
	o->vendor_id = htole32(g->vendor_id);
	o->vendor_part_id = htole32(g->vendor_part_id);
	o->hw_ver = htole32(g->hw_ver);
	o->dev_caps = htole32(g->dev_caps);
	o->max_qp = htole32(LIE(dev, max_qp));
	o->max_qp_wr = htole32(LIE(dev, max_qp_wr));
	o->max_send_sge = htole32(g->max_send_sge);
	o->max_recv_sge = htole32(g->max_recv_sge);
	o->max_sge_rd = htole32(g->max_sge_rd);
	o->max_cq = htole32(LIE(dev, max_cq));
	o->max_cqe = htole32(LIE(dev, max_cqe));
	o->max_mr = htole32(g->max_mr);
	o->max_pd = htole32(LIE(dev, max_pd));
	o->max_qp_rd_atom = htole32(g->max_qp_rd_atom);
	o->max_qp_init_rd_atom = htole32(g->max_qp_init_rd_atom);
	o->max_res_rd_atom = htole32(g->max_res_rd_atom);
	o->max_mw = htole32(g->max_mw);
	o->max_srq = htole32(g->max_srq);
	o->max_srq_wr = htole32(g->max_srq_wr);
	o->max_srq_sge = htole32(g->max_srq_sge);
	o->max_ah = htole32(g->max_ah);
	o->max_mcast_grp = htole32(g->max_mcast_grp);
	o->max_mcast_qp_attach = htole32(g->max_mcast_qp_attach);
	o->max_total_mcast_qp_attach = htole32(g->max_total_mcast_qp_attach);
	o->max_inline_data = htole32(g->max_inline_data);
	o->max_pkeys = htole16(g->max_pkeys);
	o->local_ca_ack_delay = g->local_ca_ack_delay;
	o->phys_port_cnt = LIE(dev, phys_port_cnt);
	o->atomic_cap = g->atomic_cap;
	o->num_comp_vectors = LIE(dev, num_comp_vectors);
	o->dio_send = g->dio_send;
	o->dio_rdma_write = g->dio_rdma_write;
	o->dio_rdma_read = g->dio_rdma_read;
	o->ece_vendor_id = htole32(g->ece_vendor_id);
	o->ece_options = htole32(g->ece_options);
	o->hca_core_clock = htole64(g->hca_core_clock);
	o->completion_timestamp_mask = htole64(g->completion_timestamp_mask);
	o->max_dm_size = htole64(g->max_dm_size);
	return ORCA_STATUS_OK;
}

static int cmd_query_port(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_query_port_in *in = c->in;
	const struct orca_cfg *g = &dev->cfg;
	struct orca_port_attr *o = c->out;
	bool up = dev->port_state == ORCA_PORT_ACTIVE;

	CHECK_RESERVED(c, in->reserved);
	if (!in->port || in->port > g->phys_port_cnt)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "port %u not in 1..%llu", in->port,
			    (unsigned long long)g->phys_port_cnt);
	o->subnet_prefix = htole64(g->subnet_prefix);
	o->port_guid = htole64(g->port_guid);
	o->port_cap_flags = htole32(g->port_cap_flags);
	o->max_msg_sz = htole32(g->max_msg_sz);
	o->lid = htole16(g->lid);
	o->sm_lid = htole16(g->sm_lid);
	o->gid_tbl_len = htole16(LIE(dev, gid_tbl_len));
	o->pkey_tbl_len = htole16(LIE(dev, pkey_tbl_len));
	o->pkey = htole16(g->pkey_table[0]);
	o->state = dev->port_state;
	o->phys_state = up ? 5 : 2;	/* LinkUp : Polling */
	o->max_mtu = g->max_mtu;
	o->active_mtu = g->active_mtu;
	o->lmc = g->lmc;
	o->sm_sl = g->sm_sl;
	o->max_vl_num = g->max_vl_num;
	o->active_width = g->active_width;
	o->active_speed = g->active_speed;
	o->link_layer = ORCA_LINK_LAYER_IB;
	return ORCA_STATUS_OK;
}

/*
 * GID i is the subnet prefix and the port GUID + i: index 0 is the
 * port's default GID, the others its alias GUIDs, assigned in order.
 */
static void gid_entry(const struct orca_cfg *g, uint32_t i, uint8_t *gid)
{
	uint64_t prefix = htobe64(g->subnet_prefix);
	uint64_t guid = htobe64(g->port_guid + i);

	memcpy(gid, &prefix, 8);
	memcpy(gid + 8, &guid, 8);
}

/* Common checks of the table queries; returns the entry count or < 0. */
static int table_range(struct cmd *c, const struct orca_query_table_in *in,
		       const struct orca_cfg *g, uint64_t len,
		       unsigned int esize)
{
	uint32_t start = le32toh(in->start);
	uint32_t n = c->out_size / esize;

	if (!all_zero(in->reserved, sizeof(in->reserved)))
		return -fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RESERVED_NZ,
			     "reserved field 'in->reserved' not zero");
	if (!in->port || in->port > g->phys_port_cnt)
		return -fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			     "port %u not in 1..%llu", in->port,
			     (unsigned long long)g->phys_port_cnt);
	if (!n || c->out_size % esize || start >= len || n > len - start)
		return -fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			     "entries %u + %u bytes / %u not inside a table of %llu",
			     start, c->out_size, esize,
			     (unsigned long long)len);
	return n;
}

static int cmd_query_gid_table(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_query_table_in *in = c->in;
	int n = table_range(c, in, &dev->cfg, dev->cfg.gid_tbl_len,
			    ORCA_GID_LEN);
	uint8_t *o = c->out;
	int i;

	if (n < 0)
		return -n;
	for (i = 0; i < n; i++)
		gid_entry(&dev->cfg, le32toh(in->start) + i,
			  o + i * ORCA_GID_LEN);
	return ORCA_STATUS_OK;
}

static int cmd_query_pkey_table(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_query_table_in *in = c->in;
	const struct orca_cfg *g = &dev->cfg;
	int n = table_range(c, in, g, g->pkey_tbl_len, sizeof(__le16));
	__le16 *o = c->out;
	uint32_t idx;
	int i;

	if (n < 0)
		return -n;
	for (i = 0; i < n; i++) {
		idx = le32toh(in->start) + i;
		/* entries past the configured list are 0: no partition */
		o[i] = htole16(idx < g->n_pkey_table ? g->pkey_table[idx] : 0);
	}
	return ORCA_STATUS_OK;
}

/* ---- PD / CQ ---- */

static int cmd_alloc_pd(struct orca_dev *dev, struct cmd *c)
{
	struct orca_pd_handle *o = c->out;
	uint32_t pdn;

	if (dev->n_pds >= dev->cfg.max_pd)
		return fail(c, ORCA_STATUS_NO_RESOURCES, ORCA_SYND_LIMIT,
			    "max_pd %llu reached",
			    (unsigned long long)dev->cfg.max_pd);
	pdn = rr_next(&dev->next_pdn, 1, dev->cfg.max_pd + 1, pd_busy, dev);
	dev->pds[pdn].used = true;
	dev->pds[pdn].qp_refs = 0;
	dev->n_pds++;
	o->pdn = htole32(pdn);
	return ORCA_STATUS_OK;
}

static int cmd_dealloc_pd(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_pd_handle *in = c->in;
	uint32_t pdn = le32toh(in->pdn);
	struct orca_pd *pd;

	CHECK_RESERVED(c, in->reserved);
	pd = pd_get(dev, pdn);
	if (!pd)
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no PD %u", pdn);
	if (pd->qp_refs)
		return fail(c, ORCA_STATUS_BAD_RES_STATE, ORCA_SYND_IN_USE,
			    "PD %u still has %u QPs", pdn, pd->qp_refs);
	pd->used = false;
	dev->n_pds--;
	return ORCA_STATUS_OK;
}

static int cmd_create_cq(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_create_cq_in *in = c->in;
	struct orca_create_cq_out *o = c->out;
	uint32_t cqe = le32toh(in->cqe);
	uint32_t vec = le32toh(in->comp_vector);
	uint32_t cqn, actual;

	CHECK_RESERVED(c, in->reserved);
	if (!cqe || cqe > dev->cfg.max_cqe)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "cqe %u not in 1..%llu", cqe,
			    (unsigned long long)dev->cfg.max_cqe);
	if (vec >= dev->cfg.num_comp_vectors)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "comp_vector %u >= num_comp_vectors %llu", vec,
			    (unsigned long long)dev->cfg.num_comp_vectors);
	if (dev->n_cqs >= dev->cfg.max_cq)
		return fail(c, ORCA_STATUS_NO_RESOURCES, ORCA_SYND_LIMIT,
			    "max_cq %llu reached",
			    (unsigned long long)dev->cfg.max_cq);
	/* ring of 2^n entries, one kept empty: 2^n - 1 usable, >= cqe */
	actual = roundup_pow2(cqe + 1) - 1;
	if (actual > dev->cfg.max_cqe)
		actual = dev->cfg.max_cqe;
	cqn = rr_next(&dev->next_cqn, 1, dev->cfg.max_cq + 1, cq_busy, dev);
	dev->cqs[cqn] = (struct orca_cq){ .used = true, .cqe = actual,
					  .comp_vector = vec };
	dev->n_cqs++;
	o->cqn = htole32(cqn);
	o->cqe = htole32(actual);
	return ORCA_STATUS_OK;
}

static int cmd_destroy_cq(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_cq_handle *in = c->in;
	uint32_t cqn = le32toh(in->cqn);
	struct orca_cq *cq;

	CHECK_RESERVED(c, in->reserved);
	cq = cq_get(dev, cqn);
	if (!cq)
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no CQ %u", cqn);
	if (cq->qp_refs)
		return fail(c, ORCA_STATUS_BAD_RES_STATE, ORCA_SYND_IN_USE,
			    "CQ %u still used by %u QP queues", cqn,
			    cq->qp_refs);
	cq->used = false;
	dev->n_cqs--;
	return ORCA_STATUS_OK;
}

/* ---- QP ---- */

static uint32_t qp_type_cap(unsigned int type)
{
	switch (type) {
	case ORCA_QPT_RC:
		return ORCA_DEV_CAP_RC;
	case ORCA_QPT_UC:
		return ORCA_DEV_CAP_UC;
	case ORCA_QPT_UD:
		return ORCA_DEV_CAP_UD;
	}
	return 0;
}

/* Work request and inline limits: range check, then device rounding. */
static int qp_caps(struct orca_dev *dev, struct cmd *c,
		   const struct orca_create_qp_in *in, struct orca_qp_ctx *ctx)
{
	const struct orca_cfg *g = &dev->cfg;
	uint32_t swr = le32toh(in->max_send_wr);
	uint32_t rwr = le32toh(in->max_recv_wr);
	uint32_t ssge = le32toh(in->max_send_sge);
	uint32_t rsge = le32toh(in->max_recv_sge);
	uint32_t inl = le32toh(in->max_inline_data);

	if (swr > g->max_qp_wr || rwr > g->max_qp_wr)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "max_send_wr %u / max_recv_wr %u > max_qp_wr %llu",
			    swr, rwr, (unsigned long long)g->max_qp_wr);
	if (ssge > g->max_send_sge || rsge > g->max_recv_sge)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "max_send_sge %u / max_recv_sge %u over limit", ssge,
			    rsge);
	if (inl > g->max_inline_data)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "max_inline_data %u > %llu", inl,
			    (unsigned long long)g->max_inline_data);
	swr = roundup_pow2(swr);
	rwr = roundup_pow2(rwr);
	if (swr > g->max_qp_wr)
		swr = g->max_qp_wr;
	if (rwr > g->max_qp_wr)
		rwr = g->max_qp_wr;
	inl = (inl + 15) & ~15U;
	if (inl > g->max_inline_data)
		inl = g->max_inline_data;
	ctx->max_send_wr = htole32(swr);
	ctx->max_recv_wr = htole32(rwr);
	ctx->max_send_sge = htole32(ssge);
	ctx->max_recv_sge = htole32(rsge);
	ctx->max_inline_data = htole32(inl);
	return ORCA_STATUS_OK;
}

static int cmd_create_qp(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_create_qp_in *in = c->in;
	uint32_t flags = le32toh(in->create_flags);
	uint32_t pdn = le32toh(in->pdn);
	uint32_t scqn = le32toh(in->send_cqn), rcqn = le32toh(in->recv_cqn);
	struct orca_qp_ctx ctx;
	struct orca_qp *qp;
	uint32_t qpn;
	int ret;

	CHECK_RESERVED(c, in->reserved0);
	CHECK_RESERVED(c, in->reserved1);
	if (!qp_type_cap(in->qp_type))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_QP_TYPE,
			    "unknown QP type %u", in->qp_type);
	if (!(dev->cfg.dev_caps & qp_type_cap(in->qp_type)))
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_QP_TYPE,
			    "QP type %u disabled in dev_caps", in->qp_type);
	if (in->sq_sig_all > 1)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "sq_sig_all %u", in->sq_sig_all);
	if (flags & ~ORCA_QP_CREATE_PCI_WRITE_END_PADDING)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS,
			    "unknown create_flags 0x%x", flags);
	if ((flags & ORCA_QP_CREATE_PCI_WRITE_END_PADDING) &&
	    !(dev->cfg.dev_caps & ORCA_DEV_CAP_PCI_WRITE_END_PADDING))
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_FLAGS,
			    "PCI write end padding not enabled");
	if (!pd_get(dev, pdn))
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no PD %u", pdn);
	if (!cq_get(dev, scqn) || !cq_get(dev, rcqn))
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no CQ %u or %u", scqn, rcqn);

	memset(&ctx, 0, sizeof(ctx));
	ret = qp_caps(dev, c, in, &ctx);
	if (ret)
		return ret;
	if (dev->n_qps >= dev->cfg.max_qp)
		return fail(c, ORCA_STATUS_NO_RESOURCES, ORCA_SYND_LIMIT,
			    "max_qp %llu reached",
			    (unsigned long long)dev->cfg.max_qp);
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return fail(c, ORCA_STATUS_NO_RESOURCES, ORCA_SYND_NONE,
			    "out of host memory");
	qpn = rr_next(&dev->next_qpn, ORCA_QPN_BASE,
		      dev->cfg.max_qp + ORCA_QPN_BASE, qp_busy, dev);

	ctx.qpn = htole32(qpn);
	ctx.qp_type = in->qp_type;
	ctx.state = ORCA_QPS_RESET;
	ctx.sq_sig_all = in->sq_sig_all;
	ctx.path_mig_state = ORCA_MIG_MIGRATED;
	ctx.create_flags = htole32(flags);
	ctx.ece_options = htole32(dev->cfg.ece_options);
	ctx.pdn = htole32(pdn);
	ctx.send_cqn = htole32(scqn);
	ctx.recv_cqn = htole32(rcqn);
	qp->ctx = ctx;
	qp->dflt = ctx;
	dev->qps[qpn] = qp;
	dev->n_qps++;
	dev->pds[pdn].qp_refs++;
	dev->cqs[scqn].qp_refs++;
	dev->cqs[rcqn].qp_refs++;

	mirror_write(dev, qpn, &qp->ctx);
	memcpy(c->out, &qp->ctx, sizeof(qp->ctx));
	return ORCA_STATUS_OK;
}

/* Address vector of the primary (alt = false) or alternate path. */
static int check_av(struct orca_dev *dev, struct cmd *c,
		    const struct orca_av *av, bool alt)
{
	const struct orca_cfg *g = &dev->cfg;
	const char *p = alt ? "alt_av" : "av";

	/* port 0 = the QP's port */
	if (av->port > g->phys_port_cnt)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "%s.port %u", p, av->port);
	if (av->sl > 15)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "%s.sl %u > 15", p, av->sl);
	if (av->flags & ~ORCA_AV_F_GRH)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "%s.flags 0x%x", p, av->flags);
	if (le32toh(av->flow_label) > 0xfffff)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "%s.flow_label 0x%x > 0xfffff", p,
			    le32toh(av->flow_label));
	if ((av->flags & ORCA_AV_F_GRH) && av->sgid_index >= g->gid_tbl_len)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "%s.sgid_index %u >= gid_tbl_len %llu", p,
			    av->sgid_index, (unsigned long long)g->gid_tbl_len);
	if (alt && av->timeout > 31)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "alt_av.timeout %u > 31", av->timeout);
	if (alt && av->pkey_index >= g->pkey_tbl_len)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "alt_av.pkey_index %u >= %llu", av->pkey_index,
			    (unsigned long long)g->pkey_tbl_len);
	return ORCA_STATUS_OK;
}

#define RANGE(c, cond, fmt, ...)					\
	do {								\
		if (cond)						\
			return fail(c, ORCA_STATUS_BAD_PARAM,		\
				    ORCA_SYND_ATTR_RANGE, fmt, __VA_ARGS__); \
	} while (0)

/* Value checks for every attribute selected by mask. */
static int check_attrs(struct orca_dev *dev, struct cmd *c, uint32_t mask,
		       const struct orca_qp_ctx *a)
{
	const struct orca_cfg *g = &dev->cfg;
	uint32_t v;
	int ret;

	if (mask & ORCA_QP_EN_SQD_ASYNC_NOTIFY) {
		RANGE(c, a->en_sqd_async_notify > 1, "en_sqd_async_notify %u",
		      a->en_sqd_async_notify);
		if (a->en_sqd_async_notify &&
		    !(g->dev_caps & ORCA_DEV_CAP_SQD_ASYNC_NOTIFY))
			return fail(c, ORCA_STATUS_UNSUPPORTED,
				    ORCA_SYND_INVALID_ATTR,
				    "SQD async notify not enabled");
	}
	v = le32toh(a->access_flags);
	RANGE(c, (mask & ORCA_QP_ACCESS_FLAGS) &&
		 (v & ~(ORCA_ACCESS_REMOTE_WRITE | ORCA_ACCESS_REMOTE_READ |
			ORCA_ACCESS_REMOTE_ATOMIC)),
	      "access_flags 0x%x", v);
	v = le16toh(a->pkey_index);
	RANGE(c, (mask & ORCA_QP_PKEY_INDEX) && v >= g->pkey_tbl_len,
	      "pkey_index %u >= pkey_tbl_len", v);
	RANGE(c, (mask & ORCA_QP_PORT) &&
		 (!a->port || a->port > g->phys_port_cnt),
	      "port %u", a->port);
	if (mask & ORCA_QP_AV) {
		ret = check_av(dev, c, &a->av, false);
		if (ret)
			return ret;
	}
	RANGE(c, (mask & ORCA_QP_PATH_MTU) &&
		 (!a->path_mtu || a->path_mtu > g->max_mtu),
	      "path_mtu %u not in 1..%llu", a->path_mtu,
	      (unsigned long long)g->max_mtu);
	RANGE(c, (mask & ORCA_QP_TIMEOUT) && a->timeout > 31, "timeout %u",
	      a->timeout);
	RANGE(c, (mask & ORCA_QP_RETRY_CNT) && a->retry_cnt > 7,
	      "retry_cnt %u", a->retry_cnt);
	RANGE(c, (mask & ORCA_QP_RNR_RETRY) && a->rnr_retry > 7,
	      "rnr_retry %u", a->rnr_retry);
	v = le32toh(a->rq_psn);
	RANGE(c, (mask & ORCA_QP_RQ_PSN) && v > 0xffffff, "rq_psn 0x%x", v);
	RANGE(c, (mask & ORCA_QP_MAX_QP_RD_ATOMIC) &&
		 a->max_rd_atomic > g->max_qp_init_rd_atom,
	      "max_rd_atomic %u > %llu", a->max_rd_atomic,
	      (unsigned long long)g->max_qp_init_rd_atom);
	if (mask & ORCA_QP_ALT_PATH) {
		ret = check_av(dev, c, &a->alt_av, true);
		if (ret)
			return ret;
	}
	RANGE(c, (mask & ORCA_QP_MIN_RNR_TIMER) && a->min_rnr_timer > 31,
	      "min_rnr_timer %u", a->min_rnr_timer);
	v = le32toh(a->sq_psn);
	RANGE(c, (mask & ORCA_QP_SQ_PSN) && v > 0xffffff, "sq_psn 0x%x", v);
	RANGE(c, (mask & ORCA_QP_MAX_DEST_RD_ATOMIC) &&
		 a->max_dest_rd_atomic > g->max_qp_rd_atom,
	      "max_dest_rd_atomic %u > %llu", a->max_dest_rd_atomic,
	      (unsigned long long)g->max_qp_rd_atom);
	RANGE(c, (mask & ORCA_QP_PATH_MIG_STATE) &&
		 a->path_mig_state > ORCA_MIG_ARMED,
	      "path_mig_state %u", a->path_mig_state);
	v = le32toh(a->dest_qpn);
	RANGE(c, (mask & ORCA_QP_DEST_QPN) && v > 0xffffff, "dest_qpn 0x%x",
	      v);
	return ORCA_STATUS_OK;
}

static void apply_attrs(struct orca_qp_ctx *q, uint32_t mask,
			const struct orca_qp_ctx *a)
{
	if (mask & ORCA_QP_EN_SQD_ASYNC_NOTIFY)
		q->en_sqd_async_notify = a->en_sqd_async_notify;
	if (mask & ORCA_QP_ACCESS_FLAGS)
		q->access_flags = a->access_flags;
	if (mask & ORCA_QP_PKEY_INDEX)
		q->pkey_index = a->pkey_index;
	if (mask & ORCA_QP_PORT)
		q->port = a->port;
	if (mask & ORCA_QP_QKEY)
		q->qkey = a->qkey;
	if (mask & ORCA_QP_AV)
		q->av = a->av;
	if (mask & ORCA_QP_PATH_MTU)
		q->path_mtu = a->path_mtu;
	if (mask & ORCA_QP_TIMEOUT)
		q->timeout = a->timeout;
	if (mask & ORCA_QP_RETRY_CNT)
		q->retry_cnt = a->retry_cnt;
	if (mask & ORCA_QP_RNR_RETRY)
		q->rnr_retry = a->rnr_retry;
	if (mask & ORCA_QP_RQ_PSN)
		q->rq_psn = a->rq_psn;
	if (mask & ORCA_QP_MAX_QP_RD_ATOMIC)
		q->max_rd_atomic = a->max_rd_atomic;
	if (mask & ORCA_QP_ALT_PATH)
		q->alt_av = a->alt_av;
	if (mask & ORCA_QP_MIN_RNR_TIMER)
		q->min_rnr_timer = a->min_rnr_timer;
	if (mask & ORCA_QP_SQ_PSN)
		q->sq_psn = a->sq_psn;
	if (mask & ORCA_QP_MAX_DEST_RD_ATOMIC)
		q->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & ORCA_QP_PATH_MIG_STATE)
		q->path_mig_state = a->path_mig_state;
	if (mask & ORCA_QP_DEST_QPN)
		q->dest_qpn = a->dest_qpn;
}

static int cmd_modify_qp(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_modify_qp_in *in = c->in;
	uint32_t qpn = le32toh(in->qpn);
	uint32_t mask = le32toh(in->attr_mask);
	uint32_t flags = le32toh(in->flags);
	struct orca_qp_ctx next;
	struct orca_qp *qp;
	unsigned int cur, to;
	const char *why;
	uint32_t synd;
	int ret;

	CHECK_RESERVED(c, in->reserved0);
	CHECK_RESERVED(c, in->reserved1);
	CHECK_RESERVED(c, in->ctx.reserved);
	if (flags & ~ORCA_MODIFY_F_ECE)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS,
			    "unknown MODIFY_QP flags 0x%x", flags);
	if (mask & ~ORCA_QP_ATTR_ALL)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_INVALID_ATTR,
			    "unknown attr_mask bits 0x%x", mask);
	qp = qp_get(dev, qpn);
	if (!qp)
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no QP %u", qpn);
	if ((flags & ORCA_MODIFY_F_ECE) && !orca_cfg_has_ece(&dev->cfg))
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_ECE,
			    "ECE requested but not enabled");

	cur = qp->ctx.state;
	if (mask & ORCA_QP_CUR_STATE) {
		if (in->cur_state > ORCA_QPS_ERR)
			return fail(c, ORCA_STATUS_BAD_PARAM,
				    ORCA_SYND_ATTR_RANGE, "cur_state %u",
				    in->cur_state);
		if (in->cur_state != cur)
			return fail(c, ORCA_STATUS_BAD_QP_STATE,
				    ORCA_SYND_TRANSITION,
				    "QP %u: cur_state %s but QP is %s", qpn,
				    orca_qps_name(in->cur_state),
				    orca_qps_name(cur));
	}
	to = (mask & ORCA_QP_STATE) ? in->ctx.state : cur;
	if (to > ORCA_QPS_ERR)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "state %u", to);
	ret = orca_qp_check_transition(qp->ctx.qp_type, cur, to, mask, &synd,
				       &why);
	if (ret)
		return fail(c, ret, synd, "QP %u %s %s->%s mask 0x%x: %s", qpn,
			    qp->ctx.qp_type == ORCA_QPT_RC ? "RC" :
			    qp->ctx.qp_type == ORCA_QPT_UC ? "UC" : "UD",
			    orca_qps_name(cur), orca_qps_name(to), mask, why);
	/* IBTA: SQD attributes may change only once the SQ has drained. */
	if (cur == ORCA_QPS_SQD && to == ORCA_QPS_SQD && qp->ctx.sq_draining)
		return fail(c, ORCA_STATUS_BAD_QP_STATE, ORCA_SYND_TRANSITION,
			    "QP %u: SQD->SQD while the SQ is still draining",
			    qpn);
	ret = check_attrs(dev, c, mask, &in->ctx);
	if (ret)
		return ret;

	if (to == ORCA_QPS_RESET) {
		next = qp->dflt;
	} else {
		next = qp->ctx;
		apply_attrs(&next, mask, &in->ctx);
		next.state = to;
	}
	if (cur == ORCA_QPS_RTS && to == ORCA_QPS_SQD) {
		next.sq_draining = 1;
		if (!(mask & ORCA_QP_EN_SQD_ASYNC_NOTIFY))
			next.en_sqd_async_notify = 0;
	} else if (to != ORCA_QPS_SQD) {
		next.sq_draining = 0;
	}
	/* ECE is negotiated while the connection is being established. */
	if ((flags & ORCA_MODIFY_F_ECE) &&
	    ((cur == ORCA_QPS_INIT && to == ORCA_QPS_RTR) ||
	     (cur == ORCA_QPS_RTR && to == ORCA_QPS_RTS)))
		next.ece_options = htole32(le32toh(in->ece_options) &
					   dev->cfg.ece_options);

	if (next.sq_draining && !qp->ctx.sq_draining)
		dev->n_draining++;
	else if (!next.sq_draining && qp->ctx.sq_draining)
		dev->n_draining--;
	qp->ctx = next;
	mirror_write(dev, qpn, &qp->ctx);
	memcpy(c->out, &qp->ctx, sizeof(qp->ctx));
	return ORCA_STATUS_OK;
}

static int cmd_query_qp(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_qp_handle *in = c->in;
	uint32_t qpn = le32toh(in->qpn);
	struct orca_qp *qp;

	CHECK_RESERVED(c, in->reserved);
	qp = qp_get(dev, qpn);
	if (!qp)
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no QP %u", qpn);
	memcpy(c->out, &qp->ctx, sizeof(qp->ctx));
	return ORCA_STATUS_OK;
}

static int cmd_destroy_qp(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_qp_handle *in = c->in;
	uint32_t qpn = le32toh(in->qpn);
	struct orca_qp *qp;

	CHECK_RESERVED(c, in->reserved);
	qp = qp_get(dev, qpn);
	if (!qp)
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no QP %u", qpn);
	dev->pds[le32toh(qp->ctx.pdn)].qp_refs--;
	dev->cqs[le32toh(qp->ctx.send_cqn)].qp_refs--;
	dev->cqs[le32toh(qp->ctx.recv_cqn)].qp_refs--;
	if (qp->ctx.sq_draining)
		dev->n_draining--;
	free(qp);
	dev->qps[qpn] = NULL;
	dev->n_qps--;
	mirror_write(dev, qpn, NULL);
	return ORCA_STATUS_OK;
}

/* ---- dispatch ---- */

struct cmd_desc {
	uint16_t in_size, out_size;
	bool need_init;		/* only after INIT */
	int (*fn)(struct orca_dev *dev, struct cmd *c);
};

static const struct cmd_desc cmd_table[256] = {
	[ORCA_CMD_RESET] = { 0, 0, false, cmd_reset },
	[ORCA_CMD_INIT] = { sizeof(struct orca_init_in), 0, false, cmd_init },
	[ORCA_CMD_TEARDOWN] = { 0, 0, false, cmd_teardown },
	[ORCA_CMD_QUERY_CAPS] = { 0, sizeof(struct orca_caps), false,
				  cmd_query_caps },
	[ORCA_CMD_QUERY_PORT] = { sizeof(struct orca_query_port_in),
				  sizeof(struct orca_port_attr), false,
				  cmd_query_port },
	/* table queries return as many entries as out_len asks for */
	[ORCA_CMD_QUERY_GID_TABLE] = { sizeof(struct orca_query_table_in),
				       ORCA_MBOX_SIZE, false,
				       cmd_query_gid_table },
	[ORCA_CMD_QUERY_PKEY_TABLE] = { sizeof(struct orca_query_table_in),
					ORCA_MBOX_SIZE, false,
					cmd_query_pkey_table },
	[ORCA_CMD_ALLOC_PD] = { 0, sizeof(struct orca_pd_handle), true,
				cmd_alloc_pd },
	[ORCA_CMD_DEALLOC_PD] = { sizeof(struct orca_pd_handle), 0, true,
				  cmd_dealloc_pd },
	[ORCA_CMD_CREATE_CQ] = { sizeof(struct orca_create_cq_in),
				 sizeof(struct orca_create_cq_out), true,
				 cmd_create_cq },
	[ORCA_CMD_DESTROY_CQ] = { sizeof(struct orca_cq_handle), 0, true,
				  cmd_destroy_cq },
	[ORCA_CMD_CREATE_QP] = { sizeof(struct orca_create_qp_in),
				 sizeof(struct orca_qp_ctx), true,
				 cmd_create_qp },
	[ORCA_CMD_MODIFY_QP] = { sizeof(struct orca_modify_qp_in),
				 sizeof(struct orca_qp_ctx), true,
				 cmd_modify_qp },
	[ORCA_CMD_QUERY_QP] = { sizeof(struct orca_qp_handle),
				sizeof(struct orca_qp_ctx), true,
				cmd_query_qp },
	[ORCA_CMD_DESTROY_QP] = { sizeof(struct orca_qp_handle), 0, true,
				  cmd_destroy_qp },
};

/*
 * Transport checks common to every command: lengths, addresses, state.
 * Inputs may be longer than the device knows if the tail is zero; the
 * output is cut to what the driver offers (orca_hw.h, "Payload lengths").
 */
static int cmd_prepare(struct orca_dev *dev, struct cmd *c,
		       const struct orca_cmdq_entry *e,
		       const struct cmd_desc *d)
{
	if (!d->fn)
		return fail(c, ORCA_STATUS_BAD_OPCODE, ORCA_SYND_NONE,
			    "unknown opcode");
	if (e->reserved)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RESERVED_NZ,
			    "cmdq entry reserved field not zero");
	if (c->in_len < d->in_size || c->in_len > ORCA_MBOX_SIZE)
		return fail(c, ORCA_STATUS_BAD_LEN, ORCA_SYND_IN_LEN,
			    "in_len %u, command takes %u (at most %u)",
			    c->in_len, d->in_size, ORCA_MBOX_SIZE);
	if (c->in_len && !c->in_mbox) {
		if (c->in_len > ORCA_CMD_INLINE_IN)
			return fail(c, ORCA_STATUS_BAD_LEN, ORCA_SYND_IN_LEN,
				    "in_len %u needs an input mailbox",
				    c->in_len);
		memcpy(dev->in_buf, e->inline_in, c->in_len);
	} else if (c->in_len &&
		   dma_read(dev, c->in_mbox, dev->in_buf, c->in_len)) {
		return fail(c, ORCA_STATUS_DMA_FAULT, ORCA_SYND_IN_ADDR,
			    "in_mbox 0x%llx + %u outside host memory",
			    (unsigned long long)c->in_mbox, c->in_len);
	}
	if (!all_zero(dev->in_buf + d->in_size, c->in_len - d->in_size))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RESERVED_NZ,
			    "input beyond the %u bytes this device knows is not zero",
			    d->in_size);
	c->out_size = c->out_len < d->out_size ? c->out_len : d->out_size;
	if (c->out_size > ORCA_CMD_INLINE_OUT && !c->out_mbox)
		return fail(c, ORCA_STATUS_BAD_LEN, ORCA_SYND_OUT_LEN,
			    "output of %u bytes needs an output mailbox",
			    c->out_size);
	/* Refuse a bad output address before the command has side effects. */
	if (c->out_size && c->out_mbox &&
	    !dma_ok(dev, c->out_mbox, c->out_size)) {
		dev->stats.bad_addr++;
		return fail(c, ORCA_STATUS_DMA_FAULT, ORCA_SYND_OUT_ADDR,
			    "out_mbox 0x%llx + %u outside host memory",
			    (unsigned long long)c->out_mbox, c->out_size);
	}
	if (d->need_init && dev->state != ORCA_DEV_S_ACTIVE)
		return fail(c, ORCA_STATUS_NOT_READY, ORCA_SYND_NOT_INIT,
			    "device not initialized (INIT first)");
	return ORCA_STATUS_OK;
}

/* Execute one consumed entry and build its completion. */
static void cmd_execute(struct orca_dev *dev, const struct orca_cmdq_entry *e,
			struct orca_cpl *cpl)
{
	struct orca_eqe_cmd_done *done = &cpl->eqe.cmd;
	const struct cmd_desc *d;
	struct cmd c = { 0 };
	uint32_t out_written = 0;

	c.opcode = le16toh(e->opcode);
	c.token = le16toh(e->token);
	c.in_len = le16toh(e->in_len);
	c.out_len = le16toh(e->out_len);
	c.in_mbox = le64toh(e->in_mbox);
	c.out_mbox = le64toh(e->out_mbox);
	c.in = dev->in_buf;
	c.out = dev->out_buf;
	d = &cmd_table[c.opcode & 0xff];
	if (c.opcode > 0xff)
		d = &cmd_table[0];	/* empty slot: BAD_OPCODE */

	/* completion of a command issued while MSI-X was on raises MSI-X */
	memset(cpl, 0, sizeof(*cpl));
	cpl->opcode = c.opcode;
	cpl->irq = dev->irq_enabled;

	dev->stats.cmds++;
	if (c.opcode <= 0xff)
		dev->stats.per_opcode[c.opcode]++;
	if (!cmd_prepare(dev, &c, e, d)) {
		/* handlers fill the whole struct; the driver gets out_size */
		memset(dev->out_buf, 0, d->out_size);
		c.status = d->fn(dev, &c);
	}
	if (!c.status && c.out_size) {
		if (!c.out_mbox)
			memcpy(done->inline_out, dev->out_buf, c.out_size);
		else if (dma_write(dev, c.out_mbox, dev->out_buf, c.out_size))
			fail(&c, ORCA_STATUS_DMA_FAULT, ORCA_SYND_OUT_ADDR,
			     "out_mbox vanished");	/* checked above */
		else
			dev->stats.dma_writes++;
		if (!c.status)
			out_written = c.out_size;
	}
	if (c.status) {
		dev->stats.cmds_failed++;
		orca_log("cmd %s (0x%02x) token %u rejected: status %s (0x%02x) syndrome %s (%u): %s",
			 orca_opcode_name(c.opcode), c.opcode, c.token,
			 orca_status_name(c.status), c.status,
			 orca_synd_name(c.synd), c.synd, c.why);
	}
	cpl->eqe.type = ORCA_EQE_CMD_DONE;
	done->token = htole16(c.token);
	done->status = c.status;
	done->syndrome = htole32(c.synd);
	done->out_len = htole16(out_written);
}

/* ------------------------------------------------------------------ */
/* Command queue processing and completion posting                    */
/* ------------------------------------------------------------------ */

/* Post one completion.  0 = in the EQ, else it must stay pending. */
static int post_cpl(struct orca_dev *dev, const struct orca_cpl *cpl)
{
	int ret;

	/* after TEARDOWN only the completions up to its own may be DMAed */
	if (dev->state == ORCA_DEV_S_TORN_DOWN && !dev->teardown_cpl_pending)
		return -ENODEV;
	if (dev->fatal)
		return -ENODEV;
	ret = eq_post(dev, &cpl->eqe);
	if (ret)
		return ret;
	dev->stats.completions++;
	dev->irq_pending |= cpl->irq;
	if (cpl->opcode == ORCA_CMD_TEARDOWN)
		finish_teardown(dev);
	return 0;
}

static void flush_pending(struct orca_dev *dev)
{
	unsigned int i = 0;

	while (i < dev->n_pending && dev->pending[i].due <= dev->ticks &&
	       !post_cpl(dev, &dev->pending[i]))
		i++;
	if (!i)
		return;
	memmove(dev->pending, dev->pending + i,
		(dev->n_pending - i) * sizeof(dev->pending[0]));
	dev->n_pending -= i;
}

/*
 * Post the completions of one batch: in order, or reversed with
 * --reverse-completions.  A RESET or TEARDOWN ends its batch and is always
 * completed last, so that no completion of an older command follows it.
 */
static void post_batch(struct orca_dev *dev, unsigned int n)
{
	unsigned int i, k, last_barrier;

	last_barrier = n && (dev->batch[n - 1].opcode == ORCA_CMD_RESET ||
			     dev->batch[n - 1].opcode == ORCA_CMD_TEARDOWN);
	for (k = 0; k < n; k++) {
		i = k;
		if (dev->reverse_completions) {
			unsigned int m = n - last_barrier;

			i = k < m ? m - 1 - k : k;
		}
		/* a slow device (ctl "cmd-delay") holds each completion */
		dev->batch[i].due = dev->ticks + dev->cmd_delay_ticks;
		if (dev->n_pending || dev->cmd_delay_ticks ||
		    post_cpl(dev, &dev->batch[i])) {
			if (dev->fatal)
				return;
			if (!dev->n_pending && !dev->cmd_delay_ticks)
				dev->stats.eq_full++;
			dev->pending[dev->n_pending++] = dev->batch[i];
		}
	}
}

/* Copy entries ci..pi (up to and including a RESET/TEARDOWN). */
static unsigned int cmdq_consume(struct orca_dev *dev, uint64_t base,
				 uint32_t depth, uint32_t pi,
				 struct orca_cmdq_entry *ents)
{
	unsigned int n = 0;

	while (dev->cmdq_ci != pi) {
		struct orca_cmdq_entry *e = &ents[n++];
		uint16_t op;

		/* ring_ok() covered the whole ring */
		dma_read(dev, base + (uint64_t)(dev->cmdq_ci & (depth - 1)) * 64,
			 e, sizeof(*e));
		dev->cmdq_ci++;
		op = le16toh(e->opcode);
		if (op == ORCA_CMD_RESET || op == ORCA_CMD_TEARDOWN)
			break;
	}
	REG_WR32(dev, cmdq_ci, dev->cmdq_ci);
	return n;
}

/* Latched ring, current cmdq_pi; false if there is nothing (valid) to do. */
static bool cmdq_regs(struct orca_dev *dev, uint64_t *base, uint32_t *depth,
		      uint32_t *pi)
{
	uint32_t log_depth;

	*pi = REG_RD32(dev, cmdq_pi);
	if (*pi == dev->cmdq_ci)
		return false;
	*base = dev->cmdq_base;
	log_depth = dev->cmdq_log_depth;
	if (!dev->latched || !*base)
		return false;	/* not enabled (or after TEARDOWN) */
	if (!dev->ram) {
		orca_log("cmdq doorbell but host memory is not mapped yet");
		return false;
	}
	if (!log_depth || log_depth > ORCA_CMDQ_MAX_LOG_DEPTH ||
	    !ring_ok(dev, *base, log_depth)) {
		char why[96];

		dev->stats.bad_addr++;
		snprintf(why, sizeof(why),
			 "cmdq base 0x%llx log_depth %u unusable",
			 (unsigned long long)*base, log_depth);
		go_fatal(dev, ORCA_FATAL_DMA, why);
		return false;
	}
	*depth = 1U << log_depth;
	if (*pi - dev->cmdq_ci > *depth) {
		if (dev->bad_pi_logged != *pi)
			orca_log("cmdq_pi %u - cmdq_ci %u > depth %u: doorbell ignored",
				 *pi, dev->cmdq_ci, *depth);
		dev->bad_pi_logged = *pi;
		return false;
	}
	return true;
}

static void process_cmdq(struct orca_dev *dev)
{
	struct orca_cmdq_entry *ents = dev->ents;
	uint32_t depth, pi;
	uint64_t base;

	/*
	 * Consume everything available; stop while completions are stuck
	 * (EQ full) so that the device never holds more than one batch.
	 */
	while (!dev->fatal && !dev->n_pending &&
	       cmdq_regs(dev, &base, &depth, &pi)) {
		unsigned int n = cmdq_consume(dev, base, depth, pi, ents);
		unsigned int i, nc = 0;

		for (i = 0; i < n && !dev->fatal; i++) {
			if (dev->state == ORCA_DEV_S_TORN_DOWN &&
			    le16toh(ents[i].opcode) != ORCA_CMD_RESET) {
				orca_log("cmd %s token %u dropped: device torn down, RESET required",
					 orca_opcode_name(le16toh(ents[i].opcode)),
					 le16toh(ents[i].token));
				continue;
			}
			cmd_execute(dev, &ents[i], &dev->batch[nc++]);
		}
		if (!dev->fatal)
			post_batch(dev, nc);
	}
}

/* ------------------------------------------------------------------ */
/* Entry points                                                       */
/* ------------------------------------------------------------------ */

/*
 * Function reset (dev_ctl): stop everything, forget every address the
 * driver gave us, and only then say so.  Also clears a fatal state.
 */
static void func_reset(struct orca_dev *dev)
{
	destroy_all(dev);
	disarm(dev);
	dev->n_pending = 0;
	dev->teardown_cpl_pending = false;
	dev->state = ORCA_DEV_S_RESET;
	dev->port_state = ORCA_PORT_ACTIVE;
	dev->latched = false;
	dev->cmdq_base = dev->eq_base = 0;
	dev->cmdq_log_depth = dev->eq_log_depth = 0;
	dev->fatal = false;
	dev->irq_pending = false;
	REG_WR32(dev, fatal_syndrome, 0);
	REG_WR32(dev, health, ORCA_HEALTH_OK);
	dev->stats.func_resets++;
	orca_log("function reset: objects destroyed, queues forgotten, no DMA until enabled");
	REG_WR32(dev, dev_sts, ORCA_DEV_STS_RESET_DONE);
}

/* A ring at address 0 is not programmed (yet, or again after TEARDOWN). */
static void latch_queues(struct orca_dev *dev)
{
	if (!REG_RD64(dev, cmdq_base))
		return;
	dev->cmdq_base = REG_RD64(dev, cmdq_base);
	dev->cmdq_log_depth = REG_RD32(dev, cmdq_log_depth);
	dev->eq_base = REG_RD64(dev, eq_base);
	dev->eq_log_depth = REG_RD32(dev, eq_log_depth);
	dev->latched = true;
	orca_log("queues enabled: cmdq 0x%llx x 2^%u, eq 0x%llx x 2^%u",
		 (unsigned long long)dev->cmdq_base, dev->cmdq_log_depth,
		 (unsigned long long)dev->eq_base, dev->eq_log_depth);
	REG_WR32(dev, dev_sts, ORCA_DEV_STS_ENABLED);
}

/* dev_ctl comes before any other work, stale work included. */
static void dev_ctl_check(struct orca_dev *dev)
{
	uint32_t ctl = REG_RD32(dev, dev_ctl);

	if (ctl & ORCA_DEV_CTL_RESET) {
		if (!(REG_RD32(dev, dev_sts) & ORCA_DEV_STS_RESET_DONE))
			func_reset(dev);
	} else if ((ctl & ORCA_DEV_CTL_ENABLE) && !dev->latched) {
		latch_queues(dev);
	}
}

void orca_dev_doorbell(struct orca_dev *dev, unsigned int vec)
{
	if (dev->hung)
		return;
	dev->stats.doorbells++;
	dev_ctl_check(dev);
	if (dev->fatal || !dev->latched)
		return;
	flush_pending(dev);
	if (vec == ORCA_FW_VEC_CMDQ)
		process_cmdq(dev);
	flush_irq(dev);
}

static void sqd_drain(struct orca_dev *dev)
{
	uint32_t qpn;

	for (qpn = ORCA_QPN_BASE;
	     dev->n_draining && qpn < dev->cfg.max_qp + ORCA_QPN_BASE; qpn++) {
		struct orca_qp *qp = dev->qps[qpn];
		uint32_t seq;

		if (!qp || !qp->ctx.sq_draining)
			continue;
		qp->ctx.sq_draining = 0;
		dev->n_draining--;
		seq = mirror_write(dev, qpn, &qp->ctx);
		if (qp->ctx.en_sqd_async_notify)
			post_qp_event(dev, qpn, ORCA_QP_EV_SQ_DRAINED,
				      qp->ctx.state, seq);
	}
}

void orca_dev_tick(struct orca_dev *dev)
{
	uint64_t hb;

	if (dev->hung) {
		if (!dev->stall_ticks || --dev->stall_ticks)
			return;
		dev->hung = false;
		orca_log("stall over: resuming");
	}
	dev->ticks++;
	hb = REG_RD64(dev, heartbeat);
	REG_WR64(dev, heartbeat, hb + 1);
	dev_ctl_check(dev);
	if (dev->fatal || !dev->latched)
		return;
	flush_pending(dev);
	if (dev->n_draining)
		sqd_drain(dev);
	flush_irq(dev);
}

static void reset_regs(struct orca_dev *dev)
{
	struct orca_regs *r = dev->regs;

	r->cmdq_base = 0;
	r->cmdq_log_depth = 0;
	r->cmdq_pi = 0;
	r->cmdq_ci = 0;
	r->eq_log_depth = 0;
	r->eq_base = 0;
	r->eq_pi = 0;
	r->eq_ci = 0;
	r->qp_mirror_base = 0;
	r->qp_mirror_entries = 0;
	r->eq_overflows = 0;
	r->fatal_syndrome = 0;
	r->dev_ctl = 0;
	r->dev_sts = 0;
	r->health = htole32(ORCA_HEALTH_OK);
}

void orca_dev_connect(struct orca_dev *dev)
{
	destroy_all(dev);
	disarm(dev);
	reset_regs(dev);
	dev->state = ORCA_DEV_S_RESET;
	dev->fatal = dev->hung = dev->irq_pending = false;
	dev->stall_ticks = dev->ticks = dev->cmd_delay_ticks = 0;
	dev->reuse_handles = false;
	memset(&dev->lie, 0, sizeof(dev->lie));
	dev->latched = false;
	dev->cmdq_base = dev->eq_base = 0;
	dev->cmdq_log_depth = dev->eq_log_depth = 0;
	dev->teardown_cpl_pending = false;
	dev->cmdq_ci = dev->eq_pi = dev->eq_overflows = 0;
	dev->bad_pi_logged = 0;
	dev->n_pending = 0;
	dev->n_draining = 0;
	dev->port_state = ORCA_PORT_ACTIVE;
	dev->next_pdn = dev->next_cqn = dev->next_qpn = 0;
	memset(dev->mirror_seq, 0,
	       (dev->cfg.max_qp + ORCA_QPN_BASE) * sizeof(*dev->mirror_seq));
	memset(&dev->stats, 0, sizeof(dev->stats));
	REG_WR64(dev, generation, REG_RD64(dev, generation) + 1);
}

void orca_dev_disconnect(struct orca_dev *dev)
{
	destroy_all(dev);
	disarm(dev);
	dev->n_pending = 0;
	dev->n_draining = 0;
	dev->state = ORCA_DEV_S_RESET;
	dev->latched = false;
	orca_dev_set_ram(dev, NULL, 0);
}

void orca_dev_set_ram(struct orca_dev *dev, uint8_t *ram, uint64_t size)
{
	dev->ram = ram;
	dev->ram_size = ram ? size : 0;
	orca_memmap_init(&dev->map, dev->cfg.guest_machine, dev->ram_size,
			 dev->cfg.ram_below_4g);
	REG_WR64(dev, ram_size, dev->ram_size);
}

int orca_dev_init(struct orca_dev *dev, const struct orca_cfg *cfg,
		  struct orca_regs *regs,
		  void (*raise_irq)(void *priv, unsigned int vec),
		  void *irq_priv)
{
	size_t nqp = cfg->max_qp + ORCA_QPN_BASE;

	memset(dev, 0, sizeof(*dev));
	dev->cfg = *cfg;
	dev->regs = regs;
	dev->raise_irq = raise_irq;
	dev->irq_priv = irq_priv;
	dev->pds = calloc(cfg->max_pd + 1, sizeof(*dev->pds));
	dev->cqs = calloc(cfg->max_cq + 1, sizeof(*dev->cqs));
	dev->qps = calloc(nqp, sizeof(*dev->qps));
	dev->mirror_seq = calloc(nqp, sizeof(*dev->mirror_seq));
	if (!dev->pds || !dev->cqs || !dev->qps || !dev->mirror_seq) {
		orca_dev_destroy(dev);
		return -ENOMEM;
	}

	memset(regs, 0, sizeof(*regs));
	regs->if_version = htole32(ORCA_IF_VERSION);
	regs->fw_peer_id = htole32(0);
	regs->fw_version = htole64(cfg->fw_version);
	regs->health = htole32(ORCA_HEALTH_OK);
	memcpy(regs->fw_name, cfg->fw_name, sizeof(regs->fw_name));
	regs->fw_name[sizeof(regs->fw_name) - 1] = '\0';
	dev->port_state = ORCA_PORT_ACTIVE;
	/* magic last: a driver that sees it sees a complete block */
	REG_WR64(dev, magic, ORCA_MAGIC);
	return 0;
}

void orca_dev_destroy(struct orca_dev *dev)
{
	if (dev->qps)
		destroy_all(dev);
	free(dev->pds);
	free(dev->cqs);
	free(dev->qps);
	free(dev->mirror_seq);
	dev->pds = NULL;
	dev->cqs = NULL;
	dev->qps = NULL;
	dev->mirror_seq = NULL;
}

/* ------------------------------------------------------------------ */
/* Test hooks                                                         */
/* ------------------------------------------------------------------ */

static int hook_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int hook_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* A device-initiated state change: mirror first, then the event. */
static void qp_async_state(struct orca_dev *dev, uint32_t qpn,
			   struct orca_qp *qp, uint8_t state, uint8_t event)
{
	uint32_t seq;

	if (qp->ctx.sq_draining)
		dev->n_draining--;
	qp->ctx.sq_draining = 0;
	qp->ctx.state = state;
	seq = mirror_write(dev, qpn, &qp->ctx);
	post_qp_event(dev, qpn, event, state, seq);
	flush_irq(dev);
}

int orca_dev_hook_qp_fatal(struct orca_dev *dev, uint32_t qpn, char *err,
			   size_t errlen)
{
	struct orca_qp *qp = qp_get(dev, qpn);

	if (!qp)
		return hook_err(err, errlen, "no QP %u", qpn);
	if (qp->ctx.state == ORCA_QPS_RESET)
		return hook_err(err, errlen, "QP %u is in RESET", qpn);
	qp_async_state(dev, qpn, qp, ORCA_QPS_ERR, ORCA_QP_EV_FATAL);
	orca_log("hook: QP %u -> ERR (fatal)", qpn);
	return 0;
}

int orca_dev_hook_sq_error(struct orca_dev *dev, uint32_t qpn, char *err,
			   size_t errlen)
{
	struct orca_qp *qp = qp_get(dev, qpn);

	if (!qp)
		return hook_err(err, errlen, "no QP %u", qpn);
	/* IBTA: an RC send error moves the whole QP to ERR, never to SQE */
	if (qp->ctx.qp_type == ORCA_QPT_RC)
		return hook_err(err, errlen,
				"QP %u is RC: RC QPs go to ERR (use qp-fatal)",
				qpn);
	if (qp->ctx.state != ORCA_QPS_RTS && qp->ctx.state != ORCA_QPS_SQD)
		return hook_err(err, errlen, "QP %u is %s, SQE needs RTS or SQD",
				qpn, orca_qps_name(qp->ctx.state));
	qp_async_state(dev, qpn, qp, ORCA_QPS_SQE, ORCA_QP_EV_SQ_ERROR);
	orca_log("hook: QP %u -> SQE", qpn);
	return 0;
}

int orca_dev_hook_port(struct orca_dev *dev, bool up, char *err,
		       size_t errlen)
{
	uint8_t state = up ? ORCA_PORT_ACTIVE : ORCA_PORT_DOWN;
	struct orca_eqe eqe;

	(void)err;
	(void)errlen;
	if (dev->port_state == state)
		return 0;	/* no transition, no event */
	dev->port_state = state;
	orca_log("hook: port 1 %s", up ? "ACTIVE" : "DOWN");
	memset(&eqe, 0, sizeof(eqe));
	eqe.type = ORCA_EQE_PORT_EVENT;
	eqe.port.port = 1;
	eqe.port.event = up ? ORCA_PORT_EV_ACTIVE : ORCA_PORT_EV_DOWN;
	post_async(dev, &eqe);
	flush_irq(dev);
	return 0;
}

void orca_dev_hook_fatal(struct orca_dev *dev, uint32_t syndrome)
{
	go_fatal(dev, syndrome, "injected by test hook");
	flush_irq(dev);
}

void orca_dev_hook_hang(struct orca_dev *dev)
{
	dev->hung = true;
	dev->stall_ticks = 0;
	orca_log("hook: hang (no doorbells, no heartbeat)");
}

void orca_dev_hook_stall(struct orca_dev *dev, uint32_t ms)
{
	dev->hung = true;
	dev->stall_ticks = (ms + ORCA_HEARTBEAT_PERIOD_MS - 1) /
			   ORCA_HEARTBEAT_PERIOD_MS + 1;
	orca_log("hook: stall for %u ms (no doorbells, no heartbeat), then resume",
		 ms);
}

void orca_dev_hook_cmd_delay(struct orca_dev *dev, uint32_t ms)
{
	dev->cmd_delay_ticks = (ms + ORCA_HEARTBEAT_PERIOD_MS - 1) /
			       ORCA_HEARTBEAT_PERIOD_MS;
	orca_log("hook: command completions held for %u ms", ms);
}

int orca_dev_hook_eq_flood(struct orca_dev *dev, uint32_t n, uint32_t qpn,
			   char *err, size_t errlen)
{
	struct orca_qp *qp = qp_get(dev, qpn);
	uint32_t i, lost = dev->eq_overflows;

	if (!qp)
		return hook_err(err, errlen, "no QP %u", qpn);
	if (qp->ctx.state == ORCA_QPS_RESET)
		return hook_err(err, errlen, "QP %u is in RESET", qpn);
	/* no interrupt until the end: the driver cannot drain meanwhile */
	for (i = 0; i < n; i++)
		post_qp_event(dev, qpn, ORCA_QP_EV_COMM_EST, qp->ctx.state,
			      dev->mirror_seq[qpn]);
	qp_async_state(dev, qpn, qp, ORCA_QPS_ERR, ORCA_QP_EV_FATAL);
	orca_log("hook: %u events then QP %u -> ERR; %u events dropped", n,
		 qpn, dev->eq_overflows - lost);
	return 0;
}

int orca_dev_hook_caps_override(struct orca_dev *dev, const char *field,
				uint64_t val, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
#define F(f) { #f, offsetof(struct orca_caps_override, f) }
		F(max_qp), F(max_cq), F(max_pd), F(max_cqe), F(max_qp_wr),
		F(num_comp_vectors), F(phys_port_cnt), F(gid_tbl_len),
		F(pkey_tbl_len),
#undef F
	};
	size_t i;

	if (!strcmp(field, "clear")) {
		memset(&dev->lie, 0, sizeof(dev->lie));
		orca_log("hook: capabilities reported as configured again");
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		if (strcmp(field, fields[i].name))
			continue;
		memcpy((char *)&dev->lie + fields[i].off, &val, sizeof(val));
		orca_log("hook: report %s = %llu (0 = as configured)", field,
			 (unsigned long long)val);
		return 0;
	}
	return hook_err(err, errlen, "no overridable capability '%s'", field);
}

void orca_dev_format_stats(const struct orca_dev *dev, char *buf, size_t len)
{
	const struct orca_stats *s = &dev->stats;
	size_t off;
	unsigned int op;

	off = snprintf(buf, len,
		       "cmds=%llu failed=%llu doorbells=%llu completions=%llu events=%llu eq_overflows=%u eq_full=%llu bad_addr=%llu mirror_writes=%llu irqs=%llu dma_writes=%llu dma_high=0x%llx func_resets=%llu pending=%u qps=%u cqs=%u pds=%u health=%u hung=%d",
		       (unsigned long long)s->cmds,
		       (unsigned long long)s->cmds_failed,
		       (unsigned long long)s->doorbells,
		       (unsigned long long)s->completions,
		       (unsigned long long)s->events, dev->eq_overflows,
		       (unsigned long long)s->eq_full,
		       (unsigned long long)s->bad_addr,
		       (unsigned long long)s->mirror_writes,
		       (unsigned long long)s->irqs,
		       (unsigned long long)s->dma_writes,
		       (unsigned long long)s->dma_high,
		       (unsigned long long)s->func_resets, dev->n_pending,
		       dev->n_qps,
		       dev->n_cqs, dev->n_pds, dev->fatal ? 1 : 0,
		       dev->hung ? 1 : 0);
	for (op = 0; op < 256 && off < len; op++) {
		if (!s->per_opcode[op])
			continue;
		if (cmd_table[op].fn)
			off += snprintf(buf + off, len - off, " op_%s=%llu",
					orca_opcode_name(op),
					(unsigned long long)s->per_opcode[op]);
		else
			off += snprintf(buf + off, len - off, " op_0x%02x=%llu",
					op, (unsigned long long)s->per_opcode[op]);
	}
}
