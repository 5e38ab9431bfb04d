// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * orca asynchronous events: QP, CQ, SRQ, port and device events from the event
 * queue, and recovery when the device had to drop some.
 */

#include "orca.h"
#include "orca_attr.h"
#include "orca_com_cmd.h"
#include "orca_trace.h"

/*
 * IBTA has no affiliated event for a UD/UC send queue entering SQE: the
 * error completion tells the consumer.  Returns false for such events.
 */
static bool orca_qp_event_to_ib(u8 event, enum ib_event_type *type)
{
	switch (event) {
	case ORCA_QP_EV_FATAL:
		*type = IB_EVENT_QP_FATAL;
		return true;
	case ORCA_QP_EV_SQ_DRAINED:
		*type = IB_EVENT_SQ_DRAINED;
		return true;
	case ORCA_QP_EV_SQ_ERROR:
		return false;
	case ORCA_QP_EV_REQ_ERR:
		*type = IB_EVENT_QP_REQ_ERR;
		return true;
	case ORCA_QP_EV_ACCESS_ERR:
		*type = IB_EVENT_QP_ACCESS_ERR;
		return true;
	case ORCA_QP_EV_COMM_EST:
		*type = IB_EVENT_COMM_EST;
		return true;
	case ORCA_QP_EV_LAST_WQE_REACHED:
		*type = IB_EVENT_QP_LAST_WQE_REACHED;
		return true;
	default:
		*type = IB_EVENT_QP_FATAL;
		return true;
	}
}

static void orca_qp_event(struct orca_dev *dev,
			  const struct orca_eqe_qp_event *ev)
{
	u32 qpn = le32_to_cpu(ev->qpn);
	enum ib_event_type type;
	struct orca_qp *qp;

	qp = xa_load(&dev->qps, qpn);
	if (!qp) {
		ibdev_warn_ratelimited(&dev->ibdev,
				       "event %u for unknown QP %u\n",
				       ev->event, qpn);
		return;
	}
	/* the device moved the QP: later modify/query must start there */
	if (ev->state <= ORCA_QPS_ERR)
		WRITE_ONCE(qp->state, orca_qps_to_ib(ev->state));
	if (!orca_qp_event_to_ib(ev->event, &type)) {
		ibdev_dbg(&dev->ibdev, "QP %u: send queue error, now SQE\n",
			  qpn);
		return;
	}
	orca_qp_dispatch_event(qp, type);
}

static void orca_cq_event(struct orca_dev *dev,
			  const struct orca_eqe_cq_error *ev)
{
	u32 cqn = le32_to_cpu(ev->cqn);
	struct ib_event ibev = {};
	struct orca_cq *cq;

	cq = xa_load(&dev->cqs, cqn);
	if (!cq) {
		ibdev_warn_ratelimited(&dev->ibdev,
				       "error event for unknown CQ %u\n", cqn);
		return;
	}
	ibdev_err_ratelimited(&dev->ibdev, "CQ %u error, syndrome 0x%x\n",
			      cqn, le32_to_cpu(ev->syndrome));
	if (!cq->ibcq.event_handler)
		return;
	ibev.device = &dev->ibdev;
	ibev.element.cq = &cq->ibcq;
	ibev.event = IB_EVENT_CQ_ERR;
	cq->ibcq.event_handler(&ibev, cq->ibcq.cq_context);
}

/* The SRQ's limit was reached (the device disarmed it). */
static void orca_srq_event(struct orca_dev *dev, const struct orca_eqe_srq *ev)
{
	u32 srqn = le32_to_cpu(ev->srqn);
	struct ib_event ibev = {};
	struct orca_srq *srq;

	srq = xa_load(&dev->srqs, srqn);
	if (!srq) {
		ibdev_warn_ratelimited(&dev->ibdev,
				       "limit event for unknown SRQ %u\n", srqn);
		return;
	}
	if (!srq->ibsrq.event_handler)
		return;
	ibev.device = &dev->ibdev;
	ibev.element.srq = &srq->ibsrq;
	ibev.event = IB_EVENT_SRQ_LIMIT_REACHED;
	srq->ibsrq.event_handler(&ibev, srq->ibsrq.srq_context);
}

/* EQ lock held (it orders ib_registered against remove). */
static void orca_device_event(struct orca_dev *dev, enum ib_event_type type,
			      u32 port)
{
	struct ib_event ibev = {
		.device = &dev->ibdev,
		.event = type,
		.element.port_num = port,
	};

	if (dev->ib_registered)
		ib_dispatch_event(&ibev);
}

static void orca_port_event(struct orca_dev *dev, bool active)
{
	ibdev_info_ratelimited(&dev->ibdev, "port 1 %s\n",
			       active ? "active" : "down");
	orca_device_event(dev, active ? IB_EVENT_PORT_ACTIVE :
			  IB_EVENT_PORT_ERR, 1);
}

/**
 * orca_async_event - dispatch one asynchronous EQE
 * @com: transport
 * @eqe: the entry
 *
 * Called with the EQ lock held, in atomic context.
 */
