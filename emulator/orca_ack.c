// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: what the responder answers with an AETH (ACKs,
 * NAKs, atomic ACKs), and the violations that end its QP.  The responder
 * (orca_resp.c) and its READ and atomic part (orca_rdatom.c) both send
 * them.
 */
#include "orca_xport.h"

/* An ACK, NAK (@syndrome) or atomic ACK (@orig) for PSN @psn. */
void send_aeth(struct orca_dev *dev, struct orca_qp *qp, uint8_t op,
	       uint8_t syndrome, uint32_t psn, uint64_t orig)
{
	struct orca_pkt *p = pkt_alloc(dev);

	if (!p)
		return;		/* like a lost packet: the requester retries */
	qp_address(dev, qp, p);
	p->opcode = IB_RC | op;
	p->hdrs |= PKT_AETH;
	p->syndrome = syndrome;
	p->msn = qp->resp.msn & PSN_MASK;
	p->psn = psn & PSN_MASK;
	if (op == IB_ATOMIC_ACK) {
		p->hdrs |= PKT_ATOMIC_ACK;
		p->orig = orig;
	}
	if (syndrome & AETH_NAK)
		dev->stats.naks++;
	port_xmit(dev, p);
}

/*
 * A violation the requester must hear about (RC: NAK @code) that also
 * ends this QP, as IBTA class A/C errors do.  UC just drops.
 */
void resp_fail(struct orca_dev *dev, struct orca_qp *qp,
	       const struct orca_pkt *p, uint8_t code, const char *why)
{
	orca_log("QP %u responder: %s (PSN %u, opcode 0x%02x)",
		 le32toh(qp->ctx.qpn), why, p->psn, p->opcode);
	if (!is_rc(qp)) {
		dev->stats.pkts_dropped++;
		qp->resp.drop_msg = !op_last(p->opcode & 0x1f);
		return;
	}
	send_aeth(dev, qp, IB_ACK, AETH_NAK | code, p->psn, 0);
	qp_error(dev, qp, why);
}
