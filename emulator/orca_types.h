/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca device model: the device's state, as data only.  Every layer may
 * name every struct (what a layer may call is in its own header:
 * orca_core.h, orca_res.h, orca_xport.h, orca_link.h, orca_engine.h,
 * orca_cmd.h, orca_dev.h).
 */
#ifndef ORCA_TYPES_H
#define ORCA_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "orca_hw.h"
#include "orca_cfg.h"
#include "orca_dma.h"

/* Largest EQ the device accepts (the header fixes only the default). */
#define ORCA_EMU_EQ_MAX_LOG_DEPTH	12
#define ORCA_EMU_CMDQ_MAX_DEPTH		(1U << ORCA_CMDQ_MAX_LOG_DEPTH)

enum orca_dev_state {
	ORCA_DEV_S_RESET,	/* connected or RESET done, INIT not yet */
	ORCA_DEV_S_ACTIVE,	/* INIT done: objects, async events */
	ORCA_DEV_S_TORN_DOWN,	/* TEARDOWN done: no DMA until RESET */
};

/* A command completion waiting for EQ space, or about to be posted. */
struct orca_cpl {
	struct orca_eqe eqe;
	uint8_t opcode;
	bool irq;		/* raise MSI-X even if INIT's arm is gone */
	uint64_t due;		/* heartbeat tick from which it may be posted */
};

struct orca_pd {
	bool used;
	uint32_t qp_refs;
	uint32_t mr_refs;
	uint32_t ah_refs;
	uint32_t srq_refs;
	uint32_t mw_refs;
};

struct orca_ah {
	bool used;
	uint32_t pdn;
	struct orca_av av;
};

/* A page list the driver gave, copied and checked at command time. */
struct orca_pages {
	uint64_t *addr;			/* guest physical, 2^shift aligned */
	uint32_t n;
	uint8_t shift;
};

struct orca_mr {
	bool used;
	uint8_t key;			/* key byte of the live registration */
	uint32_t pdn;
	uint32_t access;		/* ORCA_ACCESS_* */
	uint64_t iova, length;
	uint32_t first_off;
	struct orca_pages pages;
	uint32_t mw_refs;		/* windows bound to it */
	/* ORCA_RESERVED_LKEY's: guest memory by address, no page list */
	bool phys;
	/* REG_DM_MR's: device memory dm (its handle), iova at dm_off */
	uint32_t dm;
	uint64_t dm_off;		/* in the device memory window */
	/* ALLOC_MR's: valid between a REG_MR WQE and an invalidation */
	bool fast;
	bool valid;			/* every REG_MR command's region is */
	uint32_t max_pages;
};

/*
 * Device memory (ALLOC_DM): pages [first, first + npages) of the window
 * at BAR2 ORCA_DM_BAR_OFFSET, length bytes of them its owner's.
 */
struct orca_dm {
	bool used;
	uint32_t first, npages;
	uint64_t length;
	uint32_t mr_refs;		/* regions over it */
};

#define ORCA_DM_PAGES	(ORCA_DM_MAX_SIZE / ORCA_DM_PAGE)

/*
 * A memory window (orca_mw.c).  Bound: [addr, addr + length) of region
 * mr_idx (its registration mr_key) with the REMOTE_* rights in access; a
 * type 2 window also to QP qpn.  key is the key byte of its rkey.
 */
struct orca_mw {
	bool used;
	bool bound;
	uint8_t type;			/* ORCA_MW_TYPE_* */
	uint8_t key;
	uint32_t pdn;
	uint32_t qpn;			/* type 2, bound */
	uint32_t mr_idx;		/* bound with length > 0 */
	uint8_t mr_key;
	uint32_t access;
	uint64_t addr, length;
};

