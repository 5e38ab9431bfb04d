// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Multicast: a UD QP joins a group of the port, whose copies the device
 * then delivers to it.  Membership of the group in the subnet (the SA's
 * MCMemberRecord, the switches' forwarding tables) is the caller's and
 * the subnet manager's business; the device only needs the (MGID, MLID)
 * pair.  ib_core has checked the QP type, the GID and the LID already;
 * the device checks them again and owns the limits (max_mcast_*).
 */

#include "orca.h"
#include "orca_com_cmd.h"

static int orca_mcast(struct ib_qp *ibqp, u16 opcode, union ib_gid *gid,
		      u16 lid)
{
	struct orca_dev *dev = to_odev(ibqp->device);

	/* a device without groups: ib_attach_mcast's documented answer */
	if (!dev->attr.max_mcast_grp)
		return -EOPNOTSUPP;
	return orca_cmd_mcast(&dev->com, opcode, ibqp->qp_num, lid, gid->raw);
}

int orca_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return orca_mcast(ibqp, ORCA_CMD_ATTACH_MCAST, gid, lid);
}

int orca_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return orca_mcast(ibqp, ORCA_CMD_DETACH_MCAST, gid, lid);
}
