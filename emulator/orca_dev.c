// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: its entry points.  Creation and destruction, a new
 * host, the register block at power-on, dev_ctl (enable, function
 * reset), what a doorbell and a heartbeat tick run, and the counters.
 * The layers below (emulator/README) do the work; the test hooks are in
 * orca_hooks.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>

#include "orca_cmd.h"
#include "orca_dev.h"

/* ------------------------------------------------------------------ */
/* Entry points                                                       */
/* ------------------------------------------------------------------ */

/* Each doorbell and tick: the kept events, while the EQ has room. */
static void post_deferred(struct orca_dev *dev)
{
	if (!dev->n_deferred || !dev->armed || dev->fatal)
		return;
	dev->n_deferred = cq_post_deferred(dev) + srq_post_deferred(dev);
}

/*
 * Objects, held completions, armed events and every latched address
 * go: what a function reset, a new host and a lost host have in common.
 */
static void forget_all(struct orca_dev *dev)
{
	destroy_all(dev);
	disarm(dev);
	dev->n_pending = 0;
	dev->teardown_cpl_pending = false;
	dev->state = ORCA_DEV_S_RESET;
	dev->latched = false;
	dev->cmdq_base = dev->eq_base = 0;
	dev->cmdq_log_depth = dev->eq_log_depth = 0;
	dev->ceq_base = 0;
	dev->ceq_log_depth = 0;
	dev->comp_irq_pending = false;
}

/*
 * Function reset (dev_ctl): stop everything, forget every address the
 * driver gave us, and only then say so.  Also clears a fatal state.
 */