struct orca_cq {
	bool used;
	uint32_t cqe;
	uint32_t comp_vector;
	uint32_t qp_refs;
	/* ring (none when ring.n == 0) */
	struct orca_pages ring;
	uint32_t log_depth;
	uint32_t dbrec_off;
	uint32_t pi;			/* CQEs written */
	uint32_t ci;			/* last consumer index read */
	uint32_t sol_pi;		/* pi after the last solicited or error CQE */
	bool overrun;			/* in error: no more CQEs */
	bool timestamp;			/* ORCA_CQ_CREATE_TIMESTAMP */
	bool err_event_pending;		/* CQ_ERROR waits for room in the EQ */
	bool fired;			/* an event was raised for fired_sn */
	uint32_t fired_sn;
};

/* A shared receive queue: a ring of receive WQEs in guest memory. */
struct orca_srq {
	bool used;
	uint32_t pdn;
	uint32_t max_wr, max_sge;
	uint32_t limit;			/* armed limit, 0 = not armed */
	bool limit_event_pending;	/* SRQ_LIMIT waits for room in the EQ */
	uint32_t qp_refs;
	struct orca_pages ring;
	uint32_t log_depth, log_stride;
	uint32_t dbrec_off;
	uint32_t ci;			/* next WQE a QP takes */
};

/* Largest SGE count and inline size a WQE can carry (max strides). */
#define ORCA_EMU_MAX_SGE		255
#define ORCA_EMU_MAX_INLINE		((1U << ORCA_SQ_MAX_LOG_STRIDE) - 64)

/* A work queue in the QP's buffer; log_depth 0 with !present: none. */
struct orca_wq {
	bool present;
	uint32_t log_depth, log_stride;
	uint64_t off;
	uint32_t ci;			/* next entry the device takes */
};

/* Requester: the send WQE in flight (one at a time per QP). */
struct orca_req {
	bool busy;			/* taken, not yet completed */
	bool sent_all;			/* every request packet sent */
	bool rnr_wait;			/* RNR NAK: wait for deadline */
	uint32_t idx;			/* SQ index */
	struct orca_send_wqe wqe;
	struct orca_av av;		/* UD: with ORCA_WQE_F_UD_AV */
	struct orca_sge sge[ORCA_EMU_MAX_SGE];
	uint8_t inl[ORCA_EMU_MAX_INLINE];
	uint64_t len;			/* message length */
	uint64_t off;			/* bytes sent */
	uint64_t rd_off;		/* READ: bytes received */
	uint32_t first_psn, psn, last_psn;
	uint32_t high_psn;		/* past the furthest PSN sent */
	uint32_t una_psn;		/* RC: the first not acknowledged */
	bool window_wait;		/* stopped: the send window is full */
	bool sent_once;			/* last_psn is this WQE's */
	bool probe;			/* AckReq on the next packet */
	uint8_t retry_left, rnr_left;
	/* packets the responder is known to have: resets retry_left */
	uint32_t progress, progress_seen;
	uint64_t deadline;		/* ns: retransmit or RNR retry */
	uint32_t next_psn;		/* PSN of the next new WQE */
};

/* Responder. */
struct orca_resp {
	uint32_t epsn;			/* expected PSN */
	uint32_t msn;
	bool nak_sent;			/* sequence NAK sent for epsn */
	bool drop_msg;			/* UC: drop to the next FIRST/ONLY */
	uint8_t in_op;			/* 0, or the FIRST opcode in progress */
	/* SEND: the receive WQE being filled */
	bool have_rwqe;
	bool rwqe_srq;			/* taken from the SRQ: idx is its wqe_id */
	uint32_t rwqe_idx, rnum_sge;
	uint32_t rpdn;			/* PD its SGEs belong to */
	struct orca_sge rsge[ORCA_EMU_MAX_SGE];
	uint64_t roff;
	/* WRITE in progress */
	uint64_t wlen;			/* its RETH DMA length */
	uint64_t wva;
	uint32_t wrkey;
	uint64_t wleft;
	/* READs and atomics: the ring qp->rd_res (orca_rdatom.c) */
	uint32_t rd_head;		/* entry the next request takes */
	uint32_t rd_due;		/* entries with responses to send */
	uint64_t rd_seq;		/* order in which they became due */
};

