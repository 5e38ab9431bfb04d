// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: the port's multicast groups (ATTACH_MCAST).
 *
 * A group is an (MGID, MLID) pair with the UD QPs attached to it, and it
 * exists while one is: what a switch delivers to the MLID, or the port
 * loops back, goes to each of them (orca_wire.c).  The limits are the
 * device's max_mcast_grp groups, max_mcast_qp_attach QPs in a group and
 * max_total_mcast_qp_attach attachments in all.
 */
#include <stdlib.h>

#include "orca_res.h"

bool mlid_is_mcast(uint16_t lid)
{
	return lid >= ORCA_MLID_MIN && lid <= ORCA_MLID_MAX;
}

int mcast_init(struct orca_dev *dev)
{
	const struct orca_cfg *g = &dev->cfg;
	uint32_t i;

	if (!g->max_mcast_grp)
		return 0;
	dev->mcgs = calloc(g->max_mcast_grp, sizeof(*dev->mcgs));
	dev->mcg_qpns = calloc((size_t)g->max_mcast_grp *
			       (g->max_mcast_qp_attach ?: 1),
			       sizeof(*dev->mcg_qpns));
	if (!dev->mcgs || !dev->mcg_qpns) {
		mcast_free(dev);
		return -1;
	}
	for (i = 0; i < g->max_mcast_grp; i++)
		dev->mcgs[i].qpns = dev->mcg_qpns + i * g->max_mcast_qp_attach;
	return 0;
}

void mcast_free(struct orca_dev *dev)
{
	free(dev->mcgs);
	free(dev->mcg_qpns);
	dev->mcgs = NULL;
	dev->mcg_qpns = NULL;
	dev->n_mcgs = 0;
	dev->n_mcast_attached = 0;
}

void mcast_destroy_all(struct orca_dev *dev)
{
	uint32_t i;

	for (i = 0; dev->mcgs && i < dev->cfg.max_mcast_grp; i++) {
		dev->mcgs[i].used = false;
		dev->mcgs[i].n_qps = 0;
	}
	dev->n_mcgs = 0;
	dev->n_mcast_attached = 0;
}

static struct orca_mcg *mcg_find(struct orca_dev *dev, uint16_t mlid,
				 const uint8_t *mgid)
{
	uint32_t i;

	for (i = 0; dev->n_mcgs && i < dev->cfg.max_mcast_grp; i++) {
		struct orca_mcg *m = &dev->mcgs[i];

		if (m->used && m->mlid == mlid &&
		    (!mgid || !memcmp(m->mgid, mgid, sizeof(m->mgid))))
			return m;
	}
	return NULL;
}

static int mcg_slot(const struct orca_mcg *m, uint32_t qpn)
{
	uint32_t i;

	for (i = 0; i < m->n_qps; i++)
		if (m->qpns[i] == qpn)
			return (int)i;
	return -1;
}

int mcast_attach(struct orca_dev *dev, struct orca_qp *qp, uint16_t mlid,
		 const uint8_t *mgid, const char **why)
{
	const struct orca_cfg *g = &dev->cfg;
	uint32_t qpn = le32toh(qp->ctx.qpn), i;
	struct orca_mcg *m = mcg_find(dev, mlid, mgid);

	if (m && mcg_slot(m, qpn) >= 0)
		return ORCA_STATUS_OK;
	if (dev->n_mcast_attached >= g->max_total_mcast_qp_attach) {
		*why = "max_total_mcast_qp_attach attachments";
		return ORCA_STATUS_NO_RESOURCES;
	}
	/* a group exists while a QP is attached: none if none may be */
	if (!g->max_mcast_qp_attach) {
		*why = "max_mcast_qp_attach 0";
		return ORCA_STATUS_NO_RESOURCES;
	}
	if (!m) {
		for (i = 0; i < g->max_mcast_grp && dev->mcgs[i].used; i++)
			;
		if (i == g->max_mcast_grp) {
			*why = "max_mcast_grp groups";
			return ORCA_STATUS_NO_RESOURCES;
		}
		m = &dev->mcgs[i];
		m->used = true;
		m->mlid = mlid;
		memcpy(m->mgid, mgid, sizeof(m->mgid));
		m->n_qps = 0;
		dev->n_mcgs++;
	}
	if (m->n_qps >= g->max_mcast_qp_attach) {
		*why = "max_mcast_qp_attach QPs in the group";
		return ORCA_STATUS_NO_RESOURCES;
	}
	m->qpns[m->n_qps++] = qpn;
	qp->mcast_refs++;
	dev->n_mcast_attached++;
	return ORCA_STATUS_OK;
}