static void func_reset(struct orca_dev *dev)
{
	forget_all(dev);
	dev->port_state = port_link_state(dev);
	dev->fatal = false;
	dev->irq_pending = false;
	REG_WR32(dev, fatal_syndrome, 0);
	REG_WR32(dev, health, ORCA_HEALTH_OK);
	dev->bad_pkey_cntr = dev->qkey_viol_cntr = 0;
	dev->port_cap_sw = dev->cfg.port_cap_flags & ORCA_PORT_CAP_SW;
	dev->stats.func_resets++;
	dev->stats_base = dev->stats;
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
	dev->ceq_base = REG_RD64(dev, ceq_base);
	dev->ceq_log_depth = REG_RD32(dev, ceq_log_depth);
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

void orca_dev_doorbells(struct orca_dev *dev, unsigned int vec,
			uint64_t writes)
{
	if (vec == ORCA_FW_VEC_DB && !dev->hung)
		dev->stats.db_writes += writes;
	orca_dev_doorbell(dev, vec);
}

void orca_dev_doorbell(struct orca_dev *dev, unsigned int vec)
{
	if (dev->hung)
		return;
	dev->stats.doorbells++;
	dev_ctl_check(dev);
	/* the firmware's, driver or not */
	if (!dev->fatal)
		fw_mad_traps(dev);
	if (dev->fatal || !dev->latched)
		return;
	flush_pending(dev);
	post_deferred(dev);
	if (vec == ORCA_FW_VEC_CMDQ)
		process_cmdq(dev);
	else if (vec == ORCA_FW_VEC_DB)
		dev->stats.db_kicks++;
	/* awake until orca_dev_idle(): posts may skip their kicks */
	db_hint_set(dev, true);
	/* a command may have made a QP ready to send: run the engine */
	dev->db_poster = 0;
	dp_run(dev);
	if (vec == ORCA_FW_VEC_DB)
		db_poll_kicked(dev);
	flush_irq(dev);
}

/* heartbeat periods between two looks at every QP */
#define ORCA_SWEEP_TICKS	10

static void sqd_drain(struct orca_dev *dev)
{
	struct orca_qp *qp;

	for_each_live_qp(dev, qp) {
		uint32_t qpn = le32toh(qp->ctx.qpn), seq;

		if (!dev->n_draining)
			break;
		/* drained once the WQE in flight has completed */
		if (!qp->ctx.sq_draining || qp->req.busy)
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
	/* the firmware's, driver or not */
	if (!dev->fatal)
		fw_mad_traps(dev);
	if (dev->fatal || !dev->latched)
		return;
	flush_pending(dev);
	post_deferred(dev);
	if (dev->n_draining)
		sqd_drain(dev);
	cq_arm_sweep(dev);
	/*
	 * Kicks and kick rings are hints: a QP no ring named is looked at
	 * once a second all the same (an unringed one in every round).
	 */
	if (!(dev->ticks % ORCA_SWEEP_TICKS))
		qp_sched_all(dev);
	dp_timers(dev);
	dp_run(dev);
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
	r->port_mirror_base = 0;
	r->db_hint_base = 0;
	r->eq_overflows = 0;
	r->fatal_syndrome = 0;
	r->dev_ctl = 0;
	r->dev_sts = 0;
	r->ceq_base = 0;
	r->ceq_log_depth = 0;
	r->ceq_pi = 0;
	r->ceq_ci = 0;
	r->ceq_overflows = 0;
	r->health = htole32(ORCA_HEALTH_OK);
}

void orca_dev_connect(struct orca_dev *dev)
{
	/* a new host: the last one's address means nothing in its memory */
	dev->db_hint_base = 0;
	dev->db_awake = false;
	forget_all(dev);
	reset_regs(dev);
	dev->fatal = dev->hung = dev->irq_pending = false;
	dev->stall_ticks = dev->ticks = dev->cmd_delay_ticks = 0;
	dev->reuse_handles = dev->comp_irq_held = false;
	dev->db_awake_held = false;
	memset(&dev->lie, 0, sizeof(dev->lie));
	dev->cmdq_ci = dev->eq_pi = dev->eq_overflows = 0;
	dev->ceq_pi = dev->ceq_overflows = 0;
	dev->bad_pi_logged = 0;
	dev->port_state = port_link_state(dev);
	dev->next_pdn = dev->next_cqn = dev->next_qpn = 0;
	memset(dev->mirror_seq, 0,
	       (dev->cfg.max_qp + ORCA_QPN_BASE) * sizeof(*dev->mirror_seq));
	memset(&dev->stats, 0, sizeof(dev->stats));
	memset(&dev->stats_base, 0, sizeof(dev->stats_base));
	/* the port's counters start over with the statistics they read */
	mad_node_reset(dev);
	dev->bad_pkey_cntr = dev->qkey_viol_cntr = 0;
	dev->port_cap_sw = dev->cfg.port_cap_flags & ORCA_PORT_CAP_SW;
	dev->port_mirror_seq = 0;
	REG_WR64(dev, generation, REG_RD64(dev, generation) + 1);
}

void orca_dev_disconnect(struct orca_dev *dev)
{
	forget_all(dev);
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

/*
 * The register block as the firmware writes it when it boots.  The
 * generation survives (it lives in the function, not in the firmware):
 * orca_dev_connect() steps it, so a driver sees a new firmware.
 */
static void power_on_regs(struct orca_dev *dev, uint64_t generation)
{
	struct orca_regs *regs = dev->regs;

	/* magic first off and last on: a reader never sees a torn block */
	REG_WR64(dev, magic, 0);
	memset(regs, 0, sizeof(*regs));
	regs->if_version = htole32(ORCA_IF_VERSION);
	regs->fw_peer_id = htole32(0);
	regs->fw_version = htole64(dev->cfg.fw_version);
	regs->health = htole32(ORCA_HEALTH_OK);
	regs->generation = htole64(generation);
	memcpy(regs->fw_name, dev->cfg.fw_name, sizeof(regs->fw_name));
	regs->fw_name[sizeof(regs->fw_name) - 1] = '\0';
	REG_WR64(dev, magic, ORCA_MAGIC);
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
	static_assert(ORCA_DM_BAR_OFFSET + ORCA_DM_MAX_SIZE <= ORCA_BAR2_SIZE,
		      "device memory inside BAR2");
	dev->dm_base = (uint8_t *)regs + ORCA_DM_BAR_OFFSET;
	dev->raise_irq = raise_irq;
	dev->irq_priv = irq_priv;
	dev->link = &wire_link_ops;
	/* the key bytes' generator: unpredictable, never the 0 state */
	if (getrandom(&dev->key_rng, sizeof(dev->key_rng), 0) !=
	    sizeof(dev->key_rng))
		dev->key_rng = dp_now_ns();
	dev->key_rng |= 1;
	dev->pds = calloc(cfg->max_pd + 1, sizeof(*dev->pds));
	dev->cqs = calloc(cfg->max_cq + 1, sizeof(*dev->cqs));
	dev->qps = calloc(nqp, sizeof(*dev->qps));
	dev->mirror_seq = calloc(nqp, sizeof(*dev->mirror_seq));
	dev->mrs = calloc(cfg->max_mr + 1, sizeof(*dev->mrs));
	dev->ahs = calloc(cfg->max_ah + 1, sizeof(*dev->ahs));
	dev->srqs = calloc(cfg->max_srq + 1, sizeof(*dev->srqs));
	dev->mws = calloc(cfg->max_mw + 1, sizeof(*dev->mws));
	dev->kicks = calloc(ORCA_MAX_KICK_RINGS, sizeof(*dev->kicks));
	dev->kicks_used = calloc(ORCA_MAX_KICK_RINGS,
				 sizeof(*dev->kicks_used));
	if (!dev->pds || !dev->cqs || !dev->qps || !dev->mirror_seq ||
	    !dev->mrs || !dev->ahs || !dev->srqs || !dev->mws ||
	    !dev->kicks || !dev->kicks_used ||
	    mcast_init(dev) || mad_node_reset(dev) || fabric_init(dev)) {
		orca_dev_destroy(dev);
		return -ENOMEM;
	}

	power_on_regs(dev, 0);
	dev->port_state = port_link_state(dev);
	return 0;
}

void orca_dev_fw_restart(struct orca_dev *dev)
{
	power_on_regs(dev, REG_RD64(dev, generation));
	orca_dev_connect(dev);
}

void orca_dev_destroy(struct orca_dev *dev)
{
	if (dev->qps && dev->cqs && dev->pds)
		destroy_all(dev);
	wire_flush(dev);
	pkt_cache_free(dev);
	fabric_destroy(dev);
	mad_node_free(dev);
	free(dev->mrs);
	dev->mrs = NULL;
	free(dev->ahs);
	dev->ahs = NULL;
	free(dev->srqs);
	dev->srqs = NULL;
	free(dev->mws);
	dev->mws = NULL;
	free(dev->kicks);
	free(dev->kicks_used);
	dev->kicks = NULL;
	dev->kicks_used = NULL;
	mcast_free(dev);
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
/* Counters                                                           */
/* ------------------------------------------------------------------ */

void orca_dev_format_stats(const struct orca_dev *dev, char *buf, size_t len)
{
	const struct orca_stats *s = &dev->stats;
	size_t off;
	unsigned int op;

	off = snprintf(buf, len,
		       "cmds=%llu failed=%llu doorbells=%llu completions=%llu events=%llu eq_overflows=%u eq_full=%llu bad_addr=%llu mirror_writes=%llu irqs=%llu dma_writes=%llu dma_high=0x%llx func_resets=%llu pending=%u qps=%u cqs=%u pds=%u mrs=%u health=%u hung=%d db_kicks=%llu wqes=%llu pkts=%llu pkt_bytes=%llu pkts_dropped=%llu peer_drops=%llu cqes=%llu cqe_errors=%llu naks=%llu rnr_naks=%llu retries=%llu window_waits=%llu cq_overruns=%llu comp_events=%llu events_lost=%llu events_deferred=%llu comp_events_lost=%llu rx_pkts=%llu rx_bytes=%llu port_mirror_writes=%llu bad_pkey_cntr=%u qkey_viol_cntr=%u dio_scrambled=%llu link_drops=%llu link_dups=%llu link_reorders=%llu db_hint_stops=%llu db_hint_catches=%llu db_poll_catches=%llu db_poll_misses=%llu db_writes=%llu comp_events_late=%llu port_xmit_octets=%llu port_xmit_pkts=%llu port_rcv_octets=%llu port_xmit_discards=%llu mcast_groups=%u mcast_attached=%u mcast_copies=%llu port_mcast_xmit_pkts=%llu port_mcast_rcv_pkts=%llu fast_regs=%llu mr_invalidations=%llu mr_remote_invalidations=%llu kick_rings=%u kick_entries=%llu kick_overflows=%llu qp_visits=%llu",
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
		       dev->n_cqs, dev->n_pds, dev->n_mrs, dev->fatal ? 1 : 0,
		       dev->hung ? 1 : 0, (unsigned long long)s->db_kicks,
		       (unsigned long long)s->wqes,
		       (unsigned long long)s->pkts,
		       (unsigned long long)s->pkt_bytes,
		       (unsigned long long)s->pkts_dropped,
		       (unsigned long long)s->peer_drops,
		       (unsigned long long)s->cqes,
		       (unsigned long long)s->cqe_errors,
		       (unsigned long long)s->naks,
		       (unsigned long long)s->rnr_naks,
		       (unsigned long long)s->retries,
		       (unsigned long long)s->window_waits,
		       (unsigned long long)s->cq_overruns,
		       (unsigned long long)s->comp_events,
		       (unsigned long long)s->events_lost,
		       (unsigned long long)s->events_deferred,
		       (unsigned long long)s->comp_events_lost,
		       (unsigned long long)s->rx_pkts,
		       (unsigned long long)s->rx_bytes,
		       (unsigned long long)s->port_mirror_writes,
		       dev->bad_pkey_cntr, dev->qkey_viol_cntr,
		       (unsigned long long)s->dio_scrambled,
		       (unsigned long long)s->link_drops,
		       (unsigned long long)s->link_dups,
		       (unsigned long long)s->link_reorders,
		       (unsigned long long)s->db_hint_stops,
		       (unsigned long long)s->db_hint_catches,
		       (unsigned long long)s->db_poll_catches,
		       (unsigned long long)s->db_poll_misses,
		       (unsigned long long)s->db_writes,
		       (unsigned long long)s->comp_events_late,
		       (unsigned long long)s->port_xmit_octets,
		       (unsigned long long)s->port_xmit_pkts,
		       (unsigned long long)s->port_rcv_octets,
		       (unsigned long long)s->port_xmit_discards,
		       dev->n_mcgs, dev->n_mcast_attached,
		       (unsigned long long)s->mcast_copies,
		       (unsigned long long)s->port_mcast_xmit_pkts,
		       (unsigned long long)s->port_mcast_rcv_pkts,
		       (unsigned long long)s->fast_regs,
		       (unsigned long long)s->mr_invalidations,
		       (unsigned long long)s->mr_remote_invalidations,
		       dev->n_kicks, (unsigned long long)s->kick_entries,
		       (unsigned long long)s->kick_overflows,
		       (unsigned long long)s->qp_visits);
	if (off < len)
		off += snprintf(buf + off, len - off,
				" pin_smp_answered=%llu pin_smp_dropped=%llu pin_mad_refused=%llu pin_qp0_dropped=%llu pin_cap_refused=%llu",
				(unsigned long long)dev->pin.smp_answered,
				(unsigned long long)dev->pin.smp_dropped,
				(unsigned long long)dev->pin.mad_refused,
				(unsigned long long)dev->pin.qp0_dropped,
				(unsigned long long)dev->pin.cap_refused);
	if (off < len)
		off += fw_mad_format_stats(dev, buf + off, len - off);
	if (off < len)
		off += fabric_format_stats(dev, buf + off, len - off);
	for (op = 0; op < 256 && off < len; op++) {
		if (!s->per_opcode[op])
			continue;
		if (orca_cmd_table[op].fn)
			off += snprintf(buf + off, len - off, " op_%s=%llu",
					orca_opcode_name(op),
					(unsigned long long)s->per_opcode[op]);
		else
			off += snprintf(buf + off, len - off, " op_0x%02x=%llu",
					op, (unsigned long long)s->per_opcode[op]);
	}
}