void orca_async_event(struct orca_com *com, const struct orca_eqe *eqe)
{
	struct orca_dev *dev = com_to_odev(com);

	trace_orca_async_event(&dev->pdev->dev, eqe);
	switch (eqe->type) {
	case ORCA_EQE_QP_EVENT:
		orca_qp_event(dev, &eqe->qp);
		break;
	case ORCA_EQE_CQ_ERROR:
		orca_cq_event(dev, &eqe->cq);
		break;
	case ORCA_EQE_SRQ_LIMIT:
		orca_srq_event(dev, &eqe->srq);
		break;
	case ORCA_EQE_PORT_EVENT:
		if (eqe->port.event == ORCA_PORT_EV_MGMT) {
			/* the tables are read by commands: not here */
			atomic_or(le16_to_cpu(eqe->port.changes),
				  &dev->port_changes);
			schedule_work(&dev->port_work);
			break;
		}
		orca_port_event(dev, eqe->port.event == ORCA_PORT_EV_ACTIVE);
		break;
	case ORCA_EQE_DEVICE_FATAL:
		orca_device_event(dev, IB_EVENT_DEVICE_FATAL, 0);
		/*
		 * stop it before anything it could write goes back; what
		 * its kernel QPs had outstanding completes flushed after
		 */
		queue_work(system_long_wq, &dev->quiesce_work);
		break;
	default:
		dev_warn_ratelimited(&dev->pdev->dev,
				     "unknown event type 0x%x\n", eqe->type);
	}
}

/*
 * The subnet manager changed port 1 (ORCA_PORT_EV_MGMT): the tables it
 * changed are read again before ib_core hears of it, since its cache
 * re-reads them when told (mlx4's port management change events).
 */
void orca_port_work(struct work_struct *work)
{
	static const struct {
		u32 chg;
		enum ib_event_type ev;
	} map[] = {
		{ ORCA_PORT_CHG_LID, IB_EVENT_LID_CHANGE },
		{ ORCA_PORT_CHG_SM, IB_EVENT_SM_CHANGE },
		{ ORCA_PORT_CHG_PKEY, IB_EVENT_PKEY_CHANGE },
		{ ORCA_PORT_CHG_GID, IB_EVENT_GID_CHANGE },
		{ ORCA_PORT_CHG_REREG, IB_EVENT_CLIENT_REREGISTER },
	};
	struct orca_dev *dev = container_of(work, struct orca_dev, port_work);
	u32 chg = atomic_xchg(&dev->port_changes, 0);
	unsigned long flags;
	unsigned int i;

	if ((chg & (ORCA_PORT_CHG_PKEY | ORCA_PORT_CHG_GID)) &&
	    orca_refresh_port_tables(dev))
		ibdev_warn(&dev->ibdev,
			   "port 1 tables not re-read: the cache may be stale\n");
	ibdev_dbg(&dev->ibdev, "port 1: the SM changed 0x%x\n", chg);
	spin_lock_irqsave(&dev->com.eq_lock, flags);
	for (i = 0; i < ARRAY_SIZE(map); i++)
		if (chg & map[i].chg)
			orca_device_event(dev, map[i].ev, 1);
	spin_unlock_irqrestore(&dev->com.eq_lock, flags);
}

/* The device dropped events (EQ full): atomic context, defer the work. */
void orca_events_lost(struct orca_com *com, u32 lost)
{
	struct orca_dev *dev = com_to_odev(com);

	dev_warn_ratelimited(&dev->pdev->dev,
			     "device dropped %u asynchronous events (event queue full); resynchronising\n",
			     lost);
	schedule_work(&dev->resync_work);
}

/*
 * The device moved @qp to ERR and its events were dropped: what they said.
 * An SRQ QP entering ERR is also told that its last WQE is done (IBTA
 * 11.6.3.4): the consumer waits for that before it destroys the QP.
 */
static void orca_qp_missed_err(struct orca_qp *qp)
{
	WRITE_ONCE(qp->state, IB_QPS_ERR);
	orca_qp_dispatch_event(qp, IB_EVENT_QP_FATAL);
	if (qp->ibqp.srq)
		orca_qp_dispatch_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}

/*
 * Recover what dropped events would have said.  QP state changes are in
 * the mirror: a QP the device moved to ERR gets the QP_FATAL it missed,
 * and LAST_WQE_REACHED if it is on an SRQ.  CQ_ERR and SRQ_LIMIT_REACHED
 * leave no trace the driver could read: the device never drops them, it
 * waits for room in the EQ.
 * Port events leave no trace, so the port's current state is announced
 * again as a device event; consumers re-read what they need.
 */
void orca_resync_work(struct work_struct *work)
{
	struct orca_dev *dev = container_of(work, struct orca_dev,
					    resync_work);
	struct orca_port_attr pa;
	unsigned int fatal = 0;
	struct orca_qp_ctx ctx;
	unsigned long flags, index;
	struct orca_qp *qp;
	bool active;

	if (orca_port_attr_get(dev, 1, &pa))
		return;
	active = pa.state == ORCA_PORT_ACTIVE;

	/*
	 * One QP at a time under the EQ lock, not the whole walk with
	 * interrupts off: orca_retire() takes the lock after it reserves the
	 * entry, so a QP found in the table under it stays until it is
	 * dropped.
	 */
	xa_for_each(&dev->qps, index, qp) {
		spin_lock_irqsave(&dev->com.eq_lock, flags);
		qp = xa_load(&dev->qps, index);
		if (qp && orca_read_mirror(dev, index, &ctx)) {
			if (ctx.state == ORCA_QPS_ERR &&
			    READ_ONCE(qp->state) != IB_QPS_ERR) {
				orca_qp_missed_err(qp);
				fatal++;
			} else if (ctx.state == ORCA_QPS_SQE) {
				WRITE_ONCE(qp->state, IB_QPS_SQE);
			}
		}
		spin_unlock_irqrestore(&dev->com.eq_lock, flags);
		cond_resched();
	}
	spin_lock_irqsave(&dev->com.eq_lock, flags);
	orca_port_event(dev, active);
	spin_unlock_irqrestore(&dev->com.eq_lock, flags);

	ibdev_warn(&dev->ibdev,
		   "resynchronised after lost events: %u QPs found in ERR, port %s\n",
		   fatal, active ? "active" : "down");
}