static void mcg_remove(struct orca_dev *dev, struct orca_mcg *m,
		       struct orca_qp *qp, int slot)
{
	/* the others keep their order: delivery follows attachment */
	memmove(&m->qpns[slot], &m->qpns[slot + 1],
		(m->n_qps - slot - 1) * sizeof(m->qpns[0]));
	m->n_qps--;
	qp->mcast_refs--;
	dev->n_mcast_attached--;
	if (!m->n_qps) {
		m->used = false;
		dev->n_mcgs--;
	}
}

bool mcast_detach(struct orca_dev *dev, struct orca_qp *qp, uint16_t mlid,
		  const uint8_t *mgid)
{
	struct orca_mcg *m = mcg_find(dev, mlid, mgid);
	int slot = m ? mcg_slot(m, le32toh(qp->ctx.qpn)) : -1;

	if (slot < 0)
		return false;
	mcg_remove(dev, m, qp, slot);
	return true;
}

void mcast_qp_gone(struct orca_dev *dev, struct orca_qp *qp)
{
	uint32_t qpn = le32toh(qp->ctx.qpn), i;

	for (i = 0; qp->mcast_refs && i < dev->cfg.max_mcast_grp; i++) {
		struct orca_mcg *m = &dev->mcgs[i];
		int slot = m->used ? mcg_slot(m, qpn) : -1;

		if (slot >= 0)
			mcg_remove(dev, m, qp, slot);
	}
}

bool mcast_owns(struct orca_dev *dev, uint16_t mlid, const uint8_t *mgid)
{
	return mlid_is_mcast(mlid) && mcg_find(dev, mlid, mgid);
}

/* Is @qpn in a group before @end that a packet to (@mlid, @mgid) reaches? */
static bool reached_before(struct orca_dev *dev, const struct orca_mcg *end,
			   uint16_t mlid, const uint8_t *mgid, uint32_t qpn)
{
	const struct orca_mcg *m;

	for (m = dev->mcgs; m < end; m++)
		if (m->used && m->mlid == mlid &&
		    (!mgid || !memcmp(m->mgid, mgid, sizeof(m->mgid))) &&
		    mcg_slot(m, qpn) >= 0)
			return true;
	return false;
}

uint32_t mcast_for_each(struct orca_dev *dev, uint16_t mlid,
			const uint8_t *mgid,
			void (*fn)(struct orca_dev *dev, uint32_t qpn,
				   void *arg),
			void *arg)
{
	uint32_t n = 0, i, j;

	for (i = 0; dev->n_mcgs && i < dev->cfg.max_mcast_grp; i++) {
		const struct orca_mcg *m = &dev->mcgs[i];

		if (!m->used || m->mlid != mlid ||
		    (mgid && memcmp(m->mgid, mgid, sizeof(m->mgid))))
			continue;
		/* without a GRH, one copy per QP however many MGIDs share it */
		for (j = 0; j < m->n_qps; j++) {
			if (!mgid &&
			    reached_before(dev, m, mlid, NULL, m->qpns[j]))
				continue;
			fn(dev, m->qpns[j], arg);
			n++;
		}
	}
	return n;
}
