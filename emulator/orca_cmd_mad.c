// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: MAD_IFC, the driver's process_mad() into the
 * firmware's management agents (orca_fw_mad.c), and MODIFY_PORT.
 * Without ORCA_DEV_CAP_MAD_QPS SMPs are handed back up (PASS).
 */
#include <stdlib.h>

#include "orca_cmd.h"
#include "orca_mad.h"

int cmd_mad_ifc(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_mad_ifc_in *in = c->in;
	struct orca_mad_ifc_out *o = c->out;

	CHECK_RESERVED(c, in->reserved);
	if (in->flags & ~(ORCA_MAD_IFC_F_IGNORE_MKEY | ORCA_MAD_IFC_F_WC |
			  ORCA_MAD_IFC_F_GRH))
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS,
			    "unknown MAD_IFC flags 0x%x", in->flags);
	if (!in->port || in->port > dev->cfg.phys_port_cnt)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "port %u not in 1..%llu", in->port,
			    (unsigned long long)dev->cfg.phys_port_cnt);
	switch (fw_mad_host(dev, in->port, in->mad,
			    in->flags & ORCA_MAD_IFC_F_IGNORE_MKEY,
			    in->flags & ORCA_MAD_IFC_F_WC ? le16toh(in->slid) : 0,
			    o->mad)) {
	case ORCA_MAD_REPLY:
		o->result = ORCA_MAD_IFC_REPLY;
		break;
	case ORCA_MAD_DROP:
		o->result = ORCA_MAD_IFC_DROP;
		break;
	case ORCA_MAD_PASS:
		o->result = ORCA_MAD_IFC_PASS;
		break;
	}
	return ORCA_STATUS_OK;
}

int cmd_modify_port(struct orca_dev *dev, struct cmd *c)
{
	const struct orca_modify_port_in *in = c->in;
	uint32_t set = le32toh(in->set_cap), clr = le32toh(in->clr_cap);

	CHECK_RESERVED(c, in->reserved);
	CHECK_RESERVED(c, in->reserved2);
	if (!(dev->cfg.dev_caps & ORCA_DEV_CAP_MAD_QPS))
		return fail(c, ORCA_STATUS_UNSUPPORTED, ORCA_SYND_NONE,
			    "MODIFY_PORT without the MAD QPs capability");
	if (in->port != 1 || in->port > dev->cfg.phys_port_cnt)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "port %u", in->port);
	if (in->flags & ~ORCA_MODIFY_PORT_F_RESET_QKEY_CNTR)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_FLAGS,
			    "unknown MODIFY_PORT flags 0x%x", in->flags);
	if ((set | clr) & ~ORCA_PORT_CAP_SW)
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "capability bits 0x%x are the device's",
			    (unsigned int)((set | clr) & ~ORCA_PORT_CAP_SW));
	if ((set & ORCA_CAP_IS_SM) && (dev->cfg.port_pin & ORCA_PIN_SM)) {
		if (dev->mad)
			orca_mad_trap(dev->mad, 1, ORCA_VTRAP_PIN_ISSM, NULL,
				      0);
		dev->pin.cap_refused++;
		return fail(c, ORCA_STATUS_BAD_PARAM, ORCA_SYND_ATTR_RANGE,
			    "IsSM: the host policy (port_pin sm) says this host is no SM");
	}
	dev->port_cap_sw = (dev->port_cap_sw | set) & ~clr;
	if (in->flags & ORCA_MODIFY_PORT_F_RESET_QKEY_CNTR)
		dev->qkey_viol_cntr = 0;
	port_mirror_write(dev);
	return ORCA_STATUS_OK;
}
