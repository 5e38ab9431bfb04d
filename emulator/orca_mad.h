/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca management agents: the subnet management agent (SMA, classes 0x01
 * and 0x81, IBA vol 1 ch. 14) and the performance management agent (PMA,
 * class 0x04, IBA 16.1) of one node, as a library that needs nothing of
 * the device.  orca-emu answers MAD_IFC with it for its CA port, and
 * orca-fabric answers for its switch's port 0.
 *
 * The owner fills a struct orca_mad_node (orca_mad_node_init() sets the
 * defaults, then it sets GUIDs, description, capabilities), hands every
 * MAD that reaches QP0/QP1 to orca_mad_process(), and acts on the change
 * bits it returns by re-reading the node: the fields marked "SM" below
 * are written by the subnet manager through PortInfo/P_KeyTable/... Sets
 * and are read-only to the owner, who reports the physical link through
 * orca_mad_link() and its capabilities through orca_mad_port_cap().
 *
 * Files: orca_pma.c (PerfMgmt), orca_sma.c (SubnMgmt attributes, PortInfo
 * state machine, M_Key), orca_trap.c (traps to the SM, TrapRepress),
 * orca_mad.c (the entry point: common header checks, dispatch, the
 * reply's header; node defaults).
 */
#ifndef ORCA_MAD_H
#define ORCA_MAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ORCA_MAD_SIZE		256
#define ORCA_MAD_HDR		24	/* the common MAD header */
#define ORCA_SMP_DATA		64	/* SMP attribute data at +64, 64 bytes */
#define ORCA_PMA_DATA		64	/* PMA data at +64, 192 bytes */
#define ORCA_SMP_DATA_LEN	64
#define ORCA_PMA_DATA_LEN	192

/* Management classes, methods, status (IBA 13.4.5-13.4.7). */
#define ORCA_MGMT_SUBN_LID	0x01
#define ORCA_MGMT_SUBN_DR	0x81
#define ORCA_MGMT_PERF		0x04
#define ORCA_METHOD_GET		0x01
#define ORCA_METHOD_SET		0x02
#define ORCA_METHOD_TRAP	0x05
#define ORCA_METHOD_TRAP_REPRESS 0x07
#define ORCA_METHOD_GET_RESP	0x81
#define ORCA_METHOD_RESP	0x80	/* the R bit */
#define ORCA_MAD_STATUS_BAD_VERSION	0x0004
#define ORCA_MAD_STATUS_UNSUP_METHOD	0x0008
#define ORCA_MAD_STATUS_UNSUP_ATTR	0x000c	/* method/attribute combination */
#define ORCA_MAD_STATUS_INVALID		0x001c	/* field or modifier value */
#define ORCA_SMP_STATUS_D		0x8000	/* DR SMP: direction bit */

#define ORCA_QP1_QKEY		0x80010000U	/* IBA 13.5.3.2 */

/* A directed-route SMP's fields, byte offsets in the MAD (IBA 14.2.1.2) */
#define ORCA_SMP_STATUS		4
#define ORCA_SMP_HOP_PTR	6
#define ORCA_SMP_HOP_CNT	7
#define ORCA_SMP_DR_SLID	32
#define ORCA_SMP_DR_DLID	34
#define ORCA_SMP_INIT_PATH	128
#define ORCA_SMP_RET_PATH	192
#define ORCA_SMP_MAX_HOPS	63	/* C14-6: hop_cnt 0..63 */

/* SMP attributes (IBA 14.2.5) and PMA attributes (IBA 16.1.3). */
#define ORCA_SMP_NODE_DESC	0x0010
#define ORCA_SMP_NODE_INFO	0x0011
#define ORCA_SMP_SWITCH_INFO	0x0012
#define ORCA_SMP_GUID_INFO	0x0014
#define ORCA_SMP_PORT_INFO	0x0015
#define ORCA_SMP_PKEY_TABLE	0x0016
#define ORCA_SMP_SL2VL		0x0017
#define ORCA_SMP_VL_ARB		0x0018
#define ORCA_SMP_LFT		0x0019
#define ORCA_SMP_MFT		0x001b
#define ORCA_SMP_SM_INFO	0x0020
#define ORCA_PMA_CLASS_PORT_INFO 0x0001
#define ORCA_PMA_PORT_COUNTERS	0x0012
#define ORCA_PMA_PORT_COUNTERS_EXT 0x001d
/* PMA ClassPortInfo CapabilityMask bits */
#define ORCA_PMA_CAP_ALL_PORT_SELECT	(1u << 8)
#define ORCA_PMA_CAP_EXT_WIDTH		(1u << 9)
#define ORCA_PMA_ALL_PORTS		0xff	/* PortSelect: every port */

/* PortInfo values */
#define ORCA_MAD_NODE_CA		1
#define ORCA_MAD_NODE_SWITCH	2
enum {
	ORCA_MAD_PORT_NOP, ORCA_MAD_PORT_DOWN, ORCA_MAD_PORT_INIT, ORCA_MAD_PORT_ARMED,
	ORCA_MAD_PORT_ACTIVE,
};

enum {
	ORCA_MAD_PHYS_SLEEP = 1, ORCA_MAD_PHYS_POLLING = 2, ORCA_MAD_PHYS_DISABLED = 3,
	ORCA_MAD_PHYS_LINKUP = 5,
};
/* CapabilityMask bits the owner may want (include/rdma/ib_mad.h) */
#define ORCA_CAP_IS_SM			(1u << 1)
#define ORCA_CAP_SYS_IMAGE_GUID		(1u << 11)
#define ORCA_CAP_IS_CM			(1u << 16)
#define ORCA_CAP_CLIENT_REREG		(1u << 25)
#define ORCA_MAD_LID_MCAST_BASE		0xc000

#define ORCA_MAD_MAX_PORTS	64	/* switch external ports */
#define ORCA_MAD_PKEYS		64	/* PartitionCap at most: 2 blocks */
#define ORCA_MAD_GUIDS		8	/* GUIDInfo: block 0 only */
#define ORCA_MAD_LFT_CAP	0xc000	/* unicast LIDs, 768 blocks of 64 */
#define ORCA_MAD_MFT_CAP	1024	/* MLIDs 0xc000.., 32 blocks of 32 */
#define ORCA_MAD_MFT_POSITIONS	((ORCA_MAD_MAX_PORTS + 16) / 16)

/* What orca_mad_process() and orca_mad_link() changed: the owner acts. */
#define ORCA_MAD_CHG_LID	(1u << 0)	/* LID or LMC */
#define ORCA_MAD_CHG_SM		(1u << 1)	/* MasterSMLID or MasterSMSL */
#define ORCA_MAD_CHG_PKEY	(1u << 2)	/* P_Key table contents */
#define ORCA_MAD_CHG_GID	(1u << 3)	/* GID prefix */
#define ORCA_MAD_CHG_REREG	(1u << 4)	/* ClientReregister asked */
#define ORCA_MAD_CHG_STATE	(1u << 5)	/* PortState or PhysState */
#define ORCA_MAD_CHG_MKEY	(1u << 6)	/* M_Key or its protect bits */
#define ORCA_MAD_CHG_COUNTERS	(1u << 7)	/* PMA counters cleared */
#define ORCA_MAD_CHG_RETRAIN	(1u << 8)	/* link went down: retrain it */
#define ORCA_MAD_CHG_PORT	(1u << 9)	/* other PortInfo fields */
#define ORCA_MAD_CHG_QOS	(1u << 10)	/* SL2VL or VLArbitration */
#define ORCA_MAD_CHG_FWD	(1u << 11)	/* SwitchInfo, LFT or MFT */
#define ORCA_MAD_CHG_DENIED	(1u << 12)	/* a Set refused: in->deny */

/*
 * PortInfo byte 43 bits 3:0 of a switch's external port (reserved on a
 * CA and on port 0); SwitchInfo byte 16 bits 7:4 say which the switch
 * has.  The SMA keeps only those, so the bits read are the bits done.
 */
#define ORCA_MAD_ENF_IN		0x8	/* PartitionEnforcementInbound */
#define ORCA_MAD_ENF_OUT	0x4	/* PartitionEnforcementOutbound */
#define ORCA_MAD_ENF_RAW_IN	0x2	/* FilterRawInbound */
#define ORCA_MAD_ENF_RAW_OUT	0x1	/* FilterRawOutbound */

/* PMA counters as the owner counts them: raw 64-bit totals, never reset. */
enum orca_pma_counter {
	ORCA_PMA_XMIT_BYTES, ORCA_PMA_RCV_BYTES,
	ORCA_PMA_XMIT_PKTS, ORCA_PMA_RCV_PKTS,
	ORCA_PMA_UCAST_XMIT_PKTS, ORCA_PMA_UCAST_RCV_PKTS,
	ORCA_PMA_MCAST_XMIT_PKTS, ORCA_PMA_MCAST_RCV_PKTS,
	ORCA_PMA_SYMBOL_ERRORS, ORCA_PMA_LINK_ERROR_RECOVERY,
	ORCA_PMA_LINK_DOWNED, ORCA_PMA_RCV_ERRORS,
	ORCA_PMA_RCV_REMPHYS_ERRORS, ORCA_PMA_RCV_SWITCH_RELAY_ERRORS,
	ORCA_PMA_XMIT_DISCARDS, ORCA_PMA_XMIT_CONSTRAINT_ERRORS,
	ORCA_PMA_RCV_CONSTRAINT_ERRORS, ORCA_PMA_LOCAL_LINK_INTEGRITY_ERRORS,
	ORCA_PMA_EXCESSIVE_BUFFER_OVERRUNS, ORCA_PMA_VL15_DROPPED,
	ORCA_PMA_NR
};

struct orca_pma_counters {
	uint64_t c[ORCA_PMA_NR];
};

/*
 * One port.  Owner: identity and capabilities, set after init.  SM: what
 * PortInfo and the tables' Sets write.  On a switch the subnet-wide
 * fields (M_Key .. SubnetTimeOut) of every port are port 0's.
 */
struct orca_mad_port {
	/* owner */
	uint64_t guid;
	uint32_t cap_mask;		/* through orca_mad_port_cap() */
	uint8_t link_width_supported;	/* 1 1x, 2 4x, 4 8x, 8 12x */
	uint8_t link_speed_supported;	/* 1 SDR, 2 DDR, 4 QDR */
	uint8_t mtu_cap;		/* 1 256 .. 5 4096 */
	uint8_t vl_cap;			/* 1 VL0, 2 VL0-1, 3 VL0-3, 4 VL0-7 */
	uint8_t vl_arb_high_cap, vl_arb_low_cap;
	uint8_t guid_cap;		/* 1..ORCA_MAD_GUIDS: guid + 0.. */
	uint8_t resp_time;		/* RespTimeValue, 5 bits */
	/* SM (PortInfo) */
	uint64_t mkey, gid_prefix;
	uint16_t lid, sm_lid, mkey_lease;
	uint8_t mkey_protect, lmc, sm_sl, subnet_timeout;
	uint8_t link_width_enabled, link_speed_enabled;
	uint8_t link_down_default, neighbor_mtu, vl_high_limit;
	uint8_t vl_stall, hoq_life, op_vls, enforcement, init_type_reply;
	uint8_t err_thresholds;		/* LocalPhyErrors:4, Overrun:4 */
	uint16_t mkey_violations, pkey_violations, qkey_violations;
	uint64_t lease_end_ms;		/* M_Key lease running until; 0: not */
	/* state: SM and orca_mad_link() */
	uint8_t state, phys_state;
	uint8_t link_width_active, link_speed_active;
	/* tables: SM */
	uint16_t pkeys[ORCA_MAD_PKEYS];
	uint8_t sl2vl[ORCA_MAD_MAX_PORTS + 1][8]; /* [out port]; CA: [0] */
	uint8_t vl_arb[4][64];		/* blocks 1..4: low, low, high, high */
	/* PMA: the raw counts at the last clear */
	struct orca_pma_counters pma_base;
};

struct orca_mad_switch {
	uint16_t lft_cap, mft_cap;	/* owner: <= ORCA_MAD_*_CAP */
	/*
	 * owner: PartitionEnforcementCap, the P_Key entries of each
	 * external port (<= ORCA_MAD_PKEYS; 0: no tables, no enforcement),
	 * and the ORCA_MAD_ENF_* bits its data path honours
	 */
	uint16_t enforce_cap;
	uint8_t enforce_mask;
	uint16_t lft_top;		/* SM */
	uint8_t default_port, default_mcast_primary, default_mcast_other;
	uint8_t life_time;		/* 5 bits */
	bool port_state_change;		/* set on link transitions */
	uint8_t lft[ORCA_MAD_LFT_CAP];	/* LID -> port, 0xff none */
	/* [position][MLID - 0xc000]: a block is 32 entries in a row */
	uint16_t mft[ORCA_MAD_MFT_POSITIONS][ORCA_MAD_MFT_CAP];
};

/*
 * Traps (orca_trap.c): IBA 14.2.5.1 Notice sent as SubnTrap() to the SM
 * LID, again until a TrapRepress of its TID (14.3.1).
 */
#define ORCA_SMP_NOTICE		0x0002
#define ORCA_TRAP_LINK_STATE	128	/* a switch port's state changed */
#define ORCA_TRAP_BAD_MKEY	256
#define ORCA_TRAP_BAD_PKEY	257
#define ORCA_TRAP_BAD_QKEY	258
#define ORCA_TRAP_SW_BAD_PKEY	259	/* a switch port's enforcement */
/*
 * orca's own notices (IsGeneric 0, the node's VendorID, DeviceID the low
 * bits): what a host policy (orca.rst "Host policy") stopped, so that
 * the SM hears of a tenant's attempts that never left its port
 */
#define ORCA_TRAP_VENDOR	0x8000
#define ORCA_VTRAP_PIN_SET	(ORCA_TRAP_VENDOR | 1)	/* a Set refused */
#define ORCA_VTRAP_PIN_QP0	(ORCA_TRAP_VENDOR | 2)	/* an SMP dropped */
#define ORCA_VTRAP_PIN_ISSM	(ORCA_TRAP_VENDOR | 3)	/* IsSM refused */
#define ORCA_NOTICE_URGENT	1
#define ORCA_NOTICE_SECURITY	2
#define ORCA_NOTICE_DETAILS	54	/* DataDetails at Notice byte 10 */
#define ORCA_MAD_TRAPS		8	/* outstanding at a time */
#define ORCA_MAD_TRAP_TRIES	8	/* sends before one is given up */

struct orca_mad_trap {
	uint64_t tid;			/* 0: the slot is free */
	uint64_t due_ms;		/* the next send */
	uint16_t num;
	uint8_t port, tries;
	uint8_t mad[ORCA_MAD_SIZE];
};

struct orca_mad_traps {
	struct orca_mad_trap slot[ORCA_MAD_TRAPS];
	uint32_t next_tid;
	uint16_t count;			/* NoticeCount */
	bool toggle;			/* NoticeToggle */
	/* raised; sent (first time); resent; repressed; given up; not
	 * raised: one of its number outstanding or no room; no SM LID */
	uint64_t raised, sent, resent, repressed, unanswered, coalesced;
	uint64_t no_sm;
};

struct orca_mad_node {
	/* owner */
	uint8_t node_type;		/* ORCA_MAD_NODE_CA or ORCA_MAD_NODE_SWITCH */
	uint8_t num_ports;		/* CA: ports 1..n; switch: 0..n */
	uint64_t sys_guid, node_guid;
	uint16_t partition_cap;		/* P_Key entries, <= ORCA_MAD_PKEYS */
	uint16_t device_id;
	uint32_t revision;
	uint32_t vendor_id;		/* 24 bits */
	char desc[64];			/* NodeDescription, NUL padded */
	/* the counters of @port (1..n; a switch 0..n), raw totals */
	void (*pma_read)(void *ctx, unsigned int port,
			 struct orca_pma_counters *out);
	void *pma_ctx;
	struct orca_mad_port port[ORCA_MAD_MAX_PORTS + 1];
	struct orca_mad_switch sw;	/* a switch's */
	struct orca_mad_traps traps;
};

#define ORCA_MAD_IGNORE_MKEY	(1u << 0)	/* IB_MAD_IGNORE_MKEY */
#define ORCA_MAD_HIDE_MKEY	(1u << 1)	/* PortInfo Get: M_Key reads 0 */

/*
 * One MAD for the agents.  @deny (ORCA_MAD_CHG_*) is what its sender may
 * not change, whatever its M_Key: a Set that would is refused whole
 * (status 0x1c, the attribute as it was) and reported as
 * ORCA_MAD_CHG_DENIED alone.  A CA's owner uses it to pin a port's
 * configuration against its host; a switch ignores it.
 * @now_ms is the owner's monotonic clock, which the M_Key lease runs on.
 */
struct orca_mad_in {
	const uint8_t *mad;		/* ORCA_MAD_SIZE bytes */
	uint8_t port;			/* the port it arrived on */
	uint32_t flags;			/* ORCA_MAD_IGNORE_MKEY, _HIDE_MKEY */
	uint32_t deny;			/* ORCA_MAD_CHG_* this one may not */
	uint64_t now_ms;
	uint16_t slid;			/* its source LID, if known (traps) */
};

enum orca_mad_result {
	ORCA_MAD_PASS,	/* not the agents': hand it up (responses, SMInfo..) */
	ORCA_MAD_REPLY,	/* out holds the GetResp to send back */
	ORCA_MAD_DROP,	/* no reply: M_Key violation, TrapRepress, bad port */
};

/*
 * Defaults for a CA with @num_ports ports (1..) or a switch with
 * @num_ports external ports (1..ORCA_MAD_MAX_PORTS): ports DOWN/Polling
 * (a switch's port 0 ACTIVE/LinkUp), P_Key 0xffff at index 0, 4x and
 * SDR/DDR/QDR, MTU 4096, VL0 only.  GUIDs, description and IDs are the
 * owner's to set.  Returns 0, or -1 on bad arguments.
 */
int orca_mad_node_init(struct orca_mad_node *node, uint8_t node_type,
		       uint8_t num_ports);

/*
 * Handle one MAD.  On ORCA_MAD_REPLY @out is the GetResp (same TID,
 * attribute and modifier); otherwise its contents mean nothing.
 * @changes gets the ORCA_MAD_CHG_* bits of what the MAD changed.
 */
enum orca_mad_result orca_mad_process(struct orca_mad_node *node,
				      const struct orca_mad_in *in,
				      uint8_t out[ORCA_MAD_SIZE],
				      uint32_t *changes);

/*
 * The physical link of @port came up (PhysState LinkUp, DOWN -> INIT) or
 * went down (Polling, DOWN); a disabled port stays disabled.  On a switch
 * a PortState transition sets SwitchInfo's PortStateChange.  Returns the
 * ORCA_MAD_CHG_* bits.
 */
uint32_t orca_mad_link(struct orca_mad_node *node, unsigned int port, bool up);

/*
 * Raise trap @num about @port (a CA's port; a switch's 0..n) with @len
 * bytes of DataDetails (IBA 14.2.5.1).  True if it is now outstanding;
 * false (and counted) if no SM LID is known, or one of that number for
 * that port is outstanding already, or ORCA_MAD_TRAPS are.
 */
bool orca_mad_trap(struct orca_mad_node *node, unsigned int port,
		   uint16_t num, const uint8_t *details, size_t len);
/*
 * The next trap due by @now_ms into @out, to send from LID @slid to the
 * SM's @dlid on QP0 (VL15); its size, or 0 when none is due.  Call until
 * 0: each call schedules the trap's next send.
 */
size_t orca_mad_trap_next(struct orca_mad_node *node, uint64_t now_ms,
			  uint8_t out[ORCA_MAD_SIZE], uint16_t *dlid,
			  uint16_t *slid);
/* Is any trap outstanding (to send now or again later)? */
bool orca_mad_traps_pending(const struct orca_mad_node *node);
/* A TrapRepress of @tid: the trap is answered.  False if none had it. */
bool orca_mad_trap_repress(struct orca_mad_node *node, uint64_t tid);

/* CapabilityMask |= @set, &= ~@clear (IsSM, IsCM: the owner's). */
void orca_mad_port_cap(struct orca_mad_node *node, unsigned int port,
		       uint32_t set, uint32_t clear);

struct orca_pkt;
/*
 * The packet that carries the agents' reply @mad to the MAD in @req
 * (IBA 13.5.3.2): a UD SEND from the QP it was sent to (QP0 or QP1) back
 * to its sender, to @dlid from @slid; QP0's on VL15 with the default
 * P_Key and no Q_Key, QP1's with the request's P_Key and QP1's Q_Key.
 * @r's headers are zero (pkt_alloc(), or the owner's memset).
 */
void orca_mad_reply_pkt(struct orca_pkt *r, const struct orca_pkt *req,
			const uint8_t *mad, uint16_t dlid, uint16_t slid);
/*
 * The packet that carries trap @mad (orca_mad_trap_next()): a SubnTrap()
 * from QP0 to the SM's QP0 at @dlid, from @slid, on VL15 with the default
 * P_Key.  @t's headers are zero, as for orca_mad_reply_pkt().
 */
void orca_mad_trap_pkt(struct orca_pkt *t, const uint8_t *mad, uint16_t dlid,
		       uint16_t slid);

/* The port @port or NULL if the node has none by that number. */
static inline struct orca_mad_port *orca_mad_port(struct orca_mad_node *node,
						  unsigned int port)
{
	if (port > node->num_ports || port > ORCA_MAD_MAX_PORTS ||
	    (port == 0 && node->node_type != ORCA_MAD_NODE_SWITCH))
		return NULL;
	return &node->port[port];
}

/* Internal to the library: the SMA and PMA behind orca_mad_process(). */
enum orca_mad_result orca_sma_process(struct orca_mad_node *node,
				      const struct orca_mad_in *in,
				      uint8_t *out, uint16_t *status,
				      uint32_t *changes);
enum orca_mad_result orca_pma_process(struct orca_mad_node *node,
				      const struct orca_mad_in *in,
				      uint8_t *out, uint16_t *status,
				      uint32_t *changes);

/* Big-endian fields at byte offsets, for the library's files. */
static inline uint16_t mad_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t mad_get32(const uint8_t *p)
{
	return (uint32_t)mad_get16(p) << 16 | mad_get16(p + 2);
}

static inline uint64_t mad_get64(const uint8_t *p)
{
	return (uint64_t)mad_get32(p) << 32 | mad_get32(p + 4);
}

static inline void mad_put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline void mad_put32(uint8_t *p, uint32_t v)
{
	mad_put16(p, v >> 16);
	mad_put16(p + 2, v);
}

static inline void mad_put64(uint8_t *p, uint64_t v)
{
	mad_put32(p, v >> 32);
	mad_put32(p + 4, v);
}

#endif /* ORCA_MAD_H */
