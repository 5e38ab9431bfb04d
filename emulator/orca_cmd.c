// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the firmware commands of the device itself (RESET,
 * INIT, TEARDOWN, the queries) and of PDs, CQs and AHs, one handler
 * each, and the opcode table the command queue (orca_cmdq.c) runs every
 * command from (the other handlers: orca_cmd_qp.c, orca_cmd_mr.c,
 * orca_cmd_mw.c, orca_cmd_srq.c).  Every input
 * was copied into device memory and its length checked before a handler
 * sees it.
 */
#include <errno.h>
#include <stdlib.h>

#include "orca_cmd.h"

static bool pd_busy(struct orca_dev *dev, uint32_t h)
{
	return dev->pds[h].used;
}

static bool cq_busy(struct orca_dev *dev, uint32_t h)
{
	return dev->cqs[h].used;
}

/* ---- RESET / INIT / TEARDOWN ---- */

/*
 * Every object goes, and what is in flight on the link with them: RESET,
 * a function reset, a new host, and the end of the device.
 */
void destroy_all(struct orca_dev *dev)
{
	uint32_t i;

	wire_flush(dev);
	for (i = 0; i < dev->cfg.max_qp + ORCA_QPN_BASE; i++) {
		if (dev->qps[i])
			qp_queues_destroy(dev->qps[i]);
		free(dev->qps[i]);
		dev->qps[i] = NULL;
	}
	dev->live_qps = dev->unringed_qps = dev->run_qps =
		(struct orca_qp_list){ 0 };
	kick_ring_del_all(dev);
	for (i = 0; i <= dev->cfg.max_cq; i++)
		cq_ring_destroy(&dev->cqs[i]);
	mw_destroy_all(dev);
	mr_destroy_all(dev);
	dm_destroy_all(dev);
	srq_destroy_all(dev);
	mcast_destroy_all(dev);
	if (dev->ahs)
		memset(dev->ahs, 0, (dev->cfg.max_ah + 1) * sizeof(*dev->ahs));
	dev->n_ahs = 0;
	dev->dp_pending = false;
	memset(dev->pds, 0, (dev->cfg.max_pd + 1) * sizeof(*dev->pds));
	memset(dev->cqs, 0, (dev->cfg.max_cq + 1) * sizeof(*dev->cqs));
	dev->n_pds = dev->n_cqs = dev->n_qps = dev->n_draining = 0;
}

/* What INIT armed: async events, the mirrors, the doorbell hint. */
void disarm(struct orca_dev *dev)
{
	/* before the address is forgotten: no stale "awake" is left */
	db_hint_set(dev, false);
	dev->db_hint_base = 0;
	dev->armed = false;
	dev->irq_enabled = false;
	dev->mirror_base = 0;
	dev->mirror_entries = 0;
	dev->port_mirror_base = 0;
}

static int cmd_reset(struct orca_dev *dev, struct cmd *c)
{
	(void)c;
	destroy_all(dev);
	disarm(dev);
	dev->state = ORCA_DEV_S_RESET;
	dev->port_state = port_link_state(dev);
	orca_log("RESET: all objects destroyed, events/mirror/MSI-X disarmed");
	return ORCA_STATUS_OK;
}

/* A block INIT latches: 0 (none), or 64-byte aligned in host memory. */
static int init_block_ok(struct orca_dev *dev, struct cmd *c, uint64_t base,
			 uint64_t len, const char *what)
{
	if (!base || (!(base & 63) && dma_ok(dev, base, len)))
		return ORCA_STATUS_OK;
	dev->stats.bad_addr++;
	return fail(c, ORCA_STATUS_DMA_FAULT, ORCA_SYND_QUEUE_ADDR,
		    "%s 0x%llx outside host memory or misaligned", what,
		    (unsigned long long)base);
}