enum { RD_RES_NONE, RD_RES_READ, RD_RES_ATOMIC, RD_RES_ATOMIC_WRITE };

/*
 * A READ or atomic the responder executed, kept until the ring comes
 * round again so that a duplicate of it can be answered (rxe's
 * resp.resources[]).
 */
struct orca_rd_res {
	uint8_t type;			/* RD_RES_* */
	bool due;			/* responses to send (again) */
	uint32_t first_psn, last_psn;
	uint32_t rkey;
	uint64_t va, len;		/* what the request asked for */
	uint64_t orig;			/* atomic: the value it found */
	uint32_t msn;			/* the MSN once it was executed */
	uint64_t seq;			/* when it became due */
	/* READ: the part being answered, from PSN cur_psn; cur_off is out */
	uint64_t cur_va, cur_len, cur_off;
	uint32_t cur_psn;
};

/* A multicast group of the port while a QP is attached (ATTACH_MCAST). */
struct orca_mcg {
	bool used;
	uint16_t mlid;
	uint8_t mgid[16];
	uint32_t n_qps;
	uint32_t *qpns;			/* [max_mcast_qp_attach], by attach */
};

/* A QP's place on one of the device's QP lists (qp_list_*()). */
struct orca_qp_link {
	struct orca_qp *prev, *next;
};

/* A list of QPs in insertion order, linked through one orca_qp_link. */
struct orca_qp_list {
	struct orca_qp *head, *tail;
	uint32_t n;
};

struct orca_qp {
	struct orca_qp_ctx ctx;		/* current context, wire format */
	struct orca_qp_ctx dflt;	/* context at create: RESET restores it */
	/* queues (ring.n == 0: none) */
	struct orca_pages ring;
	uint32_t dbrec_off;
	struct orca_wq sq, rq;
	uint32_t sq_una;		/* oldest SQ WQE without a completion */
	struct orca_req req;
	struct orca_resp resp;
	/* max_dest_rd_atomic entries; they outlive a RESET's memset of resp */
	struct orca_rd_res *rd_res;
	uint32_t rd_res_n;
	uint32_t mw_refs;		/* type 2 windows bound to it */
	uint32_t mcast_refs;		/* multicast groups it is attached to */
	/* every QP the device has (orca_cmd_qp.c) */
	struct orca_qp_link live;
	/* the engine's run list (orca_kick.c): QPs it has to look at */
	struct orca_qp_link run;
	bool on_run;
	/*
	 * created without ORCA_QP_CREATE_KICK_RING (or naming no ring):
	 * on the unringed list, which every kick reads; else on its ring's
	 */
	struct orca_qp_link unringed;
	uint16_t kick_ring;		/* 1-based; 0: unringed */
};

/* A kick ring (orca_hw_io.h) of a user context. */
struct orca_kick {
	uint64_t addr;			/* 0: the slot is free */
	uint32_t cons;			/* entries taken (published copy) */
	struct orca_qp_list qps;	/* the QPs it names (their unringed) */
};

