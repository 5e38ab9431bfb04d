// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the firmware commands, one handler each, and the
 * opcode table the dispatcher (orca_dev.c) runs them from.  Every input
 * was copied into device memory and its length checked before a handler
 * sees it.
 */
#include <errno.h>
#include <stdlib.h>

#include "orca_dev_int.h"

/* ------------------------------------------------------------------ */
/* Handles                                                            */
/* ------------------------------------------------------------------ */

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

/* ---- dispatch table ---- */

const struct cmd_desc orca_cmd_table[256] = {
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