static int cmd_init(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_init_in *in = c->in;
	uint32_t flags = le32toh(in->flags);
	uint64_t mbase = REG_RD64(dev, qp_mirror_base);
	uint32_t mentries = REG_RD32(dev, qp_mirror_entries);
	uint64_t pbase = REG_RD64(dev, port_mirror_base);
	uint64_t hbase = REG_RD64(dev, db_hint_base);
	int ret;

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
	ret = init_block_ok(dev, c, pbase, dev->cfg.phys_port_cnt *
			    sizeof(struct orca_port_mirror), "port mirror");
	if (ret)
		return ret;
	ret = init_block_ok(dev, c, hbase, sizeof(struct orca_db_hint),
			    "doorbell hint");
	if (ret)
		return ret;
	dev->mirror_base = mentries ? mbase : 0;
	dev->mirror_entries = mentries;
	dev->port_mirror_base = pbase;
	dev->db_hint_base = dev->cfg.db_hint ? hbase : 0;
	dev->db_awake = false;
	dev->armed = true;
	port_mirror_write(dev);
	dev->irq_enabled = flags & ORCA_INIT_F_EQ_IRQ;
	dev->state = ORCA_DEV_S_ACTIVE;
	orca_log("INIT: armed, MSI-X %s, mirror 0x%llx x %u, port mirror 0x%llx, doorbell hint 0x%llx",
		 dev->irq_enabled ? "on" : "off",
		 (unsigned long long)dev->mirror_base, dev->mirror_entries,
		 (unsigned long long)dev->port_mirror_base,
		 (unsigned long long)dev->db_hint_base);
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
	o->max_fast_reg_page_list_len = htole32(g->max_fast_reg_page_list_len);
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

static int cmd_query_clock(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_cfg *g = &dev->cfg;
	struct orca_query_clock_out *o = c->out;

	if (!g->hca_core_clock)
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_NONE,
			    "no clock (hca_core_clock 0)");
	o->free_running = htole64(dp_clock_ticks(dp_now_ns(),
						 g->hca_core_clock,
						 g->completion_timestamp_mask));
	o->real_time = htole64(dp_real_time_ns());
	return ORCA_STATUS_OK;
}

static int cmd_query_port(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_query_port_in *in = c->in;
	const struct orca_cfg *g = &dev->cfg;

	CHECK_RESERVED(c, in->reserved);
	if (!in->port || in->port > g->phys_port_cnt)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "port %u not in 1..%llu", in->port,
			    (unsigned long long)g->phys_port_cnt);
	port_attr_fill(dev, c->out);
	return ORCA_STATUS_OK;
}