struct orca_stats {
	uint64_t doorbells;
	uint64_t cmds;
	uint64_t cmds_failed;
	uint64_t per_opcode[256];
	uint64_t events;		/* async EQEs posted */
	uint64_t completions;		/* CMD_DONE EQEs posted */
	uint64_t bad_addr;		/* guest addresses refused */
	uint64_t eq_full;		/* completion deferred: EQ full */
	uint64_t mirror_writes;
	uint64_t irqs;
	uint64_t dma_writes;		/* EQEs, mirror entries, out mailboxes */
	uint64_t dma_high;		/* highest guest address touched + 1 */
	uint64_t func_resets;		/* dev_ctl resets acknowledged */
	/* data path */
	uint64_t db_kicks;		/* ORCA_FW_VEC_DB doorbells */
	uint64_t wqes;			/* send WQEs taken */
	uint64_t pkts;			/* packets sent by the port */
	uint64_t pkt_bytes;		/* payload bytes in them */
	uint64_t pkts_dropped;		/* no route, QP, state or key */
	uint64_t peer_drops;		/* RC/UC: not from the QP's peer */
	uint64_t cqes;
	uint64_t cqe_errors;		/* CQEs with an error status */
	uint64_t naks;
	uint64_t rnr_naks;
	uint64_t retries;		/* retransmissions (timeout, RNR, seq) */
	uint64_t window_waits;		/* requester stops on a full window */
	uint64_t cq_overruns;
	uint64_t dio_scrambled;		/* payloads placed last block first */
	uint64_t link_drops;		/* link faults: packets lost, */
	uint64_t link_dups;		/* duplicated, */
	uint64_t link_reorders;		/* held back behind later ones */
	uint64_t db_hint_stops;		/* engine stops that cleared awake */
	uint64_t db_hint_catches;	/* work the last read found instead */
	uint64_t db_poll_catches;	/* posts found by polling after a kick */
	uint64_t db_poll_misses;	/* polls that found nothing */
	uint64_t comp_events_late;	/* raised by the heartbeat's arm sweep */
	uint64_t db_writes;		/* ORCA_FW_VEC_DB writes, uncoalesced */
	uint64_t kick_entries;		/* QPs kick rings named */
	uint64_t kick_overflows;	/* rings found full: all QPs read */
	uint64_t qp_visits;		/* QP steps of the engine */
	uint64_t comp_events;		/* completion EQEs posted */
	uint64_t events_lost;		/* async EQEs dropped, EQ full */
	uint64_t events_deferred;	/* kept until the EQ had room */
	uint64_t comp_events_lost;	/* completion EQEs dropped */
	uint64_t rx_pkts;		/* packets the port received */
	uint64_t rx_bytes;		/* payload bytes in them */
	/* the PMA's port counters: LRH to ICRC octets (IBA 16.1.3.5) */
	uint64_t port_xmit_octets, port_xmit_pkts;
	uint64_t port_rcv_octets;	/* (the packets: rx_pkts) */
	uint64_t port_xmit_discards;	/* port not ACTIVE, or no route */
	uint64_t port_mcast_xmit_pkts;	/* of port_xmit_pkts, to an MLID */
	uint64_t port_mcast_rcv_pkts;	/* of rx_pkts, to an MLID */
	uint64_t mcast_copies;		/* delivered to an attached QP */
	uint64_t fast_regs;		/* REG_MR WQEs that registered */
	uint64_t mr_invalidations;	/* fast-register regions freed, */
	uint64_t mr_remote_invalidations; /* of them by SEND_WITH_INV */
	uint64_t port_mirror_writes;
	/* the fabric (cfg fabric=PATH) */
	uint64_t fabric_tx_pkts;	/* packets sent to it, */
	uint64_t fabric_tx_bytes;	/* their IBTA bytes */
	uint64_t fabric_rx_pkts;	/* packets from it, decoded */
	uint64_t fabric_rx_bytes;
	uint64_t fabric_decode_drops;	/* malformed messages or packets */
	uint64_t fabric_queue_drops;	/* egress queue full */
	uint64_t egress_waits;		/* engine stops on a full egress queue */
	uint64_t fabric_links;		/* times the SM made the port ACTIVE */
};

/*
 * What QUERY_CAPS / QUERY_PORT report when a test asks the device to lie
 * (ctl "caps-override"); 0 = report the configuration.  The device's own
 * tables stay sized from the configuration.
 */
struct orca_caps_override {
	uint64_t max_qp, max_cq, max_pd, max_cqe, max_qp_wr;
	uint64_t num_comp_vectors, phys_port_cnt, gid_tbl_len, pkey_tbl_len;
};

