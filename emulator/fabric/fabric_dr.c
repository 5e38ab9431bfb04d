// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca-fabric --sm none: directed-route SMPs at the switch (IBA vol 1
 * 14.2.2; the kernel's drivers/infiniband/core/smi.c codes the same
 * rules for a node).  A DR SMP carries its route in the MAD: hop_cnt
 * hops, InitialPath[1..hop_cnt] the ports to leave by on the way out,
 * ReturnPath[] filled in on the way for the way back, hop_ptr the hop it
 * is at, and the D bit (status bit 15) set on the way back.
 *
 * Outbound (D = 0), arriving on port p with 0 < hop_ptr <= hop_cnt:
 * ReturnPath[hop_ptr] = p, then hop_ptr++; if hop_ptr is now past
 * hop_cnt the path ends here and port 0's SMA answers, else the SMP
 * leaves by InitialPath[hop_ptr].  The SMA's reply keeps hop_ptr at
 * hop_cnt + 1; as its sender the switch does hop_ptr-- and sends it out
 * of ReturnPath[hop_ptr], the port the request came in by.
 * Return (D = 1), 2 <= hop_ptr <= hop_cnt: hop_ptr--, out of
 * ReturnPath[hop_ptr].  hop_ptr 1 would end the DR part here, at the
 * SM's node: a switch has no SM.
 *
 * Only pure directed routes (DrSLID = DrDLID = 0xffff, LRH DLID
 * permissive), which is what OpenSM sends: an SMP with a LID-routed
 * part (DrDLID or DrSLID a LID, hop_ptr 0 arriving LID-routed) is
 * dropped and counted as FAB_SW_DROP_DR_LID.  Everything out of range
 * (hop_cnt > 63, hop_ptr outside the cases above, a path entry that is
 * no external port or a port that is not up) is dropped and counted as
 * FAB_SW_DROP_DR.  The patched SMP is encoded again, so its ICRC is
 * right.
 */
#include <string.h>

#include "fabric_switch.h"

static void drop(struct fab_switch *sw, enum fab_sw_drop why)
{
	sw->drops[why]++;
}

/* The SMP @p with its MAD now @mad, out of external port @out. */
static void dr_send(struct fab_switch *sw, struct orca_pkt *p,
		    const uint8_t *mad, unsigned int out)
{
	size_t len;

	if (out < 1 || out > sw->nports) {
		drop(sw, FAB_SW_DROP_DR);
		return;
	}
	if (mad != p->payload)
		memcpy(p->payload, mad, ORCA_MAD_SIZE);
	len = orca_pkt_encode(p, sw->buf);
	if (!len) {
		drop(sw, FAB_SW_DROP_DR);
		return;
	}
	/* a port that is DOWN is refused (and counted) there */
	fab_sw_emit(sw, out, sw->buf, len, true);
}

/* The path ends here: port 0's SMA answers, back the way it came. */
static void dr_local(struct fab_switch *sw, unsigned int in,
		     struct orca_pkt *p)
{
	static uint8_t out[ORCA_MAD_SIZE];
	uint8_t hop_cnt = p->payload[ORCA_SMP_HOP_CNT];
	size_t len;

	if (mad_get16(p->payload + ORCA_SMP_DR_DLID) != ORCA_LID_PERMISSIVE) {
		drop(sw, FAB_SW_DROP_DR_LID);
		return;
	}
	if (!fab_sw_port0(sw, in, p, out))
		return;
	/* the reply's sender: C14-13:1, hop_ptr from hop_cnt + 1 */
	out[ORCA_SMP_HOP_PTR] = hop_cnt;
	len = fab_sw_reply(sw, p, out, ORCA_LID_PERMISSIVE);
	if (!len) {
		drop(sw, FAB_SW_DROP_DR);
		return;
	}
	fab_sw_emit(sw, out[ORCA_SMP_RET_PATH + hop_cnt], sw->buf, len, true);
}

void fab_sw_dr(struct fab_switch *sw, unsigned int in, struct orca_pkt *p)
{
	uint8_t *m = p->payload;
	uint8_t hop_ptr = m[ORCA_SMP_HOP_PTR], hop_cnt = m[ORCA_SMP_HOP_CNT];
	bool back = m[ORCA_SMP_STATUS] & 0x80;

	if (hop_cnt > ORCA_SMP_MAX_HOPS) {
		drop(sw, FAB_SW_DROP_DR);
		return;
	}
	if (!back) {
		/* C14-9:1 (the sender moves hop_ptr off 0), C14-9:4/5 */
		if (!hop_ptr || hop_ptr > hop_cnt) {
			drop(sw, hop_ptr ? FAB_SW_DROP_DR : FAB_SW_DROP_DR_LID);
			return;
		}
		/* C14-9:2 and C14-9:3: note the way back, move on */
		m[ORCA_SMP_RET_PATH + hop_ptr] = in;
		m[ORCA_SMP_HOP_PTR] = ++hop_ptr;
		if (hop_ptr > hop_cnt)
			dr_local(sw, in, p);
		else
			dr_send(sw, p, m, m[ORCA_SMP_INIT_PATH + hop_ptr]);
		return;
	}
	/* C14-13:2: an intermediate hop on the way back */
	if (hop_ptr >= 2 && hop_ptr <= hop_cnt) {
		m[ORCA_SMP_HOP_PTR] = --hop_ptr;
		dr_send(sw, p, m, m[ORCA_SMP_RET_PATH + hop_ptr]);
		return;
	}
	/* C14-13:3: the DR part ends here, but the SM is not on a switch */
	drop(sw, hop_ptr == 1 &&
		 mad_get16(m + ORCA_SMP_DR_SLID) != ORCA_LID_PERMISSIVE ?
	     FAB_SW_DROP_DR_LID : FAB_SW_DROP_DR);
}