/* Counters since the last function reset (stats minus stats_base). */
static int cmd_query_counters(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_stats *s = &dev->stats, *b = &dev->stats_base;
	struct orca_query_counters_out *o = c->out;

#define CNT(f, v)	(o->f = htole64(s->v - b->v))
	CNT(cmds, cmds);
	CNT(cmd_errors, cmds_failed);
	CNT(async_events, events);
	CNT(async_events_lost, events_lost);
	CNT(comp_events, comp_events);
	CNT(comp_events_lost, comp_events_lost);
	CNT(doorbells, db_kicks);
	CNT(send_wqes, wqes);
	CNT(tx_packets, pkts);
	CNT(tx_bytes, pkt_bytes);
	CNT(rx_packets, rx_pkts);
	CNT(rx_bytes, rx_bytes);
	CNT(dropped_packets, pkts_dropped);
	CNT(cqes, cqes);
	CNT(cqe_errors, cqe_errors);
	CNT(naks_sent, naks);
	CNT(rnr_naks_sent, rnr_naks);
	CNT(retransmits, retries);
	CNT(cq_overruns, cq_overruns);
	CNT(dma_faults, bad_addr);
#undef CNT
	return ORCA_STATUS_OK;
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
		orca_gid_entry(&dev->cfg, le32toh(in->start) + i,
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

/* ---- kick rings (orca_hw_io.h) ---- */

static int cmd_create_kick_ring(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_create_kick_ring_in *in = c->in;
	struct orca_kick_ring_handle *o = c->out;
	uint64_t addr = le64toh(in->addr);
	uint32_t ring;

	if (!(dev->cfg.dev_caps & ORCA_DEV_CAP_KICK_RING))
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_NONE,
			    "kick rings not enabled");
	if ((addr & (ORCA_KICK_RING_SIZE - 1)) ||
	    !dma_ok(dev, addr, ORCA_KICK_RING_SIZE)) {
		dev->stats.bad_addr++;
		return fail(c, ORCA_STATUS_DMA_FAULT, ORCA_SYND_QUEUE_ADDR,
			    "kick ring at 0x%llx: not a page of host memory",
			    (unsigned long long)addr);
	}
	ring = kick_ring_add(dev, addr);
	if (!ring)
		return fail(c, ORCA_STATUS_NO_RESOURCES, ORCA_SYND_LIMIT,
			    "%u kick rings exist", ORCA_MAX_KICK_RINGS);
	o->ring = htole32(ring);
	return ORCA_STATUS_OK;
}

/* Once it completes the device neither reads nor writes the page. */
static int cmd_destroy_kick_ring(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_kick_ring_handle *in = c->in;

	CHECK_RESERVED(c, in->reserved);
	/* its QPs go first: an overflow of it reads their records */
	if (kick_ring_live(dev, le32toh(in->ring)) &&
	    dev->kicks[le32toh(in->ring) - 1].qps.head)
		return fail(c, ORCA_STATUS_BAD_RES_STATE, ORCA_SYND_NONE,
			    "kick ring %u still names QPs", le32toh(in->ring));
	if (!kick_ring_del(dev, le32toh(in->ring)))
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no kick ring %u", le32toh(in->ring));
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
	dev->pds[pdn] = (struct orca_pd){ .used = true };
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
	if (pd->qp_refs || pd->mr_refs || pd->ah_refs || pd->srq_refs ||
	    pd->mw_refs)
		return fail(c, ORCA_STATUS_BAD_RES_STATE, ORCA_SYND_IN_USE,
			    "PD %u still has %u QPs, %u MRs, %u AHs, %u SRQs and %u MWs",
			    pdn, pd->qp_refs, pd->mr_refs, pd->ah_refs,
			    pd->srq_refs, pd->mw_refs);
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
	struct orca_cq cq = { .used = true };
	uint32_t cqn, actual;
	int ret;

	CHECK_RESERVED(c, in->reserved);
	if (in->flags & ~ORCA_CQ_CREATE_TIMESTAMP)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS,
			    "CQ flags 0x%x", in->flags);
	if ((in->flags & ORCA_CQ_CREATE_TIMESTAMP) && !dev->cfg.hca_core_clock)
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_FLAGS,
			    "CQ timestamps without a clock (hca_core_clock 0)");
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
	if (in->ring.npages || !all_zero(&in->ring, sizeof(in->ring))) {
		ret = cq_ring_create(dev, c, &cq, in);
		if (ret)
			return ret;
	} else if (in->log_depth || in->dbrec_off) {
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RING,
			    "CQ ring geometry without a ring");
	}
	cqn = rr_next(&dev->next_cqn, 1, dev->cfg.max_cq + 1, cq_busy, dev);
	cq.cqe = actual;
	cq.comp_vector = vec;
	cq.timestamp = in->flags & ORCA_CQ_CREATE_TIMESTAMP;
	dev->cqs[cqn] = cq;
	dev->n_cqs++;
	o->cqn = htole32(cqn);
	o->cqe = htole32(actual);
	return ORCA_STATUS_OK;
}

/*
 * RESIZE_CQ: the unread CQEs (per the old doorbell record) move to the
 * start of the new ring, which the consumer reads from index 0.  One
 * thread runs commands and transfers: no CQE is written meanwhile.
 */