struct orca_pkt;
struct orca_fab;
struct orca_link_ops;
struct orca_mad_node;

struct orca_dev {
	struct orca_cfg cfg;
	struct orca_regs *regs;		/* BAR2 offset 0 */

	/* guest RAM (the file), reached through the guest's memory map */
	uint8_t *ram;
	uint64_t ram_size;
	struct orca_memmap map;

	void (*raise_irq)(void *priv, unsigned int vec);
	void *irq_priv;
	bool reverse_completions;

	enum orca_dev_state state;
	bool armed;		/* async events + mirror (INIT .. RESET) */
	bool irq_enabled;	/* INIT had ORCA_INIT_F_EQ_IRQ */
	bool irq_pending;	/* an EQE was written since the last raise */
	bool fatal;
	bool hung;
	uint64_t stall_ticks;	/* > 0: hung only for this many more ticks */
	uint64_t ticks;		/* heartbeat periods since connect */
	uint64_t cmd_delay_ticks;	/* hold every completion this long */
	uint32_t place_delay_us;	/* pause per payload placement (tests) */
	bool reuse_handles;	/* lowest free handle, not round robin */
	bool comp_irq_held;	/* ctl "comp-irq-hold 1": no COMP MSI-X */
	bool db_awake_held;	/* ctl "db-awake-hold 1": never sleeps */
	/* ctl "misbehave": the next completion is posted twice / too long */
	bool dup_next_cpl;
	bool long_next_cpl;
	struct orca_caps_override lie;
	bool teardown_cpl_pending;	/* TEARDOWN done, completion not yet */

	/* queue registers latched at ORCA_DEV_CTL_ENABLE */
	bool latched;
	uint64_t cmdq_base;
	uint32_t cmdq_log_depth;
	uint64_t eq_base;
	uint32_t eq_log_depth;
	uint64_t ceq_base;		/* 0: no completion EQ */
	uint32_t ceq_log_depth;
	uint32_t ceq_pi, ceq_overflows;
	bool comp_irq_pending;

	/* fw-owned indices (also published in regs) */
	uint32_t cmdq_ci;
	uint32_t eq_pi;
	uint32_t eq_overflows;
	uint32_t bad_pi_logged;	/* last bad cmdq_pi we complained about */

	/* QP mirror latched at INIT */
	uint64_t mirror_base;
	uint32_t mirror_entries;

	/* port 1 */
	uint8_t port_state;	/* ORCA_PORT_* */
	/*
	 * PortInfo:CapabilityMask's bits host software owns (IsSM, IsCM ..,
	 * ORCA_PORT_CAP_SW), as MODIFY_PORT set them: a new host (function
	 * reset) starts from the configuration's
	 */
	uint32_t port_cap_sw;
	uint16_t bad_pkey_cntr;	/* PortInfo counters, stop at 0xffff */
	uint16_t qkey_viol_cntr;
	uint64_t port_mirror_base;	/* latched at INIT, 0 = none */
	uint32_t port_mirror_seq;
	/* the doorbell hint (orca_hw.h), latched at INIT, 0 = none */
	uint64_t db_hint_base;
	bool db_awake;			/* what it says now */
	/* adaptive polling after kicks (orca_dbhint.c) */
	uint64_t db_poll_ns;		/* window now, 0..db_poll_us */
	uint64_t db_poll_until;		/* dp_now_ns() to poll up to, 0 = none */
	uint64_t db_stop_ns;		/* when the engine last stopped */
	uint32_t db_poster;		/* first QP to start a WQE on this kick */
	uint32_t db_kick_qpn;		/* ... on the kick before */
	struct orca_fab *fab;		/* cable to orca-fabric, NULL: loopback */
	const struct orca_link_ops *link;	/* the port's transmit ops */
	/* the management agents' node (orca_fw_mad.c): MAD_IFC, the wire */
	struct orca_mad_node *mad;
	/* what the host policy (cfg port_pin) stopped; never reset */
	struct {
		uint64_t smp_answered;	/* SMPs off the wire, answered */
		uint64_t smp_dropped;	/* ... dropped: not for a host */
		uint64_t mad_refused;	/* MAD_IFC Sets of what is pinned */
		uint64_t qp0_dropped;	/* the host's SMPs, never sent */
		uint64_t cap_refused;	/* MODIFY_PORT IsSM */
	} pin;