static int cmd_resize_cq(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_resize_cq_in *in = c->in;
	uint32_t cqn = le32toh(in->cqn), cqe = le32toh(in->cq.cqe);
	struct orca_cq *cq, nc = { .used = true };
	const struct orca_cq_dbrec *db;
	uint32_t ci, n, k, old_depth;
	int ret;

	CHECK_RESERVED(c, in->reserved);
	CHECK_RESERVED(c, in->cq.reserved);
	if (in->cq.flags)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS,
			    "RESIZE_CQ keeps the CQ's flags: 0x%x given",
			    in->cq.flags);
	cq = cq_get(dev, cqn);
	if (!cq)
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no CQ %u", cqn);
	if (!cq->ring.n)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RING,
			    "CQ %u has no ring to resize", cqn);
	if (!cqe || cqe > dev->cfg.max_cqe)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "cqe %u not in 1..%llu", cqe,
			    (unsigned long long)dev->cfg.max_cqe);
	/*
	 * Work posted before the command (its doorbell record written, the
	 * kick perhaps not yet seen) completes first, so the count of unread
	 * CQEs includes the completions the consumer already caused.
	 */
	dp_run(dev);
	ret = cq_ring_create(dev, c, &nc, &in->cq);
	if (ret)
		return ret;
	old_depth = 1U << cq->log_depth;
	db = pages_ptr(dev, &cq->ring, cq->dbrec_off, sizeof(*db));
	ci = db ? le32toh(__atomic_load_n(&db->ci, __ATOMIC_ACQUIRE)) : cq->ci;
	n = cq->pi - ci;
	if (n > old_depth || n >= (1U << nc.log_depth)) {
		cq_ring_destroy(&nc);
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_RING,
			    "%u unread CQEs do not fit 2^%u - 1 entries", n,
			    nc.log_depth);
	}
	for (k = 0; k < n; k++) {
		const struct orca_cqe *src = pages_ptr(dev, &cq->ring,
			(uint64_t)((ci + k) & (old_depth - 1)) << ORCA_CQE_LOG_SIZE,
			sizeof(*src));
		struct orca_cqe *dst = pages_ptr(dev, &nc.ring,
			(uint64_t)k << ORCA_CQE_LOG_SIZE, sizeof(*dst));

		if (!src || !dst)
			break;
		memcpy(dst, src, offsetof(struct orca_cqe, owner));
		__atomic_store_n(&dst->owner, 1, __ATOMIC_RELEASE);
		dev->stats.dma_writes++;
	}
	cq_ring_destroy(cq);
	cq->ring = nc.ring;
	cq->log_depth = nc.log_depth;
	cq->dbrec_off = nc.dbrec_off;
	/* the last solicited CQE, if unread, moved with the others */
	cq->sol_pi = (int32_t)(cq->sol_pi - ci) > 0 ? cq->sol_pi - ci : 0;
	cq->pi = n;
	cq->ci = 0;
	cq->cqe = (1U << nc.log_depth) - 1;
	((struct orca_create_cq_out *)c->out)->cqn = htole32(cqn);
	((struct orca_create_cq_out *)c->out)->cqe = htole32(cq->cqe);
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
	cq_ring_destroy(cq);
	cq->used = false;
	dev->n_cqs--;
	return ORCA_STATUS_OK;
}

/* ---- AH ---- */

static bool ah_busy(struct orca_dev *dev, uint32_t h)
{
	return dev->ahs[h].used;
}

static int cmd_create_ah(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_create_ah_in *in = c->in;
	struct orca_ah_handle *o = c->out;
	uint32_t pdn = le32toh(in->pdn), ahn;
	const struct orca_av *av = &in->av;
	const struct orca_cfg *g = &dev->cfg;

	CHECK_RESERVED(c, in->reserved);
	if (!pd_get(dev, pdn))
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no PD %u", pdn);
	if (!ud_av_ok(dev, av))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "address vector: port %u sl %u flags 0x%x sgid_index %u",
			    av->port, av->sl, av->flags, av->sgid_index);
	if (dev->n_ahs >= g->max_ah)
		return fail(c, ORCA_STATUS_NO_RESOURCES, ORCA_SYND_LIMIT,
			    "max_ah %llu reached", (unsigned long long)g->max_ah);
	ahn = rr_next(&dev->next_ahn, 1, g->max_ah + 1, ah_busy, dev);
	dev->ahs[ahn] = (struct orca_ah){ .used = true, .pdn = pdn, .av = *av };
	dev->n_ahs++;
	dev->pds[pdn].ah_refs++;
	o->ahn = htole32(ahn);
	return ORCA_STATUS_OK;
}