	/* objects */
	struct orca_pd *pds;		/* [max_pd + 1], index 0 unused */
	struct orca_cq *cqs;		/* [max_cq + 1], index 0 unused */
	struct orca_qp **qps;		/* [max_qp + ORCA_QPN_BASE] */
	struct orca_qp_list live_qps;		/* every QP */
	struct orca_qp_list unringed_qps;	/* those without a kick ring */
	struct orca_qp_list run_qps;	/* the engine's, as they got work */
	struct orca_kick *kicks;	/* [ORCA_MAX_KICK_RINGS] */
	uint16_t *kicks_used;		/* indices of the rings in use */
	uint32_t n_kicks;
	struct orca_mr *mrs;		/* [max_mr + 1], index 0 unused */
	/* device memory: max_dm_size bytes at dm_base (BAR2) */
	uint8_t *dm_base;
	struct orca_dm dms[ORCA_DM_PAGES + 1];	/* index 0 unused */
	struct orca_ah *ahs;		/* [max_ah + 1], index 0 unused */
	struct orca_srq *srqs;		/* [max_srq + 1], index 0 unused */
	struct orca_mw *mws;		/* [max_mw + 1], index 0 unused */
	uint32_t n_mws, next_mwn;
	struct orca_mcg *mcgs;		/* [max_mcast_grp] */
	uint32_t *mcg_qpns;		/* their qpns arrays, one block */
	uint32_t n_mcgs, n_mcast_attached;
	uint32_t n_srqs, next_srqn;
	uint32_t n_ahs, next_ahn;
	uint32_t n_mrs, next_mr;
	uint64_t key_rng;		/* key bytes (key_byte_next()), never 0 */
	/* the link: packets in flight, in order */
	struct orca_pkt *link_head, *link_tail;
	struct orca_pkt *link_held;	/* delayed packets, by deliver_at */
	unsigned int link_n;		/* packets on link_head and link_held */
	bool egress_wait;		/* the engine waits for the fabric queue */
	uint64_t link_rng;		/* link fault generator state */
	struct orca_pkt *pkt_cache;	/* free packets */
	unsigned int n_pkt_cache;
	bool dp_running;
	bool dp_pending;		/* dp_run() stopped on its budget */
	uint32_t *mirror_seq;		/* [max_qp + ORCA_QPN_BASE] */
	uint32_t n_pds, n_cqs, n_qps;
	uint32_t n_deferred;		/* CQ_ERROR/SRQ_LIMIT events waiting */
	uint32_t n_draining;		/* QPs in SQD with sq_draining set */
	uint32_t next_pdn, next_cqn, next_qpn;

	/* entries of the batch in flight, copied out of the ring */
	struct orca_cmdq_entry ents[ORCA_EMU_CMDQ_MAX_DEPTH];
	/* completions of the batch in flight / waiting for EQ space */
	struct orca_cpl batch[ORCA_EMU_CMDQ_MAX_DEPTH];
	struct orca_cpl pending[ORCA_EMU_CMDQ_MAX_DEPTH];
	unsigned int n_pending;

	/* scratch for one command's input and output, cast to payloads */
	_Alignas(64) uint8_t in_buf[ORCA_MBOX_SIZE];
	_Alignas(64) uint8_t out_buf[ORCA_MBOX_SIZE];

	struct orca_stats stats;
	/* stats at the last function reset: QUERY_COUNTERS reports from it */
	struct orca_stats stats_base;
};

#endif /* ORCA_TYPES_H */