static int cmd_destroy_ah(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_ah_handle *in = c->in;
	uint32_t ahn = le32toh(in->ahn);
	struct orca_ah *ah;

	CHECK_RESERVED(c, in->reserved);
	ah = ahn && ahn <= dev->cfg.max_ah ? &dev->ahs[ahn] : NULL;
	if (!ah || !ah->used)
		return fail(c, ORCA_STATUS_BAD_RESOURCE, ORCA_SYND_HANDLE,
			    "no AH %u", ahn);
	dev->pds[ah->pdn].ah_refs--;
	ah->used = false;
	dev->n_ahs--;
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
	[ORCA_CMD_QUERY_COUNTERS] = { 0, sizeof(struct orca_query_counters_out),
				      false, cmd_query_counters },
	[ORCA_CMD_MAD_IFC] = { sizeof(struct orca_mad_ifc_in),
			       sizeof(struct orca_mad_ifc_out), true,
			       cmd_mad_ifc },
	[ORCA_CMD_MODIFY_PORT] = { sizeof(struct orca_modify_port_in), 0, true,
				   cmd_modify_port },
	[ORCA_CMD_QUERY_CLOCK] = { 0, sizeof(struct orca_query_clock_out), true,
				   cmd_query_clock },
	[ORCA_CMD_ALLOC_PD] = { 0, sizeof(struct orca_pd_handle), true,
				cmd_alloc_pd },
	[ORCA_CMD_DEALLOC_PD] = { sizeof(struct orca_pd_handle), 0, true,
				  cmd_dealloc_pd },
	[ORCA_CMD_CREATE_KICK_RING] = { sizeof(struct orca_create_kick_ring_in),
					sizeof(struct orca_kick_ring_handle),
					true, cmd_create_kick_ring },
	[ORCA_CMD_DESTROY_KICK_RING] = { sizeof(struct orca_kick_ring_handle),
					 0, true, cmd_destroy_kick_ring },
	[ORCA_CMD_CREATE_CQ] = { sizeof(struct orca_create_cq_in),
				 sizeof(struct orca_create_cq_out), true,
				 cmd_create_cq },
	[ORCA_CMD_DESTROY_CQ] = { sizeof(struct orca_cq_handle), 0, true,
				  cmd_destroy_cq },
	[ORCA_CMD_RESIZE_CQ] = { sizeof(struct orca_resize_cq_in),
				 sizeof(struct orca_create_cq_out), true,
				 cmd_resize_cq },
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
	[ORCA_CMD_ATTACH_MCAST] = { sizeof(struct orca_mcast_in), 0, true,
				    cmd_attach_mcast },
	[ORCA_CMD_DETACH_MCAST] = { sizeof(struct orca_mcast_in), 0, true,
				    cmd_detach_mcast },
	[ORCA_CMD_REG_MR] = { sizeof(struct orca_reg_mr_in),
			      sizeof(struct orca_reg_mr_out), true,
			      cmd_reg_mr },
	[ORCA_CMD_DEREG_MR] = { sizeof(struct orca_mr_handle), 0, true,
				cmd_dereg_mr },
	[ORCA_CMD_REREG_MR] = { sizeof(struct orca_rereg_mr_in), 0, true,
				cmd_rereg_mr },
	[ORCA_CMD_ALLOC_MW] = { sizeof(struct orca_alloc_mw_in),
				sizeof(struct orca_mw_handle), true,
				cmd_alloc_mw },
	[ORCA_CMD_ALLOC_MR] = { sizeof(struct orca_alloc_mr_in),
				sizeof(struct orca_reg_mr_out), true,
				cmd_alloc_mr },
	[ORCA_CMD_ALLOC_DM] = { sizeof(struct orca_alloc_dm_in),
				sizeof(struct orca_alloc_dm_out), true,
				cmd_alloc_dm },
	[ORCA_CMD_DEALLOC_DM] = { sizeof(struct orca_dm_handle), 0, true,
				  cmd_dealloc_dm },
	[ORCA_CMD_REG_DM_MR] = { sizeof(struct orca_reg_dm_mr_in),
				 sizeof(struct orca_reg_mr_out), true,
				 cmd_reg_dm_mr },
	[ORCA_CMD_DEALLOC_MW] = { sizeof(struct orca_mw_handle), 0, true,
				  cmd_dealloc_mw },
	[ORCA_CMD_CREATE_AH] = { sizeof(struct orca_create_ah_in),
				 sizeof(struct orca_ah_handle), true,
				 cmd_create_ah },
	[ORCA_CMD_DESTROY_AH] = { sizeof(struct orca_ah_handle), 0, true,
				  cmd_destroy_ah },
	[ORCA_CMD_CREATE_SRQ] = { sizeof(struct orca_create_srq_in),
				  sizeof(struct orca_srq_attr), true,
				  cmd_create_srq },
	[ORCA_CMD_MODIFY_SRQ] = { sizeof(struct orca_modify_srq_in), 0, true,
				  cmd_modify_srq },
	[ORCA_CMD_QUERY_SRQ] = { sizeof(struct orca_srq_handle),
				 sizeof(struct orca_srq_attr), true,
				 cmd_query_srq },
	[ORCA_CMD_DESTROY_SRQ] = { sizeof(struct orca_srq_handle), 0, true,
				   cmd_destroy_srq },
};
